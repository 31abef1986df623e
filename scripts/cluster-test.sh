#!/usr/bin/env bash
# npm run test:cluster: the service on real clusters with faults (lab/chaos/clusterChaos.ts). Starts
# a scratch Redis Cluster (3 primaries + 3 replicas) and a 2-node Elasticsearch cluster on ports of
# their own (REDIS_CLUSTER_PORT 7200, ES_CLUSTER_PORT 9260, so the clusters of `npm run cluster`
# and of `npm test` are left alone), runs the check, and deletes both clusters whatever happened.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export REDIS_CLUSTER_PORT="${REDIS_CLUSTER_PORT:-7200}" ES_CLUSTER_PORT="${ES_CLUSTER_PORT:-9260}" ES_CLUSTER_NODES=2
trap 'bash scripts/cluster.sh stop || true' EXIT
bash scripts/cluster.sh redis start
bash scripts/cluster.sh es start
npx tsx lab/chaos/clusterChaos.ts

#!/usr/bin/env bash
# npm run test:cluster: the service on real clusters with faults (lab/chaos/clusterChaos.ts). Starts
# a scratch Redis Cluster (3 primaries + 3 replicas) and a 2-node Elasticsearch cluster on ports of
# their own (REDIS_CLUSTER_PORT 7200, ES_CLUSTER_PORT 9260, so the clusters of `npm run cluster`
# and of `npm test` are left alone), runs the check, and deletes both clusters whatever happened.
# The gateways settle on the dev chain (CHAIN_RPC_URL, 127.0.0.1:8545 by default): started here when
# no node answers there, and left running like the one `npm test` starts (scripts/chain.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export REDIS_CLUSTER_PORT="${REDIS_CLUSTER_PORT:-7200}" ES_CLUSTER_PORT="${ES_CLUSTER_PORT:-9260}" ES_CLUSTER_NODES=2
export CHAIN_RPC_URL="${CHAIN_RPC_URL:-http://127.0.0.1:8545}"
trap 'bash scripts/cluster.sh stop || true' EXIT
bash scripts/chain.sh start
bash scripts/cluster.sh redis start
bash scripts/cluster.sh es start
npx tsx lab/chaos/clusterChaos.ts

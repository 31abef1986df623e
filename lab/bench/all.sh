#!/usr/bin/env bash
# Every benchmark, one after another (each uses its own index and Redis prefix and deletes them).
# About 6 minutes on the 2-core development machine (plus ~10 for embedding 100,000 listings); numbers go to the README's Benchmarks section.
# Run on a quiet machine: the service, Elasticsearch and the load generator share the cores.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source "$ROOT/scripts/lib/prelude.sh"

run() { echo; echo "=== $* ($(date -u +%H:%M:%S) UTC)"; npx tsx "$@"; }

# The search benchmark reuses the 100,000 listings the ingest benchmark loads and keeps.
LISTINGS_ALIAS=bench-listings LISTINGS_INDEX=bench-listings-v1 REDIS_PREFIX=bench: \
  run lab/bench/ingest.ts --count 100000 --keep
run lab/bench/search.ts --alias bench-listings --rounds 3 --duration 10
curl -fsS -X DELETE "${ELASTICSEARCH_URL}/bench-listings-v1" >/dev/null || true
run lab/bench/freshness.ts
run lab/bench/facilitator.ts
run lab/bench/announce.ts
run lab/bench/publish.ts
run lab/bench/staleness.ts
run lab/bench/health.ts
run lab/bench/relevance.ts
run lab/bench/embedding.ts
# Scale-out (issue 14): 1-3 gateway processes on one catalog, and bulk load through the gateways' consumers.
run lab/bench/gateways.ts
run lab/bench/bulk.ts

#!/usr/bin/env bash
# First command of the README: installs dependencies, starts Elasticsearch and Redis with our own
# scripts, builds, loads the demo catalog and serves on http://127.0.0.1:${PORT:-8080}.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

[ -d node_modules ] || npm ci --no-audit --no-fund
export ELASTICSEARCH_URL="${ELASTICSEARCH_URL:-http://127.0.0.1:9200}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
ES_PORT="${ELASTICSEARCH_URL##*:}"; ES_PORT="${ES_PORT%%/*}"
ES_PORT="$ES_PORT" bash scripts/services.sh start

echo "[dev] building"
npx tsc -p tsconfig.json
if [ -f dist/scripts/demo.js ] && [ "${DEMO:-1}" != "0" ]; then
  echo "[dev] loading the demo catalog"
  node dist/scripts/demo.js
fi
exec node dist/src/server.js

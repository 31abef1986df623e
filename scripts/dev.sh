#!/usr/bin/env bash
# First command of the README: installs dependencies, starts Elasticsearch and Redis with our own
# scripts, builds, loads the demo catalog and serves on http://127.0.0.1:${PORT:-8080}.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/prelude.sh"

echo "[dev] building"
npx tsc -p tsconfig.json
npx tsx scripts/build-web.ts
if [ -f dist/scripts/demo.js ] && [ "${DEMO:-1}" != "0" ]; then
  echo "[dev] loading the demo catalog"
  node dist/scripts/demo.js
fi
exec node dist/src/server.js

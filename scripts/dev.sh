#!/usr/bin/env bash
# First command of the README: installs dependencies, starts Elasticsearch and Redis with our own
# scripts (and the dev chain), builds, loads the demo catalog and serves on http://127.0.0.1:${PORT:-8080}.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/prelude.sh"

# The dev chain's facilitator account (Hardhat's public account 1, chain/devChain.ts) unless a key is
# given: `exact` payments then settle on the dev chain for real, and the demo's funded buyer can pay.
if [ -z "${FACILITATOR_KEY_FILE:-}${FACILITATOR_PRIVATE_KEY:-}" ]; then
  FACILITATOR_PRIVATE_KEY="$(node --import tsx --input-type=module -e "import { DEV_FACILITATOR_KEY, ensureDevChain } from './chain/devChain.ts'; await ensureDevChain(); console.log(DEV_FACILITATOR_KEY)")"
  export FACILITATOR_PRIVATE_KEY
fi

echo "[dev] building"
npx tsc -p tsconfig.json
npx tsx scripts/build-web.ts
if [ -f dist/scripts/demo.js ] && [ "${DEMO:-1}" != "0" ]; then
  echo "[dev] loading the demo catalog"
  node dist/scripts/demo.js
fi
exec node dist/src/server.js

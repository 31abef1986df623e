#!/usr/bin/env bash
# The whole test suite: installs dependencies when missing, makes sure Elasticsearch and Redis
# answer (starting them with scripts/services.sh when they do not), type-checks, runs mocha.
# Extra arguments go to mocha (e.g. `npm test -- --grep cursor`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/prelude.sh"

echo "[test] type-checking"
npx tsc -p tsconfig.json --noEmit
npx tsc -p src/web/client/tsconfig.json
# The web catalog's client (the page tests drive it in Debian's chromium, installed when missing).
npx tsx scripts/build-web.ts
bash scripts/browser.sh ensure

started=$(date +%s)
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
set +e
# Without a test file among the arguments, the whole suite runs.
specs=("test/**/*.test.ts")
for arg in "$@"; do case "$arg" in *.ts) specs=() ;; esac; done
npx mocha "$@" "${specs[@]}" 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
set -e
passed=$(grep -Eo '^ +[0-9]+ passing' "$out" | grep -Eo '[0-9]+' | tail -n1 || true)
failed=$(grep -Eo '^ +[0-9]+ failing' "$out" | grep -Eo '[0-9]+' | tail -n1 || true)
pending=$(grep -Eo '^ +[0-9]+ pending' "$out" | grep -Eo '[0-9]+' | tail -n1 || true)
echo "[test] suite took $(( $(date +%s) - started ))s"
# The plain closing line CI reads, whatever the runner.
echo "${passed:-0} passed, ${failed:-0} failed, ${pending:-0} skipped"
if [ "${passed:-0}" = "0" ] && [ "$status" = "0" ]; then echo "[test] no test ran"; exit 1; fi
exit "$status"

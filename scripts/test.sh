#!/usr/bin/env bash
# The whole test suite: first the unit tests (test/unit: pure logic and in-memory fakes, no
# Elasticsearch or Redis, a few seconds; a failure stops here), then installs what is missing,
# makes sure Elasticsearch and Redis answer (starting them with scripts/services.sh when they do
# not), type-checks, lints and runs the integration tests (test/*.test.ts) against them.
# Extra arguments go to mocha (e.g. `npm test -- --grep cursor`); with a test file among them only
# the files given run (`npm test -- test/publish.test.ts`, `npm test -- test/unit/cursor.test.ts`).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE/.."
[ -x node_modules/.bin/node ] || ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
# The project's own Node.js (the `node` devDependency, Node 24 LTS) even when run as `bash scripts/test.sh`.
export PATH="$PWD/node_modules/.bin:$PATH"

files_given=false
for arg in "$@"; do case "$arg" in *.ts) files_given=true ;; esac; done

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
started=$(date +%s)
if [ "$files_given" = false ]; then
  echo "[test] unit tests (no Elasticsearch or Redis)"
  set +e
  # tsx loaded by this node, not through mocha's node-option (which starts a second node): about
  # 0.5 s less CPU of the 3.4 s the unit run takes.
  node --import tsx node_modules/mocha/bin/mocha.js --config test/unit/.mocharc.json "$@" 2>&1 | tee "$out"
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" != "0" ]; then echo "[test] unit tests failed: the integration suite was not run"; exit "$status"; fi
  echo "[test] unit tests took $(( $(date +%s) - started ))s"
fi

source "$HERE/lib/prelude.sh"

echo "[test] type-checking"
npx tsc -p tsconfig.json --noEmit
npx tsc -p src/web/client/tsconfig.json
# The web catalog's client (the page tests drive it in Debian's chromium, installed when missing).
npx tsx scripts/build-web.ts
bash scripts/browser.sh ensure
# Import circles, floating promises and imports that point up a floor (docs/architecture.md).
echo "[test] linting"
npx eslint src chain scripts test examples lab

set +e
# Without a test file among the arguments, the integration suite runs (the unit tests ran above).
specs=()
[ "$files_given" = false ] && specs=("test/*.test.ts")
npx mocha "$@" "${specs[@]}" 2>&1 | tee -a "$out"
status=${PIPESTATUS[0]}
set -e
# Totals over both runs (the unit run's lines and the integration run's, in $out).
# One awk: a grep finding nothing would end the script here (set -e, pipefail).
sum() { awk -v word="$1" '$2 == word && $1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$out"; }
passed=$(sum passing); failed=$(sum failing); pending=$(sum pending)
echo "[test] suite took $(( $(date +%s) - started ))s"
# The plain closing line CI reads, whatever the runner.
echo "${passed} passed, ${failed} failed, ${pending} skipped"
if [ "${passed}" = "0" ] && [ "$status" = "0" ]; then echo "[test] no test ran"; exit 1; fi
exit "$status"

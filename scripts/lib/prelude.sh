# Sourced by scripts/dev.sh and scripts/test.sh (after `set -euo pipefail`): from the repository
# root, dependencies installed when missing, the project's Node.js first on PATH, Elasticsearch and Redis answering (started with
# scripts/services.sh when they do not), the dev chain likewise (scripts/chain.sh), ELASTICSEARCH_URL,
# REDIS_URL and CHAIN_RPC_URL exported for the service.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# onnxruntime-node's install script would fetch its CUDA provider from NuGet on linux/x64: the CPU
# binary the embeddings use ships in the npm package. package.json's allowScripts denies the script;
# npm 10, which predates allowScripts, reads the package's own switch, this environment variable.
[ -x node_modules/.bin/node ] || ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
# The project runs on its own Node.js (the `node` devDependency, Node 24 LTS), whatever the
# machine's is: `npm run` puts node_modules/.bin first, and so does this for a script run directly.
export PATH="$ROOT/node_modules/.bin:$PATH"

export ELASTICSEARCH_URL="${ELASTICSEARCH_URL:-http://127.0.0.1:9200}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export CHAIN_RPC_URL="${CHAIN_RPC_URL:-http://127.0.0.1:8545}"
# services.sh runs its node on ES_PORT; the port comes from the (first) URL so that both agree.
ES_PORT="${ELASTICSEARCH_URL%%,*}"; ES_PORT="${ES_PORT##*:}"; ES_PORT="${ES_PORT%%/*}"
ES_PORT="$ES_PORT" bash scripts/services.sh start

# Sourced by scripts/dev.sh and scripts/test.sh (after `set -euo pipefail`): from the repository
# root, dependencies installed when missing, Elasticsearch and Redis answering (started with
# scripts/services.sh when they do not), ELASTICSEARCH_URL and REDIS_URL exported for the service.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# onnxruntime-node's install script would fetch its CUDA provider from NuGet on linux/x64: the CPU
# binary the embeddings use ships in the npm package. package.json's allowScripts denies the script;
# npm 10, which predates allowScripts, reads the package's own switch, this environment variable.
[ -d node_modules ] || ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund

export ELASTICSEARCH_URL="${ELASTICSEARCH_URL:-http://127.0.0.1:9200}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
# services.sh runs its node on ES_PORT; the port comes from the (first) URL so that both agree.
ES_PORT="${ELASTICSEARCH_URL%%,*}"; ES_PORT="${ES_PORT##*:}"; ES_PORT="${ES_PORT%%/*}"
ES_PORT="$ES_PORT" bash scripts/services.sh start

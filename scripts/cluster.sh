#!/usr/bin/env bash
# Loopback clusters for scale-out work and tests (docs/elasticsearch-cluster.md), next to the
# single node and Redis of scripts/services.sh and sharing its helpers (Java, the cached
# integ-test-zip, the non-root elasticsearch user):
#
#   scripts/cluster.sh es start|stop|status       Elasticsearch cluster of ES_CLUSTER_NODES nodes (2)
#   scripts/cluster.sh es stop-node I             stop node I (0-based) only; `es start` brings it back
#   scripts/cluster.sh redis start|stop|status    Redis Cluster: 3 primaries, 1 replica each
#   scripts/cluster.sh start|stop|status          both
#
# Environment: ES_CLUSTER_PORT (9250: HTTP ports 9250.., transport ports 9350..), ES_CLUSTER_NODES
# (2), ES_CLUSTER_HEAP (512m), REDIS_CLUSTER_PORT (7100: ports 7100..7105), plus ES_VERSION,
# ES_USER, ES_JAVA_HOME, CACHE_DIR as for scripts/services.sh. `stop` deletes the clusters' data
# (they are scratch clusters); `es stop-node` keeps the node's data so it rejoins.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/services.sh"
log() { printf '[cluster] %s\n' "$*" >&2; }

ES_CLUSTER_PORT="${ES_CLUSTER_PORT:-9250}"
ES_CLUSTER_NODES="${ES_CLUSTER_NODES:-2}"
ES_CLUSTER_HEAP="${ES_CLUSTER_HEAP:-512m}"
ES_CLUSTER_DIR="$CACHE_DIR/es-cluster-$ES_CLUSTER_PORT"
REDIS_CLUSTER_PORT="${REDIS_CLUSTER_PORT:-7100}"
REDIS_CLUSTER_DIR="$CACHE_DIR/redis-cluster-$REDIS_CLUSTER_PORT"

node_http() { echo $((ES_CLUSTER_PORT + $1)); }
node_transport() { echo $((ES_CLUSTER_PORT + 100 + $1)); }
node_dir() { echo "$ES_CLUSTER_DIR/node-$1"; }
node_pid() { local f; f="$(node_dir "$1")/es.pid"; [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"; }
node_answers() { curl -fsS -m 2 "http://127.0.0.1:$(node_http "$1")/_cluster/health" >/dev/null 2>&1; }

# ELASTICSEARCH_URL for the service: every node, comma-separated.
cluster_urls() {
  local i urls=()
  for ((i = 0; i < ES_CLUSTER_NODES; i++)); do urls+=("http://127.0.0.1:$(node_http "$i")"); done
  (IFS=,; echo "${urls[*]}")
}

start_node() {
  local i="$1" java_home="$2" seeds="$3" masters="$4" dir; dir="$(node_dir "$i")"
  # The process, not its answer: a running node without an elected master answers health with 503.
  if [ -n "$(node_pid "$i" || true)" ]; then log "node $i is already running (port $(node_http "$i"))"; return 0; fi
  mkdir -p "$dir/data" "$dir/logs"
  give_es_user "$dir"
  log "starting node $i on http://127.0.0.1:$(node_http "$i") (transport $(node_transport "$i"), heap $ES_CLUSTER_HEAP)"
  rm -f "$dir/es.pid"
  run_as_es env ES_JAVA_HOME="$java_home" ES_JAVA_OPTS="-Xms$ES_CLUSTER_HEAP -Xmx$ES_CLUSTER_HEAP" \
    "$ES_HOME/bin/elasticsearch" -d -p "$dir/es.pid" \
      -E cluster.name="catalog-cluster-$ES_CLUSTER_PORT" \
      -E node.name="node-$i" \
      -E network.host=127.0.0.1 \
      -E http.port="$(node_http "$i")" \
      -E transport.port="$(node_transport "$i")" \
      -E discovery.seed_hosts="$seeds" \
      -E cluster.initial_master_nodes="$masters" \
      -E xpack.security.enabled=false \
      -E path.data="$dir/data" \
      -E path.logs="$dir/logs" \
      -E cluster.routing.allocation.disk.threshold_enabled=false \
      -E action.destructive_requires_name=false \
      -E search.query_phase_parallel_collection_enabled=false \
      > "$dir/logs/startup.out" 2>&1 || { tail -n 40 "$dir/logs/startup.out" >&2; die "node $i did not start"; }
}

es_cluster_start() {
  local java_home i seeds=() masters=()
  java_home="$(ensure_java)"
  fetch_es
  # The listing index's analyzers need the dictionary on every node (a node that unpacked the zip
  # itself, as on a clean clone whose single node runs elsewhere, has none yet).
  ensure_hunspell
  for ((i = 0; i < ES_CLUSTER_NODES; i++)); do seeds+=("127.0.0.1:$(node_transport "$i")"); masters+=("node-$i"); done
  for ((i = 0; i < ES_CLUSTER_NODES; i++)); do
    start_node "$i" "$java_home" "$(IFS=,; echo "${seeds[*]}")" "$(IFS=,; echo "${masters[*]}")"
  done
  local waited=0 url="http://127.0.0.1:$(node_http 0)"
  until [ "$(curl -fsS -m 2 "$url/_cluster/health?filter_path=number_of_nodes" 2>/dev/null)" = "{\"number_of_nodes\":$ES_CLUSTER_NODES}" ]; do
    if [ "$waited" -ge 180 ]; then
      for ((i = 0; i < ES_CLUSTER_NODES; i++)); do tail -n 20 "$(node_dir "$i")/logs/catalog-cluster-$ES_CLUSTER_PORT.log" >&2 2>/dev/null || true; done
      die "the cluster did not form within ${waited}s"
    fi
    sleep 1; waited=$((waited + 1))
  done
  log "Elasticsearch cluster of $ES_CLUSTER_NODES nodes is up: ELASTICSEARCH_URL=$(cluster_urls)"
}

es_node_stop() {
  local i="$1" pid; pid="$(node_pid "$i" || true)"
  [ -n "$pid" ] || { log "node $i is not running"; return 0; }
  kill "$pid"
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do [ "$waited" -ge 60 ] && { kill -9 "$pid" 2>/dev/null || true; break; }; sleep 1; waited=$((waited + 1)); done
  rm -f "$(node_dir "$i")/es.pid"
  log "node $i stopped"
}

es_cluster_stop() {
  local i
  for ((i = 0; i < ES_CLUSTER_NODES; i++)); do es_node_stop "$i"; done
  rm -rf "$ES_CLUSTER_DIR"
}

es_cluster_status() {
  local i rc=0
  for ((i = 0; i < ES_CLUSTER_NODES; i++)); do
    if node_answers "$i"; then log "node $i answers on port $(node_http "$i")"; else log "node $i is down"; rc=1; fi
  done
  for ((i = 0; i < ES_CLUSTER_NODES; i++)); do
    node_answers "$i" && { curl -fsS -m 2 "http://127.0.0.1:$(node_http "$i")/_cluster/health?filter_path=status,number_of_nodes"; echo; break; }
  done
  return $rc
}

redis_ports() { local i; for ((i = 0; i < 6; i++)); do echo $((REDIS_CLUSTER_PORT + i)); done; }

redis_cluster_ok() { redis-cli -p "$REDIS_CLUSTER_PORT" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

# Three connected replicas, each listed in the slot table (CLUSTER SLOTS, what ioredis reads) of
# every node: a client reads the table from whichever node it reaches first, and gossip may lag.
redis_replicas_attached() {
  local nodes slots port node count
  nodes=$(redis-cli -p "$REDIS_CLUSTER_PORT" cluster nodes 2>/dev/null) || return 1
  for node in $(redis_ports); do
    slots=$(redis-cli -p "$node" cluster slots 2>/dev/null) || return 1
    count=0
    for port in $(awk '$3 ~ /slave/ && $8 == "connected" { split($2, a, "[:@]"); print a[2] }' <<<"$nodes"); do
      grep -qx "$port" <<<"$slots" && count=$((count + 1))
    done
    [ "$count" -ge 3 ] || return 1
  done
}

redis_cluster_start() {
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  local port addresses=()
  for port in $(redis_ports); do
    addresses+=("127.0.0.1:$port")
    [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ] && continue
    mkdir -p "$REDIS_CLUSTER_DIR/$port"
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --cluster-enabled yes --cluster-config-file nodes.conf \
      --cluster-node-timeout 3000 --appendonly yes --save "" --maxmemory "${REDIS_MAXMEMORY:-256mb}" --maxmemory-policy noeviction \
      --dir "$REDIS_CLUSTER_DIR/$port" \
      --logfile "$REDIS_CLUSTER_DIR/$port/redis.log" --pidfile "$REDIS_CLUSTER_DIR/$port/redis.pid"
  done
  for port in $(redis_ports); do
    local waited=0
    until [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ]; do
      [ "$waited" -ge 40 ] && { tail -n 20 "$REDIS_CLUSTER_DIR/$port/redis.log" >&2; die "redis on $port did not answer"; }
      sleep 0.25; waited=$((waited + 1))
    done
  done
  if ! redis_cluster_ok; then
    log "creating the Redis Cluster (3 primaries, 1 replica each) on ports $(redis_ports | tr '\n' ' ')"
    redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >/dev/null
  fi
  local waited=0
  until redis_cluster_ok; do [ "$waited" -ge 60 ] && die "the Redis Cluster is not ok"; sleep 0.5; waited=$((waited + 1)); done
  # cluster_state:ok comes as soon as the primaries own every slot; the replicas attach a moment
  # later. Clients that read the slot table before then see no replica (no failover, no WAIT).
  waited=0
  until redis_replicas_attached; do [ "$waited" -ge 60 ] && die "the Redis Cluster replicas did not attach"; sleep 0.5; waited=$((waited + 1)); done
  log "Redis Cluster is up: $(IFS=,; echo "${addresses[*]}")"
}

redis_cluster_stop() {
  local port f
  for port in $(redis_ports); do
    f="$REDIS_CLUSTER_DIR/$port/redis.pid"
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  sleep 0.5
  rm -rf "$REDIS_CLUSTER_DIR"
  log "Redis Cluster stopped"
}

redis_cluster_status() {
  if redis_cluster_ok; then
    redis-cli -p "$REDIS_CLUSTER_PORT" cluster nodes | awk '{print $2, $3}' | sed 's/@[0-9]*//' >&2
    log "Redis Cluster is ok"; return 0
  fi
  log "Redis Cluster is not ok on port $REDIS_CLUSTER_PORT"; return 1
}

case "${1:-}" in
  es) case "${2:-}" in
      start) es_cluster_start ;; stop) es_cluster_stop ;; status) es_cluster_status ;;
      stop-node) [[ "${3:-}" =~ ^[0-9]+$ ]] || die "usage: $0 es stop-node I"; es_node_stop "$3" ;;
      *) die "usage: $0 es start|stop|status|stop-node I" ;;
    esac ;;
  redis) case "${2:-}" in start) redis_cluster_start ;; stop) redis_cluster_stop ;; status) redis_cluster_status ;; *) die "usage: $0 redis start|stop|status" ;; esac ;;
  start) redis_cluster_start; es_cluster_start ;;
  stop) es_cluster_stop; redis_cluster_stop ;;
  status) rc=0; redis_cluster_status || rc=1; es_cluster_status || rc=1; exit $rc ;;
  *) die "usage: $0 start|stop|status | es start|stop|status|stop-node I | redis start|stop|status" ;;
esac

#!/usr/bin/env bash
# Starts, stops and inspects the dev chain: a local EVM JSON-RPC node (Hardhat 2's, from npm: its
# engine ships in the package, nothing is downloaded) with Base Sepolia's chain id, and our
# contracts on it at the addresses the x402 packages use (chain/devChain.ts: test USDC, Permit2,
# the x402 Permit2 proxies, Multicall3). The node keeps its state in memory: a restarted node is
# empty, and `start` deploys again (deploying is idempotent, so a node that already answers is
# only completed).
#
#   scripts/chain.sh start|stop|status
#
# Environment: CHAIN_RPC_URL (http://127.0.0.1:8545; a node already answering there is used, as
# with Redis), CHAIN_ID (84532, the node this script starts), CACHE_DIR (.cache).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${CACHE_DIR:-$ROOT/.cache}"
CHAIN_RPC_URL="${CHAIN_RPC_URL:-http://127.0.0.1:8545}"
CHAIN_ID="${CHAIN_ID:-84532}"
export PATH="$ROOT/node_modules/.bin:$PATH"

log() { printf '[chain] %s\n' "$*" >&2; }
die() { printf '[chain] error: %s\n' "$*" >&2; exit 1; }

chain_host_port() {
  local rest="${CHAIN_RPC_URL#*://}"; rest="${rest#*@}"; rest="${rest%%/*}"
  CHAIN_HOST="${rest%%:*}"; CHAIN_PORT="${rest##*:}"
  [ "$CHAIN_PORT" = "$rest" ] && CHAIN_PORT=8545
  [ -n "$CHAIN_HOST" ] || CHAIN_HOST=127.0.0.1
  CHAIN_DIR="$CACHE_DIR/chain-$CHAIN_PORT"
}

rpc() {
  curl -fsS -m 3 -H 'content-type: application/json' \
    --data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":[]}" "$CHAIN_RPC_URL" 2>/dev/null
}
chain_answers() { rpc eth_chainId | grep -q '"result"'; }
chain_pid() { local f="$CHAIN_DIR/chain.pid"; [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"; }

chain_status() {
  chain_host_port
  if chain_answers; then
    local id; id="$(rpc eth_chainId | sed -n 's/.*"result":"\(0x[0-9a-fA-F]*\)".*/\1/p')"
    log "a node answers at $CHAIN_RPC_URL: chain id $((id)), block $(( $(rpc eth_blockNumber | sed -n 's/.*"result":"\(0x[0-9a-fA-F]*\)".*/\1/p') ))"
    return 0
  fi
  log "no node answers at $CHAIN_RPC_URL"; return 1
}

# Our contracts on the node (compiled with solc from npm on first need, cached in .cache/chain/).
# A node that is not a dev node (no hardhat_setCode) is left alone: chain/devChain.ts refuses it.
chain_deploy() {
  (cd "$ROOT" && CHAIN_RPC_URL="$CHAIN_RPC_URL" node --import tsx scripts/chain-deploy.ts) || die "deploying the contracts failed"
}

chain_start() {
  chain_host_port
  if chain_answers; then log "a node already answers at $CHAIN_RPC_URL"; chain_deploy; return 0; fi
  case "$CHAIN_HOST" in 127.0.0.1|localhost) ;; *) die "no node answers at $CHAIN_RPC_URL, and this script starts one on loopback only" ;; esac
  [ -x "$ROOT/node_modules/.bin/hardhat" ] || die "hardhat is not installed: run npm ci"
  mkdir -p "$CHAIN_DIR"
  log "starting the dev chain (Hardhat node, chain id $CHAIN_ID) on $CHAIN_HOST:$CHAIN_PORT"
  rm -f "$CHAIN_DIR/chain.pid"
  # setsid: the node outlives the shell that started it (npm run dev, npm test), like Elasticsearch.
  # Telemetry prompt off: there is no terminal to answer it.
  # The cd is its own command: `cd && node &` would background a subshell that holds our stdout.
  (cd "$ROOT/chain"; HARDHAT_DISABLE_TELEMETRY_PROMPT=true CHAIN_ID="$CHAIN_ID" setsid nohup \
    node "$ROOT/node_modules/hardhat/internal/cli/cli.js" node --config "$ROOT/chain/hardhat.config.cjs" \
      --hostname "$CHAIN_HOST" --port "$CHAIN_PORT" > "$CHAIN_DIR/node.log" 2>&1 < /dev/null &
    echo $! > "$CHAIN_DIR/chain.pid")
  local waited=0
  until chain_answers; do
    if [ "$waited" -ge 120 ]; then chain_fail "no answer after $((waited / 2))s"; fi
    if [ "$waited" -ge 4 ] && [ -z "$(chain_pid)" ]; then chain_fail "the node process exited"; fi
    sleep 0.5; waited=$((waited + 1))
  done
  log "the dev chain is up at $CHAIN_RPC_URL after $((waited / 2))s"
  chain_deploy
}

chain_fail() {
  log "the dev chain failed to start: $1. Last lines of its log:"
  tail -n 30 "$CHAIN_DIR/node.log" >&2 2>/dev/null || true
  exit 1
}

chain_stop() {
  chain_host_port
  local pid; pid="$(chain_pid || true)"
  if [ -z "$pid" ]; then log "no dev chain started by this script on port $CHAIN_PORT"; return 0; fi
  log "stopping the dev chain (pid $pid)"
  kill "$pid"
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    [ "$waited" -ge 20 ] && { kill -9 "$pid" 2>/dev/null || true; break; }
    sleep 0.5; waited=$((waited + 1))
  done
  rm -f "$CHAIN_DIR/chain.pid"
  log "the dev chain stopped"
}

# Sourced (scripts/services.sh uses the functions above): define only, run nothing.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

case "${1:-}" in
  start) chain_start ;;
  stop) chain_stop ;;
  status) chain_status ;;
  *) die "usage: $0 start|stop|status" ;;
esac

#!/usr/bin/env bash
# The browser the web catalog's tests and `npm run bench -- screenshots` drive: Debian's chromium (driven by
# playwright-core; no browser is ever downloaded). `ensure` installs it with apt-get when it is
# missing and this runs as root, as scripts/services.sh does for its packages.
#   scripts/browser.sh ensure|path
# Environment: CHROMIUM_PATH (default /usr/bin/chromium).
set -euo pipefail
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"

log() { printf '[browser] %s\n' "$*" >&2; }

case "${1:-ensure}" in
  ensure)
    [ -x "$CHROMIUM_PATH" ] && exit 0
    if [ "$(id -u)" != "0" ]; then
      log "no chromium at $CHROMIUM_PATH: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH; the web page tests fail without it"
      exit 0
    fi
    log "installing chromium with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    [ -x "$CHROMIUM_PATH" ] || { log "chromium was installed but $CHROMIUM_PATH is missing; set CHROMIUM_PATH"; exit 1; }
    ;;
  path) echo "$CHROMIUM_PATH" ;;
  *) echo "usage: scripts/browser.sh ensure|path" >&2; exit 2 ;;
esac

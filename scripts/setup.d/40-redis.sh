#!/usr/bin/env bash
# A throwaway Redis server on a loopback port: the Celery broker of the distributed-run test
# (tests/services/test_scaleout_celery.py). Prints RLDELTA_TEST_REDIS_URL=... on stdout; progress on
# stderr. Idempotent (a running server is reused). Never fails the build: when no server can be
# started it prints RLDELTA_TEST_REDIS_SKIP='<why>' so the test skips saying why.
set -uo pipefail
cd "$(dirname "$0")/../.."
# State outside the clone, keyed by its path (as setup.d/20-postgres.sh); teardown removes it.
STATE="${TMPDIR:-/tmp}/rldelta-redis-$(printf %s "$PWD" | md5sum | cut -c1-12)"
say() { echo "[40-redis] $*" >&2; }
skip() { say "$1"; printf "RLDELTA_TEST_REDIS_SKIP='%s'\n" "${1//\'/}"; exit 0; }

if ! command -v redis-server >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  say "no redis-server; installing the Debian package (apt-get install redis-server)"
  { timeout 300 apt-get -o Acquire::Retries=1 update -qq \
    && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -o DPkg::Lock::Timeout=60 install -y -qq --no-install-recommends redis-server; } >&2 \
    || skip "apt-get install redis-server failed (no package mirror reachable?)"
fi
command -v redis-server >/dev/null || skip "no redis-server binary found and cannot apt-get install it"

mkdir -p "$STATE"
ping() { redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null | grep -q PONG; }
if [ -f "$STATE/port" ] && ping "$(cat "$STATE/port")"; then
  PORT="$(cat "$STATE/port")"
  say "reusing the running server on 127.0.0.1:$PORT"
else
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  say "starting redis-server on 127.0.0.1:$PORT (state in $STATE)"
  # No persistence: the broker lives for one test session; loopback only, protected mode on.
  redis-server --bind 127.0.0.1 --port "$PORT" --daemonize yes --dir "$STATE" --save "" --appendonly no \
    --pidfile "$STATE/redis.pid" --logfile "$STATE/server.log" >&2 \
    || skip "redis-server did not start: $(tail -1 "$STATE/server.log" 2>/dev/null)"
  for _ in $(seq 50); do ping "$PORT" && break; sleep 0.1; done
  ping "$PORT" || skip "redis-server on port $PORT does not answer: $(tail -1 "$STATE/server.log" 2>/dev/null)"
  echo "$PORT" > "$STATE/port"
fi
echo "RLDELTA_TEST_REDIS_URL=redis://127.0.0.1:$PORT/0"

#!/usr/bin/env bash
# A throwaway S3-compatible server on a loopback port (moto's server mode, from the `test` extra):
# the object store of tests/core/test_store_s3.py and of the distributed-run test, reached through
# s3fs as a real bucket would be. Prints RLDELTA_TEST_S3_ENDPOINT=http://127.0.0.1:<port> on stdout;
# progress on stderr. Idempotent (a running server is reused). Never fails the build: when no
# server can be started it prints RLDELTA_TEST_S3_SKIP='<why>' so those tests skip saying why.
set -uo pipefail
cd "$(dirname "$0")/../.."
# State outside the clone, keyed by its path (as setup.d/40-redis.sh); teardown removes it.
STATE="${TMPDIR:-/tmp}/rldelta-s3-$(printf %s "$PWD" | md5sum | cut -c1-12)"
say() { echo "[50-s3] $*" >&2; }
skip() { say "$1"; printf "RLDELTA_TEST_S3_SKIP='%s'\n" "${1//\'/}"; exit 0; }

PY=.venv/bin/python
[ -x "$PY" ] || skip "no .venv (run make install)"
"$PY" -c "import moto.server, flask, s3fs" 2>/dev/null \
  || skip "moto[s3], flask or s3fs is not installed (pip install -e '.[test]')"

mkdir -p "$STATE"
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ -f "$STATE/port" ] && [ -f "$STATE/server.pid" ] && kill -0 "$(cat "$STATE/server.pid")" 2>/dev/null \
  && answers "$(cat "$STATE/port")"; then
  PORT="$(cat "$STATE/port")"
  say "reusing the running server on 127.0.0.1:$PORT"
else
  PORT="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  say "starting moto's S3 server on 127.0.0.1:$PORT (state in $STATE)"
  # Its own session (setsid): it outlives this script and pytest; teardown.d/50-s3.sh stops it by pid.
  setsid "$PY" -m moto.server -H 127.0.0.1 -p "$PORT" >"$STATE/server.log" 2>&1 < /dev/null &
  echo $! > "$STATE/server.pid"
  for _ in $(seq 100); do answers "$PORT" && break; sleep 0.1; done
  answers "$PORT" || skip "moto's server on port $PORT does not answer: $(tail -1 "$STATE/server.log" 2>/dev/null)"
  echo "$PORT" > "$STATE/port"
fi
echo "RLDELTA_TEST_S3_ENDPOINT=http://127.0.0.1:$PORT"

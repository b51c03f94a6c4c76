#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a loopback port for the tests (registry on PostgreSQL, the
# Dagster instance on dagster-postgres). Prints RLDELTA_TEST_PG_URL=... on stdout; progress on
# stderr. Idempotent (a running cluster is reused). Never fails the build: when no server can be
# started it prints RLDELTA_TEST_PG_SKIP='<why>' so the PostgreSQL tests skip saying why.
set -uo pipefail
cd "$(dirname "$0")/../.."
# Data dir + port file, outside the clone: the server runs as another user, who may not be able
# to traverse the clone's parents (e.g. under /root). Keyed by the clone path; teardown removes it.
STATE="${TMPDIR:-/tmp}/rldelta-pg-$(printf %s "$PWD" | md5sum | cut -c1-12)"
DATA="$STATE/data"
say() { echo "[20-postgres] $*" >&2; }
skip() { say "$1"; printf "RLDELTA_TEST_PG_SKIP='%s'\n" "${1//\'/}"; exit 0; }

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/pg_ctl" ] && { echo "$dir"; return; }; done
  command -v pg_ctl >/dev/null && dirname "$(readlink -f "$(command -v pg_ctl)")"
}
BIN="$(find_bin)"
if [ -z "$BIN" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  say "no PostgreSQL server binaries; installing the Debian package (apt-get install postgresql)"
  { timeout 300 apt-get -o Acquire::Retries=1 update -qq \
    && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -o DPkg::Lock::Timeout=60 install -y -qq postgresql; } >&2 \
    || skip "apt-get install postgresql failed (no package mirror reachable?)"
  BIN="$(find_bin)"
fi
[ -n "$BIN" ] || skip "no PostgreSQL server binaries (pg_ctl) found and cannot apt-get install them"

# initdb refuses to run as root: run the server as the postgres user, or a dedicated one.
RUN=()
if [ "$(id -u)" = 0 ]; then
  PGUSER_OS=postgres
  id "$PGUSER_OS" >/dev/null 2>&1 || { PGUSER_OS=rldelta-pg; id "$PGUSER_OS" >/dev/null 2>&1 || useradd -r -M -s /bin/false "$PGUSER_OS" >&2; } \
    || skip "running as root and cannot create a user to run PostgreSQL as"
  RUN=(runuser -u "$PGUSER_OS" --)
fi
# from /: that user may not enter a checkout inside a private folder (mktemp -d), and pg_ctl says so
pg() { (cd / && "${RUN[@]}" "$BIN/$@"); }

mkdir -p "$STATE"
[ ${#RUN[@]} -gt 0 ] && chown "$PGUSER_OS" "$STATE"
if [ -f "$STATE/port" ] && pg pg_ctl -D "$DATA" status >/dev/null 2>&1; then
  PORT="$(cat "$STATE/port")"
  say "reusing the running cluster on 127.0.0.1:$PORT"
else
  rm -rf "$DATA"
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  say "initdb in $DATA (PostgreSQL from $BIN), port $PORT"
  # trust auth is fine here: the server listens on 127.0.0.1 only and lives for one test session.
  pg initdb -D "$DATA" -U rldelta -A trust -E UTF8 >/dev/null 2>"$STATE/initdb.log" \
    || skip "initdb failed: $(tail -1 "$STATE/initdb.log")"
  pg pg_ctl -D "$DATA" -l "$STATE/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories=$DATA -c fsync=off -c max_connections=200" start >&2 \
    || skip "the PostgreSQL server did not start: $(tail -1 "$STATE/server.log")"
  echo "$PORT" > "$STATE/port"
  pg createdb -h 127.0.0.1 -p "$PORT" -U rldelta rldelta_test >&2 || skip "createdb rldelta_test failed"
fi
echo "RLDELTA_TEST_PG_URL=postgresql://rldelta@127.0.0.1:$PORT/rldelta_test"

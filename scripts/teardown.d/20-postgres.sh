#!/usr/bin/env bash
# Stops the throwaway PostgreSQL cluster started by setup.d/20-postgres.sh and deletes it.
set -uo pipefail
cd "$(dirname "$0")/../.."
STATE="${TMPDIR:-/tmp}/rldelta-pg-$(printf %s "$PWD" | md5sum | cut -c1-12)"  # as in setup.d/20-postgres.sh
[ -d "$STATE/data" ] || exit 0
BIN=""
for dir in /usr/lib/postgresql/*/bin; do [ -x "$dir/pg_ctl" ] && BIN="$dir" && break; done
[ -n "$BIN" ] || BIN="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"
RUN=()
[ "$(id -u)" = 0 ] && RUN=(runuser -u "$(stat -c %U "$STATE/data")" --)
(cd / && "${RUN[@]}" "$BIN/pg_ctl" -D "$STATE/data" -m fast -w stop) >&2 || echo "[20-postgres] stop failed" >&2
rm -rf "$STATE"

#!/usr/bin/env bash
# Stops the throwaway Redis server started by setup.d/40-redis.sh and deletes its state.
set -uo pipefail
cd "$(dirname "$0")/../.."
STATE="${TMPDIR:-/tmp}/rldelta-redis-$(printf %s "$PWD" | md5sum | cut -c1-12)"  # as in setup.d/40-redis.sh
[ -d "$STATE" ] || exit 0
if [ -f "$STATE/port" ]; then
  redis-cli -h 127.0.0.1 -p "$(cat "$STATE/port")" shutdown nosave >/dev/null 2>&1 \
    || { [ -f "$STATE/redis.pid" ] && kill "$(cat "$STATE/redis.pid")" 2>/dev/null; } \
    || echo "[40-redis] stop failed" >&2
fi
rm -rf "$STATE"

#!/usr/bin/env bash
# Stops the throwaway S3 server started by setup.d/50-s3.sh (everything it held was in its memory)
# and deletes its state.
set -uo pipefail
cd "$(dirname "$0")/../.."
STATE="${TMPDIR:-/tmp}/rldelta-s3-$(printf %s "$PWD" | md5sum | cut -c1-12)"  # as in setup.d/50-s3.sh
[ -d "$STATE" ] || exit 0
if [ -f "$STATE/server.pid" ]; then
  kill "$(cat "$STATE/server.pid")" 2>/dev/null || true
fi
rm -rf "$STATE"

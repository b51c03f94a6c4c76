#!/usr/bin/env bash
# Runs every benchmark; each prints its figures. Copy them to bench/RESULTS.md with the date.
set -uo pipefail
cd "$(dirname "$0")/.."
for b in bench/bench_*.py; do
  echo "== $b"
  .venv/bin/python "$b" || echo "!! $b failed"
done

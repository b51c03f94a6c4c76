#!/usr/bin/env bash
# Runs the set-up steps in scripts/setup.d (each prints KEY=VALUE lines for the tests on stdout,
# its progress on stderr, and exits 0 even when it cannot do its job, printing *_SKIP=<why>), then
# pytest with that environment. A service the suite could not set up (PostgreSQL, Redis, Chromium)
# stops the run before pytest: `make test` promises every test runs, the distributed run included,
# and a skipped service would otherwise pass silently. RLDELTA_ALLOW_SETUP_SKIPS=1 lets those tests
# skip instead (each says why), for a machine that cannot have the service.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
unset PYTHONDONTWRITEBYTECODE  # cache compiled sources for the suite's many processes (Makefile says why)
# Lint and format first: a style error fails in a second, before any service starts.
if ! { .venv/bin/ruff check --quiet . && .venv/bin/ruff format --check --quiet .; }; then
  echo "ruff: fix with '.venv/bin/ruff check --fix . && .venv/bin/ruff format .'" >&2
  exit 1
fi
# Types next ([tool.mypy] in pyproject.toml says what is checked and how strictly).
if ! .venv/bin/mypy; then
  echo "mypy: fix the errors above (annotate, or fix the bug it found); check with '.venv/bin/mypy'" >&2
  exit 1
fi
: > .tmp/test.env
for step in scripts/setup.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== setup: $step" >&2
  bash "$step" >> .tmp/test.env || echo "setup step $step failed; dependent tests will skip" >&2
done
missing=$(grep -E '^[A-Z_]+_SKIP=' .tmp/test.env || true)
grep -q '^RLDELTA_CHROMIUM=' .tmp/test.env || missing="${missing}${missing:+
}RLDELTA_CHROMIUM: no headless chromium (scripts/setup.d/30-chromium.sh)"
if [ -n "$missing" ] && [ "${RLDELTA_ALLOW_SETUP_SKIPS:-0}" != "1" ]; then
  echo "test set-up incomplete; these tests would skip:" >&2
  echo "$missing" | sed 's/^/  /' >&2
  echo "fix the set-up above, or run with RLDELTA_ALLOW_SETUP_SKIPS=1 to let them skip" >&2
  for step in scripts/teardown.d/*.sh; do
    [ -e "$step" ] && bash "$step" >&2
  done
  exit 1
fi
set -a
# shellcheck disable=SC1091
. .tmp/test.env
set +a
# Parallel workers (pytest-xdist), one per core by default; --dist loadfile keeps a test file on
# one worker, so its module-scoped fixtures (a built demo world, a materialized run) are built once.
# --no-loadscope-reorder hands the files out in collection order, which tests/conftest.py sorts
# longest first (tests/support/run_order.py).
# RLDELTA_TEST_WORKERS=0 runs in this process (a debugger, or -x on a single failure).
workers="${RLDELTA_TEST_WORKERS:-$(nproc 2>/dev/null || echo 2)}"
xdist=()
[ "$workers" != "0" ] && xdist=(-n "$workers" --dist loadfile --no-loadscope-reorder)
.venv/bin/python -m pytest -q -ra "${xdist[@]}" "$@"
status=$?
for step in scripts/teardown.d/*.sh; do
  [ -e "$step" ] && bash "$step" >&2
done
exit $status

#!/usr/bin/env bash
# Runs the set-up steps in scripts/setup.d (each prints KEY=VALUE lines for the tests on stdout,
# its progress on stderr, and exits 0 even when it cannot do its job — tests then skip, saying
# why), then pytest with that environment.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
: > .tmp/test.env
for step in scripts/setup.d/*.sh; do
  [ -e "$step" ] || continue
  echo "== setup: $step" >&2
  bash "$step" >> .tmp/test.env || echo "setup step $step failed; dependent tests will skip" >&2
done
set -a
# shellcheck disable=SC1091
. .tmp/test.env
set +a
.venv/bin/python -m pytest -q -ra "$@"
status=$?
for step in scripts/teardown.d/*.sh; do
  [ -e "$step" ] && bash "$step" >&2
done
exit $status

#!/usr/bin/env bash
# Headless Chromium for tests/ui/test_q3_browser.py (opens Q3_trace_pairs/pairs.html for real).
# stdout: RLDELTA_CHROMIUM=<path> when a browser is available; progress on stderr; always exit 0
# (without a browser the browser tests skip and say why).
set -u
find_browser() {
  for name in chromium chromium-browser google-chrome; do
    path=$(command -v "$name" 2>/dev/null) && { echo "$path"; return 0; }
  done
  return 1
}
if ! browser=$(find_browser); then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "30-chromium: installing chromium with apt-get (one-off, ~100 MB)" >&2
    # Bounded: an unreachable mirror must not stall the test run (the browser tests then skip).
    { timeout 300 apt-get -o Acquire::Retries=1 update \
      && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get -o DPkg::Lock::Timeout=60 install -y chromium; } >&2 \
      || echo "30-chromium: apt-get install chromium failed" >&2
  else
    echo "30-chromium: no chromium and no root apt-get; install the 'chromium' package to run the browser tests" >&2
  fi
  browser=$(find_browser) || { echo "30-chromium: chromium not available; browser tests will skip" >&2; exit 0; }
fi
echo "30-chromium: using $browser" >&2
echo "RLDELTA_CHROMIUM=$browser"
exit 0

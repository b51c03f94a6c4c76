"""`make ui` prints its URL and stops with every child: SIGTERM to `make ui` started from a terminal
with the default stop budget (8 s, then SIGKILL). The check and why it is shaped so:
tests/support/make_ui_stop.py."""

from support.make_ui_stop import check_make_ui_stops


def test_sigterm_with_the_default_budget_leaves_nothing_running(tmp_path):
    check_make_ui_stops(tmp_path, how="sigterm-to-make", started="terminal", budget=None)

"""`make ui` prints its URL and stops with every child: SIGTERM to `make ui` started as a background
job (SIGINT and SIGQUIT ignored), 60 s budget. The check and why it is shaped so:
tests/support/make_ui_stop.py."""

from support.make_ui_stop import check_make_ui_stops


def test_sigterm_to_make_started_in_the_background_stops_every_child_cleanly(tmp_path):
    check_make_ui_stops(tmp_path, how="sigterm-to-make", started="background", budget=60)

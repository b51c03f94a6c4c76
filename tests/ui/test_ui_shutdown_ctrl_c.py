"""`make ui` prints its URL and stops with every child: Ctrl-C (SIGINT to the process group) on `make
ui` started from a terminal, 60 s budget. The check and why it is shaped so:
tests/support/make_ui_stop.py."""

from support.make_ui_stop import check_make_ui_stops


def test_ctrl_c_in_the_terminal_stops_every_child_cleanly(tmp_path):
    check_make_ui_stops(tmp_path, how="ctrl-c-to-group", started="terminal", budget=60)

"""tests/support/run_order.py: the parallel workers start the listed long files first, in the listed order."""

from pathlib import Path

import pytest

from support import run_order

ROOT = Path(__file__).resolve().parents[2]


def test_listed_files_sort_first_in_list_order_and_the_rest_keep_collection_order():
    first, second = run_order.RUN_FIRST[:2]
    ids = ["tests/b/test_x.py::t1", f"{second}::t", "tests/a/test_y.py::t2", f"{first}::t[1]", "tests/b/test_x.py::t3"]
    keys = run_order.order(ids, ROOT)
    assert [i for _, i in sorted(zip(keys, ids, strict=True), key=lambda pair: pair[0])] == [
        f"{first}::t[1]",
        f"{second}::t",
        "tests/b/test_x.py::t1",
        "tests/a/test_y.py::t2",
        "tests/b/test_x.py::t3",
    ]


def test_a_listed_file_that_is_gone_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match=run_order.RUN_FIRST[0]):
        run_order.order(["tests/a/test_y.py::t"], tmp_path)

"""`rldelta demo --run` spreads its runs over worker processes (rl_assets/cli/demo_runs.py): runs of
different partitions overlap, a run waits for the runs it reads, and results come back in list order."""

import json
import time
from types import SimpleNamespace

import pytest

from rl_assets.cli import demo_plan
from rl_assets.cli import demo_runs as dr


def _fake_kind(log_dir):
    """A run kind that records when it started and ended; run "a" waits (up to 60 s) until "b" has
    started, so the test fails unless the two really run at the same time."""

    def run(instance, name):
        (log_dir / f"{name}.start").write_text(str(time.time()))
        if name == "a":
            deadline = time.time() + 60
            while not (log_dir / "b.start").exists() and time.time() < deadline:
                time.sleep(0.05)
        else:
            time.sleep(0.2)
        (log_dir / f"{name}.end").write_text(json.dumps([time.time(), (log_dir / "b.start").exists()]))
        return SimpleNamespace(all_events=[])

    return run


@pytest.fixture
def fake_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    (tmp_path / "dagster").mkdir()
    monkeypatch.setitem(dr.RUNS, "fake", _fake_kind(tmp_path))  # forked workers inherit the patched table
    return tmp_path


def _times(log_dir, name):
    end, saw_b = json.loads((log_dir / f"{name}.end").read_text())
    return float((log_dir / f"{name}.start").read_text()), end, saw_b


def test_independent_runs_overlap_and_a_dependent_waits(fake_runs):
    runs = [
        dr.DemoRun("a", "fake", ("a",)),
        dr.DemoRun("b", "fake", ("b",)),
        dr.DemoRun("c", "fake", ("c",), after=("a", "b")),
        dr.DemoRun("d", "fake", ("d",)),
    ]
    got = list(dr.execute(runs, instance=None, workers=2))
    assert [run.name for run, _ in got] == ["a", "b", "c", "d"]
    assert all(summary == ([], []) for _, summary in got)
    a_start, a_end, a_saw_b = _times(fake_runs, "a")
    b_start, b_end, _ = _times(fake_runs, "b")
    c_start, _, _ = _times(fake_runs, "c")
    assert a_saw_b and b_start < a_end  # a and b ran at the same time
    assert c_start >= max(a_end, b_end)  # c started only after both ended
    spans = [_times(fake_runs, n)[:2] for n in "abcd"]
    for start, _ in spans:  # never more than two at once
        assert sum(s <= start < e for s, e in spans) <= 2


def test_one_worker_runs_in_this_process_in_list_order(fake_runs, monkeypatch):
    calls = []
    monkeypatch.setitem(
        dr.RUNS, "fake", lambda instance, name: calls.append((instance, name)) or SimpleNamespace(all_events=[])
    )
    runs = [dr.DemoRun("x", "fake", ("x",)), dr.DemoRun("y", "fake", ("y",), after=("x",))]
    assert [run.name for run, _ in dr.execute(runs, instance="inst", workers=1)] == ["x", "y"]
    assert calls == [("inst", "x"), ("inst", "y")]


def test_a_run_listed_before_what_it_waits_on_is_refused():
    runs = [dr.DemoRun("c", "fake", ("c",), after=("a",)), dr.DemoRun("a", "fake", ("a",))]
    with pytest.raises(ValueError, match="'c' waits on \\['a'\\]"):
        list(dr.execute(runs, instance=None, workers=2))


def test_the_demo_waits_where_a_run_reads_other_partitions():
    runs = demo_plan(["m/alpha", "m/g1", "m/g2"], "job", ["m/g1", "m/g2"], ["m/integrity"])
    by_name = {run.name: run for run in runs}
    assert [run.name for run in runs] == ["m/g1", "m/g2", "job", "m/alpha", "comparison", "m/integrity"]
    assert set(by_name["job"].after) == {"m/g1", "m/g2"}  # the lineage reads its checkpoints' analyses
    assert set(by_name["comparison"].after) == {"m/alpha", "m/g1", "m/g2"}  # and the comparison every model
    assert by_name["m/integrity"].after == () and by_name["m/alpha"].after == ()

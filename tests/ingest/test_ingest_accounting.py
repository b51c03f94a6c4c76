"""The conservation law in code: found = written + skipped + merged, for inputs and for units;
a violation raises (a bug, never bad input); the asset check `every_input_accounted_for` on
baseline_traces / post_rl_traces / rl_traces shows the ledger and fails when anything was lost."""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg
import pyarrow.parquet as pq
import pytest

from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.q2_rl_temporal import rl_traces
from rl_assets.assets.traces import eval_traces
from rl_assets.ingest import AccountingError, IngestError, ingest_source, read_traces
from rl_assets.ingest.plan import CAPPED
from rl_assets.support.checks import ACCOUNTED
from support.core_world import MODEL, RESOURCES, core_world
from tests.support.results import materialized


def _row(t: int, solved: bool = True) -> dict:
    return {
        "conversations": [{"role": "user", "content": f"task {t}"}, {"role": "assistant", "content": "done"}],
        "task": f"t{t}",
        "trial_name": f"t{t}__abc",
        "date": "2026-05-01T10:00:00Z",
        "result": "1.0" if solved else "0.0",
    }


def _jsonl(path, rows, tail=b""):
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in rows) + tail)
    return str(path)


@pytest.fixture
def lossy_world(tmp_path, monkeypatch):
    """tests/support/core_world.py's world (a base and a post-RL eval dataset of 6 rows each), with the post-RL
    dataset re-exported as JSONL whose last row was cut off mid-write: one row is lost."""
    instance = core_world(tmp_path, monkeypatch)
    data = Path(os.environ["RLDELTA_HOME"]) / "hub" / "datasets" / "org" / "evals-post" / "data"
    rows = pq.read_table(data / "train-00000-of-00001.parquet").to_pylist()
    (data / "train-00000-of-00001.parquet").unlink()
    _jsonl(data / "train.jsonl", rows, tail=b'{"task": "t6", "conversations": [')
    return instance


def _checks(result) -> dict:
    return {e.asset_key.to_user_string(): e for e in result.get_asset_check_evaluations() if e.check_name == ACCOUNTED}


def test_check_fails_on_the_source_that_lost_a_row_and_survives_table_reuse(lossy_world):
    assets = [checkpoint, eval_pair, eval_traces, rl_traces]
    for run in range(2):  # the second run reuses both stamped tables: the same ledger comes back
        result = dg.materialize(
            assets, instance=lossy_world, partition_key=MODEL, resources=RESOURCES, raise_on_error=False
        )
        assert result.success
        checks = _checks(result)
        assert set(checks) == {"baseline_traces", "post_rl_traces", "rl_traces"}
        base, post = checks["baseline_traces"], checks["post_rl_traces"]
        assert base.passed and base.metadata["lost"].value == 0 and base.metadata["found"].value == 6
        assert not post.passed and post.severity == dg.AssetCheckSeverity.ERROR
        meta = {k: v.value for k, v in post.metadata.items()}
        assert (meta["found"], meta["written"], meta["skipped"], meta["lost"]) == (7, 6, 1, 1)
        assert "truncated last line" in meta["ledger"] and "**lost**" in meta["ledger"]
        assert checks["rl_traces"].passed and checks["rl_traces"].metadata["applicable"].value is False
        mat = materialized(result, "post_rl_traces")[0].metadata
        assert mat["units_found"].value == 7 and mat["units_lost"].value == 1
        assert mat["reused_unchanged_table"].value is (run == 1)


def test_by_design_skips_and_unread_files_do_not_count_as_lost(tmp_path):
    src = tmp_path / "data"
    src.mkdir()
    _jsonl(src / "a.jsonl", [_row(t) for t in range(5)])
    (src / "README.md").write_text("# traces\n")
    rep = ingest_source(str(src), tmp_path / "o.parquet", hub=None, max_rows=2)
    acc = rep.accounting
    assert rep.rows_written == 2 and rep.skipped == {CAPPED: 3} and acc["lost"] == 0
    assert acc["found"] == 5 and acc["inputs_found"] == 2 and acc["not_read"] == {"not a trace data file": 1}
    assert rep.skip_examples == []  # by-design skips do not crowd out real examples


def test_a_row_that_vanishes_inside_an_adapter_is_an_accounting_error(tmp_path, monkeypatch):
    import rl_assets.ingest.formats.exported as exported

    real = exported.ExportedRows.load

    def leaky(self, path, wanted, skips):  # a bug: drops the first row without a word
        for k, (cand, row) in enumerate(real(self, path, wanted, skips)):
            if k:
                yield cand, row

    monkeypatch.setattr(exported.ExportedRows, "load", leaky)
    out = tmp_path / "o.parquet"
    with pytest.raises(AccountingError, match=r"found 3 units but written 2 \+ skipped 0 \+ merged 0 = 2"):
        ingest_source(_jsonl(tmp_path / "x.jsonl", [_row(t) for t in range(3)]), out, hub=None)
    assert not out.exists() and not list(tmp_path.glob(".o.parquet.*.tmp"))  # never published


def test_two_rows_with_one_trace_id_is_an_accounting_error(tmp_path, monkeypatch):
    import importlib

    plan = importlib.import_module("rl_assets.ingest.plan")  # the package's `plan` attribute is the function
    monkeypatch.setattr(plan, "dedup", lambda cands, skips, fingerprints: cands)  # a bug: no dedup
    with pytest.raises(AccountingError, match="written twice"):
        ingest_source(_jsonl(tmp_path / "x.jsonl", [_row(1), _row(1)]), tmp_path / "o.parquet", hub=None)


def test_only_ingest_errors_escape(tmp_path, monkeypatch):
    """A RecursionError (or any exception) anywhere becomes an IngestError naming the input."""
    import rl_assets.ingest.formats.exported as exported

    def deep(self, path, skips):
        raise RecursionError("maximum recursion depth exceeded")
        yield  # pragma: no cover

    spec = _jsonl(tmp_path / "x.jsonl", [_row(1)])
    monkeypatch.setattr(exported.ExportedRows, "scan", deep)
    with pytest.raises(IngestError, match=r"x\.jsonl: RecursionError"):
        ingest_source(spec, tmp_path / "o.parquet", hub=None)


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".parquet", ".jsonl.gz", ".json.zst", ".ndjson"])
def test_garbage_bytes_raise_named_errors_or_count_skips(tmp_path, suffix):
    import random

    rng = random.Random(suffix)
    for k in range(20):
        f = tmp_path / f"g{k}{suffix}"
        f.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))))
        try:
            rep = ingest_source(str(f), tmp_path / f"o{k}.parquet", hub=None)
        except (IngestError, FileNotFoundError) as exc:
            assert f.name in str(exc)
            continue
        assert rep.rows_read == rep.rows_written + sum(rep.skipped.values()) + sum(rep.merged.values())
        assert read_traces(tmp_path / f"o{k}.parquet").num_rows == rep.rows_written


def test_a_harbor_row_that_fails_after_parsing_names_its_trajectory(tmp_path, monkeypatch):
    """The conversation came from agent/trajectory.json: a failure while featurizing it names that
    file, not the trial's result.json (issue 13 item 4)."""
    import rl_assets.ingest as ingest
    from support.bad_inputs import TRIAL_OK, atif, step, trial_dir

    real = ingest.featurize

    def fussy(messages, counter):
        if any(m.get("content") == "odd" for m in messages):
            raise TypeError("unexpected message shape")
        return real(messages, counter)

    monkeypatch.setattr(ingest, "featurize", fussy)
    trial_dir(tmp_path / "job", "good__1", {**TRIAL_OK, "trial_name": "good__1"}, atif([step(1)]))
    trial_dir(tmp_path / "job", "odd__2", {**TRIAL_OK, "trial_name": "odd__2"}, atif([step(1, msg="odd")]))
    rep = ingest_source(str(tmp_path / "job"), tmp_path / "o.parquet", hub=None)
    assert rep.rows_written == 1 and rep.skipped == {"unusable row (TypeError)": 1}
    assert rep.skip_examples == [
        f"{tmp_path}/job/odd__2/agent/trajectory.json (TypeError: unexpected message shape): unusable row (TypeError)"
    ]

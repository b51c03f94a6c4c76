"""W&B validation-generation tables: rounds deduplicated across table versions, bad rows counted,
and the rounds as normalized trace rows (``wandb-val:<folder>@first|last|N``)."""

import json

import pyarrow.parquet as pq
import pytest

from rl_assets.ingest import IngestError, ingest_source
from rl_assets.ingest.formats.wandb_tables import (
    BAD_SCORE,
    BAD_STEP,
    BAD_WIDTH,
    NOT_JSON,
    NOT_VALIDATION,
    SAME_AGAIN,
    SUPERSEDED,
    read_validation_tables,
)
from rl_assets.ingest.formats.wandb_validation import parse_spec, task_id_of

COLS = ["step", "input_1", "output_1", "score_1", "input_2", "output_2", "score_2"]
ROUND0 = [0, "Q-a", "A-0a", 0.0, "Q-b", "A-0b", 1.0]
ROUND5 = [5, "Q-a", "A-5a", 1.0, "Q-b", "A-5b", 1.0]
ROUND9 = [9, "Q-a", "", 1.0, "Q-b", "", 1.0]


def _table(folder, name, rows, columns=COLS):
    path = folder / "files" / "media" / "table" / "val" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"_type": "table", "columns": columns, "data": rows}))
    return path


@pytest.fixture
def run(tmp_path):
    """Three versions of one table, each holding every round so far (as verl logs them)."""
    _table(tmp_path, "generations_0_aa.table.json", [ROUND0])
    _table(tmp_path, "generations_5_bb.table.json", [ROUND0, ROUND5])
    _table(tmp_path, "generations_9_cc.table.json", [ROUND0, ROUND5, ROUND9])
    return tmp_path


def test_rounds_are_deduplicated_across_table_versions(run):
    frame = read_validation_tables(run)
    assert list(frame.columns) == ["step", "sample", "input", "output", "score", "label"]
    assert frame["label"].isna().all()  # verl logs no ground truth
    assert frame[["step", "sample"]].values.tolist() == [[0, 1], [0, 2], [5, 1], [5, 2], [9, 1], [9, 2]]
    assert frame.loc[(frame.step == 5) & (frame["sample"] == 1), "output"].item() == "A-5a"
    led = frame.attrs["ledger"]
    # 1 + 2 + 3 table rows x 2 samples = 12 found; 6 written; the 6 repeats merged
    assert (led.found, led.written, led.merged, led.skipped) == (12, 6, {SAME_AGAIN: 6}, {})
    assert led.balanced() and led.tables_read == 3


def test_a_later_table_with_other_content_supersedes_and_is_counted(tmp_path):
    _table(tmp_path, "generations_0_aa.table.json", [ROUND0])
    _table(tmp_path, "generations_5_bb.table.json", [[0, "Q-a", "A-rerun", 0.0, "Q-b", "A-0b", 1.0], ROUND5])
    frame = read_validation_tables(tmp_path)
    assert frame.loc[(frame.step == 0) & (frame["sample"] == 1), "output"].item() == "A-rerun"
    led = frame.attrs["ledger"]
    assert led.merged == {SUPERSEDED: 1, SAME_AGAIN: 1} and led.balanced()


def test_malformed_rows_cells_and_files_are_counted_not_lost(tmp_path):
    _table(
        tmp_path,
        "generations_1_aa.table.json",
        [
            ROUND0,
            [1, "Q-a", "x"],
            ["two", "Q-a", "x", 1.0, "Q-b", "y", 0.0],
            [3, "Q-a", "x", "high", "Q-b", "y", float("nan")],
            [4, "Q-a", "x", "0.5", "Q-b", None, 0],
        ],
    )
    _table(tmp_path, "other.table.json", [[1, 2]], columns=["epoch", "loss"])
    (tmp_path / "files" / "media" / "table" / "broken.table.json").write_text("{not json")
    frame = read_validation_tables(tmp_path)
    led = frame.attrs["ledger"]
    assert frame[["step", "sample", "score"]].values.tolist() == [[0, 1, 0.0], [0, 2, 1.0], [4, 1, 0.5], [4, 2, 0.0]]
    assert frame.loc[(frame.step == 4) & (frame["sample"] == 2), "output"].item() == ""  # null output kept as ""
    assert led.skipped == {BAD_WIDTH: 2, BAD_STEP: 2, BAD_SCORE: 2}
    assert led.found == 10 and led.written == 4 and led.balanced()
    assert set(led.tables_not_read) == {NOT_VALIDATION, NOT_JSON} and led.tables_found == 3
    assert any("row 1" in e for e in led.examples)


def test_no_table_is_an_empty_frame_and_a_missing_folder_an_error(tmp_path):
    assert read_validation_tables(tmp_path).empty
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_validation_tables(tmp_path / "nope")


def test_spec_parsing_keeps_at_signs_in_paths():
    assert parse_spec("wandb-val:/runs/a@b/run-1@last") == (parse_spec("wandb-val:/runs/a@b/run-1")[0], "last")
    assert parse_spec("wandb-val:/runs/x@12")[1] == "12"
    assert parse_spec("wandb-val:/runs/x@other")[1] == "all"


@pytest.mark.parametrize("selector, steps", [("first", {0}), ("last", {9}), ("5", {5}), ("all", {0, 5, 9})])
def test_rounds_become_trace_rows(run, tmp_path, selector, steps):
    out = tmp_path / f"{selector}.parquet"
    report = ingest_source(f"wandb-val:{run}@{selector}", out, hub=None)
    rows = pq.read_table(out).to_pylist()
    assert {r["episode"] for r in rows} == steps
    assert {r["task_id"] for r in rows} == {task_id_of("Q-a"), task_id_of("Q-b")}
    assert {r["benchmark"] for r in rows} == {"validation"} and report.source_kind == "wandb_validation"
    last_a = next(r for r in rows if r["task_id"] == task_id_of("Q-a") and r["episode"] == max(steps))
    assert last_a["answer"] == {0: "A-0a", 5: "A-5a", 9: ""}[max(steps)]
    assert last_a["passed"] is (max(steps) != 0)
    assert json.loads(last_a["conversation"])[0] == {"role": "user", "content": "Q-a"}
    acc = report.accounting
    assert report.rows_read == 12 and report.rows_written == 2 * len(steps)
    assert sum(report.merged.values()) == 6, acc


def test_a_round_that_is_not_there_and_a_folder_without_tables_fail_by_name(run, tmp_path):
    with pytest.raises(IngestError, match="round 7 not in the tables"):
        ingest_source(f"wandb-val:{run}@7", tmp_path / "x.parquet", hub=None)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(IngestError, match="no W&B validation-generation table"):
        ingest_source(f"wandb-val:{empty}", tmp_path / "y.parquet", hub=None)


def test_register_eval_and_the_table_stamp_keep_the_round_selector(run):
    from rl_assets.cli.register_eval import RegisterError, traces_link
    from rl_assets.support.trace_tables import source_key

    assert traces_link(f"wandb-val:{run}@last") == f"wandb-val:{run.resolve()}@last"
    with pytest.raises(RegisterError, match="does not exist"):
        traces_link(f"wandb-val:{run}/nope@last")
    first, last = (
        source_key(None, f"wandb-val:{run}@{s}", max_rows=None, tokenizer=None, benchmark=None)
        for s in ("first", "last")
    )
    assert first["source"].endswith("@first") and last["source"].endswith("@last")
    assert first["fingerprint"] == last["fingerprint"]  # same folder content, other rows: other table key


def test_label_columns_become_the_expected_answer(tmp_path):
    cols = ["step", "input_1", "output_1", "label_1", "score_1"]  # the EasyR1 logger's shape
    _table(tmp_path, "generations_3_aa.table.json", [[3, "Q-a", "A", "gold", 1.0]], columns=cols)
    frame = read_validation_tables(tmp_path)
    assert frame[["step", "sample", "label", "score"]].values.tolist() == [[3, 1, "gold", 1.0]]
    ingest_source(f"wandb-val:{tmp_path}@last", tmp_path / "t.parquet", hub=None)
    assert pq.read_table(tmp_path / "t.parquet").to_pylist()[0]["expected_answer"] == "gold"


def test_first_and_last_rounds_pair_by_prompt_and_an_empty_pass_is_flagged(run, tmp_path):
    from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows

    sides = []
    for selector in ("first", "last"):
        ingest_source(f"wandb-val:{run}@{selector}", tmp_path / f"{selector}.parquet", hub=None)
        sides.append(pq.read_table(tmp_path / f"{selector}.parquet", columns=list(AUDIT_COLUMNS)).to_pylist())
    rows, families = audit_rows(*sides, n_boot=100)
    assert [r["family"] for r in rows] == ["validation"] and rows[0]["n_tasks"] == 2
    check = rows[0]["contrastive"]
    # round 0: Q-a failed (0.0), Q-b passed; round 9: both pass with empty outputs
    assert check["newly_passing"] == 1 and check["tasks"][0]["rules"] == ["empty_answer"]
    assert check["tasks"][0]["key"] == task_id_of("Q-a")


def test_the_ledger_counts_other_tables_by_design_and_bad_rows_as_lost(run, tmp_path):
    _table(run, "samples_3_dd.table.json", [[1, 2]], columns=["epoch", "loss"])  # another table: not trace data
    clean = ingest_source(f"wandb-val:{run}@last", tmp_path / "a.parquet", hub=None).accounting
    assert clean["lost"] == 0 and clean["inputs_found"] == 4 and clean["inputs_read"] == 3
    _table(run, "generations_10_ee.table.json", [ROUND0, ROUND5, ROUND9, [10, "Q-a"]])
    broken = ingest_source(f"wandb-val:{run}@last", tmp_path / "b.parquet", hub=None).accounting
    assert broken["lost"] == 2 and broken["skipped"][BAD_WIDTH] == 2  # the short row's two samples

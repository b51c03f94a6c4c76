"""A real verl run's validation-generation tables (trimmed to structure and numbers, PROVENANCE.txt
beside them). Expected values were read by hand from the three raw files with json alone:

- versions hold rounds [0], [0, 10] and [0, 10, 20], 20 samples each: 120 samples found, 60 distinct
  (round, sample) pairs, the other 60 repeats with the same content;
- the 20 samples are the same 20 prompts every round, 17 distinct (samples 4 and 7, 5 and 9, 18 and
  19 share a prompt);
- scores >= 1.0: round 0 sample 3; round 10 samples 3, 5, 14, 18; round 20 samples 3, 9, 14; the
  lowest score is -1.0, and round 0 sample 1 scored -0.8999999761581421.
"""

from pathlib import Path

import pyarrow.parquet as pq

from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.ingest import ingest_source
from rl_assets.ingest.formats.wandb_tables import SAME_AGAIN, read_validation_tables
from rl_assets.ingest.formats.wandb_validation import NOT_SELECTED, task_id_of

RUN = Path(__file__).resolve().parents[1] / "fixtures" / "realdata" / "wandb_val_generations_verl"


def test_the_real_tables_give_three_rounds_of_twenty_samples_once_each():
    frame = read_validation_tables(RUN)
    led = frame.attrs["ledger"]
    assert (led.tables_read, led.found, led.written, led.merged, led.skipped) == (3, 120, 60, {SAME_AGAIN: 60}, {})
    assert sorted(set(frame["step"])) == [0, 10, 20] and frame.groupby("step").size().tolist() == [20, 20, 20]
    assert frame["input"].nunique() == 17
    passed = {s: sorted(g.loc[g.score >= 1.0, "sample"]) for s, g in frame.groupby("step")}
    assert passed == {0: [3], 10: [3, 5, 14, 18], 20: [3, 9, 14]}
    assert frame.score.min() == -1.0
    assert frame.loc[(frame.step == 0) & (frame["sample"] == 1), "score"].item() == -0.8999999761581421


def test_first_and_last_rounds_become_paired_traces(tmp_path):
    sides = []
    for selector in ("first", "last"):
        report = ingest_source(f"wandb-val:{RUN}@{selector}", tmp_path / f"{selector}.parquet", hub=None)
        assert (report.rows_read, report.rows_written, sum(report.merged.values())) == (120, 20, 60)
        assert report.skipped == {NOT_SELECTED: 40}  # the other two rounds, by design
        sides.append(pq.read_table(tmp_path / f"{selector}.parquet", columns=list(AUDIT_COLUMNS)).to_pylist())
    rows, _ = audit_rows(*sides, n_boot=200)
    assert rows[0]["family"] == "validation" and rows[0]["n_tasks"] == 17
    frame = read_validation_tables(RUN)
    prompt_14 = frame.loc[(frame.step == 0) & (frame["sample"] == 14), "input"].item()
    check = rows[0]["contrastive"]  # only sample 14's prompt fails at round 0 and passes at round 20
    assert check["newly_passing"] == 1 and check["tasks"][0]["key"] == task_id_of(prompt_14)
    assert check["share"] is None and "need >= 5" in check["not_enough_data"]

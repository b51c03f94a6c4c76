"""The training-log ledger can fail (issue 36 items 1-2): whatever a reader drops turns
`every_input_accounted_for` red with the file and offset named, restarts are newest-wins and counted,
a cut-short wandb-summary.json fails the cross-check, and non-finite values are named per metric.

Real lines come from tests/fixtures/realdata (a SkyRL agent run, a verl W&B run); the corruptions are
the ones users meet: a flipped byte, an interrupted upload, a log of repeated warnings past the cap.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from rl_assets.analysis.q2.result import accounting_verdict, wandb_verdict
from rl_assets.ingest.skyrl_log import parse_training_logs
from rl_assets.ingest.training_logs import files, read_training_logs

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "realdata"
SKYRL = REAL / "skyrl_ctu_agent_run_qz54zcko"  # 30 steps and a wandb-summary.json
VERL = REAL / "verl_wandb_run_aopd_8g5bqf9b" / "files"  # 12 steps


def _checks(parsed):
    return accounting_verdict(parsed.accounting), wandb_verdict(parsed.cross_checks)


def _write_events(folder: Path, points: list[tuple[int, float]]) -> Path:
    """One event file written by tensorboard's own writer: (step, reward) points in this order."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(folder))
    for i, (step, reward) in enumerate(points):
        value = Summary.Value(tag="train/reward", simple_value=reward)
        writer.add_event(Event(step=step, wall_time=1_700_000_000.0 + i, summary=Summary(value=[value])))
    writer.close()
    return next(folder.glob("*tfevents*"))


def _record_offsets(path: Path) -> list[int]:
    """Byte offset of each TFRecord (length 8 + crc 4 + data + crc 4)."""
    data, out, at = path.read_bytes(), [], 0
    while at < len(data):
        out.append(at)
        at += 16 + int.from_bytes(data[at : at + 8], "little")
    return out


# --- a corrupt record keeps what came before it, and the check names file and offset ---------------


def test_a_tensorboard_record_with_a_bad_checksum_is_named_not_silently_the_end(tmp_path):
    path = _write_events(tmp_path, [(s, s / 100) for s in range(1, 61)])
    offsets = _record_offsets(path)  # record 0 is the file version, record s is step s
    data = bytearray(path.read_bytes())
    data[offsets[30] + 14] ^= 0xFF  # one flipped byte inside step 30's event: its data CRC fails
    path.write_bytes(bytes(data))
    parsed = read_training_logs(tmp_path)
    assert parsed.steps["step"].tolist() == list(range(1, 30))  # what came before the bad record is kept
    (failure,) = parsed.accounting["files"]["failures"]
    assert failure["file"] == path.name and failure["offset"] == offsets[30] and failure["unit"] == "byte"
    assert failure["unread"] == f"{len(data) - offsets[30]} of {len(data)} bytes"
    assert failure["after_line"] == 30 and failure["counted"] == "records"  # the file version + steps 1-29
    check, _ = _checks(parsed)
    assert not check.passed
    assert f"{path.name}: read up to byte {offsets[30]} (after 30 records)" in check.description
    assert "29 steps kept" in check.description


def test_a_gzipped_skyrl_log_cut_short_keeps_its_readable_prefix(tmp_path):
    whole = read_training_logs(SKYRL)
    logs = tmp_path / "training_logs"
    logs.mkdir()
    packed = gzip.compress((SKYRL / "output.log").read_bytes())
    (logs / "output.log.gz").write_bytes(packed[: len(packed) * 6 // 10])  # an interrupted upload
    parsed = read_training_logs(logs)
    assert 0 < len(parsed.steps) < len(whole.steps)
    assert parsed.steps["step"].tolist() == whole.steps["step"].tolist()[: len(parsed.steps)]
    (failure,) = parsed.accounting["files"]["failures"]
    assert failure["file"] == "output.log.gz" and "EOFError" in failure["reason"]
    assert failure["after_line"] > 0 and failure["unit"] == "decompressed character"
    check, _ = _checks(parsed)
    assert not check.passed and "output.log.gz: read up to decompressed character" in check.description


def test_a_legitimate_log_over_the_decompression_cap_keeps_what_came_before_it(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_SLACK_BYTES", 1 << 20)
    logs = tmp_path / "training_logs"
    logs.mkdir()
    real = (SKYRL / "output.log").read_bytes()
    warning = b"WARNING 07-14 10:00:00 [scheduler.py:1754] Sequence group 0 is preempted by PreemptionMode.RECOMPUTE\n"
    (logs / "output.log.gz").write_bytes(gzip.compress(real + warning * 200_000))  # ~20 MB of one warning
    parsed = read_training_logs(logs)
    assert len(parsed.steps) == len(read_training_logs(SKYRL).steps)  # every step came before the cap
    (failure,) = parsed.accounting["files"]["failures"]
    assert "LogTooLarge" in failure["reason"] and failure["offset"] > len(real)
    assert not _checks(parsed)[0].passed


# --- values read but reaching no step are skips; other trainers' files are named ---------------------


def test_another_trainers_console_dicts_beside_skyrl_logs_are_skips_not_parses(tmp_path):
    shutil.copy(SKYRL / "output.log", tmp_path / "output.log")
    # the HF Trainer's console lines: dicts with no step the SkyRL reader could place them at
    hf = "".join(
        f"{{'loss': {0.5 - i / 100}, 'grad_norm': 1.2, 'learning_rate': 1e-05, 'epoch': {i / 10}}}\n" for i in range(8)
    )
    (tmp_path / "hf_console.log").write_text(hf)
    parsed = parse_training_logs(tmp_path)
    ledger = parsed.accounting["lines"]["per_file"]["hf_console.log"]
    assert ledger["parsed"] == {} and ledger["ignored"] == {"no_training_step_in_file": 8}
    alone = parse_training_logs(SKYRL / "output.log").steps
    assert list(parsed.steps.columns) == list(alone.columns) and len(parsed.steps) == len(alone)


def test_a_verl_folder_names_the_skyrl_and_trainer_state_files_it_did_not_read(tmp_path):
    shutil.copy(VERL / "output.log", tmp_path / "output.log")
    shutil.copy(SKYRL / "output.log", tmp_path / "skyrl_job.log")
    (tmp_path / "trainer_state.json").write_text(json.dumps({"log_history": [{"step": 1, "loss": 0.5}]}))
    parsed = read_training_logs(tmp_path)
    assert parsed.trainer == "verl" and len(parsed.steps) == 12
    failures = {f["file"]: f["reason"] for f in parsed.accounting["files"]["failures"]}
    tail = "not read: this folder was read as verl (one reader per folder)"
    assert failures == {
        "skyrl_job.log": f"holds SkyRL log steps, {tail}",
        "trainer_state.json": f"holds trainer_state logs, {tail}",
    }
    check, _ = _checks(parsed)
    assert not check.passed and "2 file(s) not fully accounted for" in check.description


def test_a_cut_short_trainer_state_among_checkpoints_is_named(tmp_path):
    entries = [{"step": s, "loss": 1 / s, "reward": s / 10} for s in range(1, 5)]
    (tmp_path / "checkpoint-4").mkdir()
    (tmp_path / "checkpoint-4" / "trainer_state.json").write_text(
        json.dumps({"global_step": 4, "log_history": entries})
    )
    (tmp_path / "checkpoint-2").mkdir()
    text = json.dumps({"global_step": 2, "log_history": entries[:2]})
    (tmp_path / "checkpoint-2" / "trainer_state.json").write_text(text[: len(text) // 2])
    parsed = read_training_logs(tmp_path)
    assert len(parsed.steps) == 4
    (failure,) = parsed.accounting["files"]["failures"]
    assert failure["file"] == "checkpoint-2/trainer_state.json" and "not a readable JSON object" in failure["reason"]
    assert not _checks(parsed)[0].passed


def test_a_clean_real_folder_keeps_a_green_check():
    for folder in (SKYRL, VERL):
        parsed = read_training_logs(folder)
        check, _ = _checks(parsed)
        assert check.passed and parsed.accounting["files"]["failures"] == [], folder


# --- restarts: newest wins, counted ------------------------------------------------------------------


def test_a_restart_inside_one_tensorboard_file_keeps_the_newer_points_and_counts_the_older(tmp_path):
    first = [(s, s / 100) for s in range(1, 11)]
    rerun = [(s, 1 + s / 100) for s in range(6, 13)]  # resumed from step 5: steps 6-10 written again
    _write_events(tmp_path, first + rerun)
    parsed = read_training_logs(tmp_path)
    s = parsed.steps.set_index("step")
    assert s.index.tolist() == list(range(1, 13))
    assert s.loc[7, "reward"] == pytest.approx(1.07) and s.loc[5, "reward"] == pytest.approx(0.05)
    lines = parsed.accounting["lines"]
    assert lines["duplicate"] == {"scalar": 5} and lines["parsed"] == {"scalar": 12}
    assert "5 merged duplicates" in accounting_verdict(parsed.accounting).description


def test_a_restart_inside_one_verl_file_keeps_the_newer_lines_and_counts_the_older(tmp_path):
    lines = (VERL / "output.log").read_text().splitlines(keepends=True)
    last_three = [ln for ln in lines if re.match(r"step:\d+ - ", ln)][-3:]  # steps 9-11
    rerun = [ln.replace("perf/throughput:", "perf/throughput:9") for ln in last_three]  # the re-run's own values
    (tmp_path / "output.log").write_text("".join(lines) + "Resuming from step 9\n" + "".join(rerun))
    parsed = read_training_logs(tmp_path)
    (tmp_path / "rerun").mkdir()
    (tmp_path / "rerun" / "output.log").write_text("".join(rerun))
    newer = read_training_logs(tmp_path / "rerun").steps.set_index("step")
    s = parsed.steps.set_index("step")
    old = read_training_logs(VERL).steps.set_index("step")
    assert newer.index.tolist() == [9, 10, 11] and len(s) == 12
    for step in (9, 11):  # (step 10's real line is cut at the logger's width before perf/throughput)
        assert (
            s.loc[step, "perf/throughput"]
            == newer.loc[step, "perf/throughput"]
            > 9000
            > old.loc[step, "perf/throughput"]
        )
    assert s.loc[8, "perf/throughput"] == old.loc[8, "perf/throughput"]
    assert parsed.accounting["lines"]["duplicate"] == {"verl_step_line": 3}
    assert (
        parsed.accounting["lines"]["parsed"]["verl_step_line"]
        == read_training_logs(VERL).accounting["lines"]["parsed"]["verl_step_line"]
    )


def test_a_resumed_verl_jobs_validation_at_its_resume_step_keeps_that_steps_training_values(tmp_path):
    lines = (VERL / "output.log").read_text().splitlines(keepends=True)
    step_8 = next(ln for ln in lines if ln.startswith("step:8 - "))
    (tmp_path / "output.log").write_text("".join(lines) + "step:8 - val-core/aime/acc/mean@1:0.75\n")
    s = read_training_logs(tmp_path).steps.set_index("step")
    old = read_training_logs(VERL).steps.set_index("step")
    assert s.loc[8, "val-core/aime/acc/mean@1"] == 0.75
    assert s.loc[8, "perf/throughput"] == old.loc[8, "perf/throughput"] and "perf/throughput" in step_8


def test_a_repeated_step_in_one_trainer_state_keeps_the_newer_entry(tmp_path):
    history = [
        {"step": 1, "loss": 0.9, "reward": 0.1},
        {"step": 2, "loss": 0.8, "reward": 0.2},
        {"step": 2, "loss": 0.7, "reward": 0.25},  # the same step logged again after a resume
        {"step": 3, "loss": 0.6, "reward": 0.3},
    ]
    (tmp_path / "trainer_state.json").write_text(json.dumps({"global_step": 3, "log_history": history}))
    parsed = read_training_logs(tmp_path)
    s = parsed.steps.set_index("step")
    assert s.loc[2, "reward"] == 0.25
    assert parsed.accounting["lines"]["duplicate"] == {"log_history_train": 1}


# --- the W&B cross-check: a cut-short summary fails, it is not "off" ---------------------------------


@pytest.mark.parametrize("source", [SKYRL, VERL], ids=["skyrl", "verl"])
def test_a_cut_short_wandb_summary_fails_the_cross_check(tmp_path, source):
    for f in source.iterdir():
        shutil.copy(f, tmp_path / f.name)
    text = (source / "wandb-summary.json").read_text()
    (tmp_path / "wandb-summary.json").write_text(text[: len(text) // 2])
    _, check = _checks(read_training_logs(tmp_path))
    assert not check.passed
    assert check.description.startswith("independent record present but unreadable")
    assert "wandb-summary.json: unreadable wandb-summary.json" in check.description


# --- non-finite values: counted and named per metric ----------------------------------------------------


def test_non_finite_values_are_named_per_metric(tmp_path):
    lines = (VERL / "output.log").read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("step:3 "))
    lines[at] = lines[at].rstrip("\n") + " - actor/pg_loss_x:nan - actor/grad_norm_x:inf - actor/kl_x:-1e999\n"
    (tmp_path / "output.log").write_text("".join(lines))
    parsed = read_training_logs(tmp_path)
    assert parsed.accounting["non_finite"] == {
        "actor/grad_norm_x": {"inf": 1},
        "actor/kl_x": {"-inf": 1},
        "actor/pg_loss_x": {"nan": 1},
    }
    assert "non-finite values in 3 metrics" in accounting_verdict(parsed.accounting).description


def test_non_finite_and_overflowing_trainer_state_values_are_counted(tmp_path):
    history = '[{"step": 1, "loss": NaN, "reward": 1e999}, {"step": 2, "loss": 0.5, "reward": -%s}]' % ("9" * 400)
    text = '{"global_step": 2, "log_history": ' + history + "}"
    (tmp_path / "trainer_state.json").write_text(text)
    parsed = read_training_logs(tmp_path)
    assert parsed.accounting["non_finite"] == {"loss": {"nan": 1}, "reward": {"-inf": 1, "inf": 1}}

"""verl console reader on planted lines: every shape the issue names, and the wandb cross-check."""

import json
import math

import pytest

from rl_assets.ingest.training_logs import read_training_logs
from rl_assets.ingest.training_logs.verl_console import number, parse_verl_lines


def line(step, **metrics):
    return f"step:{step} - " + " - ".join(f"{k}:{v}" for k, v in metrics.items()) + "\n"


def test_values_prefixes_and_negatives():
    lines = [
        "\x1b[36m(TaskRunner pid=4711)\x1b[0m step:12 - critic/score/mean:np.float64(-1.0) - "
        "critic/rewards/mean:-1.34 - actor/entropy:6.8e-03 - training/global_step:12\n",
        "(TaskRunner pid=4711, ip=10.0.0.1) step:13 - critic/score/mean:np.float32(0.5) - num_turns/max:np.int64(2)\n",
    ]
    res = parse_verl_lines("out.log", lines)
    frame = res.steps.to_frame().set_index("step")
    assert frame.loc[12, "critic/score/mean"] == -1.0 and frame.loc[12, "critic/rewards/mean"] == -1.34
    assert frame.loc[12, "actor/entropy"] == 0.0068 and frame.loc[12, "training/global_step"] == 12
    assert frame.loc[13, "critic/score/mean"] == 0.5 and frame.loc[13, "num_turns/max"] == 2
    assert res.counts == {"lines": 2, "parsed/verl_step_line": 2}


def test_a_numpy_repr_cut_inside_is_dropped_not_read_as_its_digits():
    res = parse_verl_lines(
        "o.log",
        [
            "step:1 - a:np.float64(0.5) - c:np.int64(3) - b:np.float64(0.12\n",
            "step:2 - a:np.float64(-0.25) - b:np.float64(1e-05)\n",
        ],
    )
    frame = res.steps.to_frame().set_index("step")
    assert frame.loc[1, "a"] == 0.5 and frame.loc[1, "c"] == 3 and math.isnan(frame.loc[1, "b"])
    assert frame.loc[2, "a"] == -0.25 and frame.loc[2, "b"] == 1e-05
    assert res.counts["pairs_dropped/unparseable_pair"] == 1


def test_global_step_inside_a_key_and_prose_about_a_step_are_text():
    res = parse_verl_lines(
        "x.log", ["epoch 1 training/global_step:5 done\n", "validating at step: 5\n", "step:7x - a:1\n"]
    )
    assert res.steps.steps == [] and res.counts["ignored/text"] == 2
    assert res.counts["malformed/verl_step_not_integer"] == 1


@pytest.mark.parametrize(
    "text,expected",
    [
        ("0.5", 0.5),
        ("-1e-06", -1e-06),
        ("np.float64(0.25)", 0.25),
        ("tensor(0.5, device='cuda:0')", 0.5),
        ("nan", math.nan),
        ("abc", None),
    ],
)
def test_number(text, expected):
    got = number(text)
    assert (got is None and expected is None) or (math.isnan(expected) and math.isnan(got)) or got == expected


def test_initial_validation_block_over_several_pprint_lines():
    lines = [
        "(TaskRunner pid=1) ('Initial validation metrics: '\n",
        "(TaskRunner pid=1)  \"{'val-core/openai/gsm8k/acc/mean@1': np.float64(0.25), \"\n",
        "(TaskRunner pid=1)  \"'val-aux/openai/gsm8k/reward/mean@1': np.float64(-0.5)}\")\n",
        line(1, **{"critic/score/mean": 0.1}),  # no val keys: the block was step 0 (validation before step 1)
    ]
    res = parse_verl_lines("o.log", lines)
    frame = res.steps.to_frame().set_index("step")
    assert frame.loc[0, "val-core/openai/gsm8k/acc/mean@1"] == 0.25
    assert frame.loc[0, "val-aux/openai/gsm8k/reward/mean@1"] == -0.5
    assert res.counts["parsed/verl_validation_block"] == 3 and res.counts["lines"] == 4


def test_validation_block_never_overrides_the_step_line():
    lines = [
        "Initial validation metrics: {'val-core/d/acc/mean@1': 0.3}\n",
        line(5, **{"val-core/d/acc/mean@1": 0.25}),
    ]  # resumed at 5: the step line is the record
    frame = parse_verl_lines("o.log", lines).steps.to_frame().set_index("step")
    assert list(frame.index) == [5] and frame.loc[5, "val-core/d/acc/mean@1"] == 0.25


def test_unclosed_block_is_malformed_not_lost():
    res = parse_verl_lines("o.log", ["('Initial validation metrics: '\n", " \"{'val-core/d/acc/mean@1': \"\n"])
    assert res.counts["malformed/verl_validation_block"] == 2


def test_block_layout_one_key_per_line():
    lines = ["(TaskRunner pid=1) step:1\n", " - critic/score/mean:0.57\n", " - actor/entropy:0.36\n", "\n"]
    res = parse_verl_lines("o.log", lines)
    frame = res.steps.to_frame().set_index("step")
    assert frame.loc[1, "critic/score/mean"] == 0.57 and frame.loc[1, "actor/entropy"] == 0.36
    assert res.counts["parsed/verl_continuation"] == 2 and res.counts["ignored/blank"] == 1


def test_lines_cut_at_a_fixed_width_keep_the_step_and_drop_the_cut_pair():
    width = 90
    full = [
        line(
            s,
            **{
                "critic/score/mean": 0.1 * s,
                "critic/rewards/mean": 0.2 * s + 1 / 3,
                "actor/entropy": 1 / (s + 7),
                "response_length/mean": 100.0 + s,
            },
        )
        for s in range(1, 6)
    ]
    cut = [ln.rstrip("\n")[:width] + "\n" for ln in full]
    res = parse_verl_lines("o.log", cut)
    frame = res.steps.to_frame().set_index("step")
    assert list(frame.index) == [1, 2, 3, 4, 5]
    assert frame["critic/score/mean"].tolist() == pytest.approx([0.1 * s for s in range(1, 6)])
    assert "response_length/mean" not in frame.columns  # past the width in every line
    assert frame["actor/entropy"].isna().all()  # "actor/entropy:0." cut from 0.125: dropped, not read as 0
    dropped = res.counts.get("pairs_dropped/cut_at_width", 0) + res.counts.get("pairs_dropped/unparseable_pair", 0)
    assert dropped == 5  # one cut pair per line, each counted once
    assert res.counts["parsed/verl_step_line"] == 5


def test_fixed_format_lines_of_equal_length_are_not_cut():
    lines = [
        line(s, **{"critic/score/mean": f"{0.1 + s / 100:.4f}", "actor/entropy": f"{0.5:.4f}"}) for s in range(1, 5)
    ]
    res = parse_verl_lines("o.log", lines)
    frame = res.steps.to_frame()
    assert frame["actor/entropy"].notna().all() and "pairs_dropped/cut_at_width" not in res.counts


def test_wandb_run_folder_routes_output_log_and_cross_checks(tmp_path):
    run = tmp_path / "wandb" / "run-20250101_000000-abc" / "files"
    (run / "media" / "table").mkdir(parents=True)
    (run / "output.log").write_text(
        "wandb: syncing\n"
        + "".join(
            line(s, **{"critic/score/mean": -s / 10, "critic/rewards/mean": s / 10, "actor/entropy": 0.5})
            for s in (1, 2, 3)
        )
        + line(3, **{"val-core/openai/gsm8k/acc/mean@1": 0.4})
    )
    (run / "media" / "table" / "val_3_abc.table.json").write_text('{"columns": ["step"], "data": [[3]]}')
    (run / "config.yaml").write_text("a: 1\n")
    (run / "wandb-summary.json").write_text(
        json.dumps({"_step": 3, "critic/score/mean": -0.3, "critic/rewards/mean": 0.3, "_runtime": 5})
    )
    parsed = read_training_logs(tmp_path)
    assert parsed.trainer == "verl"
    s = parsed.steps.set_index("step")
    assert s.loc[3, "reward"] == 0.3 and s.loc[3, "task_score"] == -0.3 and s.loc[3, "val_score"] == 0.4
    check = parsed.cross_checks[0]
    assert check["status"] == "match" and check["compared"] == ["critic/rewards/mean", "critic/score/mean"]
    files = parsed.accounting["files"]
    assert files["found"] == 4 and files["read"] == 2
    assert (
        "read by ingest/formats/wandb_tables.py"
        in files["not_read_files"]["wandb/run-20250101_000000-abc/files/media/table/val_3_abc.table.json"]
    )


def test_wandb_summary_disagreeing_with_the_log_is_caught(tmp_path):
    (tmp_path / "output.log").write_text("".join(line(s, **{"critic/rewards/mean": s / 10}) for s in (1, 2)))
    (tmp_path / "wandb-summary.json").write_text(json.dumps({"_step": 2, "critic/rewards/mean": 0.1}))
    check = read_training_logs(tmp_path).cross_checks[0]
    assert check["status"] == "differ" and "step 1" in check["differ"][0]["hint"]


def test_a_validation_key_from_an_earlier_step_is_not_a_disagreement(tmp_path):
    lines = [line(s, **{"critic/rewards/mean": s / 10}) for s in (1, 2, 3, 4)]
    lines[1] = line(2, **{"critic/rewards/mean": 0.2, "val-core/d/acc/mean@1": 0.5})  # validated at step 2 only
    (tmp_path / "output.log").write_text("".join(lines))
    (tmp_path / "wandb-summary.json").write_text(
        json.dumps({"_step": 4, "critic/rewards/mean": 0.4, "val-core/d/acc/mean@1": 0.5})
    )
    check = read_training_logs(tmp_path).cross_checks[0]
    assert check["status"] == "match" and check["compared"] == ["critic/rewards/mean"]
    assert check["not_at_step"] == ["val-core/d/acc/mean@1"]


def test_detected_after_a_long_startup_and_in_the_one_key_per_line_layout(tmp_path):
    startup = "(WorkerDict pid=1) INFO loading weights, global_step: 0\n" * 5000  # ~280 KB before step 1
    (tmp_path / "a.log").write_text(startup + "(TaskRunner pid=1) step:1 - critic/rewards/mean:0.5\n")
    (tmp_path / "b.log").write_text("(TaskRunner pid=1) step:2\n - critic/rewards/mean:0.75\n")
    parsed = read_training_logs(tmp_path)
    assert parsed.trainer == "verl" and parsed.steps.set_index("step")["reward"].to_dict() == {1: 0.5, 2: 0.75}


def test_a_resumed_run_in_two_wandb_folders_later_run_wins_a_repeated_step(tmp_path):
    first = tmp_path / "wandb" / "run-20250101_000000-aaa" / "files"
    resumed = tmp_path / "wandb" / "run-20250102_000000-bbb" / "files"
    first.mkdir(parents=True)
    resumed.mkdir(parents=True)
    (first / "output.log").write_text("".join(line(s, **{"critic/rewards/mean": s / 10}) for s in (1, 2, 3)))
    (resumed / "output.log").write_text("".join(line(s, **{"critic/rewards/mean": s}) for s in (3, 4)))
    parsed = read_training_logs(tmp_path)
    assert parsed.steps.set_index("step")["reward"].to_dict() == {1: 0.1, 2: 0.2, 3: 3.0, 4: 4.0}
    assert parsed.duplicates["count"] == 1 and parsed.duplicates["steps"] == [3]

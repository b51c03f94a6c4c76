"""Q1's format-compliance finding (issue 35 item 3): attempts with no extractable answer, before vs after.

Hand-made sides, and the real reasoning-gym geometry files of ../shared/realdata, whose counts were read by
hand with plain json (``model_answer`` None or blank per completion): original_to_geometry advanced_geometry
1 of 300, simple_geometry 0 of 300; algorithmic_qwen_3b_500_to_geometry 0 and 0 of 300.
"""

from __future__ import annotations

import pandas as pd
import pytest

from rl_assets.analysis.q1.behavioral_delta import compute_behavioral_delta
from rl_assets.analysis.q1.report import render_markdown
from support.shared_data import SHARED, needs_shared


def _side(n_missing: int, n_right: int, n: int = 200, family: str = "chain_sum") -> pd.DataFrame:
    rows = []
    for i in range(n):
        answer = None if i < n_missing else ("[invalid]" if i == n_missing else str(i))
        rows.append(
            {"task_id": f"t{i}", "task_key": f"k{i}", "task_family": family, "benchmark": "rg",
             "reward": 1.0 if i >= n - n_right else 0.0, "passed": i >= n - n_right, "answer": answer}
        )  # fmt: skip
    return pd.DataFrame(rows)


def test_answers_appearing_while_accuracy_is_flat_is_said_with_its_interval():
    """Before: 115 of 200 attempts have no answer (114 None + one "[invalid]"); after: 19 (18 + 1). Pass rate
    30% on both sides. Newcombe's interval of the change excludes 0."""
    r = compute_behavioral_delta(_side(114, 60), _side(18, 60), n_boot=200)
    (row,) = r["format_compliance"]["rows"]
    assert (row["before"]["no_answer"], row["after"]["no_answer"]) == (115, 19)
    assert row["before"]["pass_rate"] == row["after"]["pass_rate"] == 0.3
    assert row["change"]["estimate"] == pytest.approx(-96 / 200)
    assert row["change"]["hi"] < 0
    assert any(line.startswith("Answers missing in chain_sum: 115/200 → 19/200") for line in r["summary"])
    md = render_markdown(r)
    assert "## Format compliance: attempts with no extractable answer" in md
    assert "| chain\\_sum | 115/200 = 57.5%" in md or "| chain_sum | 115/200 = 57.5%" in md


def test_sources_without_recorded_answers_say_so():
    b, a = _side(0, 60), _side(0, 60)
    b["answer"], a["answer"] = None, None
    r = compute_behavioral_delta(b, a, n_boot=200)
    assert r["format_compliance"] == {
        "rows": [],
        "note": "no answer recorded on either side (the source keeps no extracted answer)",
    }
    assert not any(line.startswith("Answers missing") for line in r["summary"])


def test_real_reasoning_gym_files(tmp_path):
    data = SHARED / "realdata" / "reasoning_gym_paper"
    if not data.is_dir():
        pytest.skip(needs_shared(data))
    from rl_assets.analysis.q1.behavioral_delta import NEEDED
    from rl_assets.ingest import ingest_source, read_traces

    sides = []
    for name in ("original_to_geometry.json", "algorithmic_qwen_3b_500_to_geometry.json"):
        ingest_source(str(data / name), tmp_path / f"{name}.parquet", hub=None)
        sides.append(read_traces(tmp_path / f"{name}.parquet", NEEDED))
    r = compute_behavioral_delta(*sides, n_boot=200)
    got = {
        x["family"]: (x["before"]["no_answer"], x["after"]["no_answer"], x["before"]["attempts"])
        for x in r["format_compliance"]["rows"]
    }
    assert got == {"advanced_geometry": (1, 0, 300), "simple_geometry": (0, 0, 300)}
    assert not any(line.startswith("Answers missing") for line in r["summary"])  # 1 -> 0 of 300 is no finding

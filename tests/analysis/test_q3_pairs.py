"""Pair selection, the attempt rule, action alignment / first divergence, escaping and the size cap."""

import json
import re

import pandas as pd
import pytest

from rl_assets.analysis.q3.pairs import build_pairs, group_tasks, select_tasks, task_side
from rl_assets.analysis.q3.pairs_align import align_actions
from rl_assets.analysis.q3.pairs_html import render_page
from rl_assets.values.actions import extract_actions
from support.q3_synth import XSS, conversation, row


def frames(rows_b, rows_a):
    convs = {r["trace_id"]: json.loads(r["conversation"]) for r in rows_b + rows_a}
    light = [pd.DataFrame(rs).drop(columns="conversation") for rs in (rows_b, rows_a)]
    return light[0], light[1], convs


def world():
    """t-up flips fail→pass, t-down pass→fail, t-same stays, t-big keeps failing with a reward move."""
    acts = ["ls", "pwd", "make"]
    b = (
        [row("t-up", a, 0.0, acts) for a in range(3)]
        + [row("t-down", a, 1.0, acts) for a in range(3)]
        + [row("t-same", a, 1.0, acts) for a in range(3)]
        + [row("t-big", a, 0.0, acts) for a in range(3)]
    )
    p = (
        [row("t-up", a, 1.0, acts, side="a") for a in range(3)]
        + [row("t-down", a, 0.0, acts, side="a") for a in range(3)]
        + [row("t-same", a, 1.0, acts * 6, side="a") for a in range(3)]
        + [row("t-big", a, 0.5, acts, side="a") for a in range(3)]
    )
    return frames(b, p)


def test_flips_mode_lists_flips_first_then_fills_by_reward_delta():
    b, a, _ = world()
    chosen = select_tasks(group_tasks(b), group_tasks(a), "flips", 3, 0)
    assert [t for t, _ in chosen[:2]] == ["t-down", "t-up"]  # equal |Δ pass rate| -> task id order
    assert chosen[0][1] == "outcome flip ✔ → ✘"
    assert chosen[2][0] == "t-big" and chosen[2][1].startswith("filler")


def test_reward_behaviour_and_random_modes():
    b, a, _ = world()
    base, post = group_tasks(b), group_tasks(a)
    assert [t for t, _ in select_tasks(base, post, "reward_delta", 4, 0)] == ["t-down", "t-up", "t-big", "t-same"]
    assert select_tasks(base, post, "behavior_delta", 1, 0)[0][0] == "t-same"  # 6x the actions
    r1, r2 = (select_tasks(base, post, "random", 2, 5) for _ in range(2))
    assert r1 == r2 and len(r1) == 2 and select_tasks(base, post, "random", 9, 5)[0][0] in base
    with pytest.raises(ValueError, match="unknown pair selection mode"):
        select_tasks(base, post, "best", 1, 0)


def test_attempt_rule_picks_first_attempt_with_the_majority_outcome():
    rows = [row("t", 0, 1.0, ["a"]), row("t", 1, 0.0, ["a"]), row("t", 2, 0.0, ["a"], error="AgentTimeoutError")]
    side = task_side("t", rows)
    assert side.majority == "fail" and side.shown["attempt"] == 1 and side.summary == "✔ ✘ ⚠"
    infra = [
        row("t", 0, None, ["a"], error="DaytonaError", infra=True),
        row("t", 1, 1.0, ["a"]),
        row("t", 2, 0.0, ["a"]),
    ]
    side = task_side("t", infra)  # infra attempt is not scored: 1 of 2 scored passed = tie -> fail
    assert side.majority == "fail" and side.shown["attempt"] == 2 and side.summary == "∅ ✔ ✘"


@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_first_divergence_is_found_at_the_known_action(k):
    shared = [f"cmd {i}" for i in range(k)]
    base = conversation(shared + ["git status", "make", "make test"])
    post = conversation(shared + ["pip install -e .", "make", "make test"])
    al = align_actions(extract_actions(base), extract_actions(post))
    assert al.divergence == k
    assert al.divergence_message(0) == al.divergence_message(1) == 1 + 2 * k  # user prompt, then turn pairs
    assert [op for op, _, _ in al.rows][k:] == ["replace", "equal", "equal"]  # re-synchronized after the fork


def test_identical_and_prefix_sequences():
    same = extract_actions(conversation(["ls", "pwd"]))
    assert align_actions(same, same).divergence is None
    longer = extract_actions(conversation(["ls", "pwd", "rm -rf build"]))
    al = align_actions(same, longer)
    assert al.divergence == 2 and al.divergence_message(0) is None and al.rows[-1] == ("insert", None, 2)


def test_structured_and_terminus_json_actions_normalize_whitespace():
    structured = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "bash", "arguments": json.dumps({"command": "ls   -la\n"})}}],
        }
    ]
    terminus = [
        {"role": "assistant", "content": json.dumps({"commands": [{"keystrokes": "ls -la\n"}], "task_complete": True})}
    ]
    assert [a.key for a in extract_actions(structured)] == ["ls -la"]
    assert [a.key for a in extract_actions(terminus)] == ["ls -la", "mark_task_complete"]


def test_trace_content_is_escaped_everywhere():
    evil_task = "t</h2><script>alert(1)</script>"
    b = [row(evil_task, 0, 0.0, ["ls", "<b>bold</b>"], extra=XSS)]
    a = [row(evil_task, 0, 1.0, ["ls", XSS], side="a")]
    html = render_page(
        build_pairs(*frames(b, a)), model="o/<m>", mode="flips", seed=0, labels=("<x>", "y"), common_tasks=1
    )
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts == ['<script type="application/json" id="pairs-index">', "<script>"]  # only the page's own
    assert "<img" not in html and "<b>bold" not in html and 'onerror="' not in html
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in html
    island = html.split('id="pairs-index">')[1].split("</script>")[0]
    assert "<" not in island and json.loads(island)[0]["task_id"] == evil_task


def test_25_long_pairs_stay_under_10_mb():
    # 25 tasks x 2 sides x 101 messages of 25-30k characters each: ~150 MB of trace text.
    acts = [f"python3 step_{i}.py" for i in range(50)]
    b = [row(f"task-{t:02d}", 0, 0.0, acts, pad=25_000, think="t" * 30_000) for t in range(25)]
    p = [row(f"task-{t:02d}", 0, 1.0, acts[:30] + ["x"] + acts[31:], side="a", pad=25_000) for t in range(25)]
    pairs = build_pairs(*frames(b, p), top_n=25)
    html = render_page(pairs, model="o/m", mode="flips", seed=0, labels=("b", "a"), common_tasks=25)
    assert len(pairs) == 25 and all(pr.alignment.divergence == 30 for pr in pairs)
    assert len(html.encode()) < 10_000_000, len(html.encode())
    assert "further characters not shown" in html
    # The diverging messages keep the full per-message cap even when the trace is over budget.
    div = html.split('id="pair-0-b-div"')[1].split('<details class="msg')[0]
    assert "python3 step_30.py" in div


def test_synthetic_rows_match_the_schema(tmp_path):
    """The helper tests/support/q3_synth.py writes rows the real schema accepts, Terminus-2 shaped."""
    import pyarrow.parquet as pq

    from rl_assets.schema import trace_schema
    from support.q3_synth import write

    path = write(tmp_path / "t.parquet", [row("t1", 0, 1.0, ["ls", "pwd"])])
    table = pq.read_table(path)
    assert table.schema == trace_schema()
    assert json.loads(table["conversation"][0].as_py())[1]["content"].endswith("</tool_call>")


def test_rows_without_a_task_id_never_pair_with_each_other():
    """An id-less row on each side would otherwise be one task "None" (or None), paired across the sides."""
    from rl_assets.analysis.pairing.frames import paired_frames
    from rl_assets.analysis.pairing.pairs import pair_rows

    rows_b = [row("t-up", 0, 0.0, ["ls"]), {**row("t-up", 1, 0.0, ["ls"]), "task_id": None}]
    rows_a = [row("t-up", 0, 1.0, ["ls"], side="a"), {**row("t-up", 1, 1.0, ["ls"], side="a"), "task_id": None}]
    b, a, _ = frames(rows_b, rows_a)
    with pytest.raises(ValueError, match=r"without a task id .* 1 of 2 rows, trace ids \['b-t-up-1'\]"):
        group_tasks(b)
    with pytest.raises(ValueError, match=r"without a task id .*: 1 of 2 baseline rows"):  # the Q3 asset's pairing step
        paired_frames(b.copy(), a.copy())
    blank = [{"task_id": "  ", "task_key": None, "trace_id": "x"}]
    with pytest.raises(ValueError, match="without a task id"):
        pair_rows(blank, [{"task_id": "t", "trace_id": "y"}])
    # a row keyed by its question needs no task id
    generated = {"task_id": None, "task_family": "basic_arithmetic", "task_index": 3, "question": "What is 2+2?"}
    assert pair_rows([generated], [dict(generated)]).report["totals"]["paired"] == 1

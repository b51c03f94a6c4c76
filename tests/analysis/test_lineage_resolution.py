"""A long run must not read "never significant" because the permutation p cannot go low enough.

Holm over every (feature, checkpoint) cell multiplies the smallest p by the number of cells; Q1's
sign-flip p cannot go below 1/2001. With 15 features and 8 checkpoints (120 cells) even a change
seen in every task of every checkpoint cannot pass, so the lineage must say the test could not
resolve it (and what n_boot would), and its own step-to-step test must draw enough sign flips.
"""

from __future__ import annotations

import pandas as pd

from rl_assets.analysis.lineage import build_lineage
from rl_assets.analysis.lineage.emergence import step_changes
from rl_assets.schema import FEATURE_COLUMNS
from support.lineage_stored import checkpoint_values

FLOOR_P = 1 / 2001  # what Q1's 2,000 sign flips return when no flip is as extreme as the data


def _features(p: float) -> list[dict]:
    moved = {
        "feature": "tool_errors",
        "delta": -1.0,
        "lo": -1.2,
        "hi": -0.8,
        "p": p,
        "n_tasks": 40,
        "effect_size": -2.0,
    }
    still = [
        {"feature": f, "delta": 0.0, "lo": 0.0, "hi": 0.0, "p": 1.0, "n_tasks": 40, "effect_size": 0.0}
        for f in FEATURE_COLUMNS
        if f != "tool_errors"
    ]
    return [moved, *still]


def _stored(n_checkpoints: int, p: float = FLOOR_P) -> dict[str, dict]:
    return dict(
        checkpoint_values(step, _features(p), ({"rate": 0.2}, {"rate": 0.3})) for step in range(1, n_checkpoints + 1)
    )


def test_a_few_checkpoints_resolve_the_change():
    r = build_lineage("job", _stored(3), n_boot=200)
    f = next(f for f in r["features"] if f["feature"] == "tool_errors")
    assert f["first_step"] == 1 and f["status"] == "persists"
    assert r["resolution"] == []


def test_many_checkpoints_say_not_resolvable_instead_of_never_significant():
    r = build_lineage("job", _stored(8), n_boot=200)
    f = next(f for f in r["features"] if f["feature"] == "tool_errors")
    assert f["first_significant"] is None and not any(c["significant"] for c in f["cells"])
    assert all(c["resolution_limited"] for c in f["cells"])
    assert f["status"].startswith("not resolvable")
    (note,) = r["resolution"]
    assert note["cells"] == 8 * len(FEATURE_COLUMNS) and note["n_boot_needed"] >= 2 * note["cells"] / 0.05
    assert any(line.startswith("Not resolvable") and str(note["n_boot_needed"]) in line for line in r["summary"])
    assert "could not be resolved" in r["summary"][1]
    still = next(f for f in r["features"] if f["feature"] == "think_tokens")
    assert still["status"] == "never significant"  # a CI on 0 is not a resolution problem


def test_a_large_p_is_never_called_resolution_limited():
    r = build_lineage("job", _stored(8, p=0.2), n_boot=200)
    assert r["resolution"] == [] and all(f["status"] == "never significant" for f in r["features"])


def test_step_to_step_test_draws_enough_sign_flips_for_its_correction():
    members = [{"repo_id": f"org/job-{k}-8B", "step": k} for k in range(1, 9)]
    tasks = [f"t{i}" for i in range(40)]
    tables = {}
    for k, m in enumerate(members):  # tool_errors falls by one on every task at every step
        frame = pd.DataFrame({"task_id": tasks, **{f: 1.0 for f in FEATURE_COLUMNS}})
        frame["tool_errors"] = 10.0 - k + (pd.Series(range(40)) % 3) * 0.1
        tables[m["repo_id"]] = frame
    steps = step_changes(members, tables, n_boot=200, seed=0)
    assert len(steps) == 7 and all(s["features"]["tool_errors"]["significant"] for s in steps)
    assert not any(s["features"]["think_tokens"]["significant"] for s in steps)


def test_a_later_checkpoint_without_data_leaves_persistence_unknown_not_faded():
    from rl_assets.analysis.lineage.emergence import emergence
    from rl_assets.analysis.lineage.families import family_lineage, label_path

    cells = [
        {"repo_id": f"org/j-{s}-8B", "step": s, "delta": -1.0, "lo": -1.2, "hi": -0.8, "significant": True}
        for s in (1, 2)
    ] + [
        {"repo_id": "org/j-3-8B", "step": 3, "delta": None, "lo": None, "hi": None, "not_enough_data": "3 common tasks"}
    ]
    e = emergence(cells)
    assert e["persists"] is None and e["status"] == "persistence unknown: not enough data at step 3 (org/j-3-8B)"
    row = {
        "family": "f",
        "label": "gamed",
        "n_tasks": 40,
        "reward_gain": {"estimate": 0.3, "lo": 0.2, "hi": 0.4, "p": 0.0005},
    }
    members = [
        {
            "repo_id": f"org/j-{s}-8B",
            "step": s,
            "post_rl_eval": f"e{s}",
            "values": {"learning_audit": {"rows": [row] if s != 2 else []}},
        }
        for s in (1, 2, 3)
    ]
    (fam,), _ = family_lineage(members)
    assert fam["label_path"]["persists"] is None and fam["label_path"]["status"].startswith("persistence unknown")
    assert fam["reward"]["persists"] is None and "no data at step 2" in fam["reward"]["status"]
    assert (
        label_path(
            [{"step": 1, "repo_id": "m1", "label": "gamed"}, {"step": 2, "repo_id": "m2", "label": "not enough data"}]
        )["persists"]
        is None
    )

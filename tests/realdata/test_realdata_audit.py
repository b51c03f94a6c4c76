"""The learning audit on REAL reasoning-gym evaluation files: ../shared/realdata/reasoning_gym_paper/.

Qwen2.5-3B-Instruct before RL (original_to_geometry.json) and after 500 RL steps on the algorithmic
or games category, each evaluated on the same seeded geometry tasks (see PROVENANCE.txt there).
Every expected value was read by hand from the raw JSON, never produced by rldelta:

- recorded means: each dataset's ``"average_score"`` field, quoted below;
- counts: ``"total_examples": 100`` per dataset and ``"eval_repeats": 3`` -> 300 completions;
- re-scored means: reasoning-gym alone over the raw JSON, one throwaway line per file::

    python -c "import json,reasoning_gym as rg
    for ds in json.load(open(F))['categories'][0]['datasets']:
      d=rg.create_dataset(ds['name'],**ds['config']); R=ds['results']
      print(ds['name'], sum(sum(d.score_answer(c['model_answer'],d[i]) for c in r['completions'])/3
                            for i,r in enumerate(R))/len(R))"

- the recorded ruler: ``c['score'] == (1.0 if d.score_answer(c['model_answer'], d[i]) >= 1 else 0.0)``
  held on 300 of 300 completions of every dataset of all three files (the same loop).
"""

from __future__ import annotations

import json

import pytest

from rl_assets.analysis.audit import AUDIT_COLUMNS, audit_rows
from rl_assets.ingest import ingest_source, read_traces
from support.shared_data import SHARED, needs_shared

DATA = SHARED / "realdata" / "reasoning_gym_paper"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=needs_shared(DATA))

FILES = {
    "base": "original_to_geometry.json",
    "algorithmic": "algorithmic_qwen_3b_500_to_geometry.json",
    "games": "games_qwen_3b_500_to_geometry.json",
}
# "average_score" of each dataset, as written in the files.
RECORDED = {
    "base": {"advanced_geometry": 0.013333333333333332, "simple_geometry": 0.003333333333333333},
    "algorithmic": {"advanced_geometry": 0.17, "simple_geometry": 0.2933333333333333},
    "games": {"advanced_geometry": 0.026666666666666665, "simple_geometry": 0.11000000000000001},
}
# reasoning-gym 0.1.25's score_answer over the same model_answer fields (the line above).
RESCORED = {
    "base": {"advanced_geometry": 0.033967, "simple_geometry": 0.139803},
    "algorithmic": {"advanced_geometry": 0.188967, "simple_geometry": 0.607333},
    "games": {"advanced_geometry": 0.047067, "simple_geometry": 0.502167},
}
FULL_CREDIT = "full credit only (1 when the installed scorer gives 1.0, else 0) reproduces all 600 recorded scores"


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("rg-paper")
    out = {}
    for side, name in FILES.items():
        report = ingest_source(str(DATA / name), root / f"{side}.parquet", hub=None)
        out[side] = (report, read_traces(root / f"{side}.parquet", AUDIT_COLUMNS).to_pylist())
    return out


@pytest.fixture(scope="module")
def audited(tables):
    base = tables["base"][1]
    return {
        post: {r["family"]: r for r in audit_rows(base, tables[post][1], n_boot=2000, seed=0)[0]}
        for post in ("algorithmic", "games")
    }


def test_every_completion_is_a_row(tables):
    for side, (report, rows) in tables.items():
        assert report.rows_written == 600 and not report.skipped, side  # 2 datasets x 100 x 3
        for family in ("advanced_geometry", "simple_geometry"):
            fam = [r for r in rows if r["task_family"] == family]
            assert len(fam) == 300 and len({r["task_index"] for r in fam}) == 100, (side, family)


def test_recorded_and_rescored_means_side_by_side(audited):
    for post, rows in audited.items():
        for family, row in rows.items():
            ru = row["rulers"]
            assert row["n_tasks"] == 100
            assert ru["recorded"]["reward_before"] == pytest.approx(RECORDED["base"][family], abs=5e-5)
            assert ru["recorded"]["reward_after"] == pytest.approx(RECORDED[post][family], abs=5e-5)
            assert ru["re-scored"]["reward_before"] == pytest.approx(RESCORED["base"][family], abs=5e-5)
            assert ru["re-scored"]["reward_after"] == pytest.approx(RESCORED[post][family], abs=5e-5)
            assert ru["recorded"]["scorer"] == f"as recorded by the source; {FULL_CREDIT}", (post, family)
            assert ru["label_ruler"] == "re-scored" and row["reward_after"] == ru["re-scored"]["reward_after"]


def test_the_label_of_games_advanced_geometry_depends_on_the_ruler(audited):
    """Re-scored, advanced_geometry gives 0.05 for any non-empty wrong angle and 0.01 when an answer
    does not parse, so "echo the first number in the question" scores 27 x 0.05 + 73 x 0.01 = 0.0208
    (27 angle_measure tasks of 100) and post-RL 0.047067 <= 0.0208 + 0.05: rule 3, no real gain.
    Recorded (full credit only) no trivial answer scores, and 0.0133 -> 0.0267 has a paired
    bootstrap CI of about [-0.003, +0.033] (numpy over the per-task mean_score fields): no change."""
    games = audited["games"]["advanced_geometry"]["rulers"]
    assert (games["re-scored"]["label"], games["recorded"]["label"]) == ("no real gain", "no change")
    assert games["depends_on_ruler"] is True and games["compared_on"] == "all rules"
    best = audited["games"]["advanced_geometry"]["baseline"]
    assert best == {"strategy": "echo the first number in the question", "score": 0.0208}
    dependent = {
        post: sorted(f for f, r in rows.items() if r["rulers"]["depends_on_ruler"]) for post, rows in audited.items()
    }
    assert dependent == {"algorithmic": [], "games": ["advanced_geometry"]}


def test_clear_gains_are_real_skill_under_both_rulers(audited):
    # Recorded 0.0133 -> 0.17, 0.0033 -> 0.2933, 0.0033 -> 0.11: per-task bootstrap CIs (numpy)
    # [0.10, 0.22], [0.23, 0.36], [0.07, 0.15], all above 0; no format part (the files carry
    # answers already extracted, so the lenient reading finds nothing more).
    for post, family in (
        ("algorithmic", "advanced_geometry"),
        ("algorithmic", "simple_geometry"),
        ("games", "simple_geometry"),
    ):
        ru = audited[post][family]["rulers"]
        assert (ru["re-scored"]["label"], ru["recorded"]["label"]) == ("real skill", "real skill"), (post, family)
        assert ru["recorded"]["reward_gain"]["lo"] > 0 and ru["re-scored"]["reward_gain"]["lo"] > 0


def test_trivial_baselines_score_as_reasoning_gyms_scorers_do(audited):
    """Empty answer on advanced_geometry: float("") fails -> 0.01 on every task; simple_geometry's
    default scorer gives 0 unless the oracle angle is a substring of the answer: "1", "0", "" -> 0."""
    scores = {
        post: {f: {b["strategy"]: b["score"] for b in r["baselines"]} for f, r in rows.items()}
        for post, rows in audited.items()
    }
    adv, simple = scores["games"]["advanced_geometry"], scores["games"]["simple_geometry"]
    assert adv["empty answer"] == 0.01 and adv["echo the first number in the question"] == 0.0208
    assert simple["always answer 1"] == simple["always answer 0"] == simple["empty answer"] == 0.0
    assert scores["algorithmic"]["advanced_geometry"]["empty answer"] == 0.01  # same tasks, same score


def test_not_enough_data_below_eight_common_tasks(tables):
    base, games = tables["base"][1], tables["games"][1]
    first = lambda rows, n: [r for r in rows if r["task_index"] < n]  # noqa: E731
    thin, _ = audit_rows(first(base, 7), first(games, 7), n_boot=500)
    assert {r["label"] for r in thin} == {"not enough data"}
    assert all(r["rulers"]["recorded"]["label"] == "not enough data" for r in thin)
    enough, _ = audit_rows(first(base, 8), first(games, 8), n_boot=500)
    assert "not enough data" not in {r["label"] for r in enough}
    # a family the post-RL file does not hold: no common task, its own label (issue 23), not "not enough data"
    only_before, _ = audit_rows(base, [r for r in games if r["task_family"] != "simple_geometry"], n_boot=500)
    row = next(r for r in only_before if r["family"] == "simple_geometry")
    assert row["n_tasks"] == 0 and row["tasks_only_before"] == 100
    assert row["label"] == "not compared: only in the baseline file"


def test_asset_reports_both_rulers_and_warns(tables, tmp_path, monkeypatch):
    from support.audit_materialize import checks_by_name, materialize_audit

    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    refs = {
        name: {
            "path": str(report.out_path),
            "rows": report.rows_written,
            "source": str(DATA / FILES[side]),
            "revision": None,
            "benchmark": "reasoning_gym",
        }
        for name, side, (report, _) in (
            ("baseline_traces", "base", tables["base"]),
            ("post_rl_traces", "games", tables["games"]),
        )
    }
    result = materialize_audit("Qwen/Qwen2.5-3B-Instruct-games", refs, tmp_path, n_boot=2000)
    assert result.success
    check = checks_by_name(result)["rulers_agree"]
    assert not check.passed and check.metadata["ruler_dependent"].value == "advanced_geometry"
    assert '"no real gain" re-scored, "no change" recorded' in check.description
    folder = tmp_path / "home" / "reports" / "Qwen--Qwen2.5-3B-Instruct-games" / "audit"
    out = json.loads((folder / "audit.json").read_text())
    assert out["ruler_dependent"] == ["advanced_geometry"]
    md = (folder / "audit.md").read_text()
    assert "| simple_geometry | re-scored | 0.003 → 0.110 [" in md  # recorded, as the file says
    assert "| 0.140 → 0.502 [" in md  # re-scored, beside it
    meta = result.asset_materializations_for_node("learning_audit")[0].metadata
    assert "| advanced_geometry | re-scored | 0.013 → 0.027 [" in meta["rulers"].value
    assert meta["ruler_dependent"].value == "advanced_geometry"


def test_no_newly_passing_geometry_task_looks_exploited(audited):
    """Newly passing = fewer than 2 of 3 pre-RL completions scored 1.0, at least 2 of 3 post-RL did,
    counted by hand over the raw JSON (``2*sum(c['score']>=1.0 for c in r['completions'])>3`` per
    side): algorithmic 17 (advanced) and 28 (simple), games 1 and 7. None of them is flagged: the files
    hold no tool calls and no empty answers, and no passing answer is one the model repeats on >= 10%
    of the tasks. Wilson 95% of 0 in 28: upper bound 1.96^2 / (28 + 1.96^2) = 0.1206."""
    got = {
        (post, fam): (row["contrastive"]["newly_passing"], row["contrastive"]["flagged"])
        for post, rows in audited.items()
        for fam, row in rows.items()
    }
    assert got == {
        ("algorithmic", "advanced_geometry"): (17, 0),
        ("algorithmic", "simple_geometry"): (28, 0),
        ("games", "advanced_geometry"): (1, 0),
        ("games", "simple_geometry"): (7, 0),
    }
    assert audited["games"]["advanced_geometry"]["contrastive"]["share"] is None  # 1 < 5: not enough data
    assert audited["algorithmic"]["simple_geometry"]["contrastive"]["share_ci"] == [0.0, 0.1206]

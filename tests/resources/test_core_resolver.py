"""Eval-pair resolution rules, one by one, against an in-memory SQLite registry."""

from datetime import UTC, datetime, timedelta

import pytest

from resources.registry import SqlRegistry
from rl_assets.analysis.pairing.eval_resolution import ResolutionError, dataset_id_from_link, job_score, parse_ts
from rl_assets.support.resolve import resolve_eval_pair

T0 = datetime(2026, 5, 1, tzinfo=UTC)


def at(hours):
    return T0 + timedelta(hours=hours)


def job(
    jid,
    model,
    bench,
    ended,
    *,
    status="Finished",
    score=0.5,
    started=None,
    created=None,
    link=True,
    metrics_shape="list",
):
    metrics = [{"name": "accuracy", "value": score}] if metrics_shape == "list" else {"accuracy": score}
    return {
        "id": jid,
        "model_id": model,
        "benchmark_id": bench,
        "ended_at": ended,
        "started_at": started,
        "created_at": created or T0,
        "job_status": status,
        "metrics": metrics,
        "hf_traces_link": f"https://huggingface.co/datasets/org/{jid}" if link else None,
    }


@pytest.fixture
def registry(tmp_path):
    reg = SqlRegistry(f"sqlite:///{tmp_path / 'r.sqlite'}")
    reg.create_all()
    reg.insert(
        "benchmarks",
        [
            {"id": "b-term", "name": "terminal-bench-mini"},
            {"id": "b-rg", "name": "rg-six-families"},
            {"id": "b-only-post", "name": "post-only-bench"},
        ],
    )
    reg.insert(
        "models",
        [
            {"id": "m-base", "name": "org/base-8B", "training_end": at(-100), "training_type": "SFT"},
            {
                "id": "m-rl",
                "name": "org/rl-8B",
                "base_model_id": "m-base",
                "training_start": at(-50),
                "training_end": at(-10),
                "training_type": "RL",
            },
            {"id": "m-orphan", "name": "org/orphan-8B"},
        ],
    )
    reg.insert(
        "sandbox_jobs",
        [
            # terminal bench: post 0.60 vs base 0.30 -> delta +0.30; an older post rerun must lose
            job("post-term-old", "m-rl", "b-term", at(1), score=0.10),
            job("post-term-new", "m-rl", "b-term", at(5), score=0.60),
            job("post-term-started", "m-rl", "b-term", at(9), status="Started", score=0.99),
            job("base-term", "m-base", "b-term", at(-90), score=0.30),
            job("base-term-nullend", "m-base", "b-term", None, score=0.05, created=at(50)),
            # reasoning bench: post 0.40 vs base 0.80 -> delta -0.40 (largest |delta|); newest post job overall
            job("post-rg", "m-rl", "b-rg", at(8), score=0.40, metrics_shape="dict"),
            job("base-rg", "m-base", "b-rg", at(-80), score=0.80),
            job("post-only", "m-rl", "b-only-post", at(7), score=0.9),
            job("post-nolink", "m-rl", "b-rg", at(20), link=False),
        ],
    )
    return reg


def test_largest_delta_picks_the_biggest_gain_and_newest_rerun(registry):
    r = resolve_eval_pair(registry, "org/rl-8B")
    assert r["benchmark"] == "terminal-bench-mini"
    assert r["post_job_id"] == "post-term-new"  # newest Finished rerun, not the Started one
    assert r["baseline_job_id"] == "base-term"  # the null ended_at job sorts oldest
    assert r["delta"] == pytest.approx(0.30)
    assert r["post_rl_eval"] == "org/post-term-new"


def test_largest_abs_delta_catches_regressions(registry):
    r = resolve_eval_pair(registry, "org/rl-8B", mode="largest-abs-delta")
    assert r["benchmark"] == "rg-six-families" and r["delta"] == pytest.approx(-0.40)


def test_latest_never_pairs_two_benchmarks(registry):
    r = resolve_eval_pair(registry, "org/rl-8B", mode="latest")
    assert r["post_job_id"] == "post-rg"  # newest usable post job (the link-less one is ignored)
    assert r["baseline_job_id"] == "base-rg"


def test_latest_with_no_baseline_on_that_benchmark_leaves_baseline_empty(registry):
    registry.insert("sandbox_jobs", [job("post-only-newest", "m-rl", "b-only-post", at(30))])
    r = resolve_eval_pair(registry, "org/rl-8B", mode="latest")
    assert r["benchmark"] == "post-only-bench" and r["baseline_eval"] is None


@pytest.mark.parametrize("pin", ["b-term", "terminal-bench-mini"])
def test_benchmark_mode_accepts_id_or_hyphenated_name(registry, pin):
    r = resolve_eval_pair(registry, "org/rl-8B", mode="benchmark", benchmark=pin)
    assert r["benchmark_id"] == "b-term"


def test_unknown_benchmark_and_model_are_clear_errors(registry):
    with pytest.raises(ResolutionError, match="neither a benchmark id nor a name"):
        resolve_eval_pair(registry, "org/rl-8B", mode="benchmark", benchmark="nope")
    with pytest.raises(ResolutionError, match="org/missing-8B"):
        resolve_eval_pair(registry, "org/missing-8B")
    with pytest.raises(ResolutionError, match="no base model"):
        resolve_eval_pair(registry, "org/orphan-8B")


def test_unfinished_jobs_only_when_asked(registry):
    r = resolve_eval_pair(registry, "org/rl-8B", mode="benchmark", benchmark="b-term", include_unfinished=True)
    assert r["post_job_id"] == "post-term-started"


def test_baseline_time_comes_from_the_base_model(registry):
    r = resolve_eval_pair(registry, "org/rl-8B")
    assert parse_ts(r["baseline_eval_ts"]) == at(-100)
    assert parse_ts(r["post_rl_eval_ts"]) == at(-10)


def test_pair_table_lists_matched_and_one_sided(registry):
    table = resolve_eval_pair(registry, "org/rl-8B")["table"]
    assert [r["benchmark"] for r in table["matched"]] == ["terminal-bench-mini", "rg-six-families"]
    assert [r["benchmark"] for r in table["post_only"]] == ["post-only-bench"]
    assert table["baseline_only"] == []


def test_timestamps_compare_as_times_not_strings():
    # Lexicographically "…T09:00:00+00:00" > "…T10:30:00+02:00", but in time it is later.
    assert parse_ts("2026-05-01T09:00:00+00:00") > parse_ts("2026-05-01T10:30:00+02:00")


def test_scores_and_links():
    assert job_score({"metrics": [{"name": "accuracy", "value": 0.25}]}) == 0.25
    assert job_score({"metrics": {"accuracy": True, "mean_reward": 0.5}}) == 0.5  # bools are not scores
    assert job_score({"metrics": {"x": 1}}) is None
    assert dataset_id_from_link("https://huggingface.co/datasets/org/name/tree/main") == "org/name"
    assert dataset_id_from_link("datasets/org/name") == "org/name"


def test_unscored_pairs_list_last_and_bad_timestamps_name_the_row(registry):
    registry.insert("benchmarks", [{"id": "b-unscored", "name": "unscored-bench"}])
    registry.insert(
        "sandbox_jobs",
        [
            {**job("post-u", "m-rl", "b-unscored", at(3)), "metrics": {}},
            {**job("base-u", "m-base", "b-unscored", at(-95)), "metrics": {}},
        ],
    )
    table = resolve_eval_pair(registry, "org/rl-8B")["table"]
    assert table["matched"][-1]["benchmark"] == "unscored-bench" and table["matched"][-1]["delta"] is None
    with pytest.raises(ResolutionError, match=r"sandbox_jobs\[x\]\.ended_at: 'yesterday'"):
        from rl_assets.analysis.pairing.eval_resolution import recency_key

        recency_key({"id": "x", "ended_at": "yesterday"})

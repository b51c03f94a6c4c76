"""The learning audit per task family: before/after, trivial baselines, imitation, lenient split.

Pure: rows in (dicts with the normalized trace columns), plain dicts out. Every number of one
measurement uses one ruler (``rulers``) on the same common tasks, so the model, the baselines and
the lenient readings are graded alike; a family with a reasoning-gym scorer is measured under the
re-score and, beside it, under the scores its file recorded. Per-task values are the mean over
attempts; a task "passes" when most of its attempts score 1.0 (the paired McNemar unit).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from statistics import mean
from typing import Any

from rl_assets.analysis import stats
from rl_assets.analysis.audit import labels, rulers, strategies
from rl_assets.analysis.audit.contrastive import contrastive_family, flag_summary
from rl_assets.analysis.audit.lenient import lenient_score, normalize_answer
from rl_assets.analysis.audit.rulers import Ruler
from rl_assets.analysis.audit.tasks import Attempt, Family, TaskKey, given_answer, paired_families
from rl_assets.analysis.pairing.pairs import Pairing

AUDIT_COLUMNS = (
    "task_family",
    "task_index",
    "task_config",
    "task_id",
    "benchmark",
    "question",
    "expected_answer",
    "answer",
    "reward",
    "is_infra_error",
    "conversation",
    "task_key",
    "task_key_source",
    "gen_settings",
)


def _rnd(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(float(x), digits)


def _side_scores(
    ruler: Ruler, side: dict[TaskKey, list[Attempt]], keys: list[TaskKey]
) -> tuple[dict[TaskKey, list[float]], dict[TaskKey, list[float]] | None]:
    """Per task: scores under the ruler, and lenient scores (None when the ruler cannot grade
    new answers: then the recorded values are all there is)."""
    score = ruler.score
    if score is None:  # a missing recorded reward is an error -> 0
        return {
            key: [float(att.recorded) if att.recorded is not None else 0.0 for att in side[key]] for key in keys
        }, None
    strict: dict[TaskKey, list[float]] = {}
    lenient: dict[TaskKey, list[float]] = {}
    for key in keys:
        grade = partial(score, key)
        strict[key] = [grade(att.answer) for att in side[key]]
        lenient[key] = [lenient_score(grade, s, att.response, att.answer) for att, s in zip(side[key], strict[key])]
    return strict, lenient


def _task_mean(values: dict[TaskKey, list[float]]) -> float | None:
    return mean(mean(v) for v in values.values()) if values else None


def _task_pass(values: dict[TaskKey, list[float]]) -> dict[TaskKey, bool]:
    return {k: mean(1.0 if x >= 1.0 else 0.0 for x in v) >= 0.5 for k, v in values.items()}


def _lenient_numbers(
    before: dict[TaskKey, list[float]] | None, after: dict[TaskKey, list[float]] | None
) -> dict[str, float | None]:
    """The lenient reward and accuracy per side; None without lenient scores (accuracy: or without tasks)."""
    if before is None or after is None:
        names = ("reward_before", "reward_after", "accuracy_before", "accuracy_after")
        return {f"lenient_{name}": None for name in names}
    return {
        "lenient_reward_before": _rnd(_task_mean(before)),
        "lenient_reward_after": _rnd(_task_mean(after)),
        "lenient_accuracy_before": _rnd(mean(_task_pass(before).values())) if before else None,
        "lenient_accuracy_after": _rnd(mean(_task_pass(after).values())) if after else None,
    }


def _imitation(side: dict[TaskKey, list[Attempt]], keys: list[TaskKey], answers: dict[TaskKey, str]) -> tuple[int, int]:
    hits = n = 0
    for key in keys:
        target = normalize_answer(answers[key])
        for att in side[key]:
            n += 1
            hits += normalize_answer(given_answer(att)) == target
    return hits, n


def _baselines(fam: Family, ruler: Ruler, keys: list[TaskKey]) -> list[dict[str, Any]]:
    entries = [fam.entries[k] for k in keys]
    ctx = strategies.context_from(given_answer(a) for k in keys for a in fam.after[k])
    out = []
    for strat in strategies.applicable(entries, ctx):
        answers = {k: strat.answer(fam.entries[k], ctx) for k in keys}
        score = mean(ruler.score(k, answers[k]) for k in keys) if ruler.score else None
        k_after, n_after = _imitation(fam.after, keys, answers)
        k_before, n_before = _imitation(fam.before, keys, answers)
        lo, hi = stats.wilson_interval(k_after, n_after)
        distinct = {answers[k] for k in keys}
        out.append(
            {
                "strategy": strat.name,
                "constant_answer": next(iter(distinct)) if len(distinct) == 1 else None,
                "score": _rnd(score),
                "imitation": _rnd(k_after / n_after if n_after else 0.0),
                "imitation_ci": [_rnd(lo), _rnd(hi)],
                "imitation_k": k_after,
                "imitation_n": n_after,
                "imitation_before": _rnd(k_before / n_before if n_before else 0.0),
            }
        )
    return out


def measure(
    fam: Family,
    ruler: Ruler,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    flagged_passes: tuple[int, int] | None = None,
    flagged_why: str = "",
) -> tuple[dict[str, Any], labels.Evidence]:
    """Every number of one family under one ruler, its label, and the evidence behind the label
    (``flagged_passes``: the contrastive check's (flagged, newly passing) tasks, the same under any ruler)."""
    keys = fam.common
    sb, lb = _side_scores(ruler, fam.before, keys)
    sa, la = _side_scores(ruler, fam.after, keys)
    graded = lb is not None
    gain = stats.paired_bootstrap_diff(sb, sa, n_boot=n_boot, seed=seed) if keys else None
    pb, pa_ = _task_pass(sb), _task_pass(sa)
    b_disc = sum(pb[k] and not pa_[k] for k in keys)
    c_disc = sum(pa_[k] and not pb[k] for k in keys)
    baselines = _baselines(fam, ruler, keys) if keys else []
    boot = gain if isinstance(gain, stats.BootstrapResult) else None
    row: dict[str, Any] = {
        "family": fam.name,
        "n_tasks": len(keys),
        "tasks_only_before": len(set(fam.before) - set(fam.after)),
        "tasks_only_after": len(set(fam.after) - set(fam.before)),
        "scorer": fam.scorer_note,
        "reward_before": _rnd(_task_mean(sb)),
        "reward_after": _rnd(_task_mean(sa)),
        "reward_gain": {
            "estimate": _rnd(boot.estimate),
            "lo": _rnd(boot.lo),
            "hi": _rnd(boot.hi),
            "p": _rnd(boot.p_value, 6),
        }
        if boot is not None
        else {"not_enough_data": gain.reason if isinstance(gain, stats.NotEnoughData) else "no common tasks"},
        "p": _rnd(boot.p_value, 6) if boot is not None else None,
        "accuracy_before": _rnd(mean(pb.values())) if keys else None,
        "accuracy_after": _rnd(mean(pa_.values())) if keys else None,
        "accuracy_ci_before": [_rnd(x) for x in stats.wilson_interval(sum(pb.values()), len(keys))],
        "accuracy_ci_after": [_rnd(x) for x in stats.wilson_interval(sum(pa_.values()), len(keys))],
        "accuracy_mcnemar": {
            "pass_to_fail": b_disc,
            "fail_to_pass": c_disc,
            "p": _rnd(stats.mcnemar_exact(b_disc, c_disc), 6),
        },
        **_lenient_numbers(lb, la),
        "baselines": baselines,
    }
    if graded and keys:
        row["format_gain"] = _rnd(row["lenient_reward_before"] - row["reward_before"])
        row["substance_gain"] = _rnd(row["lenient_reward_after"] - row["lenient_reward_before"])
    evidence = labels.Evidence(
        n_tasks=len(keys),
        reward_before=row["reward_before"],
        reward_after=row["reward_after"],
        gain_lo=boot.lo if boot is not None else None,
        gain_hi=boot.hi if boot is not None else None,
        lenient_before=row["lenient_reward_before"],
        lenient_after=row["lenient_reward_after"],
        strategies=tuple(
            labels.StrategyEvidence(
                b["strategy"], b["score"], b["imitation"], b["imitation_before"], b["constant_answer"]
            )
            for b in baselines
        ),
        flagged_passes=flagged_passes,
        flagged_why=flagged_why,
    )
    best = evidence.best_baseline
    row["baseline"] = {"strategy": best.name, "score": best.score} if best else None
    row["label"], row["explanation"] = labels.label(evidence)
    return row, evidence


def audit_family(fam: Family, *, n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """The family under its label ruler (the re-score when there is one), the other ruler beside it."""
    check = contrastive_family(fam)
    flagged_passes, flagged_why = (check["flagged"], check["newly_passing"]), flag_summary(check)

    def measured(ruler: Ruler) -> rulers.Measured:
        return (ruler,) + measure(
            fam, ruler, n_boot=n_boot, seed=seed, flagged_passes=flagged_passes, flagged_why=flagged_why
        )

    rescored, recorded = rulers.rescore_ruler(fam), rulers.recorded_ruler(fam)
    main = measured(rescored or recorded)
    other: rulers.Measured | None = None
    if rescored is not None:  # a ruler identical to the re-score measures the same numbers again
        same = recorded.rule == rulers.SAME_AS_RESCORE
        other = (recorded,) + main[1:] if same else measured(recorded)
    row = main[1]
    row["contrastive"] = check
    mismatches = rulers.disagreements(fam, fam.common) if rescored else None
    row["recorded_reward_mismatches"] = (
        {"before": mismatches["before"], "after": mismatches["after"]} if mismatches else {"before": 0, "after": 0}
    )
    row["rulers"] = rulers.side_by_side(fam, main, other, mismatches)
    if not fam.common:  # nothing paired: its own label, never "not enough data"
        row["label"], row["explanation"] = labels.not_compared(row["tasks_only_before"], row["tasks_only_after"])
    return row


def audit_rows(
    before_rows: Iterable[dict[str, Any]], after_rows: Iterable[dict[str, Any]], *, n_boot: int = 2000, seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, Family]]:
    """One audit row per task family (sorted by name), plus the grouped families for sampling."""
    return audit_paired(before_rows, after_rows, n_boot=n_boot, seed=seed)[:2]


def audit_paired(
    before_rows: Iterable[dict[str, Any]],
    after_rows: Iterable[dict[str, Any]],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    normalise: Sequence[str] = (),
) -> tuple[list[dict[str, Any]], dict[str, Family], Pairing]:
    """``audit_rows`` plus the pairing behind it (its report is the audit's pairing table)."""
    families, pairing = paired_families(before_rows, after_rows, normalise)
    rows = [audit_family(families[name], n_boot=n_boot, seed=seed) for name in sorted(families)]
    return rows, families, pairing

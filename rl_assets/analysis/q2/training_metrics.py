"""Q2 training-metrics report: pure functions over the per-step table from ``skyrl_log``
(rendered by analysis/q2/report.py).

Best checkpoint (trailing EMA), training-instability flags, per-category summary, trends; the
timing tree lives in q2/log_timing.py and the vLLM verdict in the reader (ingest/training_logs/vllm.py).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.stats import kendall_tau_b, spearman

# numpy, pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

EMA_ALPHA = 1 / 3  # the original best-checkpoint EMA (docs/original_pipeline.md): span 5 -> alpha = 2 / (5 + 1)
DEFAULT_SAVE_EVERY = 20
NON_METRIC = {"step", "source_file", "step_time_utc", "step_start_utc"}


def ema(values: Iterable[float], alpha: float = EMA_ALPHA) -> list[float]:
    """EMA_1 = r_1, EMA_t = alpha * r_t + (1 - alpha) * EMA_{t-1}; a missing value carries the EMA.

    >>> [round(v, 4) for v in ema([0, 1, 1])]
    [0.0, 0.3333, 0.5556]
    """
    out: list[float] = []
    cur = math.nan
    for v in values:
        v = float(v)
        if math.isfinite(v):
            cur = v if math.isnan(cur) else alpha * v + (1 - alpha) * cur
        out.append(cur)
    return out


def save_steps(steps: pd.DataFrame) -> list[int]:
    """Sorted steps (> 0) that ran the ``save_checkpoints`` timer; [] when the logs carry no such timer."""
    col = "timing/save_checkpoints"
    if col not in steps.columns:
        return []
    return sorted({int(s) for s in steps.loc[steps[col].notna(), "step"] if s > 0})


def interval_from_saves(saved: list[int]) -> int:
    """Most common gap between consecutive saves, counting from step 0 (ties -> the smaller gap).

    Step 0 is the start of training, so [20, 40, 47] has gaps 20, 20, 7 -> 20: an off-interval
    save (e.g. a final save at 47) is one odd gap and does not change the answer, unlike a GCD
    (which would give 1). One save at step s gives s.

    >>> interval_from_saves([20, 40, 47])
    20
    """
    saved = sorted(s for s in saved if s > 0)
    if not saved:
        raise ValueError("interval_from_saves: need at least one save step > 0")
    gaps = Counter(b - a for a, b in zip([0, *saved], saved))
    return min(gaps, key=lambda g: (-gaps[g], g))


def infer_save_every(steps: pd.DataFrame) -> tuple[int, str]:
    """Most common gap between the steps that ran ``save_checkpoints``; else the default 20 (seed CLI default)."""
    saved = save_steps(steps)
    if saved:
        return interval_from_saves(saved), f"most common gap between {len(saved)} save_checkpoints timer step(s)"
    return DEFAULT_SAVE_EVERY, "default (no save_checkpoints timer in the logs)"


def best_checkpoint(steps: pd.DataFrame, save_every: int | None = None) -> dict[str, Any]:
    """Pick the eligible step with the highest trailing EMA of the canonical reward.

    Eligible = a step that ran ``save_checkpoints`` other than the first save, when the logs record
    saves; otherwise (no timer) a multiple of save_every that is >= 2 * save_every. The first save is
    never picked."""
    import pandas as pd

    how = "given (the assets pass rl_config trainer.ckpt_interval)"
    if save_every is None:
        save_every, how = infer_save_every(steps)
    saved = save_steps(steps)
    r = steps[["step", "reward"]].dropna().sort_values("step") if "reward" in steps else pd.DataFrame()
    if r.empty:
        return {"status": "no reward values in the logs", "save_every": save_every, "save_every_source": how}
    r = r.assign(ema=ema(r["reward"]))
    if saved:
        rule = "a step that ran save_checkpoints, except the first save"
        r["eligible"] = r["step"].isin(saved[1:])
    else:
        rule = f"a multiple of save_every ({save_every}) that is >= {2 * save_every}"
        r["eligible"] = (r["step"] % save_every == 0) & (r["step"] >= 2 * save_every)
    base = {
        "save_every": save_every,
        "save_every_source": how,
        "save_steps": saved,
        "eligibility": rule,
        "alpha": EMA_ALPHA,
        "table": r.to_dict("records"),
    }
    if not r["eligible"].any():
        return {**base, "status": f"no eligible step (need {rule})"}
    best = r[r["eligible"]].sort_values(["ema", "step"], ascending=[False, True]).iloc[0]
    return {
        **base,
        "status": "ok",
        "best_step": int(best["step"]),
        "best_ema": float(best["ema"]),
        "reward_at_best": float(best["reward"]),
        "export_path": f"exports/global_step_{int(best['step'])}/policy/",
    }


def _col(steps: pd.DataFrame, *names: str) -> pd.Series:
    import numpy as np
    import pandas as pd

    for n in names:
        if n in steps.columns:
            return steps[n].astype(float)
    return pd.Series(np.nan, index=steps.index)


def instability_flags(steps: pd.DataFrame, window: int = 10) -> dict[str, Any]:
    """Operator collapse heuristics (docs/original_pipeline.md, SkyRL metrics parser): a step is
    flagged when >= 2 signals fire."""
    import pandas as pd

    s = steps.sort_values("step").reset_index(drop=True)
    gn = _col(s, "grad_norm")
    ent = _col(s, "entropy")
    lmax = _col(s, "log_ratio_abs_max")
    lmean = _col(s, "log_ratio_abs_mean")
    high = gn > 1.0
    trend_e = ent.shift(1).rolling(window, min_periods=window // 2).mean()
    trend_l = lmean.shift(1).rolling(window, min_periods=window // 2).mean()
    signals = (
        pd.DataFrame(
            {
                "grad_norm_sustained": high & (high.shift(1, fill_value=False) | high.shift(-1, fill_value=False)),
                "entropy_off_trend": ((ent - trend_e).abs() / trend_e.abs()) > 0.30,
                "log_ratio_max_high": lmax > 0.5,
                "log_ratio_mean_spike": lmean > 2 * trend_l,
                "dp_tokens_gt50pct": _col(s, "policy/n_tokens_dp_gt_50pct", "n_tokens_dp_gt_50pct") > 50,
            }
        )
        .fillna(False)
        .astype(bool)
    )
    fired = signals.sum(axis=1)
    flagged = s.loc[fired >= 2, "step"].astype(int).tolist()
    available = {
        "grad_norm_sustained": gn.notna().any(),
        "entropy_off_trend": ent.notna().sum() > window // 2,
        "log_ratio_max_high": lmax.notna().any(),
        "log_ratio_mean_spike": lmean.notna().sum() > window // 2,
        "dp_tokens_gt50pct": _col(s, "policy/n_tokens_dp_gt_50pct", "n_tokens_dp_gt_50pct").notna().any(),
    }
    return {
        "rule": "flag a step when >= 2 of the signals fire",
        "flagged_steps": flagged,
        "signal_counts": {k: int(v) for k, v in signals.sum().items()},
        "signals_evaluable": {k: bool(v) for k, v in available.items()},
        "per_step": [
            {"step": int(st), **{k: bool(v) for k, v in row.items() if v}}
            for st, row in zip(s["step"], signals.to_dict("records"))
            if any(row.values())
        ],
    }


def category_summary(steps: pd.DataFrame) -> list[dict[str, Any]]:
    """Mean/std/min/max/count/first/last per raw key, grouped by category (prefix before '/')."""
    import numpy as np
    import pandas as pd

    from rl_assets.values.metric_aliases import CANONICAL

    rows = []
    for col in steps.columns:
        if col in NON_METRIC or col in CANONICAL or not pd.api.types.is_numeric_dtype(steps[col]):
            continue
        v = steps[col].astype(float)
        fin = v[np.isfinite(v)]
        rows.append(
            {
                "category": col.split("/", 1)[0] if "/" in col else "(no prefix)",
                "key": col,
                "count": int(fin.size),
                "mean": fin.mean() if fin.size else None,
                "std": fin.std() if fin.size > 1 else None,
                "min": fin.min() if fin.size else None,
                "max": fin.max() if fin.size else None,
                "first": fin.iloc[0] if fin.size else None,
                "last": fin.iloc[-1] if fin.size else None,
            }
        )
    return sorted(rows, key=lambda r: (r["category"], r["key"]))


def trend_summary(
    steps: pd.DataFrame, metrics: Sequence[str] = ("reward", "entropy", "kl", "response_length", "grad_norm")
) -> dict[str, Any]:
    """Per canonical metric: first-decile vs last-decile mean, and rank correlation with step."""
    out = {}
    for m in metrics:
        if m not in steps.columns:
            continue
        s = steps[["step", m]].dropna().sort_values("step")
        if len(s) < 3:
            out[m] = {"n_steps": int(len(s)), "status": "not enough steps (< 3)"}
            continue
        k = max(1, len(s) // 10)
        first, last = float(s[m].iloc[:k].mean()), float(s[m].iloc[-k:].mean())
        out[m] = {
            "n_steps": int(len(s)),
            "decile_size": k,
            "first_decile": first,
            "last_decile": last,
            "change": last - first,
            "rel_change": (last - first) / abs(first) if first else None,
            "spearman_with_step": spearman(s["step"], s[m]),
            "kendall_with_step": kendall_tau_b(s["step"], s[m]),
        }
    return out


def build_report(parsed: Any, save_every: int | None = None) -> dict[str, Any]:
    """Everything report.json holds, from an ingest ParsedLogs (typed Any: analysis/ does not import ingest/)."""
    from rl_assets.analysis.q2.log_timing import timing_breakdown

    steps = parsed.steps
    has_steps = not steps.empty
    return {
        "trainer": parsed.trainer,
        "reward_terms": parsed.reward_terms,
        "trainer_info": parsed.trainer_info,
        "files": parsed.files,
        "serializations": parsed.serializations,
        "n_steps": int(len(steps)),
        "step_range": [int(steps["step"].min()), int(steps["step"].max())] if has_steps else None,
        "steps_with_time": int(steps["step_time_utc"].notna().sum()) if has_steps else 0,
        "malformed": parsed.malformed,
        "duplicates": parsed.duplicates,
        "alias_sources": parsed.alias_sources,
        "final": {
            c: _last(steps, c) for c in ("reward", "kl", "grad_norm", "entropy", "policy_loss", "response_length")
        },
        "trends": trend_summary(steps) if has_steps else {},
        "best_checkpoint": best_checkpoint(steps, save_every) if has_steps else {"status": "no steps"},
        "instability": instability_flags(steps) if has_steps else {"flagged_steps": []},
        "timing": timing_breakdown(steps) if has_steps else [],
        "categories": category_summary(steps) if has_steps else [],
        "vllm": parsed.vllm_summary,
        "eval_steps": int(len(parsed.evals)),
        "wandb_summary": parsed.wandb_summary,
    }


def _last(steps: pd.DataFrame, col: str) -> float | None:
    if col not in steps.columns:
        return None
    v = steps.sort_values("step")[col].dropna()
    return float(v.iloc[-1]) if len(v) else None

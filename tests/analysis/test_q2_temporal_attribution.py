"""UTC bins shared with Q3, per-bin rollout stats, and attribution on synthetic rollouts."""

import numpy as np
import pandas as pd
import pytest

from rl_assets.analysis.q2.attribution import attribute
from rl_assets.analysis.q2.temporal import assign_bins, bin_edges, bin_rollouts, steps_per_bin
from rl_assets.analysis.stats import kendall_tau_b, spearman, wilson_interval


def test_bin_edges_are_aligned_to_the_utc_epoch_whatever_the_start():
    a = bin_edges("2026-05-20T02:10:00+02:00", "2026-05-20T09:00:00Z", 4)  # 00:10 UTC
    assert [e.strftime("%d %H:%M") for e in a] == ["20 00:00", "20 04:00", "20 08:00", "20 12:00"]
    b = bin_edges("2026-05-20T07:59:00Z", "2026-05-20T08:00:00Z", 4)
    assert b[0] == a[1] and b[-1] == a[3]  # the same grid, so Q2 and Q3 bins line up
    with pytest.raises(ValueError, match="bin_hours"):
        bin_edges("2026-05-20", "2026-05-21", 0)


def test_assign_bins_half_open_and_out_of_range():
    edges = bin_edges("2026-05-20T00:00Z", "2026-05-20T05:00Z", 4)
    t = pd.Series(
        pd.to_datetime(["2026-05-20T03:59:59Z", "2026-05-20T04:00:00Z", None, "2026-05-21T00:00:00Z"], utc=True)
    )
    assert assign_bins(t.dt.as_unit("us"), edges).tolist() == [0, 1, -1, -1]


def rollouts(n_bins=10, per_bin=150, seed=0):
    """tool_error_rate falls and drives success; think_tokens falls but is inert; code fences are noise."""
    rng = np.random.default_rng(seed)
    rows = []
    t0 = pd.Timestamp("2026-05-20T00:00Z")
    for b in range(n_bins):
        frac = b / (n_bins - 1)
        for i in range(per_bin):
            err = np.clip(rng.normal(0.45 - 0.3 * frac, 0.12), 0, 1)
            think = rng.normal(400 - 200 * frac, 60)
            ok = rng.random() < 0.9 - 1.2 * err
            infra = rng.random() < 0.05
            rows.append(
                {
                    "date": t0 + pd.Timedelta(hours=4 * b, seconds=int(rng.integers(0, 14400))),
                    "task_id": f"t{i % 30}",
                    "reward": None if infra else float(ok),
                    "error_type": "DaytonaError" if infra else None,
                    "is_infra_error": infra,
                    "tool_error_rate": err,
                    "think_tokens": think,
                    "code_fence_blocks": float(rng.poisson(2)),
                }
            )
    return pd.DataFrame(rows)


def test_bin_rollouts_mean_reward_drops_infra_and_has_wilson_ci_and_a_secondary_share():
    df = rollouts(n_bins=3, per_bin=50)
    bins, info, dated, edges = bin_rollouts(df, 4)
    first = df[df["date"] < edges[1]]
    k = int((first["reward"].fillna(0) > 0).sum())
    n = int((~first["is_infra_error"]).sum())
    assert bins.loc[0, "n"] == 50 and bins.loc[0, "n_counted"] == n
    assert bins.loc[0, "mean_reward"] == pytest.approx(k / n)  # binary rewards: mean = share
    assert bins.loc[0, "mean_reward_ci"] == "wilson"
    assert (bins.loc[0, "mean_reward_lo"], bins.loc[0, "mean_reward_hi"]) == pytest.approx(wilson_interval(k, n))
    assert bins.loc[0, "share_reward_gt0"] == pytest.approx(k / n)
    assert (bins.loc[0, "share_reward_gt0_lo"], bins.loc[0, "share_reward_gt0_hi"]) == pytest.approx(
        wilson_interval(k, n)
    )
    assert "reward_rate" not in bins.columns  # the ambiguous name is gone
    assert "infrastructure errors" in info["reward_definition"] and len(dated) == 150


def graded_rollouts():
    """Non-binary rewards, agent errors (count 0) and infra errors (dropped) in three 4 h bins."""
    t0 = pd.Timestamp("2026-05-20T01:00Z")
    rows = []
    for h, rewards in enumerate([[0.25, 0.5, None], [1.0, 0.0, 0.75, None], [0.5, 0.5]]):
        for j, r in enumerate(rewards):
            rows.append(
                {
                    "date": t0 + pd.Timedelta(hours=4 * h, minutes=j),
                    "task_id": f"t{j}",
                    "reward": r,
                    "error_type": "AgentTimeoutError" if r is None else None,
                    "is_infra_error": False,
                }
            )
        rows.append(
            {
                "date": t0 + pd.Timedelta(hours=4 * h),
                "task_id": "tx",
                "reward": 1.0,
                "error_type": "DaytonaError",
                "is_infra_error": True,
            }
        )
    return pd.DataFrame(rows)


def test_q2_bin_table_and_q3_overlay_rl_line_agree_exactly_on_the_same_rollouts():
    from rl_assets.analysis.q3.overlay import rl_line

    for df in (graded_rollouts(), rollouts(n_bins=4, per_bin=40)):
        bins, _, _, _ = bin_rollouts(df, 4)
        line = rl_line(df, 4)
        assert [p["mean_reward"] for p in line["points"]] == bins["mean_reward"].tolist()
        assert [p["mean_reward_ci"] for p in line["points"]] == bins[
            ["mean_reward_lo", "mean_reward_hi"]
        ].values.tolist()
        assert [p["n"] for p in line["points"]] == bins["n_counted"].tolist()
    bins, _, _, _ = bin_rollouts(graded_rollouts(), 4)
    # errors count 0, infra dropped: (0.25 + 0.5 + 0) / 3, (1 + 0 + 0.75 + 0) / 4, (0.5 + 0.5) / 2
    assert bins["mean_reward"].tolist() == pytest.approx([0.25, 0.4375, 0.5])
    assert bins["share_reward_gt0"].tolist() == pytest.approx([2 / 3, 0.5, 1.0])  # secondary column differs
    assert bins["mean_reward_ci"].tolist() == ["t", "t", "t"]


def test_reward_summary_t_interval():
    from rl_assets.analysis.q2.temporal import reward_summary

    x = [0.25, 0.5, 0.0, 0.75]
    out = reward_summary(x)
    half = 3.182446 * np.std(x, ddof=1) / 2  # t(0.975, df=3), textbook table
    assert out["ci_method"] == "t" and out["mean"] == pytest.approx(0.375)
    assert (out["lo"], out["hi"]) == pytest.approx((0.375 - half, 0.375 + half), abs=1e-6)
    assert reward_summary([0.0, 1.0, 1.0])["ci_method"] == "wilson"
    assert np.isnan(reward_summary([0.5])["lo"]) and reward_summary([])["n"] == 0


def test_attribution_names_the_driving_feature_not_the_noise_or_the_co_trend():
    df = rollouts()
    bins, _, dated, _ = bin_rollouts(df, 4)
    out = attribute(bins, ["tool_error_rate", "think_tokens", "code_fence_blocks"], rollouts=dated, n_boot=500)
    feats = {f["feature"]: f for f in out["features"]}
    assert out["status"] == "ok" and out["reward_rising"]
    assert out["top_features"] == ["tool_error_rate"]
    assert feats["tool_error_rate"]["rho"] < -0.8 and feats["tool_error_rate"]["role"] == "candidate driver"
    assert not feats["code_fence_blocks"]["moves_with_reward"]
    assert feats["think_tokens"]["role"] == "co-trends with reward over time only"
    assert "think_tokens" in out["format_length_flag"]  # it coincides with the rise, so it is flagged


def test_attribution_says_not_enough_data_below_five_bins():
    df = rollouts(n_bins=4, per_bin=20)
    bins, _, dated, _ = bin_rollouts(df, 4)
    out = attribute(bins, ["tool_error_rate"], rollouts=dated)
    assert out["status"] == "not enough data" and "needs >= 5" in out["reason"] and out["top_features"] == []


def test_steps_per_bin_joins_training_steps_by_wall_clock():
    edges = bin_edges("2026-05-20T00:00Z", "2026-05-20T07:00Z", 4)
    steps = pd.DataFrame(
        {
            "step": [1, 2, 3],
            "reward": [0.1, 0.2, 0.4],
            "step_time_utc": pd.to_datetime(["2026-05-20T01:00Z", "2026-05-20T03:00Z", "2026-05-20T05:00Z"], utc=True),
        }
    )
    out = steps_per_bin(steps, edges)
    assert out.loc[0, ["first_step", "last_step"]].tolist() == [1, 2] and out.loc[1, "log_reward"] == 0.4


def test_rank_correlations_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert np.isnan(spearman([1, 1, 1], [1, 2, 3]))

"""Q2 RL rollouts over time: `rl_traces` (the RL rollout dataset, normalized) and `rl_temporal`
(UTC-binned mean reward and behaviour, joined to training steps, plus attribution) under
`<reports>/<slug>/Q2_rl_temporal/`."""


import dagster as dg
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from resources.hub import HubResource  # noqa: E402
from resources.settings_resource import AnalysisSettings  # noqa: E402
from rl_assets.analysis.figures import figure_png, markdown_image  # noqa: E402
from rl_assets.analysis.q2.attribution import attribute, summary_lines  # noqa: E402
from rl_assets.analysis.stats import spearman  # noqa: E402
from rl_assets.analysis.report_md import fmt_ci, fmt_num, fmt_pct, jsonable, md_table  # noqa: E402
from rl_assets.analysis.q2.temporal import REWARD_DEFINITION, SHARE_DEFINITION, bin_rollouts, steps_per_bin  # noqa: E402
from rl_assets.assets.q2_training import not_applicable, write_not_applicable  # noqa: E402
from rl_assets.assets.traces import accounted_check, accounted_check_spec, ingest_to_table  # noqa: E402
from rl_assets.fileutil import atomic_write_bytes, atomic_write_json, atomic_write_text  # noqa: E402
from rl_assets.partitions import models_partitions  # noqa: E402
from rl_assets.schema import FEATURE_COLUMNS, LIGHT_COLUMNS  # noqa: E402
from rl_assets import store  # noqa: E402
from rl_assets.store import report_dir  # noqa: E402

REPORT = "Q2_rl_temporal"


@dg.asset(
    partitions_def=models_partitions,
    group_name="q2",
    kinds={"parquet", "huggingface"},
    ins={"checkpoint": dg.AssetIn()},
    retry_policy=dg.RetryPolicy(max_retries=2, delay=5, backoff=dg.Backoff.EXPONENTIAL),
    pool="hub",
    check_specs=[accounted_check_spec("rl_traces")],
)
def rl_traces(context: dg.AssetExecutionContext, hub: HubResource, settings: AnalysisSettings, checkpoint: dict):
    """The RL rollout-trace dataset (<org>/<job_name>) as a normalized trace table, or not applicable."""
    repo_id, dataset = checkpoint["repo_id"], checkpoint.get("rl_traces_dataset")
    if not dataset or not checkpoint.get("rl_traces_exists"):
        tried = checkpoint.get("rl_traces_candidates") or "no job_name"
        out = not_applicable(repo_id, f"not applicable: no RL rollout dataset for {repo_id} (tried {tried})")
        yield dg.Output(out, data_version=dg.DataVersion(f"none:{checkpoint['revision']}"),
                        metadata={"applicable": False, "reason": out["reason"]})
        yield accounted_check("rl_traces", {})
        return
    ref, metadata = ingest_to_table(context, hub, settings, dataset, "rl_traces", "rl")
    ref = {"applicable": True, "repo_id": repo_id, **ref}
    yield dg.Output(ref, data_version=dg.DataVersion(ref["data_version"]), metadata={"dataset": dataset, **metadata})
    yield accounted_check("rl_traces", ref["accounting"])


def _plot(bins: pd.DataFrame) -> bytes:
    feats = [f for f in ("tool_error_rate", "think_tokens", "assistant_tokens", "parse_error_markers") if f in bins]
    fig, axes = plt.subplots(1 + len(feats), 1, figsize=(8, 2.2 * (1 + len(feats))), sharex=True)
    axes = list(axes) if len(feats) else [axes]
    x = bins["start"]
    axes[0].plot(x, bins["mean_reward"], marker="o", label="rollout mean reward (errors 0, infra dropped)")
    axes[0].fill_between(x, bins["mean_reward_lo"], bins["mean_reward_hi"], alpha=0.25,
                         label="95% CI (Wilson if rewards are 0/1, else t)")
    axes[0].plot(x, bins["share_reward_gt0"], ls=":", lw=1, label="share with reward > 0 (secondary)")
    if "log_reward" in bins and bins["log_reward"].notna().any():
        axes[0].plot(x, bins["log_reward"], ls="--", label="trainer log reward (mean of steps in bin)")
    axes[0].legend(fontsize=7)
    axes[0].set_ylabel("reward")
    for ax, f in zip(axes[1:], feats):
        ax.plot(x, bins[f], marker=".")
        ax.set_ylabel(f, fontsize=7)
    axes[-1].set_xlabel("bin start (UTC)")
    fig.suptitle("RL rollouts over time (fixed UTC bins)")
    return figure_png(fig, dpi=100)


def render_markdown(rep: dict, bins: pd.DataFrame) -> str:
    rows = [[b["label"] + (" (partial)" if b["partial"] else ""), b["n"], b["n_infra"],
             f"{fmt_num(b['mean_reward'])} {fmt_ci(b['mean_reward_lo'], b['mean_reward_hi'])}",
             fmt_pct(b["share_reward_gt0"]), fmt_pct(b["error_rate"]),
             "—" if pd.isna(b.get("first_step")) else f"{int(b['first_step'])}–{int(b['last_step'])}"]
            for b in bins.to_dict("records")]
    att = rep["attribution"]
    feat_rows = [[f["feature"], fmt_num(f.get("rho"), 2), fmt_ci(*f["ci"], digits=2) if "ci" in f else "—",
                  fmt_num(f.get("rho_lag1"), 2), fmt_num(f.get("within_bin_r"), 3), f.get("role", f["status"])]
                 for f in att.get("features", [])]
    parts = ["# Q2 RL rollouts over time", "", f"Bins: {rep['bin_hours']} h, aligned to the UTC epoch. Headline: {REWARD_DEFINITION} "
             "(the same per-bin number as the Q3 overlay's RL line).", f"Secondary: {SHARE_DEFINITION}.",
             f"{rep['rows']} rollouts, {rep['undated_rows']} undated (not binned).", "",
             md_table(["bin (UTC)", "n", "infra", "mean reward [95% CI]", "share reward > 0", "error rate", "training steps"], rows), "",
             "## What moves with reward", "", *[f"- {line}" for line in summary_lines(att)], ""]
    if rep.get("log_vs_rollout_rho") is not None:
        parts += [f"Rollout mean reward vs trainer-log reward across bins: Spearman {fmt_num(rep['log_vs_rollout_rho'], 2)}.", ""]
    if feat_rows:
        parts += [md_table(["feature", "rho (bins)", "95% bootstrap CI", "rho lag-1", "within-bin r", "role"], feat_rows), ""]
    return "\n".join(parts)


@dg.asset(
    partitions_def=models_partitions,
    group_name="q2",
    kinds={"python", "pandas"},
    ins={"rl_traces": dg.AssetIn(), "training_metrics": dg.AssetIn()},
)
def rl_temporal(context: dg.AssetExecutionContext, settings: AnalysisSettings, rl_traces: dict, training_metrics: dict):
    """RL rollouts binned in UTC: mean reward (95% CI), share with reward > 0, errors, behaviour, training steps, attribution."""
    from rl_assets.ingest import read_traces

    out_dir = report_dir(context.partition_key) / REPORT
    if not rl_traces.get("applicable"):
        write_not_applicable(out_dir, rl_traces)
        return dg.Output(rl_traces, metadata={"applicable": False, "reason": rl_traces["reason"]})
    df = read_traces(rl_traces["path"], columns=LIGHT_COLUMNS).to_pandas()
    bins, info, rollouts, edges = bin_rollouts(df, settings.bin_hours)
    if edges is None:
        info = not_applicable(rl_traces["repo_id"], f"no dated rollouts in {rl_traces['source']} ({len(df)} rows)")
        write_not_applicable(out_dir, info)
        return dg.Output(info, metadata={"applicable": False, "reason": info["reason"]})
    if training_metrics.get("applicable"):
        if "steps_table" not in training_metrics:  # a value stored by an older rldelta named a report file
            raise dg.Failure(description="rl_temporal: the stored training_metrics value has no steps_table "
                             "(written by an older rldelta); re-materialize training_metrics")
        steps = store.read_table(training_metrics["steps_table"]).to_pandas()
        bins = bins.merge(steps_per_bin(steps, edges), on="bin", how="left")
    att = attribute(bins, FEATURE_COLUMNS, rollouts=rollouts, n_boot=settings.n_boot, seed=settings.seed)
    rep = {**info, "source": rl_traces["source"], "training_metrics_applicable": bool(training_metrics.get("applicable")),
           "attribution": att, "bins": bins.to_dict("records"),
           "log_vs_rollout_rho": spearman(bins["mean_reward"], bins["log_reward"]) if "log_reward" in bins else None}
    markdown = render_markdown(rep, bins)
    atomic_write_text(out_dir / "bins.csv", bins.to_csv(index=False))
    png = _plot(bins)
    atomic_write_bytes(out_dir / "temporal.png", png)
    atomic_write_text(out_dir / "report.md", markdown + "\n![temporal](temporal.png)\n")
    atomic_write_json(out_dir / "report.json", jsonable(rep))
    value = {"applicable": True, "n_bins": int(len(bins)), "edges": info["edges"],
             "top_features": att.get("top_features", []), "attribution_status": att.get("status")}
    return dg.Output(value, metadata={"summary": dg.MetadataValue.md(markdown), "n_bins": len(bins),
                                      "plot": dg.MetadataValue.md(markdown_image("RL rollouts over time", png)),
                                      "top_features": ", ".join(att.get("top_features", [])) or "none",
                                      "report": dg.MetadataValue.path(str(out_dir / "report.md"))})

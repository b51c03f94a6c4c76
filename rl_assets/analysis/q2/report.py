"""Q2's reports as content: training metrics (Q2_training_metrics/) and RL rollouts over time
(Q2_rl_temporal/). Pure: each function returns file name -> text or PNG bytes plus the markdown the
asset shows in the UI; nothing here writes a file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rl_assets.analysis.q2.attribution import summary_lines
from rl_assets.analysis.q2.log_plots import training_plots
from rl_assets.analysis.q2.temporal import REWARD_DEFINITION, SHARE_DEFINITION
from rl_assets.analysis.q2.training_metrics import ema
from rl_assets.analysis.render.figures import figure_png, pyplot
from rl_assets.analysis.render.report_md import Report, fmt_ci, fmt_num, fmt_pct, json_text, jsonable
from rl_assets.values.escape import md_table

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd


def not_applicable_files(info: dict[str, Any]) -> dict[str, str]:
    """report.{json,md} of a Q2 asset that does not apply to this model (the reason, in words)."""
    return {"report.json": json_text(jsonable(info)), "report.md": f"# Q2 training metrics\n\n{info['reason']}.\n"}


def unrecognised_files(message: str) -> dict[str, str]:
    """report.{json,md} when training_logs/ holds files no reader can read: an error, said as one."""
    from rl_assets.analysis.render.escape import md_text

    body = "\n\n".join(md_text(line) for line in message.splitlines())
    return {
        "report.json": json_text({"error": "unrecognised training logs", "detail": message}),
        "report.md": f"# Q2 training metrics\n\n**Error: no reader could read the training logs.**\n\n{body}\n",
    }


def training_report(rep: dict[str, Any], steps: pd.DataFrame, vllm: pd.DataFrame) -> Report:
    """Q2_training_metrics/: per-step CSVs, one PNG per plot, report.md (plots linked) and report.json.
    The summary is the report up to its per-category table."""
    files: dict[str, str | bytes] = {"metrics.csv": steps.to_csv(index=False)}
    if not vllm.empty:
        files["vllm_metrics.csv"] = vllm.to_csv(index=False)
    reward = steps[["step", "reward"]].dropna().sort_values("step")
    plots = training_plots(steps, ema(reward["reward"]))
    files.update(plots)
    markdown = render_markdown(rep)
    files["report.md"] = markdown + "\n" + "\n".join(f"![{n}]({n})" for n in plots) + "\n"
    files["report.json"] = json_text(jsonable(rep))
    return Report(files, markdown.split("## Per-category summary")[0], plots)


def temporal_report(rep: dict[str, Any], bins: pd.DataFrame) -> Report:
    """Q2_rl_temporal/: bins.csv, temporal.png, report.md (with the plot) and report.json."""
    markdown = temporal_markdown(rep, bins)
    png = temporal_png(bins)
    files: dict[str, str | bytes] = {
        "bins.csv": bins.to_csv(index=False),
        "temporal.png": png,
        "report.md": markdown + "\n![temporal](temporal.png)\n",
        "report.json": json_text(jsonable(rep)),
    }
    return Report(files, markdown, {"temporal.png": png})


def temporal_png(bins: pd.DataFrame) -> bytes:
    plt = pyplot()
    feats = [f for f in ("tool_error_rate", "think_tokens", "assistant_tokens", "parse_error_markers") if f in bins]
    fig, axes = plt.subplots(1 + len(feats), 1, figsize=(8, 2.2 * (1 + len(feats))), sharex=True)
    axes = list(axes) if len(feats) else [axes]
    x = bins["start"]
    axes[0].plot(x, bins["mean_reward"], marker="o", label="rollout mean reward (errors 0, infra dropped)")
    axes[0].fill_between(
        x,
        bins["mean_reward_lo"],
        bins["mean_reward_hi"],
        alpha=0.25,
        label="95% CI (Wilson if rewards are 0/1, else t)",
    )
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


def temporal_markdown(rep: dict[str, Any], bins: pd.DataFrame) -> str:
    import pandas as pd

    rows = [
        [
            b["label"] + (" (partial)" if b["partial"] else ""),
            b["n"],
            b["n_infra"],
            f"{fmt_num(b['mean_reward'])} {fmt_ci(b['mean_reward_lo'], b['mean_reward_hi'])}",
            fmt_pct(b["share_reward_gt0"]),
            fmt_pct(b["error_rate"]),
            "—" if pd.isna(b.get("first_step")) else f"{int(b['first_step'])}–{int(b['last_step'])}",
        ]
        for b in bins.to_dict("records")
    ]
    att = rep["attribution"]
    feat_rows = [
        [
            f["feature"],
            fmt_num(f.get("rho"), 2),
            fmt_ci(f["ci"][0], f["ci"][1], digits=2) if "ci" in f else "—",
            fmt_num(f.get("rho_lag1"), 2),
            fmt_num(f.get("within_bin_r"), 3),
            f.get("role", f["status"]),
        ]
        for f in att.get("features", [])
    ]
    parts = [
        "# Q2 RL rollouts over time",
        "",
        f"Bins: {rep['bin_hours']} h, aligned to the UTC epoch. Headline: {REWARD_DEFINITION} "
        "(the same per-bin number as the Q3 overlay's RL line).",
        f"Secondary: {SHARE_DEFINITION}.",
        f"{rep['rows']} rollouts, {rep['undated_rows']} undated (not binned).",
        "",
        md_table(
            ["bin (UTC)", "n", "infra", "mean reward [95% CI]", "share reward > 0", "error rate", "training steps"],
            rows,
        ),
        "",
        "## What moves with reward",
        "",
        *[f"- {line}" for line in summary_lines(att)],
        "",
    ]
    if rep.get("log_vs_rollout_rho") is not None:
        parts += [
            f"Rollout mean reward vs trainer-log reward across bins: Spearman {fmt_num(rep['log_vs_rollout_rho'], 2)}.",
            "",
        ]
    if feat_rows:
        parts += [
            md_table(["feature", "rho (bins)", "95% bootstrap CI", "rho lag-1", "within-bin r", "role"], feat_rows),
            "",
        ]
    return "\n".join(parts)


def ledger_markdown(acc: dict[str, Any]) -> list[str]:
    """report.md lines for what the training-log ledger could not balance (a file read only in part,
    another trainer's files not read) and for non-finite values, named per metric."""
    from rl_assets.analysis.render.escape import md_code, md_text

    out = []
    failures = (acc.get("files") or {}).get("failures") or []
    if failures:
        out += ["**Not every input was accounted for** (the `every_input_accounted_for` check fails):", ""]
        out += [f"- {md_code(f['file'])}: {md_text(f['reason'])}" for f in failures]
        out.append("")
    non_finite = acc.get("non_finite") or {}
    if non_finite:
        out += [
            f"Non-finite values read (kept as read, never evidence of anything; an overflowing number reads as "
            f"inf) in {len(non_finite)} metric(s): "
            + "; ".join(
                f"{md_code(k)} " + ", ".join(f"{kind} ×{n}" for kind, n in sorted(kinds.items()))
                for k, kinds in list(non_finite.items())[:20]
            )
            + ("; …" if len(non_finite) > 20 else "")
            + ".",
            "",
        ]
    return out


def render_markdown(rep: dict[str, Any]) -> str:
    """report.md: headline, trends, best checkpoint, flags, timing, vLLM, categories."""
    from rl_assets.analysis.render.escape import md_text
    from rl_assets.analysis.render.report_md import first_of

    lines = [
        "# Q2 training metrics",
        "",
        f"{rep['n_steps']} training steps from {len(rep['files'])} file(s) "
        f"({', '.join(rep['serializations']) or 'no metric lines'}); "
        f"{rep['malformed']['count']} malformed/truncated line(s) counted; "
        f"{rep['duplicates']['count']} step(s) seen in more than one log (later log wins).",
        "",
        f"Trainer: **{md_text(rep.get('trainer', 'skyrl'))}** (its reader chosen by the files' content; "
        'docs/q2.md, "Readers").',
        "",
    ]
    lines += ledger_markdown(rep.get("accounting") or {})
    dropped = rep["malformed"].get("pairs_dropped") or {}
    if dropped:  # verl: a cut or unreadable key:value pair, its line's other pairs kept
        lines += [
            f"{sum(dropped.values())} key:value pair(s) dropped from otherwise parsed lines ("
            + first_of([f"{md_text(k)}: {v}" for k, v in sorted(dropped.items())])
            + ").",
            "",
        ]
    best = [
        c["best_model_checkpoint"]
        for c in rep.get("trainer_info", {}).get("checkpoints", [])
        if c.get("best_model_checkpoint")
    ]
    if best:  # the HF Trainer's own pick (by its metric_for_best_model), beside ours below
        lines += [
            f"The trainer's own best checkpoint (`best_model_checkpoint` of its newest state): {md_text(best[0])}.",
            "",
        ]
    if rep.get("cross_checks"):
        from rl_assets.analysis.q2.log_crosscheck import crosscheck_markdown

        lines += crosscheck_markdown(rep["cross_checks"])
    tr = rep["trends"]
    if tr:
        lines += [
            "## Trends",
            "",
            md_table(
                ["metric", "first decile", "last decile", "change", "Spearman vs step", "Kendall vs step"],
                [
                    [
                        md_text(m),
                        fmt_num(t.get("first_decile")),
                        fmt_num(t.get("last_decile")),
                        fmt_num(t.get("change")),
                        fmt_num(t.get("spearman_with_step"), 2),
                        fmt_num(t.get("kendall_with_step"), 2),
                    ]
                    for m, t in tr.items()
                ],
            ),
            "",
        ]
    bc = rep["best_checkpoint"]
    lines += ["## Best checkpoint (trailing EMA, alpha = 1/3)", ""]
    if bc.get("status") == "ok":
        lines.append(
            f"Step **{bc['best_step']}** (EMA {fmt_num(bc['best_ema'])}, reward {fmt_num(bc['reward_at_best'])}); "
            f"save_every = {bc['save_every']} ({bc['save_every_source']}); eligible: "
            f"{bc.get('eligibility', 'see report.json')} "
            "(the first save is never eligible)."
        )
    else:
        lines.append(f"No pick: {bc.get('status')}.")
    fl = rep["instability"]
    lines += [
        "",
        "## Training instability",
        "",
        f"Flagged steps (>= 2 signals): {fl['flagged_steps'][:30] or 'none'}; signal counts: "
        f"{fl.get('signal_counts', {})}.",
        "",
    ]
    if rep["timing"]:
        lines += [
            "## Step-time breakdown",
            "",
            md_table(
                ["timer", "parent", "steps", "mean s", "share of parent"],
                [
                    [
                        md_text(t["timer"]),
                        md_text(t["parent"] or "—"),
                        t["steps"],
                        fmt_num(t["mean_s"], 1),
                        fmt_pct(t["share_of_parent"]) if t["share_of_parent"] is not None else "—",
                    ]
                    for t in rep["timing"]
                ],
            ),
            "",
        ]
    v = rep["vllm"]
    lines += ["## vLLM", "", f"{v.get('total_samples', 0)} stat line(s), verdict: **{v.get('verdict')}**.", ""]
    if rep["categories"]:
        lines += [
            "## Per-category summary",
            "",
            md_table(
                ["category", "key", "count", "mean", "std", "min", "max", "last"],
                [
                    [
                        md_text(c["category"]),
                        md_text(c["key"]),
                        c["count"],
                        fmt_num(c["mean"]),
                        fmt_num(c["std"]),
                        fmt_num(c["min"]),
                        fmt_num(c["max"]),
                        fmt_num(c["last"]),
                    ]
                    for c in rep["categories"]
                ],
            ),
            "",
        ]
    return "\n".join(lines)

"""Q3's results: the trace-pairs page and the eval-over-RL-time overlay, as their assets emit them and INDEX.md
reads them back.

Both store a small summary (what INDEX.md and the UI need); what the report folder holds (the page, the plot)
is rendered once from the full result, which travels beside the stored value and is not stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from rl_assets.analysis.q3.overlay import REWARD_DEFINITION, build_overlay, eval_marker
from rl_assets.analysis.q3.pairs import MODE_RULES, build_pairs
from rl_assets.analysis.q3.report import overlay_report, pairs_report, selected_rows
from rl_assets.analysis.render.figures import markdown_image
from rl_assets.analysis.render.report_md import Report
from rl_assets.values.results import AnalysisResult, CheckVerdict, Markdown

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

PAGE = "pairs.html"
PLOT = "overlay.png"


@dataclass(frozen=True)
class TracePairs(AnalysisResult):
    """`trace_pairs`: the selected same-task pairs (task, why selected, where the sides diverge) and the page."""

    asset = "trace_pairs"
    report_folder = "Q3_trace_pairs"
    report_links = {"path": PAGE}
    summary_key = "selected"

    page: Report | None = None  # the rendered page (None when read back from the store)
    side_rows: tuple[int, int] = (0, 0)  # rows read per side, for the check

    def report(self) -> Report | None:
        return self.page

    def metadata(self) -> dict[str, Any]:
        mode = self.values["mode"]
        html = self.page.files[PAGE] if self.page is not None else ""
        return {
            "pairs": self.values["n_pairs"],
            "common_tasks": self.values["common_tasks"],
            "mode": f"{mode}: {MODE_RULES[mode]}",
            "size_bytes": len(html.encode() if isinstance(html, str) else html),
        }

    def checks(self) -> list[CheckVerdict]:
        common = self.values["common_tasks"]
        base, post = self.side_rows
        return [
            CheckVerdict(
                "has_common_tasks",
                passed=common > 0,
                metadata={"common_tasks": common, "baseline_rows": base, "post_rl_rows": post},
            )
        ]


def trace_pairs_result(
    base: pd.DataFrame,
    post: pd.DataFrame,
    conversations: dict[str, list[dict[str, Any]]],
    *,
    shown: dict[str, str],
    mode: str,
    top_n: int,
    seed: int,
    model: str,
    labels: tuple[str, str],
    revisions: tuple[str | None, str | None],
) -> TracePairs:
    """The pairs `mode` selects from two light trace frames (task_id = pairing key, `shown`: key -> the id a reader
    knows) with the shown attempts' `conversations`; `labels` name the two sources, `revisions` their revisions."""
    pairs = build_pairs(base, post, conversations, shown=shown, mode=mode, top_n=top_n, seed=seed)
    common = len(set(base["task_id"]) & set(post["task_id"]))
    page = pairs_report(pairs, model=model, mode=mode, seed=seed, labels=labels, common_tasks=common)
    stored = {
        "mode": mode,
        "n_pairs": len(pairs),
        "common_tasks": common,
        "pairs": selected_rows(pairs),
        "baseline_revision": revisions[0],
        "post_rl_revision": revisions[1],
    }
    return TracePairs(stored, page=page, side_rows=(len(base), len(post)))


@dataclass(frozen=True)
class TemporalOverlay(AnalysisResult):
    """`eval_temporal_overlay`: whether the RL line applies (and why not) and the overlay's notes; the full
    overlay (RL bins, eval markers) is in overlay.json."""

    asset = "eval_temporal_overlay"
    report_folder = "Q3_temporal_overlay"
    report_links = {"overlay_file": PLOT}
    summary_key = "markers"

    overlay: dict[str, Any] | None = None  # the full overlay (None when read back from the store)

    @cached_property
    def _rendered(self) -> Report | None:
        # rendered once: emit writes its files and the metadata shows its plot
        return None if self.overlay is None else overlay_report(self.overlay)

    def report(self) -> Report | None:
        return self._rendered

    def metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self._rendered is not None and self.overlay is not None:
            out["overlay"] = Markdown(markdown_image("temporal overlay", self._rendered.plots[PLOT]))
            out["rl_bins"] = len((self.overlay["rl"] or {}).get("points", []))
        return {
            **out,
            "rl_applicable": self.values["rl_applicable"],
            "reward_definition": REWARD_DEFINITION,
            "notes": "; ".join(self.values["notes"]) or "none",
        }

    def index_lines(self) -> list[str]:
        return [f"Q3 overlay: {n}" for n in self.values.get("notes", [])]


def overlay_result(
    baseline: pd.DataFrame,
    post_rl: pd.DataFrame,
    rl: pd.DataFrame | None,
    *,
    rl_reason: str | None,
    rl_source: str | None,
    sources: tuple[str | None, str | None],
    eval_pair: dict[str, Any],
    bin_hours: float,
    model: str,
) -> TemporalOverlay:
    """RL-time reward (`rl`: the RL rollouts, None with `rl_reason` when the model has none) per UTC bin with the
    baseline and post-RL evals placed at their times (`eval_pair`'s timestamps); `sources` name the two evals.
    The markers come first, so a model without RL rollouts still gets them."""
    markers = [
        eval_marker(
            baseline, label="baseline", kind="baseline", source=sources[0], timestamp=eval_pair.get("baseline_eval_ts")
        ),
        eval_marker(
            post_rl, label="post-RL", kind="post_rl", source=sources[1], timestamp=eval_pair.get("post_rl_eval_ts")
        ),
    ]
    overlay = build_overlay(rl, rl_reason, markers, bin_hours)
    overlay.update(model=model, rl_source=rl_source, benchmark=eval_pair.get("benchmark"))
    stored = {"rl_applicable": rl is not None, "rl_reason": rl_reason, "notes": overlay["notes"]}
    return TemporalOverlay(stored, overlay=overlay)

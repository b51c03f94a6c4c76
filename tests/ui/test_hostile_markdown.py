"""Hostile strings (script tags, `</script>`, `javascript:` links, onerror, newlines, pipes,
backticks, headings) in task ids, families, model names and answers stay inert text in every
markdown the reports produce: parsed with markdown-it (raw HTML on, as GitHub-like renderers
allow) they add no heading, table, link or HTML; rendered in headless Chromium they run nothing."""

import json

import pytest
from markdown_it import MarkdownIt
from test_q3_browser import Cdp, find_chromium

from rl_assets.analysis.judge.report import render_markdown as judge_markdown
from rl_assets.analysis.q2.log_crosscheck import crosscheck_markdown
from rl_assets.analysis.q3.report import selected_table
from rl_assets.analysis.render.escape import html_text, md_code, md_text
from rl_assets.analysis.render.index_md import audit_findings, judge_findings, render_index
from rl_assets.ingest.report import accounting_markdown
from rl_assets.support.resolve import format_table
from rl_assets.values.escape import md_table

HOSTILE = [
    "<script>window.__xss=1</script>",
    '</script><img src=x onerror="window.__xss=2">',
    "[click](javascript:window.__xss=3)",
    "task\n# Injected heading\n| a | b |\n|---|---|\n| c | d |",
    "pipe | in | id",
    "``back`ticks`` and `code",
    "# heading id",
    '<b onmouseover="window.__xss=4">bold</b>',
    "1. list\n- item\n> quote",
    "org/x.__pwn__ and ~~struck~~",  # a valid model id whose underscores would open emphasis
]
MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def _tokens(text: str) -> list:
    out = []
    for tok in MD.parse(text):
        out.append(tok)
        out += tok.children or []
    return out


def _assert_inert(text: str, headings: int, where: str):
    toks = _tokens(text)
    kinds = [t.type for t in toks]
    assert not {"html_inline", "html_block", "link_open"} & set(kinds), (where, sorted(set(kinds)))
    assert kinds.count("heading_open") == headings, (where, kinds.count("heading_open"))
    if "__pwn__" in where:  # the delimiters survive as text: no emphasis or strike-through opened inside
        assert "__pwn__" in MD.render(text) and "~~struck~~" in MD.render(text), (where, MD.render(text))


@pytest.mark.parametrize("hostile", HOSTILE)
def test_one_rule_keeps_each_string_inline(hostile):
    for rendered in (
        f"- **{md_text(hostile)}**: x",
        f"## {md_text(hostile)}: y",
        f"Newly passing: {md_code(hostile)}, {md_code('ok')}",
    ):
        _assert_inert(rendered, rendered.startswith("##"), rendered)
        assert "table_open" not in [t.type for t in _tokens(rendered)]
    cell = f"| a | b |\n|---|---|\n| {md_text(hostile)} | {md_code(hostile)} |"
    rows = [t for t in _tokens(cell) if t.type == "tr_open"]
    assert len(rows) == 2 and [t.type for t in _tokens(cell)].count("td_open") == 2
    assert "<" not in html_text(hostile) and '"' not in html_text(hostile)


def _index(h: str) -> str:
    statuses = [
        {
            "asset": "behavioral_delta",
            "group": "q1",
            "status": "failed",
            "run_id": "abcdef123456",
            "timestamp": "t",
            "error": h,
            "links": [],
            "inputs": {},
        },
        {
            "asset": "judge_verdicts",
            "group": "q1",
            "status": "not applicable",
            "run_id": "abcdef123456",
            "timestamp": "t",
            "reason": h,
            "links": [],
            "inputs": {},
        },
    ]
    findings = audit_findings({"rows": [{"family": h, "label": h}]}) + judge_findings(
        {"judge": h, "probes": {h: {"post_rl_win_rate_decisive": {"share": 0.5, "wilson95": [0.1, 0.9], "count": 1}}}}
    )
    return render_index(f"org/{h}", "now", statuses, [], findings)


def _judge(h: str) -> str:
    pair = {
        "status": "judged",
        "behavior_delta_score": 1.0,
        "task": h,
        "probe": "most_changed",
        "winner": "post-rl",
        "order_flip": False,
        "tags": [h],
        "behavior_change": h,
    }
    return judge_markdown(
        {
            "model": h,
            "judge": h,
            "prompt_version": "v",
            "attempt_rule": "first",
            "seed": 0,
            "common_tasks": 1,
            "judgments_requested": 2,
            "judgments_failed": 1,
            "judgments_budget_refused": 0,
            "parse_failure_rate": 0.0,
            "probes": {},
            "pairs": [pair],
            "call_failures": {"requested": 2, "failed": 1, "all_failed": False, "reasons": {h: 1}},
        }
    )


def _tables(h: str) -> str:
    """Metadata tables with untrusted cells: Q3's selected pairs, an md_table cell escaped by md_text."""
    return (
        selected_table([{"task_id": h, "reason": h, "divergence_action": h}])
        + "\n\n"
        + md_table(["family", "n"], [[md_text(h), 1]])
    )


def _metadata(h: str) -> str:
    """Markdown built from registry, ingest and log input: eval_pair's table, the ingest accounting, the
    Q2 cross-check of a training log against an independent record."""
    row = {
        "benchmark_id": "b",
        "benchmark": h,
        "post_score": 0.5,
        "baseline_score": 0.25,
        "delta": 0.25,
        "post_traces": h,
        "baseline_traces": None,
    }
    pair = format_table({"benchmark_id": "b", "table": {"matched": [row], "post_only": [], "baseline_only": []}})
    acc = {
        "units": "rows",
        "found": 2,
        "written": 1,
        "skipped": {h: 1},
        "merged": {},
        "inputs_found": 1,
        "inputs_read": 1,
        "not_read": {},
        "inputs_merged": {},
        "examples": [h],
        "input_examples": [],
    }
    checks = [
        {
            "status": "compared",
            "source": h,
            "step": 1,
            "matched": 0,
            "compared": [h],
            "not_at_step": [h],
            "differ": [{"key": h, "table": 1, "record": 2, "hint": None}],
        },
        {"status": "no_independent_record", "reason": h},
    ]
    return pair + "\n\n" + accounting_markdown(acc) + "\n\n" + "\n".join(crosscheck_markdown(checks))


def _lineage(h: str) -> str:
    """lineage.md and the run_lineage UI summary (the same markdown) of a lineage whose benchmark, base
    model, eval sources, families, labels, judge and probe names are all hostile."""
    from rl_assets.analysis.lineage import build_lineage
    from rl_assets.analysis.lineage.report import render_markdown

    def row(family):
        return {
            "family": family,
            "label": h,
            "n_tasks": 40,
            "reward_before": 0.2,
            "reward_after": 0.6,
            "reward_gain": {"estimate": 0.4, "lo": 0.3, "hi": 0.5, "p": 0.0005},
            "format_gain": 0.0,
            "substance_gain": 0.0,
            "baselines": [],
        }

    stored = {}
    for step in (1, 2):
        repo = f"org/job-{step}-8B"
        stored[repo] = {
            "checkpoint": {"job_name": "job", "rl_config": {"global_step": step}},
            "eval_pair": {"benchmark": h, "base_model_name": h, "baseline_eval": h, "post_rl_eval": h},
            "behavioral_delta": {
                "n_boot": 200,
                "features": [],
                "before": {"solve_rate": {"rate": 0.2, "lo": 0.1, "hi": 0.3}},
                "after": {"solve_rate": {"rate": 0.3, "lo": 0.2, "hi": 0.4}},
                "sources": {"baseline": {"source": h}, "post-RL": {"source": h}},
            },
            "learning_audit": {"rows": [row(h), row("plain family")], "labels": {h: h, "plain family": h}},
            "judge_verdicts": {
                "judge": h,
                "probes": {
                    h: {
                        "post_rl_win_rate_decisive": {"share": 0.75, "wilson95": [0.6, 0.9]},
                        "judged": 30,
                        "win": {"post-rl": {"count": 21}},
                    }
                },
            },
        }
    r = build_lineage("job", stored, n_boot=200)
    r["excluded"].append({"repo_id": h, "step": None, "reason": h})
    # the report's own plot embeds carry no input: left out, so Chromium counts no <img>
    body = "\n".join(line for line in render_markdown(r, {}).splitlines() if not line.startswith("!["))
    return body + "\n\n" + "\n".join(f"- {line}" for line in r["summary"])


def _comparison(h: str) -> str:
    """comparison.md and the model_comparison UI summary with a hostile benchmark and model ids."""
    from rl_assets.analysis.compare.report import render, summary

    ranked = {
        "model_id": h,
        "n_common_tasks": 3,
        "baseline_rate": 0.5,
        "post_rate": 0.6,
        "delta": 0.1,
        "ci95": [0.0, 0.2],
        "noise_floor": 0.05,
        "mcnemar": {"p": 0.5},
        "significant": False,
        "above_noise_floor": True,
    }
    result = {
        "benchmark": {"name": h, "id": h},
        "ranking_rule": "by Δ",
        "ranked": [ranked],
        "not_enough_data": [{"model_id": h, "status": h}],
        "excluded": [{"model_id": h, "reason": h}],
    }
    return render(result) + "\n\n" + summary(result)


REPORTS = {
    "INDEX.md": (_index, 1 + 2),
    "Q1_llm_judge/report.md": (_judge, 1 + 2),
    "tables": (_tables, 0),
    "metadata": (_metadata, 0),
    "lineage.md": (_lineage, 0),
    "comparison.md": (_comparison, 0),
}  # the page's own headings


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_reports_add_no_markup_from_hostile_input(name):
    render, own = REPORTS[name]
    baseline = len([t for t in _tokens(render("plain")) if t.type == "heading_open"])
    for h in HOSTILE:
        _assert_inert(render(h), baseline, f"{name} with {h!r}")
        if name == "tables":  # each table keeps its one body row and its columns
            kinds = [t.type for t in _tokens(render(h))]
            assert kinds.count("tr_open") == 4 and kinds.count("td_open") == 3 + 2, (h, kinds.count("td_open"))
        if name == "metadata":  # eval_pair: header + 1 row of 6; accounting: header + 5 rows of 3
            kinds = [t.type for t in _tokens(render(h))]
            assert kinds.count("tr_open") == 2 + 6 and kinds.count("td_open") == 6 + 15, (h, kinds.count("td_open"))


def test_rendered_reports_run_no_script_in_chromium(tmp_path):
    binary = find_chromium()
    if not binary:
        pytest.skip("no Chromium found: run scripts/setup.d/30-chromium.sh")
    body = "\n".join(MD.render(render(h)) for render, _ in REPORTS.values() for h in HOSTILE)
    page = tmp_path / "reports.html"
    page.write_text(f"<!doctype html><html><body>{body}</body></html>", encoding="utf-8")
    cdp = Cdp(binary, tmp_path / "profile")
    try:
        cdp.open_page(page.as_uri())
        found = cdp.eval(
            "JSON.stringify({xss: typeof window.__xss, script: document.querySelectorAll('script').length,"
            " img: document.querySelectorAll('img').length, b: document.querySelectorAll('b[onmouseover]').length,"
            " js: [...document.querySelectorAll('a')].filter(a => a.href.startsWith('javascript')).length,"
            " text: document.body.textContent.includes('window.__xss=1')})"
        )
    finally:
        cdp.close()
    assert json.loads(found) == {"xss": "undefined", "script": 0, "img": 0, "b": 0, "js": 0, "text": True}


def test_a_long_key_list_in_the_cross_check_is_summarised():
    """A W&B summary with ~200 keys the log did not print at the step wrote all of them on one line."""
    keys = [f"timing/stage_{i:03d}" for i in range(200)]
    check = {"source": "wandb-summary.json", "step": 40, "status": "match", "matched": 3, "compared": ["a", "b", "c"]}
    check["differ"] = []
    (line,) = [ln for ln in crosscheck_markdown([{**check, "not_at_step": keys}]) if "not logged" in ln]
    assert line.count("timing/stage_") == 10 and line.endswith("… and 190 more.")
    (short,) = [ln for ln in crosscheck_markdown([{**check, "not_at_step": keys[:3]}]) if "not logged" in ln]
    assert short.count("timing/stage_") == 3 and "more" not in short

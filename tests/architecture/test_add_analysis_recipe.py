"""docs/contracts.md "Add a Q5", followed step by step in a throwaway copy of the packages: a question
folder with a pure analysis and its report, an asset module, one line in ANALYSES. The new asset
then lands in `analyze_model`, in INDEX.md's order and in its line's group, the layer rules hold, and
the same asset left out of the list is caught by the definitions test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from support.layer_rules import analysis_io, backward_imports

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parent

ANALYSIS = '''"""Q5 (throwaway): how many rows each side has."""


def row_counts(before, after) -> dict:
    return {"before": len(before), "after": len(after)}
'''
REPORT = '''"""Q5 (throwaway) report."""

from rl_assets.analysis.render.report_md import Report, json_text


def q5_report(result: dict) -> Report:
    summary = f"rows: {result['before']} -> {result['after']}"
    return Report(files={"q5.md": summary + "\\n", "q5.json": json_text(result)}, summary=summary, plots={})
'''
ASSET = '''"""`q5_rows` (throwaway Q5): row counts of both sides."""

import dagster as dg

from rl_assets.analysis.q5.report import q5_report
from rl_assets.analysis.q5.rows import row_counts
from rl_assets.partitions import models_partitions
from rl_assets.support.report_files import write_report
from rl_assets.values.handover import TraceTableRef


@dg.asset(partitions_def=models_partitions, kinds={"python"},
          ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()})
def q5_rows(context: dg.AssetExecutionContext, baseline_traces: TraceTableRef, post_rl_traces: TraceTableRef):
    """Rows per side."""
    from rl_assets.ingest import read_traces

    result = row_counts(read_traces(baseline_traces.path), read_traces(post_rl_traces.path))
    report = q5_report(result)
    write_report(context.partition_key, "Q5_rows", report.files)
    return dg.Output(result, metadata={"interpretation": dg.MetadataValue.md(report.summary)})
'''

PROBE = """
import json, sys
sys.path.insert(1, {tests!r})
from rl_assets.assets.report_index import analysis_steps
from rl_assets.definitions import ANALYSIS, defs
from test_definitions_snapshot import unlisted_analyses
job = defs.resolve_job_def("analyze_model")
graph = defs.resolve_asset_graph()
print(json.dumps({{
    "analyze_model": sorted(k.to_user_string() for k in job.asset_layer.selected_asset_keys),
    "index_order": [k.to_user_string() for k in analysis_steps(ANALYSIS)],
    "group": graph.get(__import__("dagster").AssetKey("q5_rows")).group_name
             if graph.has(__import__("dagster").AssetKey("q5_rows")) else None,
    "unlisted": unlisted_analyses(),
}}))
"""


def _copy(dest: Path) -> Path:
    for package in ("rl_assets", "resources", "sensors"):
        shutil.copytree(ROOT / package, dest / package, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _probe(copy: Path) -> dict:
    """What the copy's definitions say, from a fresh interpreter that imports the copy's packages."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(tests=str(TESTS))], cwd=copy, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _follow_steps_1_and_2(copy: Path) -> None:
    q5 = copy / "rl_assets" / "analysis" / "q5"
    q5.mkdir()
    (q5 / "__init__.py").write_text('"""Q5 (throwaway)."""\n')
    (q5 / "rows.py").write_text(ANALYSIS)
    (q5 / "report.py").write_text(REPORT)
    (copy / "rl_assets" / "assets" / "q5_rows.py").write_text(ASSET)


def _follow_step_3(copy: Path) -> None:
    listing = copy / "rl_assets" / "assets" / "__init__.py"
    text = listing.read_text()
    line = '    ("q4", (solve_rate_by_context_asset,)),\n'
    assert line in text, "the recipe's anchor line moved: update this test and docs/contracts.md"
    text = text.replace(line, line + '    ("q5", (q5_rows,)),\n')
    text = text.replace("\nANALYSES = (", "from rl_assets.assets.q5_rows import q5_rows\n\nANALYSES = (", 1)
    listing.write_text(text)


def test_the_recipe_lands_a_new_analysis_everywhere(tmp_path):
    copy = _copy(tmp_path / "repo")
    _follow_steps_1_and_2(copy)
    _follow_step_3(copy)

    assert not backward_imports(copy), sorted(backward_imports(copy))
    assert not analysis_io(copy), sorted(analysis_io(copy))
    seen = _probe(copy)
    assert "q5_rows" in seen["analyze_model"]
    order = seen["index_order"]
    assert order.index("solve_rate_by_context") < order.index("q5_rows") < order.index("learning_audit"), order
    assert seen["group"] == "q5"
    assert seen["unlisted"] == []


def test_a_new_analysis_left_out_of_the_list_is_caught(tmp_path):
    copy = _copy(tmp_path / "repo")
    _follow_steps_1_and_2(copy)  # step 3 forgotten

    seen = _probe(copy)
    assert "q5_rows" not in seen["analyze_model"] and "q5_rows" not in seen["index_order"]
    assert seen["unlisted"] == ["rl_assets.assets.q5_rows.q5_rows"]

"""docs/contracts.md "Add a Q5", followed step by step in a throwaway copy of the packages: the question's
package (its pure analysis and result type), an asset module (read + call + emit), one line in ANALYSES. The
new asset then lands in `analyze_model`, in INDEX.md's order and in its line's group, the layer rules hold,
a real materialization stores its value, writes its report, records its metadata and check, and INDEX.md
shows its finding; the same asset left out of the list is caught by the definitions test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.layer_rules import analysis_io, backward_imports

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parent

# Step 1: the question's package, rl_assets/analysis/q5/__init__.py.
ANALYSIS = '''"""Q5 (throwaway): how many rows each side has."""

from __future__ import annotations

from typing import Any

from rl_assets.analysis.render.report_md import Report, json_text
from rl_assets.values.results import AnalysisResult, CheckVerdict


class RowCounts(AnalysisResult):
    """`q5_rows`: rows per side."""

    asset = "q5_rows"
    report_folder = "Q5_rows"
    report_links = {"report": "q5.md"}

    def report(self) -> Report:
        summary = f"rows: {self.values['before']} -> {self.values['after']}"
        return Report(files={"q5.md": summary + "\\n", "q5.json": json_text(self.values)}, summary=summary, plots={})

    def metadata(self) -> dict[str, Any]:
        return {"n_before": self.values["before"], "n_after": self.values["after"]}

    def checks(self) -> list[CheckVerdict]:
        both = self.values["before"] > 0 and self.values["after"] > 0
        return [CheckVerdict("both_sides_have_rows", passed=both, warn=True)]

    def index_lines(self) -> list[str]:
        return [f"Q5 rows: {self.values['before']} → {self.values['after']}"]


def row_counts(before: Any, after: Any) -> RowCounts:
    return RowCounts({"before": len(before), "after": len(after)})
'''
# Step 2: the asset module, rl_assets/assets/q5_rows.py.
ASSET = '''"""`q5_rows` (throwaway Q5): row counts of both sides."""

import dagster as dg

from rl_assets.analysis.q5 import RowCounts, row_counts
from rl_assets.partitions import models_partitions
from rl_assets.support.emit import emit
from rl_assets.values.handover import TraceTableRef

ASSET = RowCounts.asset


@dg.asset(
    name=ASSET,
    partitions_def=models_partitions,
    kinds={"python"},
    ins={"baseline_traces": dg.AssetIn(), "post_rl_traces": dg.AssetIn()},
    check_specs=[dg.AssetCheckSpec("both_sides_have_rows", asset=ASSET, partitions_def=models_partitions)],
)
def q5_rows(context: dg.AssetExecutionContext, baseline_traces: TraceTableRef, post_rl_traces: TraceTableRef):
    """Rows per side."""
    from rl_assets.ingest import read_traces

    before = read_traces(baseline_traces.path, columns=["trace_id"])
    after = read_traces(post_rl_traces.path, columns=["trace_id"])
    yield from emit(context.partition_key, row_counts(before, after))
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


# A real run in the copy: stand-in trace tables, q5_rows through the IO manager, then INDEX.md.
MATERIALIZE = """
import json, sys
sys.path.insert(1, {support!r})
import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
from resources.io_manager import RlDeltaIOManager
from rl_assets.assets.q5_rows import q5_rows
from rl_assets.definitions import analysis_index
from rl_assets.schema import trace_schema
from rl_assets.store import report_dir, root
from rl_assets.values.handover import TraceTableRef
from support.dagster_run import materialize_partition, partition_instance

MODEL = "org/q5-model"
def table(name, n):
    root().mkdir(parents=True, exist_ok=True)  # in the store: a stored value names no other place
    path = root() / f"{{name}}.parquet"
    # only the column the throwaway Q5 reads: rows with their trace ids
    ids = pa.array([f"{{name}}-{{i}}" for i in range(n)])
    pq.write_table(pa.table([ids], schema=pa.schema([trace_schema().field("trace_id")])), path)
    return TraceTableRef(path=str(path), rows=n, source=f"local/{{name}}", revision="r1")

instance = partition_instance(MODEL)
run = materialize_partition(
    [q5_rows], MODEL, instance=instance, resources={{"io_manager": RlDeltaIOManager()}},
    stubs={{"baseline_traces": table("base", 3), "post_rl_traces": table("post", 4)}},
)
mat = run.asset_materializations_for_node("q5_rows")[0]
checks = run.get_asset_check_evaluations()
dg.materialize([analysis_index], instance=instance, partition_key=MODEL)
folder = report_dir(MODEL)
print(json.dumps({{
    "value": run.output_for_node("q5_rows"),
    "metadata": {{k: getattr(v, "value", v) for k, v in mat.metadata.items() if k in ("n_before", "n_after")}},
    "links": sorted(k for k, v in mat.metadata.items() if isinstance(v, dg.PathMetadataValue)),
    "checks": {{c.check_name: c.passed for c in checks}},
    "report": (folder / "Q5_rows" / "q5.md").read_text(),
    "index": (folder / "INDEX.md").read_text(),
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
    (q5 / "__init__.py").write_text(ANALYSIS)
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


def test_the_recipe_asset_runs_and_its_finding_reaches_the_index(tmp_path):
    copy = _copy(tmp_path / "repo")
    _follow_steps_1_and_2(copy)
    _follow_step_3(copy)

    env = {**os.environ, "RLDELTA_HOME": str(tmp_path / "home")}
    for var in ("RLDELTA_STORAGE", "RLDELTA_REPORTS", "RLDELTA_REPORTS_URL", "DAGSTER_HOME"):
        env.pop(var, None)
    done = subprocess.run(
        [sys.executable, "-c", MATERIALIZE.format(support=str(TESTS.parent))],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["value"] == {"before": 3, "after": 4}
    assert seen["metadata"] == {"n_before": 3, "n_after": 4}
    assert "report" in seen["links"]
    assert seen["checks"] == {"both_sides_have_rows": True}
    assert seen["report"] == "rows: 3 -> 4\n"
    assert "- Q5 rows: 3 → 4" in seen["index"], seen["index"]


def test_a_new_analysis_left_out_of_the_list_is_caught(tmp_path):
    copy = _copy(tmp_path / "repo")
    _follow_steps_1_and_2(copy)  # step 3 forgotten

    seen = _probe(copy)
    assert "q5_rows" not in seen["analyze_model"] and "q5_rows" not in seen["index_order"]
    assert seen["unlisted"] == ["rl_assets.assets.q5_rows.q5_rows"]

"""run_lineage loads a member's stored value only when the lineage reads it, and its output is the same
as from every value loaded up front (the demo lineage's files are compared byte for byte in
tests/demo/test_lineage_demo.py's run)."""

from __future__ import annotations

import json

import dagster as dg

from rl_assets.analysis.lineage import build_lineage
from rl_assets.analysis.lineage.report import render_markdown
from rl_assets.assets import ANALYSIS
from rl_assets.assets.run_lineage import MANIFEST, job_checkpoints, stored_assets
from support.dagster_run import partition_instance
from support.lineage_stored import audited_job


class CountingStore(dg.IOManager):
    """Values by (asset, partition) in memory, each load recorded; a value never stored is FileNotFoundError,
    as the project's IO manager says it."""

    def __init__(self, values: dict[str, dict]) -> None:
        self.values, self.loads = values, []

    def handle_output(self, context, obj) -> None:  # pragma: no cover - the lineage only reads
        raise AssertionError("the lineage never stores through the IO manager")

    def load_input(self, context):
        asset, model = context.asset_key.to_user_string(), context.partition_key
        self.loads.append((model, asset))
        if asset not in self.values.get(model, {}):
            raise FileNotFoundError(asset)
        return self.values[model][asset]


def test_only_the_values_the_lineage_reads_are_loaded_and_the_result_is_unchanged():
    values = audited_job()  # three audited, judged checkpoints of "job"
    values["org/other-1-8B"] = {MANIFEST: {"job_name": "another-job"}}  # another job's member: its manifest only
    store = CountingStore(values)
    instance = partition_instance(*values)
    assets = stored_assets(ANALYSIS)
    lazy = job_checkpoints(instance, store, "job", assets)
    assert sorted(lazy) == sorted(m for m in values if values[m][MANIFEST]["job_name"] == "job")

    result = build_lineage("job", lazy, n_boot=200)
    eager = {m: {MANIFEST: values[m][MANIFEST], **{a: values[m].get(a) for a in assets}} for m in lazy}
    expected = build_lineage("job", eager, n_boot=200)
    assert json.dumps(result, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert render_markdown(result, {}) == render_markdown(expected, {})

    for model, member in lazy.items():
        read = [a for m, a in store.loads if m == model]
        assert len(read) == len(set(read))  # each value loaded once however often it is read
        assert read[0] == MANIFEST and set(read[1:]) < set(assets)  # fewer than every asset of ANALYSES
        assert {"eval_pair", "behavioral_delta", "learning_audit", "judge_verdicts"} <= set(read)  # what it shows
        assert member.loaded() == read
    assert [a for m, a in store.loads if m == "org/other-1-8B"] == [MANIFEST]

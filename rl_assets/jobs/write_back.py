"""`write_back_failure_modes`: the ONLY path that pushes annotations to an eval dataset repo.

Pushes the table the latest `failure_modes` materialization of the model recorded (one file per
run: rl_assets/support/failure_modes_store.py). What the original push did wrong: docs/original_pipeline.md
W2, W18. Here every target repo's write permission is checked first (the annotation asset runs the same
preflight before any LLM spend when write-back is requested); if any repo is not writable nothing is
uploaded; the upload adds one file under ``annotations/`` and never re-uploads the dataset or touches its
visibility.
"""

import io

import dagster as dg

from resources.hub import HubResource
from rl_assets import store
from rl_assets.support.failure_modes_store import latest_table
from rl_assets.support.hub_write import require_writable

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)

PUSH_COLUMNS = ("trace_id", "task_id", "failure_mode", "failure_summary", "annotator", "prompt_version")


class WriteBackConfig(dg.Config):
    model_id: str  # the models partition whose failure_modes annotations to push
    path_in_repo: str = "annotations/failure_modes.parquet"
    allow_offline_labels: bool = False  # heuristic labels are not pushed to shared datasets unless asked
    commit_message: str = "Add failure-mode annotations (rldelta)"


@dg.op(description="Check write access to every target eval repo, then upload the annotations file.")
def push_failure_modes(context: dg.OpExecutionContext, config: WriteBackConfig, hub: HubResource) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = latest_table(context.instance, config.model_id)  # the table the latest materialization recorded
    if path is None:
        raise dg.Failure(description=f"no failure_modes table for {config.model_id}: materialize failure_modes first")
    context.log.info(f"pushing {path}")
    table = store.read_table(path)
    rows = [r for r in table.to_pylist() if r.get("failure_mode")]
    if not config.allow_offline_labels and any("offline" in str(r.get("annotator")) for r in rows):
        raise dg.Failure(
            description="annotations come from the offline heuristic (not an LLM); "
            "set allow_offline_labels to push them anyway"
        )
    by_repo: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("source_repo"):
            by_repo.setdefault(r["source_repo"], []).append(r)
    client = hub.client()
    checks = require_writable(client, sorted(by_repo))
    pushed = {}
    for repo, repo_rows in by_repo.items():
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pylist([{k: r.get(k) for k in PUSH_COLUMNS} for r in repo_rows]), buf)
        revision = client.upload_file(
            repo, config.path_in_repo, buf.getvalue(), repo_type="dataset", commit_message=config.commit_message
        )
        pushed[repo] = {"rows": len(repo_rows), "revision": revision}
        context.log.info(f"pushed {len(repo_rows)} annotations to {repo}:{config.path_in_repo}")
    return {"preflight": checks, "pushed": pushed}


@dg.job(description="Push failure-mode annotations to the eval dataset repos (permission-checked first).")
def write_back_failure_modes():
    push_failure_modes()


__all__ = ["write_back_failure_modes"]

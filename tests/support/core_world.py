"""The tiny hand-built world of the foundation-asset tests: a local hub folder and a SQLite registry
with one RL model, its base model and one eval dataset each (shared by test_core_assets,
test_services_assets and test_ingest_accounting, so every backend is judged on the same data)."""

import json
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from support.dagster_run import partition_instance

MODEL = "org/rl-7-8B"


def _rows(n_tasks, solved):
    rows = []
    for t in range(n_tasks):
        conv = [
            {"role": "user", "content": f"task {t}"},
            {
                "role": "assistant",
                "content": '<think>plan</think>\n<tool_call>\n{"name": "bash_command", "arguments": {"keystrokes": '
                '"ls\\n"}}\n</tool_call>',
            },
            {"role": "user", "content": "New Terminal Output:\nbash: foo: command not found"},
            {"role": "assistant", "content": "done"},
        ]
        rows.append(
            {
                "conversations": conv,
                "task": f"t{t}",
                "trial_name": f"t{t}__abc",
                "episode": "episode-1",
                "date": "2026-05-01T10:00:00Z",
                "result": "1.0" if t < solved else "0.0",
            }
        )
    return rows


def write_world(home: Path) -> None:
    """<home>/hub (the RL model repo, a base and a post-RL eval dataset of 6 rows each) and
    <home>/registry.sqlite (the two models, one benchmark, one Finished job per model)."""
    hub = home / "hub"
    model = hub / "models" / "org" / "rl-7-8B"
    model.mkdir(parents=True)
    (model / "model.safetensors").write_bytes(b"\0" * 8)
    (model / "rl_config.json").write_text(json.dumps({"job_name": "rl-7"}))
    for name, solved in (("evals-base", 2), ("evals-post", 5)):
        data = hub / "datasets" / "org" / name / "data"
        data.mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(_rows(6, solved)), data / "train-00000-of-00001.parquet")
    reg = SqlRegistry(f"sqlite:///{home / 'registry.sqlite'}")
    reg.create_all()
    t = datetime(2026, 5, 1, tzinfo=UTC)
    reg.insert("benchmarks", [{"id": "b1", "name": "tiny-bench"}])
    reg.insert(
        "models",
        [
            {"id": "base", "name": "org/base-8B", "training_end": t},
            {"id": "rl", "name": MODEL, "base_model_id": "base", "training_end": t.replace(day=3)},
        ],
    )
    link = "https://huggingface.co/datasets/org/{}"
    reg.insert(
        "sandbox_jobs",
        [
            {
                "id": "j1",
                "created_at": t,
                "ended_at": t,
                "model_id": "base",
                "benchmark_id": "b1",
                "job_status": "Finished",
                "metrics": {"accuracy": 2 / 6},
                "hf_traces_link": link.format("evals-base"),
            },
            {
                "id": "j2",
                "created_at": t,
                "ended_at": t.replace(day=4),
                "model_id": "rl",
                "benchmark_id": "b1",
                "job_status": "Finished",
                "metrics": [{"name": "accuracy", "value": 5 / 6}],
                "hf_traces_link": link.format("evals-post"),
            },
        ],
    )


def core_world(tmp_path: Path, monkeypatch) -> dg.DagsterInstance:
    """RLDELTA_HOME = <tmp_path>/home holding the world; an instance with its partitions (and one
    partition whose model does not exist)."""
    home = tmp_path / "home"
    monkeypatch.setenv("RLDELTA_HOME", str(home))
    write_world(home)
    return partition_instance(MODEL, "org/missing-8B")


RESOURCES = {
    "hub": HubResource(),
    "registry": RegistryResource(),
    "settings": AnalysisSettings(),
    "io_manager": RlDeltaIOManager(),
}

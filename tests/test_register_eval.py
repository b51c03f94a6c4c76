"""`rldelta register-eval` writes what the eval-pair resolver reads, in SQLite and in PostgreSQL: two
commands (base model's eval, RL model's eval) and the model's eval pair resolves to the user's own
traces, which then ingest like any other eval dataset."""

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from resources.hub import HubResource
from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import baseline_traces, post_rl_traces
from rl_assets.cli import main
from rl_assets.io_manager import RlDeltaIOManager

BASE, RL = "me/base-8B", "me/rl-step40-8B"


def _traces(folder, passes):
    rows = [{"conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}], "task": f"t{i}",
             "trial_name": f"t{i}__x", "date": "2026-05-01T00:00:00Z", "result": "1.0" if p else "0.0"}
            for i, p in enumerate(passes)]
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "train-00000-of-00001.parquet")
    return folder


@pytest.fixture(params=["sqlite", "postgresql"])
def registry_url(request, rldelta_home, monkeypatch):
    url = f"sqlite:///{rldelta_home / 'mine.sqlite'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    monkeypatch.setenv("RLDELTA_REGISTRY_URL", url)
    return url


def test_two_commands_give_a_model_an_eval_pair_on_the_users_own_traces(registry_url, rldelta_home, tmp_path, capsys,
                                                                        partition_instance):
    before, after = _traces(tmp_path / "before", [0, 1] * 5), _traces(tmp_path / "after", [1] * 9 + [0])
    assert main(["register-eval", BASE, "--benchmark", "my-bench", "--traces", str(before), "--score", "0.5",
                 "--started", "2026-05-01T10:00:00Z", "--ended", "2026-05-01T11:00:00Z"]) == 0
    assert main(["register-eval", RL, "--base-model", BASE, "--benchmark", "my-bench", "--traces", str(after),
                 "--score", "0.9", "--started", "2026-05-03T10:00:00Z"]) == 0
    assert f"{RL}, base model {BASE} on my-bench, Finished" in capsys.readouterr().out

    reg = SqlRegistry(registry_url)
    (rl_row,) = reg.models_by_name(RL)
    assert rl_row["base_model_id"] == reg.models_by_name(BASE)[0]["id"]
    (job,) = reg.jobs_for_model(rl_row["id"])
    assert (job["job_status"], job["hf_traces_link"], job["metrics"]) == ("Finished", str(after.resolve()), {"accuracy": 0.9})
    assert job["started_at"].isoformat().startswith("2026-05-03T10:00:00") and job["ended_at"] == job["started_at"]

    instance = partition_instance(RL)
    result = dg.materialize([eval_pair, baseline_traces, post_rl_traces], instance=instance, partition_key=RL,
                            resources={"registry": RegistryResource(), "settings": AnalysisSettings(), "hub": HubResource(),
                                       "io_manager": RlDeltaIOManager()})
    assert result.success
    pair = result.output_for_node("eval_pair")
    assert (pair["baseline_eval"], pair["post_rl_eval"], pair["benchmark"]) == (str(before.resolve()), str(after.resolve()), "my-bench")
    assert result.output_for_node("baseline_traces")["rows"] == 10 and result.output_for_node("post_rl_traces")["rows"] == 10


def test_bad_input_is_a_clear_error_and_writes_nothing(registry_url, tmp_path, capsys):
    assert main(["register-eval", RL, "--benchmark", "b", "--traces", str(tmp_path / "missing.jsonl")]) == 2
    assert "--traces" in capsys.readouterr().err
    assert main(["register-eval", RL, "--benchmark", "b", "--traces", "org/ds", "--status", "Done"]) == 2
    assert "--status 'Done'" in capsys.readouterr().err
    assert main(["register-eval", "not a repo id", "--benchmark", "b", "--traces", "org/ds"]) == 2
    assert main(["register-eval", RL, "--benchmark", "b", "--traces", "org/ds", "--started", "yesterday"]) == 2
    reg = SqlRegistry(registry_url)
    reg.create_all()
    assert reg.models_by_name(RL) == [] and reg.benchmarks() == []

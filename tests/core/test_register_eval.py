"""`rldelta register-eval` writes what the eval-pair resolver reads, in SQLite and in PostgreSQL: two
commands (base model's eval, RL model's eval) and the model's eval pair resolves to the user's own
traces, which then ingest like any other eval dataset."""

from datetime import UTC, datetime

import dagster as dg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.registry import RegistryResource, SqlRegistry
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import eval_traces
from rl_assets.cli import main

BASE, RL = "me/base-8B", "me/rl-step40-8B"


def _traces(folder, passes):
    rows = [
        {
            "conversations": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
            "task": f"t{i}",
            "trial_name": f"t{i}__x",
            "date": "2026-05-01T00:00:00Z",
            "result": "1.0" if p else "0.0",
        }
        for i, p in enumerate(passes)
    ]
    folder.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / "train-00000-of-00001.parquet")
    return folder


@pytest.fixture(params=["sqlite", "postgresql"])
def registry_url(request, rldelta_home, monkeypatch):
    url = (
        f"sqlite:///{rldelta_home / 'mine.sqlite'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    )
    monkeypatch.setenv("RLDELTA_REGISTRY_URL", url)
    return url


def test_two_commands_give_a_model_an_eval_pair_on_the_users_own_traces(
    registry_url, rldelta_home, tmp_path, capsys, partition_instance
):
    before, after = _traces(tmp_path / "before", [0, 1] * 5), _traces(tmp_path / "after", [1] * 9 + [0])
    assert (
        main(
            [
                "register-eval",
                BASE,
                "--benchmark",
                "my-bench",
                "--traces",
                str(before),
                "--score",
                "0.5",
                "--started",
                "2026-05-01T10:00:00Z",
                "--ended",
                "2026-05-01T11:00:00Z",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "register-eval",
                RL,
                "--base-model",
                BASE,
                "--benchmark",
                "my-bench",
                "--traces",
                str(after),
                "--score",
                "0.9",
                "--started",
                "2026-05-03T10:00:00Z",
            ]
        )
        == 0
    )
    assert f"{RL}, base model {BASE} on my-bench, Finished" in capsys.readouterr().out

    reg = SqlRegistry(registry_url)
    (rl_row,) = reg.models_by_name(RL)
    assert rl_row["base_model_id"] == reg.models_by_name(BASE)[0]["id"]
    (job,) = reg.jobs_for_model(rl_row["id"])
    assert (job["job_status"], job["hf_traces_link"], job["metrics"]) == (
        "Finished",
        str(after.resolve()),
        {"accuracy": 0.9},
    )
    assert job["started_at"].isoformat().startswith("2026-05-03T10:00:00") and job["ended_at"] == job["started_at"]

    instance = partition_instance(RL)
    result = dg.materialize(
        [eval_pair, eval_traces],
        instance=instance,
        partition_key=RL,
        resources={
            "registry": RegistryResource(),
            "settings": AnalysisSettings(),
            "hub": HubResource(),
            "io_manager": RlDeltaIOManager(),
        },
    )
    assert result.success
    pair = result.output_for_node("eval_pair")
    assert (pair["baseline_eval"], pair["post_rl_eval"], pair["benchmark"]) == (
        str(before.resolve()),
        str(after.resolve()),
        "my-bench",
    )
    assert result.asset_value("baseline_traces").rows == 10 and result.asset_value("post_rl_traces").rows == 10


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


def test_an_offset_is_kept_as_utc_and_the_same_eval_twice_is_one_row(registry_url, tmp_path, capsys):
    """Issue 25 item 11: 12:00+05:00 is 07:00 UTC in SQLite and PostgreSQL alike; re-registering is idempotent."""
    args = ["register-eval", BASE, "--benchmark", "b", "--traces", "org/ds", "--started", "2026-05-01T12:00:00+05:00"]
    assert main(args) == 0 and main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("registered eval") and "\nunchanged eval" in out
    reg = SqlRegistry(registry_url)
    (job,) = reg.jobs_for_model(reg.models_by_name(BASE)[0]["id"])
    assert job["started_at"].astimezone(UTC) == datetime(2026, 5, 1, 7, tzinfo=UTC)
    assert main([*args, "--score", "0.7"]) == 0  # the same eval, now scored: still one row
    (job,) = reg.jobs_for_model(reg.models_by_name(BASE)[0]["id"])
    assert job["metrics"] == {"accuracy": 0.7} and "updated eval" in capsys.readouterr().out


def test_a_refused_registration_leaves_no_row_and_bad_numbers_and_names_are_refused(registry_url, capsys):
    reg = SqlRegistry(registry_url)
    assert main(["register-eval", RL, "--benchmark", "b", "--traces", "org/ds"]) == 0  # RL registered without a base
    before = (len(reg.models_by_name(BASE)), len(reg.benchmarks()))
    # refused (RL exists without a base model): the new base model and benchmark must not be left behind
    assert main(["register-eval", RL, "--base-model", BASE, "--benchmark", "new-bench", "--traces", "org/ds"]) == 2
    assert (len(reg.models_by_name(BASE)), len(reg.benchmarks())) == before == (0, 1)
    for score in ("nan", "inf", "-inf"):
        assert main(["register-eval", BASE, "--benchmark", "b", "--traces", "org/ds", f"--score={score}"]) == 2
        assert "not a finite number" in capsys.readouterr().err
    assert main(["register-eval", "o" * 300 + "/m", "--benchmark", "b", "--traces", "org/ds"]) == 2
    assert "organisation is 300 characters, longer than 96" in capsys.readouterr().err
    assert reg.models_by_name(BASE) == []


def test_training_times_are_set_from_the_cli_and_list_evals_says_how_when_missing(registry_url, capsys):
    assert main(["register-eval", BASE, "--benchmark", "b", "--traces", "org/before"]) == 0
    assert main(["register-eval", RL, "--base-model", BASE, "--benchmark", "b", "--traces", "org/after"]) == 0
    assert main(["list-evals", RL]) == 0
    listed = capsys.readouterr().out
    assert "training_end is null" in listed and f"rldelta register-eval {RL}" in listed and "--training-end" in listed
    assert (
        main(
            [
                "register-eval",
                RL,
                "--base-model",
                BASE,
                "--benchmark",
                "b",
                "--traces",
                "org/after",
                "--training-start",
                "2026-04-01T00:00:00Z",
                "--training-end",
                "2026-04-20T06:00:00+02:00",
            ]
        )
        == 0
    )
    (row,) = SqlRegistry(registry_url).models_by_name(RL)
    assert row["training_end"].astimezone(UTC) == datetime(2026, 4, 20, 4, tzinfo=UTC)
    capsys.readouterr()
    assert main(["list-evals", RL]) == 0
    assert "training_end is null" not in capsys.readouterr().out
    assert (
        main(
            [
                "register-eval",
                RL,
                "--benchmark",
                "b",
                "--traces",
                "org/after",
                "--training-start",
                "2026-05-01T00:00:00Z",
                "--training-end",
                "2026-04-01T00:00:00Z",
            ]
        )
        == 2
    )


def _register(*extra):
    return main(["register-eval", RL, "--benchmark", "b", "--traces", "org/after", *extra])


@pytest.mark.parametrize(
    "flag", ["--started", "--ended", "--training-start", "--training-end"], ids=lambda f: f.strip("-")
)
def test_a_time_outside_the_calendar_in_utc_is_a_clear_error(registry_url, capsys, flag):
    """Year 1 at +14:00 is year 0 in UTC: it crashed with a raw OverflowError; now refused naming the value."""
    value = "0001-01-01T00:00:00+14:00"
    assert _register(flag, value) == 2
    err = capsys.readouterr().err
    assert f"{flag} {value!r}" in err and "Traceback" not in err
    assert SqlRegistry(registry_url).models_by_name(RL) == []


def test_an_eval_dated_before_its_models_training_is_refused(registry_url, capsys):
    start = ["--training-start", "2026-04-01T00:00:00Z"]
    assert _register(*start, "--started", "2026-03-01T00:00:00Z") == 2
    err = capsys.readouterr().err
    assert "--started 2026-03-01T00:00:00+00:00 is before the model's training start 2026-04-01T00:00:00+00:00" in err
    assert SqlRegistry(registry_url).models_by_name(RL) == []
    assert _register(*start, "--started", "2026-05-01T00:00:00Z") == 0
    # the stored training start holds for later registrations too
    assert _register("--traces", "org/other", "--started", "2026-03-01T00:00:00Z") == 2
    assert "before the model's training start" in capsys.readouterr().err


def test_an_end_before_the_stored_start_is_refused(registry_url, capsys):
    assert _register("--started", "2026-05-01T12:00:00Z", "--training-start", "2026-04-01T00:00:00Z") == 0
    capsys.readouterr()
    assert _register("--ended", "2026-05-01T11:00:00Z") == 2  # the same eval: its stored start is 12:00
    assert "--ended 2026-05-01T11:00:00+00:00 is before the eval's stored start 2026-05-01T12:00:00+00:00" in (
        capsys.readouterr().err
    )
    assert _register("--training-end", "2026-03-01T00:00:00Z") == 2  # the model's stored training start is 1 April
    assert "--training-end 2026-03-01T00:00:00+00:00 is before the model's stored training start" in (
        capsys.readouterr().err
    )
    reg = SqlRegistry(registry_url)
    (model,) = reg.models_by_name(RL)
    (job,) = reg.jobs_for_model(model["id"])
    assert model["training_end"] is None and job["ended_at"].astimezone(UTC) == datetime(2026, 5, 1, 12, tzinfo=UTC)


def test_concurrent_first_registrations_all_succeed_with_one_row_each(registry_url, tmp_path):
    """Six processes registering the same new model, benchmark and eval on a fresh registry at once: each
    one succeeds (no raw IntegrityError from a racing CREATE TABLE or benchmark insert) and the registry
    holds one model, one benchmark and one eval (no sibling rows from a racing read-then-insert)."""
    import os
    import subprocess
    import sys
    import time

    go = tmp_path / "go"
    script = (
        "import os, sys, time\n"
        "from rl_assets.cli import main\n"
        "from resources.registry import SqlRegistry\n"
        f"while not os.path.exists({str(go)!r}): time.sleep(0.01)\n"
        f"sys.exit(main(['register-eval', {RL!r}, '--base-model', {BASE!r}, '--benchmark', 'race-bench',"
        " '--traces', 'org/after', '--started', '2026-05-01T00:00:00Z']))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    time.sleep(8)  # every process has imported rldelta and waits at the starting line
    go.write_text("go")
    results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    failed = [err[-600:] for code, _, err in results if code != 0]
    assert not failed, f"{len(failed)} of 6 registrations failed: {failed}"
    assert sorted(out.split(" ", 1)[0] for _, out, _ in results) == ["registered"] + ["unchanged"] * 5
    reg = SqlRegistry(registry_url)
    (model,) = reg.models_by_name(RL)
    assert len(reg.models_by_name(BASE)) == 1 and [b["name"] for b in reg.benchmarks()] == ["race-bench"]
    assert len(reg.jobs_for_model(model["id"])) == 1

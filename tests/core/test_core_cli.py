"""The `rldelta` CLI as a user runs it."""

import os
import subprocess
import sys
from datetime import UTC, datetime

from resources.registry import SqlRegistry
from rl_assets.cli import main


def run_cli(args, home):
    env = {**os.environ, "RLDELTA_HOME": str(home), "DAGSTER_HOME": str(home / "dagster")}
    return subprocess.run(
        [sys.executable, "-m", "rl_assets.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_add_model_registers_and_refuses_bad_ids(tmp_path):
    ok = run_cli(["add-model", "laion/x-8B"], tmp_path)
    assert ok.returncode == 0 and "registered: laion/x-8B" in ok.stdout
    again = run_cli(["add-model", "laion/x-8B"], tmp_path)
    assert "already registered" in again.stdout
    for bad, rule in (("bad id", "spaces"), ("a/b..c", "'..'")):
        res = run_cli(["add-model", bad], tmp_path)
        assert res.returncode == 2
        assert bad in res.stderr and rule in res.stderr


def test_list_evals_prints_the_pair_table(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path))
    reg = SqlRegistry(f"sqlite:///{tmp_path / 'registry.sqlite'}")
    reg.create_all()
    t = datetime(2026, 5, 1, tzinfo=UTC)
    reg.insert("benchmarks", [{"id": "b1", "name": "swe-bench-mini"}])
    reg.insert(
        "models", [{"id": "base", "name": "o/base-8B"}, {"id": "rl", "name": "o/rl-8B", "base_model_id": "base"}]
    )
    reg.insert(
        "sandbox_jobs",
        [
            {
                "id": "a",
                "created_at": t,
                "model_id": "rl",
                "benchmark_id": "b1",
                "job_status": "Finished",
                "metrics": {"accuracy": 0.5},
                "hf_traces_link": "o/post",
            },
            {
                "id": "b",
                "created_at": t,
                "model_id": "base",
                "benchmark_id": "b1",
                "job_status": "Finished",
                "metrics": {"accuracy": 0.25},
                "hf_traces_link": "o/base",
            },
        ],
    )
    assert main(["list-evals", "o/rl-8B"]) == 0
    out = capsys.readouterr().out
    assert "swe-bench-mini" in out and "+0.2500" in out and "o/post" in out
    assert main(["list-evals", "o/unknown-8B"]) == 2
    assert "o/unknown-8B" in capsys.readouterr().err

"""The local instance enforces one run per model partition and caps Hub/LLM concurrency."""

import dagster as dg

from rl_assets.support.instance import ensure_instance_yaml


def test_instance_yaml_limits_runs_per_partition(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    path = ensure_instance_yaml(tmp_path)
    path.write_text(path.read_text())  # idempotent: a second call must not overwrite user edits
    path.write_text(path.read_text() + "# user edit\n")
    ensure_instance_yaml(tmp_path)
    assert path.read_text().endswith("# user edit\n")
    with dg.DagsterInstance.from_config(str(tmp_path)) as instance:
        config = instance.get_concurrency_config()
        limits = config.run_queue_config.tag_concurrency_limits
        assert {"key": "dagster/partition", "value": {"applyLimitPerUniqueValue": True}, "limit": 1} in limits
        assert config.pool_config.default_pool_limit == 4

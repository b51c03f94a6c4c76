"""Quiet by default: no Dagster beta warning from our own calls, a run's DEBUG events off the console
unless the instance's python_log_level is DEBUG, sensor-skip lines kept out of `make ui`'s console, metadata floats
rounded, and a pyproject `license` that setuptools takes without a deprecation box."""

import io
import sys
import tomllib
import warnings
from pathlib import Path

import dagster as dg

from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.assets.traces import eval_traces
from rl_assets.cli import ui
from rl_assets.support.console_log import instance_log_level
from rl_assets.support.instance import ensure_instance_yaml
from rl_assets.support.metadata_numbers import rounded_metadata
from support.core_world import MODEL, RESOURCES, core_world

ROOT = Path(__file__).resolve().parents[2]


def test_assets_that_set_data_versions_raise_no_beta_warning(tmp_path, monkeypatch):
    world = core_world(tmp_path, monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dg.materialize(
            [checkpoint, eval_pair, eval_traces],
            instance=world,
            partition_key=MODEL,
            resources=RESOURCES,
        )
    assert result.success
    beta = [str(w.message) for w in caught if issubclass(w.category, (dg.BetaWarning, dg.PreviewWarning))]
    assert not beta, beta
    # the data version still reaches the event log (what Output(data_version=…) was for)
    event = world.get_latest_materialization_event(dg.AssetKey("checkpoint"))
    assert (
        event.asset_materialization.tags["dagster/data_version"]
        == result.output_for_node("checkpoint")["checkpoint_fingerprint"]
    )


@dg.op
def _step(context):
    context.log.info("an info line")


@dg.job
def _tiny():
    _step()


def _console_of_a_run(home: Path, capfd) -> str:
    capfd.readouterr()
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert _tiny.execute_in_process(instance=instance).success
    return capfd.readouterr().err


def test_debug_events_stay_off_the_console_unless_asked(tmp_path, capfd):
    yaml_path = ensure_instance_yaml(tmp_path)
    assert instance_log_level(tmp_path) == "INFO"
    quiet = _console_of_a_run(tmp_path, capfd)
    assert "an info line" in quiet and "STEP_START" not in quiet, quiet
    yaml_path.write_text(yaml_path.read_text().replace("python_log_level: INFO", "python_log_level: DEBUG"))
    loud = _console_of_a_run(tmp_path, capfd)
    assert "STEP_START" in loud and "an info line" in loud
    assert instance_log_level(tmp_path) == "DEBUG"


def test_an_instance_written_before_gets_the_quiet_level_and_keeps_its_lines(tmp_path):
    old = "# my instance\ntelemetry:\n  enabled: false\n"
    (tmp_path / "dagster.yaml").write_text(old)
    ensure_instance_yaml(tmp_path)
    text = (tmp_path / "dagster.yaml").read_text()
    assert text.startswith(old) and instance_log_level(tmp_path) == "INFO"
    ensure_instance_yaml(tmp_path)
    assert (tmp_path / "dagster.yaml").read_text() == text  # once only


def test_make_ui_console_drops_sensor_skips_unless_debug(monkeypatch):
    lines = [
        b"2026-12-03 16:00:00 +0000 - dagster.daemon.SensorDaemon - INFO - Sensor index_after_success skipped: "
        b"not a per-model analysis run\n",
        b"2026-12-03 16:00:01 +0000 - dagster.daemon.SensorDaemon - INFO - No run requests returned for "
        b"checkpoint_sensor, skipping\n",
        b"2026-12-03 16:00:02 +0000 - dagster.daemon.SensorDaemon - INFO - Launched run abc for checkpoint_sensor\n",
    ]
    for level, kept in (("INFO", 1), ("DEBUG", 3)):
        out = io.BytesIO()
        monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(out))
        ui._relay(io.BytesIO(b"".join(lines)), level)
        assert out.getvalue().count(b"\n") == kept, (level, out.getvalue())
    assert b"Launched run abc" in out.getvalue()


# One tick of the daemon with nothing to do, as `dagster dev` prints it (the messages of dagster/_daemon/sensor.py
# and asset_daemon.py): with five sensors a tick is ten such lines, two thirds of the `make ui` console.
HEARTBEAT = [
    "dagster.daemon.SensorDaemon - INFO - Checking for new runs for sensor: checkpoint_sensor",
    "dagster.daemon.SensorDaemon - INFO - Sensor checkpoint_sensor skipped: no new checkpoints",
    "dagster.daemon.SensorDaemon - INFO - No run requests returned for lineage_reaction, skipping",
    "dagster.daemon.SensorDaemon - INFO - Skipping addition of partition keys for dynamic partitions definition"
    " 'models' that already exist: ['org/m']",
    "dagster.daemon.AssetDaemon - INFO - Checking 31 assets/checks and 0 observable source assets in thread x",
    "dagster.daemon.AssetDaemon - INFO - Tick produced 0 runs and 0 asset evaluations for evaluation ID 7",
    "dagster.daemon.AssetDaemon - INFO - Finished auto-materialization tick",
    "dagster.daemon.AssetDaemon - INFO - Prefetching asset records for 31 records.",
    "dagster.daemon.AssetDaemon - INFO - Done prefetching asset records.",
    "dagster.daemon.AssetDaemon - INFO - Submitting 0 runs for evaluation 7 for rldelta_automation",
]
NEWS = [
    "dagster.daemon.SensorDaemon - INFO - Launching run for checkpoint_sensor",
    "dagster.daemon.SensorDaemon - INFO - Added partition keys to dynamic partitions definition 'models': ['org/n']",
    "dagster.daemon.AssetDaemon - INFO - Tick produced 1 run and 2 asset evaluations for evaluation ID 8",
    "dagster.daemon.SensorDaemon - ERROR - Sensor checkpoint_sensor failed: boom",
]


def test_the_daemons_heartbeat_stays_off_the_console_unless_debug():
    from rl_assets.support.console_log import keep_console_line

    stamp = "2026-12-06 05:00:00 +0000 - "
    assert [line for line in HEARTBEAT if keep_console_line(stamp + line, "INFO")] == []
    assert all(keep_console_line(stamp + line, "INFO") for line in NEWS)
    assert all(keep_console_line(stamp + line, "DEBUG") for line in HEARTBEAT)


def test_the_heartbeat_messages_are_the_installed_dagsters():
    """The lines above are the daemon's own wording: a Dagster that rewords them makes this fail, not the
    console silently fill up again."""
    from pathlib import Path

    import dagster

    root = Path(dagster.__file__).parent
    daemon = root / "_daemon"
    evaluator = root / "_core" / "definitions" / "declarative_automation" / "automation_condition_evaluator.py"
    source = (daemon / "sensor.py").read_text() + (daemon / "asset_daemon.py").read_text() + evaluator.read_text()
    for fragment in (
        "Checking for new runs for sensor: ",
        " skipped: ",
        ", skipping",
        "Skipping addition of partition keys for dynamic partitions definition",
        "observable source",
        "Tick produced",
        "Finished auto-materialization tick",
        "Prefetching asset records for ",
        "Done prefetching asset records.",
        "Submitting {len(run_requests)} run{'s' if len(run_requests) != 1 else ''} for evaluation",
    ):
        assert fragment in source, fragment


def test_metadata_floats_rounded_to_four_significant_digits():
    got = rounded_metadata(
        {
            "pp": dg.MetadataValue.float(100 * 0.09999999999999998),
            "p": 5.910882894255565e-12,
            "n": 7,
            "text": "0.30000000000000004",
            "nan": float("nan"),
        }
    )
    assert got["pp"].value == 10.0 and got["p"] == 5.911e-12 and got["n"] == 7
    assert got["text"] == "0.30000000000000004" and got["nan"] != got["nan"]


def test_license_is_an_spdx_string_with_a_setuptools_that_reads_it():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["license"] == "Apache-2.0"  # a table prints setuptools' deprecation box
    requires = [r for r in pyproject["build-system"]["requires"] if r.startswith("setuptools")]
    assert requires == ["setuptools>=77"], requires  # older setuptools reject the string form

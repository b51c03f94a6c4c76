"""failure_modes with zero rows: the stored table keeps its columns and the next run can read it."""

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from resources.hub import HubResource
from resources.llm import LLMResource
from rl_assets.assets.failure_modes import COLUMNS, _previous, failure_modes
from support.llm_server import materialize_with_traces

PID = "org/rl-model"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path / "home"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "RLDELTA_ANNOTATOR_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _materialize(tmp_path, **config):
    return materialize_with_traces(
        tmp_path,
        failure_modes,
        {"llm": LLMResource(), "hub": HubResource(local_root=str(tmp_path / "hub"))},
        {"ops": {"failure_modes": {"config": config}}},
        partition=PID,
        n_tasks=4,
    )


def test_zero_rows_then_a_second_run(tmp_path):
    first = _materialize(tmp_path, max_rows=0)
    assert first.success and first.output_for_node("failure_modes").rows == 0
    stored = pq.read_table(first.output_for_node("failure_modes").path)
    assert stored.num_rows == 0 and stored.schema.names == list(COLUMNS)  # every column, even with 0 rows
    second = _materialize(tmp_path)  # reads the previous (empty) output first
    assert second.success and second.output_for_node("failure_modes").rows > 0


def test_previous_tolerates_a_table_without_columns(tmp_path):
    path = tmp_path / "old.parquet"
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([]), buf)  # what an older release stored for a zero-row run: it must still load
    path.write_bytes(buf.getvalue())
    assert _previous(path) == {}

"""A credential in a registry traces link (`?token=…`) never reaches metadata, a stored value, a
failure message or `list-evals` output, and a URL is never taken for a local path (issue 25 item 8)."""

import json
import uuid
from datetime import UTC, datetime

import pytest

from resources.registry import SqlRegistry
from rl_assets.analysis.pairing.eval_resolution import ResolutionError, dataset_id_from_link
from rl_assets.cli import main
from rl_assets.cli.register_eval import RegisterError, traces_link
from rl_assets.ingest.report import IngestError
from rl_assets.ingest.spec import hub_dataset, resolve
from rl_assets.support.resolve import format_table, resolve_eval_pair
from rl_assets.values.masking import mask

SECRET = "hfsecretvalue0123456789"
BASE, RL = "me/base-8B", "me/rl-8B"


def _registry(tmp_path, post_link: str) -> SqlRegistry:
    """A base and an RL model, each with one Finished eval on one benchmark, as an eval team's tooling writes them."""
    reg = SqlRegistry(f"sqlite:///{tmp_path / 'reg.sqlite'}")
    reg.create_all()
    now = datetime(2026, 5, 1, tzinfo=UTC)
    reg.insert(
        "models", [{"id": "b", "name": BASE, "creation_time": now}, {"id": "r", "name": RL, "base_model_id": "b"}]
    )
    reg.insert("benchmarks", [{"id": "bench", "name": "bench"}])
    reg.insert(
        "sandbox_jobs",
        [
            {
                "id": str(uuid.uuid4()),
                "created_at": now,
                "model_id": mid,
                "benchmark_id": "bench",
                "job_status": "Finished",
                "hf_traces_link": link,
                "metrics": {"accuracy": acc},
            }
            for mid, link, acc in (("b", "https://huggingface.co/datasets/org/before", 0.4), ("r", post_link, 0.6))
        ],
    )
    return reg


def test_a_token_in_a_registry_link_is_dropped_from_the_dataset_id_and_never_shown(tmp_path):
    reg = _registry(tmp_path, f"https://huggingface.co/datasets/org/after?token={SECRET}#x")
    resolved = resolve_eval_pair(reg, RL)
    assert resolved["post_rl_eval"] == "org/after"
    assert SECRET not in json.dumps(resolved, default=str)  # the stored value
    assert SECRET not in format_table(resolved)  # eval_pair's `pairs` metadata and list-evals


def test_list_evals_output_carries_no_token(tmp_path, monkeypatch, capsys, rldelta_home):
    monkeypatch.setenv(
        "RLDELTA_REGISTRY_URL", _registry(tmp_path, f"https://hub.example/datasets/org/after?hf_token={SECRET}").url
    )
    assert main(["list-evals", RL]) == 0
    out = capsys.readouterr().out
    assert "org/after" in out and SECRET not in out


def test_a_link_naming_no_dataset_is_a_masked_error_not_a_local_path(tmp_path):
    for link in (f"https://files.example/evals/after.jsonl?token={SECRET}", f"https://h.example/one?token={SECRET}"):
        with pytest.raises(ResolutionError) as info:
            dataset_id_from_link(link)
        assert SECRET not in str(info.value) and "names no Hub dataset" in str(info.value)
    reg = _registry(tmp_path, f"https://files.example/evals/after.jsonl?sig={SECRET}")
    with pytest.raises(ResolutionError) as info:
        resolve_eval_pair(reg, RL)
    assert SECRET not in str(info.value)


def test_a_url_spec_is_never_local_and_its_error_is_masked():
    spec = f"https://files.example/evals/after.jsonl?token={SECRET}"
    assert hub_dataset(spec) is None
    with pytest.raises(IngestError) as info:
        resolve(spec, hub=None)
    assert "neither an existing path nor a Hub dataset id" in str(info.value) and SECRET not in str(info.value)


def test_register_eval_stores_the_dataset_id_of_a_url_never_its_token():
    assert traces_link(f"https://huggingface.co/datasets/org/after?token={SECRET}") == "org/after"
    with pytest.raises(RegisterError) as info:
        traces_link(f"https://files.example/x.parquet?token={SECRET}")
    assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    "url",
    [
        f"https://s3.example/b/k?X-Amz-Signature={SECRET}",
        f"https://h/x?hf_token={SECRET}",
        f"https://h/x?access-token={SECRET}&page=2",
        f"https://h/x?Auth={SECRET}",
    ],
)
def test_one_masking_rule_for_token_like_query_parameters(url):
    assert SECRET not in mask(url) and "***" in mask(url)


def test_a_url_given_as_a_trace_source_is_refused_before_any_local_lookup():
    from rl_assets.support.trace_tables import source_key

    with pytest.raises(IngestError, match="is a URL") as info:
        source_key(
            None,
            f"https://files.example/evals/after.jsonl?token={SECRET}",
            max_rows=None,
            tokenizer=None,
            benchmark=None,
        )
    assert SECRET not in str(info.value)


def test_eval_pair_metadata_and_stored_value_carry_no_token(tmp_path, monkeypatch, rldelta_home, partition_instance):
    import dagster as dg

    from resources.io_manager import RlDeltaIOManager
    from resources.registry import RegistryResource
    from resources.settings_resource import AnalysisSettings
    from rl_assets.assets.eval_pair import eval_pair

    monkeypatch.setenv(
        "RLDELTA_REGISTRY_URL", _registry(tmp_path, f"https://huggingface.co/datasets/org/after?token={SECRET}").url
    )
    instance = partition_instance(RL)
    result = dg.materialize(
        [eval_pair],
        instance=instance,
        partition_key=RL,
        resources={"registry": RegistryResource(), "settings": AnalysisSettings(), "io_manager": RlDeltaIOManager()},
    )
    assert result.success
    (mat,) = result.asset_materializations_for_node("eval_pair")
    assert SECRET not in json.dumps({k: str(v) for k, v in mat.metadata.items()})
    stored = mat.metadata["stored_at"].path
    assert SECRET not in open(stored).read() and "org/after" in open(stored).read()

"""Credentials pasted into endpoint URLs (HF_ENDPOINT, SUPABASE_URL, a PostgreSQL registry URL,
OPENAI_BASE_URL) never reach an error message, a step log, or the instance's run/event storage."""

import logging

import dagster as dg
import pytest
import test_core_assets as core

from resources.hub import HubResource
from resources.io_manager import RlDeltaIOManager
from resources.llm import LLMResource
from resources.registry import RegistryResource
from resources.settings_resource import AnalysisSettings
from rl_assets.assets.checkpoint import checkpoint
from rl_assets.assets.eval_pair import eval_pair
from rl_assets.values.masking import mask

HF_PASS, SB_PASS, PG_PASS, OA_PASS = "hfPASSinURL77", "sbPASSinURL88", "pgPASSinURL99", "oaPASSinURL66"


def _leaks(instance, run_ids, texts, home, secret) -> list[str]:
    """Where `secret` shows: the given texts, every event and run record, any file under home."""
    found = [t[:80] for t in texts if secret in t]
    for run_id in run_ids:
        found += [f"event: {str(e)[:80]}" for e in instance.all_logs(run_id) if secret in str(e)]
        run = instance.get_run_by_id(run_id)
        found += ["run record"] if secret in str(run) else []
    found += [str(p) for p in home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    return found


@pytest.fixture
def instance(rldelta_home, tmp_path, monkeypatch):
    core.world.__wrapped__(tmp_path, monkeypatch)  # hub folder and SQLite registry rows
    (rldelta_home / "dagster").mkdir()  # in the home folder: the file grep covers the event-log databases
    inst = dg.DagsterInstance.local_temp(tempdir=str(rldelta_home / "dagster"))
    inst.add_dynamic_partitions("models", ["org/absent-8B"])
    yield inst
    inst.dispose()


@pytest.fixture
def no_retry_waits(monkeypatch):
    """The retries still run (each is another chance to leak), without the real back-off sleeps:
    eval_pair's RetryPolicy (5 s, then 15 s) and postgrest's own GET retries (1, 2, 4 s)."""
    import postgrest._sync.request_builder as postgrest_sync

    monkeypatch.setattr(dg.RetryPolicy, "calculate_delay", lambda self, attempt_num: 0)
    monkeypatch.setattr(postgrest_sync, "get_retry_delay", lambda attempt_count: 0)


def _failure_messages(result) -> list[str]:
    return [
        e.event_specific_data.error.to_string()
        for e in result.all_events
        if e.event_type == dg.DagsterEventType.STEP_FAILURE
    ]


@pytest.mark.parametrize("which", ["hub", "supabase", "postgres"])
def test_url_credentials_masked_everywhere(
    which, instance, rldelta_home, hub_server, monkeypatch, capfd, caplog, no_retry_waits
):
    caplog.set_level(logging.DEBUG)
    host = hub_server.url.split("://", 1)[1]
    if which == "hub":
        secret = HF_PASS
        monkeypatch.setenv("HF_ENDPOINT", f"http://hfuser:{secret}@{host}")
        asset, resources = (
            checkpoint,
            {"hub": HubResource(backend="hf", timeout_s=5, max_retries=0), "settings": AnalysisSettings()},
        )
    else:
        secret = SB_PASS if which == "supabase" else PG_PASS
        if which == "supabase":  # nothing listens on port 9: the error names the (masked) URL
            monkeypatch.setenv("SUPABASE_URL", f"http://sbuser:{secret}@127.0.0.1:9")
            registry = RegistryResource(backend="supabase", supabase_key="k")
        else:
            monkeypatch.setenv("RLDELTA_REGISTRY_URL", f"postgresql://pguser:{secret}@127.0.0.1:9/registry")
            registry = RegistryResource(backend="sql")
        asset, resources = eval_pair, {"registry": registry, "settings": AnalysisSettings()}
    result = dg.materialize(
        [asset],
        instance=instance,
        partition_key="org/absent-8B",
        raise_on_error=False,
        resources={**resources, "io_manager": RlDeltaIOManager()},
    )
    assert not result.success
    retries = [e for e in result.all_events if e.event_type == dg.DagsterEventType.STEP_UP_FOR_RETRY]
    assert len(retries) == (0 if which == "hub" else 2), [e.event_type for e in result.all_events]
    messages = _failure_messages(result)
    assert messages and "***" in messages[0] or which == "postgres", messages
    out, err = capfd.readouterr()
    assert _leaks(instance, [result.run_id], [*messages, out, err, caplog.text], rldelta_home, secret) == []


def test_openai_base_url_credentials_masked(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    llm = LLMResource(base_url=f"http://oauser:{OA_PASS}@127.0.0.1:9/v1", api_key="k")
    assert OA_PASS not in str(llm.describe("judge")) and "127.0.0.1:9" in llm.describe("judge")["base_url"]


def test_one_rule_masks_every_credential_shape():
    text = (
        "http://u:p4ss@h/x postgresql://a:b@db/r https://h/api?token=abc123&x=1 Bearer abcdefghij "
        "hf_abcdefghijkl sk-abcdef-SECRET-0123wxyz eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeK"
    )
    out = mask(text)
    for secret in ("p4ss", "a:b", "abc123", "abcdefghij", "hf_abcdefghijkl", "SECRET", "SflKxwRJSMeK"):
        assert secret not in out, (secret, out)
    assert "https://h/api?token=***&x=1" in out and "http://***@h/x" in out
    assert mask("sk-abc...wxyz", ["sk-abcdef-SECRET-0123wxyz"]) == "***...***"

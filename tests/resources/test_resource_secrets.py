"""Run config of a resource merges with the environment's secrets, never replaces them (issue 25 item 12;
item 11: `list-evals` honours the Supabase key variables)."""

import dagster as dg

from resources.llm import OFFLINE_LABEL, default_llm_resource
from resources.registry import RegistryResource

KEY = "sk-testkey0123456789abcdef"


def test_a_run_config_of_only_timeout_keeps_the_api_key_from_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    seen = {}

    @dg.asset(required_resource_keys={"llm"})
    def probe(context):
        llm = context.resources.llm
        seen.update(
            timeout=llm.timeout_s, offline=llm.is_offline(), model=llm.model_for("judge"), key=llm.resolved_api_key()
        )

    result = dg.materialize(
        [probe],
        resources={"llm": default_llm_resource()},
        run_config={"resources": {"llm": {"config": {"timeout_s": 5.0}}}},
    )
    assert result.success
    assert seen["timeout"] == 5.0 and seen["key"] == KEY  # the key is still there: no placeholder
    assert seen["offline"] is False and seen["model"] != OFFLINE_LABEL  # no silent fall-back to the heuristic


def test_a_key_set_in_config_wins_and_offline_still_forces_the_heuristic(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    from resources.llm import LLMResource

    assert LLMResource(api_key="sk-fromconfig0123456789").resolved_api_key() == "sk-fromconfig0123456789"
    assert LLMResource(offline=True).is_offline() and not LLMResource().is_offline()
    monkeypatch.delenv("OPENAI_API_KEY")
    assert LLMResource().is_offline()


def test_the_registry_reads_the_supabase_key_variables_when_none_is_configured(monkeypatch):
    monkeypatch.setenv("SUPABASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("SUPABASE_SERVICE_ROLE_KEY", "eyJhbGciOi.eyJyb2xlIjoi.c2lnbmF0dXJl")
    client = RegistryResource().client()  # what `rldelta list-evals` builds
    assert type(client).__name__ == "SupabaseRegistry"

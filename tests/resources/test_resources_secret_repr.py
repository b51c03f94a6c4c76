"""HubResource / RegistryResource never show their secret in repr() or str(), and still work."""

import dagster as dg

from resources.hub import HubResource, LocalHub
from resources.registry import RegistryResource, SqlRegistry


def test_hub_repr_masks_the_token(tmp_path):
    hub = HubResource(local_root=str(tmp_path / "hub"), token="hf_SECRET")
    for text in (repr(hub), str(hub)):
        assert "hf_SECRET" not in text and "token='***'" in text
    assert hub.token == "hf_SECRET"  # only the display is masked
    assert "token=None" in repr(HubResource())
    assert isinstance(hub.client(), LocalHub) and not hub.client().repo_exists("org/none")


def test_registry_repr_masks_the_key(tmp_path):
    reg = RegistryResource(url=f"sqlite:///{tmp_path / 'r.sqlite'}", supabase_key="sb_SECRET")
    for text in (repr(reg), str(reg)):
        assert "sb_SECRET" not in text and "supabase_key='***'" in text
    assert reg.supabase_key == "sb_SECRET"
    client = reg.client()
    assert isinstance(client, SqlRegistry) and client.models_by_name("org/none") == []


def test_resolved_resources_in_a_run_do_not_show_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_TOKEN_TEST", "hf_FROM_ENV")
    monkeypatch.setenv("SB_KEY_TEST", "sb_FROM_ENV")
    seen = {}

    @dg.asset(required_resource_keys={"hub", "registry"})
    def probe(context):
        seen["hub"], seen["registry"] = context.resources.hub, context.resources.registry
        seen["text"] = repr(context.resources.hub) + repr(context.resources.registry)

    result = dg.materialize(
        [probe],
        resources={
            "hub": HubResource(local_root=str(tmp_path / "hub"), token=dg.EnvVar("HF_TOKEN_TEST")),
            "registry": RegistryResource(
                url=f"sqlite:///{tmp_path / 'r.sqlite'}", supabase_key=dg.EnvVar("SB_KEY_TEST")
            ),
        },
    )
    assert result.success
    assert seen["hub"].token == "hf_FROM_ENV" and seen["registry"].supabase_key == "sb_FROM_ENV"
    assert "hf_FROM_ENV" not in seen["text"] and "sb_FROM_ENV" not in seen["text"]

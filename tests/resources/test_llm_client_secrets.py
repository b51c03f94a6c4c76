"""The API key never shows in a session's repr nor, partially masked, in a scrubbed error message."""

from resources.llm import LLMResource
from resources.llm.client import LLMClient
from resources.llm.costs import Budget

KEY = "sk-abcdef-SECRET-0123wxyz"


def test_session_repr_has_no_key_nor_sdk_client(monkeypatch, tmp_path):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    client = LLMResource(base_url="http://127.0.0.1:9/v1", api_key=KEY, cache_root=str(tmp_path / "llm")).session(
        "judge", "org/model"
    )
    assert KEY in client.secrets and client.openai_client is not None  # they are there ...
    text = repr(client)
    assert KEY not in text and "secrets=" not in text and "openai_client=" not in text  # ... but not shown
    assert "model=" in text


def _client(*secrets):
    return LLMClient(
        model="m",
        offline_mode=True,
        cache=None,
        ledger=None,
        budget=Budget(None, None),
        price=(0.0, 0.0),
        secrets=secrets,
    )


def test_scrub_removes_openai_style_masked_key():
    msg = (
        f"Error code: 401 - Incorrect API key provided: {KEY[:6]}...{KEY[-4:]} and "
        f"{KEY[:6]}*************{KEY[-4:]}; full {KEY}"
    )
    out = _client(KEY)._scrub(msg)
    assert KEY not in out and KEY[:6] not in out and KEY[-4:] not in out
    assert out.startswith("Error code: 401 - Incorrect API key provided: ***...***")


def test_short_keys_only_scrubbed_whole():
    out = _client("sk-short")._scrub("key sk-short, prefix sk-sho kept")
    assert out == "key ***, prefix sk-sho kept"

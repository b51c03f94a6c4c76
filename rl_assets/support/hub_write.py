"""Which Hub dataset repo a trace source names, and whether each target repo is writable.

Used by the `failure_modes` asset (its preflight, before any LLM spend, when write-back is asked
for) and by the `write_back_failure_modes` job (before any upload): it sits below both, so the
asset does not import the job (docs/contracts.md, "Layers").
"""

import re
from pathlib import Path

import dagster as dg

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


def repo_from_spec(spec: str | None) -> str | None:
    """The Hub dataset id behind a trace source spec (``hf:org/name@rev`` / ``org/name``), else None."""
    cand = str(spec or "").strip().removeprefix("hf:").split("@")[0]
    return cand if _HUB_ID.match(cand) and not Path(cand).exists() else None


def preflight(hub_client, repos: list[str]) -> list[dict]:
    """can_write for each repo -> [{repo, ok, reason}] (no upload, no spend)."""
    out = []
    for repo in dict.fromkeys(repos):
        try:
            ok, reason = hub_client.can_write(repo, repo_type="dataset")
        except Exception as exc:  # noqa: BLE001 - an unreachable hub is a "no", with the reason
            ok, reason = False, f"{type(exc).__name__}: {exc}"
        out.append({"repo": repo, "ok": bool(ok), "reason": reason})
    return out


def require_writable(hub_client, repos: list[str]) -> list[dict]:
    checks = preflight(hub_client, repos)
    denied = [c for c in checks if not c["ok"]]
    if not repos or denied:
        why = "; ".join(f"{c['repo']}: {c['reason']}" for c in denied) or "no Hub dataset repo behind the traces"
        raise dg.Failure(
            description=f"write-back refused before any spend or upload: {why}",
            metadata={"preflight": dg.MetadataValue.json(checks)},
        )
    return checks

"""A model repo's manifest as the `checkpoint` asset and the checkpoint sensor read it: revision,
weights, training_logs/, rl_config (JSON or SkyRL YAML), its job name and its RL-trace dataset.

Source layer: reads the hub through a HubBackend, returns a plain dict; no Dagster here.
"""

from __future__ import annotations

import json
import re

import yaml

from resources.hub.types import WEIGHT_SUFFIXES, HubBackend

CONFIG_FILES = ["README.md", "config.json", "rl_config.json", "rl_config.yaml", "rl_config.yml"]
_STEP_SIZE_SUFFIX = re.compile(r"-\d+-\d+(\.\d+)?[BbMm]$")


def find_job_name(repo_id: str, rl_config: dict | None, yaml_config: dict | None) -> tuple[str | None, str]:
    """job_name from rl_config.json, then the SkyRL YAML, then the repo name minus -<step>-<size>."""
    if rl_config and rl_config.get("job_name"):
        return str(rl_config["job_name"]), "rl_config.json job_name"
    if yaml_config:
        for path in (("job_name",), ("trainer", "run_name"), ("trainer", "project_name")):
            node: object = yaml_config
            for part in path:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, str) and node:
                return node, f"rl_config.yaml {'.'.join(path)}"
    name = repo_id.split("/", 1)[1]
    stripped = _STEP_SIZE_SUFFIX.sub("", name)
    if stripped != name:
        return stripped, "repo name without -<step>-<size>"
    return None, "no rl_config and no -<step>-<size> suffix to strip"


class BadRepoFile(ValueError):
    """A config file in the model repo cannot be read; the message names repo, file and revision."""


def _load_config(path, parse, repo_id: str, revision: str) -> dict:
    try:
        value = parse(path.read_text(errors="replace"))
    except (ValueError, yaml.YAMLError) as exc:
        raise BadRepoFile(f"{repo_id}@{revision[:12]}: {path.name} is not valid ({type(exc).__name__}: {exc})") from exc
    if not isinstance(value, dict):
        raise BadRepoFile(f"{repo_id}@{revision[:12]}: {path.name} must hold a mapping, found {type(value).__name__}")
    return value


def read_manifest(hub: HubBackend, repo_id: str, rl_traces_orgs: list[str]) -> dict:
    """Everything the preflight needs, read once (raises RepoNotFoundError naming the repo)."""
    info = hub.model_info(repo_id)
    present = [p for p in CONFIG_FILES if info.has(p)]
    rl_config: dict | None = None
    yaml_config: dict | None = None
    readme = None
    if present:  # none of the files: nothing to download
        folder = hub.download(repo_id, "model", allow_patterns=present, revision=info.revision)
        if "rl_config.json" in present:
            rl_config = _load_config(folder / "rl_config.json", json.loads, repo_id, info.revision)
        for name in ("rl_config.yaml", "rl_config.yml"):
            if name in present:
                yaml_config = _load_config(folder / name, yaml.safe_load, repo_id, info.revision)
        readme = (folder / "README.md").read_text(errors="replace") if "README.md" in present else None
    job_name, job_source = find_job_name(repo_id, rl_config, yaml_config)

    candidates = [f"{org}/{job_name}" for org in [*rl_traces_orgs, repo_id.split("/")[0]]] if job_name else []
    existing = [c for c in dict.fromkeys(candidates) if hub.repo_exists(c, "dataset")]
    logs = info.files_under("training_logs")
    return {
        "repo_id": repo_id,
        "revision": info.revision,
        # The checkpoint's own version: everything but training_logs/, so a logs-only upload is
        # a new version of `training_logs`, not of the checkpoint (and does not re-run Q1).
        "checkpoint_fingerprint": info.revision_excluding("training_logs"),
        "last_modified": info.last_modified.isoformat() if info.last_modified else None,
        "n_files": len(info.files),
        "weights_files": [p for p in info.paths if p.endswith(WEIGHT_SUFFIXES)],
        "has_weights": info.has_weights,
        "has_readme": readme is not None,
        "has_training_logs": bool(logs),
        "training_logs_files": [f.path for f in logs],
        "training_logs_revision": info.subtree_revision("training_logs"),
        "rl_config": rl_config if rl_config is not None else yaml_config,
        "job_name": job_name,
        "job_name_source": job_source,
        "rl_traces_candidates": candidates,
        "rl_traces_dataset": existing[0] if existing else None,
        "rl_traces_exists": bool(existing),
    }

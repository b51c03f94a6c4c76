"""Names, ids and the fixed calendar of the demo world (nothing here reads the clock)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

ORG = "rldelta-demo"
BASE = f"{ORG}/base-8B"
ALPHA = f"{ORG}/rl-alpha-20-8B"
BETA = f"{ORG}/rl-beta-40-8B"
UPLOADING = f"{ORG}/upload-in-progress-8B"
RL_MODELS = (ALPHA, BETA)
ALPHA_TRACES = f"{ORG}/rl-alpha"  # RL rollout dataset; rl-beta deliberately has none
JOB_NAMES = {ALPHA: "rl-alpha", BETA: "rl-beta"}

TBM = "terminal-bench-mini"  # agentic, binary reward, hyphenated name
RG = "rg-six-families"  # reasoning-gym, partial credit
BENCHMARKS = (TBM, RG)

AGENT = "terminus-2"
PROVIDER = "hosted_vllm"
USERNAME = "demo-bot"

# A uuid5 namespace so registry ids are stable across builds and machines.
_NS = uuid.UUID("5f1f6c9e-2b43-4c1e-9a51-7d3b1f0e2a10")


def uid(*parts: str) -> str:
    return str(uuid.uuid5(_NS, "/".join(parts)))


AGENT_ID = uid("agent", AGENT)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


# Calendar: base trained in April, rl-alpha's RL ran ~24 h from ALPHA_START, rl-beta later.
BASE_TRAIN_START = utc(2026, 4, 1, 0, 0)
BASE_TRAIN_END = utc(2026, 4, 20, 12, 0)
ALPHA_START = utc(2026, 5, 20, 2, 0)
BETA_START = utc(2026, 5, 23, 0, 0)
EVAL_DAY = {BASE: utc(2026, 4, 22, 9, 0), ALPHA: utc(2026, 5, 22, 9, 0), BETA: utc(2026, 5, 26, 9, 0)}


def iso_z(ts: datetime) -> str:
    """ISO with millisecond precision and a Z, the exported-row `date` shape."""
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


def repo_name(repo_id: str) -> str:
    return repo_id.split("/", 1)[1]


def eval_dataset(model: str, benchmark: str, suffix: str = "") -> str:
    return f"{ORG}/{repo_name(model)}-{benchmark}-traces{suffix}"


def hf_url(dataset_id: str) -> str:
    return f"https://huggingface.co/datasets/{dataset_id}"

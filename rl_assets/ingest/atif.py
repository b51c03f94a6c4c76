"""ATIF trajectories (Harbor RFC 0001, v1.0-v1.8) -> chat messages + recorded token facts.

Agent steps become assistant messages (reasoning_content kept, tool calls in OpenAI shape),
observation results become ``tool`` messages, system/user steps keep their role. Steps with
``is_copied_context`` keep a flag so features and peaks ignore them. Continuation files
(``continued_trajectory_ref``) are appended; subagent trajectories (embedded or referenced)
are not merged into the main trace.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from . import _json
from .features import text_of
from .plan import Candidate
from .report import IngestError, SkipLog
from .rows import first_str

_VERSION = re.compile(r"^(?:ATIF-)?v?1\.\d+$", re.IGNORECASE)
_SOURCES = {"system": "system", "user": "user", "agent": "assistant"}
MAX_CONTINUATIONS = 100


class AtifError(IngestError):
    """A trajectory that breaks the ATIF rules we rely on (names file and step)."""


def is_atif(data) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        return False
    version = data.get("schema_version")
    if isinstance(version, str):
        return bool(_VERSION.match(version.strip()))
    return version is None and isinstance(data.get("agent"), dict)


def describe_non_atif(data) -> str:
    """Say what a refused JSON file looks like (native agent logs the RFC maps to ATIF)."""
    if isinstance(data, dict) and "sessionId" in data and "messages" in data:
        what = "a native gemini-cli session log"
    elif isinstance(data, dict) and "info" in data and ("messages" in data or "trajectory" in data):
        what = "a native mini-swe-agent trajectory"
    elif isinstance(data, list) and data and isinstance(data[0], dict) and "source" in data[0]:
        what = "a native OpenHands event list"
    elif isinstance(data, dict) and "schema_version" in data:
        what = f"a file with unsupported schema_version {data.get('schema_version')!r}"
    else:
        what = "an unrecognized JSON document"
    return (f"not an ATIF trajectory ({what}); convert it to ATIF (Harbor RFC 0001) or export "
            "trace rows; also not exported rows, a Harbor result.json or a reasoning-gym eval file")


def load_trajectory(path: Path, data: dict | None = None) -> dict:
    """Parse a trajectory and its continuation chain. Returns messages, peak prompt tokens,
    summed completion tokens (None unless every counted agent step recorded them), agent."""
    if data is None:
        data = _read(path)
    messages: list[dict] = []
    peak = None
    completion, complete = 0, True
    seen = {path.resolve()}
    current, cur_path = data, path
    for _ in range(MAX_CONTINUATIONS):
        if not is_atif(current):
            raise AtifError(f"{cur_path}: not an ATIF trajectory")
        last_id = 0
        for k, step in enumerate(current["steps"]):
            where = f"{cur_path} step {k + 1}"
            if not isinstance(step, dict):
                raise AtifError(f"{where}: step is not an object")
            sid = step.get("step_id")
            if not isinstance(sid, int) or sid <= last_id:
                raise AtifError(f"{where}: step_id {sid!r} out of order (previous {last_id})")
            last_id = sid
            role = _SOURCES.get(step.get("source"))
            if role is None:
                raise AtifError(f"{where}: unknown source {step.get('source')!r}")
            copied = bool(step.get("is_copied_context"))
            msg = {"role": role, "content": text_of(step.get("message"))}
            if copied:
                msg["is_copied_context"] = True
            if role == "assistant":
                if step.get("reasoning_content"):
                    msg["reasoning_content"] = text_of(step["reasoning_content"])
                calls = step.get("tool_calls")
                if calls is not None:
                    msg["tool_calls"] = [_tool_call(c) for c in calls if isinstance(c, dict)]
                metrics = step.get("metrics") if isinstance(step.get("metrics"), dict) else {}
                if not copied:
                    pt, ct = metrics.get("prompt_tokens"), metrics.get("completion_tokens")
                    if isinstance(pt, int):
                        peak = pt if peak is None else max(peak, pt)
                    if isinstance(ct, int):
                        completion += ct
                    else:
                        complete = False
            messages.append(msg)
            obs = step.get("observation")
            for res in (obs.get("results") or []) if isinstance(obs, dict) else []:
                if not isinstance(res, dict):
                    continue
                tool = {"role": "tool", "content": text_of(res.get("content"))}
                if res.get("source_call_id"):
                    tool["tool_call_id"] = res["source_call_id"]
                if copied:
                    tool["is_copied_context"] = True
                messages.append(tool)
        ref = current.get("continued_trajectory_ref")
        if not ref:
            break
        nxt = (cur_path.parent / ref).resolve()
        if not nxt.exists() and cur_path.name.endswith("trajectory.json"):
            # renamed copies ("<case>.trajectory.json") keep the prefix on their continuations
            nxt = (cur_path.parent / (cur_path.name[: -len("trajectory.json")] + ref)).resolve()
        if nxt in seen:
            raise AtifError(f"{cur_path}: continued_trajectory_ref {ref!r} loops back")
        if not nxt.exists():
            raise AtifError(f"{cur_path}: continued_trajectory_ref {ref!r} not found")
        seen.add(nxt)
        current, cur_path = _read(nxt), nxt
    has_agent = any(m["role"] == "assistant" and not m.get("is_copied_context") for m in messages)
    agent = data.get("agent") if isinstance(data.get("agent"), dict) else {}
    return {
        "messages": messages,
        "peak_prompt_tokens": peak,
        "recorded_completion": completion if (complete and has_agent) else None,
        "agent": first_str(agent, "name"),
        "model": first_str(agent, "model_name"),
        "extra": data.get("extra") if isinstance(data.get("extra"), dict) else {},
    }


def _tool_call(call: dict) -> dict:
    return {"id": call.get("tool_call_id"), "type": "function",
            "function": {"name": call.get("function_name"), "arguments": call.get("arguments")}}


def _read(path: Path) -> dict:
    try:
        return _json.loads(path.read_bytes())
    except ValueError as exc:
        raise AtifError(f"{path}: not valid JSON: {exc}") from exc


class AtifFile:
    """A single trajectory file as a source: one row. Task id = root extra.task_name/task_id,
    else the file name before '.trajectory' (Harbor golden files are named after the task);
    a bare 'trajectory.json' has no task id and is skipped -- ingest its trial folder."""

    kind = "atif"

    def __init__(self, path: Path, data: dict) -> None:
        self.path, self.data = path, data

    def units(self) -> list:
        return [self.path]

    def scan(self, unit, skips: SkipLog) -> Iterator[Candidate]:
        extra = self.data.get("extra") if isinstance(self.data.get("extra"), dict) else {}
        stem = self.path.name.split(".trajectory", 1)[0].removesuffix(".json")
        task = first_str(extra, "task_name", "task_id", "task") or (None if stem == "trajectory" else stem)
        if task is None:
            skips.skip("missing task id", str(self.path))
            return
        yield Candidate(unit, 0, str(self.path), task, trial_name=self.path.name)

    def load(self, unit, wanted, skips: SkipLog):
        cand = wanted[0]
        try:
            traj = load_trajectory(self.path, self.data)
        except AtifError as exc:
            skips.skip("invalid ATIF trajectory", str(exc))
            return
        yield cand, {"_messages": traj["messages"], "peak_prompt_tokens": traj["peak_prompt_tokens"],
                     "_recorded_assistant_tokens": traj["recorded_completion"],
                     "agent": traj["agent"], "model": traj["model"]}

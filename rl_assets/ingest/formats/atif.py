"""ATIF trajectories (Harbor RFC 0001, v1.0-v1.8) -> chat messages + recorded token facts.

Agent steps become assistant messages (reasoning_content kept, tool calls in OpenAI shape),
observation results become ``tool`` messages, system/user steps keep their role. Steps with
``is_copied_context`` keep a flag so features and peaks ignore them. Continuation files
(``continued_trajectory_ref``) are appended; subagent trajectories (embedded or referenced)
are not merged into the main trace, only counted (``n_subagents``). ``final_metrics`` of the
chain (the last file that records a field wins: Harbor's last continuation holds the run's
totals) give the token and cost columns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from .. import _json
from ..features import text_of
from ..plan import Candidate
from ..report import IngestError, SkipLog
from ..rows import first_str, in_int64, to_count, to_float

_VERSION = re.compile(r"^(?:ATIF-)?v?1\.\d+$", re.IGNORECASE)
_SOURCES = {"system": "system", "user": "user", "agent": "assistant"}
MAX_CONTINUATIONS = 100
_CONTINUATION = re.compile(r"(?:^|\.)cont-\d+$")  # the <x> of trajectory.<x>.json for continuations
# final_metrics field -> trace column
FINAL_METRICS = {
    "total_prompt_tokens": "input_tokens",
    "total_completion_tokens": "output_tokens",
    "total_cached_tokens": "cached_tokens",
    "total_cost_usd": "cost_usd",
}


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
    return (
        f"not an ATIF trajectory ({what}); convert it to ATIF (Harbor RFC 0001) or export "
        "trace rows; also not exported rows, a Harbor result.json or a reasoning-gym eval file"
    )


def load_trajectory(path: Path, data: dict | None = None) -> dict:
    """Parse a trajectory and its continuation chain. Returns messages, peak prompt tokens,
    summed completion tokens (None unless every counted agent step recorded them), agent,
    the run totals of ``final_metrics`` (as trace columns) and the number of subagents."""
    if data is None:
        data = _read(path)
    messages: list[dict] = []
    peak = None
    completion, complete = 0, True
    seen = {path.resolve()}
    current, cur_path = data, path
    totals: dict = {}
    chain: list[dict] = []
    for _ in range(MAX_CONTINUATIONS):
        if not is_atif(current):
            raise AtifError(f"{cur_path}: not an ATIF trajectory")
        chain.append(current)
        totals.update(final_totals(current))
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
                    if isinstance(pt, int) and in_int64(pt) is not None:
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
        "totals": totals,
        "n_subagents": count_subagents(path, chain, seen),
    }


def final_totals(traj: dict) -> dict:
    """The recorded fields of one file's ``final_metrics`` as trace columns (absent = left out)."""
    fm = traj.get("final_metrics")
    out: dict = {}
    for key, col in FINAL_METRICS.items() if isinstance(fm, dict) else ():
        value = to_float(fm.get(key)) if col == "cost_usd" else to_count(fm.get(key))
        if value is not None:
            out[col] = value
    return out


def count_subagents(path: Path, chain: list[dict], chain_files: set[Path]) -> int:
    """Distinct subagent trajectories of a run: embedded ``subagent_trajectories`` (nested ones
    too) + ``subagent_trajectory_ref`` entries of any step (by file, else trajectory_id, else
    session_id; a ref to an embedded trajectory is not counted twice; a ref whose file is not
    here still counts: the subagent ran) + in a trial's ``agent/`` folder, sibling files
    ``trajectory.<x>.json`` that are not continuations (``cont-N``)."""
    embedded: list[dict] = []
    stack = [sub for t in chain for sub in _list(t.get("subagent_trajectories"))]
    while stack:
        sub = stack.pop()
        embedded.append(sub)
        stack.extend(_list(sub.get("subagent_trajectories")))
    emb_ids = {first_str(t, "trajectory_id") for t in embedded} - {None}
    emb_sessions = {first_str(t, "session_id") for t in embedded} - {None}
    base = path.parent
    prefix = path.name[: -len("trajectory.json")] if path.name.endswith("trajectory.json") else ""
    keys: set = set()
    anonymous = 0
    for traj in chain + embedded:
        for step in _list(traj.get("steps")):
            obs = step.get("observation")
            for res in _list(obs.get("results")) if isinstance(obs, dict) else ():
                for ref in _list(res.get("subagent_trajectory_ref")):
                    key = _ref_key(ref, base, prefix, emb_ids, emb_sessions)
                    if key == "anonymous":
                        anonymous += 1
                    elif key is not None:
                        keys.add(key)
    if path.name == "trajectory.json" and base.is_dir():
        # Harbor writes subagents beside the main file as trajectory.<x>.json; renamed copies
        # (<case>.trajectory.<x>.json) are not scanned: other variants of a case share that name.
        for f in base.iterdir():
            x = f.name[len("trajectory.") : -len(".json")] if f.name.startswith("trajectory.") else ""
            if x and f.name.endswith(".json") and not _CONTINUATION.search(x) and f.is_file():
                keys.add(("file", f.resolve()))
    keys -= {("file", p) for p in chain_files}
    return len(embedded) + len(keys) + anonymous


def _ref_key(ref, base: Path, prefix: str, emb_ids: set, emb_sessions: set):
    if not isinstance(ref, dict):
        return None
    target = first_str(ref, "trajectory_path")
    if target:
        if "://" not in target:
            for cand in (base / target, base / (prefix + target)):
                try:
                    if cand.is_file():
                        return ("file", cand.resolve())
                except OSError:
                    break
        return ("path", target)
    tid = first_str(ref, "trajectory_id")
    if tid:
        return None if tid in emb_ids else ("id", tid)
    sid = first_str(ref, "session_id")
    if sid:
        return None if sid in emb_sessions else ("session", sid)
    return "anonymous"


def _list(value) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _tool_call(call: dict) -> dict:
    return {
        "id": call.get("tool_call_id"),
        "type": "function",
        "function": {"name": call.get("function_name"), "arguments": call.get("arguments")},
    }


def _read(path: Path) -> dict:
    try:
        return _json.loads(path.read_bytes())
    except (ValueError, OSError) as exc:
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
        skips.find()  # the file is one unit
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
        except Exception as exc:  # a shape no rule anticipated: counted, naming the file
            skips.bad_row(exc, str(self.path))
            return
        yield (
            cand,
            {
                "_messages": traj["messages"],
                "peak_prompt_tokens": traj["peak_prompt_tokens"],
                "_recorded_assistant_tokens": traj["recorded_completion"],
                "agent": traj["agent"],
                "model": traj["model"],
                "n_subagents": traj["n_subagents"],
                **traj["totals"],
            },
        )

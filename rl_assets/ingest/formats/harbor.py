"""Harbor job / trial folders: trial result.json + agent/trajectory.json (ATIF) or legacy
agent/episode-N/{prompt,response}.txt, exception.txt, and the job-level result.json stats.
result.json also gives the phase timings and agent_result token counts / cost (ATIF
final_metrics fill the token fields result.json lacks)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from .. import _json
from ..plan import Candidate
from ..report import SkipLog
from ..rows import DATE_NOTE, date_or_flag, duration_s, first_str, to_count, to_float, to_int
from .atif import AtifError, load_trajectory
from .harbor_walk import NO_RESULT

# result.json phase -> trace column (each phase is {started_at, finished_at})
PHASES = {
    "environment_setup": "env_setup_s",
    "agent_setup": "agent_setup_s",
    "agent_execution": "agent_exec_s",
    "verifier": "verifier_s",
}
# agent_result field -> trace column
AGENT_RESULT = {
    "n_input_tokens": "input_tokens",
    "n_output_tokens": "output_tokens",
    "n_cache_tokens": "cached_tokens",
    "cost_usd": "cost_usd",
}
_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Timeout\w*))\b", re.MULTILINE)


class HarborTrials:
    """Trial folders found by harbor_walk.Discovery (any depth); one row per trial."""

    kind = "harbor"

    def __init__(self, root: Path, trials: list[Path]) -> None:
        self.root = root
        self.trials = trials
        self._job_stats: dict[Path, dict] = {}

    def units(self) -> list:
        return self.trials

    def scan(self, trial: Path, skips: SkipLog) -> Iterator[Candidate]:
        skips.find()  # one unit per trial folder, whatever its result.json holds
        where = str(trial / "result.json")
        if not (trial / "result.json").is_file():
            skips.skip(NO_RESULT, str(trial))
            return
        try:
            res = _json.loads((trial / "result.json").read_bytes())
        except (OSError, ValueError) as exc:
            skips.skip("unreadable result.json", f"{where} ({exc})")
            return
        if not isinstance(res, dict):
            skips.skip("result.json is not an object", where)
            return
        task = first_str(res, "task_name") or _task_from_id(res.get("task_id"))
        if task is None:
            skips.skip("missing task id", where)
            return
        date, bad_date = date_or_flag(res.get("started_at"))  # noted only if kept (plan)
        yield Candidate(
            trial,
            0,
            where,
            task,
            first_str(res, "trial_name") or trial.name,
            date=date,
            payload=res,
            notes=(DATE_NOTE,) if bad_date else (),
        )

    def fingerprints(self, trial: Path, wanted: set[int]) -> dict[int, str]:
        """Content of one trial (its result.json and trajectory) for telling repeats apart."""
        traj = trial / "agent" / "trajectory.json"
        try:
            body = traj.read_bytes() if traj.is_file() else b""
            res = (trial / "result.json").read_bytes()
        except OSError:
            return {}
        return {0: _json.fingerprint([res.decode("utf-8", "replace"), body.decode("utf-8", "replace")])}

    def load(self, trial: Path, wanted: dict[int, Candidate], skips: SkipLog) -> Iterator[tuple[Candidate, dict]]:
        cand = wanted[0]
        reading = cand.where  # the file being read: a failure names it, not the trial's result.json
        try:
            row = self._row(trial, cand, skips)
            traj_path = trial / "agent" / "trajectory.json"
            reading = str(traj_path if traj_path.is_file() else trial / "agent")
            if traj_path.is_file():
                try:
                    traj = load_trajectory(traj_path)
                except AtifError as exc:
                    skips.skip("invalid ATIF trajectory", str(exc))
                    return
                row.update(
                    _messages=traj["messages"],
                    peak_prompt_tokens=traj["peak_prompt_tokens"],
                    _recorded_assistant_tokens=traj["recorded_completion"],
                    n_subagents=traj["n_subagents"],
                )
                for col, value in traj["totals"].items():  # result.json wins; ATIF fills the gaps
                    if row.get(col) is None:
                        row[col] = value
                row["agent"] = row["agent"] or traj["agent"]
                row["model"] = row["model"] or traj["model"]
            else:
                row["_messages"] = _legacy_episodes(trial / "agent")
        except Exception as exc:  # this trial only; the source goes on
            skips.bad_row(exc, reading)
            return
        cand.where = reading  # featurizing the conversation may still fail: name its file
        yield cand, row

    def _row(self, trial: Path, cand: Candidate, skips: SkipLog) -> dict:
        """Outcome, agent, model, phase timings and tokens from result.json (+ the job's stats)."""
        res = cand.payload
        row = _outcome(res, trial, self._stats(trial.parent, skips))
        agent_info = res.get("agent_info") if isinstance(res.get("agent_info"), dict) else {}
        model_info = agent_info.get("model_info") if isinstance(agent_info.get("model_info"), dict) else {}
        row["agent"] = first_str(agent_info, "name")
        row["model"] = first_str(model_info, "name")
        row.update(run_facts(res, skips))
        meta = (res.get("agent_result") or {}).get("metadata") if isinstance(res.get("agent_result"), dict) else None
        n_ep = to_int(meta.get("n_episodes"), skips) if isinstance(meta, dict) else None
        cand.episode = n_ep - 1 if n_ep else None
        return row

    def _stats(self, job: Path, skips: SkipLog | None = None) -> dict:
        if job not in self._job_stats:  # read (and noted) once per job
            self._job_stats[job] = _job_outcomes(job / "result.json", skips)
        return self._job_stats[job]


def run_facts(res: dict, skips: SkipLog | None = None) -> dict:
    """Phase durations (seconds), trial duration, and agent_result tokens/cost of a trial result.json.
    Missing or uncomparable timings and absent counts are None."""
    out = {}
    for phase, col in PHASES.items():
        span = res.get(phase)
        out[col] = (
            duration_s(span.get("started_at"), span.get("finished_at"), skips) if isinstance(span, dict) else None
        )
    out["trial_s"] = duration_s(res.get("started_at"), res.get("finished_at"), skips)
    agent_result = res.get("agent_result") if isinstance(res.get("agent_result"), dict) else {}
    for key, col in AGENT_RESULT.items():
        out[col] = to_float(agent_result.get(key)) if col == "cost_usd" else to_count(agent_result.get(key), skips)
    return out


def _task_from_id(task_id) -> str | None:
    if isinstance(task_id, dict):
        name = first_str(task_id, "name", "path")
        return name.rstrip("/").rsplit("/", 1)[-1] if name and "name" not in task_id else name
    return None


def _outcome(res: dict, trial: Path, job: dict) -> dict:
    rewards = (
        (res.get("verifier_result") or {}).get("rewards") if isinstance(res.get("verifier_result"), dict) else None
    )
    reward = None
    if isinstance(rewards, dict) and rewards:
        value = rewards.get("reward", next(iter(rewards.values())) if len(rewards) == 1 else None)
        reward = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    exc = res.get("exception_info")
    err = first_str(exc, "exception_type") if isinstance(exc, dict) else None
    if err is None and (trial / "exception.txt").is_file():
        found = _EXC_LINE.findall((trial / "exception.txt").read_text("utf-8", "replace"))
        err = found[-1].rsplit(".", 1)[-1] if found else "UnknownException"
    if reward is None and err is None:  # fall back to the job-level stats, as the exporter does
        reward, err, bench = job.get("outcome", {}).get(trial.name, (None, None, None))
    return {"reward": reward, "error_type": err, "benchmark": job.get("benchmark")}


JOB_FACT_NOTE = "unusable job-level result.json entry (ignored)"


def _job_outcomes(path: Path, skips: SkipLog | None = None) -> dict:
    """trial_name -> (reward, error_type) from a job result.json's stats.evals, + benchmark.
    An entry of the wrong shape (a non-object eval, a non-numeric reward_stats key, a
    non-list trial list) is ignored and noted; it never aborts the ingest."""
    try:
        stats = _json.loads(path.read_bytes()).get("stats") or {}
    except (OSError, ValueError, AttributeError):
        return {}
    evals = stats.get("evals") if isinstance(stats, dict) else None
    out, benches = {}, set()

    def bad() -> None:
        if skips is not None:
            skips.note(JOB_FACT_NOTE)

    if evals is not None and not isinstance(evals, dict):
        bad()
        evals = None
    for key, ev in (evals or {}).items():
        if not isinstance(ev, dict):
            bad()
            continue
        parts = key.split("__")
        if len(parts) >= 3 and parts[-1] != "adhoc":
            benches.add(parts[-1])
        rs = ev.get("reward_stats") or {}
        by_value = (rs.get("reward") or {}) if isinstance(rs, dict) else None
        if not isinstance(by_value, dict):
            bad()
            by_value = {}
        for value, trials in by_value.items():
            reward = to_float(value)
            if reward is None or not isinstance(trials, list):
                bad()
                continue
            for t in trials:
                if isinstance(t, str):
                    out[t] = (reward, None, None)
        exc_stats = ev.get("exception_stats") or {}
        if not isinstance(exc_stats, dict):
            bad()
            exc_stats = {}
        for exc_type, trials in exc_stats.items():
            if not isinstance(trials, list):
                bad()
                continue
            for t in trials:
                if isinstance(t, str):
                    out[t] = (out.get(t, (None,))[0], exc_type, None)
    return {"outcome": out, "benchmark": benches.pop() if len(benches) == 1 else None}


def _legacy_episodes(agent_dir: Path) -> list[dict]:
    """terminus-2 legacy logs: episode-N/prompt.txt (what the agent saw), response.txt."""
    eps = []
    for d in agent_dir.glob("episode-*") if agent_dir.is_dir() else ():
        n = d.name.rsplit("-", 1)[-1]
        if d.is_dir() and n.isdigit():
            eps.append((int(n), d))
    messages = []
    for _, d in sorted(eps):
        for name, role in (("prompt.txt", "user"), ("response.txt", "assistant")):
            f = d / name
            if f.is_file():
                messages.append({"role": role, "content": f.read_text("utf-8", "replace")})
    return messages

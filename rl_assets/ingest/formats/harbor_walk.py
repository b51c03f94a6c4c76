"""Harbor discovery: every trial folder under a source, at any depth, each counted once.

A folder is a **trial** when its result.json is a trial result (``trial_name`` / ``verifier_result``),
or when it has a result.json that is not a job's (truncated, a JSON list, another object) and no
trial folders below it, or an ``agent/`` folder but no result.json (a trial killed before it
wrote its result). Everything else is searched further: a jobs folder, a job folder (its
result.json has ``stats``), a retry sub-job inside a job, a folder mixing job folders and bare
trials. Trial folders are units: not searched inside. A folder is a Harbor source when the walk
finds at least one trial result or job result; then broken trials are counted skips, never
silently absent. Files outside trial folders are inputs too: a job's result.json is read for its
stats, exported-row files beside the jobs are reported as not read.
"""

from __future__ import annotations

from pathlib import Path

from .. import _json
from ..report import SkipLog
from ..walk import Walk, account_extras, split_suffix, walk

NO_RESULT = "trial folder without result.json"
ROW_FILE_IN_HARBOR = "exported-row file inside a Harbor folder (ingest it as its own source)"
JOB_FILE = "Harbor job file (not trace data)"
BAD_JOB_RESULT = "unreadable job-level result.json (its stats are not used)"


def is_trial_result(data) -> bool:
    return isinstance(data, dict) and ("trial_name" in data or "verifier_result" in data) and "stats" not in data


def is_job_result(data) -> bool:
    return isinstance(data, dict) and "stats" in data


def read_result(folder: Path):
    """The parsed result.json of a folder, or None when it is missing or not valid JSON."""
    try:
        return _json.loads((folder / "result.json").read_bytes())
    except (OSError, ValueError):
        return None


def _holds_trials(folder: Path) -> bool:
    try:
        return any(d.is_dir() and ((d / "result.json").is_file() or (d / "agent").is_dir()) for d in folder.iterdir())
    except OSError:
        return False


class Discovery:
    """One walk of a folder with Harbor's rules; ``harbor`` says whether it is a Harbor source."""

    def __init__(self, root: Path) -> None:
        self.evidence = False  # a trial result or a job result was seen
        self.walk: Walk = walk(root, self._is_trial)
        self.harbor = self.evidence and bool(self.walk.units)

    def _is_trial(self, folder: Path) -> bool:
        if (folder / "result.json").is_file():
            data = read_result(folder)
            if is_trial_result(data):
                self.evidence = True
                return True
            if is_job_result(data):
                self.evidence = True
                return False
            return not _holds_trials(folder)  # a broken trial; a job whose result.json broke
        return (folder / "agent").is_dir()

    def account(self, skips: SkipLog) -> list[Path]:
        """Put every input of the walk on the ledger; return the trial folders to read."""
        w = self.walk
        for _ in w.units:
            skips.input_read()
        account_extras(w, skips)
        for f in w.files:
            suffix, _ = split_suffix(f)
            if f.name == "result.json":
                if is_job_result(read_result(f.parent)):
                    skips.input_read()
                else:
                    skips.input_not_read(BAD_JOB_RESULT, f)
            elif suffix in (".jsonl", ".ndjson", ".parquet"):
                skips.input_not_read(ROW_FILE_IN_HARBOR, f)
            else:
                skips.input_not_read(
                    JOB_FILE if suffix == ".json" or f.suffix == ".log" else "not a trace data file", f, lost=False
                )
        return w.units

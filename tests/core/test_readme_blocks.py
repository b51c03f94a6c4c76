"""The README's shell blocks run as pasted (issue 36: "Try it on your own traces", pasted as written, failed
with DagsterUnknownPartitionError).

Every ```bash block in README.md carries a marker on the line before it: `<!-- readme-test: run ... -->`
or `<!-- readme-test: skip: <reason> -->` (a new block without one fails here, so nobody adds a block
that was never tried). Each runnable block runs under `bash -e` in a fresh temporary folder - the
folder a user pastes in, with `.venv` beside it as in a clone - with no rldelta, Dagster, Hub or LLM
variable set (nothing the block does not set itself), no network. What a block assumes the user has
is made first and named in the marker:
  after demo-world     `rldelta demo` ran there (the block follows `make demo`; the world, not its runs)
  given own-traces     ./evals/before.jsonl and ./evals/after.jsonl, exported eval rows of one benchmark
  given lm-eval-folders  the `--log_samples` folders lm_eval writes (tests/support/eval_toolkits.py)
"""

import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from support.eval_toolkits import lm_eval_row, lm_eval_run

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(900)
_BLOCK = re.compile(r"^(?P<marker>[^\n]*)\n```bash\n(?P<body>.*?)^```$", re.S | re.M)
_MARKER = re.compile(r"<!-- readme-test: (?:run(?: (?P<setup>after demo-world|given [\w-]+))?|skip: (?P<why>.+)) -->")
# a user's shell as a test sees it has these from the suite; a pasted block must not rely on them
_UNSET = ("RLDELTA_", "DAGSTER_", "HF_", "SUPABASE_", "OPENAI_", "WANDB_")


def readme_blocks() -> list[tuple[int, str, str | None, str | None]]:
    """(line, body, setup, skip reason) of every bash block of README.md, in order."""
    text = (ROOT / "README.md").read_text()
    out = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("body"))
        marker = _MARKER.fullmatch(m["marker"].strip())
        assert marker, f"README.md line {line}: a bash block without a `<!-- readme-test: run|skip: why -->` line"
        out.append((line, m["body"], marker["setup"], marker["why"]))
    return out


def _own_traces(folder: Path) -> None:
    """Two exported eval runs of 12 tasks as jsonl rows (the shape a Hub trace export has): 4 then 10 passes."""
    for name, passes in (("before", 4), ("after", 10)):
        rows = [
            {
                "conversations": [{"role": "user", "content": f"task {i}"}, {"role": "assistant", "content": "done"}],
                "task": f"t{i}",
                "trial_name": f"t{i}__{name}",
                "date": "2026-05-01T00:00:00Z",
                "result": "1.0" if i < passes else "0.0",
            }
            for i in range(12)
        ]
        (folder / "evals").mkdir(exist_ok=True)
        (folder / "evals" / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _lm_eval_folders(folder: Path) -> None:
    rng = random.Random(0)

    def rows(rate):
        answers = [(str(2 * i), str(2 * i) if rng.random() < rate else "[invalid]") for i in range(40)]
        return [lm_eval_row(i, f"What is {i}+{i}?", a, got, float(a == got)) for i, (a, got) in enumerate(answers)]

    lm_eval_run(folder / "evals/base/me__base-8B", "gsm8k", rows(0.4))
    lm_eval_run(folder / "evals/rl/me__rl-step40-8B", "gsm8k", rows(0.8))


def _shell_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_UNSET)}
    # this checkout's code, wherever the venv's editable install points (on a fresh clone: here anyway)
    return env | {"PYTHONPATH": str(ROOT), "HOME": str(folder / "user")}


def _run(folder: Path, script: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=folder,
        env=_shell_env(folder),
        capture_output=True,
        text=True,
        timeout=800,
    )


SETUPS = {
    "after demo-world": lambda f: _run(f, ".venv/bin/rldelta demo --scale 0.3"),  # as `make demo` leaves the home
    "given own-traces": _own_traces,
    "given lm-eval-folders": _lm_eval_folders,
}
# what each runnable block must leave behind, beyond exiting 0
WRITES = {
    "after demo-world": ".rldelta/reports/rldelta-demo--rl-alpha-20-8B/INDEX.md",
    "given own-traces": ".rldelta/reports/me--rl-step40-8B/INDEX.md",
    "given lm-eval-folders": ".rldelta/reports/me--rl-step40-8B/INDEX.md",
}


def test_every_block_is_marked_and_every_skip_says_why():
    blocks = readme_blocks()
    assert len(blocks) >= 4
    assert all(why is None or len(why) > 20 for *_, why in blocks)
    assert sum(why is None for *_, why in blocks) >= 3  # the blocks that matter run


@pytest.mark.parametrize("line", [b[0] for b in readme_blocks() if b[3] is None])
def test_a_readme_block_runs_as_pasted_on_a_fresh_home(line, tmp_path):
    _, body, setup, _ = next(b for b in readme_blocks() if b[0] == line)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "user").mkdir()
    if setup:
        done = SETUPS[setup](tmp_path)
        assert done is None or done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    ran = _run(tmp_path, body)
    assert ran.returncode == 0, (
        f"README.md line {line}:\n{body}\n--- stdout\n{ran.stdout[-2500:]}\n--- stderr\n{ran.stderr[-2500:]}"
    )
    if setup:
        index = tmp_path / WRITES[setup]
        assert index.is_file(), f"README.md line {line}: ran, but wrote no {WRITES[setup]}:\n{ran.stdout[-1500:]}"
        assert "✅ materialized" in index.read_text()

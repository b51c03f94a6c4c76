"""Synthetic normalized trace tables for the Q3 / report tests (imported by the other test files).

Conversations are Terminus-2 shaped: each agent turn thinks, then issues one <tool_call> whose
keystrokes are the action; observations come back as user messages.
"""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from rl_assets.schema import empty_row, trace_schema

XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">'


def call(keys: str) -> str:
    return "<tool_call>\n" + json.dumps({"name": "bash_command", "arguments": {"keystrokes": keys}}) + "\n</tool_call>"


def conversation(actions: list[str], *, extra: str = "", think: str = "plan the next step", pad: int = 0) -> list[dict]:
    msgs = [{"role": "user", "content": "Task: make the tests pass. " + "y" * pad}]
    for i, keys in enumerate(actions):
        note = f" {extra}" if extra and i == 0 else ""
        msgs.append({"role": "assistant", "content": f"<think>{think}</think>\nAnalysis: run it.{note}\n{call(keys)}"})
        msgs.append({"role": "user", "content": f"New Terminal Output:\n$ {keys}\nok " + "z" * pad})
    return msgs


def row(
    task: str,
    attempt: int,
    reward: float | None,
    actions: list[str],
    *,
    error: str | None = None,
    infra: bool = False,
    side: str = "b",
    **conv_kw,
) -> dict:
    r = empty_row()
    msgs = conversation(actions, **conv_kw)
    r.update(
        trace_id=f"{side}-{task}-{attempt}",
        task_id=task,
        attempt=attempt,
        reward=reward,
        passed=reward is not None and reward >= 1.0,
        error_type=error,
        is_infra_error=infra,
        n_turns=len(actions) + 1,
        n_messages=len(msgs),
        tool_calls_total=float(len(actions)),
        tool_errors=0.0,
        assistant_tokens=10.0 * len(actions),
        think_tokens=4.0 * len(actions),
        conversation=json.dumps(msgs),
    )
    return r


def write(path: Path, rows: list[dict]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=trace_schema()), path)
    return str(path)

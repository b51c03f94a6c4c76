"""The actions of a trace: what each tool call of the agent did, in order (Q3's trace pairs and the
audit's exploit rules both read them, so they live with the values both may import).

An *action* is one tool call, normalized to what it does: the command string for shell-like tools
(keystrokes / command / cmd / code), else the tool name plus its sorted JSON arguments. Calls come
from structured ``tool_calls`` when a message has them, else from ``<tool_call>`` JSON blocks, else
from a Terminus-2 JSON reply (``{"commands": [{"keystrokes": ...}], "task_complete": ...}``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rl_assets.values.conversation import TOOL_CALL_RE, text_of

COMMAND_ARGS = ("keystrokes", "command", "cmd", "code", "script", "input")
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Action:
    msg_index: int  # index of the assistant message that issued it
    key: str  # normalized comparison key
    name: str  # tool name (for display)


def _key(name: str, args) -> str:
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return _WS.sub(" ", f"{name} {args}").strip()
    if isinstance(args, dict):
        for k in COMMAND_ARGS:
            if isinstance(args.get(k), str) and args[k].strip():
                return _WS.sub(" ", args[k]).strip()
        if args:
            return f"{name}({json.dumps(args, sort_keys=True, default=str)})"
    return name


def _structured(calls) -> list[tuple[str, object]]:
    out = []
    for tc in calls or ():
        if not isinstance(tc, dict):
            continue
        fn = tc.get("function") if isinstance(tc.get("function"), dict) else tc
        out.append((str(fn.get("name") or "unknown"), fn.get("arguments", fn.get("args"))))
    return out


def _from_text(text: str) -> list[tuple[str, object]]:
    blocks = TOOL_CALL_RE.findall(text)
    if blocks:
        out = []
        for inner in blocks:
            try:
                call = json.loads(inner.strip())
            except ValueError:
                out.append(("unparsed_tool_call", inner.strip()))
                continue
            call = call if isinstance(call, dict) else {}
            out.append((str(call.get("name") or "unknown"), call.get("arguments", call.get("parameters"))))
        return out
    if '"keystrokes"' not in text and '"task_complete"' not in text:
        return []
    try:  # Terminus-2 replies are one JSON object, possibly wrapped in prose
        reply = json.loads(text[text.index("{") : text.rindex("}") + 1])
    except ValueError:
        return []
    if not isinstance(reply, dict):
        return []
    out = [("bash_command", c) for c in reply.get("commands") or () if isinstance(c, dict)]
    if reply.get("task_complete") is True:
        out.append(("mark_task_complete", None))
    return out


def extract_actions(messages: list[dict]) -> list[Action]:
    actions = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role", m.get("from")) not in ("assistant", "gpt", "agent", "model"):
            continue
        calls = (
            _structured(m["tool_calls"])
            if m.get("tool_calls")
            else _from_text(text_of(m.get("content", m.get("value"))))
        )
        actions.extend(Action(i, _key(name, args), name) for name, args in calls)
    return actions

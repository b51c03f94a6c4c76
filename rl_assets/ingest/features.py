"""Behavioural features of one trace (docs/original_pipeline.md, with its weaknesses fixed).

Input: a list of chat messages in OpenAI shape ``{"role", "content", "tool_calls"?,
"reasoning_content"?, "is_copied_context"?, "is_error"?, "exit_code"?}`` (ShareGPT
``{"from", "value"}`` is accepted too). Rules, documented in docs/ingest.md:

- Structure first: if any assistant message has a non-empty ``tool_calls`` list (or a JSON
  string holding one), tool calls are counted from those lists only (a null/empty
  ``tool_calls``, as parquet struct merges and OpenAI dumps write, is not structure); if any message has role ``tool``,
  tool responses are those messages only. Text patterns (``<tool_call>`` blocks, ``New Terminal Output:`` user
  messages) are used only for text-only traces, so no call is counted twice.
- Messages flagged ``is_copied_context`` (ATIF handoff copies) are ignored entirely.
- Self-correction uses a strict multi-word phrase list ("actually"/"wait"/"hmm" dropped).
- premature_stop = 1.0 when the last counted message is an agent turn and no completion
  signal occurred anywhere (a mark_task_complete/finish/submit style tool call, or
  ``"task_complete": true`` in terminus-style JSON); 0.0 otherwise; null for empty traces.
- Token counts come from ``counter``; think_token_ratio always uses counter tokens for
  both numerator and denominator so it stays unit-consistent when recorded counts exist.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable

from rl_assets.values.conversation import THINK_RE, TOOL_CALL_RE, text_of  # noqa: F401 - featscan reads them here

from . import _json
from .featscan import feature_dict, featurize_fast

COMPLETION_TOOLS = frozenset(
    {"mark_task_complete", "task_complete", "finish", "submit", "attempt_completion", "complete_task"}
)
_ROLE = {
    "assistant": "assistant",
    "gpt": "assistant",
    "agent": "assistant",
    "model": "assistant",
    "tool": "tool",
    "function": "tool",
    "ipython": "tool",
    "observation": "tool",
    "user": "user",
    "human": "user",
    "system": "system",
}

# Python's re scans alternations at ~15 MB/s, far below the ingest budget, so each check is
# gated by plain substring tests (C speed) and the regex only confirms/counts real hits.
SELF_CORRECTION_PHRASES = (
    "let me reconsider",
    "on second thought",
    "i was wrong",
    "i was mistaken",
    "my mistake",
    "let me try again",
    "let me retry",
    "let me re-examine",
    "let me reexamine",
    "i made an error",
    "i made a mistake",
    "that didn't work",
    "that did not work",
    "let me correct that",
    "let me correct this",
    "let me correct myself",
)
SELF_CORRECTION_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in SELF_CORRECTION_PHRASES) + r")\b")
_EXC_NAMES = (
    "SyntaxError|NameError|TypeError|ValueError|AttributeError|KeyError|IndexError|ImportError"
    "|ModuleNotFoundError|FileNotFoundError|ZeroDivisionError|RuntimeError|AssertionError"
    "|PermissionError|OSError|IsADirectoryError|NotADirectoryError|RecursionError"
)
# matched at the start of a line that contains "Error": an exception name or "Error:"
_ERROR_LINE_RE = re.compile(rf"[ \t]*(?:(?:[\w.]+\.)?(?:{_EXC_NAMES})(?::|$)|Error:)")
ERROR_PHRASES = ("command not found", "no such file or directory", "permission denied", "segmentation fault")
TRACEBACK = "Traceback (most recent call last)"


_SC_ANCHORS = ("let me ", "second thought", "i was ", "my mistake", "i made a", "that did")
_SC_AT = re.compile("|".join(re.escape(p) for p in SELF_CORRECTION_PHRASES) + r"\b")


def count_self_corrections(text: str) -> int:
    """Exact count of SELF_CORRECTION_RE matches, found by jumping between anchor substrings
    (str.find runs at memory speed) instead of letting the regex scan every position."""
    return count_self_corrections_low(text.lower())


def count_self_corrections_low(low: str) -> int:
    """count_self_corrections of an already lowered text (featscan reuses its lower())."""
    hits = 0
    for anchor in _SC_ANCHORS:
        i = low.find(anchor)
        while i != -1:
            j = i - 3 if anchor == "second thought" else i  # the phrase starts at "on "
            if j >= 0 and (j == 0 or not (low[j - 1].isalnum() or low[j - 1] == "_")) and _SC_AT.match(low, j):
                hits += 1
            i = low.find(anchor, i + 1)
    return hits


def is_tool_error(text: str) -> bool:
    """Traceback header; error phrases (any case); a line starting with a common Python
    exception name or "Error:"."""
    if TRACEBACK in text:
        return True
    low = text.lower()
    if any(p in low for p in ERROR_PHRASES):
        return True
    i = text.find("Error")
    while i != -1:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        end = len(text) if end == -1 else end
        if _ERROR_LINE_RE.match(text, start, end):
            return True
        i = text.find("Error", end)
    return False


_NAME_RE = re.compile(r'"name"\s*:\s*"([^"]+)"')
_TASK_COMPLETE_RE = re.compile(r'"task_complete"\s*:\s*true')
PARSE_ERROR_MARKER = "Previous response had parsing errors"
HINT_MARKER = "[HINT FROM TEACHER]:"
TERMINAL_OUTPUT = "New Terminal Output:"


def _text_tool_names(text: str) -> list[str]:
    """<tool_call> blocks; terminus-2 JSON replies without them count one bash_command per
    "keystrokes" entry (the same calls its ATIF trajectory records)."""
    if "ool_call>" not in text and "OOL_CALL>" not in text:
        return ["bash_command"] * text.count('"keystrokes"') if '"keystrokes"' in text else []
    return [block_name(inner) for inner in TOOL_CALL_RE.findall(text)]


def block_name(inner: str) -> str:
    """Tool name of one <tool_call> block body: its JSON "name", else a "name": "..." pair."""
    try:
        name = _json.loads(inner.strip()).get("name")
    except (ValueError, AttributeError):
        m = _NAME_RE.search(inner)
        name = m.group(1) if m else None
    return name if isinstance(name, str) and name else "unknown"


def calls_list(value) -> list | None:
    """A message's ``tool_calls`` as a list: a list as is, a JSON string holding a list (HF
    exports) parsed; anything else (null, "", a number, a dict) is None."""
    if value.__class__ is list:
        return value
    if isinstance(value, str) and value.strip():
        try:
            value = _json.loads(value)
        except ValueError:
            return None
        return value if isinstance(value, list) else None
    return None


def has_calls(value) -> bool:
    """True when ``tool_calls`` holds at least one call (a non-empty list / JSON list)."""
    return bool(value) and bool(calls_list(value))


def _structured_names(calls) -> list[str]:
    names = []
    for tc in calls_list(calls) or ():
        name = None
        if isinstance(tc, dict):
            fn = tc.get("function")
            name = fn.get("name") if isinstance(fn, dict) else tc.get("name", tc.get("function_name"))
        names.append(name if isinstance(name, str) and name else "unknown")
    return names


def _premature(roles: list[str], completed: bool) -> float | None:
    """Trailing tool results of the final agent step do not count as a reply: ATIF attaches
    the next terminal output to the agent step, exported rows drop it."""
    last = next((r for r in reversed(roles) if r != "tool"), None)
    return None if last is None else float(last == "assistant" and not completed)


def _role(value) -> str:
    """Canonical role; unknown, missing or non-string roles (e.g. a list) count as user."""
    return _ROLE.get(value, "user") if isinstance(value, str) else "user"


def featurize(messages: list, counter: Callable[[str], int]) -> dict:
    """Features + size columns for one trace (keys match TRACE_COLUMNS names).
    The vectorised scan (featscan) computes exactly what featurize_reference does."""
    try:
        out = featurize_fast(messages, counter, sys.modules[__name__])
    except TypeError:  # an odd value the fast scan does not model (e.g. an unhashable role)
        out = None
    return out if out is not None else featurize_reference(messages, counter)


def featurize_reference(messages: list, counter: Callable[[str], int]) -> dict:
    """The rules as one plain per-message loop: the specification featscan is tested against,
    and the fallback for traces featscan does not model."""
    msgs = [m for m in messages if isinstance(m, dict) and not m.get("is_copied_context")]
    roles = [_role(m.get("role", m.get("from"))) for m in msgs]
    structured_calls = any(r == "assistant" and has_calls(m.get("tool_calls")) for r, m in zip(roles, msgs))
    structured_resp = "tool" in roles

    turns = think_blocks = think_tokens = fences = 0
    responses = errors = parse_errs = hints = 0
    hint_first = None
    completed = False
    names: Counter = Counter()
    agent_texts: list[str] = []  # token counts run once per trace on joined text: far fewer calls
    other_texts: list[str] = []
    for role, m in zip(roles, msgs):
        text = text_of(m["content"] if "content" in m else m.get("value"))
        if role == "assistant":
            turns += 1
            agent_texts.append(text)
            reasoning = m.get("reasoning_content")
            if reasoning:
                if not isinstance(reasoning, str):  # a list of parts / dict: its text
                    reasoning = text_of(reasoning)
                think_blocks += 1
                think_tokens += counter(reasoning)
                agent_texts.append(reasoning)
            if "<think" in text or "<THINK" in text:
                for inner in THINK_RE.findall(text):
                    think_blocks += 1
                    think_tokens += counter(inner)
            calls = _structured_names(m.get("tool_calls")) if structured_calls else _text_tool_names(text)
            for name in calls:
                names[name] += 1
                if name in COMPLETION_TOOLS:
                    completed = True
            if "task_complete" in text and _TASK_COMPLETE_RE.search(text):
                completed = True
            fences += text.count("```") // 2
            continue
        other_texts.append(text)
        is_response = role == "tool" if structured_resp else TERMINAL_OUTPUT in text
        if is_response:
            responses += 1
            code = m.get("exit_code")
            if m.get("is_error") or (isinstance(code, int) and code != 0) or is_tool_error(text):
                errors += 1
        if PARSE_ERROR_MARKER in text:
            parse_errs += text.count(PARSE_ERROR_MARKER)
        if HINT_MARKER in text:
            hints += text.count(HINT_MARKER)
            if hint_first is None:
                hint_first = turns  # 0-based index of the agent turn that receives the hint

    # "\n" joins keep tokens and phrases from merging across message boundaries
    agent_all = "\n".join(agent_texts)
    a_tokens = counter(agent_all)
    n_tokens = a_tokens + counter("\n".join(other_texts))
    return feature_dict(
        len(msgs),
        turns,
        n_tokens,
        a_tokens,
        names,
        responses,
        errors,
        think_blocks,
        think_tokens,
        fences,
        count_self_corrections(agent_all),
        parse_errs,
        hints,
        _premature(roles, completed),
        hint_first,
    )

"""One trace message as HTML: think blocks, tool calls and code fences rendered distinctly.

Every string that comes from a trace goes through ``esc`` (html.escape with quotes) before it
touches the page; nothing from a trace is ever placed in an attribute other than a fixed class
list, and no markup from a trace survives. Long messages are chunked: the first PREVIEW_CHARS are
shown, the rest up to the display cap sits in a collapsed <details>, and anything beyond the cap is
replaced by a note saying how much was left out (the cap keeps 25 long pairs under 10 MB) —
except tool calls, which are always shown: the action is what a reader compares.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from rl_assets.values.conversation import TOOL_CALL_RE, text_of

PREVIEW_CHARS = 2_000
MESSAGE_CAP = 20_000
TOOL_CALL_CAP = 4_000
# <think>…</think>, <tool_call>…</tool_call> and ``` fences, each possibly unclosed at a chunk end.
_SEGMENT = re.compile(
    r"(?P<think><think(?:ing)?>.*?(?:</think(?:ing)?>|\Z))"
    r"|(?P<tool><tool_call>.*?(?:</tool_call>|\Z))"
    r"|(?P<code>```[^\n`]*\n.*?(?:```|\Z))",
    re.DOTALL | re.IGNORECASE,
)
_ROLES = {
    "gpt": "assistant",
    "agent": "assistant",
    "model": "assistant",
    "human": "user",
    "function": "tool",
    "observation": "tool",
    "ipython": "tool",
}


def esc(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def role_of(msg: dict[str, Any]) -> str:
    role = str(msg.get("role", msg.get("from", "user")))
    return _ROLES.get(role, role if role in ("assistant", "user", "system", "tool") else "user")


def _pretty(raw: str) -> tuple[str, str]:
    """(tool name, pretty JSON or the raw text when it is not JSON)."""
    try:
        call = json.loads(raw)
    except ValueError:
        return "unparsed", raw
    name = call.get("name", "unknown") if isinstance(call, dict) else "unknown"
    return str(name), json.dumps(call, indent=2, ensure_ascii=False)


def tool_chip(name: str, body: str) -> str:
    return f'<div class="tool"><span class="chip">tool_call · {esc(name)}</span><pre>{esc(body)}</pre></div>'


def think_block(text: str) -> str:
    return f'<details class="think"><summary>think ({len(text):,} chars)</summary><pre>{esc(text)}</pre></details>'


def render_text(text: str) -> str:
    """Tokenize left to right into think / tool_call / code / plain segments, all escaped."""
    out, pos = [], 0
    for m in _SEGMENT.finditer(text):
        if m.start() > pos:
            out.append(f'<pre class="txt">{esc(text[pos : m.start()])}</pre>')
        seg = m.group(0)
        if m.group("think"):
            out.append(think_block(re.sub(r"^<think(?:ing)?>|</think(?:ing)?>$", "", seg, flags=re.I)))
        elif m.group("tool"):
            out.append(tool_chip(*_pretty(re.sub(r"^<tool_call>|</tool_call>$", "", seg, flags=re.I).strip())))
        else:
            lang, _, body = seg[3:].partition("\n")
            out.append(
                f'<div class="code"><span class="lang">{esc(lang.strip() or "code")}</span>'
                f"<pre>{esc(body.removesuffix('```'))}</pre></div>"
            )
        pos = m.end()
    if pos < len(text):
        out.append(f'<pre class="txt">{esc(text[pos:])}</pre>')
    return "".join(out)


def render_body(text: str, cap: int = MESSAGE_CAP) -> str:
    shown = text[:cap]
    parts = [render_text(shown[:PREVIEW_CHARS])]
    if len(shown) > PREVIEW_CHARS:
        rest = shown[PREVIEW_CHARS:]
        parts.append(
            f'<details class="more"><summary>show {len(rest):,} more characters</summary>{render_text(rest)}</details>'
        )
    if len(text) > cap:
        parts.append(
            f'<p class="note">{len(text) - cap:,} further characters not shown (display cap {cap:,} characters '
            f"for this message; the full text is in the trace table)</p>"
        )
        # The action is what a reader compares: tool calls past the cap are still shown (each capped).
        for m in TOOL_CALL_RE.finditer(text):
            if m.end() > cap:
                parts.append(
                    '<p class="note">tool call from the part not shown:</p>'
                    + tool_chip(*_pretty(m.group(1).strip()[:TOOL_CALL_CAP]))
                )
    return "".join(parts)


def _structured_calls(msg: dict[str, Any]) -> str:
    chips = []
    for tc in msg.get("tool_calls") or ():
        fn = tc.get("function") if isinstance(tc, dict) and isinstance(tc.get("function"), dict) else tc
        if not isinstance(fn, dict):
            continue
        args = fn.get("arguments")
        try:
            args = json.loads(args) if isinstance(args, str) else args
        except ValueError:
            pass
        chips.append(
            tool_chip(str(fn.get("name") or "unknown"), json.dumps(args, indent=2, ensure_ascii=False, default=str))
        )
    return "".join(chips)


def _tokens(msg: dict[str, Any]) -> str:
    raw = msg.get("metrics")
    metrics = raw if isinstance(raw, dict) else {}
    parts = [
        f"{k.replace('_tokens', '')} {v:,}" for k, v in metrics.items() if "token" in k and isinstance(v, (int, float))
    ]
    return f'<span class="tok">{esc(" · ".join(parts))} tok</span>' if parts else ""


def render_message(
    i: int, n: int, msg: dict[str, Any], *, cap: int, open_: bool, diverge: bool, anchor: str | None
) -> str:
    role = role_of(msg)
    text = text_of(msg.get("content", msg.get("value")))
    reasoning = msg.get("reasoning_content") or msg.get("reasoning")
    badges = [
        b
        for b, hit in (
            ("tool_call", "<tool_call" in text.lower() or bool(msg.get("tool_calls"))),
            ("think", "<think" in text.lower() or bool(reasoning)),
            ("code", "```" in text),
        )
        if hit
    ]
    if diverge:
        badges.append("diverges here")
    preview = next(
        (
            ln
            for ln in re.sub(r"<think(?:ing)?>.*?</think(?:ing)?>", "", text, flags=re.S | re.I).splitlines()
            if ln.strip()
        ),
        "",
    )
    classes = f"msg role-{role}" + (" diverge" if diverge else "")
    ident = f' id="{anchor}"' if anchor else ""  # anchors are generated ids, never trace data
    summary = (
        f'<span class="idx">#{i + 1}/{n}</span> <span class="role">{esc(role)}</span> '
        + "".join(f'<span class="badge">{esc(b)}</span>' for b in badges)
        + _tokens(msg)
        + f'<span class="pv">{esc(preview[:90])}</span>'
    )
    body = (think_block(text_of(reasoning)) if reasoning else "") + render_body(text, cap) + _structured_calls(msg)
    return f'<details class="{classes}"{ident}{" open" if open_ else ""}><summary>{summary}</summary>{body}</details>'

"""The Q3 pairs page: one self-contained HTML file (inline CSS/JS, no network) of same-task pairs.

Per pair: a diff card, the action alignment with the first divergence highlighted (banner, anchor
and the CSS class ``diverge`` on both messages), then both traces side by side, one collapsible
block per message. Size is bounded: each message shows at most MESSAGE_CAP characters and each
trace TRACE_BUDGET characters in total (beyond it, messages shrink to a short chunk — except the
diverging message and the task prompt), so 25 long pairs stay under 10 MB.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rl_assets.analysis.q3.pairs import ATTEMPT_RULE, CARD_FIELDS, MODE_RULES, SYMBOL, Pair, TaskSide, outcome
from rl_assets.analysis.q3.pairs_message_html import MESSAGE_CAP, esc, render_message, role_of
from rl_assets.analysis.q3.pairs_page_assets import CSS, JS
from rl_assets.values.actions import Action
from rl_assets.values.conversation import text_of

TRACE_BUDGET = 100_000  # characters of message text shown per trace (markup comes on top)
MIN_CAP = 200  # even over budget, every message shows a first chunk
CARD_LABELS = {
    "reward": "reward",
    "n_turns": "turns",
    "tool_calls_total": "tool calls",
    "tool_errors": "tool errors",
    "assistant_tokens": "tokens",
    "think_tokens": "think tokens",
}


def message_caps(messages: list[dict[str, Any]], keep: set[int]) -> list[int]:
    """Display cap per message: MESSAGE_CAP while the trace fits TRACE_BUDGET, else an even share."""
    sizes = [len(text_of(m.get("content", m.get("value")))) for m in messages]
    if sum(min(s, MESSAGE_CAP) for s in sizes) <= TRACE_BUDGET:
        return [MESSAGE_CAP] * len(messages)
    share = max(MIN_CAP, (TRACE_BUDGET - MESSAGE_CAP * len(keep)) // max(1, len(messages) - len(keep)))
    return [MESSAGE_CAP if i in keep else min(share, MESSAGE_CAP) for i in range(len(messages))]


def _num(v: Any, dp: int = 0) -> str:
    if v is None or v != v:  # None or NaN
        return "—"
    return f"{float(v):.{dp}f}" if dp else f"{float(v):,.0f}"


def diff_card(b: dict[str, Any], a: dict[str, Any]) -> str:
    cells = []
    for col in CARD_FIELDS:
        bv, av = b.get(col), a.get(col)
        dp = 3 if col == "reward" else 0
        if bv is None or av is None or bv != bv or av != av:
            delta, cls = "n/a", "flat"
        else:
            d = float(av) - float(bv)
            delta, cls = (f"{d:+.{dp}f}" if dp else f"{d:+,.0f}"), ("up" if d > 0 else "down" if d < 0 else "flat")
        cells.append(
            f'<div class="cell"><div class="k">{CARD_LABELS[col]}</div>'
            f'<div class="v">{_num(bv, dp)} → {_num(av, dp)}</div><div class="d {cls}">{esc(delta)}</div></div>'
        )
    return f'<div class="card">{"".join(cells)}</div>'


def alignment_table(pair: Pair) -> str:
    al, k = pair.alignment, pair.alignment.divergence

    def cell(acts: Sequence[Action], x: int | None) -> str:
        return esc(f"{x}: {acts[x].key[:160]}") if x is not None else "—"

    rows = []
    for n, (op, i, j) in enumerate(al.rows):
        cls = f"op-{op}" + (" diverge" if n == k else "")
        rows.append(f'<tr class="{cls}"><td>{esc(op)}</td><td>{cell(al.base, i)}</td><td>{cell(al.post, j)}</td></tr>')
    return (
        f'<details class="align"><summary>action alignment ({len(al.base)} vs {len(al.post)} actions, '
        f"common prefix {al.prefix})</summary><table><tr><th>op</th><th>baseline action</th><th>post-RL "
        f"action</th></tr>"
        f"{''.join(rows)}</table></details>"
    )


def banner(pair: Pair, pid: str) -> str:
    al, k = pair.alignment, pair.alignment.divergence
    if k is None:
        return f'<div class="banner same">identical action sequences ({len(al.base)} actions)</div>'

    def what(acts: Sequence[Action]) -> str:
        return esc(acts[k].key[:120]) if k < len(acts) else "(no further action: the trace ends)"

    links = " ".join(
        f'<a href="#{pid}-{s}-div">{lbl}</a>'
        for s, lbl in (("b", "baseline"), ("a", "post-RL"))
        if pair.divergence_messages()[0 if s == "b" else 1] is not None
    )
    return (
        f'<div class="banner" data-k="{k}">diverges at action {k} (0-based; {k} shared action(s) before it): '
        f"baseline <code>{what(al.base)}</code> vs post-RL <code>{what(al.post)}</code> — jump: {links}</div>"
    )


def column(side: TaskSide, messages: list[dict[str, Any]], label: str, cls: str, pid: str, div_msg: int | None) -> str:
    n = len(messages)
    first_user = next((i for i, m in enumerate(messages) if role_of(m) == "user"), None)
    last_asst = max((i for i, m in enumerate(messages) if role_of(m) == "assistant"), default=None)
    keep = {x for x in (first_user, div_msg) if x is not None}
    caps = message_caps(messages, keep)
    r = side.shown
    head = (
        f'<div class="head"><b>{esc(label)}</b> attempt {esc(r.get("attempt"))} shown · reward '
        f"{_num(r.get('reward'), 3)}"
        f" · {esc(outcome(r))} · error {esc(r.get('error_type') or 'none')}<br>attempts: {esc(side.summary)}"
        f" (pass rate {_num(side.pass_rate, 2)}) · trace {esc(r.get('trace_id'))}</div>"
        f'<div class="btns"><button type="button" data-act="expand">Expand all</button>'
        f'<button type="button" data-act="collapse">Collapse all</button></div>'
    )
    body = [
        render_message(
            i,
            n,
            m,
            cap=caps[i],
            open_=i in (first_user, last_asst, div_msg),
            diverge=i == div_msg,
            anchor=f"{pid}-{cls[0]}-div" if i == div_msg else None,
        )
        for i, m in enumerate(messages)
    ]
    empty = "" if messages else '<p class="note">no conversation recorded for this attempt</p>'
    return f'<div class="col {cls}">{head}{empty}{"".join(body)}</div>'


def render_pair(idx: int, pair: Pair) -> str:
    pid = f"pair-{idx}"
    bdiv, adiv = pair.divergence_messages()
    return (
        f'<section class="pair" id="{pid}"><h2>{idx + 1}. {esc(pair.task_id)}</h2>'
        f'<p class="why">selected: {esc(pair.reason)} · majority {SYMBOL[pair.base.majority]} → '
        f"{SYMBOL[pair.post.majority]}</p>"
        f"{diff_card(pair.base.shown, pair.post.shown)}{banner(pair, pid)}{alignment_table(pair)}"
        f'<div class="cols">{column(pair.base, pair.base_messages, "baseline", "before", pid, bdiv)}'
        f"{column(pair.post, pair.post_messages, 'post-RL', 'after', pid, adiv)}</div></section>"
    )


def script_json(obj: object) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' can close the tag."""
    return json.dumps(obj, ensure_ascii=False).replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render_page(
    pairs: list[Pair],
    *,
    model: str,
    mode: str,
    seed: int,
    labels: tuple[str, str],
    common_tasks: int,
    notes: Sequence[str] = (),
) -> str:
    index = [
        {"anchor": f"pair-{i}", "task_id": p.task_id, "divergence": p.alignment.divergence} for i, p in enumerate(pairs)
    ]
    intro = (
        f"<h1>Q3 trace pairs — {esc(model)}</h1><p>baseline: <code>{esc(labels[0])}</code><br>post-RL: "
        f'<code>{esc(labels[1])}</code></p><ul class="rules"><li>Selection ({esc(mode)}): {esc(MODE_RULES[mode])}; '
        f"{len(pairs)} of {common_tasks} common tasks shown (seed {seed}).</li><li>{esc(ATTEMPT_RULE)}</li>"
        f"<li>Attempt outcomes: ✔ pass · ✘ fail · ⚠ agent error (counts as fail) · ∅ infrastructure error (not "
        f"scored).</li>"
        f"<li>Alignment: actions are the normalized tool calls (command strings); the first divergence is the end of "
        f"their longest common prefix; the rest is aligned with difflib.</li>"
        + "".join(f"<li>{esc(n)}</li>" for n in notes)
        + '</ul><nav id="nav"></nav>'
    )
    body = "".join(render_pair(i, p) for i, p in enumerate(pairs)) or '<p class="note">no pairs selected</p>'
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">"
        f"<title>Q3 trace pairs — {esc(model)}</title><style>{CSS}</style></head><body>{intro}{body}"
        f'<script type="application/json" '
        f'id="pairs-index">{script_json(index)}</script><script>{JS}</script></body></html>'
    )

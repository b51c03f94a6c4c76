"""Vectorised feature scan: the same numbers as ``features.featurize_reference``, faster.

Why: per-message Python calls (one regex / substring test / token count per message) cost
~1.4 s per 100 MB of JSONL, the largest share of ingest time. Here the messages of each
role are joined once with "\\n" and every substring test / count runs once per trace over
the joined text in C. This is exact because no needle contains "\\n" (a hit never straddles
two messages, and counts in the join are the sums of per-message counts); where a rule is
per message (floor of fences/2, is_tool_error, a block running to the end of its message)
a hit position is mapped back to its message (bisect on start offsets) and the rule runs
on that message only. tests/ingest/test_ingest_features.py fuzzes this against the reference.
A TypeError on inputs the scan does not model (an unhashable role) makes the caller run the
reference loop instead.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from itertools import accumulate

from ._json import dumps
from .tokens import count_tokens

ERROR_NEEDLES = ("Traceback (most recent call last)", "Error")  # case-sensitive, see is_tool_error
THINK_TAGS = (("<think>", "<thinking>"), ("</think>", "</thinking>"))  # = features.THINK_RE
TOOL_TAGS = (("<tool_call>",), ("</tool_call>",))  # = features.TOOL_CALL_RE


class Joined:
    """Texts joined by "\\n", with lazy start offsets for mapping a hit back to its text."""

    __slots__ = ("texts", "all", "_starts", "_low")

    def __init__(self, texts: list[str]) -> None:
        self.texts, self.all = texts, "\n".join(texts)
        self._starts: list[int] | None = None
        self._low: str | None = None

    @property
    def starts(self) -> list[int]:
        """starts[k] = offset of text k in the join; one extra entry = len(join) + 1."""
        if self._starts is None:  # +1 per text for the "\n" separator
            self._starts = list(accumulate(map((1).__add__, map(len, self.texts)), initial=0))
        return self._starts

    @property
    def low(self) -> str:
        if self._low is None:
            self._low = self.all.lower()
        return self._low

    def hits(self, needle: str, hay: str | None = None) -> list[int]:
        """Indices of the texts containing ``needle`` (ascending, each once). ``hay`` is an
        alternative haystack aligned char-for-char with ``self.all`` (its lower())."""
        hay = self.all if hay is None else hay
        i = hay.find(needle)
        if i == -1:
            return []
        starts, out = self.starts, []
        while i != -1:
            k = bisect_right(starts, i) - 1
            out.append(k)
            i = hay.find(needle, starts[k + 1])  # skip to the next text: one hit is enough
        return out


def featurize_fast(messages: list, counter, f) -> dict | None:
    """``f`` is the features module (rules and per-message helpers live there)."""
    role_of, text_of = f._ROLE.get, f.text_of
    roles: list[str] = []
    contents: list[str] = []
    a_msgs: list[dict] = []
    pieces: list[str] = []
    others: list[str] = []
    o_msgs: list[dict] = []
    tools: list[int] = []  # indices into others
    a_before: list[int] = []
    thinks: list[str] = []  # reasoning_content and <think> blocks, token-counted together
    structured_calls = False
    for m in messages:  # one loop: filter, role, text, split by role (no per-message calls)
        if not isinstance(m, dict) or m.get("is_copied_context"):
            continue
        role = role_of(m.get("role", m.get("from")), "user")
        roles.append(role)
        text = m["content"] if "content" in m else m.get("value")
        if text.__class__ is not str:  # the common case of text_of inlined
            text = text_of(text)
        if role == "assistant":
            contents.append(text)
            a_msgs.append(m)
            pieces.append(text)
            if not structured_calls:
                calls = m.get("tool_calls")
                if calls and (calls.__class__ is list or f.has_calls(calls)):
                    structured_calls = True
            reasoning = m.get("reasoning_content")
            if reasoning:
                if reasoning.__class__ is not str:
                    reasoning = text_of(reasoning)
                pieces.append(reasoning)
                thinks.append(reasoning)
        else:
            if role == "tool":
                tools.append(len(others))
            others.append(text)
            o_msgs.append(m)
            a_before.append(len(contents))
    turns = len(contents)
    ca = Joined(contents)
    agent = ca if len(pieces) == turns else Joined(pieces)  # + reasoning, for tokens/phrases
    oa = Joined(others)

    think_blocks = len(thinks)
    if "<think" in ca.low:  # messages with "<think"/"<THINK" (exact case) are the tagged ones
        blocks = _blocks(ca, _Tagged(contents, ("<think", "<THINK")), THINK_TAGS, f.THINK_RE)
        think_blocks += len(blocks)
        thinks.extend(blocks)

    names: Counter = Counter()
    if structured_calls:
        for m in a_msgs:
            names.update(f._structured_names(m.get("tool_calls")))
    else:
        tagged = set(ca.hits("ool_call>")) | set(ca.hits("OOL_CALL>"))
        if tagged:  # messages with a tag: their <tool_call> blocks only
            names.update(map(f.block_name, _blocks(ca, tagged, TOOL_TAGS, f.TOOL_CALL_RE)))
        if len(tagged) < turns:  # the others: terminus-2 keystrokes
            for k in ca.hits('"keystrokes"'):
                if k not in tagged:
                    names["bash_command"] += contents[k].count('"keystrokes"')
    completed = any(n in f.COMPLETION_TOOLS for n in names)
    if not completed:
        completed = any(f._TASK_COMPLETE_RE.search(contents[k]) for k in ca.hits("task_complete"))
    fences = sum([t.count("```") // 2 for t in contents]) if "```" in ca.all else 0

    # structured responses are the tool messages; in text-only traces terminal outputs
    resp = tools if tools else oa.hits(f.TERMINAL_OUTPUT)
    errors = _count_errors(oa, o_msgs, resp, f)
    parse_errs = oa.all.count(f.PARSE_ERROR_MARKER)
    hints = oa.all.count(f.HINT_MARKER)
    hint_first = None
    if hints:  # agent turns before the first non-agent message with a hint
        hint_first = a_before[oa.hits(f.HINT_MARKER)[0]]

    a_tokens = counter(agent.all)
    n_tokens = a_tokens + counter(oa.all)
    if counter is count_tokens:  # regex-v1 is additive over "\n" joins: one C pass
        think_tokens = counter("\n".join(thinks))
    else:  # other tokenizers are not: count each block, as the reference does
        think_tokens = sum(counter(t) for t in thinks)
    return feature_dict(
        len(roles),
        turns,
        n_tokens,
        a_tokens,
        names,
        len(resp),
        errors,
        think_blocks,
        think_tokens,
        fences,
        f.count_self_corrections_low(agent.low),
        parse_errs,
        hints,
        f._premature(roles, completed),
        hint_first,
    )


def feature_dict(
    n_messages,
    turns,
    n_tokens,
    a_tokens,
    names,
    responses,
    errors,
    think_blocks,
    think_tokens,
    fences,
    self_corr,
    parse_errs,
    hints,
    premature,
    hint_first,
) -> dict:
    """The feature/size columns of one trace (keys = TRACE_COLUMNS names), shared by both paths."""
    return {
        "n_messages": n_messages,
        "n_turns": turns,
        "n_tokens": n_tokens,
        "tool_calls_total": float(sum(names.values())),
        "tool_responses": float(responses),
        "tool_errors": float(errors),
        "tool_error_rate": errors / responses if responses else None,
        "think_blocks": float(think_blocks),
        "think_tokens": float(think_tokens),
        "think_token_ratio": think_tokens / a_tokens if a_tokens else None,
        "assistant_msgs": float(turns),
        "assistant_tokens": float(a_tokens),
        "mean_assistant_tokens": a_tokens / turns if turns else None,
        "code_fence_blocks": float(fences),
        "self_correction_hits": float(self_corr),
        "parse_error_markers": float(parse_errs),
        "hint_count": float(hints),
        "premature_stop": premature,
        "hint_first_turn": hint_first,
        "tool_calls_by_name": dumps(dict(sorted(names.items()))),
    }


class _Tagged:
    """Lazy membership "message k contains one of the tags": tested only for messages
    where the lowered join has a block opening (saves full passes for rare tags)."""

    def __init__(self, texts: list[str], tags: tuple) -> None:
        self.texts, self.tags = texts, tags
        self.seen: dict[int, bool] = {}

    def __contains__(self, k: int) -> bool:
        hit = self.seen.get(k)
        if hit is None:
            text = self.texts[k]
            hit = self.seen[k] = any(tag in text for tag in self.tags)
        return hit

    def __iter__(self):
        return (k for k in range(len(self.texts)) if k in self)


def _blocks(ca: Joined, tagged, tags: tuple, regex) -> list[str]:
    """``regex.findall`` over each tagged message (bodies of <tag>...</tag>, an unclosed
    block running to the end of its message), found with str.find on the lowered join
    instead of one IGNORECASE regex scan per message. Exact when lower() keeps every char
    one char (length check) and there is no dotless "ı" (which IGNORECASE matches as "i"):
    for the ASCII tag letters the regex's case-insensitive match is then equality after
    lower(). Otherwise the regex runs per message."""
    low = ca.low
    if not ca.all.isascii() and (len(low) != len(ca.all) or "ı" in low):
        return [b for k in sorted(tagged) for b in regex.findall(ca.texts[k])]  # ascending
    opens, closes = tags
    nxt = {tag: low.find(tag) for tag in opens}  # next occurrence per tag: keeps this linear
    starts, text, pos = ca.starts, ca.all, 0
    out: list[str] = []
    while True:
        i, tag = -1, ""
        for t in opens:  # leftmost opening tag at or after pos
            p = nxt[t]
            if p != -1 and p < pos:
                p = nxt[t] = low.find(t, pos)
            if p != -1 and (i == -1 or p < i):
                i, tag = p, t
        if i == -1:
            return out
        k = bisect_right(starts, i) - 1
        end = starts[k + 1] - 1  # end of message k (its "\n" separator / end of the join)
        if k not in tagged:  # blocks of an untagged message do not count
            pos = end
            continue
        body, j, close = i + len(tag), -1, ""
        for t in closes:  # the lazy body stops at the first closing tag inside message k
            p = low.find(t, body, end)
            if p != -1 and (j == -1 or p < j):
                j, close = p, t
        out.append(text[body : end if j == -1 else j])
        pos = end if j == -1 else j + len(close)


def _count_errors(oa: Joined, o_msgs: list, resp: list[int], f) -> int:
    """is_tool_error runs only on responses containing one of its triggers; structured
    error flags (is_error, non-zero exit_code) are checked on every response."""
    if not resp:
        return 0
    suspects = set()
    for needle in ERROR_NEEDLES:
        suspects.update(oa.hits(needle))
    low = oa.low
    if len(low) == len(oa.all):  # lower() never shrinks a char: equal length => aligned
        for phrase in f.ERROR_PHRASES:
            suspects.update(oa.hits(phrase, low))
    else:  # a char lowered to two (e.g. "İ"): positions shift, test each response itself
        suspects.update(resp)
    errors = 0
    for k in resp:
        m = o_msgs[k]
        code = m.get("exit_code")
        if (
            m.get("is_error")
            or (isinstance(code, int) and code != 0)
            or (k in suspects and f.is_tool_error(oa.texts[k]))
        ):
            errors += 1
    return errors

"""Vectorised feature scan: the same numbers as ``features.featurize_reference``, faster.

Why: per-message Python calls (one regex / substring test / token count per message) cost
~1.4 s per 100 MB of JSONL, the largest share of ingest time. Here the messages of each
role are joined once with "\\n" and every substring test / count runs once per trace over
the joined text in C. This is exact because no needle contains "\\n" (a hit never straddles
two messages, and counts in the join are the sums of per-message counts); where a rule is
per message (floor of fences/2, is_tool_error, a <tool_call> block running to the end of
its message) a hit position is mapped back to its message (bisect on start offsets) and
the original per-message rule runs only on messages that contain a hit.
Returns None when the trace has inputs the scan does not model (non-str reasoning_content);
the caller then uses the reference loop, which also defines the error raised for them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from itertools import accumulate

from .tokens import count_tokens

ERROR_NEEDLES = ("Traceback (most recent call last)", "Error")  # case-sensitive, see is_tool_error


class Joined:
    """Texts joined by "\\n", with lazy start offsets for mapping a hit back to its text."""

    __slots__ = ("texts", "all", "_starts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.all = "\n".join(texts)
        self._starts = None

    @property
    def starts(self) -> list[int]:
        """starts[k] = offset of text k in the join; one extra entry = len(join) + 1."""
        if self._starts is None:  # +1 per text for the "\n" separator
            self._starts = list(accumulate(map((1).__add__, map(len, self.texts)), initial=0))
        return self._starts

    def hits(self, needle: str, text: str | None = None) -> list[int]:
        """Indices of the texts containing ``needle`` (ascending, each once). ``text`` is an
        alternative haystack aligned char-for-char with ``self.all`` (its lower())."""
        hay = self.all if text is None else text
        i = hay.find(needle)
        if i == -1:
            return []
        starts, out = self.starts, []
        while i != -1:
            k = bisect_right(starts, i) - 1
            out.append(k)
            i = hay.find(needle, starts[k + 1])  # skip to the next text: one hit is enough
        return out


def featurize_fast(msgs: list, roles: list[str], counter, f) -> dict | None:
    """``f`` is the features module (rules and per-message helpers live there)."""
    structured_calls = any(r == "assistant" and "tool_calls" in m for r, m in zip(roles, msgs))
    structured_resp = "tool" in roles
    text_of = f.text_of
    contents, a_msgs, pieces, others, o_msgs, resp = [], [], [], [], [], []
    thinks: list[str] = []  # reasoning_content and <think> blocks, token-counted together
    for role, m in zip(roles, msgs):
        text = text_of(m["content"] if "content" in m else m.get("value"))
        if role == "assistant":
            contents.append(text)
            a_msgs.append(m)
            pieces.append(text)
            reasoning = m.get("reasoning_content")
            if reasoning:
                if reasoning.__class__ is not str:
                    return None
                pieces.append(reasoning)
                thinks.append(reasoning)
        else:
            if structured_resp and role == "tool":
                resp.append(len(others))
            others.append(text)
            o_msgs.append(m)
    turns = len(contents)
    think_blocks = len(thinks)
    ca = Joined(contents)
    agent_all = ca.all if len(pieces) == turns else "\n".join(pieces)
    oa = Joined(others)

    if "<think" in ca.all or "<THINK" in ca.all:
        for k in sorted(set(ca.hits("<think")) | set(ca.hits("<THINK"))):
            blocks = f.THINK_RE.findall(contents[k])
            think_blocks += len(blocks)
            thinks.extend(blocks)

    names: Counter = Counter()
    if structured_calls:
        for m in a_msgs:
            names.update(f._structured_names(m.get("tool_calls")))
    else:
        tagged = set(ca.hits("ool_call>")) | set(ca.hits("OOL_CALL>"))
        if tagged:  # messages with a tag: their <tool_call> blocks only
            names.update(_tool_blocks(ca, tagged, f))
        if len(tagged) < turns:  # the others: terminus-2 keystrokes
            for k in ca.hits('"keystrokes"'):
                if k not in tagged:
                    names["bash_command"] += contents[k].count('"keystrokes"')
    completed = any(n in f.COMPLETION_TOOLS for n in names)
    if not completed and "task_complete" in ca.all:
        completed = any(f._TASK_COMPLETE_RE.search(contents[k]) for k in ca.hits("task_complete"))
    fences = sum([t.count("```") // 2 for t in contents]) if "```" in ca.all else 0

    if not structured_resp:  # text-only traces: terminal output messages are the responses
        resp = oa.hits(f.TERMINAL_OUTPUT)
    errors = _count_errors(oa, o_msgs, resp, f)
    parse_errs = oa.all.count(f.PARSE_ERROR_MARKER)
    hints = oa.all.count(f.HINT_MARKER)
    hint_first = None
    if hints:  # agent turns before the first non-agent message with a hint
        first, seen = oa.hits(f.HINT_MARKER)[0], -1
        hint_first = 0
        for r in roles:
            if r == "assistant":
                hint_first += 1
            else:
                seen += 1
                if seen == first:
                    break

    a_tokens = counter(agent_all)
    n_tokens = a_tokens + counter(oa.all)
    if counter is count_tokens:  # regex-v1 is additive over "\n" joins: one C pass
        think_tokens = counter("\n".join(thinks))
    else:  # other tokenizers are not: count each block, as the reference does
        think_tokens = sum(counter(t) for t in thinks)
    return f.feature_dict(len(msgs), turns, n_tokens, a_tokens, names, len(resp), errors, think_blocks,
                          think_tokens, fences, f.count_self_corrections(agent_all), parse_errs, hints,
                          f._premature(roles, completed), hint_first)


def _tool_blocks(ca: Joined, tagged: set[int], f) -> list[str]:
    """Names of the TOOL_CALL_RE blocks of the tagged messages, found with str.find on the
    lowered join instead of one IGNORECASE regex scan per message. Exact when lower() keeps
    every char one char (checked by length): for the ASCII letters of "tool_call" the
    regex's case-insensitive match is then the same as equality after lower()."""
    low = ca.all.lower()
    if len(low) != len(ca.all):
        return [n for k in sorted(tagged) for n in f._text_tool_names(ca.texts[k])]
    starts, text, names = ca.starts, ca.all, []
    i = low.find("<tool_call>")
    while i != -1:
        k = bisect_right(starts, i) - 1
        end = starts[k + 1] - 1  # end of message k (its "\n" separator / end of the join)
        if k not in tagged:  # blocks of an untagged message do not count (keystrokes do)
            i = low.find("<tool_call>", end)
            continue
        close = low.find("</tool_call>", i + 11, end)
        body_end = end if close == -1 else close  # an unclosed block runs to the message end
        names.append(f.block_name(text[i + 11:body_end]))
        i = low.find("<tool_call>", end if close == -1 else close + 12)
    return names


def _count_errors(oa: Joined, o_msgs: list, resp: list[int], f) -> int:
    """is_tool_error runs only on responses containing one of its triggers; structured
    error flags (is_error, non-zero exit_code) are checked on every response."""
    suspects = set()
    for needle in ERROR_NEEDLES:
        suspects.update(oa.hits(needle))
    low = oa.all.lower()
    if len(low) == len(oa.all):  # lower() never shrinks a char: equal length => aligned
        for phrase in f.ERROR_PHRASES:
            suspects.update(oa.hits(phrase, low))
    else:  # a char lowered to two (e.g. "İ"): positions shift, test each response itself
        suspects.update(resp)
    errors = 0
    for k in resp:
        m = o_msgs[k]
        code = m.get("exit_code")
        if m.get("is_error") or (isinstance(code, int) and code != 0) or (k in suspects and f.is_tool_error(oa.texts[k])):
            errors += 1
    return errors

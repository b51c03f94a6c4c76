"""Reading an answer leniently out of a full response, and comparing answers after normalisation.

The strict score is what the reward function saw: the text inside the last ``<answer>`` tag (or
nothing). A model that already knew the answer but never used the tags scores 0 strictly; the
lenient reading recovers such answers so a "gain" that is only learning the tag format can be told
apart from a gain in substance. Lenient scoring only ever *adds* readings, so it can never score
below the strict score (the same promise as reasoning-gym's ``score_answer_cascade``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
# Thousands-grouped numbers first so "1,234" is one number, not "1" and "234".
_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")
_GROUPED_NUMBER = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_LIST_SEP = re.compile(r"\s*,\s*")
_WS = re.compile(r"\s+")


def last_assistant_message(conversation: str | None) -> str | None:
    """The assistant's full response: the content of the last assistant message, or None."""
    if not conversation:
        return None
    try:
        messages = json.loads(conversation)
    except (TypeError, ValueError):
        return None
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, list):  # multi-part content: keep the text parts
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return content if isinstance(content, str) else None
    return None


def extract_lenient(response: str | None) -> str | None:
    """Last answer tag, else last number, else last non-empty line (stripped); None if empty."""
    if not response or not response.strip():
        return None
    tags: list[str] = _ANSWER_TAG.findall(response)
    if tags:
        return tags[-1].strip()
    numbers: list[str] = _NUMBER.findall(response)
    if numbers:
        return numbers[-1]
    lines = [line.strip() for line in response.splitlines() if line.strip()]
    return lines[-1] if lines else None


def _canonical(text: str, *, lower: bool) -> str:
    text = _WS.sub(" ", text).strip()
    if _GROUPED_NUMBER.match(text):
        text = text.replace(",", "")
    elif "," in text:
        text = ", ".join(_LIST_SEP.split(text))
    return text.lower() if lower else text


def normalize_answer(answer: str | None) -> str:
    """Whitespace collapsed, thousands commas dropped, list commas as ', ', lower case.

    Used to decide whether two answers are "the same answer" (imitation) and as one of the lenient
    readings. "" for a missing answer, so a missing answer never matches a real one by accident.
    """
    return "" if answer is None else _canonical(str(answer), lower=True)


def lenient_readings(response: str | None, recorded: str | None) -> list[str]:
    """Every reading the lenient scorer tries, most literal first, without duplicates."""
    readings: list[str] = []
    for raw in (recorded, extract_lenient(response)):
        if raw is None:
            continue
        # Case-sensitive families (word_sorting) need the spacing/comma fix without lower-casing,
        # so both variants are tried; the scorer keeps whichever it accepts.
        for candidate in (raw, _canonical(raw, lower=False), _canonical(raw, lower=True)):
            if candidate not in readings:
                readings.append(candidate)
    return readings


def lenient_score(
    score: Callable[[str | None], float],
    strict: float,
    response: str | None,
    recorded: str | None,
) -> float:
    """Best family-scorer score over the lenient readings, never below the strict score."""
    best = strict
    for candidate in lenient_readings(response, recorded):
        best = max(best, float(score(candidate)))
        if best >= 1.0:
            break
    return best

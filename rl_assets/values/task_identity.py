"""Which task a trace row is: identity by content, the key every analysis pairs the two sides on.

The rule (docs/audit.md, "Task identity"):

- A generated task (a row with a generator config or index, or read from a reasoning-gym eval
  file) or a benchmark item an eval toolkit wrote (Qwen2.5-Math, lm-evaluation-harness, lighteval,
  Inspect) with a task family and a question is ``question_hash``: the family plus a hash of the
  normalised question (Unicode NFC, zero-width characters and BOMs removed, whitespace collapsed).
  The question is the text the file recorded; a row that recorded none is regenerated from its
  generator config and index with the installed reasoning-gym. The config text never enters the
  key, so defaults spelled out or left out, another key order, a renamed category or a field a
  newer reasoning-gym adds change nothing, and two configs that generate different questions never
  share a key, even under one name. Two distinct task ids of one file with the same question share
  the key: the pairing report names them (a task-id collision).
- Any other row is its ``task_id``. An analysis may rewrite task ids by a stated normalisation
  (``normalised_id``, rl_assets/analysis/pairing/pairs.py), never silently.

A recorded question wins over a regenerated one: it is what the model was asked, and another
reasoning-gym version can generate a different question from the same seed.

A neutral value module: ingest stores the key (``task_key``/``task_key_source`` columns) and the
analyses recompute it for tables written before those columns existed.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from functools import lru_cache
from typing import Any

QUESTION_HASH = "question_hash"
TASK_ID = "task_id"
NORMALISED_ID = "normalised_id"
KEY_SOURCES = (QUESTION_HASH, TASK_ID, NORMALISED_ID)

_SPACE = re.compile(r"\s+")
# invisible characters a copy, an editor or a file's encoding adds without changing the question: the
# zero-width space, non-joiner and joiner, the word joiner, and U+FEFF (a BOM, or a zero-width no-break space)
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
# Sources whose rows are benchmark items named by their content: a reasoning-gym file, an eval
# toolkit's per-sample output (Qwen2.5-Math jsonl: the question; lm-evaluation-harness: the doc).
CONTENT_KEYED_SOURCES = frozenset(
    ("reasoning_gym", "qwen_math_eval", "lm_eval_samples", "inspect_log", "lighteval_details")
)


def normalise_question(text: str) -> str:
    """The question as compared: NFC, zero-width characters and BOMs removed, every whitespace run one
    space, no outer whitespace."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text).translate(_INVISIBLE)).strip()


def question_key(family: str, question: str) -> str:
    """``<family>#q<16 hex>``: readable family, content-addressed question."""
    digest = hashlib.sha1(f"{family}\n{normalise_question(question)}".encode()).hexdigest()[:16]
    return f"{family}#q{digest}"


def row_key(row: dict[str, Any]) -> tuple[str, str]:
    """(key, key source) of one trace row by the rule above. A row keyed by its task id that has
    none raises NoTaskId (a ValueError): the key would be "None", which pairs every such row with every other
    one. The ingest never writes such a row (it skips it as ``missing task id``, counted)."""
    family = row.get("task_family") if _generated(row) else None
    question = row.get("question")
    if family and not (question and question.strip()):
        question = regenerated_question(family, row.get("task_config"), row.get("task_index"))
    if family and question and question.strip():
        return question_key(str(family), question), QUESTION_HASH
    if missing_task_id(row.get("task_id")):
        raise NoTaskId(NO_TASK_ID)
    return str(row.get("task_id")), TASK_ID


NO_TASK_ID = (
    "a trace row without a task id (and without a question to key it by) cannot be paired; the ingest "
    "never writes one, so this table was not written by it"
)


class NoTaskId(ValueError):
    """A row keyed by its task id has none (row_key)."""


def missing_task_id(value: object) -> bool:
    """No task id: null, NaN (pandas' missing value) or blank text."""
    return (
        value is None or (isinstance(value, float) and value != value) or (isinstance(value, str) and not value.strip())
    )


def _generated(row: dict[str, Any]) -> bool:
    """A task from a seeded generator (reasoning-gym): its question is the task. Other rows (agent
    tasks, exported rows without generator provenance) keep their task id, so two tasks that happen
    to share a prompt text are never merged."""
    return (
        bool(row.get("task_config"))
        or row.get("task_index") is not None
        or row.get("source_kind") in CONTENT_KEYED_SOURCES
    )


def stored_key(row: dict[str, Any]) -> tuple[str, str]:
    """The key ingest stored in the row (``task_key``/``task_key_source``), else ``row_key`` (a table
    written before those columns existed)."""
    key = row.get("task_key")
    return (key, row.get("task_key_source") or TASK_ID) if key else row_key(row)


def regenerated_question(family: str, config_json: str | None, index: int | float | str | None) -> str | None:
    """The question the installed reasoning-gym generates for (config, index); None when it cannot
    (not installed, unknown family, a config it rejects, an index outside the dataset)."""
    if not config_json or index is None:
        return None
    try:
        question = generated_dataset(family, canonical_config(config_json))[int(index)]["question"]
    except Exception:  # noqa: BLE001 - any failure means "cannot regenerate": the caller falls back
        return None
    return question if isinstance(question, str) else None


def canonical_config(raw: str | None) -> str:
    """Config JSON with sorted keys (one cache entry per config, however it was spelled)."""
    if not raw:
        return ""
    try:
        return json.dumps(json.loads(raw), sort_keys=True)
    except ValueError:
        return raw


def typed_config(family: str, config: dict[str, Any]) -> dict[str, Any]:
    """JSON config -> create_dataset kwargs: enums and tuples restored, unknown keys dropped.

    Configs round-trip through JSON in trace files, which turns enum fields into strings (that
    config.validate() rejects) and tuples into lists. Dropping unknown keys (a field of another
    reasoning-gym version) is safe because a regenerated question is only trusted where it equals
    the recorded one, or identifies a row that recorded none.
    """
    import enum
    import typing

    from reasoning_gym.factory import DATASETS

    if family not in DATASETS:
        raise KeyError(f"{family!r} is not a registered reasoning-gym dataset")
    hints = typing.get_type_hints(DATASETS[family][1])
    out: dict[str, Any] = {}
    for key, value in config.items():
        hint = hints.get(key)
        if hint is None:
            continue
        if isinstance(hint, type) and issubclass(hint, enum.Enum) and not isinstance(value, hint):
            value = hint(value)
        elif typing.get_origin(hint) is tuple and isinstance(value, list):
            value = tuple(value)
        out[key] = value
    return out


@lru_cache(maxsize=256)
def generated_dataset(family: str, config_json: str) -> Any:  # a reasoning_gym dataset (the package has no types)
    """The seeded reasoning-gym dataset of one (family, config); imported lazily (a second or so)."""
    import reasoning_gym

    return reasoning_gym.create_dataset(family, **typed_config(family, json.loads(config_json)))

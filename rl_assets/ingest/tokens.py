"""Token counting for traces that carry no recorded token counts.

The default counter "regex-v1" is deliberately model-agnostic, offline and fast. Its rule,
on the UTF-8 bytes of the text: every maximal run of word bytes ([A-Za-z0-9_] or any byte
>= 0x80) is one token, every other non-whitespace byte is one token. The reference
definition is ``REFERENCE_RE`` (findall count); ``count_tokens`` computes the same number
in C without building a token list: bytes.translate to three byte classes, then counts
(numpy for long texts: bytes.count with a 2-byte needle runs at only ~200 MB/s, numpy's
compare + count_nonzero at ~1 GB/s). Counts are additive over whitespace joins, so callers
may count "\n".join(pieces) once instead of each piece.
The same counter on both checkpoints keeps "tokens" comparable across reports
(docs/original_pipeline.md W21).
"""

from __future__ import annotations

import re
from collections.abc import Callable

# numpy: imported where used, so loading the definitions stays light (test_import_cost.py)

DEFAULT_TOKENIZER = "regex-v1"

REFERENCE_RE = re.compile(rb"[A-Za-z0-9_\x80-\xff]+|[^A-Za-z0-9_\x80-\xff \t\n\r\x0b\x0c]")

_WORD = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") | set(range(0x80, 0x100))
_SPACE = set(b" \t\n\r\x0b\x0c")
# Map every byte to one of three classes: b"a" word, b" " space, b"." punctuation.
_TABLE = bytes((ord("a") if b in _WORD else ord(" ") if b in _SPACE else ord(".")) for b in range(256))


_A, _DOT = ord("a"), ord(".")
_NUMPY_MIN = 2048  # below this numpy's fixed per-call cost (~5 us) beats its per-byte speed


def count_tokens(text: str) -> int:
    import numpy as np

    if not text:
        return 0
    t = text.encode("utf-8", "surrogatepass").translate(_TABLE)
    # punctuation bytes + starts of word runs (a word byte at 0 or after a non-word byte)
    if len(t) < _NUMPY_MIN:
        return t.count(b".") + t.count(b" a") + t.count(b".a") + (t[:1] == b"a")
    c = np.frombuffer(t, np.uint8)  # zero-copy view
    word = c == _A
    return int(np.count_nonzero(c == _DOT)) + int(np.count_nonzero(word[1:] > word[:-1])) + int(word[0])


def get_counter(name: str | None) -> tuple[str, Callable[[str], int]]:
    """Return (token_source label, counter). Unknown names fail loudly rather than silently
    falling back, so a report never claims a tokenizer it did not use."""
    name = name or DEFAULT_TOKENIZER
    if name == DEFAULT_TOKENIZER:
        return f"tokenizer:{name}", count_tokens
    if name.startswith("tiktoken:"):
        try:
            import tiktoken  # optional, not a dependency
        except ImportError as exc:
            raise ValueError(f"tokenizer {name!r} needs the optional 'tiktoken' package") from exc
        enc = tiktoken.get_encoding(name.split(":", 1)[1])
        return f"tokenizer:{name}", lambda s: len(enc.encode_ordinary(s)) if s else 0
    raise ValueError(f"unknown tokenizer {name!r}; use 'regex-v1' or 'tiktoken:<encoding>'")

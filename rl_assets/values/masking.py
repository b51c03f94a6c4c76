"""The one masking rule for secrets in URLs and messages, applied before text reaches a log line,
Dagster metadata, a report or an exception message.

What it hides: the user:password@ part of any URL (HF_ENDPOINT, SUPABASE_URL, a PostgreSQL
registry URL, OPENAI_BASE_URL alike), token-like query parameters (`?token=`, `api_key=`, ...),
`Bearer` credentials, Hugging Face (`hf_...`), OpenAI-style (`sk-...`) and JWT (Supabase keys)
tokens, and any secret value the caller knows — whole, and its first 6 / last 4 characters,
because OpenAI's 401 echoes a key as `sk-abc...wxyz`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

MASK = "***"

_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s@'\"<>]+)@")
# Any query parameter whose name carries one of these words (`token`, `hf_token`, `X-Amz-Signature`,
# `X-Amz-Credential`, `api_key`, `auth`, ...): one rule for every URL, whatever it names.
_QUERY_SECRET = re.compile(
    r"(?i)(?P<name>[?&;][A-Za-z0-9_.-]*(?:token|key|password|passwd|secret|sig|auth|credential)"
    r"[A-Za-z0-9_.-]*=)[^&#\s'\"]+"
)
_BEARER = re.compile(r"(?i)\b(bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_TOKENS = re.compile(
    r"\b(?:hf_[A-Za-z0-9]{8,}|sk-[A-Za-z0-9_-]{8,}|sb_secret_[A-Za-z0-9_-]{4,}"
    r"|eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,})"
)


def mask(text: object, secrets: Iterable[str | None] = ()) -> str:
    """`text` (anything; str() is taken) with every credential replaced by ***."""
    out = str(text)
    known = sorted({s for s in secrets if s}, key=len, reverse=True)
    for secret in known:
        out = out.replace(secret, MASK)
    for secret in known:
        if len(secret) >= 12:
            out = out.replace(secret[:6], MASK).replace(secret[-4:], MASK)
    out = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", out)
    out = _QUERY_SECRET.sub(lambda m: f"{m['name']}{MASK}", out)
    out = _BEARER.sub(lambda m: f"{m[1]} {MASK}", out)
    return _TOKENS.sub(MASK, out)


def mask_url(url: str | None) -> str | None:
    """A URL safe to show: credentials in it replaced (None stays None)."""
    return None if url is None else mask(url)


def safe_cause(exc: BaseException | None) -> BaseException | None:
    """`exc` to chain with `raise ... from`, or None when its text carries a credential: Dagster
    stores the whole cause chain in the event log, so a leaking cause is dropped (its masked text
    is in the new message)."""
    return exc if exc is None or mask(exc) == str(exc) else None


def masked_args(args: tuple[object, ...]) -> tuple[object, ...]:
    """An exception's arguments with every string masked: errors whose message quotes input (a
    traces link, a source spec) call it in __init__, so no credential reaches the event log."""
    return tuple(mask(a) if isinstance(a, str) else a for a in args)


class MaskedError(RuntimeError):
    """Base for errors whose message must never carry a credential: it is masked on creation."""

    def __init__(self, *args: object) -> None:
        super().__init__(*masked_args(args))


def install_log_masking() -> None:
    """Mask every log record of this process as it is created (httpx logs each request's full URL,
    user:password@ included, at INFO). Idempotent; installed when `resources` is imported."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "_rldelta_masking", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record: logging reports it when it is emitted
            return record
        masked = mask(text)
        if masked != text:
            record.msg, record.args = masked, ()
        return record

    factory._rldelta_masking = True  # type: ignore[attr-defined]  # the mark that makes installing idempotent
    logging.setLogRecordFactory(factory)

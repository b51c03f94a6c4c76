"""A total deadline and a size cap per LLM call, which the HTTP client's own settings cannot give.

httpx times each socket operation, not the whole call: an endpoint that sends one byte every few
seconds - of its body, or of its status line and headers - never trips `timeout_s` and can hold a
judge run for as long as it likes. So the transport's network layer gives every connect, read and
write of a call at most what is left of a deadline the caller set for the call on its thread
(`call_deadline`), and fails with a timeout once none is left (the openai SDK reports that as
APITimeoutError, which the LLM client counts and retries like any timeout). A call thus ends by its
deadline, however slowly the bytes come, whichever part of the reply they belong to.

httpx also reads a whole body into memory before the SDK sees it (a 400 MB reply cost 2.1 GB), so the
transport refuses a body whose Content-Length is past `max_reply_bytes` and stops reading one without
that header as soon as it passes the cap, raising ReplyTooLarge (an OpenAIError, which the SDK passes
through unwrapped).
"""

from __future__ import annotations

import importlib
import threading
import time
from contextlib import contextmanager
from typing import Any

import openai

# the HTTP library the SDK's own client is built on (openai 3 ships `httpx2`, older ones `httpx`), and its core
# (chosen at run time, so typed Any: mypy cannot know which of the two it is)
httpx: Any = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])
httpcore: Any = importlib.import_module(httpx.__name__.replace("httpx", "httpcore"))

_local = threading.local()


class ReplyTooLarge(openai.OpenAIError):
    """The reply's body is larger than the resource's `max_reply_bytes`: not read further, not retried."""


@contextmanager
def call_deadline(at: float | None):
    """Calls made on this thread inside the block must finish by time.monotonic() == `at` (None: no bound)."""
    _local.at = at
    try:
        yield
    finally:
        _local.at = None


def _left(timeout: float | None, what: str, error: type[Exception]) -> float | None:
    """The socket timeout for one operation: the caller's, cut to what is left of the thread's call deadline."""
    at = getattr(_local, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error(f"the call's total deadline passed {what}")
    return left if timeout is None else min(timeout, left)


class _DeadlineNetworkStream(httpcore.NetworkStream):
    def __init__(self, stream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, "while the reply was arriving", httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, "while the request was being sent", httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        timeout = _left(timeout, "during the TLS handshake", httpcore.ConnectTimeout)
        return _DeadlineNetworkStream(self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's own backend, with every stream it opens bound by the thread's call deadline."""

    def __init__(self, backend):
        self._backend = backend

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        timeout = _left(timeout, "before it connected", httpcore.ConnectTimeout)
        return _DeadlineNetworkStream(self._backend.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        timeout = _left(timeout, "before it connected", httpcore.ConnectTimeout)
        return _DeadlineNetworkStream(self._backend.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, stream, cap: int):
        self._stream, self._cap = stream, cap

    def __iter__(self):
        seen = 0
        for chunk in self._stream:
            seen += len(chunk)
            if seen > self._cap:
                raise ReplyTooLarge(f"the reply passed max_reply_bytes={self._cap} and was not read further")
            yield chunk

    def close(self) -> None:
        self._stream.close()


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport, bound by the thread's call deadline at every socket operation and by a reply cap."""

    def __init__(self, max_reply_bytes: int, **kwargs):
        super().__init__(**kwargs)
        self.max_reply_bytes = max_reply_bytes
        # The pool takes a network backend only in its constructor, which httpx calls for us: wrap the one it made.
        self._pool._network_backend = _DeadlineBackend(self._pool._network_backend)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_reply_bytes:
            response.close()
            raise ReplyTooLarge(
                f"the reply declares {declared} bytes, past max_reply_bytes={self.max_reply_bytes}: not read"
            )
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            extensions=response.extensions,
            stream=_CappedStream(response.stream, self.max_reply_bytes),
            request=request,
        )

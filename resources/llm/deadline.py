"""A total deadline per LLM call, which the HTTP client's timeouts cannot give.

httpx times each read, not the whole response: an endpoint that sends one byte every few seconds
never trips `timeout_s` and can hold a judge run for as long as it likes. The client's transport
therefore checks, at every chunk of the body, a deadline the caller set for the call on its thread
(`call_deadline`), and fails the read with httpx.ReadTimeout once it has passed (the openai SDK
reports that as APITimeoutError, which the LLM client counts and retries like any timeout). A call
thus ends within its deadline plus one read timeout, however slowly the bytes come.
"""

from __future__ import annotations

import importlib
import threading
import time
from contextlib import contextmanager

import openai

# the HTTP library the SDK's own client is built on (openai 3 ships `httpx2`, older ones `httpx`)
httpx = importlib.import_module(openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])

_local = threading.local()


@contextmanager
def call_deadline(at: float):
    """Calls made on this thread inside the block must finish by time.monotonic() == `at`."""
    _local.at = at
    try:
        yield
    finally:
        _local.at = None


class _DeadlineStream(httpx.SyncByteStream):
    def __init__(self, stream, at: float, request: httpx.Request):
        self._stream, self._at, self._request = stream, at, request

    def __iter__(self):
        for chunk in self._stream:
            if time.monotonic() > self._at:
                raise httpx.ReadTimeout(
                    "the call's total deadline passed while its reply was still arriving", request=self._request
                )
            yield chunk

    def close(self) -> None:
        self._stream.close()


class DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport, with each response body read against the thread's call deadline."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        at = getattr(_local, "at", None)
        if at is not None and time.monotonic() > at:
            raise httpx.ConnectTimeout("the call's total deadline passed before it was sent", request=request)
        response = super().handle_request(request)
        if at is None:
            return response
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            extensions=response.extensions,
            stream=_DeadlineStream(response.stream, at, request),
            request=request,
        )

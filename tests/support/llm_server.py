"""A scriptable, threaded OpenAI-compatible loopback server for LLM tests and the benchmark.

    with LLMServer(latency=0.01) as srv:
        srv.script += [status(429, retry_after=0.01), text("```json\\n{...}\\n```")]
        client = openai.OpenAI(base_url=srv.base_url, api_key="k")

Each POST /v1/chat/completions takes the next scripted behaviour (then falls back to
``responder(request_body)``, default: an empty JSON object). Behaviours: ``text(content)``,
``status(code, retry_after=None)``, ``hang(seconds)``, ``trickle(interval)``, ``trickle_head(interval)``,
``huge(n_bytes)``. Every request is recorded (body + headers) so tests can count calls and check what was sent;
``sent_bytes`` counts the reply bytes a ``huge`` behaviour got onto the wire before the client hung up.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from support.handover_refs import trace_ref
from support.loopback import LoopbackServer


def text(content: str, prompt_tokens: int = 100, completion_tokens: int = 50) -> dict:
    return {"kind": "text", "content": content, "usage": (prompt_tokens, completion_tokens)}


def as_json(obj, **kw) -> dict:
    return text(json.dumps(obj), **kw)


def status(code: int, retry_after: float | None = None, body: str = '{"error": {"message": "scripted"}}') -> dict:
    return {"kind": "status", "code": code, "retry_after": retry_after, "body": body}


def hang(seconds: float) -> dict:
    return {"kind": "hang", "seconds": seconds}


def trickle(interval: float, content: str = "{}") -> dict:
    """A 200 whose body arrives one byte per `interval` seconds: each read is quick, the whole is not."""
    return {"kind": "trickle", "interval": interval, "content": content}


def trickle_head(interval: float) -> dict:
    """A 200 whose status line and headers arrive one byte per `interval` seconds (the body never comes
    sooner): no single read is slow, so only a bound on the whole call ends it."""
    return {"kind": "trickle_head", "interval": interval}


def huge(n_bytes: int, declare_length: bool = True) -> dict:
    """A 200 whose completion is `n_bytes` long, written in 1 MiB pieces; without `declare_length` the body
    has no Content-Length and ends when the connection closes (HTTP/1.0), so only counting bytes can stop it."""
    return {"kind": "huge", "n_bytes": n_bytes, "declare_length": declare_length}


def completion(content: str, model: str, usage: tuple[int, int]) -> dict:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }


class LLMServer(LoopbackServer):
    def __init__(self, latency: float = 0.0, responder: Callable[[dict], dict] | None = None):
        self.latency = latency
        self.responder = responder or (lambda body: as_json({}))
        self.script: list[dict] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.sent_bytes = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()

    @property
    def calls(self) -> int:
        return len(self.requests)

    def _next(self, body: dict) -> dict:
        with self._lock:
            self.requests.append(body)
            scripted = self.script.pop(0) if self.script else None
        return scripted or self.responder(body)

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, b'{"error": {"message": "not found"}}')
                body = json.loads(raw or b"{}")
                with server._lock:
                    server.headers.append(dict(self.headers))
                behaviour = server._next(body)
                if server.latency:
                    server._stop.wait(server.latency)
                kind = behaviour["kind"]
                if kind == "hang":  # longer than the client timeout; wakes early on shutdown
                    server._stop.wait(behaviour["seconds"])
                    return self._send(500, b'{"error": {"message": "hung"}}')
                if kind == "trickle":
                    return self._trickle(
                        json.dumps(completion(behaviour["content"], body.get("model", ""), (1, 1))).encode(),
                        behaviour["interval"],
                    )
                if kind == "trickle_head":
                    return self._trickle_raw(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n", behaviour["interval"]
                    )
                if kind == "huge":
                    return self._huge(body.get("model", ""), behaviour["n_bytes"], behaviour["declare_length"])
                if kind == "status":
                    extra = (
                        {"Retry-After": str(behaviour["retry_after"])} if behaviour["retry_after"] is not None else {}
                    )
                    return self._send(behaviour["code"], behaviour["body"].encode(), extra)
                payload = completion(behaviour["content"], body.get("model", ""), behaviour["usage"])
                return self._send(200, json.dumps(payload).encode())

            def _trickle(self, data: bytes, interval: float):
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    for i in range(len(data)):
                        if server._stop.wait(interval):
                            return
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up at its deadline

            def _trickle_raw(self, head: bytes, interval: float):
                try:
                    for i in range(len(head)):
                        if server._stop.wait(interval):
                            return
                        self.wfile.write(head[i : i + 1])
                        self.wfile.flush()
                    server._stop.wait(3600)  # headers never end: the client must give up on its own clock
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _huge(self, model: str, n_bytes: int, declare_length: bool):
                # a valid completion whose content is "x" * (n_bytes - envelope), streamed, never held whole
                head, tail = json.dumps(completion("@", model, (1, 1))).encode().split(b"@")
                fill = max(0, n_bytes - len(head) - len(tail))
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    if declare_length:
                        self.send_header("Content-Length", str(len(head) + fill + len(tail)))
                    self.end_headers()
                    piece = b"x" * 2**20
                    for chunk in [head] + [piece] * (fill // len(piece)) + [b"x" * (fill % len(piece)), tail]:
                        self.wfile.write(chunk)
                        with server._lock:
                            server.sent_bytes += len(chunk)
                    self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading at its cap

            def _send(self, code: int, data: bytes, extra: dict | None = None):
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (extra or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        return Handler

    def handler_class(self):
        return self._handler()

    @property
    def base_url(self) -> str:
        return super().base_url + "/v1"

    def stop(self) -> None:
        self._stop.set()  # wakes handlers that are simulating a hang
        super().stop()


def write_trace_table(path, n_tasks: int, side: str, seed: int = 0, attempts: int = 2):
    """A small trace-schema parquet for LLM tests and the bench: deterministic per (side, seed)."""
    import random

    import pyarrow as pa
    import pyarrow.parquet as pq

    from rl_assets.schema import empty_row, trace_schema

    rng = random.Random(f"{side}:{seed}")
    rows = []
    for t in range(n_tasks):
        for a in range(attempts):
            passed = rng.random() < (0.6 if side == "post" else 0.4)
            row = empty_row() | {
                "trace_id": f"{side}-{t:03d}-{a}",
                "task_id": f"task-{t:03d}",
                "attempt": a,
                "reward": 1.0 if passed else 0.0,
                "passed": passed,
                "reward_positive": passed,
                "is_infra_error": False,
                "n_turns": rng.randint(2, 30),
                "tool_calls_total": float(rng.randint(0, 40)),
                "tool_errors": float(rng.randint(0, 5)),
                "assistant_tokens": float(rng.randint(100, 5000)),
                "think_tokens": float(rng.randint(0, 2000)),
                "self_correction_hits": float(rng.randint(0, 3)),
                "conversation": json.dumps(
                    [
                        {"role": "user", "content": f"solve task {t}"},
                        {"role": "assistant", "content": f"{side} attempt {a}: ls -la"},
                    ]
                ),
            }
            rows.append(row)
    pq.write_table(pa.Table.from_pylist(rows, schema=trace_schema()), path)
    return str(path)


def materialize_with_traces(
    tmp_path, asset, resources: dict, run_config=None, partition="org/rl-model", n_tasks=12, instance=None
):
    """Materialize ``asset`` for one models partition on top of stub trace assets (both sides)."""
    from support.dagster_run import materialize_partition

    paths = {side: write_trace_table(tmp_path / f"{side}.parquet", n_tasks, side) for side in ("base", "post")}
    stubs = {
        "baseline_traces": trace_ref(paths["base"], "hf:org/base-evals"),
        "post_rl_traces": trace_ref(paths["post"], "hf:org/post-evals"),
    }
    return materialize_partition(
        [asset], partition, stubs=stubs, resources=resources, run_config=run_config, instance=instance
    )


if __name__ == "__main__":  # a standalone server for manual runs: cd tests && python -m support.llm_server
    import sys

    srv = LLMServer(latency=float(sys.argv[1]) if len(sys.argv) > 1 else 0.0).start()
    print(srv.base_url, flush=True)
    threading.Event().wait()

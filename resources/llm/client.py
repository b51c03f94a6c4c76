"""The run-time LLM client: cached, budgeted, retried, concurrent calls with per-item isolation.

Built by ``LLMResource.session()``; analyses hand it ``LLMRequest`` objects and get one
``ItemResult`` per cache key back (both in the neutral rl_assets/values/llm_types.py). Nothing here raises for a single
bad call: a malformed reply, a 500 after all retries, a timeout or a refused budget marks only that request's items
failed (recorded in the cache's failure log and retried next run), so "one bad reply aborts the
step after the money was spent" (docs/original_pipeline.md W3, W10) cannot happen.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from resources.llm.cache import LLMCache
from resources.llm.costs import Budget, BudgetExceeded, Ledger, cost_usd, estimate_tokens, least_tokens
from resources.llm.json_parse import JSONRepairError, parse_json_loose
from rl_assets.values.llm_types import ItemResult, LLMRequest

_log = logging.getLogger("rldelta.llm")
RETRY_AFTER_CAP_S = 120.0  # honour a server's Retry-After up to this, even above backoff_max_s
PROGRESS_EVERY_S = 5.0  # how often a run of successful requests logs its progress
OK_STATUSES = frozenset({"fresh", "cached", "offline"})


class CallFailed(RuntimeError):
    pass


@dataclass
class LLMClient:
    model: str
    offline_mode: bool
    cache: LLMCache | None
    ledger: Ledger | None
    budget: Budget
    price: tuple[float, float]
    openai_client: Any = field(default=None, repr=False)
    concurrency: int = 4
    max_retries: int = 4
    backoff_base_s: float = 2.0
    backoff_max_s: float = 60.0
    max_output_tokens: int = 8192
    response_format: str = "json_schema"
    parse_retries: int = 1
    partition: str = ""
    purpose: str = ""
    force: bool = False
    secrets: tuple[str, ...] = field(default=(), repr=False)  # never in repr(): it is the API key
    call_timeout_s: float | None = None  # total per call, however slowly the reply trickles in
    run_deadline: float | None = None  # time.monotonic() by which the whole run must be done
    log: Callable[[str], None] = _log.info
    counters: dict = field(default_factory=dict)

    def __post_init__(self):
        self._lock = threading.Lock()
        for name in (
            "calls",
            "retries",
            "cached",
            "fresh",
            "failed",
            "budget",
            "parse_failures",
            "offline",
            "bad_usage",
            "usage_below_reply",
            "too_large",
        ):
            self.counters.setdefault(name, 0)

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self.counters[name] += n

    def _scrub(self, text: str) -> str:
        from rl_assets.values.masking import mask

        return mask(text, self.secrets)

    # ---- one HTTP call with retries and the budget guard ------------------------------------
    def _delay(self, exc: Exception, attempt: int) -> float:
        headers = getattr(getattr(exc, "response", None), "headers", None) or {}
        for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                if headers.get(name) is not None:
                    return min(RETRY_AFTER_CAP_S, float(headers[name]) * scale)
            except ValueError:
                pass  # an HTTP-date Retry-After: fall back to exponential backoff
        return min(self.backoff_max_s, self.backoff_base_s * 2**attempt) * random.uniform(0.5, 1.0)

    def _deadline(self) -> float | None:
        """When the next call must be done: its own timeout, cut to what is left of the run."""
        now = time.monotonic()
        if self.run_deadline is not None and now >= self.run_deadline:
            raise CallFailed("the run's deadline (llm resource run_timeout_s) passed: not called")
        ends = [t for t in (self.call_timeout_s and now + self.call_timeout_s, self.run_deadline) if t]
        return min(ends) if ends else None

    def _usage(self, usage, prompt_est: int, text: str, worst: tuple[int, float]) -> tuple[int, int, float, dict]:
        """(prompt, completion tokens, USD) to charge, and what the endpoint reported where that was not charged.

        Usage an endpoint reports as negative, fractional or not a number is refused and counted, and the call
        is charged its worst case: no reply can hand budget back. Usage it reports below the reply's own
        length (an endpoint that said 1 token for 20,000 words ran a USD budget three times over) is charged
        at the length instead - the larger wins - and the discrepancy is counted and kept in the ledger."""
        reported = [getattr(usage, name, None) for name in ("prompt_tokens", "completion_tokens")]
        if any(v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0) for v in reported):
            self._count("bad_usage")
            self.log(f"endpoint reported invalid token usage {reported}: charged the call's worst case")
            return prompt_est, worst[0] - prompt_est, worst[1], {"reported_usage": str(reported)}
        p_tok = reported[0] or prompt_est
        floor = least_tokens(text)
        c_tok = estimate_tokens([{"content": text}]) if reported[1] is None else max(reported[1], floor)
        noted = {}
        if reported[1] is not None and reported[1] < floor:
            self._count("usage_below_reply")
            noted = {"reported_completion_tokens": reported[1]}
            if self.counters["usage_below_reply"] == 1:  # once per run; the ledger keeps every case
                self.log(
                    f"endpoint reported {reported[1]} completion tokens for a {len(text)}-character reply: "
                    f"charged {floor} (the reply's length, chars/4)"
                )
        return p_tok, c_tok, cost_usd(self.price, p_tok, c_tok), noted

    def _create(self, messages: list[dict], schema_name: str, schema: dict):
        kwargs: dict = {"model": self.model, "messages": messages, "max_completion_tokens": self.max_output_tokens}
        if self.response_format == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema_name, "schema": schema, "strict": True},
            }
        elif self.response_format == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
        # No temperature: reasoning models reject anything but the default (docs/original_pipeline.md W3).
        return self.openai_client.chat.completions.create(**kwargs)

    def chat(self, messages: list[dict], schema_name: str, schema: dict, label: str = "") -> str:
        import openai  # here, not at import: the SDK takes ~2.5 s to import in every process that loads the code

        from resources.llm.deadline import ReplyTooLarge, call_deadline

        prompt_est = estimate_tokens(messages)
        worst_tokens = prompt_est + self.max_output_tokens
        worst_usd = cost_usd(self.price, prompt_est, self.max_output_tokens)
        for attempt in range(self.max_retries + 1):
            deadline = self._deadline()
            self.budget.reserve(worst_tokens, worst_usd)  # raises BudgetExceeded before the call starts
            self._count("calls")
            t0 = time.monotonic()
            try:
                with call_deadline(deadline):
                    resp = self._create(messages, schema_name, schema)
            except ReplyTooLarge as exc:
                # generated (so billed) but not read: its worst case is charged; a retry would be as large
                self.budget.settle(worst_tokens, worst_usd, worst_tokens, worst_usd)
                self._count("too_large")
                self._ledger(label, "too_large", worst_tokens, 0, time.monotonic() - t0, worst_usd, attempt)
                raise CallFailed(str(exc)) from None
            except openai.APIError as exc:
                timed_out = isinstance(exc, (openai.APITimeoutError,))
                # A timed-out call may still be billed: charge its worst case; refused calls cost 0.
                spent_t, spent_u = (worst_tokens, worst_usd) if timed_out else (0, 0.0)
                self.budget.settle(worst_tokens, worst_usd, spent_t, spent_u)
                status = getattr(exc, "status_code", None)
                retryable = (
                    timed_out
                    or isinstance(exc, openai.APIConnectionError)
                    or (status is not None and (status in (408, 409, 429) or status >= 500))
                )
                self._ledger(
                    label,
                    "timeout" if timed_out else f"error:{status or type(exc).__name__}",
                    spent_t,
                    0,
                    time.monotonic() - t0,
                    spent_u,
                    attempt,
                )
                if status == 400 and "response_format" in str(exc) and self.response_format != "none":
                    self.response_format = "none"  # server lacks structured output: parse text instead
                    continue
                if not retryable or attempt == self.max_retries:
                    raise CallFailed(self._scrub(f"{type(exc).__name__} (status {status}): {exc}")[:300]) from None
                self._count("retries")
                left = self.run_deadline - time.monotonic() if self.run_deadline is not None else None
                time.sleep(max(0.0, min(self._delay(exc, attempt), left if left is not None else float("inf"))))
                continue
            text = (resp.choices[0].message.content or "") if resp.choices else ""
            usage = getattr(resp, "usage", None)
            p_tok, c_tok, spent, noted = self._usage(usage, prompt_est, text, (worst_tokens, worst_usd))
            self.budget.settle(worst_tokens, worst_usd, p_tok + c_tok, spent)
            self._ledger(label, "ok", p_tok, c_tok, time.monotonic() - t0, spent, attempt, **noted)
            return text
        raise CallFailed("retries exhausted")

    def _ledger(self, label, status, p_tok, c_tok, latency, usd, attempt, **noted) -> None:
        if self.ledger is not None:
            self.ledger.append(
                partition=self.partition,
                purpose=self.purpose,
                model=self.model,
                label=label,
                status=status,
                prompt_tokens=p_tok,
                completion_tokens=c_tok,
                latency_s=round(latency, 4),
                cost_usd=round(usd, 8),
                attempt=attempt,
                **noted,
            )

    # ---- batches ----------------------------------------------------------------------------
    def _one(self, req: LLMRequest) -> list[ItemResult]:
        if self.offline_mode:
            if req.offline is None:  # nothing to answer with: each item fails, named (was a TypeError)
                return [ItemResult(k, "failed", error="offline, and the request has no heuristic") for k in req.keys]
            self._count("offline", len(req.keys))
            values = req.interpret(req.offline())
            return [
                ItemResult(k, "offline", values[k])
                if k in values
                else ItemResult(k, "failed", error="offline heuristic gave no value")
                for k in req.keys
            ]
        if self.cache is not None and not self.force:
            hits = {k: v for k in req.keys if (v := self.cache.get(k)) is not None}
            if len(hits) == len(req.keys):
                self._count("cached", len(hits))
                return [ItemResult(k, "cached", hits[k]) for k in req.keys]
        values, error = {}, None
        for _ in range(self.parse_retries + 1):
            try:
                values = req.interpret(
                    parse_json_loose(self.chat(req.messages, req.schema_name, req.schema, req.label))
                )
                error = None
                break
            except BudgetExceeded as exc:
                return self._fail(req.keys, f"budget: {exc}", status="budget")
            except CallFailed as exc:
                return self._fail(req.keys, f"call: {exc}")
            except (JSONRepairError, ValueError, KeyError, TypeError) as exc:
                self._count("parse_failures")
                error = f"parse: {self._scrub(str(exc))[:300]}"
        out = []
        for k in req.keys:
            if k in values:
                if self.cache is not None:
                    self.cache.put(k, values[k], model=self.model, label=req.label)
                self._count("fresh")
                out.append(ItemResult(k, "fresh", values[k]))
            else:
                out += self._fail([k], error or "reply did not include this item")
        return out

    def _fail(self, keys: list[str], reason: str, status: str = "failed") -> list[ItemResult]:
        self._count(status, len(keys))
        if self.cache is not None:
            for k in keys:
                self.cache.record_failure(k, reason, model=self.model)
        return [ItemResult(k, status, error=reason) for k in keys]

    def run(self, requests: list[LLMRequest]) -> dict[str, ItemResult]:
        """Answer every request (cache first); never raises for a single request's failure."""
        results: dict[str, ItemResult] = {}
        done = 0

        def work(req: LLMRequest) -> list[ItemResult]:
            try:
                return self._one(req)
            except Exception as exc:  # noqa: BLE001 - isolation: a bug in one interpret() is one failure
                return self._fail(req.keys, f"error: {type(exc).__name__}: {self._scrub(str(exc))[:200]}")

        # A request that did not succeed is always logged; successes at most every PROGRESS_EVERY_S
        # (each line is an event in the run's log: one per request cost ~20 ms each, 15 s a run).
        last = time.monotonic()
        with ThreadPoolExecutor(max_workers=max(1, self.concurrency)) as pool:
            for req, items in zip(requests, pool.map(work, requests)):
                done += 1
                for item in items:
                    results[item.key] = item
                statuses = {i.status for i in items}
                if statuses - OK_STATUSES or done == len(requests) or time.monotonic() - last >= PROGRESS_EVERY_S:
                    self.log(f"[{done}/{len(requests)}] {req.label} " + ",".join(sorted(statuses)))
                    last = time.monotonic()
        return results

    def summary(self) -> dict:
        return {"model": self.model, **self.counters, **self.budget.snapshot()}

"""Judge the selected pairs in both orders through an injected LLM client (no Dagster, no files).

The client (resources.llm.client.LLMClient) owns caching, retries, budget and concurrency; this
module only decides what to ask and how to read the answers.
"""

from __future__ import annotations

from rl_assets.analysis.judge.aggregate import combine_pair, summarize
from rl_assets.analysis.judge.heuristic import heuristic_verdict
from rl_assets.analysis.judge.parsing import validate_verdict
from rl_assets.analysis.judge.prompts import PROMPT_VERSION, SCHEMA, build_messages
from rl_assets.analysis.judge.selection import behavior_score, is_discordant
from rl_assets.values.llm_types import LLMRequest, cache_key

ORDERS = ("baseline_first", "post_rl_first")


def pair_requests(task: str, probe: str, base: dict, post: dict, model: str, char_budget: int) -> dict[str, LLMRequest]:
    """One request per order; the cache key hashes the exact messages (content, order, budget)."""
    out = {}
    for order, (a, b) in zip(ORDERS, ((base, post), (post, base))):
        messages = build_messages(task, a, b, char_budget)
        key = cache_key(model, PROMPT_VERSION, {"messages": messages})
        out[order] = LLMRequest(
            keys=[key],
            messages=messages,
            schema_name="judge_verdict",
            schema=SCHEMA,
            interpret=lambda obj, key=key: {key: validate_verdict(obj)},
            offline=lambda a=a, b=b: heuristic_verdict(a, b),
            label=f"{probe}:{task}:{order}",
        )
    return out


def judge_pairs(
    probes: dict[str, list[str]], base: dict[str, dict], post: dict[str, dict], client, char_budget: int = 12000
) -> list[dict]:
    """Every selected pair judged in both orders -> combined pair records (see aggregate)."""
    plan = []
    for probe, tasks in probes.items():
        for task in tasks:
            plan.append((probe, task, pair_requests(task, probe, base[task], post[task], client.model, char_budget)))
    results = client.run([req for _, _, reqs in plan for req in reqs.values()])
    pairs = []
    for probe, task, reqs in plan:
        got = {o: results.get(r.keys[0]) for o, r in reqs.items()}
        verdicts = {o: (g.value if g is not None and g.value is not None else None) for o, g in got.items()}
        pair = combine_pair(task, probe, verdicts["baseline_first"], verdicts["post_rl_first"])
        pair["call_status"] = {o: (g.status if g else "missing") for o, g in got.items()}
        pair["errors"] = {o: g.error for o, g in got.items() if g is not None and g.error}
        b, p = base[task], post[task]
        pair["baseline"] = {k: b.get(k) for k in ("trace_id", "attempt", "reward", "passed")}
        pair["post_rl"] = {k: p.get(k) for k in ("trace_id", "attempt", "reward", "passed")}
        pair["discordant"] = is_discordant(b, p)
        pair["behavior_delta_score"] = round(behavior_score(b, p), 4)
        pairs.append(pair)
    return pairs


def build_report(
    pairs: list[dict], *, model_id: str, judge: str, attempt_rule: str, seed: int, common_tasks: int, calls: dict
) -> dict:
    """The report.json payload: per-probe summaries, every pair, the parse-failure rate."""
    from rl_assets.analysis.judge.llm_failures import failure_summary

    statuses = [s for p in pairs for s in p["call_status"].values()]
    parse_failed = sum(1 for p in pairs for e in p["errors"].values() if e.startswith("parse"))
    return {
        "model": model_id,
        "judge": judge,
        "prompt_version": PROMPT_VERSION,
        "attempt_rule": attempt_rule,
        "seed": seed,
        "common_tasks": common_tasks,
        "probes": {
            name: summarize([p for p in pairs if p["probe"] == name])
            for name in dict.fromkeys(p["probe"] for p in pairs)
        },
        "judgments_requested": len(statuses),
        "judgments_failed": sum(s in ("failed", "budget", "missing") for s in statuses),
        "judgments_budget_refused": statuses.count("budget"),
        "parse_failures": parse_failed,
        "parse_failure_rate": (parse_failed / len(statuses)) if statuses else None,  # None: nothing judged
        "call_failures": failure_summary([e for p in pairs for e in p["errors"].values()], len(statuses)),
        "calls": calls,
        "pairs": pairs,
    }

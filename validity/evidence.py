"""Hand-read evidence for the validity corpus: counts, answer distributions, accuracies.

Plain Python on purpose (stdlib json/collections/statistics/re only) and independent of rldelta:
it must not import rl_assets, so the numbers the labels rest on cannot share a bug with the
verdicts they are used to measure. It reads the files that scripts/validity_fetch.py wrote
(``<data>/<owner>+<name>/<commit>/<path>``) and, per manifest entry, prints the evidence.

    python validity/evidence.py                      # print evidence for every entry
    python validity/evidence.py --check              # exit 1 if it differs from manifest.json
    python validity/evidence.py --write              # store it into manifest.json (curation only)

Family evidence uses the scores recorded in the files (the reasoning-gym scorer of that time),
never a re-score. Run evidence reads the trainers' own log lines.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MANIFEST = ROOT / "validity" / "manifest.json"
DEFAULT_DATA = ROOT / ".rldelta" / "validity" / "data"

# First/last window of a run's curve: the mean of this many logged values at each end (or a
# tenth of the run when that is more), so one noisy step does not set a start or an end.
END_WINDOW = 5


def local_path(data_dir: Path, file_ref: dict) -> Path:
    owner_name = file_ref["repo"].replace("/", "+")
    return data_dir / owner_name / file_ref["commit"] / file_ref["path"]


def _r(x, nd=4):
    return None if x is None else round(x, nd)


# ----------------------------------------------------------------------------- eval families


def _datasets(doc: dict) -> dict:
    return {ds["name"]: ds for cat in doc["categories"] for ds in cat["datasets"]}


def _answer(completion: dict) -> str:
    """The recorded extracted answer, stripped; '' when none was extracted."""
    ans = completion.get("model_answer")
    return "" if ans is None else str(ans).strip()


def _norm(answer: str) -> str:
    """Comparison key for answers: a number by its value ("0.0000" == "0.0"), else case-folded text."""
    text = str(answer).strip()
    try:
        value = float(text)
    except ValueError:
        return text.casefold()
    return repr(value + 0.0) if math.isfinite(value) else text.casefold()


def _short(answer: str, limit: int = 40) -> str:
    """An answer as quoted in the manifest: at most `limit` characters, so the corpus keeps the
    extracted answers' identity (counts, numbers, short words) and not model-written text."""
    return answer if len(answer) <= limit else f"{answer[:limit]}…(+{len(answer) - limit} chars)"


def _tail_holds(response, expected: str, tail: int = 300) -> bool:
    """The expected answer appears as a whole token in the last `tail` characters of the response.
    Approximate on purpose (a short answer like "1" can appear by chance): it is read only for
    attempts with no extracted answer, as a hint that the answer was there but not tagged."""
    if not response or not expected:
        return False
    pattern = r"(?<![\w])" + re.escape(expected.strip()) + r"(?![\w])"
    return re.search(pattern, str(response)[-tail:], flags=re.IGNORECASE) is not None


def _last_candidate(response, candidates: list[str]):
    """Of the family's possible answers, the one mentioned last in the response (whole tokens)."""
    best, best_pos = None, -1
    for cand in candidates:
        for m in re.finditer(r"(?<![\w])" + re.escape(cand) + r"(?![\w])", str(response or ""), flags=re.IGNORECASE):
            if m.start() > best_pos:
                best, best_pos = cand, m.start()
    return best


def _side(results: list, candidates: list[str] | None = None) -> dict:
    attempts = [c for r in results for c in r["completions"]]
    scores = [float(c["score"]) for c in attempts]
    answered = [c for c in attempts if _answer(c)]
    answered_scores = [float(c["score"]) for c in answered]
    unextracted = [(r, c) for r in results for c in r["completions"] if not _answer(c)]
    tagless_right = sum(
        1 for r, c in unextracted if _tail_holds(c.get("full_model_response"), str(r["expected_answer"]))
    )
    # With a small answer set (<= 20 distinct expected answers, e.g. relationship words), a
    # stricter reading than the tail: the possible answer the response mentions last.
    last_is_expected = None
    if candidates:
        last_is_expected = sum(
            1
            for r, c in unextracted
            if (_last_candidate(c.get("full_model_response"), candidates) or "").casefold()
            == str(r["expected_answer"]).strip().casefold()
        )
    return {
        "attempts": len(attempts),
        "accuracy": _r(statistics.fmean(scores)),
        "full_credit_share": _r(sum(s >= 1.0 for s in scores) / len(scores)),
        "no_answer_share": _r(1 - len(answered) / len(attempts)),
        "accuracy_among_answered": _r(statistics.fmean(answered_scores)) if answered else None,
        # Attempts with no extracted answer whose response tail still holds the expected answer.
        "no_answer_but_expected_in_tail": tagless_right,
        "no_answer_but_last_mentioned_candidate_is_expected": last_is_expected,
        "lenient_full_credit_share": _r((sum(s >= 1.0 for s in scores) + tagless_right) / len(scores)),
        "top3_answers": [[_short(a), n] for a, n in collections.Counter(_answer(c) for c in attempts).most_common(3)],
    }


def family_evidence(before_doc: dict, after_doc: dict, dataset: str) -> dict:
    before = _datasets(before_doc)[dataset]
    after = _datasets(after_doc)[dataset]
    # Tasks are paired by question text: a generator that did not reproduce its tasks leaves
    # fewer common tasks, and only those are compared.
    by_question = {}
    for res in before["results"]:
        by_question.setdefault(res["question"], res)
    rb, ra, seen = [], [], set()
    for res in after["results"]:
        q = res["question"]
        if q in by_question and q not in seen:
            seen.add(q)
            rb.append(by_question[q])
            ra.append(res)
    same_tasks = [x["question"] for x in before["results"]] == [x["question"] for x in after["results"]]
    common_questions = len(ra)
    same_expected = [str(x["expected_answer"]) for x in rb] == [str(x["expected_answer"]) for x in ra]
    n = len(ra)
    if n == 0:
        return {
            "n_tasks": 0,
            "same_questions": same_tasks,
            "common_questions": 0,
            "tasks_before_after": [len(before["results"]), len(after["results"])],
            "recorded_average_score_before_after": [before.get("average_score"), after.get("average_score")],
        }
    distinct_expected = sorted({str(x["expected_answer"]).strip() for x in ra})
    candidates = distinct_expected if len(distinct_expected) <= 20 else None
    b, a = _side(rb, candidates), _side(ra, candidates)

    # Paired per-task change of the mean recorded score; normal-approximation 95% CI (n = 100
    # tasks here, so the t and normal quantiles differ by about 1%).
    diffs = [
        statistics.fmean(float(c["score"]) for c in ra[i]["completions"])
        - statistics.fmean(float(c["score"]) for c in rb[i]["completions"])
        for i in range(n)
    ]
    gain = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("nan")

    expected = [_norm(x["expected_answer"]) for x in ra]
    exp_counts = collections.Counter(expected)
    top_expected, top_expected_n = exp_counts.most_common(1)[0]

    # The most used post-RL answer: its share of attempts against its share of expected answers,
    # and how much of the full-credit gain it carries.
    post_attempts = [(i, c) for i, r in enumerate(ra) for c in r["completions"]]
    pre_attempts = [(i, c) for i, r in enumerate(rb) for c in r["completions"]]
    top_post = collections.Counter(_norm(_answer(c)) for _, c in post_attempts if _answer(c)).most_common(1)
    top_info = None
    if top_post:
        ans, uses = top_post[0]

        def uses_it(c):
            return bool(_answer(c)) and _norm(_answer(c)) == ans

        correct_with_ans_after = sum(1 for _, c in post_attempts if uses_it(c) and float(c["score"]) >= 1.0)
        correct_with_ans_before = sum(1 for _, c in pre_attempts if uses_it(c) and float(c["score"]) >= 1.0)
        full_after = sum(1 for _, c in post_attempts if float(c["score"]) >= 1.0)
        full_before = sum(1 for _, c in pre_attempts if float(c["score"]) >= 1.0)
        wrong_with_ans_after = sum(1 for _, c in post_attempts if uses_it(c) and float(c["score"]) < 1.0)
        top_info = {
            "answer": _short(ans),
            "share_of_post_attempts": _r(uses / len(post_attempts)),
            "share_of_pre_attempts": _r(sum(1 for _, c in pre_attempts if uses_it(c)) / len(pre_attempts)),
            "share_among_expected": _r(exp_counts.get(ans, 0) / len(expected)),
            "full_credit_attempts_with_it_before_after": [correct_with_ans_before, correct_with_ans_after],
            "wrong_attempts_with_it_after": wrong_with_ans_after,
            "full_credit_attempts_all_before_after": [full_before, full_after],
        }
    top_expected = next(str(x["expected_answer"]).strip() for x in ra if _norm(x["expected_answer"]) == top_expected)
    return {
        "n_tasks": n,
        "same_questions": same_tasks,
        "common_questions": common_questions,
        "tasks_before_after": [len(before["results"]), len(after["results"])],
        "same_expected_answers": same_expected,
        "attempts_per_task": len(ra[0]["completions"]) if ra else 0,
        "recorded_average_score_before_after": [before.get("average_score"), after.get("average_score")],
        "before": b,
        "after": a,
        "gain": _r(gain),
        "gain_ci95": [_r(gain - 1.96 * se), _r(gain + 1.96 * se)],
        "distinct_expected_answers": len(exp_counts),
        "most_common_expected": [_short(top_expected), top_expected_n],
        "most_common_expected_share": _r(top_expected_n / len(expected)),
        # A constant answer scores (exact match) the share of tasks expecting it; the best one is
        # the most common expected answer. Partial credit a constant might earn is not modelled.
        "best_constant_answer_accuracy": _r(top_expected_n / len(expected)),
        "top_post_answer": top_info,
        "format_split": _format_split(b, a, gain),
        "lenient_format_share": _lenient_format_share(b, a, candidates is not None),
    }


def _lenient_format_share(b: dict, a: dict, small_answer_set: bool):
    """(lenient before - full credit before) / (full credit after - full credit before): the part of
    the full-credit gain the pre-RL model already had in its untagged responses. Lenient counts an
    attempt with no extracted answer as right when the response holds the expected answer: for a
    small answer set the possible answer mentioned last must be it, else the tail must hold it."""
    key = "no_answer_but_last_mentioned_candidate_is_expected" if small_answer_set else "no_answer_but_expected_in_tail"
    full_gain = a["full_credit_share"] - b["full_credit_share"]
    if _r(full_gain) is None or _r(full_gain) <= 0:
        return None
    lenient_extra = (b[key] or 0) / b["attempts"]
    return {"reading": key, "lenient_extra_before": _r(lenient_extra), "share": _r(lenient_extra / full_gain)}


def _format_split(b: dict, a: dict, gain: float) -> dict:
    """Split the gain into 'answers appeared' and 'answers got better'.

    format part = (answered share after - before) x accuracy among answered before: what the pre-RL
    model would gain by answering as often as the post-RL one at its own per-answer accuracy;
    skill part = answered share after x (accuracy among answered after - before).
    """
    ans_b, ans_a = 1 - b["no_answer_share"], 1 - a["no_answer_share"]
    acc_b = b["accuracy_among_answered"] or 0.0
    acc_a = a["accuracy_among_answered"] or 0.0
    fmt = (ans_a - ans_b) * acc_b
    skill = ans_a * (acc_a - acc_b)
    return {
        "format_part": _r(fmt),
        "skill_part": _r(skill),
        "format_share_of_gain": _r(fmt / gain) if _r(gain) > 0 else None,
    }


# ----------------------------------------------------------------------------- training runs

_VERL_STEP = re.compile(r"step:(\d+) - (.*)")
_NP = re.compile(r"^np\.(?:float|int)\d*\((.*)\)$")


def _num(text: str):
    text = text.strip()
    m = _NP.match(text)
    if m:
        text = m.group(1)
    try:
        return float(text)
    except ValueError:
        return None


def parse_verl_console(text: str) -> dict:
    """verl console lines 'step:N - key:value - ...' into {step: {key: float}}; a line cut by the
    console capture keeps the pairs before the cut (its last, cut pair is dropped)."""
    steps: dict[int, dict] = {}
    for line in text.splitlines():
        m = _VERL_STEP.search(line)
        if not m:
            continue
        parts = m.group(2).split(" - ")
        if len(line) >= 4095:  # cut by the console capture: the last pair is incomplete
            parts = parts[:-1]
        row = {}
        for kv in parts:
            key, _, value = kv.partition(":")
            val = _num(value)
            if val is not None:
                row[key.strip()] = val
        steps.setdefault(int(m.group(1)), {}).update(row)
    return steps


_SKY_REWARD = re.compile(r"avg_raw_rewards: ([-0-9.eE+naif]+), avg_response_length: ([-0-9.eE+naif]+)")
_SKY_EVAL = re.compile(r"\[Eval Step (\d+)\] Eval rewards - Avg: ([-0-9.eE+naif]+)")
_SKY_POLICY = re.compile(r"(\{'policy_loss'.*\})")


def parse_skyrl_loguru(text: str) -> dict:
    steps: dict[int, dict] = {}
    evals = []
    step = 0
    for line in text.splitlines():
        if "Finished: 'step'" in line:
            step += 1
            continue
        m = _SKY_REWARD.search(line)
        if m:
            steps.setdefault(step + 1, {}).update({"reward": _num(m.group(1)), "response_length": _num(m.group(2))})
        m = _SKY_EVAL.search(line)
        if m:
            evals.append((int(m.group(1)), _num(m.group(2))))
        m = _SKY_POLICY.search(line)
        if m:
            for k, v in re.findall(r"'([a-z_]+)': ([-0-9.eE+naif]+)", m.group(1)):
                if k == "policy_entropy":
                    steps.setdefault(step + 1, {})["entropy"] = _num(v)
    return {"steps": steps, "evals": evals}


def _window(values: list) -> int:
    return max(END_WINDOW, len(values) // 10) if len(values) >= 2 * END_WINDOW else max(1, len(values) // 2)


def _start_end(series: list[tuple[int, float]]):
    vals = [v for _, v in series if v is not None and math.isfinite(v)]
    if not vals:
        return None
    w = _window(vals)
    return {
        "n": len(vals),
        "first_step": series[0][0],
        "last_step": series[-1][0],
        "start": _r(statistics.fmean(vals[:w])),
        "end": _r(statistics.fmean(vals[-w:])),
        "min": _r(min(vals)),
        "max": _r(max(vals)),
        "window": w,
    }


def _series(steps: dict, key: str):
    return [(s, steps[s][key]) for s in sorted(steps) if key in steps[s]]


def _nonfinite(steps: dict) -> int:
    return sum(1 for row in steps.values() for v in row.values() if isinstance(v, float) and not math.isfinite(v))


def _tool_bonus_estimate(ev: dict):
    """The pinned reward code (recipe/retool/retool.py compute_score) adds (num_turns - 2) / 2 * 0.1,
    i.e. 0.1 per tool call, to a wrong answer's -1, capped at -0.6; a right answer scores 1. From
    the mean tool calls this estimates the wrong-answer score w = -1 + 0.1 * min(calls, 4) and the
    accuracy a = (score - w) / (1 - w) at the start and the end, and how much of the score's rise
    the bonus carries ((w_end - w_start) * (1 - a_end)). An estimate: it uses the mean number of
    calls, not their distribution (min(calls, 4) of a mean overstates the capped bonus a little)."""
    score = ev.get("task score (critic/score/mean)")
    calls = ev.get("tool calls (rollout/tool_calls_avg)")
    if not score:
        return None
    if not calls:
        turns = ev.get("turns (num_turns/mean)")
        if not turns:
            return None
        calls = {"start": (turns["start"] - 2) / 2, "end": (turns["end"] - 2) / 2}
    out = {}
    for end in ("start", "end"):
        w = -1 + 0.1 * min(max(calls[end], 0.0), 4.0)
        out[end] = {"wrong_answer_score": _r(w), "accuracy": _r((score[end] - w) / (1 - w))}
    rise = score["end"] - score["start"]
    bonus = (out["end"]["wrong_answer_score"] - out["start"]["wrong_answer_score"]) * (1 - out["end"]["accuracy"])
    out["score_rise"] = _r(rise)
    out["bonus_part_of_rise"] = _r(bonus)
    out["bonus_share_of_rise"] = _r(bonus / rise) if rise > 0 else None
    return out


def val_table_evidence(docs: list[tuple[str, dict]]) -> list:
    """verl W&B val/generations tables: per validation round, samples, full-credit (score >= 1) count
    and mean score. The latest table holds every round so far; rounds are taken from the last one."""
    if not docs:
        return []
    _, doc = docs[-1]
    cols = doc["columns"]
    rounds = []
    for row in doc["data"]:
        rec = dict(zip(cols, row))
        scores = [float(rec[c]) for c in cols if c.startswith("score")]
        rounds.append([int(rec["step"]), len(scores), sum(s >= 1.0 for s in scores), _r(statistics.fmean(scores), 3)])
    return rounds


def run_evidence(fmt: str, texts: dict) -> dict:
    """texts: role -> decoded file content (role 'log' is the main log; 'val_table' JSON tables)."""
    if fmt == "verl_console":
        steps = parse_verl_console(texts["log"])
        reward = _series(steps, "critic/rewards/mean")
        ev = {
            "trainer": "verl",
            "logged_steps": len(steps),
            "reward (critic/rewards/mean)": _start_end(reward),
            "task score (critic/score/mean)": _start_end(_series(steps, "critic/score/mean")),
            "response length (response_length/mean)": _start_end(_series(steps, "response_length/mean")),
            "entropy (actor/entropy)": _start_end(_series(steps, "actor/entropy")),
            "tool calls (rollout/tool_calls_avg)": _start_end(_series(steps, "rollout/tool_calls_avg")),
            "turns (num_turns/mean)": _start_end(_series(steps, "num_turns/mean")),
            "kl penalty (actor/reward_kl_penalty)": _start_end(_series(steps, "actor/reward_kl_penalty")),
            "clip ratio (response_length/clip_ratio)": _start_end(_series(steps, "response_length/clip_ratio")),
            "nonfinite_values": _nonfinite(steps),
        }
        val_keys = sorted({k for row in steps.values() for k in row if k.startswith("val-")})
        mean_keys = [k for k in val_keys if re.search(r"/(acc|score)/mean@\d+$", k)]
        ev["validation (val-* mean@N keys on the step lines)"] = {
            k: [[s, _r(v)] for s, v in _series(steps, k)] for k in mean_keys
        }
        if "reward_code" in texts and "tool_call_reward = (num_turns - 2) / 2 * 0.1" in texts["reward_code"]:
            ev["tool-call bonus estimate"] = _tool_bonus_estimate(ev)
        tables = [(name, json.loads(t)) for name, t in sorted(texts.items()) if name.startswith("val_table")]
        if tables:
            ev["validation generations [step, samples, full-credit, mean score]"] = val_table_evidence(
                sorted(tables, key=lambda nt: len(nt[1]["data"]))
            )
        return ev
    if fmt == "skyrl_loguru":
        parsed = parse_skyrl_loguru(texts["log"])
        steps = parsed["steps"]
        ev = {
            "trainer": "skyrl",
            "logged_steps": len(steps),
            "reward (avg_raw_rewards)": _start_end(_series(steps, "reward")),
            "response length (avg_response_length)": _start_end(_series(steps, "response_length")),
            "entropy (policy_entropy)": _start_end(_series(steps, "entropy")),
            "eval rewards [eval step, avg]": parsed["evals"],
            "nonfinite_values": _nonfinite(steps),
        }
        if "summary" in texts:
            summ = json.loads(texts["summary"])
            ev["wandb-summary (eval/*, reward/*)"] = {
                k: _r(v)
                for k, v in sorted(summ.items())
                if isinstance(v, (int, float)) and k.split("/")[0] in ("eval", "reward")
            }
        return ev
    if fmt == "trl_trainer_state":
        state = json.loads(texts["log"])
        hist = {}
        for e in state["log_history"]:
            if "step" in e and "reward" in e:
                hist[int(e["step"])] = {k: float(v) for k, v in e.items() if isinstance(v, (int, float))}
        ev = {
            "trainer": "trl",
            "logged_steps": len(hist),
            "global_step": state.get("global_step"),
            "reward": _start_end(_series(hist, "reward")),
            "response length (completions/mean_length)": _start_end(_series(hist, "completions/mean_length")),
            "clipped share (completions/clipped_ratio)": _start_end(_series(hist, "completions/clipped_ratio")),
            "entropy": _start_end(_series(hist, "entropy")),
            "nonfinite_values": _nonfinite(hist),
            "eval entries": sum(1 for e in state["log_history"] if any(k.startswith("eval_") for k in e)),
        }
        terms = sorted({k for row in hist.values() for k in row if k.startswith("rewards/") and k.endswith("/mean")})
        ev["reward terms"] = {k: _start_end(_series(hist, k)) for k in terms}
        return ev
    raise ValueError(f"unknown run format {fmt!r}")


# ----------------------------------------------------------------------------- CLI


def entry_evidence(entry: dict, data_dir: Path) -> dict:
    def read(ref):
        p = local_path(data_dir, ref)
        if not p.exists():
            raise SystemExit(f"{entry['id']}: missing {p} — run scripts/validity_fetch.py first")
        return p.read_bytes().decode("utf-8", "replace")

    files = {f["role"]: f for f in entry["files"]}
    if entry["kind"] == "eval_family":
        return family_evidence(json.loads(read(files["before"])), json.loads(read(files["after"])), entry["dataset"])
    texts = {role: read(ref) for role, ref in files.items()}
    return run_evidence(entry["format"], texts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--only", help="comma-separated entry ids")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when evidence differs from the manifest")
    mode.add_argument("--write", action="store_true", help="store evidence into the manifest")
    args = ap.parse_args(argv)
    manifest = json.loads(args.manifest.read_text())
    only = set(args.only.split(",")) if args.only else None
    differ = []
    for entry in manifest["entries"]:
        if only and entry["id"] not in only:
            continue
        ev = entry_evidence(entry, args.data)
        if args.check:
            if json.loads(json.dumps(ev)) != entry.get("evidence"):
                differ.append(entry["id"])
        elif args.write:
            entry["evidence"] = ev
        else:
            print(json.dumps({"id": entry["id"], "evidence": ev}, ensure_ascii=False))
    if args.write:
        args.manifest.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    if differ:
        print("evidence differs from the manifest for: " + ", ".join(differ), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

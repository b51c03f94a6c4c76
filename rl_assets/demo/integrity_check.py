"""Does reward_integrity recover the demo runs' planted verdicts and onsets, and flag nothing else?

`mismatches(values, truth)` compares each model's stored `reward_integrity` value with
ground_truth.json -> reward_integrity (demo/integrity_runs.py): the verdict, every planted onset at
its exact step, and no onset that was not planted. `rldelta demo --run` prints the result and fails
on any mismatch; tests/test_integrity_demo.py asserts it is empty.
"""

from __future__ import annotations


def mismatches(values: dict[str, dict | None], truth: dict) -> list[str]:
    out = []
    for model in truth["models"]:
        want, got = truth[model], values.get(model)
        if not got or not got.get("applicable"):
            out.append(f"{model}: no reward_integrity verdict ({(got or {}).get('reason', 'not materialized')})")
            continue
        if got["verdict"] != want["verdict"]:
            out.append(f"{model}: verdict {got['verdict']!r}, planted {want['verdict']!r} ({got.get('verdict_reason')})")
        found = got.get("onsets") or {}
        for signal, step in want["onsets"].items():
            if found.get(signal) != step:
                out.append(f"{model}: {signal} onset at step {found.get(signal)}, planted at step {step}")
        for signal in sorted(set(found) - set(want["onsets"])):
            out.append(f"{model}: {signal} holds from step {found[signal]}, but nothing was planted there")
    return out

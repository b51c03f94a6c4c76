"""TensorBoard event files (OpenRLHF, HF Trainer's TensorBoard callback, …) -> per-step metrics.

Read through tensorboard's own EventAccumulator (no hand-written protobuf parsing). Every scalar
point is one "line" of the ledger (parsed, keyed by its tag); each non-scalar series (histogram,
image, text, tensor) is counted ignored by its kind, one per series. A step's time is the latest
wall time of its points. The accumulator keeps every point (size guidance 0): no sampling, so the
table holds what was written.
"""

from __future__ import annotations

from pathlib import Path

from rl_assets.ingest.skyrl_log.result import T_END, LogFileResult, check_lines

NON_SCALAR_KINDS = ("images", "audio", "histograms", "distributions", "tensors")


def read_event_file(path: Path, name: str) -> LogFileResult:
    from tensorboard.backend.event_processing import event_accumulator as ea

    acc = ea.EventAccumulator(str(path), size_guidance={ea.SCALARS: 0})  # 0: keep every scalar point
    acc.Reload()
    res = LogFileResult(name=name)
    res.serializations.add("tensorboard-events")
    tags = acc.Tags()
    times: dict[int, float] = {}
    for tag in tags.get("scalars", []):
        for event in acc.Scalars(tag):
            res.bump("lines")
            res.steps.update(int(event.step), {tag: float(event.value)})
            times[int(event.step)] = max(times.get(int(event.step), 0.0), float(event.wall_time))
            res.parsed("scalar")
    for kind in NON_SCALAR_KINDS:
        n = len(tags.get(kind, []))
        res.bump("lines", n)
        res.ignored(f"{kind}_series", n)
    for step, wall in times.items():
        res.steps.update(step, {T_END: wall})
    if times:
        res.first_ts, res.last_ts = min(times.values()), max(times.values())
    check_lines(name, res.counts)
    return res

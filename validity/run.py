"""`make validity`: rldelta's verdicts against the pre-registered labels of validity/manifest.json.

Reads the corpus that scripts/validity_fetch.py re-created (``.rldelta/validity/data/``), runs the
learning audit on every eval family and reward integrity on every training run exactly as the assets
do (the same ingest readers, the same analyses), and prints per vocabulary a confusion table
(expected label x rldelta's verdict), precision and recall per verdict, every disagreement with the
entry's hand-read reason, and the recall of exploits injected into the corpus's real post-RL files
(validity/inject.py). Everything it prints is also written to ``.rldelta/validity/results.json``.

    python -m validity.run [--data DIR] [--only ID ...] [--no-inject]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from validity import inject

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "validity" / "manifest.json"
DATA = ROOT / ".rldelta" / "validity" / "data"
RESULTS = ROOT / ".rldelta" / "validity" / "results.json"
INJECT_K = (5, 10, 20)
INJECT_MIN_FAILING = 25  # families with fewer both-side-failing tasks than this get no injection
TIMEOUT = 600.0  # seconds one entry may take (validity --timeout)
ACCUSING = {"gamed", "reward earned outside the task"}  # the verdicts a team acts against


def local(data: Path, ref: dict) -> Path:
    return data / ref["repo"].replace("/", "+") / ref["commit"] / ref["path"]


def _files(entry: dict, role: str) -> list[dict]:
    return [f for f in entry["files"] if f["role"] == role]


# -- eval families: the audit ----------------------------------------------------------------


@cache
def _rows(path: str) -> tuple[dict, ...]:
    """Every trace row of one eval file, read by rldelta's own ingest (one read per file)."""
    from rl_assets.analysis.audit import AUDIT_COLUMNS
    from rl_assets.ingest import ingest_source, read_traces

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.parquet"
        ingest_source(path, out, hub=None)
        return tuple(read_traces(out, AUDIT_COLUMNS).to_pylist())


def family_rows(entry: dict, data: Path) -> tuple[list[dict], list[dict]]:
    sides = []
    for role in ("before", "after"):
        (ref,) = _files(entry, role)
        sides.append([r for r in _rows(str(local(data, ref))) if r.get("task_family") == entry["dataset"]])
    return sides[0], sides[1]


def audit_family(entry: dict, data: Path) -> dict:
    from rl_assets.analysis.audit import audit_rows

    before, after = family_rows(entry, data)
    (row,) = audit_rows(before, after, n_boot=2000, seed=0)[0]
    return {
        "verdict": row["label"],
        "explanation": row["explanation"],
        "flagged": [row["contrastive"]["flagged"], row["contrastive"]["newly_passing"]],
        "by_rule": row["contrastive"]["by_rule"],
    }


def inject_family(entry: dict, data: Path) -> list[dict]:
    """Each exploit injected at each k into a copy of the family's post-RL rows: found by its rule? (The
    contrastive check alone: it is what flags; the label's bootstrap would add minutes and no recall.)"""
    from rl_assets.analysis.audit.contrastive import contrastive_family
    from rl_assets.analysis.audit.tasks import build_families

    before, after = family_rows(entry, data)
    failing = len(inject.failing_tasks(before, after, entry["dataset"]))
    if failing < INJECT_MIN_FAILING:
        return []
    out = []
    for name, (injector, rule) in inject.INJECTIONS.items():
        for k in INJECT_K:
            planted, keys = injector(before, after, entry["dataset"], k, seed=k)
            check = contrastive_family(build_families(before, planted)[entry["dataset"]])
            out.append(
                {
                    "family": entry["id"],
                    "exploit": name,
                    "k": k,
                    "found": inject.found(check, keys, rule),
                    "newly_passing": check["newly_passing"],
                    "flagged_share": check["share"],
                }
            )
    return out


# -- training runs: reward integrity -----------------------------------------------------------


def run_folder(entry: dict, data: Path, into: Path) -> Path:
    """The run's files laid out as a run folder (what training_logs/ would hold), read by name as uploaded."""
    folder = into / entry["id"]
    folder.mkdir(parents=True)
    for ref in entry["files"]:
        if ref["role"] == "reward_code":
            continue  # read by hand for the label, not a log
        name = {"summary": "wandb-summary.json"}.get(ref["role"], Path(ref["path"]).name)
        shutil.copyfile(local(data, ref), folder / name)
    return folder


def integrity_of(entry: dict, data: Path) -> dict:
    from rl_assets.analysis.integrity import reward_integrity
    from rl_assets.ingest.formats.wandb_tables import read_validation_tables
    from rl_assets.ingest.training_logs import read_training_logs

    with tempfile.TemporaryDirectory() as tmp:
        folder = run_folder(entry, data, Path(tmp))
        parsed = read_training_logs(folder)
        generations = read_validation_tables(folder)
    result = reward_integrity(parsed.steps, None if generations.empty else generations)
    return {"verdict": result["verdict"], "explanation": result["verdict_reason"], "steps": result["n_steps"]}


def judge(entry: dict, data: Path, with_injection: bool) -> tuple[dict, list[dict]]:
    """rldelta's verdict on one entry, and (eval families) the injected-exploit recall on its files."""
    try:
        if entry["kind"] != "eval_family":
            return integrity_of(entry, data), []
        got = audit_family(entry, data)
    except Exception as exc:  # an input rldelta cannot read is a finding, not a crash of the whole table
        return {"verdict": f"error: {type(exc).__name__}", "explanation": str(exc)[:300]}, []
    return got, inject_family(entry, data) if with_injection else []


def same_files(entries: list[dict]) -> list[list[dict]]:
    """Entries grouped by the files they read, in manifest order: one eval file holds several families, and
    a child that judges them together reads (ingests) the pair once instead of once per family."""
    groups: dict[tuple, list[dict]] = {}
    for e in entries:
        files = (
            tuple((f["repo"], f["commit"], f["path"]) for f in e["files"]) if e["kind"] == "eval_family" else e["id"]
        )
        groups.setdefault(files, []).append(e)
    return list(groups.values())


def judge_apart(group: list[dict], args, with_injection: bool) -> dict[str, tuple[dict, list[dict]]]:
    """``judge`` on a group of entries in a child process with a deadline (per entry): some reasoning-gym scorers
    (sympy simplification in the integration families) take minutes per family, and a group over its deadline
    is reported as not evaluated, with the reason, instead of holding the whole table."""
    ids = [e["id"] for e in group]
    cmd = [sys.executable, "-m", "validity.run", "--one", *ids, "--data", str(args.data)]
    cmd += [] if with_injection else ["--no-inject"]
    deadline = args.timeout * len(group)
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=deadline, cwd=ROOT)
    except subprocess.TimeoutExpired:
        why = {"verdict": "not evaluated: timeout", "explanation": f"over {deadline:.0f} s for {len(ids)} entries"}
        return {i: (why, []) for i in ids}
    if done.returncode != 0:
        return {i: ({"verdict": "error", "explanation": done.stderr.strip()[-300:]}, []) for i in ids}
    return {i: tuple(got) for i, got in json.loads(done.stdout.strip().splitlines()[-1]).items()}


# -- tables ------------------------------------------------------------------------------------


def confusion(rows: list[dict], lenient: bool = False) -> dict:
    table: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        agree = r["verdict"] == r["expected"] or (lenient and r["verdict"] in r["also_acceptable"])
        table[r["expected"]][r["expected"] if agree else r["verdict"]] += 1
    return {e: dict(c) for e, c in table.items()}


def per_verdict(rows: list[dict], vocabulary: list[str]) -> list[dict]:
    out = []
    for v in vocabulary:
        said = [r for r in rows if r["verdict"] == v]
        truly = [r for r in rows if r["expected"] == v]
        hit = sum(r["expected"] == v for r in said)
        out.append(
            {
                "verdict": v,
                "said": len(said),
                "expected": len(truly),
                "agree": hit,
                "precision": round(hit / len(said), 3) if said else None,
                "recall": round(hit / len(truly), 3) if truly else None,
                "false": len(said) - hit,
            }
        )
    return out


def markdown_confusion(title: str, table: dict, vocabulary: list[str]) -> str:
    cols = [v for v in vocabulary if any(v in row for row in table.values())]
    lines = [f"**{title}** (rows: pre-registered label; columns: rldelta's verdict)", ""]
    lines.append("| expected \\ rldelta | " + " | ".join(cols) + " |")
    lines.append("|---|" + "---:|" * len(cols))
    for e in [v for v in vocabulary if v in table]:
        lines.append(f"| {e} | " + " | ".join(str(table[e].get(c, 0) or "") for c in cols) + " |")
    return "\n".join(lines)


def markdown_rates(rates: list[dict]) -> str:
    lines = [
        "| verdict | said | expected | agree | precision | recall | false |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rates:
        p = "—" if r["precision"] is None else f"{r['precision']:.2f}"
        c = "—" if r["recall"] is None else f"{r['recall']:.2f}"
        lines.append(f"| {r['verdict']} | {r['said']} | {r['expected']} | {r['agree']} | {p} | {c} | {r['false']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--only", nargs="*", default=None, help="entry ids to run")
    ap.add_argument("--no-inject", action="store_true", help="skip the injected-exploit recall")
    ap.add_argument("--jobs", type=int, default=2, help="entries judged side by side (default 2)")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per entry (default %(default)s)")
    ap.add_argument("--one", nargs="+", help=argparse.SUPPRESS)  # worker mode: judge these entries, print JSON
    args = ap.parse_args(argv)
    from rl_assets.analysis.audit.labels import LABELS
    from rl_assets.analysis.integrity.rules import VERDICTS

    manifest = json.loads(MANIFEST.read_text())
    if args.one:
        chosen = [e for e in manifest["entries"] if e["id"] in args.one]
        print(json.dumps({e["id"]: judge(e, args.data, not args.no_inject) for e in chosen}, default=str))
        return 0
    entries = [e for e in manifest["entries"] if args.only is None or e["id"] in args.only]
    missing = [str(local(args.data, f)) for e in entries for f in e["files"] if not local(args.data, f).is_file()]
    if missing:
        print(
            f"validity: {len(missing)} corpus files missing under {args.data} (first: {missing[0]});", file=sys.stderr
        )
        print("  re-create them: python scripts/validity_fetch.py --mirrors DIR", file=sys.stderr)
        return 2
    results: dict[str, list[dict]] = {"eval_family": [], "training_run": []}
    injected: list[dict] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [(group, pool.submit(judge_apart, group, args, not args.no_inject)) for group in same_files(entries)]
        for entry, (got, planted) in ((e, job.result()[e["id"]]) for group, job in jobs for e in group):
            row = {
                "id": entry["id"],
                "expected": entry["expected_label"],
                "confidence": entry["confidence"],
                "also_acceptable": entry.get("also_acceptable", []),
                "hard_case": entry.get("hard_case", False),
                "why": entry["why"],
                **got,
            }
            results[entry["kind"]].append(row)
            injected += planted
            mark = "==" if row["verdict"] == row["expected"] else "!="
            print(f"{entry['id']}: {row['verdict']} {mark} {row['expected']} ({row['confidence']})", flush=True)
    report: dict = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "injected": injected}
    print()
    for kind, vocabulary in (("eval_family", list(LABELS)), ("training_run", list(VERDICTS))):
        rows = results[kind]
        high = [r for r in rows if r["confidence"] == "high"]
        vocab = vocabulary + sorted({r["verdict"] for r in rows} - set(vocabulary))
        report[kind] = {
            "rows": rows,
            "confusion": confusion(rows),
            "confusion_high": confusion(high),
            "confusion_lenient": confusion(rows, lenient=True),
            "rates": per_verdict(rows, vocab),
            "rates_high": per_verdict(high, vocab),
        }
        print(f"## {kind}: {len(rows)} entries ({len(high)} high confidence)\n")
        print(markdown_confusion("all entries", report[kind]["confusion"], vocab) + "\n")
        print(markdown_confusion("high confidence", report[kind]["confusion_high"], vocab) + "\n")
        print(markdown_rates(report[kind]["rates"]) + "\n")
        accused = [r for r in rows if r["verdict"] in ACCUSING and r["verdict"] != r["expected"]]
        print(f"false accusations ({', '.join(sorted(ACCUSING))}): {len(accused)}")
        false_healthy = [r for r in rows if r["verdict"] == "healthy" and r["expected"] != "healthy"]
        if kind == "training_run":
            print(f'"healthy" on a run not labelled healthy: {len(false_healthy)}')
        print("\ndisagreements:")
        for r in rows:
            if r["verdict"] != r["expected"]:
                print(f"- {r['id']}: rldelta {r['verdict']!r}, expected {r['expected']!r} ({r['confidence']})")
                print(f"    rldelta: {r['explanation'][:400]}")
                print(f"    label:   {r['why'][:400]}")
        print()
    if injected:
        print("## injected exploits: injected tasks flagged by their rule\n")
        print("| exploit | k | families | found / injected | recall |\n|---|---:|---:|---:|---:|")
        for name in inject.INJECTIONS:
            for k in INJECT_K:
                runs = [i for i in injected if i["exploit"] == name and i["k"] == k]
                hit = sum(i["found"] for i in runs)
                print(f"| {name} | {k} | {len(runs)} | {hit} / {k * len(runs)} | {hit / (k * len(runs)):.2f} |")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=1, default=str))
    print(f"\nwritten: {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

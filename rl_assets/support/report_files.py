"""Report places and report writing: where every report folder is and how it is written.

Assets never join a path: they hand what their question's report.py returned (a
`report_md.Report`, or its `files`) to a writer here and put the returned paths in their metadata.
Folders come from the store (`store.report_dir`, `store.lineage_report_dir`, `store.reports_root`).
A question's folder name is spelled once: by its result type (`report_folder`, rl_assets/values/results.py;
support/emit.py writes it here) or, for an asset that does not return one yet, by a constant below.
Reports are outputs for people, never read back as data (docs/contracts.md, "Store").

    <reports>/<slug>/INDEX.md                  the per-model index (report_index)
    <reports>/<slug>/<question folder>/…       one folder per question (named as said above)
    <reports>/model_comparison/…               every model on one benchmark
    <reports>/runs/<job>/…                     one RL job's run lineage
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from rl_assets import store
from rl_assets.fileutil import atomic_write_files, replace_folder

Q2_TRAINING_METRICS = "Q2_training_metrics"
Q2_RL_TEMPORAL = "Q2_rl_temporal"
MODEL_COMPARISON = "model_comparison"
INDEX_FILE = "INDEX.md"


def report_folder(model_id: str, name: str) -> Path:
    """`<reports>/<slug>/<name>`: one question's report folder for one model (not created)."""
    return store.report_dir(model_id) / name


def write_report(model_id: str, name: str, files: Mapping[str, str | bytes]) -> dict[str, Path]:
    """Write a question's report files (name -> text or PNG bytes) into its folder, the folder as a
    whole (fileutil.replace_folder); returns file name -> written path, for the asset's metadata."""
    return replace_folder(report_folder(model_id, name), files)


def write_comparison(files: dict[str, str | bytes]) -> dict[str, Path]:
    """The cross-model comparison report, `<reports>/model_comparison/`."""
    return replace_folder(store.reports_root() / MODEL_COMPARISON, files)


def write_lineage(job: str, files: dict[str, str | bytes]) -> dict[str, Path]:
    """One RL job's run-lineage report, `<reports>/runs/<job>/` (the job name is validated)."""
    return replace_folder(store.lineage_report_dir(job), files)


def write_index(model_id: str, text: str) -> Path:
    """The per-model INDEX.md."""
    return atomic_write_files(store.report_dir(model_id), {INDEX_FILE: text})[INDEX_FILE]


def model_report_files(model_id: str) -> list[str]:
    """Every file under a model's report folder (relative, sorted), INDEX.md and temp files (hidden names,
    and everything in a hidden folder: a report folder being staged) left out."""
    folder = store.report_dir(model_id)
    rels = (p.relative_to(folder) for p in folder.rglob("*") if p.is_file())
    return sorted(r.as_posix() for r in rels if r.name != INDEX_FILE and not any(x.startswith(".") for x in r.parts))


def links_in_model_folder(model_id: str, paths: Iterable[str]) -> list[str]:
    """Those of `paths` that lie in the model's report folder, relative to it (sorted, once each).
    Storage paths (parquet tables, stored values) are not report outputs and are left out."""
    folder = store.report_dir(model_id).resolve()
    out = set()
    for path in paths:
        try:
            out.add(Path(path).resolve().relative_to(folder).as_posix())
        except ValueError:
            continue
    return sorted(out)

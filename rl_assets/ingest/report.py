"""IngestError, the ledger of one ingest (what was found and where each unit went) and IngestReport.

The conservation law (docs/ingest.md): at two levels, everything found ends in exactly one bucket.

- inputs (files and Harbor trial folders the walk found) = read + not read (by reason) + merged
  (the same input reached twice through a symlink);
- units (rows / trials / completions the readers found) = written + skipped (by reason) + merged
  (duplicates and earlier episodes of one trial).

``SkipLog.balance`` checks both and raises AccountingError when they do not add up: that is a bug
in an adapter (a unit that vanished), never bad input. "Lost" = skipped or not read for a reason
that is not by design (a max_rows cap, a README beside the data); the asset check fails on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rl_assets.values.escape import md_table, md_text
from rl_assets.values.masking import masked_args

from . import _json

MAX_EXAMPLES = 5


class IngestError(ValueError):
    """Input that makes the whole source unusable. The message names the file (and row); it is
    masked (rl_assets/values/masking.py), since a spec or a row can carry a credential."""

    def __init__(self, *args):
        super().__init__(*masked_args(args))


class AccountingError(IngestError):
    """The ledger does not add up: a unit was found and then neither written, skipped nor merged."""


class SkipLog:
    """The ledger: units found, counted skips (a few examples kept), merges, notes, inputs."""

    def __init__(self) -> None:
        self.found = 0  # units the readers found, counted before any rule looks at them
        self.counts: dict[str, int] = {}  # skipped units by reason
        self.examples: list[str] = []
        self.by_design: set[str] = set()  # skip / not-read reasons that are not losses
        self.merged: dict[str, int] = {}
        self.notes: dict[str, int] = {}  # units kept but changed (not bad data)
        self.inputs_found = 0
        self.inputs_read = 0
        self.not_read: dict[str, int] = {}
        self.inputs_merged: dict[str, int] = {}
        self.input_examples: list[str] = []
        self.first_keys: dict[str, list[str]] = {}  # file -> keys of its first record (for "not understood" errors)

    # -- units ---------------------------------------------------------------------------
    def find(self, n: int = 1) -> None:
        self.found += n

    def skip(self, reason: str, where: str, lost: bool = True) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if not lost:
            self.by_design.add(reason)
        elif len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {reason}")

    def bad_row(self, exc: BaseException, where: str) -> None:
        """A row that broke a rule nobody anticipated: a counted skip naming file, row and cause."""
        reason = _json.bad_kind(exc) or f"unusable row ({type(exc).__name__})"
        detail = str(exc)[:200]
        self.skip(reason, where if detail in reason else f"{where} ({type(exc).__name__}: {detail})")

    def saw_keys(self, where, record) -> None:
        """Remember the keys of a file's first record: the error for a source with rows but none
        understood names them (docs/ingest.md, "Rows present but not understood")."""
        if isinstance(record, dict) and str(where) not in self.first_keys:
            self.first_keys[str(where)] = sorted(str(k) for k in record)[:40]

    def merge(self, reason: str) -> None:
        self.merged[reason] = self.merged.get(reason, 0) + 1

    def note(self, reason: str) -> None:
        self.notes[reason] = self.notes.get(reason, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    # -- inputs --------------------------------------------------------------------------
    def input_read(self) -> None:
        self.inputs_found += 1
        self.inputs_read += 1

    def input_not_read(self, reason: str, path, lost: bool = True) -> None:
        self.inputs_found += 1
        self.not_read[reason] = self.not_read.get(reason, 0) + 1
        if not lost:
            self.by_design.add(reason)
        elif len(self.input_examples) < MAX_EXAMPLES:
            self.input_examples.append(f"{path}: {reason}")

    def input_merged(self, reason: str) -> None:
        self.inputs_found += 1
        self.inputs_merged[reason] = self.inputs_merged.get(reason, 0) + 1

    def lost(self) -> int:
        """Units skipped and inputs not read for a reason that is not by design."""
        return sum(n for r, n in {**self.counts, **self.not_read}.items() if r not in self.by_design)

    def balance(self, written: int, where: str) -> None:
        units = written + self.total + sum(self.merged.values())
        if units != self.found:
            raise AccountingError(
                f"{where}: ingest accounting bug: found {self.found} units but written {written} + skipped "
                f"{self.total} + merged {sum(self.merged.values())} = {units}"
            )
        inputs = self.inputs_read + sum(self.not_read.values()) + sum(self.inputs_merged.values())
        if inputs != self.inputs_found:
            raise AccountingError(
                f"{where}: ingest accounting bug: found {self.inputs_found} inputs, accounted {inputs}"
            )


@dataclass
class IngestReport:
    rows_written: int = 0
    rows_read: int = 0  # units found (= written + skipped + merged)
    skipped: dict[str, int] = field(default_factory=dict)
    skip_examples: list[str] = field(default_factory=list)
    source_kind: str = ""
    source_ref: str = ""
    source_revision: str | None = None
    token_source: str = ""
    feature_summary: dict[str, float | None] = field(default_factory=dict)
    out_path: str = ""
    side: str = ""
    notes: dict[str, int] = field(default_factory=dict)
    merged: dict[str, int] = field(default_factory=dict)
    accounting: dict = field(default_factory=dict)  # see accounting_of()
    toolkit: list = field(default_factory=list)  # the eval toolkit's own metrics vs rldelta's (toolkit_metrics.py)

    def skipped_markdown(self) -> str:
        if not self.skipped and not self.notes and not self.merged:
            return "no rows skipped"
        lines = [
            md_table(
                ["reason", "rows", "effect"],
                [
                    [md_text(reason), n, effect]
                    for effect, counts in (("skipped", self.skipped), ("merged", self.merged), ("note", self.notes))
                    for reason, n in sorted(counts.items())
                ],
                align="-r-",
            )
        ]
        if self.skip_examples:
            lines += ["", "Examples:", *[f"- {md_text(e)}" for e in self.skip_examples]]  # file names, row text
        return "\n".join(lines)

    def to_metadata(self) -> dict:
        """Plain values (str/int/float/None) for Dagster metadata; the asset may wrap the
        markdown entries with MetadataValue.md."""
        acc = self.accounting
        meta = {
            "rows": self.rows_written,
            "rows_read": self.rows_read,
            "rows_skipped": sum(self.skipped.values()),
            "rows_merged": sum(self.merged.values()),
            "skipped": self.skipped_markdown(),
            "source_kind": self.source_kind,
            "source_ref": self.source_ref,
            "source_revision": self.source_revision or "",
            "token_source": self.token_source,
            "path": self.out_path,
            "side": self.side,
        }
        if acc:
            meta.update(
                {
                    "units": acc["units"],
                    "units_found": acc["found"],
                    "units_lost": acc["lost"],
                    "inputs_found": acc["inputs_found"],
                    "inputs_read": acc["inputs_read"],
                    "inputs_not_read": sum(acc["not_read"].values()),
                    "accounting": accounting_markdown(acc),
                }
            )
        for name, value in self.feature_summary.items():
            meta[f"mean_{name}"] = None if value is None else round(float(value), 6)
        return meta


def accounting_of(log: SkipLog, written: int, units: str) -> dict:
    """The ledger as plain JSON values (kept in a table's stamp, shown by the asset check)."""
    return {
        "units": units,
        "found": log.found,
        "written": written,
        "skipped": dict(log.counts),
        "merged": dict(log.merged),
        "lost": log.lost(),
        "by_design": sorted(log.by_design),
        "inputs_found": log.inputs_found,
        "inputs_read": log.inputs_read,
        "not_read": dict(log.not_read),
        "inputs_merged": dict(log.inputs_merged),
        "examples": list(log.examples),
        "input_examples": list(log.input_examples),
    }


def accounting_markdown(acc: dict) -> str:
    """found = written + skipped + merged, per level, with every reason (markdown)."""
    design = set(acc.get("by_design", ()))

    def effect(reason: str, verb: str) -> str:
        return f"{verb} (by design)" if reason in design else f"{verb} (**lost**)"

    units = acc["units"]
    rows = [[f"{units} found", acc["found"], ""], [f"{units} written", acc["written"], ""]]
    rows += [[md_text(r), n, effect(r, "skipped")] for r, n in sorted(acc["skipped"].items())]
    rows += [[md_text(r), n, "merged"] for r, n in sorted(acc["merged"].items())]
    rows += [["inputs found", acc["inputs_found"], "files and trial folders"], ["inputs read", acc["inputs_read"], ""]]
    rows += [[md_text(r), n, effect(r, "not read")] for r, n in sorted(acc["not_read"].items())]
    rows += [[md_text(r), n, "merged"] for r, n in sorted(acc["inputs_merged"].items())]
    out = [md_table(["count", "n", "effect"], rows, align="-r-")]
    examples = acc.get("examples", []) + acc.get("input_examples", [])
    if examples:
        out += ["", "Examples:", *[f"- {md_text(e)}" for e in examples]]  # file names, row text
    return "\n".join(out)

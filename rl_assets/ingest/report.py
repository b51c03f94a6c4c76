"""IngestError, the skip ledger and IngestReport (what one ingest run did)."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_EXAMPLES = 5


class IngestError(ValueError):
    """Input that makes the whole source unusable. The message names the file (and row)."""


class SkipLog:
    """Counted skips: a bad row/trial is dropped, counted by reason, and a few examples kept."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.examples: list[str] = []
        self.notes: dict[str, int] = {}  # rows kept but changed/reduced (not bad data)

    def skip(self, reason: str, where: str) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(f"{where}: {reason}")

    def note(self, reason: str) -> None:
        self.notes[reason] = self.notes.get(reason, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class IngestReport:
    rows_written: int = 0
    rows_read: int = 0
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

    def skipped_markdown(self) -> str:
        if not self.skipped and not self.notes:
            return "no rows skipped"
        lines = ["| reason | rows | effect |", "|---|---:|---|"]
        lines += [f"| {reason} | {n} | skipped |" for reason, n in sorted(self.skipped.items())]
        lines += [f"| {reason} | {n} | note |" for reason, n in sorted(self.notes.items())]
        if self.skip_examples:
            lines += ["", "Examples:", *[f"- {e}" for e in self.skip_examples]]
        return "\n".join(lines)

    def to_metadata(self) -> dict:
        """Plain values (str/int/float/None) for Dagster metadata; the asset may wrap the
        markdown entry with MetadataValue.md."""
        meta = {
            "rows": self.rows_written,
            "rows_read": self.rows_read,
            "rows_skipped": sum(self.skipped.values()),
            "skipped": self.skipped_markdown(),
            "source_kind": self.source_kind,
            "source_ref": self.source_ref,
            "source_revision": self.source_revision or "",
            "token_source": self.token_source,
            "path": self.out_path,
            "side": self.side,
        }
        for name, value in self.feature_summary.items():
            meta[f"mean_{name}"] = None if value is None else round(float(value), 6)
        return meta

"""What an analysis returns: a frozen, typed result, and the one shape every analysis asset emits.

An analysis (rl_assets/analysis/...) returns a subclass of `AnalysisResult`: its stored value plus
what the asset shows — `report()` (the files of its report folder and the UI summary),
`metadata()`, `checks()` (pure verdicts of its asset checks) and `index_lines()` (its findings in
INDEX.md). An asset body is then call + emit: rl_assets/support/emit.py turns any result into
Dagster events. INDEX.md and the run lineage read a stored value back as its type
(`result_type(asset).from_stored(value)`), so what an analysis says about itself lives beside the
analysis, not in the index writer or the asset.

No Dagster here (values layer): metadata values are plain JSON-able values or `Markdown`, and
checks are `CheckVerdict`s; support/emit.py makes Dagster's types of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self


@dataclass(frozen=True)
class Markdown:
    """A metadata value shown as rendered markdown in the UI."""

    text: str


@dataclass(frozen=True)
class CheckVerdict:
    """The outcome of one asset check, without Dagster: its name (as the asset's check spec declares
    it), whether it passed, its metadata; `warn` makes a failure advisory (severity WARN)."""

    name: str
    passed: bool
    metadata: Mapping[str, Any] = field(default_factory=dict)
    warn: bool = False
    description: str | None = None


def not_applicable_verdict(name: str, reason: str, **metadata: Any) -> CheckVerdict:
    """A check that does not apply, by design (no training logs, one checkpoint): passed, described as not
    applicable, because a failed check shows red in the UI and red must mean something is wrong."""
    return CheckVerdict(
        name,
        passed=True,
        description=f"not applicable: {reason}",
        metadata={"applicable": False, "reason": reason, **metadata},
    )


class RenderedReport(Protocol):
    """What a report renderer returns (rl_assets/analysis/render/report_md.Report): the files of the report
    folder (name -> text or PNG bytes) and the markdown the UI shows."""

    @property
    def files(self) -> dict[str, str | bytes]: ...

    @property
    def summary(self) -> str: ...


# asset name -> the result type its analysis returns (filled as result types are defined)
_RESULT_TYPES: dict[str, type[AnalysisResult]] = {}


@dataclass(frozen=True)
class AnalysisResult:
    """Base of every analysis result. A subclass names its asset (`asset = "behavioral_delta"`) and, when
    it renders a report, its report folder (`report_folder`: the folder's name in the model's report
    folder; rl_assets/support/report_files.py owns where that is and how it is written) and which written
    files its metadata links (`report_links`: metadata key -> file name).

    `values` is the JSON-able value the asset stores (what INDEX.md, the lineage and downstream assets
    read); a subclass adds typed accessors over it rather than copying it into fields, so a value
    stored by an earlier rldelta reads back unchanged (`from_stored`).
    """

    asset: ClassVar[str] = ""
    report_folder: ClassVar[str] = ""  # e.g. "Q1_behavioral_delta": <reports>/<slug>/Q1_behavioral_delta/
    report_links: ClassVar[Mapping[str, str]] = {}
    summary_key: ClassVar[str] = "summary"  # the metadata key of the report's UI summary
    # False for a result that is not one model's (the cross-model comparison, an RL job's lineage): INDEX.md
    # lists per-model analyses only.
    per_model: ClassVar[bool] = True
    # What INDEX.md says for this analysis while the asset has stored no value (e.g. "Q1 ...: not produced").
    index_missing: ClassVar[tuple[str, ...]] = ()
    headline_missing: ClassVar[tuple[str, ...]] = ()

    values: dict[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.asset:
            known = _RESULT_TYPES.get(cls.asset)
            # Re-defining the same class (a module imported twice, e.g. a throwaway copy) is harmless;
            # two different result types for one asset would make INDEX.md read one with the other.
            if known is not None and known.__qualname__ != cls.__qualname__:
                raise TypeError(f"{cls.__qualname__}: asset {cls.asset!r} already has result type {known.__qualname__}")
            _RESULT_TYPES[cls.asset] = cls

    @classmethod
    def from_stored(cls, values: dict[str, Any]) -> Self:
        """The result an asset stored, read back (INDEX.md, the lineage)."""
        return cls(values=values)

    def stored(self) -> dict[str, Any]:
        """The value the asset outputs (the IO manager stores it as JSON)."""
        return self.values

    def report(self) -> RenderedReport | None:
        """The report folder's files and the UI summary; None when the analysis writes no report."""
        return None

    def metadata(self) -> dict[str, Any]:
        """The asset's metadata beyond the report's summary and links (plain values or Markdown)."""
        return {}

    def checks(self) -> list[CheckVerdict]:
        """Verdicts of the asset's checks, in the order its check specs declare them."""
        return []

    def index_lines(self) -> list[str]:
        """This result's findings in INDEX.md (markdown list items, without the bullet)."""
        return []

    def index_headline(self) -> list[str]:
        """Lines INDEX.md shows above its table, before any finding (reward integrity's verdict)."""
        return []


def result_type(asset: str) -> type[AnalysisResult] | None:
    """The result type of `asset`'s analysis, or None when it returns none (or its module is not loaded)."""
    return _RESULT_TYPES.get(asset)


def read_result(asset: str, stored: Any) -> AnalysisResult | None:
    """`stored` (an asset's stored value) as its result type; None when there is no type or no such value."""
    cls = result_type(asset)
    return cls.from_stored(stored) if cls is not None and isinstance(stored, dict) else None


def index_text(asset: str, stored: Any) -> tuple[list[str], list[str]]:
    """(headline, findings) INDEX.md shows for `asset` given its latest stored value (None: none stored):
    the result's own lines, or its type's "not produced" lines; nothing for an asset without a result type."""
    cls = result_type(asset)
    if cls is None:
        return [], []
    if stored is None:
        return list(cls.headline_missing), list(cls.index_missing)
    result = read_result(asset, stored)
    return (result.index_headline(), result.index_lines()) if result is not None else ([], [])

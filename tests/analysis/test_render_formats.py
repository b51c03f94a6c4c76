"""Number formats of the reports: a delta's interval is signed at both ends, as a plain number or in points."""

from __future__ import annotations

from rl_assets.analysis.compare.report import summary
from rl_assets.analysis.render.report_md import fmt_ci


def test_fmt_ci_signed_applies_to_plain_numbers_and_percent():
    assert fmt_ci(-0.1, 0.25, signed=True) == "[-0.100, +0.250]"
    assert fmt_ci(0.0, 0.5, digits=2, signed=True) == "[+0.00, +0.50]"
    assert fmt_ci(-0.1, 0.25, pct=True, signed=True) == "[-10.0pp, +25.0pp]"
    # unsigned stays as it was
    assert fmt_ci(-0.1, 0.25) == "[-0.100, 0.250]"
    assert fmt_ci(0.1, 0.25, pct=True) == "[10.0%, 25.0%]"
    assert fmt_ci(None, 0.2, signed=True) == "—"
    assert fmt_ci(float("nan"), 0.2, signed=True) == "[—, +0.200]"


def test_the_comparison_shows_a_signed_interval_of_the_change():
    result = {
        "benchmark": {"name": "pinned-bench"},
        "ranking_rule": "by Δ",
        "ranked": [
            {"model_id": "org/m", "delta": 0.2, "ci95": [0.05, 0.35], "significant": True, "above_noise_floor": True}
        ],
        "not_enough_data": [],
        "excluded": [],
    }
    assert "+0.200 [+0.050, +0.350]" in summary(result)

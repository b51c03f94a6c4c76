"""Format compliance on REAL reasoning-gym evaluation files (tests/fixtures/realdata/reasoning_gym_cognition,
see its PROVENANCE.txt): Qwen2.5-3B-Instruct before RL and after 500 RL steps on games, the same 100
rectangle_count tasks x 3 repeats.

Counted by hand from the raw JSON with a throwaway line, independent of rldelta::

    python -c "import json; d=json.load(open(F)); cs=[c for ds in d['categories'][0]['datasets']
      for r in ds['results'] for c in r['completions']];
      print(sum(c['model_answer'] is None or not str(c['model_answer']).strip() for c in cs), len(cs),
            sum(c['score'] >= 1 for c in cs))"

original: 1 of 300 completions without an answer, 0 scored 1.0; games: 2 of 300, 29 scored 1.0.
"""

from __future__ import annotations

from pathlib import Path

from rl_assets.analysis.audit import AUDIT_COLUMNS
from rl_assets.analysis.audit.audit import audit_paired
from rl_assets.analysis.audit.compliance import format_compliance
from rl_assets.ingest import ingest_source, read_traces

DATA = Path(__file__).parents[1] / "fixtures" / "realdata" / "reasoning_gym_cognition"


def _rows(name, tmp_path):
    out = tmp_path / f"{name}.parquet"
    ingest_source(str(DATA / name), out, hub=None)
    return read_traces(out, AUDIT_COLUMNS).to_pylist()


def test_rectangle_count_format_compliance_before_and_after_rl(tmp_path):
    before = _rows("original_to_cognition.rectangle_count.json", tmp_path)
    after = _rows("games_qwen_3b_500_to_cognition.rectangle_count.json", tmp_path)
    _, families, _ = audit_paired(before, after, n_boot=200)
    fc = {r["family"]: r for r in format_compliance(families)}["rectangle_count"]
    assert fc["applicable"] and fc["tasks"] == 100
    assert (fc["before"]["no_answer"], fc["before"]["attempts"]) == (1, 300)
    assert (fc["after"]["no_answer"], fc["after"]["attempts"]) == (2, 300)
    assert not fc["significant"]  # 1 -> 2 of 300: no format change to speak of
    assert (fc["before"]["correct"], fc["after"]["correct"]) == (0, 29)  # the recorded scores

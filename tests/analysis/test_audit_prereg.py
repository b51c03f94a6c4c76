"""Pre-registered predictions: loading, proof of timing, and whether each held."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from rl_assets.analysis.audit.prereg import prediction_held, registration
from rl_assets.ingest.formats.predictions import PredictionsError, file_evidence, load_predictions


def test_load_json_and_yaml_forms(tmp_path):
    j = tmp_path / "p.json"
    j.write_text(json.dumps({"predictions": {"chain_sum": {"label": "Mostly Format"}}}))
    y = tmp_path / "p.yaml"
    y.write_text("letter_counting: gamed\nleg_counting: no gain\n")
    assert load_predictions(j) == {"chain_sum": "mostly format"}
    assert load_predictions(y) == {"letter_counting": "gamed", "leg_counting": "no gain"}


def test_bad_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("[1, 2]")
    with pytest.raises(PredictionsError, match="must map task family"):
        load_predictions(bad)


def _file(tmp_path, when: datetime):
    path = tmp_path / "pred.json"
    path.write_text('{"chain_sum": "gain"}')
    os.utime(path, (when.timestamp(), when.timestamp()))
    return path


def test_registration_before_training_is_verified(tmp_path):
    written = datetime(2026, 10, 30, 16, 23, tzinfo=UTC)
    info = registration(file_evidence(_file(tmp_path, written)), written + timedelta(minutes=2), "registry")
    assert info["predates_training"] is True
    assert info["sha256"] == hashlib.sha256(b'{"chain_sum": "gain"}').hexdigest()
    assert info["evidence"].startswith("file mtime")  # tmp_path is not in git: weak evidence, said so
    assert info["verdict"].startswith("pre-registered")


def test_registration_after_training_is_flagged(tmp_path):
    written = datetime(2026, 10, 30, 16, 23, tzinfo=UTC)
    info = registration(file_evidence(_file(tmp_path, written)), written - timedelta(days=1))
    assert info["predates_training"] is False and info["verdict"].startswith("NOT pre-registered")


def test_no_training_start_cannot_verify(tmp_path):
    info = registration(file_evidence(_file(tmp_path, datetime.now(UTC))), None)
    assert info["predates_training"] is None and info["verdict"].startswith("cannot verify")


def test_prediction_held():
    row = {"label": "gamed", "reward_gain": {"estimate": 0.1, "lo": 0.02, "hi": 0.2}}
    assert prediction_held("gamed", row)[0] is True
    assert prediction_held("real skill", row)[0] is False
    assert prediction_held("gain", row)[0] is True
    assert prediction_held("no gain", row)[0] is False
    assert prediction_held("something", row)[0] is None
    assert prediction_held("gamed", {"label": "not enough data"})[0] is None

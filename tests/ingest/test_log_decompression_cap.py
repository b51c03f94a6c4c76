"""A training-log file cannot expand without bound (issue 25 item 13): `open_text` caps decompressed bytes
(a ratio of the compressed size) and lines, and a file past a cap is listed as not read, with the reason."""

import gzip

import pytest

from rl_assets.ingest.skyrl_log import parse_training_logs
from rl_assets.ingest.training_logs import files
from rl_assets.ingest.training_logs.files import LogTooLarge, open_text


@pytest.fixture
def small_caps(monkeypatch):
    monkeypatch.setattr(files, "MAX_SLACK_BYTES", 1 << 20)  # 1 MiB + 100x the compressed size
    monkeypatch.setattr(files, "MAX_LINES", 1000)


def test_a_gz_of_one_endless_line_stops_at_the_byte_cap(tmp_path, small_caps):
    bomb = tmp_path / "job.log.gz"
    bomb.write_bytes(gzip.compress(b"a" * (8 << 20)))  # 8 MiB of one line in ~8 KB
    with pytest.raises(LogTooLarge, match=r"job.log.gz: decompresses to more than \d+ bytes"):
        with open_text(bomb) as fh:
            fh.readline()


def test_a_gz_of_bare_newlines_stops_at_the_line_cap(tmp_path, small_caps):
    bomb = tmp_path / "job.log.gz"
    bomb.write_bytes(gzip.compress(b"\n" * 5000))
    with pytest.raises(LogTooLarge, match="job.log.gz: more than 1000 lines"):
        with open_text(bomb) as fh:
            for _ in fh:
                pass


def test_a_capped_file_is_read_up_to_the_cap_and_named_a_failure(tmp_path, small_caps):
    # issue 36: a file past the cap was dropped whole with a green check; now what came before the cap
    # is read, and the file is a failure of the ledger naming where it stopped
    logs = tmp_path / "training_logs"
    logs.mkdir()
    (logs / "big.log.gz").write_bytes(gzip.compress(b"x" * (8 << 20)))
    (logs / "job.log").write_text("INFO step 1 done\n")
    parsed = parse_training_logs(logs)
    ledger = parsed.accounting["files"]
    assert ledger["found"] == 2 and ledger["read"] == 2
    (failure,) = ledger["failures"]
    assert failure["file"] == "big.log.gz" and "decompresses to more than" in failure["reason"]
    assert failure["offset"] == 0 and failure["unit"] == "decompressed character"


def test_a_log_within_the_caps_reads_as_before(tmp_path):
    log = tmp_path / "job.log.gz"
    log.write_bytes(gzip.compress(b"one\r\ntwo\n"))
    with open_text(log) as fh:
        assert list(fh) == ["one\r\n", "two\n"]

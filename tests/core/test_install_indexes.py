"""`make install` keeps remote extra indexes and local ones that hold every locked project, and drops a
local index that lacks some (pip would print a warning per missing project) — scripts/extra_indexes.py,
run against a real pip with a real config file."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "extra_indexes.py"


def _run(tmp_path: Path, extra: str) -> str:
    (tmp_path / "pip.conf").write_text(f"[global]\nextra-index-url = {extra}\n")
    env = {**os.environ, "PIP_CONFIG_FILE": str(tmp_path / "pip.conf")}
    env.pop("PIP_EXTRA_INDEX_URL", None)
    pip = str(Path(sys.executable).with_name("pip"))
    out = subprocess.run(
        [sys.executable, str(SCRIPT), pip, str(tmp_path / "lock.txt")], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.rstrip("\n")


def test_local_indexes_lacking_a_locked_project_are_dropped(tmp_path):
    (tmp_path / "lock.txt").write_text("# pinned\nDagster_Webserver==1.0\nsix==1.16.0 ; python_version >= '3'\n")
    full, partial = tmp_path / "full", tmp_path / "partial"
    for name in ("dagster-webserver", "six"):
        (full / name).mkdir(parents=True)
    (partial / "six").mkdir(parents=True)
    extra = f"https://mirror.example/simple {full.as_uri()} {partial.as_uri()}"
    assert _run(tmp_path, extra).split() == ["https://mirror.example/simple", full.as_uri()]


def test_nothing_kept_is_a_space_so_pip_does_not_fall_back_to_the_config(tmp_path):
    (tmp_path / "lock.txt").write_text("six==1.16.0\n")
    assert _run(tmp_path, (tmp_path / "absent").as_uri()) == " "

"""`rldelta analyze --baseline … --post …`: one's own pair of eval runs analysed in one command (issue 36:
the README's by-hand block failed as pasted, `rldelta add-model` writing to one Dagster instance and
`dagster asset materialize` reading another). Checked here: the command registers both evals, adds the
partition on the instance `make ui` opens and `dagster` reads at that DAGSTER_HOME, runs the analyses
that need no Hub upload (INDEX.md last) and records report links where `make ui` serves them; and a
CLI verb that falls back to that instance says so instead of choosing silently."""

import random
from pathlib import Path

import dagster as dg
import pytest

from resources.io_manager import latest_value
from rl_assets.cli import main
from support.eval_toolkits import lm_eval_row, lm_eval_run

RL, BASE = "me/rl-step40-8B", "me/base-8B"


def lm_eval_pair(root: Path) -> tuple[Path, Path]:
    """An lm-evaluation-harness `--log_samples` pair on gsm8k: the base model solves ~40%, the RL one ~80%."""
    rng = random.Random(0)

    def rows(rate):
        out = []
        for i in range(40):
            answer = str(2 * i)
            got = answer if rng.random() < rate else "[invalid]"
            out.append(lm_eval_row(i, f"What is {i}+{i}?", answer, got, float(got == answer)))
        return out

    base, rl = root / "evals/base/me__base-8B", root / "evals/rl/me__rl-step40-8B"
    lm_eval_run(base, "gsm8k", rows(0.4))
    lm_eval_run(rl, "gsm8k", rows(0.8))
    return base, rl


@pytest.fixture
def no_instance_set(rldelta_home, monkeypatch):
    """A new user's shell: no DAGSTER_HOME, no reports URL (monkeypatch restores both after the test)."""
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.delenv("RLDELTA_REPORTS_URL", raising=False)
    for name in ("RLDELTA_UI_PORT", "RLDELTA_REPORTS_PORT"):
        monkeypatch.delenv(name, raising=False)
    return rldelta_home


def test_analyze_registers_runs_and_links_on_the_make_ui_instance(no_instance_set, tmp_path, capsys):
    base, rl = lm_eval_pair(tmp_path)
    # the model's other evals (a larger score gain elsewhere): analyze still analyses the pair it was given
    for model_id, score, base_model in ((BASE, "0.0", None), (RL, "1.0", BASE)):
        extra = ["--base-model", base_model] if base_model else []
        assert main(["register-eval", model_id, "--benchmark", "other-bench", "--traces", str(base), "--score", score,
                     *extra]) == 0  # fmt: skip
    rc = main(["analyze", "--baseline", str(base), "--post", str(rl), "--model", RL, "--base-model", BASE,
               "--benchmark", "gsm8k"])  # fmt: skip
    out, err = capsys.readouterr()
    assert rc == 0, out + err
    assert "0 step(s) failed" in out and "INDEX.md" in out
    dagster_home = no_instance_set / "dagster"
    assert f"using the Dagster instance {dagster_home.resolve()}" in err  # said, not chosen silently

    # what `dagster asset materialize` / `make ui` read at that DAGSTER_HOME: the partition and the run
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        assert RL in instance.get_dynamic_partitions("models")
        assert latest_value(instance, "eval_pair", RL)["benchmark"] == "gsm8k"
        metadata = {}
        for asset in ("behavioral_delta", "learning_audit", "trace_pairs", "analysis_index"):
            event = instance.get_latest_materialization_event(dg.AssetKey(asset))
            assert event is not None and event.asset_materialization.partition == RL, asset
            metadata[asset] = event.asset_materialization.metadata
    # RLDELTA_REPORTS_URL unset: links recorded for `make ui`'s default address, which it serves
    urls = {a: next((v.value for k, v in m.items() if k.endswith("_url")), None) for a, m in metadata.items()}
    assert all(u and u.startswith("http://127.0.0.1:3001/me--rl-step40-8B/") for u in urls.values()), urls
    index = no_instance_set / "reports" / "me--rl-step40-8B" / "INDEX.md"
    assert "audit labels: gsm8k" in index.read_text()


def test_add_model_without_dagster_home_says_which_instance_it_uses(no_instance_set, capsys):
    assert main(["add-model", RL]) == 0
    out, err = capsys.readouterr()
    where = (no_instance_set / "dagster").resolve()
    assert f"registered: {RL}" in out
    assert f"using the Dagster instance {where}" in err and f"export DAGSTER_HOME={where}" in err


def test_add_model_with_dagster_home_is_quiet_about_it(no_instance_set, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "mine"))
    assert main(["add-model", RL]) == 0
    assert "DAGSTER_HOME" not in capsys.readouterr().err
    with dg.DagsterInstance.from_config(str(tmp_path / "mine")) as instance:
        assert RL in instance.get_dynamic_partitions("models")


def test_a_missing_post_side_is_named_and_registers_nothing(no_instance_set, tmp_path, capsys):
    base, _ = lm_eval_pair(tmp_path)
    missing = tmp_path / "evals" / "nowhere.jsonl"
    assert main(["analyze", "--baseline", str(base), "--post", str(missing), "--model", RL]) == 2
    err = capsys.readouterr().err
    assert "--post" in err and "nowhere.jsonl" in err
    from resources.registry import SqlRegistry
    from rl_assets.settings import registry_url

    reg = SqlRegistry(registry_url())  # where analyze would have written (create_all: it may not exist yet)
    reg.create_all()
    assert reg.models_by_name(RL) == [] and reg.models_by_name(f"{RL}-baseline") == []

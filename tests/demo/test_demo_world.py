"""The demo world: deterministic, complete, idempotent, and its ground truth holds in the files.

Facts are checked against what is on disk (parquet rows, log text, registry rows), never against
the generator's in-memory objects; docs/demo.md lists which ground-truth keys are recomputed.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import statistics
import struct
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from rl_assets.demo import build_world
from rl_assets.demo.constants import ALPHA, ALPHA_TRACES, BASE, BETA, ORG, RG, TBM, UPLOADING, eval_dataset

SCALE = 0.3
ANSI = re.compile(r"\x1b\[[0-9;]*m")
MIRROR = re.compile(r"WANDB_MIRROR kind=(\w+) step=(\d+) metrics=(.*)$")
ERROR_OBS = re.compile(r"command not found|^Traceback \(most recent call last\)|No such file or directory", re.M)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLDELTA_HOME", str(home))
        for var in ("RLDELTA_HUB_DIR", "RLDELTA_REGISTRY_URL"):
            mp.delenv(var, raising=False)
        w = build_world(seed=7, scale=SCALE)
    return w, json.loads(w.ground_truth_path.read_text())


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".sqlite")
    }


def dataset_rows(w, repo_id: str) -> list[dict]:
    files = sorted((w.hub_dir / "datasets" / repo_id / "data").glob("*.parquet"))
    assert files, f"no shards for {repo_id}"
    return [r for f in files for r in pq.read_table(f).to_pylist()]


def trials(rows: list[dict]) -> dict[str, dict]:
    """Last episode per trial (episode-level exports repeat a trial with cumulative rows)."""
    out: dict[str, dict] = {}
    for r in rows:
        k = int(r["episode"].split("-")[1])
        if r["trial_name"] not in out or k > int(out[r["trial_name"]]["episode"].split("-")[1]):
            out[r["trial_name"]] = r
    return out


def by_task(ts: dict[str, dict]) -> dict[str, list[dict]]:
    """Attempts of a task in date order (attempt 0 = earliest)."""
    out = defaultdict(list)
    for r in ts.values():
        out[r["task"]].append(r)
    return {t: sorted(rs, key=lambda r: (r["date"], r["trial_name"])) for t, rs in out.items()}


def actions(conv: list[dict]) -> list[str]:
    out = []
    for m in conv:
        if m["role"] == "assistant":
            for block in re.findall(r"<tool_call>\n(.*?)\n</tool_call>", m["content"], re.S):
                call = json.loads(block)
                out.append(call["arguments"].get("keystrokes") or call["name"])
    return out


def test_same_seed_same_bytes_and_other_seed_differs(tmp_path, world):
    w, _ = world
    again = build_world(tmp_path / "a", seed=7, scale=SCALE, registry=False)
    first = digests(w.hub_dir)
    assert first == digests(again.hub_dir)
    assert w.ground_truth_path.read_bytes() == again.ground_truth_path.read_bytes()
    other = build_world(tmp_path / "b", seed=8, scale=SCALE, registry=False)
    assert digests(other.hub_dir) != first


def test_every_repo_and_file_is_written(world):
    w, g = world
    models = w.hub_dir / "models"
    for m in (BASE, ALPHA, BETA):
        names = {p.name for p in (models / m).iterdir()}
        assert {"model.safetensors", "config.json", "README.md"} <= names
        blob = (models / m / "model.safetensors").read_bytes()
        (n,) = struct.unpack("<Q", blob[:8])
        assert json.loads(blob[8 : 8 + n])["demo.weight"]["data_offsets"] == [0, 16] and len(blob) == 8 + n + 16
    assert [p.name for p in (models / UPLOADING).iterdir()] == ["README.md"]
    for m, job in ((ALPHA, "rl-alpha"), (BETA, "rl-beta")):
        assert json.loads((models / m / "rl_config.json").read_text())["job_name"] == job
        readme = (models / m / "README.md").read_text()
        assert BASE in readme and "Training Traces" in readme and f"datasets/{ORG}/{job}" in readme
        names = sorted(p.name for p in (models / m / "training_logs").iterdir())
        assert names == g["training_logs"][m]["files"]
        assert [n for n in names if n.endswith(".out")] == [f"{job}_1001.out", f"{job}_1002.out"]
    assert "wandb-summary.json" in g["training_logs"][ALPHA]["files"]  # the run's independent record
    assert (w.hub_dir / "datasets" / ALPHA_TRACES).is_dir()
    assert not (w.hub_dir / "datasets" / ORG / "rl-beta").exists()  # Q2 temporal not applicable
    for m in (BASE, ALPHA, BETA):
        for b in (TBM, RG):
            assert (
                len(list((w.hub_dir / "datasets" / eval_dataset(m, b) / "data").glob("train-*-of-00002.parquet"))) == 2
            )
    assert g["partitions"] == [ALPHA, BETA] == w.partitions


def test_registry_rows_exercise_resolution_rules(world):
    from resources.registry import SqlRegistry

    w, g = world
    reg = SqlRegistry(w.registry_url)
    base = reg.models_by_name(BASE)[0]
    alpha = reg.models_by_name(ALPHA)[0]
    assert (
        alpha["base_model_id"] == base["id"] and base["training_end"] < alpha["training_start"] < alpha["training_end"]
    )
    assert reg.benchmark_by_name(TBM)["id"] == g["registry"]["benchmark_ids"][TBM]
    jobs = reg.jobs_for_model(alpha["id"])
    assert {j["job_status"] for j in jobs} == {"Finished", "Started"}
    assert any(j["ended_at"] is None and j["job_status"] == "Finished" for j in jobs)
    started = [j for j in jobs if j["job_status"] == "Started"]
    assert all(s["started_at"] > max(j["ended_at"] for j in jobs if j["ended_at"]) for s in started)
    all_jobs = jobs + reg.jobs_for_model(base["id"])
    assert {type(j["metrics"]) for j in all_jobs if j["metrics"] is not None} == {list, dict}
    for j in all_jobs:
        if j["hf_traces_link"]:
            assert j["hf_traces_link"].startswith(f"https://huggingface.co/datasets/{ORG}/")
    # The expected pair's scores match the datasets they point to (errors 0, infra errors dropped).
    pick = g["eval_pairs"][ALPHA]["benchmark"][TBM]
    ts = trials(dataset_rows(w, pick["post_dataset"])).values()
    kept = [r for r in ts if r["result"] != "DaytonaError"]
    acc = sum(float(r["result"]) if r["result"][0].isdigit() else 0.0 for r in kept) / len(kept)
    assert acc == pytest.approx(pick["post_score"], abs=1e-6)
    assert g["eval_pairs"][ALPHA]["largest-delta"]["benchmark"] == RG
    assert g["eval_pairs"][ALPHA]["latest"]["benchmark"] == TBM


def test_terminal_bench_behaviour_changes_hold(world):
    w, g = world
    base = trials(dataset_rows(w, eval_dataset(BASE, TBM)))
    facts = g[TBM][ALPHA]
    post_rows = dataset_rows(w, eval_dataset(ALPHA, TBM))
    post = trials(post_rows)

    def rates(ts):
        obs = [
            m["content"]
            for r in ts.values()
            for m in r["conversations"]
            if m["content"].startswith("New Terminal Output:")
        ]
        agent = [m["content"] for r in ts.values() for m in r["conversations"] if m["role"] == "assistant"]
        think = [len(t.split()) for a in agent for t in re.findall(r"<think>(.*?)</think>", a, re.S)]
        return (
            sum(bool(ERROR_OBS.search(o)) for o in obs) / len(obs),
            statistics.fmean(think),
            statistics.fmean(len(actions(r["conversations"])) for r in ts.values()),
            sum(a.count("```") // 2 for a in agent) / len(agent),
        )

    (be, bt, bc, bf), (pe, pt, pc, pf) = rates(base), rates(post)
    assert be > 0.25 and pe < 0.15 and pt < 0.6 * bt
    # Unchanged by construction (same per-(task, attempt) draws on both sides): exactly equal.
    assert bc == pc and bf == pf
    solve = lambda ts: statistics.fmean(r["result"] == "1.0" for r in ts.values())  # noqa: E731
    assert solve(post) - solve(base) > 0.1
    assert facts["solve_rate"] == {"base": round(solve(base), 4), "post": round(solve(post), 4)}
    assert {"AgentTimeoutError", "DaytonaError"} <= {r["result"] for r in base.values()}
    # Flips and divergence: attempt 0 shares the first k actions, then differs at k.
    bt_, pt_ = by_task(base), by_task(post)
    directions = set()
    for f in facts["flipped_tasks"]:
        b0, p0 = bt_[f["task"]][0], pt_[f["task"]][0]
        assert (b0["result"] == "1.0") != (p0["result"] == "1.0")
        k, ba, pa = f["divergence_action_index"], actions(b0["conversations"]), actions(p0["conversations"])
        assert 1 <= k <= 4 and ba[:k] == pa[:k] and ba[k] != pa[k]
        directions.add(f["direction"])
    assert directions == {"up", "down"}
    xss = pt_[facts["xss_task"]][0]["conversations"]
    assert any("<script>window.__xss=1</script>" in m["content"] for m in xss if m["role"] == "assistant")
    # Episode-level rows in the base export; differing shard schemas in the post export.
    assert len(dataset_rows(w, eval_dataset(BASE, TBM))) > len(base)
    files = sorted((w.hub_dir / "datasets" / eval_dataset(ALPHA, TBM) / "data").glob("*.parquet"))
    assert ["trace_source" in pq.read_schema(f).names for f in files] == [False, True]


SELF_CORRECTION = re.compile(r"let me try again|that didn't work|on second thought", re.I)
UNCHANGED_TOL = 1e-9  # "unchanged" features are equal trace by trace (side-independent draws), so the
# means are equal up to float rounding; any real drift is at least 1 count / n traces >= 1/360.
CLEARLY_LOWER = 0.85  # a declared decrease: post mean <= 0.85 x base mean (smallest built-in: think ratio ~0.81)


def trace_features(conv: list[dict]) -> dict:
    """The features the demo declares (or records) recomputed from one exported conversation."""
    agent = [m["content"] for m in conv if m["role"] == "assistant"]
    obs = [m["content"] for m in conv if m["role"] == "user" and m["content"].startswith("New Terminal Output:")]
    think = sum(len(t.split()) for a in agent for t in re.findall(r"<think>(.*?)</think>", a, re.S))
    words = sum(len(a.split()) for a in agent)
    errors = sum(bool(ERROR_OBS.search(o)) for o in obs)
    return {
        "tool_calls_total": len(actions(conv)),
        "tool_responses": len(obs),
        "tool_errors": errors,
        "tool_error_rate": errors / len(obs) if obs else None,
        "assistant_msgs": len(agent),
        "think_tokens": think,
        "think_token_ratio": think / words,
        "code_fence_blocks": sum(a.count("```") // 2 for a in agent),
        "self_correction_hits": sum(len(SELF_CORRECTION.findall(a)) for a in agent),
        "premature_stop": float(conv[-1]["role"] == "assistant" and "mark_task_complete" not in actions(conv)),
    }


def side_means(convs: list[list[dict]]) -> dict:
    fs = [trace_features(c) for c in convs]
    return {k: statistics.fmean(f[k] for f in fs if f[k] is not None) for k in fs[0]}


def check_declared(declared: dict, before: dict, after: dict, recorded: dict, where: str) -> None:
    """Declared changes hold in the measured means, and the ground truth records those means."""
    from rl_assets.schema import FEATURE_COLUMNS

    assert set(recorded["before"]) == set(recorded["after"]) == set(FEATURE_COLUMNS), where
    for side, mine in (("before", before), ("after", after)):
        for k, v in mine.items():
            assert recorded[side][k] == pytest.approx(v, abs=1e-3), (where, side, k)
    assert {"increase", "decrease", "unchanged"} >= set(declared.values())
    for k, change in declared.items():
        if k not in before:
            continue  # reward: checked by the caller
        b, a = before[k], after[k]
        if change == "unchanged":
            assert abs(a - b) <= UNCHANGED_TOL, (where, k, b, a)
        elif change == "decrease":
            assert a <= CLEARLY_LOWER * b, (where, k, b, a)
        else:
            assert a >= b / CLEARLY_LOWER, (where, k, b, a)


@pytest.fixture(scope="module")
def world_full(tmp_path_factory):
    w = build_world(tmp_path_factory.mktemp("full"), seed=7, scale=1.0, registry=False)
    return w, json.loads(w.ground_truth_path.read_text())


@pytest.mark.parametrize("which", ["world", "world_full"])  # scale 0.3 and 1.0
def test_declared_changes_match_measured_features(which, request):
    w, g = request.getfixturevalue(which)
    base = trials(dataset_rows(w, eval_dataset(BASE, TBM)))
    bt_ = by_task(base)
    for model in (ALPHA, BETA):
        facts = g[TBM][model]
        post = trials(dataset_rows(w, eval_dataset(model, TBM)))
        before = side_means([r["conversations"] for r in base.values()])
        after = side_means([r["conversations"] for r in post.values()])
        check_declared(
            facts["behaviour_changes"],
            before,
            after,
            {"before": facts["feature_means"]["base"], "after": facts["feature_means"]["post"]},
            f"{which} {model}",
        )
        for k in ("tool_errors", "think_tokens"):
            assert facts["behaviour_changes"][k] == "decrease"
        # "Unchanged" holds pair by pair: same (task, attempt) -> same counts on both sides.
        for task, rs in by_task(post).items():
            for b, p in zip(bt_[task], rs, strict=True):
                fb, fp = trace_features(b["conversations"]), trace_features(p["conversations"])
                for k, change in facts["behaviour_changes"].items():
                    if change == "unchanged":
                        assert fb[k] == fp[k], (which, model, task, k)
        # Timeouts / context-length errors end on an agent turn without mark_task_complete.
        for side, ts in (("base", base), ("post", post)):
            stops = [trace_features(r["conversations"])["premature_stop"] for r in ts.values()]
            assert all(
                trace_features(r["conversations"])["premature_stop"] == 1.0
                for r in ts.values()
                if r["result"] in ("AgentTimeoutError", "ContextLengthExceededError")
            )
            assert facts["premature_stop_rate"][side] == round(statistics.fmean(stops), 4) > 0
    # RL rollouts: first vs last quarter of the run.
    rows = sorted(dataset_rows(w, ALPHA_TRACES), key=lambda r: (r["date"], r["trial_name"]))
    facts = g["rl_rollouts"][ALPHA]
    q = len(rows) // 4
    first, last = rows[:q], rows[-q:]
    check_declared(
        facts["trends"],
        side_means([r["conversations"] for r in first]),
        side_means([r["conversations"] for r in last]),
        {"before": facts["feature_means"]["first_quarter"], "after": facts["feature_means"]["last_quarter"]},
        f"{which} rollouts",
    )
    reward = lambda rs: statistics.fmean(r["result"] == "1.0" for r in rs)  # noqa: E731
    assert facts["trends"]["reward"] == "increase" and reward(last) > reward(first)


def test_reasoning_gym_scores_and_audit_stories_hold(world):
    import reasoning_gym
    from reasoning_gym.algorithmic.word_sorting import TextTransformation
    from reasoning_gym.utils import extract_answer

    w, g = world
    sides = {"base": dataset_rows(w, eval_dataset(BASE, RG)), "post": dataset_rows(w, eval_dataset(ALPHA, RG))}
    got: dict = defaultdict(lambda: defaultdict(list))
    for side, rows in sides.items():
        for r in rows:
            cfg = json.loads(r["task_config"])
            if "transformation" in cfg:
                cfg["transformation"] = TextTransformation(cfg["transformation"])
            ds = reasoning_gym.create_dataset(r["task_family"], **cfg)
            entry = ds[r["task_index"]]
            response = r["conversations"][-1]["content"]
            assert r["question"] == entry["question"] == r["conversations"][0]["content"]
            assert r["answer"] == extract_answer(response) and r["task"] == f"{r['task_family']}/{r['task_index']}"
            score = ds.score_answer(extract_answer(response), entry)
            assert float(r["result"]) == pytest.approx(score)
            got[r["task_family"]][side].append((score, r["answer"], entry, response))
    facts = g[RG][ALPHA]
    mean = lambda xs: statistics.fmean(x[0] for x in xs)  # noqa: E731
    for fam, f in facts.items():
        assert f["strict_mean"] == {s: round(mean(got[fam][s]), 4) for s in ("base", "post")}
    assert {f: facts[f]["label"] for f in facts} == {
        "letter_counting": "gamed",
        "propositional_logic": "gamed",
        "word_sorting": "no real gain",
        "basic_arithmetic": "real skill",
        "chain_sum": "mostly format",
        "leg_counting": "no change",
    }
    lc, pl, ws = got["letter_counting"], got["propositional_logic"], got["word_sorting"]
    assert {a for _, a, _, _ in lc["post"]} == {"1"} and mean(lc["post"]) > mean(lc["base"])
    assert all(a == " ∧ ".join(f"({p})" for p in e["metadata"]["premises"]) for _, a, e, _ in pl["post"])
    assert all(a == ", ".join(e["metadata"]["original_words"]) for _, a, e, _ in ws["post"])
    assert mean(ws["post"]) <= mean(ws["base"]) + 0.05
    cs = got["chain_sum"]
    untagged = [x for x in cs["base"] if x[1] is None]
    assert len(untagged) > 0.6 * len(cs["base"]) and mean(cs["post"]) - mean(cs["base"]) > 0.5
    lenient = statistics.fmean(re.findall(r"-?\d+", resp)[-1] == e["answer"] for _, _, e, resp in cs["base"])
    assert lenient > 0.8
    ba = got["basic_arithmetic"]
    assert mean(ba["post"]) - mean(ba["base"]) > 0.4 and all(x[1] is not None for s in ba.values() for x in s)
    assert abs(mean(got["leg_counting"]["post"]) - mean(got["leg_counting"]["base"])) < 0.1


def _wandb_steps(text: str) -> tuple[dict[int, dict], int]:
    steps, bad = {}, 0
    for line in text.splitlines():
        m = MIRROR.search(ANSI.sub("", line))
        if not m:
            continue
        try:
            metrics = json.loads(m.group(3))
        except ValueError:
            bad += 1
            continue
        if m.group(1) == "train":
            steps[int(m.group(2))] = metrics
    return steps, bad


def test_training_log_facts_hold(world):
    w, g = world
    logs = w.hub_dir / "models" / ALPHA / "training_logs"
    facts = g["training_logs"][ALPHA]
    (s1, b1), (s2, b2) = (_wandb_steps(p.read_text()) for p in sorted(logs.glob("*.out")))
    merged = {**s1, **s2}  # later log wins
    assert len(merged) == facts["unique_train_steps"] == 20 and b1 + b2 == facts["unparseable_mirror_lines"] == 4
    assert sorted(set(s1) & set(s2)) == facts["duplicate_steps"]
    assert merged[20]["reward/avg_raw_reward"] == facts["final"]["reward/avg_raw_reward"]
    assert (
        merged[10]["reward/avg_raw_reward"] == facts["later_log_wins"]["later_log"] != s1[10]["reward/avg_raw_reward"]
    )
    assert any(v != v for m in merged.values() for v in m.values())  # a NaN survived json parsing
    reward = [merged[s]["reward/avg_raw_reward"] for s in sorted(merged)]
    entropy = [merged[s]["policy/policy_entropy"] for s in sorted(merged)]
    assert statistics.fmean(reward[-5:]) > statistics.fmean(reward[:5]) + 0.2
    assert statistics.fmean(entropy[-5:]) < statistics.fmean(entropy[:5]) - 0.2
    # rl-beta, legacy: step = resume offset + count of Finished 'step'; dict lines carry no step.
    beta = g["training_logs"][BETA]
    rewards, entropies = {}, {}
    for p in sorted((w.hub_dir / "models" / BETA / "training_logs").glob("*.out")):
        text = ANSI.sub("", p.read_text())
        assert "WANDB_MIRROR" not in text
        resume = re.search(r"Resumed from checkpoint global_step_(\d+)", text)
        step = int(resume.group(1)) if resume else 0
        for line in text.splitlines():
            if "avg_raw_rewards:" in line:
                rewards[step + 1] = float(re.search(r"avg_raw_rewards: ([\d.]+)", line).group(1))
            elif "{'policy_loss'" in line:  # printed right after its step's Finished: 'step'
                entropies[step] = ast.literal_eval(line[line.index("{") :])["policy_entropy"]
            elif "Finished: 'step'" in line:
                step += 1
    assert len(rewards) == beta["unique_train_steps"] == 40
    assert (
        rewards[40] == beta["final"]["reward/avg_raw_reward"]
        and entropies[40] == beta["final"]["policy/policy_entropy"]
    )


def test_rollout_dataset_carries_the_attribution(world):
    w, g = world
    rows = dataset_rows(w, ALPHA_TRACES)
    facts = g["rl_rollouts"][ALPHA]
    assert len({r["trial_name"] for r in rows}) == len(rows) == facts["rows"]
    span = g["training_logs"][ALPHA]["time_span"]
    start, end = (datetime.fromisoformat(span[k]) for k in ("start", "end"))
    assert (end - start).total_seconds() > 20 * 3600
    assert all(start <= datetime.fromisoformat(r["date"]) <= end for r in rows)
    assert not {r["task"] for r in rows} & {r["task"] for r in dataset_rows(w, eval_dataset(BASE, TBM))}
    rows.sort(key=lambda r: r["date"])
    q = len(rows) // 4

    def stats(rs):
        obs = [m["content"] for r in rs for m in r["conversations"] if m["content"].startswith("New Terminal Output:")]
        return statistics.fmean(r["result"] == "1.0" for r in rs), sum(bool(ERROR_OBS.search(o)) for o in obs) / len(
            obs
        )

    (r0, e0), (r1, e1) = stats(rows[:q]), stats(rows[-q:])
    assert r1 > r0 and e1 < e0 - 0.1
    errors = [
        sum(bool(ERROR_OBS.search(m["content"])) for m in r["conversations"][1:] if m["role"] == "user") for r in rows
    ]
    assert statistics.correlation(errors, [float(r["result"] == "1.0") for r in rows]) < -0.15
    assert (facts["attribution"]["feature"], facts["attribution"]["direction"]) == ("tool_errors", "negative")


def test_rebuild_replaces_only_the_demo(tmp_path, monkeypatch):
    from resources.registry import SqlRegistry

    monkeypatch.setenv("RLDELTA_HOME", str(tmp_path))
    w = build_world(seed=3, scale=SCALE)
    foreign = w.hub_dir / "models" / "someone" / "theirs" / "README.md"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("keep me")
    before = digests(w.hub_dir / "models" / ORG)
    # what a user added under the demo org (`make ui`, then an upload): a repo, its model row, an eval job
    theirs = w.hub_dir / "models" / ORG / "mine-8B" / "model.safetensors"
    theirs.parent.mkdir(parents=True)
    theirs.write_bytes(b"user weights")
    stale = w.hub_dir / "models" / ALPHA / "left-from-an-older-demo.txt"  # inside a repo the demo owns
    stale.write_text("{}")
    reg = SqlRegistry(w.registry_url)
    alpha_id = reg.models_by_name(ALPHA)[0]["id"]
    reg.insert("models", [{"id": "user-model", "name": "someone/theirs"}, {"id": "mine", "name": f"{ORG}/mine-8B"}])
    reg.insert(
        "sandbox_jobs",
        [
            {
                "id": "user-job",
                "created_at": datetime(2026, 5, 1, tzinfo=UTC),
                "model_id": alpha_id,
                "username": "a-user",
                "job_status": "Finished",
            }
        ],
    )
    n_jobs = len(reg.jobs_for_model(alpha_id))
    build_world(seed=3, scale=SCALE)
    assert foreign.read_text() == "keep me" and theirs.read_bytes() == b"user weights" and not stale.exists()
    after = digests(w.hub_dir / "models" / ORG)
    assert {k: v for k, v in after.items() if not k.startswith("mine-8B/")} == before
    assert (
        len(reg.models_by_name(ALPHA)) == 1
        and reg.models_by_name("someone/theirs")
        and reg.models_by_name(f"{ORG}/mine-8B")
    )
    assert len(reg.jobs_for_model(alpha_id)) == n_jobs and "user-job" in {j["id"] for j in reg.jobs_for_model(alpha_id)}

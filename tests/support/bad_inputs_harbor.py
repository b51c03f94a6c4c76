"""Bad-input cases, issue 13 items 1, 4 and 6 for Harbor folders: trials at any depth (mixed
layouts, retry sub-jobs), broken trials counted instead of absent, symlinks followed once, the
file that really failed named, copied trials merged. Registered into bad_inputs.CASES on import."""

from __future__ import annotations

import json
import os

from rl_assets.ingest.dedup import DUPLICATE, SAME_KEY
from rl_assets.ingest.formats.harbor_walk import BAD_JOB_RESULT, JOB_FILE, NO_RESULT, ROW_FILE_IN_HARBOR
from rl_assets.ingest.walk import REPEAT
from support.bad_inputs import TRIAL_OK, _c, atif, jsonl, row, step, trial_dir


def trial(root, name, task="t1", **res):
    """A good trial folder <root>/<name> (result.json + agent/trajectory.json)."""
    return trial_dir(root, name, {**TRIAL_OK, "task_name": task, "trial_name": name, **res}, atif([step(1)]))


def job_result(folder, reward_by_trial: dict) -> None:
    evals = {"agent__model__bench": {"reward_stats": {"reward": {"1.0": list(reward_by_trial)}}}}
    (folder / "result.json").write_text(json.dumps({"stats": {"evals": evals}}))


# -- Harbor discovery ----------------------------------------------------------------------------
@_c("harbor_mixed_job_folder_and_bare_trial", ("ok", 3, {}), task_ids=["t1", "t2", "t3"])
def _(d):
    trial(d / "root" / "jobA", "t1__a")
    trial(d / "root" / "jobA", "t2__b", task="t2")
    job_result(d / "root" / "jobA", {"t1__a": 1, "t2__b": 1})
    trial(d / "root", "t3__c", task="t3")  # a bare trial beside the job folder
    return str(d / "root")


@_c("harbor_job_with_nested_retry_sub_job", ("ok", 3, {}), task_ids=["t1", "t2", "t3"])
def _(d):
    trial(d / "job", "t1__a")
    trial(d / "job" / "retry-1", "t2__b", task="t2")
    trial(d / "job" / "retry-1" / "retry-2", "t3__c", task="t3")
    return str(d / "job")


@_c("harbor_trials_four_levels_down", ("ok", 2, {}), task_ids=["t1", "t2"])
def _(d):
    trial(d / "runs" / "cluster" / "2026-01" / "job", "t1__a")
    trial(d / "runs" / "other", "t2__b", task="t2")
    return str(d / "runs")


@_c("harbor_trial_without_agent_truncated_result", ("ok", 1, {"unreadable result.json": 1}))
def _(d):
    trial(d / "job", "good__1")
    (d / "job" / "bad__2").mkdir()
    (d / "job" / "bad__2" / "result.json").write_text('{"task_name": "t1", "trial')
    return str(d / "job")


@_c("harbor_trial_without_agent_result_is_a_list", ("ok", 1, {"result.json is not an object": 1}))
def _(d):
    trial(d / "job", "good__1")
    (d / "job" / "bad__2").mkdir()
    (d / "job" / "bad__2" / "result.json").write_text("[1, 2]")
    return str(d / "job")


@_c("harbor_trial_killed_before_result_json", ("ok", 1, {NO_RESULT: 1}))
def _(d):
    trial(d / "job", "good__1")
    trial_dir(d / "job", "killed__2", None, atif([step(1)]))
    return str(d / "job")


@_c("harbor_job_result_truncated", ("ok", 2, {}), not_read={BAD_JOB_RESULT: 1}, lost=1)
def _(d):
    trial(d / "job", "t1__a")
    trial(d / "job", "t2__b", task="t2")
    (d / "job" / "result.json").write_text('{"stats": {"evals": ')
    return str(d / "job")


@_c("harbor_row_file_beside_jobs", ("ok", 1, {}), not_read={ROW_FILE_IN_HARBOR: 1, JOB_FILE: 1}, lost=1)
def _(d):
    trial(d / "root" / "job", "t1__a")
    (d / "root" / "job" / "config.json").write_text("{}")
    jsonl(d / "root" / "exported.jsonl", [row()])
    return str(d / "root")


@_c("harbor_symlink_loop", ("ok", 1, {}), inputs_merged={REPEAT: 1})
def _(d):
    trial(d / "job", "t1__a")
    os.symlink(d / "job", d / "job" / "loop")
    return str(d / "job")


@_c("harbor_job_reached_through_two_symlinks", ("ok", 1, {}), inputs_merged={REPEAT: 1})
def _(d):
    trial(d / "store" / "job", "t1__a")
    (d / "root").mkdir()
    os.symlink(d / "store" / "job", d / "root" / "a")
    os.symlink(d / "store" / "job", d / "root" / "b")
    return str(d / "root")


@_c("harbor_trial_folder_symlinked_beside_itself", ("ok", 1, {}), inputs_merged={REPEAT: 1})
def _(d):
    trial(d / "job", "t1__a")
    os.symlink(d / "job" / "t1__a", d / "job" / "t1__a-link")
    return str(d / "job")


@_c("harbor_trajectory_lone_surrogate", ("ok", 1, {"invalid ATIF trajectory": 1}), where="bad__2/agent/trajectory.json")
def _(d):
    trial(d / "job", "good__1")
    t = trial_dir(d / "job", "bad__2", {**TRIAL_OK, "trial_name": "bad__2"})
    (t / "agent" / "trajectory.json").write_text(
        json.dumps(atif([step(1, msg="PLACE")])).replace('"PLACE"', '"\\ud83d"')
    )
    return str(d / "job")


@_c("harbor_trajectory_nested_2000", ("ok", 1, {"invalid ATIF trajectory": 1}), where="bad__2/agent/trajectory.json")
def _(d):
    trial(d / "job", "good__1")
    t = trial_dir(d / "job", "bad__2", {**TRIAL_OK, "trial_name": "bad__2"})
    deep = "[" * 2000 + '"x"' + "]" * 2000
    (t / "agent" / "trajectory.json").write_text(json.dumps(atif([step(1, msg="PLACE")])).replace('"PLACE"', deep))
    return str(d / "job")


@_c("harbor_same_trial_copied_into_two_jobs", ("ok", 1, {}), merged={DUPLICATE: 1})
def _(d):
    for job in ("job-a", "job-b"):  # copies, not links: only the content says they are one trial
        trial(d / "root" / job, "t1__a")
    return str(d / "root")


@_c("harbor_one_trial_name_two_contents", ("ok", 2, {}, {SAME_KEY: 1}))
def _(d):
    trial(d / "root" / "job-a", "t1__a")
    trial(d / "root" / "job-b", "t1__a", verifier_result={"rewards": {"reward": 0.0}})
    return str(d / "root")

"""Sensor decisions: new repo, new revision, no change, logs-only change, no weights, invalid id."""

from sensors.decide import decide_checkpoints, decide_fingerprints, eval_jobs_fingerprint


def run(listing, cursor, repos, analysed=None):
    """repos: repo -> (has_weights, fingerprint); counts how many repos were inspected."""
    inspected = []

    def inspect(repo):
        inspected.append(repo)
        has_weights, fingerprint = repos[repo]
        return (fingerprint, "") if has_weights else (None, "no weights file yet")

    d = decide_checkpoints(listing, cursor, inspect, lambda r: (analysed or {}).get(r))
    return d, inspected


def test_new_repo_becomes_a_partition_and_a_run():
    d, _ = run([("org/a-8B", "r1")], {}, {"org/a-8B": (True, "fp1")})
    assert d.new_partitions == ["org/a-8B"]
    assert d.runs == [("org/a-8B", "org/a-8B@fp1")]
    assert d.cursor == {"org/a-8B": "r1|fp1"}


def test_no_change_inspects_nothing():
    d, inspected = run([("org/a-8B", "r1")], {"org/a-8B": "r1|fp1"}, {}, {"org/a-8B": "fp1"})
    assert (d.runs, d.new_partitions, inspected) == ([], [], [])


def test_new_checkpoint_revision_requests_a_run_without_a_new_partition():
    d, _ = run([("org/a-8B", "r2")], {"org/a-8B": "r1|fp1"}, {"org/a-8B": (True, "fp2")}, {"org/a-8B": "fp1"})
    assert d.runs == [("org/a-8B", "org/a-8B@fp2")] and d.new_partitions == []


def test_logs_only_change_requests_nothing_here():
    d, inspected = run([("org/a-8B", "r2")], {"org/a-8B": "r1|fp1"}, {"org/a-8B": (True, "fp1")}, {"org/a-8B": "fp1"})
    assert inspected == ["org/a-8B"] and d.runs == [] and d.cursor["org/a-8B"] == "r2|fp1"


def test_already_analysed_repo_is_not_rerun_after_a_sensor_restart():
    d, _ = run([("org/a-8B", "r1")], {}, {"org/a-8B": (True, "fp1")}, {"org/a-8B": "fp1"})
    assert d.runs == [] and d.new_partitions == []


def test_repo_without_weights_is_skipped_with_a_reason_and_picked_up_later():
    d, _ = run([("org/up-8B", "r1")], {}, {"org/up-8B": (False, "fp0")})
    assert d.runs == [] and d.skipped[0][0] == "org/up-8B" and "no weights" in d.skipped[0][1]
    d2, _ = run([("org/up-8B", "r2")], d.cursor, {"org/up-8B": (True, "fp1")})
    assert d2.runs == [("org/up-8B", "org/up-8B@fp1")]


def test_invalid_repo_id_is_skipped_not_inspected():
    d, inspected = run([("org/bad--name", "r1")], {}, {})
    assert inspected == [] and "'--'" in d.skipped[0][1] and d.runs == []


def test_work_is_proportional_to_change():
    listing = [(f"org/m{i}-8B", "r1") for i in range(1000)]
    cursor = {repo: "r1|fp" for repo, _ in listing}
    listing[10] = ("org/m10-8B", "r2")
    d, inspected = run(listing, cursor, {"org/m10-8B": (True, "fp-new")}, {"org/m10-8B": "fp"})
    assert inspected == ["org/m10-8B"] and len(d.runs) == 1


def test_fingerprint_sensor_rules():
    # logs: reference = last materialized version; never analysed -> no run; changed -> one run, once
    d = decide_fingerprints(
        {"a/x-8B": "L2", "a/y-8B": "L1", "a/z-8B": "L1"}, {}, {"a/x-8B": "L1", "a/y-8B": "L1", "a/z-8B": None}, "logs"
    )
    assert d.runs == [("a/x-8B", "a/x-8B@logs:L2")]
    again = decide_fingerprints({"a/x-8B": "L2"}, d.cursor, {"a/x-8B": "L1"}, "logs")
    assert again.runs == []  # in flight: the cursor already holds L2


def test_registry_fingerprint_changes_only_with_finished_jobs():
    jobs = [{"id": "1", "job_status": "Finished", "ended_at": "t1", "hf_traces_link": "x"}]
    started = jobs + [{"id": "2", "job_status": "Started"}]
    finished = jobs + [{"id": "2", "job_status": "Finished", "ended_at": "t2", "hf_traces_link": "y"}]
    assert eval_jobs_fingerprint(jobs) == eval_jobs_fingerprint(started) != eval_jobs_fingerprint(finished)
    cursor = {"a/x-8B": eval_jobs_fingerprint(jobs)}
    d = decide_fingerprints({"a/x-8B": eval_jobs_fingerprint(finished)}, cursor, cursor, "evals")
    assert len(d.runs) == 1


def test_a_failing_repo_is_skipped_and_retried_without_sinking_the_tick():
    from sensors.decide import InspectError

    def inspect(repo):
        if repo == "org/flaky-8B":
            raise InspectError("HubUnavailableError: 503")
        return "fp", ""

    listing = [("org/flaky-8B", "r1"), ("org/ok-8B", "r1")]
    d = decide_checkpoints(listing, {}, inspect, lambda r: None)
    assert d.runs == [("org/ok-8B", "org/ok-8B@fp")]
    assert "retry" in dict(d.skipped)["org/flaky-8B"] and "org/flaky-8B" not in d.cursor

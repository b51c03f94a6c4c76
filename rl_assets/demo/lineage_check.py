"""Does a run lineage recover the demo job's planted story, and flag nothing else?

`mismatches(lineage, truth)` compares lineage.json with ground_truth.json → `lineage`
(demo/lineage_job.py): the members in step order, each planted feature change (first significant
checkpoint, direction, persistence, how it moved), every unplanted feature never significant (vs
the base or step to step), each family's label per checkpoint and its emergence, no significant
reward change where no change label is planted, the rollout trends (every series planted moved or
unchanged) and the window in which the gamed answer took over. `rldelta demo --run`
prints the result; tests/demo/test_lineage_demo.py asserts it is empty.
"""

from __future__ import annotations


def _features(got: dict, truth: dict) -> list[str]:
    out, by = [], {f["feature"]: f for f in got["features"]}
    for name, want in truth["planted_features"].items():
        f = by.get(name) or {}
        seen = (f.get("first_significant"), f.get("direction"), f.get("persists"), (f.get("moved") or {}).get("shape"))
        if seen != (want["first_significant"], want["direction"], want["persists"], want["shape"]):
            out.append(
                f"planted {name}: want first significant {want['first_significant']}, {want['direction']}, "
                f"persists {want['persists']}, {want['shape']}; got {seen}"
            )
    for name in truth["unchanged_features"]:
        flagged = [c["step"] for c in (by.get(name) or {}).get("cells", []) if c.get("significant")]
        flagged += [
            f"{s['from_step']}→{s['to_step']}"
            for s in got["steps"]
            if ((s.get("features") or {}).get(name) or {}).get("significant")
        ]
        if flagged:
            out.append(f"unplanted {name} flagged significant at {flagged}")
    return out


def _families(got: dict, truth: dict) -> list[str]:
    out, by = [], {f["family"]: f for f in got["families"]}
    if set(by) != set(truth["families"]):
        out.append(f"families {sorted(by)} != planted {sorted(truth['families'])}")
    for family, labels in truth["planted_labels"].items():
        fam = by.get(family)
        if fam is None:
            continue
        seen = [c["label"] for c in fam["cells"]]
        if seen != labels:
            out.append(f"{family}: labels {seen}, planted {labels}")
        first, path = truth["change_labels_first_seen"][family], fam["label_path"]
        want = (first["label"], first["at"], True) if first else (None, None, None)
        if (path["label"], path["at"], path["persists"]) != want:
            out.append(
                f"{family}: change label {path['label']} at {path['at']} (persists {path['persists']}), planted {want}"
            )
        if not first and fam["reward"]["first_significant"]:
            out.append(
                f"{family}: no change planted, but its reward change is significant from "
                f"step {fam['reward']['first_step']}"
            )
    return out


def _rollouts(got: dict, truth: dict) -> list[str]:
    ro = got["rollouts"]
    if not ro.get("applicable"):
        return [f"rollouts not analysed: {ro.get('reason')}"]
    out, series = [], {s["series"]: s for s in ro["series"]}
    for name, trend in truth["rl_rollouts"]["trends"].items():
        s = series.get(name)
        if s is None:
            continue  # "reward" is a training metric, not a behaviour series
        seen = s.get("direction") if s["moved"] else "unchanged"
        if seen != trend:
            out.append(f"rollouts {name}: {seen}, planted {trend}")
    gamed = series.get("imitation:letter_counting") or {}
    at, window = truth["rl_rollouts"].get("gamed_from_step"), gamed.get("window")
    if at is not None and not (window and window[0] <= at <= window[1]):
        out.append(f"rollouts: the imitation of the gamed answer moved over steps {window}, planted at step {at}")
    return out


def mismatches(got: dict, truth: dict) -> list[str]:
    """Every way the lineage differs from the planted story (empty: recovered, nothing else flagged)."""
    out = []
    steps = [(m["repo_id"], m["step"]) for m in got["members"]]
    if steps != [(m["repo_id"], m["step"]) for m in truth["members"]]:
        out.append(f"members {steps}, planted {[(m['repo_id'], m['step']) for m in truth['members']]}")
    if got["excluded"]:
        out.append(f"excluded: {[e['repo_id'] + ': ' + e['reason'] for e in got['excluded']]}")
    return out + _features(got, truth) + _families(got, truth) + _rollouts(got, truth)

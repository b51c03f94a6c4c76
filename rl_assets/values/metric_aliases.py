"""Platform concept -> metric key, one vocabulary for every trainer (docs/q2.md, "Metric vocabulary").
Per row, the first key present wins, so a run whose logger switched key names mid-way still gets one
continuous canonical column. Keys: SkyRL first, then verl (``critic/score/mean``), TRL / HF Trainer
(``reward``, ``completions/mean_length``) and TensorBoard tags (``train/reward``, OpenRLHF). Concepts
a trainer spells with a pattern (validation scores per dataset, one reward term per reward
function) are derived by ``derive_concepts``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

# pandas: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pandas as pd

ALIASES: dict[str, tuple[str, ...]] = {
    "reward": (
        "reward/avg_raw_reward",
        "loss/avg_final_rewards",
        "loss/avg_raw_rewards",
        "avg_final_rewards",  # "avg_final_rewards: ..." advantage line (2026)
        "avg_raw_rewards",  # "avg_raw_rewards: ..." advantage line (2025)
        "generation/avg_reward",  # CTU fork "Generation rewards - Avg:"
        "critic/rewards/mean",  # verl: score minus the in-reward KL penalty, what the policy optimised
        "reward",  # TRL GRPO/RLOO: sum of the weighted reward functions
        "train/reward",  # TensorBoard (OpenRLHF, HF Trainer's TensorBoard callback)
    ),
    "task_score": ("critic/score/mean", "train/score"),  # verl: the reward function's own score
    "kl": ("policy/policy_kl", "policy_kl", "loss/avg_kl", "actor/kl_loss", "kl", "train/kl"),
    "grad_norm": (
        "policy/raw_grad_norm",
        "policy/grad_norm",
        "raw_grad_norm",
        "grad_norm",
        "actor/grad_norm",
        "train/grad_norm",
    ),
    "entropy": ("policy/policy_entropy", "policy_entropy", "actor/entropy", "entropy", "train/entropy"),
    "policy_loss": ("policy/policy_loss", "policy_loss", "actor/pg_loss", "train/policy_loss", "loss", "train/loss"),
    "response_length": (
        "generate/avg_num_tokens",
        "policy/response_length",
        "response_length",
        "avg_response_length",
        "response_length/mean",  # verl
        "completions/mean_length",  # TRL >= 0.15
        "completion_length",  # TRL < 0.15
        "train/response_length",
    ),
    "tool_calls": (
        "tool_calls",
        "env/tool_calls",
        "num_tool_calls/mean",
        "tool_calls/mean",
        "rollout/tool_calls_avg",  # verl agent-loop fork; real: Agent_On_Policy_Distillation run cr3q4lay
    ),
    # agent turns per trajectory: verl's multi-turn agent loop logs num_turns/{min,max,mean}
    # (real: every Agent_On_Policy_Distillation run in tests/fixtures/realdata)
    "turns": ("num_turns/mean",),
    # share of responses cut at the generation limit: verl response_length/clip_ratio (same runs),
    # TRL completions/clipped_ratio (real: Chaos-Economy trainer_state.json)
    "length_clipped_share": ("response_length/clip_ratio", "completions/clipped_ratio"),
    "val_score": (
        "eval_reward",
        "eval_accuracy",
        "eval/reward",
        "eval/accuracy",
        # SkyRL CTU fork's "[Eval Step N] Eval rewards - Avg:" (the mean eval reward; read at the training
        # step it evaluated, 0 before training: rl_assets/ingest/skyrl_log/parser.py _place_eval_round)
        "eval/instant_avg_reward",
    ),  # + verl patterns below
    "log_ratio_abs_max": ("policy/log_ratio_abs_max", "log_ratio_abs_max"),
    "log_ratio_abs_mean": ("policy/log_ratio_abs_mean", "log_ratio_abs_mean", "policy/tis/log_ratio_abs_mean"),
}
CANONICAL = tuple(ALIASES)
RAW_SUFFIX = "__raw"  # a raw key spelled like a canonical column (legacy 'policy_loss') is kept here


def apply_aliases(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[str, int]]]:
    """Add canonical columns; return (frame, {canonical: {source key: rows it supplied}})."""
    import pandas as pd

    frame = frame.rename(columns={c: c + RAW_SUFFIX for c in CANONICAL if c in frame.columns})
    sources: dict[str, dict[str, int]] = {}
    new_cols = {}
    for concept, keys in ALIASES.items():
        value = pd.Series(float("nan"), index=frame.index, dtype="float64")
        used: dict[str, int] = {}
        for key in keys:
            col = key + RAW_SUFFIX if key in CANONICAL else key
            if col not in frame.columns:
                continue
            fill = value.isna() & frame[col].notna()
            if fill.any():
                used[key] = int(fill.sum())
                value = value.where(~fill, frame[col])
        new_cols[concept] = value
        sources[concept] = used
    return frame.assign(**new_cols), sources


# -- concepts spelled with a pattern ------------------------------------------------------------
REWARD_TERM_PREFIX = "reward_term/"
REWARD_TERM_KINDS = ("kl_penalty", "format", "length", "tool", "task", "other")
# A reward function's name says what it pays for; the first rule that matches wins, so
# "format_accuracy" is a format term and "soft_overlong_punishment" a length term. Unknown names
# are "other".
_KIND_WORDS = (
    ("kl_penalty", ("kl",)),
    ("length", ("length", "len_", "overlong", "cosine", "repetition")),
    ("format", ("format", "fmt", "xml", "tag", "json")),  # json: valid_json_reward (real: IITD_Feb26_AAIPL)
    ("tool", ("tool", "call", "search", "exec")),
    (
        "task",
        (
            "acc",
            "correct",
            "answer",
            "score",
            "task",
            "exact",
            "pass",
            "solve",
            "math",
            "code",
            "verif",
            "equal",
            "match",
        ),
    ),
)
_TRL_TERM = re.compile(r"^rewards/(?P<name>.+?)(?:/mean)?$")  # TRL >= 0.15 adds /mean (and /std)
_VERL_VAL = (re.compile(r"^val-core/.+/(?:acc|score|reward)/mean@\d+$"), re.compile(r"^val/test_score/.+$"))
VERL_KL_PENALTY, VERL_KL_COEFF = "actor/reward_kl_penalty", "actor/reward_kl_penalty_coeff"


def reward_term_kind(name: str) -> str:
    low = name.lower()
    for kind, words in _KIND_WORDS:
        if any(w in low for w in words):
            return kind
    return "other"


def _reward_terms(frame: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """{canonical term column: (raw key, kind)} for the reward terms the trainer logged."""
    out = {}
    for col in frame.columns:
        m = _TRL_TERM.match(col)
        if m and not col.endswith("/std"):
            name = m.group("name")
            out[f"{REWARD_TERM_PREFIX}{reward_term_kind(name)}/{name}"] = (col, reward_term_kind(name))
    if VERL_KL_PENALTY in frame.columns:
        out[f"{REWARD_TERM_PREFIX}kl_penalty/in_reward_kl"] = (VERL_KL_PENALTY, "kl_penalty")
    return out


def derive_concepts(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict[str, int]], dict[str, str]]:
    """After ``apply_aliases``: reward_term/<kind>/<name> columns, task_score from the single task
    term when the trainer logs no score of its own, val_score from verl's per-dataset validation keys.
    Returns (frame, {concept: {source key: rows}}, {term column: kind})."""
    new, sources, kinds = {}, {}, {}
    terms = _reward_terms(frame)
    for col, (raw, kind) in sorted(terms.items()):
        value = frame[raw].astype("float64")
        if raw == VERL_KL_PENALTY and VERL_KL_COEFF in frame.columns:  # the term is coeff x KL
            value = value * frame[VERL_KL_COEFF].fillna(1.0)
        new[col], kinds[col] = value, kind
        sources[col] = {raw: int(value.notna().sum())}
    task_terms = sorted(c for c, k in kinds.items() if k == "task")
    if "task_score" in frame.columns and frame["task_score"].isna().all() and task_terms:
        # several task terms: the first by name, said in the sources (docs/q2.md)
        new["task_score"] = new[task_terms[0]]
        sources["task_score"] = {terms[task_terms[0]][0]: int(new[task_terms[0]].notna().sum())}
    if "val_score" in frame.columns and frame["val_score"].isna().all():
        val_keys = sorted(c for c in frame.columns if any(p.match(c) for p in _VERL_VAL))
        if val_keys:  # the first dataset's score, by name: the primary one
            new["val_score"] = frame[val_keys[0]].astype("float64")
            sources["val_score"] = {val_keys[0]: int(frame[val_keys[0]].notna().sum())}
    return frame.assign(**new), sources, kinds

"""The normalized trace table: one row per trial (attempt), whatever format it came from.

Every ingest adapter produces exactly TRACE_SCHEMA; every analysis reads it. Columns that a
source cannot fill are null. The conversation is kept as a JSON string (a list of
``{"role", "content", ...}`` messages) so shards with different message shapes never clash.
"""

from __future__ import annotations

import pyarrow as pa

# The trace data files a source may hold (the one list; ingest, the hub and the resolver import it):
# each data suffix plain or compressed (compression suffix -> pyarrow codec; read as a stream).
DATA_SUFFIXES = (".parquet", ".jsonl", ".ndjson", ".json")
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}
DATA_FILE_SUFFIXES = tuple(f"{s}{c}" for s in DATA_SUFFIXES for c in ("", *COMPRESSIONS))

# Exception classes that mean "the infrastructure failed", not the model. Union of the
# OpenThoughts-Agent analysis list and the registry's INFRA_ERROR_TYPES (docs/original_pipeline.md,
# so the analysis and the DB finally agree on one set.
INFRA_ERRORS = frozenset(
    {
        "AgentEnvironmentTimeoutError",
        "DaytonaError",
        "DaytonaRateLimitError",
        "DaytonaNotFoundError",
        "DaytonaAuthenticationError",
        "DaytonaAuthorizationError",
        "DaytonaValidationError",
        "EnvironmentStartTimeoutError",
        "SandboxBuildFailedError",
        "SandboxLikelyOutOfMemoryError",
        "AgentSetupTimeoutError",
        "HealthcheckError",
        "PodmanHPCTimeoutError",
        "PodmanHPCCommandError",
        "ApptainerTimeoutError",
        "ApptainerCommandError",
        "CancelledError",
        "VerificationNotCompletedError",
        "TrialNotScoredError",
        "AddTestsDirError",
        "ApiRateLimitError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "APIConnectionError",
    }
)

# Behavioural feature columns: numeric, aggregated by every Q1/Q2 analysis.
FEATURE_COLUMNS = (
    "tool_calls_total",  # tool calls the agent made (structured when the source has them)
    "tool_responses",  # observations / tool results it received
    "tool_errors",  # observations that report an error
    "tool_error_rate",  # tool_errors / tool_responses (null when no responses)
    "think_blocks",  # <think> blocks or reasoning_content fields
    "think_tokens",  # tokens inside thinking
    "think_token_ratio",  # think_tokens / assistant_tokens
    "assistant_msgs",  # agent turns
    "assistant_tokens",  # tokens the agent produced
    "mean_assistant_tokens",  # assistant_tokens / assistant_msgs
    "code_fence_blocks",  # ``` fenced blocks in agent output
    "self_correction_hits",  # self-correction phrases (strict list, see ingest.features)
    "parse_error_markers",  # "Previous response had parsing errors" style feedback received
    "hint_count",  # [HINT FROM TEACHER]: markers seen
    "premature_stop",  # 1.0 when the trace ends on an agent turn without a completion signal
)

TRACE_FIELDS = [
    # identity
    pa.field("trace_id", pa.string(), nullable=False),  # stable id: sha1(source_ref|trial key)[:16]
    pa.field("source_kind", pa.string()),  # exported_rows | harbor | atif | reasoning_gym
    pa.field("source_ref", pa.string()),  # hub id or path it came from
    pa.field("benchmark", pa.string()),  # benchmark name when known
    pa.field("task_id", pa.string(), nullable=False),  # never silently the trial name
    pa.field("task_family", pa.string()),  # e.g. reasoning-gym dataset name
    pa.field("task_index", pa.int64()),  # index inside a seeded generated dataset
    pa.field("task_config", pa.string()),  # JSON generator config (seed, size, params)
    pa.field("trial_name", pa.string()),
    pa.field("attempt", pa.int64()),  # 0-based attempt number within the task
    pa.field("episode", pa.int64()),  # last episode index kept for the trial
    pa.field("date", pa.timestamp("us", tz="UTC")),  # trial start, UTC
    pa.field("agent", pa.string()),
    pa.field("model", pa.string()),
    # outcome
    pa.field("reward", pa.float64()),  # null when errored / unscored
    pa.field("passed", pa.bool_()),  # reward >= 1.0 (full credit); False on error
    pa.field("reward_positive", pa.bool_()),  # reward > 0: a pass for pass@k (docs/original_pipeline.md W24)
    pa.field("error_type", pa.string()),
    pa.field("is_infra_error", pa.bool_()),
    # size
    pa.field("n_messages", pa.int64()),
    pa.field("n_turns", pa.int64()),  # agent turns
    pa.field("n_tokens", pa.int64()),  # whole conversation
    pa.field("peak_prompt_tokens", pa.int64()),  # recorded max prompt tokens (ATIF metrics)
    pa.field("token_source", pa.string()),  # "recorded" or "tokenizer:<name>"
    # behaviour
    *[pa.field(name, pa.float64()) for name in FEATURE_COLUMNS],
    pa.field("hint_first_turn", pa.int64()),  # agent turn index when the first hint fired
    pa.field("tool_calls_by_name", pa.string()),  # JSON {name: count}
    # reasoning tasks
    pa.field("question", pa.string()),
    pa.field("expected_answer", pa.string()),
    pa.field("answer", pa.string()),  # model's final answer as the source recorded/extracted it
    pa.field("failure_mode", pa.string()),  # categorical label when annotated
    # content
    pa.field("conversation", pa.string()),  # JSON list of messages
    # run facts (Harbor result.json / ATIF; null for every other source)
    pa.field("env_setup_s", pa.float64()),  # result.json environment_setup phase, seconds
    pa.field("agent_setup_s", pa.float64()),  # agent_setup phase, seconds
    pa.field("agent_exec_s", pa.float64()),  # agent_execution phase, seconds
    pa.field("verifier_s", pa.float64()),  # verifier phase, seconds
    pa.field("trial_s", pa.float64()),  # whole trial: started_at -> finished_at, seconds
    pa.field("input_tokens", pa.int64()),  # agent_result.n_input_tokens (incl. cached) / ATIF total_prompt_tokens
    pa.field("output_tokens", pa.int64()),  # agent_result.n_output_tokens / ATIF total_completion_tokens
    pa.field("cached_tokens", pa.int64()),  # agent_result.n_cache_tokens / ATIF total_cached_tokens
    pa.field("cost_usd", pa.float64()),  # agent_result.cost_usd / ATIF total_cost_usd
    pa.field("n_subagents", pa.int64()),  # ATIF subagent trajectories (embedded + referenced files)
    # task identity (rl_assets/values/task_identity.py): the key both sides are paired on, and how it was made
    pa.field("task_key", pa.string()),  # "<family>#q<hash>" (question_hash) or the task id
    pa.field("task_key_source", pa.string()),  # question_hash | task_id
    # generation settings the source recorded, JSON {max_tokens, temperature, top_p, repeats, ...}
    pa.field("gen_settings", pa.string()),
]

TRACE_SCHEMA = pa.schema(TRACE_FIELDS)
TRACE_COLUMNS = tuple(f.name for f in TRACE_FIELDS)

# Columns cheap enough for every analysis to load (everything but the conversation text).
LIGHT_COLUMNS = tuple(c for c in TRACE_COLUMNS if c not in ("conversation", "question"))


def empty_row() -> dict:
    """A row with every column present and null (adapters fill what they know)."""
    return {name: None for name in TRACE_COLUMNS}

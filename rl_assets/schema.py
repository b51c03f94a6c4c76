"""The normalized trace table: one row per trial (attempt), whatever format it came from.

Every ingest adapter produces exactly trace_schema(); every analysis reads it. Columns that a
source cannot fill are null. The conversation is kept as a JSON string (a list of
``{"role", "content", ...}`` messages) so shards with different message shapes never clash.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Literal

# pyarrow: imported where used, so loading the definitions stays light (test_import_cost.py)
if TYPE_CHECKING:
    import pyarrow as pa

# The trace data files a source may hold (the one list; ingest, the hub and the resolver import it):
# each data suffix plain or compressed (compression suffix -> pyarrow codec; read as a stream).
DATA_SUFFIXES = (".parquet", ".jsonl", ".ndjson", ".json", ".eval")  # .eval: an Inspect log (a zip)
Codec = Literal["gzip", "bz2", "zstd"]  # pyarrow's names, which open_binary hands it
COMPRESSIONS: dict[str, Codec] = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}
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

# (column, type[, NOT_NULL]); trace_schema() turns it into the pyarrow schema on first use.
NOT_NULL = "not null"
TRACE_FIELDS = [
    # identity
    ("trace_id", "string", NOT_NULL),  # stable id: sha1(source_ref|trial key)[:16]
    ("source_kind", "string"),  # exported_rows | harbor | atif | reasoning_gym
    ("source_ref", "string"),  # hub id or path it came from
    ("benchmark", "string"),  # benchmark name when known
    ("task_id", "string", NOT_NULL),  # never silently the trial name
    ("task_family", "string"),  # e.g. reasoning-gym dataset name
    ("task_index", "int64"),  # index inside a seeded generated dataset
    ("task_config", "string"),  # JSON generator config (seed, size, params)
    ("trial_name", "string"),
    ("attempt", "int64"),  # 0-based attempt number within the task
    ("episode", "int64"),  # last episode index kept for the trial
    ("date", "timestamp"),  # trial start, UTC
    ("agent", "string"),
    ("model", "string"),
    # outcome
    ("reward", "float64"),  # null when errored / unscored
    ("passed", "bool"),  # reward >= 1.0 (full credit); False on error
    ("reward_positive", "bool"),  # reward > 0 a pass for pass@k (docs/original_pipeline.md W24)
    ("error_type", "string"),
    ("is_infra_error", "bool"),
    # size
    ("n_messages", "int64"),
    ("n_turns", "int64"),  # agent turns
    ("n_tokens", "int64"),  # whole conversation
    ("peak_prompt_tokens", "int64"),  # recorded max prompt tokens (ATIF metrics)
    ("token_source", "string"),  # "recorded" or "tokenizer:<name>"
    # behaviour
    *[(name, "float64") for name in FEATURE_COLUMNS],
    ("hint_first_turn", "int64"),  # agent turn index when the first hint fired
    ("tool_calls_by_name", "string"),  # JSON {name: count}
    # reasoning tasks
    ("question", "string"),
    ("expected_answer", "string"),
    ("answer", "string"),  # model's final answer as the source recorded/extracted it
    ("failure_mode", "string"),  # categorical label when annotated
    # content
    ("conversation", "string"),  # JSON list of messages
    # run facts (Harbor result.json / ATIF; null for every other source)
    ("env_setup_s", "float64"),  # result.json environment_setup phase, seconds
    ("agent_setup_s", "float64"),  # agent_setup phase, seconds
    ("agent_exec_s", "float64"),  # agent_execution phase, seconds
    ("verifier_s", "float64"),  # verifier phase, seconds
    ("trial_s", "float64"),  # whole trial: started_at -> finished_at, seconds
    ("input_tokens", "int64"),  # agent_result.n_input_tokens (incl. cached) / ATIF total_prompt_tokens
    ("output_tokens", "int64"),  # agent_result.n_output_tokens / ATIF total_completion_tokens
    ("cached_tokens", "int64"),  # agent_result.n_cache_tokens / ATIF total_cached_tokens
    ("cost_usd", "float64"),  # agent_result.cost_usd / ATIF total_cost_usd
    ("n_subagents", "int64"),  # ATIF subagent trajectories (embedded + referenced files)
    # task identity (rl_assets/values/task_identity.py): the key both sides are paired on, and how it was made
    ("task_key", "string"),  # "<family>#q<hash>" (question_hash) or the task id
    ("task_key_source", "string"),  # question_hash | task_id
    # generation settings the source recorded, JSON {max_tokens, temperature, top_p, repeats, ...}
    ("gen_settings", "string"),
]

TRACE_COLUMNS = tuple(name for name, *_ in TRACE_FIELDS)

# Columns cheap enough for every analysis to load (everything but the conversation text).
LIGHT_COLUMNS = tuple(c for c in TRACE_COLUMNS if c not in ("conversation", "question"))


def empty_row() -> dict:
    """A row with every column present and null (adapters fill what they know)."""
    return {name: None for name in TRACE_COLUMNS}


@functools.cache
def trace_schema() -> pa.Schema:
    """The normalized trace table's pyarrow schema (TRACE_FIELDS), built once on first use."""
    import pyarrow as pa

    types = {
        "string": pa.string(),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "timestamp": pa.timestamp("us", tz="UTC"),
    }
    return pa.schema([pa.field(name, types[kind], nullable=NOT_NULL not in rest) for name, kind, *rest in TRACE_FIELDS])

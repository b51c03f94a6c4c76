"""Pairwise LLM judge: prompts, reply validation, pair selection, aggregation, the offline heuristic.

Pure code: the LLM client is injected (see run.judge_pairs); the asset is
rl_assets/assets/q1_llm_judge.py. Configuration and semantics: docs/llm.md.
"""

from rl_assets.analysis.judge.prompts import PROMPT_VERSION, TAGS

__all__ = ["PROMPT_VERSION", "TAGS"]

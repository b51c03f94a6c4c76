"""Q1 — what behaviour did RL change? Behavioural delta (``behavioral_delta``: its per-side
quantities in ``side_summary``, paired ones in ``paired_deltas``, the words in ``summary``) and
failure-mode annotation (``failure_modes``); the pairwise LLM judge lives in ``analysis/judge``."""

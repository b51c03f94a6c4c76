"""Q1 — what behaviour did RL change? Behavioural delta (``behavioral_delta``) and failure-mode
annotation (``failure_modes``); the pairwise LLM judge lives in ``analysis/judge``."""

"""Q4 — does it matter on evals? Solve rate by context length (``context_bins``)."""

"""Q2 — when and why did it change during training? Per-step training metrics
(``training_metrics``), UTC time bins of RL rollouts (``temporal``, also used by Q3's overlay) and
reward attribution (``attribution``)."""

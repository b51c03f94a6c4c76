"""Cross-model comparison on one pinned benchmark (``comparison``)."""

"""One reader per trace format (ATIF, Harbor, exported rows, the eval toolkits, W&B tables, the
predictions file); the generic pieces they share (plan, rows, walk, writer, spec, ...) are in rl_assets/ingest/."""

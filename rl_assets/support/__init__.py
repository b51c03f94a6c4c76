"""Dagster-side helpers the assets, jobs and sensors share: asset checks, report and hub writes, the
ingest step, lineage records, run liveness, trace tables and streams, the instance file, the process guard.

A module belongs here, not in rl_assets/values/, when it does I/O or imports Dagster or a layer
below the assets (rl_assets/analysis/, rl_assets/ingest/, resources/): checks.py, pairing_checks.py,
hub_write.py, lineage_records.py, run_liveness.py, metadata_numbers.py (metadata float rounding)
and report_links.py (report files in metadata: path, URL, inlined markdown) build on Dagster; ingest_step.py,
trace_tables.py, trace_stream.py, not_applicable.py and resolve.py call the ingest and the analyses; report_files.py,
failure_modes_store.py and source_fingerprint.py read and write files; instance.py writes the
instance's dagster.yaml (with console_log.py, the console's log level) and process_guard.py ties
a child process to its parent; report_server.py serves the reports folder (report_links.py and
`make ui` both use it, so it sits below both). The rule
(tests/layer_rules.py): a support module imports no asset, job, sensor, CLI or the definitions, and
nothing under sources or analyses imports it.
"""

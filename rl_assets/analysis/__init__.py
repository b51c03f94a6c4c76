"""Pure analysis code: functions over normalized tables, no Dagster, no I/O."""

"""TensorBoard event files (OpenRLHF, HF Trainer's TensorBoard callback, …) -> per-step metrics.

Records are read with tensorboard's own record reader (it checks each record's length and data
CRCs) and decoded with its Event proto and read-time compat layers (``data_compat``: a legacy
``simple_value`` becomes a scalar tensor) -- no hand-written protobuf parsing. tensorboard's
EventAccumulator is not used because it ends a file silently at the first corrupt record and purges
a restart's repeated steps without a count; here both are accounted:

- a record that fails its checksum (or a file cut inside a record) ends the read: every point before
  it is kept, and ``cut`` names the byte offset and how many bytes were not read (the check is red);
- a (step, tag) point written again later in the file (a restart resumed from an earlier
  checkpoint) wins; the earlier point is counted as a duplicate.

Every summary value is one "line" of the ledger: a scalar point is parsed into its step; another
kind of value (histogram, image, text, …) is ignored by its plugin; records that hold no summary
(file version, graph, session log) are ignored by kind.
"""

from __future__ import annotations

from pathlib import Path

from rl_assets.ingest.training_logs.result import T_END, LogFileResult, check_lines

HEADER_BYTES, CRC_BYTES = 8, 4  # a TFRecord: length (8), its CRC (4), data, the data's CRC (4)


def _records(path: Path, res: LogFileResult):
    """(offset, serialized Event) of each record until the end or the first record that fails."""
    from tensorboard.compat.tensorflow_stub import errors
    from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import PyRecordReader_New

    size = path.stat().st_size
    reader, offset, n_records = PyRecordReader_New(str(path)), 0, 0
    try:
        while True:
            try:
                reader.GetNext()
            except errors.OutOfRangeError:
                return
            except errors.DataLossError as exc:
                res.cut = {
                    "reason": f"DataLossError: {exc.message.rsplit('/', 1)[-1]}",
                    "offset": offset,
                    "unit": "byte",
                    "after_line": n_records,
                    "counted": "records",
                    "unread": f"{size - offset} of {size} bytes",
                }
                return
            record = reader.record()
            yield offset, record
            n_records += 1
            offset += HEADER_BYTES + CRC_BYTES + len(record) + CRC_BYTES
    finally:
        reader.file_handle.close()


def read_event_file(path: Path, name: str) -> LogFileResult:
    from google.protobuf.message import DecodeError
    from tensorboard.compat.proto import event_pb2
    from tensorboard.data_compat import migrate_event
    from tensorboard.util import tensor_util

    res = LogFileResult(name=name)
    res.serializations.add("tensorboard-events")
    plugin_of: dict[str, str] = {}  # tag -> plugin named by its first value's metadata
    seen: set[tuple[int, str]] = set()
    times: dict[int, float] = {}
    for n_records, (offset, record) in enumerate(_records(path, res)):
        try:
            event = migrate_event(event_pb2.Event.FromString(record))
        except DecodeError as exc:  # its CRC holds, but it is no Event: not a TensorBoard record past here
            size = path.stat().st_size
            res.cut = {
                "reason": f"DecodeError: {str(exc)[:120]}",
                "offset": offset,
                "unit": "byte",
                "after_line": n_records,
                "counted": "records",
                "unread": f"{size - offset} of {size} bytes",
            }
            break
        if not event.HasField("summary"):
            res.bump("lines")
            res.ignored(f"{event.WhichOneof('what') or 'empty'}_record")
            continue
        step = int(event.step)
        for value in event.summary.value:
            res.bump("lines")
            plugin = value.metadata.plugin_data.plugin_name or plugin_of.get(value.tag, "")
            plugin_of.setdefault(value.tag, plugin)
            if plugin != "scalars" or not value.HasField("tensor"):
                res.ignored(f"{plugin or value.WhichOneof('value') or 'unknown'}_value")
                continue
            if (step, value.tag) in seen:  # written again later in the file: a restart re-ran the step
                res.superseded("scalar")
            seen.add((step, value.tag))
            res.steps.update(step, {value.tag: float(tensor_util.make_ndarray(value.tensor).item())})
            times[step] = max(times.get(step, 0.0), float(event.wall_time))
            res.parsed("scalar")
    for step, wall in times.items():
        res.steps.update(step, {T_END: wall})
    if times:
        res.first_ts, res.last_ts = min(times.values()), max(times.values())
    check_lines(name, res.counts)
    return res

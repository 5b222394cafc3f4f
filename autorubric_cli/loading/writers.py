"""Writing a subset of a dataset file in its own format (`split`, docs/guides/rubric-quality.md).

`write_parts(source, parts)` reads the dataset once, in the order the readers yield its records
(readers.py), and writes record i to the file `parts` assigns it, in the input's format:

- `.jsonl` / `.ndjson`: the lines as they are (byte for byte; blank lines dropped);
- `.json`: an array of the objects; a `RubricDataset` object of the `autorubric` library keeps
  its other keys (its rubric) with only its `items` split;
- `.csv` / `.tsv`: the header, then the rows' cells as read (re-quoted as needed);
- `.parquet`: the rows, with the file's schema (pyarrow);
- Inspect AI logs (`.eval`, or a `.json` log): JSONL in autorubric's dataset form (one item per
  sample and epoch, as `run` reads them): a log cannot be cut in two and stay a valid log;
- gzip-compressed (`.gz`) input gives gzip-compressed parts.

Each part is written to a temporary file beside its target and renamed into place only when
every part is complete, so an interrupted split leaves no file that looks finished.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, cast

import orjson

from autorubric_cli.errors import InputError, writing
from autorubric_cli.loading.inspect_log import is_inspect_log
from autorubric_cli.loading.readers import (
    MAX_JSON_BYTES,
    MAX_LINE_BYTES,
    dataset_format,
    iter_lines,
    iter_records,
    open_binary,
)

Writer = Callable[[Path, bool, Sequence[IO[bytes]], Sequence[int]], None]
"""(source, compressed, one handle per part, the part of each record in order)."""


def part_path(source: Path, part: str, directory: Path | None = None) -> Path:
    """`<stem>.<part>.<ext>[.gz]` beside the source (or in `directory`); an Inspect log's
    parts are `.jsonl`."""
    fmt, compressed = dataset_format(source)
    name = source.name[: -len(".gz")] if compressed else source.name
    stem, _, ext = name.rpartition(".")
    if fmt == "inspect_eval" or (fmt == "json" and _is_inspect_json(source, compressed)):
        ext = "jsonl"
    out = f"{stem}.{part}.{ext}" + (".gz" if compressed else "")
    return (directory or source.parent) / out


class _Discard(io.RawIOBase):
    """Where the records no part takes go."""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return len(data)


def write_parts(source: Path, targets: Sequence[Path], assignment: Sequence[int]) -> None:
    """Record i of `source` into `targets[assignment[i]]`, in the source's format; a record
    assigned -1 goes into no part."""
    assignment = [len(targets) if part < 0 else part for part in assignment]
    fmt, compressed = dataset_format(source)
    as_jsonl = fmt == "inspect_eval" or (fmt == "json" and _is_inspect_json(source, compressed))
    writer: Writer = (
        _jsonl_records
        if as_jsonl
        else {
            "jsonl": _jsonl_lines,
            "json": _json_array,
            "csv": _csv_rows,
            "tsv": _csv_rows,
            "parquet": _parquet_rows,
        }[fmt]
    )
    with _all_or_nothing(targets) as handles:
        handles = [*handles, cast(IO[bytes], _Discard())]
        outputs = [
            cast(IO[bytes], gzip.GzipFile(fileobj=h, mode="wb", mtime=0)) if compressed else h
            for h in handles
        ]
        writer(source, compressed, outputs, assignment)
        if compressed:
            for output in outputs[:-1]:
                output.close()


@contextlib.contextmanager
def _all_or_nothing(targets: Sequence[Path]) -> Iterator[list[IO[bytes]]]:
    """Temporary files beside the targets, renamed onto them when the block ends without an
    error; removed otherwise."""
    temps = []
    try:
        for target in targets:
            with writing(target):
                fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
            temps.append((Path(name), os.fdopen(fd, "wb")))
        yield [handle for _, handle in temps]
        for (_, handle), target in zip(temps, targets, strict=True):
            with writing(target):
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()
        for (temp, _), target in zip(temps, targets, strict=True):
            with writing(target):
                os.replace(temp, target)
    finally:
        for temp, handle in temps:
            handle.close()
            temp.unlink(missing_ok=True)


def _jsonl_lines(
    source: Path, compressed: bool, out: Sequence[IO[bytes]], parts: Sequence[int]
) -> None:
    for index, (_, text) in enumerate(iter_lines(source, compressed)):
        line = text if text.endswith("\n") else text + "\n"
        out[parts[index]].write(line.encode("utf-8"))


def _jsonl_records(
    source: Path, compressed: bool, out: Sequence[IO[bytes]], parts: Sequence[int]
) -> None:
    for index, (_, record) in enumerate(iter_records(source)):
        out[parts[index]].write(orjson.dumps(record) + b"\n")


def _json_array(
    source: Path, compressed: bool, out: Sequence[IO[bytes]], parts: Sequence[int]
) -> None:
    document = _load_json(source, compressed)
    rows = document["items"] if isinstance(document, dict) else document
    for number, handle in enumerate(out):
        kept = [row for row, part in zip(rows, parts, strict=True) if part == number]
        whole = {**document, "items": kept} if isinstance(document, dict) else kept
        handle.write(orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n")


def _csv_rows(
    source: Path, compressed: bool, out: Sequence[IO[bytes]], parts: Sequence[int]
) -> None:
    fmt, _ = dataset_format(source)
    delimiter = "\t" if fmt == "tsv" else ","
    csv.field_size_limit(MAX_LINE_BYTES)
    texts = [io.TextIOWrapper(h, encoding="utf-8", newline="", write_through=True) for h in out]
    writers = [csv.writer(t, delimiter=delimiter, lineterminator="\n") for t in texts]
    with open_binary(source, compressed) as handle:
        lines = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
        reader = csv.reader(lines, delimiter=delimiter, strict=True)
        header = next(reader, None)
        for writer in writers:
            writer.writerow(header or [])
        rows = (row for row in reader if any(cell for cell in row))  # as the reader skips
        for index, row in enumerate(rows):
            writers[parts[index]].writerow(row)
    for text in texts:
        text.detach()


def _parquet_rows(
    source: Path, compressed: bool, out: Sequence[IO[bytes]], parts: Sequence[int]
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with open_binary(source, compressed) as handle:
        table = pq.read_table(handle)
    for number, handle in enumerate(out):
        rows = pa.array([i for i, part in enumerate(parts) if part == number], type=pa.int64())
        pq.write_table(table.take(rows), handle)


def _load_json(source: Path, compressed: bool) -> Any:
    with open_binary(source, compressed) as handle:
        data = handle.read(MAX_JSON_BYTES + 1)
    return orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))


def _is_inspect_json(source: Path, compressed: bool) -> bool:
    try:
        return is_inspect_log(_load_json(source, compressed))
    except (orjson.JSONDecodeError, InputError):
        return False  # the reader names what is wrong with it

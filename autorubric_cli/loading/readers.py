"""One streaming reader per dataset format (docs/reference/dataset-files.md), behind `iter_records`.

`iter_records(path)` yields `(Where, object)` in file order for every format: `.jsonl` /
`.ndjson` (line by line), `.json` (an array of objects, or the `autorubric` library's
`RubricDataset` object), `.csv` / `.tsv` (a header row; dotted column names nest, so
`ground_truth.accuracy` and `metadata.model` become objects; `human_ratings.<criterion>` cells
are JSON lists), `.parquet` (optional: pyarrow, one row group at a time), each optionally
gzip-compressed (`.gz`); Inspect AI logs, `.eval` and `.json` (`inspect_log`). The line of a
record is its line in the file (JSONL, and the line a CSV row starts on), its 1-based element
number (JSON array), its 1-based row (Parquet) or its 1-based sample (Inspect logs).
Every failure is an InputError naming file, line and key.
"""

from __future__ import annotations

import csv
import gzip
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

import orjson

from autorubric_cli.errors import InputError
from autorubric_cli.loading.inspect_log import eval_log_records, is_inspect_log, json_log_records
from autorubric_cli.loading.library_format import dataset_items
from autorubric_cli.loading.where import Where

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_JSON_BYTES = 1024 * 1024 * 1024
FORMATS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".eval": "inspect_eval",
}
JSON_CELL_COLUMNS = ("ground_truth", "human_ratings", "metadata", "rubric", "tags")
READ_ERRORS = (OSError, EOFError, zlib.error)


def dataset_format(path: Path) -> tuple[str, bool]:
    """(format, gzip-compressed) from the file name; unknown extensions are an InputError."""
    suffixes = [s.lower() for s in path.suffixes]
    compressed = bool(suffixes) and suffixes[-1] == ".gz"
    if compressed:
        suffixes = suffixes[:-1]
    fmt = FORMATS.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        known = ", ".join(FORMATS)
        raise InputError(
            f"unknown dataset format (by extension: one of {known}, optionally .gz)",
            path=str(path),
        )
    return fmt, compressed


@contextmanager
def open_binary(path: Path, compressed: bool) -> Iterator[IO[bytes]]:
    source = str(path)
    try:
        handle: IO[bytes] = path.open("rb")
    except FileNotFoundError:
        raise InputError("dataset file not found", path=source) from None
    except IsADirectoryError:
        raise InputError("dataset path is a directory, not a file", path=source) from None
    except OSError as exc:
        raise InputError(f"cannot read dataset file: {exc.strerror}", path=source) from None
    with handle:
        yield gzip.GzipFile(fileobj=handle, mode="rb") if compressed else handle  # type: ignore[misc]


def iter_records(path: str | Path) -> Iterator[tuple[Where, Any]]:
    """(location, parsed record) for every record of the dataset file, in file order."""
    path = Path(path)
    fmt, compressed = dataset_format(path)
    reader = {
        "jsonl": iter_json_lines,
        "json": _iter_json_array,
        "csv": _iter_csv,
        "tsv": _iter_csv,
        "parquet": _iter_parquet,
        "inspect_eval": eval_log_records,
    }[fmt]
    yield from reader(path, compressed, fmt)


def _raw_lines(handle: IO[bytes], source: str) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, bytes) without reading the file at once; read errors and
    over-long lines are InputErrors."""
    number = 0
    while True:
        try:
            raw = handle.readline(MAX_LINE_BYTES + 1)
        except READ_ERRORS as exc:
            raise _read_error(source, number + 1, exc) from None
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise InputError(
                f"line is longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB",
                path=source,
                line=number,
            )
        yield number, raw


def _decode(raw: bytes, number: int, source: str) -> str:
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError:
        raise InputError("line is not UTF-8 text", path=source, line=number) from None


def iter_lines(path: Path, compressed: bool = False) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) for non-blank lines, without reading the file at once."""
    source = str(path)
    with open_binary(path, compressed) as handle:
        for number, raw in _raw_lines(handle, source):
            if b"\x00" in raw:
                raise InputError("binary data (NUL byte) in dataset", path=source, line=number)
            text = _decode(raw, number, source)
            if text.strip():
                yield number, text


def iter_json_lines(
    path: Path, compressed: bool | None = None, fmt: str = "jsonl"
) -> Iterator[tuple[Where, Any]]:
    """(location, parsed JSON) for every non-blank line; a malformed line is an InputError."""
    if compressed is None:
        compressed = path.name.lower().endswith(".gz")
    for number, text in iter_lines(path, compressed):
        where = Where(str(path), number)
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise where.error(f"invalid JSON: {str(exc).split(':')[0]}") from None
        yield where, obj


def _read_error(source: str, line: int | None, exc: BaseException) -> InputError:
    detail = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return InputError(
        f"cannot read dataset file (corrupt or truncated?): {detail}", path=source, line=line
    )


def _iter_json_array(path: Path, compressed: bool, fmt: str) -> Iterator[tuple[Where, Any]]:
    source = str(path)
    with open_binary(path, compressed) as handle:
        try:
            data = handle.read(MAX_JSON_BYTES + 1)
        except READ_ERRORS as exc:
            raise _read_error(source, None, exc) from None
    if len(data) > MAX_JSON_BYTES:
        raise InputError("JSON dataset is larger than 1 GiB; use JSONL", path=source)
    try:
        obj = orjson.loads(data.removeprefix(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError as exc:
        line = data[: exc.pos].count(b"\n") + 1 if exc.pos is not None else None
        raise InputError(f"invalid JSON: {exc.msg}", path=source, line=line) from None
    if is_inspect_log(obj):
        yield from json_log_records(obj, source)
        return
    if isinstance(obj, dict):
        obj = dataset_items(obj, source)
    if not isinstance(obj, list):
        raise InputError(
            "a .json dataset must be an array of objects (or a RubricDataset object)",
            path=source,
            line=1,
        )
    for number, record in enumerate(obj, start=1):
        yield Where(source, number), record


def _iter_csv(path: Path, compressed: bool, fmt: str) -> Iterator[tuple[Where, Any]]:
    source = str(path)
    csv.field_size_limit(MAX_LINE_BYTES)
    with open_binary(path, compressed) as handle:
        lines = _decoded_lines(handle, source)
        reader = csv.reader(lines, delimiter="\t" if fmt == "tsv" else ",", strict=True)
        rows = _csv_rows(reader, source)
        header = next(rows, None)
        if header is None:
            return
        columns = _header(header[1], source)
        for line, row in rows:
            where = Where(source, line, text_cells=True)
            if len(row) > len(columns):
                raise where.error(f"row has {len(row)} fields; the header has {len(columns)}")
            if any(cell for cell in row):
                yield where, _nest(columns, row, where)


def _decoded_lines(handle: IO[bytes], source: str) -> Iterator[str]:
    """The file's lines as text (line endings kept, for csv), each decoded on its own so that
    an encoding error names its line."""
    for number, raw in _raw_lines(handle, source):
        yield _decode(raw, number, source)


def _csv_rows(reader: Any, source: str) -> Iterator[tuple[int, list[str]]]:
    """(line the row starts on, cells); quoting errors name the line."""
    line = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"CSV error: {exc}", path=source, line=reader.line_num) from None
        yield line, row
        line = reader.line_num + 1


def _header(header: list[str], source: str) -> list[list[str]]:
    columns = []
    for name in header:
        name = name.strip()
        parts = name.split(".")
        if not name or not all(parts):
            raise InputError(f"bad column name {name!r} in the header", path=source, line=1)
        columns.append(parts)
    names = [".".join(c) for c in columns]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise InputError(f"duplicate column {name!r}", path=source, line=1, key=name)
    return columns


def _nest(columns: list[list[str]], row: list[str], where: Where) -> dict[str, Any]:
    """Cells to a record: empty cells are absent, dotted column names nest."""
    out: dict[str, Any] = {}
    for parts, cell in zip(columns, row, strict=False):
        if cell == "":
            continue
        put_path(out, parts, cell_value(parts, cell, where), where)
    return out


def cell_value(parts: list[str], value: Any, where: Where) -> Any:
    """A flat column's text that holds JSON is parsed: `human_ratings.<criterion>` (a list),
    and whole `ground_truth` / `human_ratings` / `metadata` columns (objects)."""
    is_json = (parts[0] == "human_ratings" and len(parts) == 2) or (
        len(parts) == 1 and parts[0] in JSON_CELL_COLUMNS
    )
    if not is_json or not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        key = ".".join(parts)
        raise where.error("cell must be JSON (e.g. a list of labels)", key=key) from None


def put_path(out: dict[str, Any], parts: list[str], value: Any, where: Where) -> None:
    node = out
    for depth, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise where.error(
                "a column is both a value and a group", key=".".join(parts[: depth + 1])
            )
        node = child
    if parts[-1] in node:
        raise where.error("a column is both a value and a group", key=".".join(parts))
    node[parts[-1]] = value


def _iter_parquet(path: Path, compressed: bool, fmt: str) -> Iterator[tuple[Where, Any]]:
    source = str(path)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading .parquet needs pyarrow: pip install 'autorubric-cli[parquet]'", path=source
        ) from None
    with open_binary(path, compressed) as handle:
        try:
            parquet = pq.ParquetFile(handle)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a bad file
            raise InputError(
                f"not a readable Parquet file: {_first_line(exc)}", path=source
            ) from None
        row = 0
        for group in range(parquet.num_row_groups):
            try:
                records = parquet.read_row_group(group).to_pylist()
            except Exception as exc:  # noqa: BLE001
                raise InputError(
                    f"cannot read Parquet row group {group}: {_first_line(exc)}",
                    path=source,
                    line=row + 1,
                ) from None
            for record in records:
                row += 1
                where = Where(source, row, text_cells=True)
                out: dict[str, Any] = {}
                for name, value in record.items():
                    if value is not None:
                        parts = str(name).split(".")
                        value = cell_value(parts, _plain(value, where), where)
                        put_path(out, parts, value, where)
                yield where, out


def _plain(value: Any, where: Where) -> Any:
    """Parquet values as JSON data (dates as ISO text, decimals as floats)."""
    if isinstance(value, dict):
        return {str(k): _plain(v, where) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, where) for v in value]
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise where.error("binary column value is not UTF-8 text") from None
    if value is None or isinstance(value, str | int | float | bool):
        return value  # a struct's absent field is None: it stays null, never the text "None"
    return str(value)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

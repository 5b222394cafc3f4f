"""Inspect AI logs as datasets (docs/reference/dataset-files.md, "Inspect AI logs"): one record
per sample and epoch, from a `.eval` log (a zip archive) or a `.json` log.

We read the log files ourselves rather than through `inspect_ai`: they are JSON documents
(in a `.eval` archive, `header.json` and one `samples/<id>_epoch_<n>.json` member per sample),
and Inspect is a large dependency that takes seconds to import. Current `.eval` archives
compress their members with zstd, which Python's zipfile does not read: the `zstandard`
package (a dependency) decompresses them. Samples are read one at a time, never the whole
archive at once. The tests read logs written by `inspect eval` itself.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from autorubric_cli.errors import InputError
from autorubric_cli.loading.inspect_samples import (
    LogInfo,
    member_epochs,
    sample_epochs,
    sample_record,
)
from autorubric_cli.loading.where import Where

try:
    import zstandard
except ImportError:  # a dependency: only a broken install lacks it (the error says so)
    zstandard = None  # type: ignore[assignment]

ZSTD = 93  # the zip compression method number of zstd
LOCAL_HEADER = 30  # bytes of a zip local file header before its name and extra field
MAX_MEMBER_BYTES = 1024 * 1024 * 1024
# what zipfile raises for a damaged archive (an unknown version or method, a bad header)
ZIP_ERRORS = (zipfile.BadZipFile, NotImplementedError, ValueError, struct.error)


def is_inspect_log(obj: Any) -> bool:
    """A `.json` document that is an Inspect log rather than an array of items."""
    return isinstance(obj, dict) and isinstance(obj.get("eval"), dict) and "version" in obj


def json_log_records(obj: dict[str, Any], source: str) -> Iterator[tuple[Where, Any]]:
    """The records of a `.json` Inspect log already parsed."""
    samples = obj.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(
            "the Inspect log holds no samples (was it written with --no-log-samples?)",
            path=source,
        )
    info = LogInfo.from_eval(obj["eval"], sample_epochs(samples))
    for number, sample in enumerate(samples, start=1):
        where = Where(source, number)
        yield where, sample_record(sample, info, where)


def eval_log_records(path: Path, compressed: bool, fmt: str) -> Iterator[tuple[Where, Any]]:
    """The records of a `.eval` Inspect log: its header, then its samples one at a time."""
    source = str(path)
    if compressed:
        raise InputError("an .eval log is a zip archive: read it without .gz", path=source)
    try:
        with path.open("rb") as handle, zipfile.ZipFile(handle) as archive:
            members = archive.infolist()
            names = [m.filename for m in members]
            spec = "header.json" if "header.json" in names else "_journal/start.json"
            if spec not in names:
                raise InputError("not an Inspect .eval log (no header.json)", path=source)
            header = member_json(archive, handle, archive.getinfo(spec), source)
            samples = [m for m in members if m.filename.startswith("samples/")]
            if not samples:
                raise InputError("the Inspect log holds no samples", path=source)
            info = LogInfo.from_eval(header.get("eval"), member_epochs(names))
            for number, member in enumerate(samples, start=1):
                where = Where(source, number)
                sample = member_json(archive, handle, member, source)
                yield where, sample_record(sample, info, where)
    except FileNotFoundError:
        raise InputError("dataset file not found", path=source) from None
    except ZIP_ERRORS as exc:
        raise InputError(f"not a readable .eval log (zip): {exc}", path=source) from None
    except OSError as exc:
        raise InputError(f"cannot read the .eval log: {exc.strerror or exc}", path=source) from None


def member_json(
    archive: zipfile.ZipFile, handle: IO[bytes], member: zipfile.ZipInfo, source: str
) -> dict[str, Any]:
    data = member_bytes(archive, handle, member, source)
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"invalid JSON in {member.filename}: {exc}", path=source) from None
    if not isinstance(obj, dict):
        raise InputError(f"{member.filename} is not a JSON object", path=source)
    return obj


def member_bytes(
    archive: zipfile.ZipFile, handle: IO[bytes], member: zipfile.ZipInfo, source: str
) -> bytes:
    """A member's bytes: stored and deflated members as zipfile reads them, zstd ones read
    from the archive and decompressed here."""
    if member.file_size > MAX_MEMBER_BYTES:
        raise InputError(f"{member.filename} is larger than 1 GiB", path=source)
    try:
        if member.compress_type != ZSTD:
            with archive.open(member) as stream:
                return stream.read()
        return zstd_member(handle, member, source)
    except (*ZIP_ERRORS, zlib.error, EOFError) as exc:
        raise InputError(f"cannot read {member.filename}: {exc}", path=source) from None


def zstd_member(handle: IO[bytes], member: zipfile.ZipInfo, source: str) -> bytes:
    if zstandard is None:
        raise InputError(
            "reading a zstd-compressed .eval log needs the zstandard package, a dependency of "
            "autorubric-cli that is missing here: pip install zstandard",
            path=source,
        )
    handle.seek(member.header_offset)
    header = handle.read(LOCAL_HEADER)
    if len(header) < LOCAL_HEADER or header[:4] != b"PK\x03\x04":
        raise InputError(f"corrupt zip entry {member.filename}", path=source)
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    handle.seek(member.header_offset + LOCAL_HEADER + name_length + extra_length)
    raw = handle.read(member.compress_size)
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        data = read_at_most(reader, member.file_size + 1)
    except zstandard.ZstdError as exc:
        raise InputError(f"cannot decompress {member.filename}: {exc}", path=source) from None
    if len(data) != member.file_size:
        raise InputError(f"truncated zip entry {member.filename}", path=source)
    return data


def read_at_most(stream: IO[bytes], limit: int) -> bytes:
    """Up to `limit` bytes: a member that inflates past its stated size is not read on."""
    chunks, total = [], 0
    while total < limit:
        chunk = stream.read(min(1 << 20, limit - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)

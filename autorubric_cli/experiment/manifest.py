"""manifest.json: what was run, with which configuration and inputs
(docs/reference/experiment-directory.md)."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from autorubric_cli import __version__
from autorubric_cli.errors import InputError, writing
from autorubric_cli.experiment.shard import Shard
from autorubric_cli.loading.fields import check_fields

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
RUBRIC_COPY = "rubric.yaml"
ITEMS = "items.jsonl"
REPORT = "report.json"
REPORT_HTML = "report.html"
Status = Literal["running", "completed", "interrupted", "failed"]


MAX_INT = 2**53


class InputFile(BaseModel):
    path: str = Field(min_length=1, pattern=r"^[^\x00]*$")
    sha256: str


class RubricLock(BaseModel):
    """What `resume` holds a run's rubric to (docs/guides/runs.md): the SHA-256 of what decides
    its results (`core.settings.results_sha256`), and the operational settings its rubric file
    gave as of the last session, against which an edit of them is found."""

    results_sha256: str
    settings: dict[str, Any]


class Manifest(BaseModel):
    model_config = ConfigDict(extra="allow")

    format_version: int = FORMAT_VERSION
    # what the directory holds: a run's graded items, or pairwise comparisons (the setup then
    # under `pairwise`; docs/reference/experiment-directory.md); written only when `pairwise`
    kind: Literal["run", "pairwise"] = Field("run", exclude_if=lambda v: v == "run")
    autorubric_version: str
    name: str
    command: list[str]
    created: str
    updated: str
    status: Status
    seed: int = Field(ge=0, le=MAX_INT)
    config: dict[str, Any]
    rubric: InputFile
    dataset: InputFile
    # docs/reference/dataset-files.md field mapping
    dataset_fields: dict[str, str] = Field(default_factory=dict)
    items_total: int = Field(ge=0, le=MAX_INT)
    limit: int | None = Field(None, ge=1, le=MAX_INT)
    simulated: bool = False
    # docs/guides/shards.md: run --shard K/N
    shard: Shard | None = None
    error: str | None = None
    # docs/reference/experiment-directory.md: why a `failed` run stopped and how to continue it
    reason: str | None = None
    runs: list[dict[str, Any]] = Field(default_factory=list)
    # per judge, what was sent that may differ from the configuration (judges/policy/providers.py
    # `sent_params`): the temperature, the structured-output dialect in use
    sent: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # None: made before it existed; its `rubric.sha256` then locks the whole file
    rubric_lock: RubricLock | None = None
    # the flags `run` was given that decide what is graded and how (the start-over command's)
    run_flags: list[str] | None = None
    experiment_id: str | None = (
        None  # a UUID, from creation (docs/reference/experiment-directory.md)
    )

    @classmethod
    def begin(
        cls, name: str, status: Status, rubric_path: Path, dataset_path: Path, **fields: Any
    ) -> Manifest:
        """A new experiment's manifest: this version and command, created now, and the SHA-256
        of its rubric and dataset files."""
        now = utc_now()
        return cls(
            autorubric_version=__version__,
            name=name,
            command=sys.argv,
            created=now,
            updated=now,
            status=status,
            rubric=input_file(rubric_path),
            dataset=input_file(dataset_path),
            experiment_id=str(uuid.uuid4()),
            **fields,
        )

    @property
    def identity(self) -> str:
        """The experiment's id: its UUID, or for one made before experiments had one, the
        SHA-256 of its created time and input hashes (the same on every read)."""
        if self.experiment_id is not None:
            return self.experiment_id
        key = f"{self.created}\n{self.rubric.sha256}\n{self.dataset.sha256}"
        return hashlib.sha256(key.encode()).hexdigest()


def input_file(path: Path) -> InputFile:
    return InputFile(path=str(path.resolve()), sha256=sha256_file(path))


def utc_now() -> str:
    """`2026-01-02T03:04:05.678Z`: milliseconds, so a short session has a duration (MLflow
    shows one from these); older manifests' whole seconds read the same way."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write a temp file in the same directory, fsync it, rename it over `path`: readers see the
    old file or the new one, never half of one. A failed write is a StorageError (exit 2)."""
    with writing(path):
        _write_atomic(path, data)


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_manifest(directory: Path, manifest: Manifest) -> None:
    manifest.updated = utc_now()
    write_atomic(
        directory / MANIFEST, orjson.dumps(manifest.model_dump(), option=orjson.OPT_INDENT_2)
    )


def load_manifest(directory: Path) -> Manifest:
    path = directory / MANIFEST
    if not path.is_file():
        raise InputError("not an experiment directory (no manifest.json)", path=str(directory))
    try:
        manifest = Manifest.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read manifest.json: {exc.strerror}", path=str(path)) from None
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(p) for p in error["loc"])
        message = f"manifest.json is invalid: {error['msg']}"
        raise InputError(message, path=str(path), key=key) from None
    check_fields(manifest.dataset_fields, key="dataset_fields", source=str(path))
    return manifest


def is_pairwise(directory: Path) -> bool:
    """Whether `directory` holds a pairwise experiment (`report` and `resume` then read it as
    one); False for anything else, an unreadable manifest included (the command says why)."""
    try:
        return load_manifest(directory).kind == "pairwise"
    except InputError:
        return False

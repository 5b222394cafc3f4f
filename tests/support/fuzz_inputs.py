"""Bad inputs for every loader, and the loaders as fuzz targets (tests and bench/fuzz_loaders.py).

A target takes the bytes of one file, writes it where the loader reads it, and runs the loader
the way the CLI does. The only allowed outcomes are success and InputError; anything else is
a crash. Mutations: random bytes, truncation, byte flips, BOMs, CRLF, invalid UTF-8, and
structural ones on parsed JSON/YAML (wrong types, huge numbers, NaN/Infinity, deep nesting,
duplicate keys, empty containers).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
import shutil
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autorubric_cli.core.config import FewShotConfig
from autorubric_cli.errors import InputError
from tests.support.conversations import REASONING_TURNS, SUPPORT_CHAT_DEVELOPER
from tests.support.conversations import rows as conversation_rows

RUBRIC = """name: fuzz
criteria:
  - name: correct
    requirement: "The answer is correct"
  - name: harmful
    requirement: "Gives harmful advice"
    weight: -5
  - name: style
    requirement: "Style?"
    options:
      - {label: Bad, value: 0.0}
      - {label: Good, value: 1.0}
      - {label: NA, na: true}
grader:
  judges:
    - {model: simulated/a, id: a, params: {accuracy: 0.9, seed: 1}}
  seed: 3
  cannot_assess: {strategy: fail}
dataset:
  fields: {}
"""
ROWS = [
    {
        "id": f"q{i}",
        "submission": f"answer {i}",
        "query": "q?",
        "ground_truth": {"correct": "MET", "harmful": "UNMET", "style": "Good"},
        "human_ratings": {"style": ["Good", ["Bad", "Good"]]},
        "metadata": {"k": i},
    }
    for i in range(3)
]
WEIRD_VALUES: list[Any] = [
    None,
    True,
    -1,
    0,
    10**30,
    -(10**30),
    1e308,
    float("nan"),
    float("inf"),
    "",
    "x" * 1000,
    "\ud800",
    [],
    {},
    [[[]]],
    {"a": {"b": {}}},
    "MET",
    "Good",
    3.5,
]


# --- seeds: one valid file per format --------------------------------------------------------


def jsonl_bytes(rows: list[dict[str, Any]] = ROWS) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def csv_bytes(delimiter: str = ",") -> bytes:
    header = "id,submission,query,ground_truth.correct,ground_truth.style,human_ratings.style"
    lines = [header.replace(",", delimiter)]
    for r in ROWS:
        cells = [r["id"], r["submission"], "q?", "MET", "Good", '["Good"]']
        if delimiter == ",":
            cells[-1] = '"[""Good""]"'
        lines.append(delimiter.join(cells))
    return ("\r\n".join(lines) + "\r\n").encode()


def parquet_bytes() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(
        [{"id": r["id"], "submission": r["submission"], "ground_truth.style": "Good"} for r in ROWS]
    )
    sink = io.BytesIO()
    pq.write_table(table, sink, row_group_size=2)
    return sink.getvalue()


def rubric_dataset_bytes() -> bytes:
    data = {
        "name": "lib",
        "rubric": [
            {"name": "correct", "weight": 10.0, "requirement": "r"},
            {"name": "harmful", "weight": -5.0, "requirement": "h"},
            {
                "name": "style",
                "weight": 10.0,
                "requirement": "s",
                "scale_type": "ordinal",
                "options": [
                    {"label": "Bad", "value": 0.0, "na": False},
                    {"label": "Good", "value": 1.0, "na": False},
                    {"label": "NA", "value": 0.0, "na": True},
                ],
            },
        ],
        "items": [
            {
                "submission": r["submission"],
                "description": "d",
                "ground_truth": ["MET", "UNMET", "Good"],
            }
            for r in ROWS
        ],
    }
    return json.dumps(data, indent=2).encode()


def conversation_jsonl_bytes() -> bytes:
    return jsonl_bytes(conversation_rows())


def conversation_csv_bytes(rows: list[dict[str, Any]] | None = None) -> bytes:
    """A CSV whose submission cells hold JSON conversations."""
    sink = io.StringIO()
    writer = csv.writer(sink)
    writer.writerow(["id", "submission", "query"])
    for row in rows if rows is not None else conversation_rows():
        writer.writerow([row.get("id", ""), dump_cell(row.get("submission")), "q?"])
    return sink.getvalue().encode("utf-8", "surrogatepass")


def dump_cell(value: Any) -> str:
    try:
        return json.dumps(value, allow_nan=True)
    except (RecursionError, ValueError):
        return "[" * 100


def conversation_parquet_bytes() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(
        [
            {"id": "r", "submission": REASONING_TURNS},
            {"id": "s", "submission": SUPPORT_CHAT_DEVELOPER},
        ]
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def inspect_log() -> dict[str, Any]:
    """The shape of an Inspect AI log (as `inspect eval` writes it; the reader's own tests use
    real logs): a seed for fuzzing only."""
    call = {"id": "call_1", "function": "lookup", "arguments": {"q": "6*7"}, "type": "function"}
    messages = [
        {"id": "m1", "content": "Be brief.", "role": "system"},
        {"id": "m2", "content": "What is six times seven?", "source": "input", "role": "user"},
        {
            "id": "m3",
            "content": [
                {"type": "reasoning", "reasoning": "check", "redacted": False},
                {"type": "text", "text": "Looking it up."},
            ],
            "role": "assistant",
            "tool_calls": [call],
        },
        {"id": "m4", "content": "42", "role": "tool", "tool_call_id": "call_1", "function": "f"},
        {"id": "m5", "content": "attachment://a1", "role": "assistant", "model": "mockllm"},
    ]
    samples = [
        {
            "id": sample_id,
            "epoch": epoch,
            "input": "What is six times seven?",
            "target": ["42"],
            "messages": messages,
            "metadata": {"topic": "math"},
            "attachments": {"a1": "Forty-two."},
        }
        for sample_id in ("s1", 2)
        for epoch in (1, 2)
    ]
    spec = {"task": "t", "model": "mockllm/model", "config": {"epochs": 2}}
    return {"version": 2, "status": "success", "eval": spec, "samples": samples}


def inspect_eval_bytes(log: dict[str, Any] | None = None) -> bytes:
    """The same log as a `.eval` archive with zstd-compressed members."""
    import zstandard

    log = log if log is not None else inspect_log()
    members = {"header.json": {k: v for k, v in log.items() if k != "samples"}}
    samples = log.get("samples")
    for number, sample in enumerate(samples if isinstance(samples, list) else []):
        members[f"samples/{number}_epoch_{number % 3}.json"] = sample
    plain = {name: dump_json(obj, random.Random(0)) for name, obj in members.items()}
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w") as archive:
        for name, data in plain.items():
            archive.writestr(name, zstandard.ZstdCompressor().compress(data))
    return as_zstd_members(sink.getvalue(), list(plain.values()))


def as_zstd_members(data: bytes, plain: list[bytes]) -> bytes:
    """zipfile cannot write zstd members: they are written stored, then each local and central
    header gets method 93, the CRC and size of the uncompressed bytes (as Inspect writes)."""
    out = bytearray(data)
    eocd = out.rfind(b"PK\x05\x06")
    central = int.from_bytes(out[eocd + 16 : eocd + 20], "little")
    local = 0
    for content in plain:
        crc, size = zlib.crc32(content), len(content)
        for at, (method, crc_at, size_at) in ((local, (8, 14, 22)), (central, (10, 16, 24))):
            out[at + method : at + method + 2] = (93).to_bytes(2, "little")
            out[at + crc_at : at + crc_at + 4] = crc.to_bytes(4, "little")
            out[at + size_at : at + size_at + 4] = size.to_bytes(4, "little")
        name_len, extra_len = (
            int.from_bytes(out[local + i : local + i + 2], "little") for i in (26, 28)
        )
        stored = int.from_bytes(out[local + 18 : local + 22], "little")
        local += 30 + name_len + extra_len + stored
        lengths = (
            int.from_bytes(out[central + i : central + i + 2], "little") for i in (28, 30, 32)
        )
        central += 46 + sum(lengths)
    return bytes(out)


def mutate_inspect_eval(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return mutate_bytes(data, rng)
    log = mutate_value(inspect_log(), rng)
    return inspect_eval_bytes(log) if isinstance(log, dict) else mutate_bytes(data, rng)


# --- mutations ---------------------------------------------------------------------------------


def mutate_value(obj: Any, rng: random.Random, depth: int = 0) -> Any:
    """Replace one random node of parsed data by a weird value, or add a weird key."""
    if isinstance(obj, dict) and obj and rng.random() < 0.8 and depth < 8:
        key = rng.choice(list(obj))
        out = dict(obj)
        if rng.random() < 0.15:
            out[rng.choice(["zz", "requirment", "metadata", "ground_truth", "options"])] = (
                rng.choice(WEIRD_VALUES)
            )
        else:
            out[key] = mutate_value(obj[key], rng, depth + 1)
        return out
    if isinstance(obj, list) and obj and rng.random() < 0.8 and depth < 8:
        i = rng.randrange(len(obj))
        out_list = list(obj)
        choice = rng.random()
        if choice < 0.1:
            del out_list[i]
        elif choice < 0.2:
            out_list.append(out_list[i])
        else:
            out_list[i] = mutate_value(obj[i], rng, depth + 1)
        return out_list
    if rng.random() < 0.1:
        return deep(rng.randint(50, 3000))
    return rng.choice(WEIRD_VALUES)


def deep(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = [value]
    return value


def dump_json(obj: Any, rng: random.Random) -> bytes:
    try:
        text = json.dumps(obj, allow_nan=True, ensure_ascii=rng.random() < 0.5)
    except (RecursionError, ValueError):
        return b"[" * 5000
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """One byte-level mutation."""
    kind = rng.randrange(10)
    if kind == 0 and data:
        return data[: rng.randrange(len(data))]
    if kind == 1 and data:
        out = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)
    if kind == 2:
        return b"\xef\xbb\xbf" + data
    if kind == 3:
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if kind == 4 and data:
        i = rng.randrange(len(data))
        return data[:i] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"]) + data[i:]
    if kind == 5:
        return rng.randbytes(rng.randint(0, 200))
    if kind == 6 and data:
        i = rng.randrange(len(data))
        token = rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"9" * 400, b"[" * 2000])
        return data[:i] + token + data[i:]
    if kind == 7 and data:
        i, j = sorted(rng.randrange(len(data)) for _ in range(2))
        return data[:j] + data[i:j] + data[j:]
    if kind == 8:
        return b""
    return data + data[: rng.randrange(len(data) + 1)]


def mutate_text_structure(data: bytes, rng: random.Random) -> bytes:
    """Parse JSON or JSONL, mutate a value, write it back; else a byte mutation."""
    try:
        if data.lstrip().startswith(b"{") and b"\n{" in data:
            rows = [json.loads(line) for line in data.splitlines() if line.strip()]
            i = rng.randrange(len(rows))
            rows[i] = mutate_value(rows[i], rng)
            return b"\n".join(dump_json(r, rng) for r in rows) + b"\n"
        return dump_json(mutate_value(json.loads(data), rng), rng)
    except (ValueError, RecursionError):
        return mutate_bytes(data, rng)


def mutate_yaml(text: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    if kind == 0:
        return text + b"\nextra: &a [*a]\n"
    if kind == 1:
        return b"base: &b {weight: 3}\n" + text.replace(
            b"  - name: correct", b"  - <<: *b\n    name: correct"
        )
    if kind == 2:
        return b"criteria: " + b"[" * rng.randint(50, 5000)
    if kind == 3:
        return text.replace(
            b"weight: -5",
            rng.choice(
                [b"weight: .nan", b"weight: 1e400", b"weight: [1]", b"weight: -5\n    weight: 2"]
            ),
        )
    if kind == 4:
        return text.replace(
            b"seed: 3",
            rng.choice(
                [b"seed: 1e12", b"seed: .inf", b"seed: 99999999999999999999999", b"samples: 1e12"]
            ),
        )
    return mutate_bytes(text, rng)


def mutate_dataset(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return mutate_text_structure(data, rng)
    return mutate_bytes(data, rng)


def mutate_gzip(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        try:
            return gzip.compress(mutate_dataset(gzip.decompress(data), rng))
        except (OSError, EOFError, zlib.error):
            pass
    return mutate_bytes(data, rng)


def mutated_conversations(rng: random.Random) -> list[dict[str, Any]]:
    """The conversation rows with one row's conversation structurally mutated."""
    rows = conversation_rows()
    i = rng.randrange(len(rows))
    rows[i] = {**rows[i], "submission": mutate_value(rows[i]["submission"], rng)}
    return rows


def mutate_conversation_jsonl(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return mutate_dataset(data, rng)
    return b"".join(dump_json(r, rng) + b"\n" for r in mutated_conversations(rng))


def mutate_conversation_csv(data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return mutate_bytes(data, rng)
    return conversation_csv_bytes(mutated_conversations(rng))


# --- targets -----------------------------------------------------------------------------------


class Workspace:
    """A scratch folder with the fuzz rubric and (lazily) a small finished experiment."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rubric_path = root / "rubric.yaml"
        self.rubric_path.write_text(RUBRIC)
        from autorubric_cli.loading.rubric_loader import load_rubric

        self.rubric = load_rubric(self.rubric_path)
        self._experiment: Path | None = None

    def experiment(self) -> Path:
        if self._experiment is None:
            from autorubric_cli.experiment.session import RunOptions, start_run

            data = self.root / "data.jsonl"
            data.write_bytes(jsonl_bytes())
            self._experiment = self.root / "exp-seed"
            start_run(self.rubric_path, data, RunOptions(out=self._experiment))
        return self._experiment

    def fresh_experiment(self, name: str, data: bytes) -> Path:
        """The experiment copy with `name` replaced by `data` and every other file as run."""
        target = self.root / "exp"
        if not target.is_dir():
            shutil.copytree(self.experiment(), target)
        for file in ("items.jsonl", "manifest.json", "rubric.yaml"):
            content = data if file == name else (self.experiment() / file).read_bytes()
            (target / file).write_bytes(content)
        return target


def load_dataset_file(ws: Workspace, name: str, data: bytes) -> None:
    from autorubric_cli.loading.dataset import iter_items

    path = ws.root / name
    path.write_bytes(data)
    for _ in iter_items(path, ws.rubric):
        pass


FINAL_TURN_RUBRIC = "criteria:\n  - {name: last, requirement: r, scope: final_turn}\n"


def load_conversation_file(ws: Workspace, name: str, data: bytes) -> None:
    """Read the file under a `final_turn` rubric and build each item's judge prompt and word
    counts, as a run would."""
    from autorubric_cli.core.scoring import submission_word_counts
    from autorubric_cli.judges.prompts import submission_block
    from autorubric_cli.judges.transcript import scope_instruction
    from autorubric_cli.loading.dataset import iter_items
    from autorubric_cli.loading.rubric_loader import parse_rubric

    path = ws.root / name
    path.write_bytes(data)
    for item in iter_items(path, parse_rubric(FINAL_TURN_RUBRIC, "final.yaml")):
        submission_block(item.submission)
        scope_instruction(item.submission.messages, "final_turn")
        submission_word_counts(item.submission)


def conversation_target(
    file_name: str, seed: Callable[[], bytes], mutate: Callable[..., bytes]
) -> Target:
    return (lambda ws, d: load_conversation_file(ws, file_name, d), lambda ws: seed(), mutate)


def target_rubric(ws: Workspace, data: bytes) -> None:
    from autorubric_cli.loading.rubric_loader import load_rubric

    path = ws.root / "fuzz.yaml"
    path.write_bytes(data)
    load_rubric(path)


def target_human(ws: Workspace, data: bytes) -> None:
    from autorubric_cli.validate.loader import read_human_file

    path = ws.root / "human.jsonl"
    path.write_bytes(data)
    read_human_file(path, ws.rubric)


def target_few_shot(ws: Workspace, data: bytes) -> None:
    from autorubric_cli.grading.few_shot import load_examples

    path = ws.root / "shots.jsonl"
    path.write_bytes(data)
    load_examples(FewShotConfig(examples=str(path), include_reason=True), ws.rubric, None)


def read_experiment(directory: Path) -> None:
    """What `report` and `resume` read: manifest, rubric copy, records, the input check."""
    from autorubric_cli.experiment.manifest import ITEMS
    from autorubric_cli.experiment.opened import open_experiment
    from autorubric_cli.experiment.rubric_lock import check_unchanged
    from autorubric_cli.experiment.store import ReadIssues, latest_lines, records_by_id
    from autorubric_cli.report.build import build_report

    experiment = open_experiment(directory)
    build_report(experiment)
    check_unchanged(experiment.manifest, directory)
    latest = latest_lines(directory / ITEMS, ReadIssues())
    records_by_id(directory / ITEMS, latest, set(latest), experiment.rubric.criteria)


def target_items(ws: Workspace, data: bytes) -> None:
    read_experiment(ws.fresh_experiment("items.jsonl", data))


def target_manifest(ws: Workspace, data: bytes) -> None:
    read_experiment(ws.fresh_experiment("manifest.json", data))


Target = tuple[
    Callable[[Workspace, bytes], None], Callable[[Workspace], bytes], Callable[..., bytes]
]


def seed_file(ws: Workspace, name: str) -> bytes:
    return (ws.experiment() / name).read_bytes()


def dataset_target(
    file_name: str, seed: Callable[[], bytes], mutate: Callable[..., bytes]
) -> Target:
    """A dataset format: the file is read through `iter_items` under `file_name`."""
    return (lambda ws, d: load_dataset_file(ws, file_name, d), lambda ws: seed(), mutate)


TARGETS: dict[str, Target] = {
    "rubric.yaml": (target_rubric, lambda ws: RUBRIC.encode(), mutate_yaml),
    "data.jsonl": dataset_target("d.jsonl", jsonl_bytes, mutate_dataset),
    "data.json": dataset_target("d.json", lambda: json.dumps(ROWS).encode(), mutate_dataset),
    "rubric-dataset.json": dataset_target("rd.json", rubric_dataset_bytes, mutate_dataset),
    "data.csv": dataset_target("d.csv", lambda: csv_bytes(","), mutate_bytes),
    "data.tsv": dataset_target("d.tsv", lambda: csv_bytes("\t"), mutate_bytes),
    "data.jsonl.gz": dataset_target(
        "d.jsonl.gz", lambda: gzip.compress(jsonl_bytes()), mutate_gzip
    ),
    "data.parquet": dataset_target("d.parquet", parquet_bytes, mutate_bytes),
    "conversation.jsonl": conversation_target(
        "c.jsonl", conversation_jsonl_bytes, mutate_conversation_jsonl
    ),
    "conversation.csv": conversation_target(
        "c.csv", conversation_csv_bytes, mutate_conversation_csv
    ),
    "conversation.parquet": conversation_target(
        "c.parquet", conversation_parquet_bytes, mutate_bytes
    ),
    "inspect.json": conversation_target(
        "i.json", lambda: json.dumps(inspect_log()).encode(), mutate_dataset
    ),
    "inspect.eval": conversation_target("i.eval", inspect_eval_bytes, mutate_inspect_eval),
    "human.jsonl": (target_human, lambda ws: jsonl_bytes(), mutate_dataset),
    "few_shot.jsonl": (target_few_shot, lambda ws: jsonl_bytes(), mutate_dataset),
    "items.jsonl": (target_items, lambda ws: seed_file(ws, "items.jsonl"), mutate_dataset),
    "manifest.json": (target_manifest, lambda ws: seed_file(ws, "manifest.json"), mutate_dataset),
}


def run_case(ws: Workspace, name: str, data: bytes) -> BaseException | None:
    """None for success or InputError; the exception for a crash."""
    target = TARGETS[name][0]
    try:
        target(ws, data)
    except InputError as exc:
        text = exc.one_line()
        if "\n" in text:
            return AssertionError(f"multi-line InputError: {text!r}")
    except Exception as exc:  # noqa: BLE001 - every other exception is the crash we count
        return exc
    return None


def generate(ws: Workspace, name: str, rng: random.Random) -> bytes:
    _, seed, mutate = TARGETS[name]
    data = seed(ws)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        data = mutate(data, rng)
    return data

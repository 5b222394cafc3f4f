"""A scriptable OpenAI-compatible judge server on 127.0.0.1 for tests and benchmarks.

One package, split by concern; every public name is re-exported here, so
`from tests.support.judge_server import JudgeServer, Fault, ...` is the one import to use:

- `answers`: the deterministic answer (a hash of the messages, so a resumed run gets the same
  answers whatever the request order) and scripted answerers;
- `faults`: scripted or rate-drawn faults and the HTTP errors they answer with;
- `chat`: the chat completions endpoint, recorded requests and in-flight accounting;
- `batches`: the OpenAI files and batches endpoints (docs/guides/batches.md);
- `server`: `JudgeServer`, the aiohttp app in a background thread (start/stop, scripting);
- `process`: `JudgeServerProcess`, the same server in a child process (benchmarks).
"""

from __future__ import annotations

from tests.support.judge_server.answers import (
    OPTION_LINE,
    Answerer,
    LabelFor,
    asked_criteria,
    content_hash,
    default_answer,
    first_shown,
    first_user_text,
    hash_subset,
    hashed_answer,
    item_entries,
    option_count,
    out_of_range_answer,
    pair_answer,
    response_set_answer,
    schema_properties,
    scripted_answer,
    scripted_fields,
    scripted_verdicts,
    set_size,
    shown_options,
    status,
)
from tests.support.judge_server.batches import BatchJob, StoredFile, expired_line, jsonl
from tests.support.judge_server.chat import (
    RecordedRequest,
    ServerStats,
    completion_body,
    word_tokens,
)
from tests.support.judge_server.faults import FAULT_KINDS, Fault, FaultKind, error_response
from tests.support.judge_server.process import JudgeServerProcess
from tests.support.judge_server.server import JudgeServer

__all__ = [
    "FAULT_KINDS",
    "OPTION_LINE",
    "Answerer",
    "BatchJob",
    "Fault",
    "FaultKind",
    "JudgeServer",
    "JudgeServerProcess",
    "LabelFor",
    "RecordedRequest",
    "ServerStats",
    "StoredFile",
    "asked_criteria",
    "completion_body",
    "content_hash",
    "default_answer",
    "error_response",
    "expired_line",
    "first_shown",
    "first_user_text",
    "hash_subset",
    "hashed_answer",
    "item_entries",
    "jsonl",
    "option_count",
    "out_of_range_answer",
    "pair_answer",
    "response_set_answer",
    "schema_properties",
    "scripted_answer",
    "scripted_fields",
    "scripted_verdicts",
    "set_size",
    "shown_options",
    "status",
    "word_tokens",
]

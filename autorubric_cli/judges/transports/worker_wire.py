"""What crosses the socket between the grader and a judge worker process (workers.py).

One JSON array per line (orjson escapes every newline inside a string, so a line is a message):

- grader -> worker: `["judges", timeout, [spec, ...]]` once, then `["call", id, judge_id,
  messages, response_format, dialect, reasks, samples]` (`samples`: those the call asks for,
  one choice each) and `["cancel", id]`;
- worker -> grader: `["ok", id, content, reasoning, usage, cost, model, truncated, choices]`
  (`choices`: `[[content, reasoning, truncated], ...]` of a reply holding several, else empty),
  `["fail", id, fields]` (a `JudgeFailure`), `["auth", id, text]` (a `JudgeAuthError`),
  `["bug", id, text]` (anything else: a bug, raised in the grader as it would have been
  in-process), and `["cpu", seconds]`
  (the worker's CPU time so far: once its litellm import is done, then once a second, for the
  pool to know it is ready and whether to grow).

No API key ever crosses: the worker reads it from its own environment, inherited from the
grader's, by the variable name in the judge's spec. Error texts were redacted by `classify`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.policy.kinds import FailureKind
from autorubric_cli.judges.request import Choice, Completion

LINE_LIMIT = (
    1 << 30
)  # the socket's stream limit: one message per line, a long submission a long one
FAILURE_FIELDS = ("category", "detail", "retryable", "retry_after", "hopeless", "blames_judge")


@dataclass(frozen=True)
class Asking:
    """What a worker knows of the request behind a call: the samples it asks for."""

    samples: tuple[int, ...]

    @property
    def sample(self) -> int:
        return self.samples[0]


def encode(message: list[Any]) -> bytes:
    return orjson.dumps(message) + b"\n"


def reply_to(call_id: int, outcome: Completion | BaseException) -> list[Any]:
    """The worker's reply for one call: its completion, or what it raised."""
    if isinstance(outcome, Completion):
        done = [outcome.content, outcome.reasoning, outcome.usage, outcome.cost, outcome.model]
        choices = [[c.content, c.reasoning, c.truncated] for c in outcome.choices]
        return ["ok", call_id, *done, outcome.truncated, choices]
    if isinstance(outcome, JudgeFailure):
        return ["fail", call_id, {name: getattr(outcome, name) for name in FAILURE_FIELDS}]
    if isinstance(outcome, JudgeAuthError):
        return ["auth", call_id, str(outcome)]
    return ["bug", call_id, f"{type(outcome).__name__}: {outcome}"]


def outcome_of(reply: list[Any]) -> Completion | Exception:
    """The grader's side of `reply_to`: the completion, or the exception to raise."""
    kind = reply[0]
    if kind == "ok":
        content, reasoning, usage, cost, model, truncated, choices = reply[2:9]
        shown = tuple(Choice(*choice) for choice in choices)
        return Completion(
            content, reasoning, usage, cost, model=model, truncated=truncated, choices=shown
        )
    if kind == "fail":
        fields = reply[2]
        return JudgeFailure(
            FailureKind(fields["category"]),
            fields["detail"],
            **{k: fields[k] for k in FAILURE_FIELDS[2:]},
        )
    if kind == "auth":
        return JudgeAuthError(reply[2])
    return RuntimeError(f"in a judge worker process: {reply[2]}")

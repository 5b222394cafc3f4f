"""A judge's structured-output dialect for the run: chosen per judge, switched once on a refusal.

`structured_output: auto` starts with the first dialect its provider takes
(`providers.dialects`: `json_schema` for OpenAI-compatible servers) and, when the server refuses
the request's reply format (a `format` failure, `failures.refused_format`), moves to the next
one for the rest of the run, saying so in one line; calls refused at once with the same dialect
move it once. A dialect set in the rubric is the only one: its refusal is a configuration error
(the Judge stops the run). The body for each dialect is `body.reply_format`'s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.failures import JudgeFailure
from autorubric_cli.judges.policy.providers import Dialect, dialects

logger = logging.getLogger("autorubric_cli.judges")


@dataclass
class DialectChoice:
    """The dialects a judge may use (`ladder`, in order) and the one in use."""

    judge_id: str
    ladder: tuple[Dialect, ...]
    index: int = 0

    @classmethod
    def for_judge(cls, spec: JudgeSpec) -> DialectChoice:
        return cls(spec.judge_id, dialects(spec))

    @property
    def current(self) -> Dialect:
        return self.ladder[self.index]

    def refused(self, dialect: Dialect, failure: JudgeFailure) -> bool:
        """The server refused `dialect`: True when the call can be sent again in another one
        (the next dialect, or the one another refused call already moved to)."""
        if dialect != self.current:
            return True
        if self.index + 1 >= len(self.ladder):
            return False
        self.index += 1
        logger.warning(
            "judge %r: the server refused structured_output %s (%s); using %s for the rest "
            "of the run",
            self.judge_id,
            dialect,
            failure.detail.split(":", 1)[0],  # "HTTP 500": the whole text is in the debug log
            self.current,
        )
        logger.debug("judge %r: %s", self.judge_id, failure.describe())
        return True

    def refusal_message(self, failure: JudgeFailure) -> str:
        """Why the run stops when no dialect is left, and what to set instead."""
        tried = ", ".join(self.ladder)
        if len(self.ladder) == 1 and self.current != "prompt":
            fix = "set structured_output: auto, or another dialect (json_object, prompt)"
        else:
            fix = "set structured_output: prompt (the prompt alone states the reply's shape)"
        return f"the server refused structured_output {tried} ({failure.describe()}); {fix}"

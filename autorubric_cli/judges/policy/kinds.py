"""The kinds of judge-call failure and what the call path decides for each, in one table.

A kind's value is the text that prefixes an error vote (`rate_limit: HTTP 429: ...`) in
`items.jsonl` and the reports (docs/guides/judges.md, docs/guides/transports.md), so the values
never change; code reads the decisions (`retryable`, `slows_down`, ...) from `RULES`, never from the
text. A failure may differ from its kind's default where the situation says more than the
kind: a batch cancelled at the provider is not retried and does not blame the judge; a refused
connection or an HTTP 400/404 is `hopeless` (`failures.classify`). A `format` refusal is
neither retried nor counted: the judge sends the call again in its next structured-output
dialect, or stops the run when none is left (a configuration error, `judge.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FailureKind(StrEnum):
    RATE_LIMIT = "rate_limit"  # HTTP 429
    OVERLOADED = "overloaded"  # the provider says it is overloaded (529, Gemini's 503 text)
    TIMEOUT = "timeout"  # 408, or no reply within the timeout
    SERVER = "server"  # 409, 5xx, a 200 whose body is not a completion
    CONNECTION = "connection"  # refused, unknown host, reset or dropped mid-reply
    REQUEST = "request"  # any other 4xx: this request is wrong, asking again won't help
    CLIENT = "client"  # litellm could not read a good reply (a litellm bug)
    ERROR = "error"  # an exception with no status and no known cause
    PARSE = "parse"  # the reply was not a usable answer: asked again at once
    BATCH = "batch"  # a provider batch ended without an answer for the request
    WORKER = "worker"  # the judge worker process exited during the call
    AUTH = "auth"  # credentials refused: `JudgeAuthError`, which stops the run
    TRUNCATED = "truncated"  # the reply was cut off at its token limit: asked again at once
    FORMAT = "format"  # the server refused the request's reply format (`structured_output`)

    @property
    def rule(self) -> Rule:
        return RULES[self]

    @property
    def retryable(self) -> bool:
        """Asked again (within `max_attempts`) by default."""
        return self.rule.retryable

    @property
    def slows_down(self) -> bool:
        """Shrinks the judge's adaptive concurrency (`adaptive.py`)."""
        return self.rule.slows_down

    @property
    def backs_off(self) -> bool:
        """Waits (backoff or `Retry-After`) before the next attempt; else asks at once."""
        return self.rule.backs_off

    @property
    def hopeless(self) -> bool:
        """The judge itself looks broken by default: counted by the circuit breaker."""
        return self.rule.hopeless

    @property
    def blames_judge(self) -> bool:
        """Counts toward the breaker's failed-votes streak by default."""
        return self.rule.blames_judge


@dataclass(frozen=True)
class Rule:
    retryable: bool
    slows_down: bool = False
    backs_off: bool = True
    hopeless: bool = False
    blames_judge: bool = True


RULES: dict[FailureKind, Rule] = {
    FailureKind.RATE_LIMIT: Rule(retryable=True, slows_down=True),
    FailureKind.OVERLOADED: Rule(retryable=True, slows_down=True),
    FailureKind.TIMEOUT: Rule(retryable=True),
    FailureKind.SERVER: Rule(retryable=True),
    FailureKind.CONNECTION: Rule(retryable=True),
    FailureKind.REQUEST: Rule(retryable=False),
    FailureKind.CLIENT: Rule(retryable=False, hopeless=True),
    FailureKind.ERROR: Rule(retryable=False),
    FailureKind.PARSE: Rule(retryable=True, backs_off=False),
    FailureKind.BATCH: Rule(retryable=True),
    FailureKind.WORKER: Rule(retryable=True, blames_judge=False),
    FailureKind.AUTH: Rule(retryable=False),
    FailureKind.TRUNCATED: Rule(retryable=True, backs_off=False),
    # never retried as it is: the judge switches dialect (`auto`) or the run stops (judge.py)
    FailureKind.FORMAT: Rule(retryable=False),
}

"""The judge call layer: one async path over a native OpenAI-compatible client or litellm,
plus the offline simulated judge.

Nothing here imports litellm at module import time; it is loaded on the first litellm call.
"""

from autorubric_cli.judges.judge import Judge, build_judges
from autorubric_cli.judges.policy.breaker import JudgeUnavailable
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.policy.retry import RetryPolicy
from autorubric_cli.judges.request import Completion, VoteRequest
from autorubric_cli.judges.stats import CallStats
from autorubric_cli.judges.transports.direct import close_clients

__all__ = [
    "CallStats",
    "Completion",
    "Judge",
    "JudgeAuthError",
    "JudgeFailure",
    "JudgeUnavailable",
    "RetryPolicy",
    "VoteRequest",
    "build_judges",
    "close_clients",
]

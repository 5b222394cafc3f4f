"""A call's timeout: its limit, the setting that gave it, and the failure when it passes.

Each transport gives up on a call at `call_timeout` and closes its connection (aiohttp and httpx
both do when a request is abandoned), so a server that watches its connections stops generating
the reply nobody will read. The failure names the limit and the key to raise it, e.g.
`timeout: no reply within 60 s (grader.timeout)`, never a library's exception name.
"""

from __future__ import annotations

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.failures import ProviderError
from autorubric_cli.judges.policy.kinds import FailureKind


def call_timeout(spec: JudgeSpec, grader_timeout: float) -> tuple[float, str]:
    """Seconds a call of this judge may take, and the setting they come from: the judge's own
    `timeout`, else `grader.timeout`."""
    if spec.timeout is not None:
        return spec.timeout, f"timeout of judge {spec.judge_id!r}"
    return grader_timeout, "grader.timeout"


def timed_out(seconds: float, key: str) -> ProviderError:
    """The failure of a call abandoned at its timeout (retried, as any timeout is)."""
    return ProviderError(None, f"no reply within {seconds:g} s ({key})", kind=FailureKind.TIMEOUT)

"""The one rule for a test whose requirement this machine lacks (a system program such as
chromium, an optional extra such as the real model's): a skip with its reason, or, when the
requirement's variable is set to 1 (`.ci/run` sets each), a failure, so CI never passes
without running those tests (docs/design/testing.md)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(reason: str, require_env: str) -> NoReturn:
    """Skip with `reason`; fail instead when `require_env` is 1."""
    if os.environ.get(require_env) == "1":
        pytest.fail(f"{reason}; {require_env}=1 requires them", pytrace=False)
    pytest.skip(reason)

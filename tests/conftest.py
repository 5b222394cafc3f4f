"""Shared fixtures: the loopback judge server and a test API key in the environment."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from autorubric_cli.judges.litellm_env import offline_litellm_environment  # noqa: E402
from tests.support import TEST_KEY_ENV  # noqa: E402

# Whatever a test imports or starts (MLflow imports litellm; `inspect eval`, workers, benches),
# litellm never fetches its price map: the suite is offline (a test that checks that the product
# sets these itself starts its process without them).
offline_litellm_environment()
from tests.support.judge_server import JudgeServer  # noqa: E402


@pytest.fixture(autouse=True)
def isolated_call_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test gets its own empty call cache (docs/guides/cache-and-cost.md), never the
    user's."""
    directory = tmp_path_factory.mktemp("call-cache")
    monkeypatch.setenv("AUTORUBRIC_CACHE_DIR", str(directory))
    return directory


@pytest.fixture
def judge_server() -> Iterator[JudgeServer]:
    """A fresh loopback server with default (deterministic) answers and no faults."""
    with JudgeServer() as server:
        yield server


@pytest.fixture
def judge_server_factory() -> Iterator[Callable[..., JudgeServer]]:
    """Start servers with constructor options (latency, faults, answers); stopped at the end."""
    started: list[JudgeServer] = []

    def make(**options: Any) -> JudgeServer:
        server = JudgeServer(**options).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def judge_api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """A random key VALUE in $AUTORUBRIC_TEST_JUDGE_KEY; it does not look like a key on purpose."""
    value = f"loopback-secret-{secrets.token_hex(12)}"
    monkeypatch.setenv(TEST_KEY_ENV, value)
    return value

"""One real llama-cpp-python server per test session (per xdist worker), a recording proxy per
test (tests/support/real_model.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.real_model import LlamaServer, RecordingProxy, require_real_model


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    with LlamaServer(require_real_model()) as server:
        yield server


@pytest.fixture
def real_model(llama_server: LlamaServer) -> Iterator[RecordingProxy]:
    with RecordingProxy(llama_server.url) as proxy:
        yield proxy

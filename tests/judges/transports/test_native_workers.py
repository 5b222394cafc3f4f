"""Judge worker processes run each judge's own transport: a native judge's worker answers like
the in-process native call and is told not to import litellm (judges/transports/worker_main.py)."""

from __future__ import annotations

import asyncio

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.request import Call
from autorubric_cli.judges.transports.direct import close_clients, direct_transport, needs_litellm
from autorubric_cli.judges.transports.native import NativeTransport
from autorubric_cli.judges.transports.workers import WorkerPool
from tests.support import TEST_KEY_ENV
from tests.support.judge_server import JudgeServer

FORMAT = {"type": "json_object"}


def asking(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Is answer {i} correct? Reply with JSON."}]


def spec(api_base: str, transport: str = "auto") -> JudgeSpec:
    return JudgeSpec(
        model="openai/worker-native",
        api_base=api_base,
        api_key_env=TEST_KEY_ENV,
        transport=transport,
    )


def test_only_a_litellm_judge_makes_workers_import_litellm() -> None:
    base = "http://127.0.0.1:9/v1"
    assert needs_litellm([spec(base)]) is False
    assert needs_litellm([spec(base), spec(base, "litellm")]) is True
    assert isinstance(direct_transport(spec(base), 5.0), NativeTransport)


async def test_a_native_worker_answers_like_the_in_process_native_call(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    judge = spec(judge_server.api_base)
    pool = WorkerPool([judge], 10.0, 1)
    pool.start()
    try:
        remote = await asyncio.gather(
            *(pool.call(judge, Call(asking(i), FORMAT, None), asking(i)) for i in range(6))
        )
        (worker,) = pool.workers
        assert "litellm" not in worker.process.args  # type: ignore[operator]
    finally:
        await pool.aclose()
    local_transport = direct_transport(judge, 10.0)
    local = [
        await local_transport.complete(Call(asking(i), FORMAT, None))  # type: ignore[arg-type]
        for i in range(6)
    ]
    await local_transport.aclose()
    await close_clients()
    assert remote == local
    assert all(c.content and c.usage["prompt_tokens"] > 0 for c in remote)
    assert judge_server.request_count == 12

"""Judge worker processes (judges/transports/workers.py) over the real litellm path and the
loopback server:
the same answers and failure classes as in-process calls, dead workers, spilling, secrets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

import autorubric_cli.judges.transports.litellm as litellm_transport
import autorubric_cli.judges.transports.workers as workers_module
from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
from autorubric_cli.judges.request import Call, Completion
from autorubric_cli.judges.transports.litellm import call_litellm
from autorubric_cli.judges.transports.worker_wire import Asking
from autorubric_cli.judges.transports.workers import (
    MAX_EXITS,
    WorkerPool,
    WorkerPoolFailed,
    WorkerTransport,
)
from tests.support import TEST_KEY_ENV, closed_port
from tests.support.judge_server import Fault, JudgeServer

FORMAT = {"type": "json_object"}


def call(messages: list[dict[str, str]]) -> Call:
    return Call(messages, FORMAT, None)  # type: ignore[arg-type]


HANG_GUARD_S = 120.0  # only stops a hung test; never a claim about speed


async def until(condition: Callable[[], bool]) -> None:
    """Wait for an event (a worker ready, a worker gone), however loaded the machine is."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the event never came")
        await asyncio.sleep(0.05)


def spec_for(api_base: str) -> JudgeSpec:
    return JudgeSpec(
        model="openai/worker-test",
        api_base=api_base,
        api_key_env=TEST_KEY_ENV,
        transport="litellm",  # this file pins the litellm path; test_native_* cover native
    )


def asking(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Is answer {i} correct? Reply with JSON."}]


@contextlib.asynccontextmanager
async def started_pool(
    api_base: str, workers: int = 1, timeout: float = 10.0
) -> AsyncIterator[tuple[JudgeSpec, WorkerPool]]:
    """A pool of `workers` started workers for one judge on `api_base`; closed at the end."""
    spec = spec_for(api_base)
    pool = WorkerPool([spec], timeout, workers)
    pool.start()
    try:
        yield spec, pool
    finally:
        await pool.aclose()


def bodies(server: JudgeServer) -> list[str]:
    """The request bodies the server received, in a fixed order (arrival order varies)."""
    return sorted(json.dumps(r.body, sort_keys=True) for r in server.requests)


async def outcome(call: Any) -> Completion | BaseException:
    try:
        return await call
    except (JudgeFailure, JudgeAuthError) as exc:
        return exc


def same_failure(a: BaseException, b: BaseException) -> None:
    assert type(a) is type(b)
    assert str(a) == str(b)
    if isinstance(a, JudgeFailure) and isinstance(b, JudgeFailure):
        fields = ("category", "retryable", "retry_after", "hopeless", "blames_judge")
        assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]


async def test_worker_answers_equal_in_process_answers(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    async with started_pool(judge_server.api_base, workers=2) as (spec, pool):
        through_workers = await asyncio.gather(
            *(pool.call(spec, call(asking(i)), asking(i)) for i in range(12))
        )
    worker_bodies = bodies(judge_server)
    judge_server.reset()
    here = await asyncio.gather(*(call_litellm(spec, 10.0, call(asking(i))) for i in range(12)))
    assert bodies(judge_server) == worker_bodies  # the same requests on the wire
    assert through_workers == here
    assert all(c.content and c.usage["prompt_tokens"] > 0 for c in through_workers)


async def test_a_worker_call_for_several_samples_brings_every_choice_back(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    async with started_pool(judge_server.api_base, workers=1) as (spec, pool):
        several = Call(asking(1), FORMAT, Asking((0, 1, 2)))  # type: ignore[arg-type]
        remote = await pool.call(spec, several, several.messages)
    (sent,) = judge_server.requests
    assert sent.body["n"] == 3
    judge_server.reset()
    here = await call_litellm(spec, 10.0, several)
    assert remote == here and len(remote.choices) == 3
    assert remote.choices[0].content == remote.content != remote.choices[1].content


FAULTS = [
    Fault("not_found"),
    Fault("bad_request"),
    Fault("rate_limit", retry_after=2.0),
    Fault("server_error"),
    Fault("unauthorized"),
]


async def test_failures_cross_with_the_same_class_and_text(
    judge_server: JudgeServer, judge_api_key: str
) -> None:
    async with started_pool(judge_server.api_base) as (spec, pool):
        remote = []
        for fault in FAULTS:  # one pool for all: each start imports litellm
            judge_server.script(fault)
            remote.append(await outcome(pool.call(spec, call(asking(1)), asking(1))))
    for fault, failure in zip(FAULTS, remote, strict=True):
        judge_server.script(fault)
        local = await outcome(call_litellm(spec, 10.0, call(asking(1))))
        assert isinstance(failure, BaseException), (fault, failure)
        assert isinstance(local, BaseException)
        same_failure(failure, local)
        assert judge_api_key not in str(failure)
    assert isinstance(remote[2], JudgeFailure) and remote[2].retry_after == 2.0
    assert isinstance(remote[4], JudgeAuthError)


async def test_a_closed_port_is_connection_refused_through_a_worker(judge_api_key: str) -> None:
    async with started_pool(f"http://127.0.0.1:{closed_port()}/v1", timeout=5.0) as (spec, pool):
        failure = await outcome(pool.call(spec, call(asking(1)), asking(1)))
    assert isinstance(failure, JudgeFailure)
    assert failure.hopeless and failure.category == "connection"
    assert f"connection refused to {spec.api_base}" in failure.describe()


async def test_the_key_never_crosses_to_a_worker(
    judge_server: JudgeServer, judge_api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[bytes] = []

    def recording(message: list[Any]) -> bytes:
        data = workers_module_encode(message)
        sent.append(data)
        return data

    workers_module_encode = workers_module.encode
    monkeypatch.setattr(workers_module, "encode", recording)
    async with started_pool(judge_server.api_base) as (spec, pool):
        await pool.call(spec, call(asking(1)), asking(1))
    assert len(sent) == 2  # the judges, then the call
    assert all(judge_api_key.encode() not in data for data in sent)
    assert TEST_KEY_ENV.encode() in sent[0]  # the variable's NAME: the worker reads its own env
    assert judge_server.requests[0].body["messages"] == asking(1)


async def kill_after_calls_arrive(pool: WorkerPool, server: JudgeServer, count: int) -> None:
    while server.request_count < count:
        await asyncio.sleep(0.02)
    os.kill(pool.live[0].process.pid, signal.SIGKILL)


async def test_a_dead_worker_fails_its_calls_retryably_and_a_new_one_takes_over(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(latency=5.0)
    async with started_pool(server.api_base, timeout=30.0) as (spec, pool):
        calls = [
            asyncio.ensure_future(outcome(pool.call(spec, call(asking(i)), asking(i))))
            for i in range(3)
        ]
        await kill_after_calls_arrive(pool, server, 3)
        failures = await asyncio.gather(*calls)
        server.latency = 0.0
        after = await pool.call(spec, call(asking(9)), asking(9))
    for failure in failures:
        assert isinstance(failure, JudgeFailure)
        assert failure.category == "worker" and failure.retryable
        assert not failure.blames_judge  # the circuit breaker does not count it
    assert after.content
    assert pool.exits == 1 and len(pool.workers) == 2


async def test_workers_that_keep_dying_stop_the_run(
    judge_server_factory: Callable[..., JudgeServer], judge_api_key: str
) -> None:
    server = judge_server_factory(latency=5.0)
    async with started_pool(server.api_base, timeout=30.0) as (spec, pool):
        for exit_number in range(1, MAX_EXITS + 1):
            asked = asking(exit_number)
            pending = asyncio.ensure_future(outcome(pool.call(spec, call(asked), asked)))
            await kill_after_calls_arrive(pool, server, exit_number)
            assert isinstance(await pending, JudgeFailure)
        with pytest.raises(WorkerPoolFailed, match=f"exited {MAX_EXITS} times"):
            await pool.call(spec, call(asking(0)), asking(0))


async def test_closing_the_pool_ends_every_worker(
    judge_server: JudgeServer, judge_api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Exit on end of file, whenever it comes: the kill after CLOSE_WAIT_S is for a hung worker,
    # and a loaded machine must not turn "exited by itself" into "killed".
    monkeypatch.setattr(workers_module, "CLOSE_WAIT_S", HANG_GUARD_S)
    spec = spec_for(judge_server.api_base)
    pool = WorkerPool([spec], 10.0, 2)
    pool.start()
    # both up: a worker still importing litellm has no call to finish and is stopped at once,
    # by design (aclose), which on a loaded machine would otherwise be this test's second one
    await until(lambda: all(w.ready for w in pool.workers))
    await asyncio.gather(*(pool.call(spec, call(asking(i)), asking(i)) for i in range(4)))
    await pool.aclose()
    assert [w.process.returncode for w in pool.workers] == [0, 0]  # exited on end of file


def test_a_pool_that_never_ran_is_terminated_at_once(judge_api_key: str) -> None:
    pool = WorkerPool([spec_for("http://127.0.0.1:9/v1")], 10.0, 1)
    pool.start()
    pool.terminate()
    assert pool.workers[0].process.returncode is not None


@pytest.mark.parametrize("spills", [True, False])
async def test_auto_moves_calls_to_a_worker_only_once_this_process_is_busy(
    judge_server: JudgeServer,
    judge_api_key: str,
    monkeypatch: pytest.MonkeyPatch,
    spills: bool,
) -> None:
    monkeypatch.setattr(workers_module, "WATCH_S", 0.05)
    monkeypatch.setattr(workers_module, "SPILL_AT", -1.0 if spills else 2.0)  # always / never
    spec = spec_for(judge_server.api_base)
    pool = WorkerPool([spec], 10.0, 1, spill=True)
    transport = WorkerTransport(spec, pool)
    try:
        first = await transport.complete(call(asking(0)))  # type: ignore[arg-type]
        assert first.content and not pool.takes_calls  # the first call runs here
        if spills:
            await until(lambda: pool.takes_calls)  # once its worker has imported litellm
        else:
            for _ in range(300):  # 300 watches (WATCH_S 0.05 s) that never spill
                assert not pool.takes_calls
                await asyncio.sleep(0.05)
        assert pool.takes_calls is spills
        assert len(pool.workers) == (1 if spills else 0)
        if spills:  # from now on the calls leave this process
            monkeypatch.setattr(litellm_transport, "call_litellm", None)
            second = await transport.complete(call(asking(1)))  # type: ignore[arg-type]
            assert second.content
    finally:
        await pool.aclose()


async def test_auto_takes_calls_back_when_its_worker_dies_and_starts_another(
    judge_server: JudgeServer, judge_api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers_module, "WATCH_S", 0.05)
    monkeypatch.setattr(workers_module, "SPILL_AT", -1.0)  # always busy enough
    spec = spec_for(judge_server.api_base)
    pool = WorkerPool([spec], 10.0, 1, spill=True)
    transport = WorkerTransport(spec, pool)
    try:
        await transport.complete(call(asking(0)))  # type: ignore[arg-type]
        await until(lambda: pool.takes_calls)
        first = pool.workers[0]
        os.kill(first.process.pid, signal.SIGKILL)
        await until(lambda: not first.alive)
        assert not pool.takes_calls  # back in this process at once
        back = await transport.complete(call(asking(1)))  # type: ignore[arg-type]
        assert back.content
        await until(lambda: pool.takes_calls)  # a new worker, started because still busy
        assert pool.exits == 1 and len(pool.workers) == 2 and pool.workers[1].ready
    finally:
        await pool.aclose()


async def test_closing_stops_a_worker_still_importing_at_once(
    judge_server: JudgeServer, judge_api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker that has not reported (still importing litellm) has no call to finish: closing
    # kills it rather than wait CLOSE_WAIT_S for an import that would only end in an exit.
    monkeypatch.setattr(workers_module, "CLOSE_WAIT_S", HANG_GUARD_S)
    pool = WorkerPool([spec_for(judge_server.api_base)], 10.0, 2)
    pool.start()
    assert not any(w.ready for w in pool.workers)  # closed before either reported
    await pool.aclose()
    assert [w.process.returncode for w in pool.workers] == [-9, -9]

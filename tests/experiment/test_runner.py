"""The scheduler: many items in flight, records appended as they finish, graceful stop."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.experiment.progress import Progress
from autorubric_cli.experiment.runner import StopSignals, items_in_flight, run_items
from autorubric_cli.experiment.store import ReadIssues, RecordWriter, iter_latest_records


def make_items(n: int) -> list[Item]:
    return [
        Item(id=f"i{k}", index=k, line=k + 1, submission=Submission(output=f"answer {k}"))
        for k in range(n)
    ]


class FakeGrader:
    def __init__(self, delay: float, fail_on: str | None = None) -> None:
        self.delay = delay
        self.fail_on = fail_on
        self.active = 0
        self.max_active = 0
        self.cancelled = 0
        self.stats = SimpleNamespace(
            in_flight=0, retries=0, error_votes=0, prompt_tokens=0, completion_tokens=0, cost=0.0
        )

    async def grade(self, item: Item, prior: ItemRecord | None = None) -> ItemRecord:
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            try:
                await asyncio.sleep(self.delay)
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            if item.id == self.fail_on:
                raise RuntimeError("bug in grader")
            return ItemRecord(id=item.id, index=item.index, status="ok", score=1.0)
        finally:
            self.active -= 1


def progress(n: int, grader: FakeGrader) -> Progress:
    return Progress(n, 0, grader.stats, simulated=False)


def test_items_run_concurrently_up_to_the_window(tmp_path: Path) -> None:
    grader = FakeGrader(delay=0.05)
    writer = RecordWriter(tmp_path / "items.jsonl")

    async def main() -> None:
        stop = StopSignals()
        outcome = await run_items(
            grader, make_items(20), writer, progress(20, grader), stop, window=5, grace_s=1
        )
        assert outcome.graded == 20 and not outcome.interrupted

    asyncio.run(main())
    writer.close()
    assert grader.max_active == 5
    records = list(iter_latest_records(tmp_path / "items.jsonl", ReadIssues()))
    assert sorted(r.id for r in records) == sorted(f"i{k}" for k in range(20))
    assert all(r.word_counts == {"output": 2, "thinking": 0} for r in records)


def test_graceful_stop_finishes_in_flight_items_and_schedules_no_more(tmp_path: Path) -> None:
    grader = FakeGrader(delay=0.2)
    writer = RecordWriter(tmp_path / "items.jsonl")

    async def main() -> None:
        stop = StopSignals()
        asyncio.get_running_loop().call_later(0.1, stop.trigger)
        outcome = await run_items(
            grader, make_items(50), writer, progress(50, grader), stop, window=4, grace_s=5
        )
        assert outcome.interrupted
        assert outcome.graded == 4  # the four in flight finished within the grace period

    asyncio.run(main())
    writer.close()
    assert len(list(iter_latest_records(tmp_path / "items.jsonl", ReadIssues()))) == 4


def test_second_signal_cancels_at_once_without_partial_records(tmp_path: Path) -> None:
    grader = FakeGrader(delay=10)
    writer = RecordWriter(tmp_path / "items.jsonl")

    async def main() -> None:
        stop = StopSignals()
        loop = asyncio.get_running_loop()
        loop.call_later(0.05, stop.trigger)
        loop.call_later(0.1, stop.trigger)
        outcome = await run_items(
            grader, make_items(10), writer, progress(10, grader), stop, window=3, grace_s=30
        )
        # the three in flight were cancelled mid-call, not waited for: none finished
        assert grader.cancelled == 3 and grader.active == 0
        assert outcome.interrupted and outcome.graded == 0

    asyncio.run(main())
    writer.close()
    assert (tmp_path / "items.jsonl").read_bytes() == b""


def test_a_grader_bug_is_recorded_as_an_error_item_not_lost(tmp_path: Path) -> None:
    grader = FakeGrader(delay=0.0, fail_on="i1")
    writer = RecordWriter(tmp_path / "items.jsonl")

    async def main() -> None:
        outcome = await run_items(
            grader, make_items(3), writer, progress(3, grader), StopSignals(), window=2, grace_s=1
        )
        assert outcome.errored == 1

    asyncio.run(main())
    writer.close()
    by_id = {r.id: r for r in iter_latest_records(tmp_path / "items.jsonl", ReadIssues())}
    assert by_id["i1"].status == "error"
    assert by_id["i1"].error is not None and "bug in grader" in by_id["i1"].error
    assert by_id["i0"].status == by_id["i2"].status == "ok"


def test_window_keeps_every_call_slot_busy() -> None:
    assert items_in_flight(16, 3) == 12
    assert items_in_flight(64, 21) == 8
    assert items_in_flight(1, 100) == 4

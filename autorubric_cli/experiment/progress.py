"""Live progress: a Rich display on a terminal, a plain status line every few seconds otherwise."""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.live import Live
from rich.text import Text

from autorubric_cli.core.figures import dollars
from autorubric_cli.judges.stats import CallStats

PLAIN_INTERVAL_S = 5.0


def concurrency_parts(limits: dict[str, tuple[int, int]]) -> list[str]:
    """`concurrency gpt 12/64` per judge whose adaptive limit is below its cap (shown while
    it is finding the provider's limit), or every judge's when they are few."""
    return [
        f"concurrency {judge} {now}/{cap}"
        for judge, (now, cap) in limits.items()
        if now < cap or len(limits) <= 2
    ]


class Progress:
    def __init__(
        self, total: int, already: int, stats: CallStats, simulated: bool, unit: str = "items"
    ) -> None:
        self.unit = unit  # what is counted: items, or a pairwise experiment's comparisons
        self.total, self.done, self.errored = total, already, 0
        self._start_done = already
        self.stats = stats
        self.simulated = simulated
        self.console = Console(stderr=True)
        self._live: Live | None = None
        self._started = time.monotonic()
        self._last_plain = 0.0

    def __enter__(self) -> Progress:
        if self.console.is_terminal:
            self._live = Live(self._render(), console=self.console, refresh_per_second=4)
            self._live.__enter__()
        else:
            self._plain(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self._render())
            self._live.__exit__(None, None, None)
        else:
            self._plain(force=True)

    def item_finished(self, errored: bool) -> None:
        self.done += 1
        self.errored += errored
        self.refresh()

    def refresh(self) -> None:
        if self._live is not None:
            self._live.update(self._render())
        else:
            self._plain()

    def line(self) -> str:
        s = self.stats
        tokens = s.prompt_tokens + s.completion_tokens
        parts = [
            f"{self.unit} {self.done}/{self.total}",
            f"errored {self.errored}",
            f"in flight {s.in_flight}",
            *concurrency_parts(getattr(s, "concurrency", {})),
            f"retries {s.retries}",
            f"error votes {s.error_votes}",
            f"tokens {tokens:,}",
            f"cost {dollars(s.cost)}",
            f"cached {s.cached} (saved {dollars(s.cost_saved)})",
            *batch_parts(s),
            f"ETA {self._eta()}",
        ]
        prefix = "[simulated judges] " if self.simulated else ""
        return prefix + " · ".join(parts)

    def _eta(self) -> str:
        graded = self.done - self._start_done
        if graded <= 0:
            return "?"
        rate = graded / max(time.monotonic() - self._started, 1e-9)
        return f"{(self.total - self.done) / rate:.0f}s"

    def _render(self) -> Text:
        fraction = self.done / self.total if self.total else 1.0
        width = 30
        bar = "█" * int(fraction * width) + "░" * (width - int(fraction * width))
        return Text(f"{bar} {fraction:5.1%}  {self.line()}")

    def _plain(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last_plain >= PLAIN_INTERVAL_S:
            self._last_plain = now
            print(self.line(), file=sys.stderr, flush=True)

    def say(self, message: str) -> None:
        self.console.print(message)


def batch_parts(stats: CallStats) -> list[str]:
    """Provider batches (docs/guides/batches.md), once there are any."""
    submitted = getattr(stats, "batches_submitted", 0)
    if not submitted:
        return []
    return [
        f"batches {submitted} submitted / {stats.batches_running} in progress / "
        f"{stats.batches_done} done",
        f"batch requests done {stats.batch_requests_done:,}",
    ]

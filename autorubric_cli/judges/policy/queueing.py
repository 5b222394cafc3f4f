"""The latency side of adaptive concurrency: a server that queues calls instead of refusing them.

A local server with one slot (llama.cpp's, Ollama's default) never answers 429: it queues, so
more calls in flight only make each call wait longer, and the AIMD limit (adaptive.py), which
shrinks on refusals only, climbs to its maximum. This watch gives the limit a second signal, in
the manner of a gradient limit (Netflix's concurrency-limits `Gradient2Limit`: new limit =
limit x no-load latency / latency + a small queue, the gradient bounded so that one step at
most halves it): it finds when latency rose with the calls in flight and throughput did not.

- No-load latency: the lowest of the first window's. Those calls start together, and a server
  that queues serves the first one it takes without waiting behind any other (the lowest, not
  the first answer: that one may also have paid for opening the connection).
- Answers are grouped in windows of `max(MIN_WINDOW, limit)` answers (about one round trip);
  each keeps the mean number of calls at the server its answers saw, its throughput (answers
  per second) and its mean latency. A window whose calls in flight were under half the limit is
  skipped: the run had too little to send (its end, or a judge waiting on the global
  `concurrency`), so its throughput says nothing about the server (Gradient2 does not grow an
  "app-limited" limit either).
- Among the last `HISTORY` windows, when the one with the most calls in flight had at least
  `STEP` times as many as the one with the fewest but its throughput rose by less than `KAPPA`
  of that rise, the extra calls waited in a queue (verdict True); when throughput rose with
  them, the server served them (False); closer than `STEP`, nothing can be told (None).

On True the limit (adaptive.py) is cut to `queue_limit`: the calls that throughput keeps busy at
the no-load latency (Little's law), plus a queue of their square root (at least one call), so a
one-slot server settles near two calls in flight; never below a quarter of the limit in one
step. On a later False, the cut is undone: a provider whose latency varies widely (long and
short answers) may look queued for one window but is never held down by it. A provider that
scales shows throughput rising with the calls in flight and is never cut; latency that varies
with the same calls in flight is never compared at all. Figures: docs/design/failures.md.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

MIN_WINDOW = 8
HISTORY = 4
STEP = 1.2
KAPPA = 0.5
QUEUE = 1.0  # calls allowed to wait at the server, at least
MAX_CUT = 0.25  # one cut keeps at least this share of the limit
APP_LIMITED = 0.5  # a window with fewer calls in flight than this share of the limit: skipped


@dataclass(frozen=True)
class Window:
    """What one window of answers saw."""

    in_flight: float  # mean calls at the server when each answer came, that one included
    throughput: float  # answers per second
    latency: float  # mean seconds from sending to the answer


def queued(fewer: Window, more: Window) -> bool | None:
    """True when `more` had notably more calls in flight than `fewer` and its throughput did
    not rise with them (the extra calls waited in the server's queue); False when it did (the
    server served them); None when their calls in flight are too close to tell."""
    if more.in_flight < STEP * fewer.in_flight:
        return None
    rise = more.in_flight / fewer.in_flight - 1.0
    return more.throughput < fewer.throughput * (1.0 + KAPPA * rise)


def queue_limit(limit: float, throughput: float, no_load_latency: float) -> float:
    """The limit a queueing server needs: the calls `throughput` keeps busy at the no-load
    latency, plus their square root waiting (at least QUEUE); at least MAX_CUT of `limit`."""
    busy = throughput * no_load_latency
    return max(1.0, limit * MAX_CUT, busy + max(QUEUE, busy**0.5))


class QueueWatch:
    """One judge's windows of answers; `answered` says when they show queueing."""

    def __init__(self) -> None:
        self.no_load_latency: float | None = None
        self.windows: deque[Window] = deque(maxlen=HISTORY)
        self.last: Window | None = None  # the last window counted
        self._size = MIN_WINDOW
        self._start = 0.0
        self._answers = 0
        self._in_flight = 0.0
        self._latency = 0.0
        self._opening = True  # the first window

    def answered(self, latency: float, in_flight: int, now: float, limit: float) -> bool | None:
        """Count an answer (`in_flight`: calls at the server, this one included). When it
        completes a window: the verdict of `queued` on the windows (True: cut the limit to
        `queue_limit` of the `last` window); None between windows."""
        if self.no_load_latency is None:  # the first answer: its call was sent at the start
            self.no_load_latency, self._start = latency, now - latency
        if self._opening:  # the calls sent together at the start: the fastest waited least
            self.no_load_latency = min(self.no_load_latency, latency)
        self._answers += 1
        self._in_flight += in_flight
        self._latency += latency
        if self._answers < self._size:
            return None
        duration, answers = now - self._start, self._answers
        window = Window(self._in_flight / answers, answers / duration, self._latency / answers)
        self._start, self._answers, self._in_flight, self._latency = now, 0, 0.0, 0.0
        self._size, self._opening = max(MIN_WINDOW, int(limit)), False
        if duration <= 0 or window.in_flight < limit * APP_LIMITED:
            return None  # the client had too little to send: this window says nothing
        self.windows.append(window)
        self.last = window
        fewer = min(self.windows, key=lambda w: w.in_flight)
        verdict = queued(fewer, max(self.windows, key=lambda w: w.in_flight))
        if verdict:
            self.windows = deque([window], maxlen=HISTORY)  # compare the next level with this
        return verdict

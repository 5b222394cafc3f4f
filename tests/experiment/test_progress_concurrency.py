"""The progress line shows each judge's current concurrency (adaptive) next to its cap."""

from __future__ import annotations

from autorubric_cli.experiment.progress import Progress, concurrency_parts
from autorubric_cli.judges.stats import CallStats


def test_the_progress_line_names_each_judge_concurrency() -> None:
    stats = CallStats()
    stats.concurrency = {"gpt": (12, 64), "claude": (16, 16)}
    line = Progress(10, 0, stats, simulated=False).line()
    assert "concurrency gpt 12/64" in line and "concurrency claude 16/16" in line


def test_with_many_judges_only_those_below_their_cap_are_shown() -> None:
    limits = {"a": (4, 16), "b": (16, 16), "c": (16, 16)}
    assert concurrency_parts(limits) == ["concurrency a 4/16"]

"""`run()` / `resume()` inside a running event loop (Jupyter): one clear error naming the
awaitable twin, raised before anything is created (no never-awaited coroutine)."""

from __future__ import annotations

import gc
import warnings
from pathlib import Path

import pytest

import autorubric_cli
from tests.cli.runner_support import DEMO_DATA, ungated_demo


async def test_run_in_a_running_loop_says_to_await_arun(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match=r"use `await autorubric_cli\.arun\(\.\.\.\)`"):
            autorubric_cli.run(ungated_demo(tmp_path), DEMO_DATA, out=out, limit=2)
        with pytest.raises(RuntimeError, match=r"use `await autorubric_cli\.aresume\(\.\.\.\)`"):
            autorubric_cli.resume(out)
        gc.collect()
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
    assert not out.exists()


async def test_arun_in_a_running_loop_grades(tmp_path: Path) -> None:
    out = tmp_path / "exp"
    finished = await autorubric_cli.arun(ungated_demo(tmp_path), DEMO_DATA, out=out, limit=2)
    assert finished.report().items.completed == 2

"""`arun`/`aresume` take exactly the keyword arguments of `run`/`resume`, typed."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from autorubric_cli import api


def keyword_only(function: Callable[..., Any]) -> dict[str, Any]:
    hints = get_type_hints(function, vars(api))
    parameters = inspect.signature(function).parameters.values()
    return {p.name: hints[p.name] for p in parameters if p.kind is p.KEYWORD_ONLY}


def test_the_async_twins_take_the_keywords_of_run_and_resume() -> None:
    assert get_type_hints(api.RunKeywords, vars(api)) == keyword_only(api.run)
    assert get_type_hints(api.ResumeKeywords, vars(api)) == keyword_only(api.resume)

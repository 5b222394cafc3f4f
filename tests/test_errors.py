"""One error tree: every exception autorubric defines descends from AutorubricError,
and the CLI's exit code of each is decided by `errors.exit_code` alone
(docs/reference/exit-codes.md)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import autorubric_cli
from autorubric_cli import errors
from autorubric_cli.errors import (
    AutorubricError,
    InputError,
    JudgeError,
    RunInterrupted,
    RunStopped,
    StorageError,
    exit_code,
)


def _defined_exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(autorubric_cli.__path__, "autorubric_cli."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(obj, BaseException)
                and obj.__module__ == module.__name__
                and obj.__module__.startswith("autorubric_cli")
            ):
                found.append(obj)
    return found


def test_every_exception_of_the_package_is_in_the_tree() -> None:
    defined = _defined_exceptions()
    assert len(defined) >= 12  # the walk found the package's classes, not nothing
    outside = [
        f"{c.__module__}.{c.__qualname__}" for c in defined if not issubclass(c, AutorubricError)
    ]
    assert outside == []


def test_judge_failures_are_judge_errors() -> None:
    from autorubric_cli.judges.policy.breaker import JudgeUnavailable
    from autorubric_cli.judges.policy.failures import JudgeAuthError, JudgeFailure
    from autorubric_cli.judges.transports.workers import WorkerPoolFailed

    for cls in (JudgeAuthError, JudgeFailure, JudgeUnavailable, WorkerPoolFailed):
        assert issubclass(cls, JudgeError)


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (InputError("bad", path="r.yaml", line=3, key="weight"), 2),
        (StorageError("cannot write: No space left on device", path="x"), 2),
        (RunStopped("judge gpt: authentication refused"), 2),
        (JudgeError("unreachable"), 2),
        (RunInterrupted(Path("experiments/x")), 130),
        (KeyboardInterrupt(), 130),
        (ZeroDivisionError("a bug"), errors.EXIT_INTERNAL),
    ],
)
def test_exit_code_of_each_kind(exc: BaseException, code: int) -> None:
    assert exit_code(exc) == code


def test_internal_error_code_is_none_of_the_spec_codes() -> None:
    assert errors.EXIT_INTERNAL not in {0, 1, 2, 3, 130}


def test_warnings_render_once_on_the_stderr_of_the_moment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import logging

    from autorubric_cli.cli.logs import install_warning_handler

    install_warning_handler()
    install_warning_handler()  # a second command in the same process adds no second handler
    logging.getLogger("autorubric_cli.judges.cache").warning("call cache %s unusable", "x.db")
    logging.getLogger("autorubric_cli.judges").info("not shown: below WARNING")
    err = capsys.readouterr().err
    assert err.splitlines().count("autorubric: warning: call cache x.db unusable") == 1
    assert "not shown" not in err

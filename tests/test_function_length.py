"""No function over 60 lines (docs/design/index.md, "Layers"), except the Typer
command functions of `cli/*_cmd.py`, whose length is their option declarations."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autorubric_cli"
MAX_LINES = 60


def long_functions(tree: ast.AST, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """(function, lines) of every function longer than `limit` lines, nested ones included."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def is_command_module(path: Path) -> bool:
    return path.parent.name == "cli" and path.name.endswith("_cmd.py")


def test_no_function_is_over_60_lines() -> None:
    found = [
        f"autorubric_cli/{path.relative_to(PACKAGE).as_posix()}: {name} ({lines} lines)"
        for path in sorted(PACKAGE.rglob("*.py"))
        if not is_command_module(path)
        for name, lines in long_functions(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_check_can_fail() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    assert long_functions(ast.parse(f"def f():\n{body}")) == [("f", 61)]
    assert long_functions(ast.parse(f"def f():\n{body[: -len('    x59 = 59') - 1]}")) == []
    assert is_command_module(PACKAGE / "cli" / "run_cmd.py")
    assert not is_command_module(PACKAGE / "cli" / "finish.py")

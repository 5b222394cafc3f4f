"""The package's shape (docs/design/startup.md): no module over 400 lines, and no
import inside a function: heavy layers are reached through their lazy faces, so start-up stays
fast without imports scattered through the code."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autorubric_cli"
MAX_LINES = 400

# The only functions that import, each for a reason no face can serve.
IMPORTING_FUNCTIONS = {
    # litellm reads its environment switches (no remote cost map, no beta-header fetch) when
    # it is imported, so they are set first and litellm is imported here, once.
    ("judges/transports/litellm.py", "load_litellm"),
    # pyarrow is an optional extra: its absence is an input error naming the pip command.
    ("loading/readers.py", "_iter_parquet"),
}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def imports_in_functions(tree: ast.AST) -> list[tuple[str, int]]:
    """(function, line) of every import statement inside a function body."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    found.append((node.name, inner.lineno))
    return found


def test_no_module_is_over_400_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_import_inside_a_function() -> None:
    found = []
    for path in modules():
        rel = path.relative_to(PACKAGE).as_posix()
        for function, line in imports_in_functions(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, function) not in IMPORTING_FUNCTIONS:
                found.append(f"autorubric_cli/{rel}:{line} in {function}()")
    assert found == []


def test_the_checks_can_fail() -> None:
    source = "import os\n\ndef f():\n    import json\n    return json\n"
    assert imports_in_functions(ast.parse(source)) == [("f", 4)]
    assert all((PACKAGE / rel).is_file() for rel, _ in IMPORTING_FUNCTIONS)

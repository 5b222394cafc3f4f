"""The package's shape (docs/design/startup.md): no module over 400 lines, and no import
inside a function but in the Typer command functions (each imports its body there, so
`--help` loads no body) and the few functions named below."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from autorubric_cli.cli.app import app

PACKAGE = Path(__file__).resolve().parents[1] / "autorubric_cli"
MAX_LINES = 400

# The only other functions that import, each for a reason a top-level import cannot serve.
IMPORTING_FUNCTIONS = {
    # litellm reads its environment switches (no remote cost map, no beta-header fetch) when
    # it is imported, so they are set first and litellm is imported here, once.
    ("judges/transports/litellm.py", "load_litellm"),
    # pyarrow is an optional extra: its absence is an input error naming the pip command.
    ("loading/readers.py", "_iter_parquet"),
    ("loading/writers.py", "_parquet_rows"),  # reached after the reader found it
    # opentelemetry and mlflow are optional extras too: the modules that import them load only
    # for --otel / --mlflow / `export mlflow`, after the extra was found (else an input error).
    ("export/switches.py", "run_exports"),
    ("cli/export_body.py", "run_mlflow_export"),
}


def is_command_module(rel: str) -> bool:
    """A Typer module of cli/: it parses flags, and each of its top-level functions is a
    command that imports its body inside (see the test that they all are commands)."""
    return rel.startswith("cli/") and rel.endswith("_cmd.py")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def imports_in_functions(tree: ast.AST, commands: bool = False) -> list[tuple[str, int]]:
    """(function, line) of every import statement inside a function body; with `commands`,
    except those of a top-level function (a command module's Typer commands) and of the
    functions nested in it (a command imports a body where it needs it: the report's after the
    run)."""
    skipped = set()
    if commands:
        for top in getattr(tree, "body", []):
            if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef):
                skipped.update(ast.walk(top))
    found = []
    for node in ast.walk(tree):
        if node in skipped:
            continue
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
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function, line in imports_in_functions(tree, is_command_module(rel)):
            if (rel, function) not in IMPORTING_FUNCTIONS:
                found.append(f"autorubric_cli/{rel}:{line} in {function}()")
    assert found == []


def test_the_checks_can_fail() -> None:
    source = "import os\n\ndef f():\n    import json\n    return json\n"
    assert imports_in_functions(ast.parse(source)) == [("f", 4)]
    command = "def run():\n    def body():\n        import json\n    import os\n"
    assert imports_in_functions(ast.parse(command), commands=True) == []
    assert sorted(imports_in_functions(ast.parse(command))) == [
        ("body", 3),
        ("run", 3),
        ("run", 4),
    ]
    method = "class C:\n    def m(self):\n        import json\n"
    assert imports_in_functions(ast.parse(method), commands=True) == [("m", 3)]
    assert all((PACKAGE / rel).is_file() for rel, _ in IMPORTING_FUNCTIONS)


def test_only_a_typer_command_function_may_import_its_body() -> None:
    source = (
        "def run():\n"
        "    from autorubric_cli.experiment.session import start_run\n"
        "\n"
        "    def body():\n"
        "        from autorubric_cli.report.build import build_report\n"
    )
    tree = ast.parse(source)
    # in a command module: the command and what it nests import where they need a body
    assert imports_in_functions(tree, commands=True) == []
    # anywhere else: every import in a function is found
    assert imports_in_functions(tree) == [("run", 2), ("run", 5), ("body", 5)]
    assert is_command_module("cli/run_cmd.py") and not is_command_module("cli/finish.py")


def test_every_function_of_a_command_module_is_a_typer_command() -> None:
    registered = {c.callback for c in app.registered_commands} | {
        c.callback for g in app.registered_groups for c in g.typer_instance.registered_commands
    }
    functions = [
        getattr(importlib.import_module(f"autorubric_cli.cli.{path.stem}"), node.name)
        for path in sorted((PACKAGE / "cli").glob("*_cmd.py"))
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    assert len(functions) > 10
    assert [f.__qualname__ for f in functions if f not in registered] == []

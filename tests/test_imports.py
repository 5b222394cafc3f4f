"""One import mechanism (docs/design/startup.md): plain imports of the defining module. No
package `__init__` re-exports a name or loads one lazily, and the root's public names are
exactly `autorubric_cli.api.__all__`, read from there."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import autorubric_cli
from autorubric_cli import api

PACKAGE = Path(__file__).resolve().parents[1] / "autorubric_cli"


def is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def packages_that_do_more_than_document(root: Path) -> list[str]:
    """Sub-package `__init__` files with anything besides a docstring, and any `.pyi` face."""
    found = [
        str(init.relative_to(root))
        for init in sorted(root.glob("*/**/__init__.py"))
        if not all(is_docstring(node) for node in ast.parse(init.read_text()).body)
    ]
    faces = sorted(root.glob("*/**/__init__.pyi"))
    return found + [str(p.relative_to(root)) for p in faces]


def test_package_inits_hold_only_a_docstring() -> None:
    assert len(list(PACKAGE.glob("*/**/__init__.py"))) > 8
    assert packages_that_do_more_than_document(PACKAGE) == []


def test_the_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "layer").mkdir()
    (tmp_path / "layer" / "__init__.py").write_text('"""Doc."""\nfrom .a import b as b\n')
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "__init__.py").write_text('"""Doc."""\n')
    (tmp_path / "other" / "__init__.pyi").write_text("")
    assert packages_that_do_more_than_document(tmp_path) == [
        "layer/__init__.py",
        "other/__init__.pyi",
    ]


def test_every_public_name_resolves_to_the_apis() -> None:
    assert {"run", "resume", "Report", "Experiment", "InputError"} <= set(api.__all__)
    for name in api.__all__:
        assert getattr(autorubric_cli, name) is getattr(api, name), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(autorubric_cli, "no_such_name")


def test_the_stub_lists_the_apis_names_without_repeating_them() -> None:
    stub = ast.parse((PACKAGE / "__init__.pyi").read_text())
    imported = [
        (node.module, [a.name for a in node.names])
        for node in stub.body
        if isinstance(node, ast.ImportFrom)
    ]
    assert imported == [("autorubric_cli.api", ["*"]), ("autorubric_cli.api", ["__all__"])]


def test_importing_the_package_loads_no_public_name() -> None:
    code = (
        "import sys, autorubric_cli\n"
        "from autorubric_cli import errors\n"
        "print(sorted(m for m in sys.modules if m.startswith('autorubric_cli')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ast.literal_eval(done.stdout.strip()) == ["autorubric_cli", "autorubric_cli.errors"]

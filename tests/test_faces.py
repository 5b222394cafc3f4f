"""The lazy package faces (docs/design/startup.md): every name a face declares resolves, and
reading one loads only its own submodule."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "autorubric_cli"
FACES = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.pyi"))


def face_names(package: str) -> dict[str, str]:
    """name -> the submodule that defines it, as the face declares."""
    tree = ast.parse((PACKAGE / package / "__init__.pyi").read_text())
    return {
        a.name: f"autorubric_cli.{package}.{n.module}"
        for n in tree.body
        if isinstance(n, ast.ImportFrom)
        for a in n.names
    }


def test_the_heavy_layers_have_faces() -> None:
    assert {"experiment", "grading", "judges", "labels", "report", "validate"} <= set(FACES)


@pytest.mark.parametrize("package", FACES)
def test_every_declared_name_resolves(package: str) -> None:
    module = importlib.import_module(f"autorubric_cli.{package}")
    names = face_names(package)
    assert sorted(module.__all__) == sorted(names)
    for name, submodule in names.items():
        assert getattr(module, name) is getattr(importlib.import_module(submodule), name)


def test_a_name_loads_only_its_submodule() -> None:
    code = (
        "import sys\n"
        "from autorubric_cli import experiment\n"
        "before = set(sys.modules)\n"
        "experiment.write_atomic\n"
        "loaded = sorted(m for m in set(sys.modules) - before if m.startswith('autorubric_cli'))\n"
        "print(','.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = out.stdout.strip().split(",")
    assert "autorubric_cli.experiment.manifest" in loaded
    assert "autorubric_cli.experiment.session" not in loaded
    assert not any(m.startswith("autorubric_cli.judges") for m in loaded)

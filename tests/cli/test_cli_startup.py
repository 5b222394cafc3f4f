"""What importing the app loads (docs/design/startup.md): the command modules, the guard and
the errors, none of the bodies they call and none of the libraries those need, so `--help`
stays cheap. Each command imports its bodies inside its Typer function."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "autorubric_cli" / "cli"
HEAVY_LIBRARIES = {"litellm", "numpy", "scipy", "pydantic", "orjson", "yaml"}
OPTIONAL_EXTRAS = {"opentelemetry", "mlflow"}  # loaded only with --otel / --mlflow


def body_modules() -> set[str]:
    """The cli modules the command modules import inside their Typer functions."""
    found = set()
    for path in sorted(CLI.glob("*_cmd.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef):
                found |= {
                    inner.module
                    for inner in ast.walk(node)
                    if isinstance(inner, ast.ImportFrom)
                    and (inner.module or "").startswith("autorubric_cli.cli.")
                }
    return found


def loaded_by_importing_the_app() -> set[str]:
    code = "import sys, autorubric_cli.cli.app\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_the_app_loads_commands_but_no_body() -> None:
    loaded = loaded_by_importing_the_app()
    bodies = body_modules()
    assert {"autorubric_cli.cli.finish", "autorubric_cli.cli.check"} <= bodies
    assert {"autorubric_cli.cli.run_cmd", "autorubric_cli.cli.report_cmd"} <= loaded
    assert loaded & bodies == set()
    assert {m for m in loaded if m.split(".")[0] in HEAVY_LIBRARIES | OPTIONAL_EXTRAS} == set()
    below = {
        m
        for m in loaded
        if m.startswith("autorubric_cli.") and not m.startswith("autorubric_cli.cli")
    }
    assert below <= {"autorubric_cli.errors"}


def test_a_plain_run_loads_neither_tracing_nor_mlflow(tmp_path: Path) -> None:
    """A run without --otel/--mlflow (simulated judge: no network) imports neither extra."""
    root = Path(__file__).resolve().parents[2]
    args = [
        "run", str(root / "rubrics" / "demo.yaml"), str(root / "datasets" / "demo.jsonl"),
        "--judge", "simulated/a", "--limit", "2", "--out", str(tmp_path / "exp"), "-f", "json",
    ]  # fmt: skip
    code = (
        "import sys\n"
        "from autorubric_cli.cli.app import app\n"
        f"app({args!r}, standalone_mode=False)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert (tmp_path / "exp" / "report.json").is_file(), done.stderr
    loaded = set(ast.literal_eval(done.stderr.strip().splitlines()[-1]))
    assert "autorubric_cli" in loaded
    assert loaded & OPTIONAL_EXTRAS == set()


def test_report_and_check_without_a_litellm_judge_load_no_litellm(tmp_path: Path) -> None:
    """Commands whose judges are all simulated never import litellm (seconds of start-up)."""
    root = Path(__file__).resolve().parents[2]
    rubric, dataset = str(root / "rubrics" / "demo.yaml"), str(root / "datasets" / "demo.jsonl")
    out = str(tmp_path / "exp")
    commands = [
        ["run", rubric, dataset, "--judge", "simulated/a", "--limit", "2", "--out", out],
        ["report", out, "-f", "json"],
        ["check", rubric, dataset, "--judge", "simulated/a"],
    ]
    code = (
        "import sys\n"
        "from autorubric_cli.cli.app import app\n"
        "loaded = []\n"
        f"for args in {commands!r}:\n"
        "    try:\n"
        "        app(args, standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    loaded.append('litellm' in sys.modules)\n"
        "print(loaded, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert (tmp_path / "exp" / "report.json").is_file(), done.stderr
    assert ast.literal_eval(done.stderr.strip().splitlines()[-1]) == [False, False, False]

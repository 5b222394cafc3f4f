"""YAML examples of the docs, each checked by what it is.

- A rubric (it has `criteria:`, or is a library-style list of criteria) is loaded by the real
  rubric loader from a file, so errors carry `file:line: key:` as for a user.
- A rubric fragment (only rubric keys such as `grader:`, `gate:`, `dataset:`) is loaded the
  same way after one criterion is appended to it.
- Anything else (a GitHub Actions workflow, a Kubernetes Job) must parse, and every shell
  script inside it (`run:` steps, container commands) is checked like a not-run shell example.
  A workflow that runs `autorubric` must install it from the checkout first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from autorubric_cli.loading.rubric_loader import load_rubric
from tests.docs.shell_examples import ExampleError, check_script, commands, program

RUBRIC_KEYS = {"name", "guidelines", "criteria", "grader", "dataset", "gate"}
FRAGMENT_TAIL = "\ncriteria:\n  - {name: docs_example, requirement: 'Any requirement'}\n"


def check_yaml(text: str, path: Path) -> str:
    """Check one YAML example (written to `path`); returns what kind it was."""
    data = yaml.safe_load(text)
    if isinstance(data, list) or (isinstance(data, dict) and "criteria" in data):
        path.write_text(text, encoding="utf-8")
        load_rubric(path)
        return "rubric"
    if isinstance(data, dict) and data and set(data) <= RUBRIC_KEYS:
        path.write_text(text + FRAGMENT_TAIL, encoding="utf-8")
        load_rubric(path)
        return "rubric fragment"
    if isinstance(data, dict) and "jobs" in data:
        check_workflow(data)
        return "workflow"
    if isinstance(data, dict) and {"apiVersion", "kind"} <= set(data):
        check_scripts(data)
        return "kubernetes"
    raise ExampleError(
        "a YAML example that is neither a rubric, a workflow nor a Kubernetes object"
    )


def scripts(node: Any) -> Iterator[str]:
    """Every string in a document that runs an `autorubric` command (a lone word is a name)."""
    if isinstance(node, dict):
        for value in node.values():
            yield from scripts(value)
    elif isinstance(node, list):
        if node and all(isinstance(part, str) for part in node) and node[0] == "autorubric":
            yield " ".join(node)  # an argv list, as in a container's `command`
        for value in node:
            yield from scripts(value)
    elif isinstance(node, str) and any(
        program(c.argv) == "autorubric" and len(c.argv) > 1 for c in commands(node, checking=True)
    ):
        yield node


def check_scripts(data: Any) -> int:
    found = 0
    for script in scripts(data):
        check_script(script)
        found += 1
    return found


def check_workflow(data: dict[Any, Any]) -> None:
    """A GitHub Actions workflow: its triggers, jobs and steps, and every autorubric line."""
    if "on" not in data and True not in data:  # YAML 1.1 reads a bare `on` key as true
        raise ExampleError("workflow has no `on:` trigger")
    for name, job in data["jobs"].items():
        if "runs-on" not in job or not isinstance(job.get("steps"), list):
            raise ExampleError(f"job {name!r} needs `runs-on` and a list of `steps`")
        installed = False
        for step in job["steps"]:
            script = str(step.get("run", ""))
            runs = [program(c.argv) for c in commands(script, checking=True)]
            if "autorubric" in runs and not installed:
                raise ExampleError(f"job {name!r} runs autorubric before installing it")
            installed = installed or ("pip" in runs and "-e ." in script)
            check_script(script)
    if check_scripts(data) == 0:
        raise ExampleError("workflow runs no autorubric command")

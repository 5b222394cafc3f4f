"""The docs checks catch broken examples (each case fails on a real mistake), and the CLI
reference is generated from the app."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from autorubric_cli.errors import InputError
from tests.docs.doc_blocks import ROOT, doc_pages, page_blocks
from tests.docs.shell_examples import ExampleError, ShellSession, check_script
from tests.docs.yaml_examples import check_yaml

WORKFLOW = """
on: [push]
jobs:
  eval:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: {install}
      - run: autorubric run rubric.yaml data.jsonl {flags}
"""


@pytest.mark.parametrize(
    "script",
    [
        "autorubric run rubrics/demo.yaml datasets/demo.jsonl --no-such-flag",
        "autorubric run rubrics/demo.yaml",  # a missing argument
        "autorubric report exp --format yaml",  # not a format
        "autorubric run r.yaml d.jsonl --concurrency many",
        "autorubric frobnicate x",
        "autorubric cache",
        'pip install -e ".[no_such_extra]"',
        "pip install autorubric-cli",
    ],
)
def test_broken_shell_examples_are_refused(script: str) -> None:
    with pytest.raises(ExampleError):
        check_script(script)


def test_valid_shell_examples_pass() -> None:
    check_script(
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]"\n'
        "autorubric run r.yaml d.jsonl --shard $((SLURM_ARRAY_TASK_ID + 1))/4 \\\n"
        "  --out shard-${SLURM_ARRAY_TASK_ID} --fail-under 0.8  # a comment\n"
        "autorubric cache prune --older-than 30d\n"
    )


def test_a_broken_rubric_example_fails_with_its_line(tmp_path: Path) -> None:
    text = "criteria:\n  - name: a\n    requirment: x\n"
    with pytest.raises(InputError, match="requirement"):
        check_yaml(text, tmp_path / "r.yaml")
    with pytest.raises(InputError):
        check_yaml("grader:\n  aggregation: mostly\n", tmp_path / "f.yaml")


@pytest.mark.parametrize(
    ("install", "flags"),
    [
        ("pip install autorubric-cli", ""),  # not published
        ("pip install -e .", "--shard 1/4 --bogus"),
        ("echo no install", ""),
    ],
)
def test_broken_workflows_are_refused(install: str, flags: str, tmp_path: Path) -> None:
    with pytest.raises(ExampleError):
        check_yaml(WORKFLOW.format(install=install, flags=flags), tmp_path / "w.yaml")


def test_a_good_workflow_passes(tmp_path: Path) -> None:
    text = WORKFLOW.format(install="pip install -e .", flags="--fail-under 0.8 --junit eval.xml")
    assert check_yaml(text, tmp_path / "w.yaml") == "workflow"


def test_a_run_block_with_the_wrong_exit_code_fails(tmp_path: Path) -> None:
    (tmp_path / "rubric.yaml").write_text("criteria: [{name: a, requirement: b}]\n")
    session = ShellSession(tmp_path, {}, {})
    session.run("autorubric check rubric.yaml", 0, "here")
    with pytest.raises(ExampleError, match="exited 2"):
        session.run("autorubric check missing.yaml", 0, "here")
    session.run("autorubric check missing.yaml", 2, "here")


def test_annotations_are_read(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text\n\n<!-- not-run: needs a real key -->\n<!-- exit: 1 -->\n\n"
        "```bash\nautorubric x\n```\n"
        "\n```yaml\na: 1\n```\n"
    )
    first, second = page_blocks(page)
    assert (first.lang, first.line, first.notes) == (
        "bash",
        6,
        {"not-run": "needs a real key", "exit": "1"},
    )
    assert second.notes == {}


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_generated_from_the_app() -> None:
    import typer

    from autorubric_cli.cli.app import app

    hooks = load_hooks()
    page = hooks.on_page_markdown(f"# CLI\n\n{hooks.START}\n{hooks.END}\n")
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        assert f"## autorubric {name} " in page
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--"):
                    assert opt in page, f"{name} {opt} missing from the reference"
    assert "## autorubric cache prune" in page
    assert page.count(hooks.START) == page.count(hooks.END) == 1


def test_the_checked_in_cli_reference_is_the_generated_one() -> None:
    """docs/reference/cli.md is read on GitHub too: never an empty placeholder, never stale
    (after changing a command's help, `python docs/hooks.py` writes it again)."""
    hooks = load_hooks()
    page = hooks.PAGE.read_text(encoding="utf-8")
    assert "## autorubric run {#autorubric-run}" in page
    assert page == hooks.with_reference(page), "stale: run `python docs/hooks.py`"


def test_a_kubernetes_job_with_a_bad_flag_is_refused(tmp_path: Path) -> None:
    job = (
        "apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n"
        "        - command: ['sh', '-c']\n          args:\n            - |\n"
        "              shard=$((JOB_COMPLETION_INDEX + 1))\n"
        "              autorubric run r.yaml d.jsonl --shard $shard/4 {flag}\n"
    )
    assert check_yaml(job.format(flag="--out s"), tmp_path / "ok.yaml") == "kubernetes"
    with pytest.raises(ExampleError):
        check_yaml(job.format(flag="--shards 4"), tmp_path / "bad.yaml")
    argv_job = "apiVersion: v1\nkind: Pod\nspec: {command: [autorubric, merge, out, --bogus]}\n"
    with pytest.raises(ExampleError):
        check_yaml(argv_job, tmp_path / "argv.yaml")


def test_console_transcripts_are_checked() -> None:
    from tests.docs.test_docs_examples import console_commands

    transcript = "$ autorubric report exp --format yaml\nusage: ...\n"
    assert console_commands(transcript) == "autorubric report exp --format yaml"
    with pytest.raises(ExampleError):
        check_script(console_commands(transcript))


DEVELOPMENT_LOG = re.compile(
    r"SPEC §|\bissue \d+|where the (issue|rules) (was|were) silent|(before|from) this change|"
    r"upgrade note|no longer writes",
    re.IGNORECASE,
)


def test_the_docs_speak_to_users() -> None:
    """Users have the docs, not the contract or the tracker: no page cites them or reads as a
    development log; and no page lies loose beside the home and getting-started pages."""
    for page in doc_pages():
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            assert not DEVELOPMENT_LOG.search(line), f"{page.relative_to(ROOT)}:{number}: {line}"
    loose = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert loose == {"index.md", "getting-started.md"}


MLFLOW_SERVER = re.compile(r"^(?P<env>(?:\w+=\S+\s+)*)mlflow\s+(?:ui|server)\b", re.MULTILINE)


def mlflow_servers_without_the_switch(text: str) -> list[str]:
    """`mlflow ui` / `mlflow server` commands not run with LITELLM_LOCAL_MODEL_COST_MAP=True."""
    return [
        m.group(0)
        for m in MLFLOW_SERVER.finditer(text)
        if "LITELLM_LOCAL_MODEL_COST_MAP=True" not in m.group("env")
    ]


def test_every_documented_mlflow_server_skips_litellms_price_fetch() -> None:
    """MLflow imports litellm, whose import fetches a price map: offline, `mlflow ui` hangs on
    it. Every page that starts MLflow's server says how to start it without the fetch."""
    found = [
        f"{block.where}: {command}"
        for page in doc_pages()
        for block in page_blocks(page)
        if block.lang in ("bash", "console", "sh")
        for command in mlflow_servers_without_the_switch(block.text)
    ]
    assert found == []
    started = [b for p in doc_pages() for b in page_blocks(p) if MLFLOW_SERVER.search(b.text)]
    assert started  # the tracing guide starts one


def test_the_mlflow_server_check_can_fail() -> None:
    assert mlflow_servers_without_the_switch("mlflow ui --backend-store-uri x\n") == ["mlflow ui"]
    assert mlflow_servers_without_the_switch("LITELLM_LOCAL_MODEL_COST_MAP=True mlflow ui\n") == []

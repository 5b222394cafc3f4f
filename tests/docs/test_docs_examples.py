"""Every example in the docs and README works as written (see doc_blocks.py for annotations).

One test per page: its blocks run in order in one temporary directory holding a copy of the
shipped `rubrics/` and `datasets/`. Shell blocks run `autorubric` in-process (simulated judges,
or the loopback judge server where a page names `http://127.0.0.1:8000`, which stands for it);
YAML blocks are loaded by the rubric loader or checked as workflows; JSON and JSONL must parse;
Python runs; a `console` transcript's `$ ` commands are checked; a `text` block marked
`<!-- output: ... -->` is found in what the shell block before it printed. A block that is not
meant to run says why (`<!-- not-run: ... -->`) and is checked.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.docs.doc_blocks import ROOT, Block, doc_pages, page_blocks
from tests.docs.shell_examples import ExampleError, ShellSession, check_printed, check_script
from tests.docs.yaml_examples import check_yaml
from tests.support.judge_server import JudgeServer

LOOPBACK = "http://127.0.0.1:8000"
SHELL = {"bash", "sh", "shell"}
UNCHECKED = {"text", "output"}  # program output shown to the reader (`output:` notes check it)


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", doc_pages(), ids=page_id)
def test_page_examples(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = page_blocks(page)
    work = tmp_path / "work"
    work.mkdir()
    for folder in ("rubrics", "datasets"):
        shutil.copytree(ROOT / folder, work / folder)
    monkeypatch.chdir(work)
    with contextlib.ExitStack() as stack:
        replace = {}
        if LOOPBACK in page.read_text(encoding="utf-8"):
            server = stack.enter_context(JudgeServer())
            replace[LOOPBACK] = server.url
        session = ShellSession(work, {}, replace)
        for block in blocks:
            run_block(block, session, tmp_path)


def run_block(block: Block, session: ShellSession, scratch: Path) -> None:
    text = block.text
    for old, new in session.replace.items():
        text = text.replace(old, new)
    target = session.cwd / block.notes["file"] if "file" in block.notes else None
    try:
        if block.lang in SHELL:
            if "not-run" in block.notes:
                check_script(text)
            else:
                session.run(text, int(block.notes.get("exit", "0")), block.where)
        elif block.lang in UNCHECKED and "output" in block.notes:
            check_printed(text, session.printed)
        elif block.lang == "console":
            check_script(console_commands(text))
        elif block.lang in {"yaml", "yml"}:
            check_yaml(text, target or scratch / f"example-{block.line}.yaml")
        elif block.lang in {"json", "jsonl"}:
            rows = [text] if block.lang == "json" else [r for r in text.splitlines() if r.strip()]
            for row in rows:
                json.loads(row)
        elif block.lang == "dockerfile":
            check_dockerfile(text)
        elif block.lang == "python":
            run_python(text, block, session)
        elif block.lang not in UNCHECKED:
            raise ExampleError(f"a code block needs a known language, not {block.lang!r}")
        if target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    except Exception as exc:
        raise AssertionError(f"{block.where}: {type(exc).__name__}: {exc}") from exc


def console_commands(text: str) -> str:
    """A terminal transcript's commands (its `$ ` lines); the rest is output. A transcript is
    checked, never run: its files are the reader's own."""
    return "\n".join(line[2:] for line in text.splitlines() if line.startswith("$ "))


def check_dockerfile(text: str) -> None:
    """A Dockerfile example: every RUN line is checked like a not-run shell example."""
    for line in text.splitlines():
        if line.startswith("RUN "):
            check_script(line.removeprefix("RUN "))


def run_python(text: str, block: Block, session: ShellSession) -> None:
    code = compile(text, block.where, "exec")
    if "not-run" in block.notes:
        return
    previous = Path.cwd()
    os.chdir(session.cwd)
    try:
        exec(code, {"__name__": "__docs_example__"})
    finally:
        os.chdir(previous)


def test_every_page_is_checked() -> None:
    """No page slips out: each docs page and the README is collected above."""
    pages = {page_id(p) for p in doc_pages()}
    assert "README.md" in pages
    assert "docs/getting-started.md" in pages
    assert len(pages) == 1 + len(list((ROOT / "docs").rglob("*.md")))


def test_not_run_blocks_give_a_reason() -> None:
    for page in doc_pages():
        for block in page_blocks(page):
            if "not-run" in block.notes:
                assert len(block.notes["not-run"]) > 10, f"{block.where}: say why it cannot run"


README_COMMANDS = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
    "autorubric run rubrics/demo.yaml datasets/demo.jsonl",
    'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && pytest -q',
)


def test_readme_is_one_screen_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    blocks = [block.text.strip() for block in page_blocks(ROOT / "README.md")]
    for command in README_COMMANDS:
        assert command in blocks, f"README lost the command: {command}"


def test_readme_links_point_at_pages() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert targets
    for target in targets:
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to missing {target}"


def test_quoted_output_must_be_what_was_printed() -> None:
    check_printed("NEW scores  higher\nse 0.0079\n", "x NEW scores\nhigher y se 0.0079")
    with pytest.raises(ExampleError, match="se 0.0081"):
        check_printed("NEW scores higher\nse 0.0081", "NEW scores higher, se 0.0079")

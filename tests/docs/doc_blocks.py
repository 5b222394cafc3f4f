"""The fenced examples of the docs (every `docs/**/*.md` and README.md), with their annotations.

An example's annotations are HTML comments on the lines just before its fence (blank lines
between are allowed), invisible on the rendered page:

- `<!-- not-run: REASON -->`: the block is checked but not executed (it needs a real key, a
  cluster, a fresh machine). A reason is required.
- `<!-- file: PATH -->`: the block's text is written to PATH (relative to the page's working
  directory) before the blocks after it run, so a page can write a rubric and then run it.
- `<!-- exit: N -->`: the last command of a shell block is expected to exit N (default 0).
- `<!-- output: WHAT -->` on a `text` block: program output the page quotes. Every line of it,
  spaces collapsed, must be in what the page's last shell block printed (stdout and stderr), so
  a figure the page quotes and reasons about is the program's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
ANNOTATION = re.compile(r"<!--\s*([a-z-]+)\s*:\s*(.*?)\s*-->")
KNOWN = {"not-run", "file", "exit", "output"}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def doc_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def page_blocks(page: Path) -> list[Block]:
    """The fenced code blocks of one page, in order, each with the annotations just above it."""
    text = page.read_text(encoding="utf-8")
    lines = text.splitlines()
    blocks = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start = token.map[0]
        blocks.append(
            Block(
                page,
                start + 1,
                token.info.strip().split(" ")[0],
                token.content,
                notes(lines, start),
            )
        )
    return blocks


def notes(lines: list[str], fence: int) -> dict[str, str]:
    """Annotations on the lines above `fence` (0-based), up to the first other text."""
    found: dict[str, str] = {}
    row = fence - 1
    while row >= 0 and (not lines[row].strip() or ANNOTATION.fullmatch(lines[row].strip())):
        match = ANNOTATION.fullmatch(lines[row].strip())
        if match:
            key, value = match.groups()
            if key not in KNOWN:
                raise ValueError(f"line {row + 1}: unknown docs annotation {key!r}")
            found.setdefault(key, value)
        row -= 1
    return found

"""The pairwise report as one self-contained HTML page (docs/guides/pairwise.md, "The page"): the
report's sections (the same rows as the tables), then every comparison with the two answers side
by side and every judge's reason, in every order shown.

Everything comes from items.jsonl; every string goes through Jinja2's autoescaping (the template
extends the report page's, with its rules: no network at view time, no script from the data).
At most `MAX_COMPARISONS` comparisons are shown (the first in dataset order; the page says how
many were left out), and an answer longer than `MAX_CHARS` characters is cut with a marker.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autorubric_cli import __version__
from autorubric_cli.core.conversation import message_text
from autorubric_cli.core.items import Item
from autorubric_cli.core.pair_records import PairQuestion, PairRecord
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import REPORT_HTML, write_atomic
from autorubric_cli.experiment.store import ReadIssues
from autorubric_cli.pairwise.fold import newest_records
from autorubric_cli.pairwise.models import PairwiseReport
from autorubric_cli.pairwise.opened import OpenedPairwise
from autorubric_cli.pairwise.render import footer, headline, sections
from autorubric_cli.report.formats import SIMULATED_NOTE
from autorubric_cli.report.html.templating import asset, environment

MAX_COMPARISONS = 2000
MAX_CHARS = 20_000
CUT = "\n[… cut: longer than 20,000 characters]"


@dataclass(frozen=True)
class Answer:
    system: str
    words: int
    text: str


@dataclass(frozen=True)
class Shown:
    """One comparison as the page shows it."""

    record: PairRecord
    answers: list[Answer]
    questions: list[PairQuestion]


def answer_text(given: Any) -> str:
    """An answer as text: a conversation turn by turn (`role: text`), else its output with its
    thinking before it."""
    try:
        submission = Item(id="-", submission=given).submission
    except ValueError:
        return str(given)
    if submission.messages is not None:
        turns = [f"{m.role}: {message_text(m) or ''}" for m in submission.messages]
        text = "\n\n".join(turns)
    elif submission.thinking:
        text = f"[thinking]\n{submission.thinking}\n\n[output]\n{submission.output}"
    else:
        text = submission.output
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + CUT


def shown(record: PairRecord) -> Shown:
    answers = [
        Answer(name, record.words.get(name, 0), answer_text(record.answers.get(name, "")))
        for name in (record.a, record.b)
    ]
    return Shown(record, answers, record.questions)


def comparisons(opened: OpenedPairwise) -> tuple[list[Shown], int]:
    """The comparisons to show, in dataset order, and how many were left out."""
    records = sorted(
        newest_records(opened.directory, ReadIssues(), lambda _: True), key=lambda r: r.index
    )
    return [shown(r) for r in records[:MAX_COMPARISONS]], max(0, len(records) - MAX_COMPARISONS)


def render_pairwise_html(report: PairwiseReport, opened: OpenedPairwise) -> str:
    shown_list, left_out = comparisons(opened)
    return (
        environment()
        .get_template("pairwise.html.j2")
        .render(
            r=report,
            title=headline(report),
            sections=sections(report),
            footer=footer(report, gate=False),
            comparisons=shown_list,
            left_out=left_out,
            pairs=[p.key for p in report.pairwise.pairs],
            simulated_note=SIMULATED_NOTE,
            css=asset("report.css"),
            plots=None,
            version=__version__,
        )
    )


def write_pairwise_html(
    report: PairwiseReport, opened: OpenedPairwise, path: Path | None = None
) -> Path:
    """Render the page and write it atomically (default: DIR/report.html)."""
    target = path if path is not None else opened.directory / REPORT_HTML
    page = render_pairwise_html(report, opened)
    try:
        write_atomic(target, page.encode("utf-8"))
    except OSError as exc:
        raise InputError(f"cannot write the HTML page: {exc.strerror}", path=str(target)) from None
    return target

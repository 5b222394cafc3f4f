"""The review in every format, from one `ReviewResult`: the rows are built once (`tables`) and
written as a terminal table, Markdown or an HTML page (report/html/templates/review.html.j2,
with the report's rules: one file, offline, every text escaped); JSON is the model itself."""

from __future__ import annotations

from rich.console import Console

from autorubric_cli import __version__
from autorubric_cli.report.fit import build_table, print_fitted
from autorubric_cli.report.formats import SIMULATED_NOTE, dollars, gate_word, number, plural, rate
from autorubric_cli.report.html.templating import asset, environment
from autorubric_cli.rubric_review.models import ReviewResult

Table = tuple[str, list[str], list[list[str]]]
"""(title, header, rows): one table of the review, as every format shows it."""


def listed(names: list[str]) -> str:
    return ", ".join(names) if names else "-"


def headline(result: ReviewResult) -> str:
    """`quality 0.812 (--min-quality 0.8: PASSED)`, the one line that says how it went."""
    text = f"quality {number(result.quality)}"
    if result.min_quality is not None:
        verdict = "n/a" if result.passed is None else gate_word(result.passed)
        text += f" (--min-quality {result.min_quality:g}: {verdict})"
    failed = sum(c.passed is False for c in result.checks)
    text += f"; {failed} of {len(result.checks)} checks failed"
    if result.errored_checks:
        text += f"; {result.errored_checks} unanswered (judge errors)"
    return text


def notes(result: ReviewResult) -> list[str]:
    lines = [SIMULATED_NOTE] if result.simulated else []
    if result.unknown_affected:
        lines.append(
            f"{plural(result.unknown_affected, 'criterion name')} the judges gave "
            f"{'is' if result.unknown_affected == 1 else 'are'} not in the rubric (dropped)"
        )
    if result.sample is not None:
        sample = result.sample
        lines.append(
            f"sample: {plural(sample.items, 'item')} (seed {sample.seed}), judges "
            f"{listed(sample.judges)}"
        )
    lines.append(f"cost {dollars(result.cost)} · results in {result.directory}")
    return lines


def tables(result: ReviewResult) -> list[Table]:
    checks = [
        [
            c.name,
            c.verdict or "error",
            "n/a" if c.passed is None else ("yes" if c.passed else "NO"),
            listed(c.affected),
            c.reason or "",
        ]
        for c in result.checks
    ]
    criteria = [
        [
            c.name,
            c.kind,
            number(c.weight, 1),
            rate(c.met_rate) if c.kind == "binary" else rate(c.top_share),
            number(c.alpha),
            listed(c.flags),
            listed(c.named_by),
        ]
        for c in result.criteria
    ]
    findings = [[f.kind, listed(f.criteria), f.detail] for f in result.findings]
    out: list[Table] = [
        ("Checks", ["check", "verdict", "passed", "affected criteria", "reason"], checks),
        (
            "Criteria",
            ["criterion", "kind", "weight", "met / top option", "alpha", "flags", "failed checks"],
            criteria,
        ),
    ]
    if findings:
        out.append(("Found without a judge", ["finding", "criteria", "detail"], findings))
    return out


def show_tables(console: Console, heading: str, shown: list[Table], lines: list[str]) -> None:
    """A result in the terminal: its heading, its tables, its notes."""
    console.print(heading, highlight=False)
    for title, header, rows in shown:
        free = ("reason", "detail", "affected criteria", "flags", "failed checks", "requirement")
        print_fitted(console, build_table(title, header, rows, free=free))
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def markdown_page(title: str, heading: str, shown: list[Table], lines: list[str]) -> str:
    """A result in Markdown: its title, heading, tables and notes."""
    out = [f"# {title}", "", f"**{heading}**", ""]
    for name, header, rows in shown:
        out += [f"## {name}", "", *md_table(header, rows), ""]
    out += [f"- {line}" for line in lines]
    return "\n".join(out) + "\n"


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_md_row(header), _md_row(["---"] * len(header)), *(_md_row(r) for r in rows)]


def render_review_table(result: ReviewResult, console: Console) -> None:
    heading = f"[bold]{result.rubric}[/]: {headline(result)}"
    show_tables(console, heading, tables(result), notes(result))


def render_review_markdown(result: ReviewResult) -> str:
    title = f"Review of `{result.rubric}`"
    return markdown_page(title, headline(result), tables(result), notes(result))


def render_review_html(result: ReviewResult) -> str:
    return (
        environment()
        .get_template("review.html.j2")
        .render(
            r=result,
            headline=headline(result),
            tables=tables(result),
            notes=notes(result),
            css=asset("report.css"),
            plots={},
            version=__version__,
        )
    )

"""The terminal tables of agreement between judges: one figure per column, each named for what
it measures, and Cohen's kappa per pair of judges in a table of its own (so that neither table
outgrows an 80-column terminal)."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table

from autorubric_cli.report.formats import AGREEING_PAIRS, number
from autorubric_cli.report.models import AgreementSection, CriterionAgreement

HEADERS = ("items", AGREEING_PAIRS, "Fleiss κ", "Scott's π", "Gwet AC1", "Kripp. α")
AGREEING_PAIRS_CAPTION = (
    f"{AGREEING_PAIRS}: the share of pairs of judges that gave an item the same answer, mean "
    "over items"
)


def coefficients(c: CriterionAgreement) -> list[float | None]:
    """The figures of `HEADERS` after items, in their order."""
    return [c.percent_agreement, c.fleiss_kappa, c.scotts_pi, c.gwet_ac1, c.krippendorff_alpha]


def agreement_table(section: AgreementSection) -> Group:
    """The coefficients per criterion, then Cohen's kappa per pair of judges."""
    return Group(coefficients_table(section), pairwise_kappa_table(section))


def coefficients_table(section: AgreementSection) -> Table:
    """Per-criterion inter-judge agreement."""
    caption = f"{AGREEING_PAIRS_CAPTION} (mean over criteria: {number(section.mean_agreement)})"
    table = Table(title="Agreement between judges", caption=caption)
    table.add_column("criterion", no_wrap=True)
    for header in HEADERS:
        table.add_column(header, justify="right")
    for c in section.criteria:
        figures = [number(v) for v in coefficients(c)]
        table.add_row(c.name, number(c.n_items), *figures)
    return table


def pairwise_kappa_table(section: AgreementSection) -> Table:
    """Cohen's kappa of every pair of judges, per criterion (one pair a line)."""
    table = Table(title="Cohen's κ per pair of judges")
    table.add_column("criterion", no_wrap=True)
    table.add_column("judges κ", overflow="fold")
    for c in section.criteria:
        pairs = "\n".join(f"{k} {number(v)}" for k, v in c.pairwise_cohen_kappa.items())
        table.add_row(c.name, pairs or number(None))
    return table

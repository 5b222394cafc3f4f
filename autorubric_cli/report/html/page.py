"""The self-contained HTML report (docs/guides/html-report.md): Jinja2 templates (autoescaped),
Bokeh plots, the items as a compressed payload, the page script and styles inline. No network at
view time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from autorubric_cli import __version__
from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.human_labels import LABELS
from autorubric_cli.experiment.manifest import ITEMS, REPORT_HTML, write_atomic
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.labels.overlay import experiment_overlay
from autorubric_cli.report.agreement_section import AGREEMENT_KEYS
from autorubric_cli.report.fold import ReportFold
from autorubric_cli.report.html import plots
from autorubric_cli.report.html.items import (
    EmbeddedItems,
    criterion_view,
    embed_items,
    has_human_ratings,
)
from autorubric_cli.report.html.templating import asset, bokeh_script, environment
from autorubric_cli.report.models import JudgeSummary, Report
from autorubric_cli.report.render_metrics import CRITERION_COLUMNS, has_figure
from autorubric_cli.report.render_stats import (
    BIAS_COLUMNS,
    BIAS_NOTE,
    bias_rows,
    criterion_ci,
    has_clustered_criteria,
    interval_note,
    shown_ci,
)
from autorubric_cli.report.render_tags import item_tables
from autorubric_cli.report.validate_columns import DOWNSTREAM_COLUMNS, FC_COLUMNS, RS_COLUMNS
from autorubric_cli.validate.loader import validate_experiment
from autorubric_cli.validate.result import ValidateResult
from autorubric_cli.validate.settings import ValidateSettings


def judge_rows(report: Report) -> list[tuple[JudgeSummary, int]]:
    """Each judge with its prompt + completion tokens."""
    rows = []
    for j in report.judges:
        tokens = j.usage.get("prompt_tokens", 0) + j.usage.get("completion_tokens", 0)
        rows.append((j, tokens))
    return rows


def report_figures(
    report: Report, experiment: OpenedExperiment, fold: ReportFold
) -> dict[str, plots.Spec]:
    """name -> plot spec, for every plot that has data."""
    rubric = experiment.rubric
    scores = np.frombuffer(fold.item_scores)
    figures: dict[str, plots.Spec | None] = {
        "score": plots.score_histogram(scores, rubric.grader.normalize, report.score),
        "met_rates": plots.met_rates(report.criteria),
        "agreement": plots.agreement_heatmap(report.agreement, [j.id for j in report.judges]),
    }
    for criterion, summary in zip(rubric.criteria, report.criteria, strict=True):
        if criterion.options is not None:
            figures[f"options:{criterion.name}"] = plots.option_shares(criterion, summary)
    for judge, bias in (report.judge_bias or {}).items():
        figures[f"position:{judge}"] = plots.position_chart(judge, bias)
    truth = report.ground_truth
    if truth is not None:
        figures["truth_score"] = plots.score_vs_truth(
            scores, np.frombuffer(fold.truth_scores), experiment.manifest.seed
        )
        for block in truth.criteria:
            figures[f"confusion:{block.name}"] = plots.confusion_matrix(block, "ensemble")
    return {name: f for name, f in figures.items() if f is not None}


def validate_section(directory: Path) -> ValidateResult | None:
    """`validate`'s result with its default settings, when the experiment has human ratings."""
    if not has_human_ratings(directory / ITEMS) and not (directory / LABELS).is_file():
        return None
    try:
        overlay = experiment_overlay(directory)
        return validate_experiment(
            directory,
            ValidateSettings(),
            overlay=None if overlay is None else overlay.apply,
        )
    except InputError:
        return None


def items_note(embedded: EmbeddedItems, completed: int) -> str | None:
    if embedded.shown >= completed:
        return None
    why = (
        f"the page keeps at most {plural(embedded.shown, 'item')} so it stays small"
        if embedded.byte_budget_hit or embedded.count_cap_hit
        else "some records could not be read"
    )
    return (
        f"Showing a sample of {embedded.shown:,} of {plural(completed, 'item')}: the worst first "
        f"(errored, then unscored, then the lowest scores); {why}. Every item is in items.jsonl."
    )


def item_meta(experiment: OpenedExperiment) -> dict[str, Any]:
    """What the page script needs to read the item rows."""
    return {
        "criteria": [criterion_view(c) for c in experiment.rubric.criteria],
        "judges": [
            {"id": j.judge_id, "simulated": j.model.startswith("simulated/")}
            for j in experiment.rubric.grader.judges
        ],
    }


def render_report_html(
    report: Report, experiment: OpenedExperiment, fold: ReportFold, **limits: int
) -> str:
    """The whole page for one experiment."""
    embedded = embed_items(experiment.directory, experiment.manifest, experiment.rubric, **limits)
    template = environment().get_template("report.html.j2")
    return template.render(
        r=report,
        manifest=experiment.manifest,
        directory=str(experiment.directory),
        judges=judge_rows(report),
        plots=report_figures(report, experiment, fold),
        bokeh_js=bokeh_script(),
        css=asset("report.css") + asset("conversation.css"),
        plots_js=asset("plots.js"),
        page_js=asset("dom.js") + asset("conversation.js") + asset("report.js"),
        agreement_keys=AGREEMENT_KEYS,
        criterion_columns=CRITERION_COLUMNS,
        has_figure=has_figure,
        validate=validate_section(experiment.directory),
        validate_tables=(
            ("Forced-choice definitions", FC_COLUMNS),
            ("Response-set definitions", RS_COLUMNS),
            ("Downstream decisions", DOWNSTREAM_COLUMNS),
        ),
        items=embedded,
        items_note=items_note(embedded, report.items.completed),
        meta=item_meta(experiment),
        rubric_normalized=experiment.rubric.grader.normalize,
        version=__version__,
        interval_note=interval_note(report.score),
        shown_ci=shown_ci,
        criterion_ci=criterion_ci,
        clustered_criteria=has_clustered_criteria(report),
        bias_columns=BIAS_COLUMNS,
        bias_rows=bias_rows(report),
        bias_note=BIAS_NOTE,
        item_tables=item_tables(report),
    )


def write_report_html(
    report: Report, experiment: OpenedExperiment, fold: ReportFold, path: Path | None = None
) -> Path:
    """Render the page and write it atomically (default: DIR/report.html)."""
    target = path if path is not None else experiment.directory / REPORT_HTML
    page = render_report_html(report, experiment, fold)
    try:
        write_atomic(target, page.encode("utf-8"))
    except OSError as exc:
        raise InputError(
            f"cannot write the HTML report: {exc.strerror}", path=str(target)
        ) from None
    return target

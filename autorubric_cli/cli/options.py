"""The option types the commands share: one declaration per flag, its help text with it."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class Format(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    csv = "csv"
    junit = "junit"
    html = "html"


class CompareFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    junit = "junit"
    html = "html"


class LLMCalls(StrEnum):
    per_criterion = "per_criterion"
    per_item = "per_item"


FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
FailUnder = Annotated[
    float | None, typer.Option("--fail-under", help="Gate: fail (exit 1) if score.mean < X.")
]
Junit = Annotated[Path | None, typer.Option("--junit", help="Also write a JUnit XML file here.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the call cache.")]
NoBatch = Annotated[
    bool, typer.Option("--no-batch", help="Finish with direct calls (finished batches are used).")
]
CacheDir = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        help="Call cache directory (default: $AUTORUBRIC_CACHE_DIR, else the user cache "
        "directory: ~/.cache/autorubric on Linux, ~/Library/Caches/autorubric on macOS).",
    ),
]
Baseline = Annotated[
    Path | None,
    typer.Option("--baseline", help="Then compare with this experiment and gate on it."),
]
MaxDrop = Annotated[
    float | None,
    typer.Option("--max-drop", help="Compare gate: fail (exit 1) if score.diff < -X."),
]
FailOnRegression = Annotated[
    bool,
    typer.Option(
        "--fail-on-regression",
        help="Compare gate: fail if NEW is worse with p < --alpha (the clustered p-value with "
        "a cluster key, else Wilcoxon's).",
    ),
]
Alpha = Annotated[float, typer.Option("--alpha", help="Significance level for the gate.")]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Print the bill (calls, cache hits, cost); call nothing.")
]
EscalationRate = Annotated[
    float | None,
    typer.Option(
        "--escalation-rate",
        min=0,
        max=1,
        help="With --dry-run on a cascade: bill this share of criteria as escalated.",
    ),
]
MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        min=0,
        help=(
            "USD: stop before a call would take the run's paid cost past it; "
            "resume with a higher cap continues."
        ),
    ),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0.001,
        metavar="SECONDS",
        help="Every call's time limit (grader.timeout, over the judges' own).",
    ),
]
MaxAttemptsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-attempts",
        min=1,
        max=1000,
        metavar="N",
        help="Attempts per vote, retries and re-asks included (grader.max_attempts).",
    ),
]
FieldOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--field",
        metavar="TARGET=PATH",
        help="Read our field TARGET from the dataset's dotted PATH (repeatable).",
    ),
]
JudgeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--judge", metavar="MODEL", help="Judge model (repeatable); replaces grader.judges."
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option("--limit", min=1, metavar="N", help="Grade only the first N items."),
]
LLMCallsOpt = Annotated[
    LLMCalls | None,
    typer.Option(
        "--llm-calls",
        help="per_criterion: one call per criterion; per_item: one call grades every criterion.",
    ),
]
ShardOpt = Annotated[
    str | None,
    typer.Option(
        "--shard",
        metavar="K/N",
        help="Grade only shard K of N (by a hash of `id`); see `merge`.",
    ),
]
ClusterOpt = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="metadata.KEY",
        help="Items sharing this metadata value are one cluster for standard errors "
        "(default: the rubric's report.cluster).",
    ),
]
BatchOpt = Annotated[bool, typer.Option("--batch", help="Submit through the provider's batch API.")]
OtelOpt = Annotated[
    bool,
    typer.Option(
        "--otel",
        help="Export OpenTelemetry traces over OTLP/HTTP (OTEL_EXPORTER_OTLP_* variables); "
        "needs the otel extra.",
    ),
]
MlflowOpt = Annotated[
    bool,
    typer.Option(
        "--mlflow",
        help="At the end, log the experiment as an MLflow run (MLFLOW_TRACKING_URI); "
        "needs the mlflow extra.",
    ),
]

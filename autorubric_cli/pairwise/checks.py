"""Everything `autorubric pairwise` refuses before its first judge call: `--check`, `--dry-run`
and the run all build their plan here, so they cannot disagree (as `check`, `run --dry-run` and
`run` share experiment/preflight.py, whose rules about judges, keys, batches, the spend cap and
the directory are made here too).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import get_args

from autorubric_cli.core.pairs import OVERALL, PANEL_RULES, Swap
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.naming import directory_stem
from autorubric_cli.experiment.preflight import (
    RULES,
    Plan,
    Scope,
    batch_providers,
    directory_free,
    judge_providers,
    judges_configured,
    key_variables,
    make_plan,
    provider_settings,
    simulated_params,
    spend_cap_priced,
)
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.loading.yaml_lines import dotted, line_for
from autorubric_cli.pairwise.gates import gate_problem
from autorubric_cli.pairwise.plan import PairPlan, PairwiseOptions, PairwiseSetup
from autorubric_cli.pairwise.systems import System, default_name, name_problem, read_system

SHARED_RULES = (
    judges_configured,
    judge_providers,
    simulated_params,
    provider_settings,
    batch_providers,
    spend_cap_priced,
    key_variables,
    directory_free,
)
"""`run`'s rules that hold for pairwise judging as they are (not: the run's gate, per-item
prompts, few-shot examples and the dataset's items, which pairwise does not use)."""
ALL: frozenset[Scope] = frozenset({"rubric", "judges", "env", "dataset", "directory"})


def pairwise_plan(
    rubric_path: Path, options: PairwiseOptions, scopes: frozenset[Scope] = ALL
) -> PairPlan:
    """The plan, after every rule in `scopes` passed (the first refusal is raised)."""
    swap = options.swap
    if swap not in get_args(Swap):
        raise InputError(f"must be one of: {', '.join(get_args(Swap))}", key="--swap")
    directory = options.out or default_directory(rubric_path)
    base = make_plan(rubric_path, None, options.run_options(directory))
    shared = [c for c in RULES if c.rule in SHARED_RULES and c.scope in scopes]
    for check in shared:
        if check.scope in ("rubric", "judges"):
            check.rule(base)
    pair_settings(base)
    for check in shared:
        if check.scope == "env":
            check.rule(base)
    systems = read_systems(base, options)
    setup = PairwiseSetup(
        systems=[s.source for s in systems],
        swap=swap,  # checked above
        fields=base.fields,
        min_win_rate=options.min_win_rate,
    )
    plan = PairPlan(base, setup, systems)
    shared_items(plan)
    gate_paths(plan)
    for check in shared:
        if check.scope == "directory":
            check.rule(base)
    return plan


def default_directory(rubric_path: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    stem = directory_stem(load_rubric(rubric_path), rubric_path)
    return Path("experiments") / f"{stem}-pairwise-{stamp}"


def rubric_error(plan: Plan, key: tuple[str | int, ...], message: str) -> InputError:
    line = line_for(key, plan.lines)
    return InputError(message, path=str(plan.rubric_path), line=line, key=dotted(key))


def pair_settings(plan: Plan) -> None:
    """What the rubric's settings mean for pairs: `any` aggregation has no meaning; a criterion
    named `overall` would hide the overall question; per-item calls and few-shot examples are
    not used (warned)."""
    config = plan.config
    section = plan.rubric.pairwise
    if not plan.rubric.criteria and (section is None or section.overall is None):
        raise rubric_error(
            plan, ("criteria",), "nothing to ask: give criteria, or a `pairwise.overall` question"
        )
    if config.aggregation not in PANEL_RULES:
        raise rubric_error(
            plan,
            ("grader", "aggregation"),
            f"aggregation {config.aggregation!r} has no meaning for pairs; use one of: "
            f"{', '.join(PANEL_RULES)} (or another rubric for pairwise judging)",
        )
    if config.cascade is not None:
        raise rubric_error(
            plan,
            ("grader", "cascade"),
            "pairwise judging asks every judge: a cascade is not supported here; use a rubric "
            "without `grader.cascade` (its `then` judges, say) for `autorubric pairwise`",
        )
    if section is not None and section.overall is not None:
        for index, criterion in enumerate(plan.rubric.criteria):
            if criterion.name == OVERALL:
                raise rubric_error(
                    plan,
                    ("criteria", index, "name"),
                    "a criterion named `overall` would hide the `pairwise.overall` question; "
                    "rename it",
                )
    if config.llm_calls == "per_item":
        plan.warnings.append(
            f"{plan.rubric_path}: grader.llm_calls: pairwise asks one call per criterion and "
            "order; `per_item` applies to `run` only"
        )
    if config.few_shot is not None:
        plan.warnings.append(
            f"{plan.rubric_path}: grader.few_shot: examples grade single answers; pairwise "
            "judging does not show them"
        )


def read_systems(plan: Plan, options: PairwiseOptions) -> list[System]:
    """Every system, under its name (`--name SYSTEM=label` renames one); names are unique."""
    labels = parse_labels(options.labels)
    defaults = [default_name(path) for path in options.systems]
    names = []
    for path, default in zip(options.systems, defaults, strict=True):
        names.append(labels.pop(default, "") or labels.pop(str(path), "") or default)
    if labels:
        unknown = next(iter(labels))
        raise InputError(
            f"no system named {unknown!r} (the systems: {', '.join(defaults)})", key="--name"
        )
    for name in names:
        problem = name_problem(name)
        if problem is not None:
            raise InputError(f"{problem}; rename it with --name {name}=LABEL", key="--name")
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise InputError(
            f"two systems are named {twice!r}; tell them apart with --name {twice}=LABEL",
            key="--name",
        )
    return [
        read_system(path, name, plan.rubric, plan.fields)
        for path, name in zip(options.systems, names, strict=True)
    ]


def parse_labels(labels: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for text in labels:
        system, sep, label = text.partition("=")
        if not sep or not system.strip() or not label.strip():
            raise InputError(f"expected SYSTEM=LABEL, got {text!r}", key="--name")
        found[system.strip()] = label.strip()
    return found


def shared_items(plan: PairPlan) -> None:
    """Every pair shares an item id; a shared item's two queries are the same text; items
    carry no criteria or context of their own (not compared pairwise)."""
    counts = {(a.name, b.name): 0 for a, b in plan.pairs()}
    for unit in plan.all_units():
        counts[unit.a, unit.b] += 1
        own = next(
            (
                (n, i)
                for n, i in ((unit.a, unit.first), (unit.b, unit.second))
                if i.rubric or i.context
            ),
            None,
        )
        if own is not None:
            name, item = own
            raise InputError(
                f"item {unit.item!r} of {name!r} has criteria or a context of its own; pairwise "
                "judging compares answers on the rubric's criteria alone: give items without them",
                path=next(s.source.path for s in plan.systems if s.name == name),
                key="rubric" if item.rubric else "context",
            )
        queries = [" ".join((i.query or "").split()) for i in (unit.first, unit.second)]
        if all(queries) and queries[0] != queries[1]:
            raise InputError(
                f"item {unit.item!r} answers different queries in {unit.a!r} and {unit.b!r}; "
                "items are matched by id, so an id must name the same query in every system",
                key=unit.item,
            )
    for (a, b), count in counts.items():
        if count == 0:
            raise InputError(
                f"{a!r} and {b!r} share no item id: there is nothing to compare",
                key="SYSTEMS",
            )


def gate_paths(plan: PairPlan) -> None:
    """Every gate check names a figure of this comparison's report (with a "did you mean")."""
    if plan.setup.min_win_rate is not None and not 0.0 <= plan.setup.min_win_rate <= 1.0:
        raise InputError("a win rate lies in [0, 1]", key="--min-win-rate")
    for index, check in enumerate(plan.rubric.pairwise.gate if plan.rubric.pairwise else []):
        problem = gate_problem(check.metric, plan.rubric, [s.name for s in plan.systems])
        if problem is not None:
            raise rubric_error(plan.base, ("pairwise", "gate", index, "metric"), problem)

"""Everything `run` refuses before its first judge call (docs/reference/exit-codes.md), as one list
of rules.

`check`, `run --dry-run` and `run` all call `preflight`, so they cannot disagree: a rule added to
RULES is made by all three. A rule is a plain function of the Plan that raises InputError
(`file:line: key: message`) or returns. Its `scope` says what it needs:

- "rubric": the rubric and the flags only (always checked);
- "judges": at least one judge (`check` of a rubric without judges, meant for `run --judge`,
  skips it and says so);
- "env": the environment, i.e. key variables (`check --no-env` skips these, for lint jobs that
  hold no secrets);
- "dataset": the dataset file (skipped by `check RUBRIC` without a dataset);
- "directory": where `run` would write (skipped by `check`, which writes nothing anywhere).

Building the Plan itself refuses what makes a run impossible to describe: an invalid rubric, a
bad --field or --shard flag.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.metric_paths import metric_problem, unreachable_bound
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.few_shot_labels import experiment_examples
from autorubric_cli.experiment.flags import resolve_config
from autorubric_cli.experiment.lock import LOCK_FILE, writer_lock
from autorubric_cli.experiment.naming import experiment_directory
from autorubric_cli.experiment.options import RunOptions
from autorubric_cli.experiment.replace import check_replaceable
from autorubric_cli.experiment.shard import Shard, count_items, parse_shard
from autorubric_cli.grading.few_shot import load_examples
from autorubric_cli.grading.grader import per_item_builder
from autorubric_cli.judges.batch.api import batch_provider
from autorubric_cli.judges.batch.transport import batch_enabled
from autorubric_cli.judges.policy.preflight import check_judges
from autorubric_cli.judges.policy.routing import route_problem
from autorubric_cli.judges.policy.spend import check_priced
from autorubric_cli.judges.transports.litellm import load_litellm
from autorubric_cli.judges.transports.simulated import is_simulated, simulation_params
from autorubric_cli.loading.fields import parse_field_flags
from autorubric_cli.loading.rubric_loader import load_rubric
from autorubric_cli.loading.yaml_lines import dotted, line_for, load_yaml_with_lines

Scope = Literal["rubric", "judges", "env", "dataset", "directory"]
ALL_SCOPES: frozenset[Scope] = frozenset({"rubric", "judges", "env", "dataset", "directory"})


@dataclass
class Plan:
    """What `run` would do: the resolved rubric, its field mapping, shard and directory."""

    rubric_path: Path
    dataset_path: Path | None
    options: RunOptions
    rubric: Rubric  # `grader` resolved: the rubric's section with the flags applied
    fields: dict[str, str]
    shard: Shard | None
    directory: Path
    covered: int = 0  # items the run covers (after --limit), set by the dataset rule
    selected: int = 0  # of those, the items in the shard
    warnings: list[str] = field(default_factory=list)  # `file:line: key: message` lines

    @property
    def config(self) -> LLMConfig:
        return self.rubric.grader

    @functools.cached_property
    def lines(self) -> dict[Any, int]:
        """The rubric file's key paths -> lines (read again only when a rule refuses)."""
        try:
            _, lines = load_yaml_with_lines(self.rubric_path.read_text("utf-8"), "")
        except (OSError, InputError, UnicodeDecodeError):
            return {}
        return lines

    def judge_error(self, index: int, key: str, message: str) -> InputError:
        """An error about judge `index`: at its line in the rubric, or on --judge."""
        if self.options.judges:
            return InputError(message, key="--judge")
        loc: tuple[str | int, ...] = ("grader", "judges", index, *key.split("."))
        line = line_for(loc, self.lines)
        return InputError(message, path=str(self.rubric_path), line=line, key=dotted(loc))


Rule = Callable[[Plan], None]


@dataclass(frozen=True)
class Check:
    rule: Rule
    scope: Scope


def make_plan(rubric_path: Path, dataset_path: Path | None, options: RunOptions) -> Plan:
    rubric = load_rubric(rubric_path)
    rubric = rubric.model_copy(update={"grader": resolve_config(rubric, options)})
    fields = {**rubric.dataset.fields, **parse_field_flags(options.fields)}
    shard = parse_shard(options.shard) if options.shard is not None else None
    directory = experiment_directory(rubric, rubric_path, options)
    return Plan(rubric_path, dataset_path, options, rubric, fields, shard, directory)


# --- the rules ------------------------------------------------------------------------------


def judges_configured(plan: Plan) -> None:
    if not plan.config.judges:
        raise InputError(
            "no judge configured: add `grader.judges` to the rubric or pass --judge MODEL",
            key="grader.judges",
        )


def name_or_out(plan: Plan) -> None:
    if plan.options.name is not None and plan.options.out is not None:
        raise InputError("use either --name or --out, not both", key="--name")


def judge_providers(plan: Plan) -> None:
    """Every real judge's model is one litellm can route (a known provider prefix)."""
    for index, spec in enumerate(plan.config.judges):
        problem = route_problem(spec)
        if problem is not None:
            raise plan.judge_error(index, "model", problem)


def simulated_params(plan: Plan) -> None:
    """A simulated judge's params: known names, probabilities in [0, 1]."""
    for index, spec in enumerate(plan.config.judges):
        if is_simulated(spec.model):
            try:
                simulation_params(spec)
            except InputError as exc:
                raise plan.judge_error(index, exc.key, exc.message) from None


class MissingKeyVariable(InputError):
    """A judge's key variable is not set (`check` adds how to skip the environment checks)."""


def key_variables(plan: Plan) -> None:
    """Every real judge's key: its `api_key_env` set and non-empty; a judge with neither
    `api_key_env` nor `api_base` needs the variables litellm reads for its provider."""
    for index, spec in enumerate(plan.config.judges):
        if is_simulated(spec.model):
            continue
        missing = missing_key_variables(spec)
        if missing:
            names = " or ".join(missing)
            where = "api_key_env" if spec.api_key_env else "model"
            error = plan.judge_error(
                index,
                where,
                f"judge {spec.judge_id!r} needs the environment variable {names}, which is "
                "not set; export it (or set `api_key_env`)",
            )
            raise MissingKeyVariable(error.message, path=error.path, line=error.line, key=error.key)


# Providers whose SDKs find credentials through a chain (an IAM role, a profile, a metadata
# server, credentials in `params`): no environment variable is required, so none is demanded.
CREDENTIAL_CHAIN_PROVIDERS = frozenset({"bedrock", "sagemaker", "vertex_ai", "vertex_ai_beta"})


def missing_key_variables(spec: JudgeSpec) -> list[str]:
    if spec.api_key_env is not None:
        return [] if os.environ.get(spec.api_key_env) else [spec.api_key_env]
    if spec.api_base is not None:
        return []  # a server of the user's own (vLLM, a proxy) may need no key
    if spec.model.split("/", 1)[0] in CREDENTIAL_CHAIN_PROVIDERS:
        return []
    try:
        found = load_litellm().validate_environment(model=spec.model)
    except Exception:  # a model string litellm cannot place: the call will say so
        return []
    return [] if found.get("keys_in_environment", True) else list(found.get("missing_keys", []))


def provider_settings(plan: Plan) -> None:
    """What each judge's provider refuses or ignores (judges/policy/providers.py): errors refused,
    warnings kept for the caller to print."""
    flagged = [JudgeSpec(model=m) for m in plan.options.judges]
    # the judges as written (not the resolved copies): a provider rule may depend on whether
    # the user set a key (an explicit temperature) or left its default
    written = flagged or load_rubric(plan.rubric_path).grader.judges
    plan.warnings += check_judges(written, None if flagged else plan.rubric_path)


def gate_metrics(plan: Plan) -> None:
    """Every gate check names a number of this rubric's report and a bound it can reach
    (docs/guides/ci.md); `--fail-under` too."""
    criteria = [(c.name, c.kind) for c in plan.rubric.criteria]
    normalize = plan.config.normalize
    for index, check in enumerate(plan.rubric.gate):
        problem = metric_problem(check.metric, criteria)
        key: tuple[str | int, ...] = ("gate", index, "metric")
        if problem is None:
            problem = unreachable_bound(check.metric, check.min, normalize)
            key = ("gate", index, "min")
        if problem is not None:
            line = line_for(key, plan.lines)
            raise InputError(problem, path=str(plan.rubric_path), line=line, key=dotted(key))
    problem = unreachable_bound("score.mean", plan.options.fail_under, normalize)
    if problem is not None:
        raise InputError(problem, key="--fail-under")


def per_item_settings(plan: Plan) -> None:
    """`llm_calls: per_item` takes `item_system_prompt`, not the per-criterion prompts."""
    try:
        per_item_builder(plan.rubric, plan.config.seed, plan.rubric_path.parent)
    except InputError as exc:
        if exc.path is not None:
            raise
        line = line_for(tuple(exc.key.split(".")), plan.lines)
        raise InputError(exc.message, path=str(plan.rubric_path), line=line, key=exc.key) from None


def few_shot_examples(plan: Plan) -> None:
    """The examples file (or experiment directory, few_shot_labels.py) reads without error."""
    if plan.config.few_shot is None:
        return
    if experiment_examples(plan.rubric, plan.rubric_path.parent) is None:
        load_examples(plan.config.few_shot, plan.rubric, plan.rubric_path.parent)


def batch_providers(plan: Plan) -> None:
    """A judge to batch must have a provider whose batch API litellm can use
    (docs/guides/batches.md)."""
    for spec in plan.config.judges:
        if batch_enabled(plan.config, spec):
            batch_provider(spec)


def spend_cap_priced(plan: Plan) -> None:
    """A spend cap needs every judge's price (docs/reference/exit-codes.md): an unpriced judge is an
    input error."""
    if plan.options.max_cost is not None:
        check_priced(plan.config, key="--max-cost")
        return
    try:
        check_priced(plan.config)
    except InputError as exc:
        line = line_for(("grader", "max_cost"), plan.lines)
        raise InputError(exc.message, path=str(plan.rubric_path), line=line, key=exc.key) from None


def dataset_items(plan: Plan) -> None:
    """Every item valid (one validating pass; it also counts what the run covers)."""
    assert plan.dataset_path is not None
    plan.covered, plan.selected = count_items(
        plan.dataset_path, plan.rubric, plan.fields, plan.options.limit, plan.shard
    )


def directory_free(plan: Plan) -> None:
    """The experiment directory must be new or empty (it is claimed again, under a lock)."""
    directory = plan.directory
    if directory.exists() and not directory.is_dir():
        raise InputError("exists and is not a directory", path=str(directory), key="--out")
    if (directory / LOCK_FILE).exists():
        with writer_lock(directory):  # a writer at work: DirectoryInUse names its process
            pass
    if plan.options.replace:
        check_replaceable(directory)  # an experiment: `run` empties it after the checks
        return
    if directory.is_dir() and any(p.name != LOCK_FILE for p in directory.iterdir()):
        raise InputError(in_use_message(directory), path=str(directory))


def in_use_message(directory: Path) -> str:
    return (
        f"experiment directory already exists; use `autorubric resume {directory}`, "
        "choose another --name/--out, or pass --replace to start it over"
    )


RULES: list[Check] = [
    Check(name_or_out, "directory"),
    Check(judges_configured, "judges"),
    Check(judge_providers, "rubric"),
    Check(simulated_params, "rubric"),
    Check(provider_settings, "rubric"),
    Check(gate_metrics, "rubric"),
    Check(per_item_settings, "rubric"),
    Check(few_shot_examples, "rubric"),
    Check(batch_providers, "rubric"),
    Check(spend_cap_priced, "rubric"),
    Check(key_variables, "env"),
    Check(dataset_items, "dataset"),
    Check(directory_free, "directory"),
]


def preflight(
    rubric_path: Path,
    dataset_path: Path | None,
    options: RunOptions,
    scopes: frozenset[Scope] = ALL_SCOPES,
) -> Plan:
    """The Plan of `run`, after every rule in `scopes` passed (the first refusal is raised)."""
    plan = make_plan(rubric_path, dataset_path, options)
    for check in RULES:
        if check.scope not in scopes:
            continue
        if check.scope == "dataset" and dataset_path is None:
            continue
        check.rule(plan)
    return plan

"""The configuration a session runs with: the rubric's `grader:` section with the command's
flags applied on top, once.

`run` resolves it in the pre-flight plan (`resolve_config`), which `check`, `run --dry-run`
and `run` share. `resume` starts from the configuration recorded in the manifest, applies the
operational settings edited in the rubric since (experiment/rubric_lock.py) and its value flags
(`with_values`), records that, then switches the call cache or batches off for its own session
(`with_switches`). Nothing else merges flags: every later step reads `rubric.grader`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.settings import with_settings
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import RubricLock
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.options import RunOptions, SessionFlags
from autorubric_cli.experiment.rubric_lock import check_unchanged


def resolve_config(rubric: Rubric, options: RunOptions) -> LLMConfig:
    """The rubric's `grader:` section with CLI flags applied on top (docs/reference/rubric-file.md:
    seed default 0)."""
    update: dict[str, Any] = {}
    if options.judges:
        update["judges"] = [JudgeSpec(model=m) for m in options.judges]
    if options.no_shuffle:
        update["shuffle_options"] = False
    if options.seed is not None:
        update["seed"] = options.seed
    if options.llm_calls is not None:
        update["llm_calls"] = options.llm_calls
    if options.batch:
        update["batch"] = True
    config = with_switches(rubric.grader.model_copy(update=update), cache=options.cache)
    config = with_values(config, options.values)
    try:
        return LLMConfig.model_validate(config.model_dump())
    except ValidationError as exc:  # the rubric was valid, so a flag made it wrong
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise InputError(message, key="--judge" if options.judges else "grader") from None


def with_values(config: LLMConfig, flags: SessionFlags) -> LLMConfig:
    """--concurrency, --max-attempts, --max-cost, and --timeout: every call's limit
    (`grader.timeout`, in place of the judges' own timeouts)."""
    update: dict[str, Any] = {}
    if flags.concurrency is not None:
        update["concurrency"] = flags.concurrency
    if flags.max_attempts is not None:
        update["max_attempts"] = flags.max_attempts
    if flags.max_cost is not None:
        update["max_cost"] = flags.max_cost
    if flags.timeout is not None:
        update["timeout"] = flags.timeout
        update["judges"] = [j.model_copy(update={"timeout": None}) for j in config.judges]
    return config.model_copy(update=update)


def with_switches(config: LLMConfig, *, cache: bool = True, batch: bool = True) -> LLMConfig:
    """`cache=False` (--no-cache): neither read nor write the call cache; `batch=False`
    (`resume --no-batch`): every judge calls directly. For the session they are given to."""
    if not cache:
        config = config.model_copy(update={"cache": False})
    if not batch:
        judges = [judge.model_copy(update={"batch": False}) for judge in config.judges]
        config = config.model_copy(update={"batch": False, "judges": judges})
    return config


def resumed_config(
    experiment: OpenedExperiment, values: SessionFlags
) -> tuple[LLMConfig, RubricLock]:
    """(the configuration to record and use, the rubric's lock): the recorded configuration
    with the operational settings edited in the rubric since, then the value flags; refused
    when an input changed in what decides results (rubric_lock.py)."""
    checked = check_unchanged(experiment.manifest, experiment.directory)
    config = with_values(with_settings(experiment.rubric.grader, checked.edits), values)
    try:
        return LLMConfig.model_validate(config.model_dump()), checked.lock
    except ValidationError as exc:  # the settings were valid, so a flag made it wrong
        raise InputError(exc.errors()[0]["msg"], key="resume") from None

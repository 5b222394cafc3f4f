"""The configuration a session runs with: the rubric's `grader:` section with the command's
flags applied on top, once.

`run` resolves it in the pre-flight plan (`resolve_config`), which `check`, `run --dry-run`
and `run` share; `resume` starts from the configuration recorded in the manifest and applies
only the flags that may differ between sessions (`with_session_flags`). Nothing else merges
flags: every later step reads `rubric.grader`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from autorubric_cli.core.config import JudgeSpec, LLMConfig
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.options import RunOptions


def resolve_config(rubric: Rubric, options: RunOptions) -> LLMConfig:
    """The rubric's `grader:` section with CLI flags applied on top (docs/reference/rubric-file.md:
    seed default 0)."""
    update = _session_update(options.concurrency, options.cache, options.max_cost)
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
    config = rubric.grader.model_copy(update=update)
    try:
        return LLMConfig.model_validate(config.model_dump())
    except ValidationError as exc:  # the rubric was valid, so a flag made it wrong
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise InputError(message, key="--judge" if options.judges else "grader") from None


def with_session_flags(
    rubric: Rubric,
    concurrency: int | None,
    *,
    cache: bool = True,
    batch: bool = True,
    max_cost: float | None = None,
) -> Rubric:
    """`resume`'s flags that may differ from the run's: concurrency, `cache` (False:
    --no-cache), `batch` (False: --no-batch), --max-cost (without it, the cap the run was
    started with, from the manifest)."""
    grader = rubric.grader.model_copy(update=_session_update(concurrency, cache, max_cost))
    if not batch:
        grader = without_batches(grader)
    return rubric.model_copy(update={"grader": grader})


def _session_update(concurrency: int | None, cache: bool, max_cost: float | None) -> dict[str, Any]:
    """The flags `run` and `resume` both take: a session may change them."""
    update: dict[str, Any] = {}
    if concurrency is not None:
        update["concurrency"] = concurrency
    if not cache:
        update["cache"] = False
    if max_cost is not None:
        update["max_cost"] = max_cost
    return update


def without_batches(config: LLMConfig) -> LLMConfig:
    """`resume --no-batch`: every judge calls directly."""
    judges = [judge.model_copy(update={"batch": False}) for judge in config.judges]
    return config.model_copy(update={"batch": False, "judges": judges})

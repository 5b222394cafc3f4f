"""Configuration models (docs/reference/rubric-file.md `grader:` and `gate:`). Every strategy name
is a Literal."""

from __future__ import annotations

import math
from enum import StrEnum
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from autorubric_cli.core.thresholds import check_map_names, checked_thresholds, criterion_threshold

BinaryAggregation = Literal["majority", "weighted", "unanimous", "any"]
OrdinalAggregation = Literal["mean", "median", "weighted_mean", "mode", "min", "max"]
NominalAggregation = Literal["mode", "weighted_mode", "unanimous"]
SampleAggregation = Literal["majority", "median", "mean"]
LLMCalls = Literal["per_criterion", "per_item"]
PromptCaching = Literal["auto", "off"]
CacheTTL = Literal["5m", "1h"]
ApplyTo = Literal["all", "output", "thinking"]
Clip = Literal["item", "mean"]
Transport = Literal["auto", "native", "litellm"]
StructuredOutput = Literal["auto", "json_schema", "json_object", "prompt"]
SampleRequest = Literal["one", "separate"]
NATIVE_PREFIXES = ("openai/", "hosted_vllm/")

BINARY_AGGREGATIONS: tuple[str, ...] = get_args(BinaryAggregation)
ORDINAL_AGGREGATIONS: tuple[str, ...] = get_args(OrdinalAggregation)
NOMINAL_AGGREGATIONS: tuple[str, ...] = get_args(NominalAggregation)
SAMPLE_AGGREGATIONS: tuple[str, ...] = get_args(SampleAggregation)


def wants_number(annotation: Any) -> bool:
    """int, float, or a union of them with None: a field YAML must give as a number."""
    options = (
        get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,)
    )
    kinds = {a for a in options if a is not type(None)}
    return bool(kinds) and kinds <= {int, float}


MAX_INT = 2**53  # every integer in a config must survive JSON (manifest) exactly


class Strict(BaseModel):
    """Base for every file-facing model: unknown keys are errors, every number is finite and
    every integer within ±2**53 (so no NaN, Infinity or 1e400 reaches the scoring rules or
    the manifest)."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _finite_numbers(cls, v: Any, info: ValidationInfo) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("must be a finite number")
        field = cls.model_fields.get(info.field_name or "")
        if isinstance(v, str) and field is not None and wants_number(field.annotation):
            raise ValueError(f"must be a number, not the string {v!r} (remove the quotes)")
        return v

    @field_validator("*", mode="after")
    @classmethod
    def _bounded_integers(cls, v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_INT:
            raise ValueError(f"must be at most {MAX_INT} in absolute value")
        return v


class CannotAssessStrategy(StrEnum):
    SKIP = "skip"
    ZERO = "zero"
    PARTIAL = "partial"
    FAIL = "fail"


class CannotAssessConfig(Strict):
    strategy: CannotAssessStrategy = CannotAssessStrategy.SKIP
    partial_credit: float = Field(0.5, ge=0.0, le=1.0)


class LengthPenalty(Strict):
    free_budget: int = Field(6000, ge=0)
    max_cap: int = Field(8000, ge=1)
    penalty_at_cap: float = Field(0.5, ge=0.0)
    exponent: float = Field(1.6, gt=0.0)
    apply_to: ApplyTo = "all"

    @model_validator(mode="after")
    def _cap_above_budget(self) -> LengthPenalty:
        if self.max_cap <= self.free_budget:
            raise ValueError("max_cap must be greater than free_budget")
        return self


class FewShotConfig(Strict):
    examples: str
    n_examples: int = Field(3, ge=1, le=10_000)
    balance_verdicts: bool = True
    include_reason: bool = False


def _finite(value: float | None, what: str) -> float | None:
    if value is not None and not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number")
    return value


RESERVED_PARAMS = frozenset(
    {
        "model",
        "messages",
        "response_format",
        "api_key",
        "api_base",
        "timeout",
        "max_retries",
        "num_retries",
        "temperature",
        "max_tokens",
        "stream",
        "n",  # several samples in one request: `samples` with `sample_request`
    }
)


class JudgeSpec(Strict):
    """One judge model. `api_key_env` is the NAME of an environment variable, never a key."""

    model: str = Field(min_length=1)
    id: str | None = None
    weight: float = 1.0
    temperature: float | None = Field(0.0, ge=0.0, le=100.0)
    max_tokens: int | None = Field(None, ge=1)
    api_base: str | None = None
    api_key_env: str | None = None
    samples: int = Field(1, ge=1, le=1000)
    max_concurrency: int = Field(16, ge=1, le=100_000)
    rpm: float | None = Field(None, gt=0)
    timeout: float | None = Field(None, gt=0)
    thinking: str | int | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    # docs/guides/batches.md: this judge through the batch API; None: grader's
    batch: bool | None = None
    prompt_caching: PromptCaching = "auto"  # provider prompt caching of an item's shared prefix
    cache_ttl: CacheTTL = "5m"  # Anthropic cache breakpoints: 5-minute (default) or 1-hour TTL
    # docs/guides/transports.md: the native OpenAI-compatible client or litellm
    transport: Transport = "auto"
    # docs/guides/transports.md#structured-output: how the body asks for the reply's JSON schema
    structured_output: StructuredOutput = "auto"
    # docs/reference/rubric-file.md: added to the temperature at each re-ask of an unusable reply
    reask_temperature_step: float = Field(0.3, ge=0.0, le=1.0)
    # docs/guides/judges.md#samples-in-one-request: None = `one` where the provider can
    sample_request: SampleRequest | None = None

    @field_validator("weight")
    @classmethod
    def _weight_positive(cls, v: float) -> float:
        _finite(v, "judge weight")
        if v <= 0:
            raise ValueError("judge weight must be > 0")
        return v

    @field_validator("prompt_caching", mode="before")
    @classmethod
    def _yaml_off(cls, v: Any) -> Any:
        """YAML reads an unquoted `off` as false (and `on` as true)."""
        return {False: "off", True: "auto"}.get(v, v) if isinstance(v, bool) else v

    @field_validator("params")
    @classmethod
    def _params_pass_through(cls, v: dict[str, Any]) -> dict[str, Any]:
        """`params` go to the provider as they are (litellm kwargs: top_p, seed, stop,
        extra_headers, extra_body, ...), except what we set ourselves."""
        for name in v:
            if name in RESERVED_PARAMS:
                raise ValueError(f"`{name}` is set by autorubric; it cannot be a judge param")
        extra_body = v.get("extra_body")
        if isinstance(extra_body, dict) and "response_format" in extra_body:
            raise ValueError(
                "`extra_body.response_format` would replace the reply schema autorubric sends; "
                "set the judge's `structured_output` instead"
            )
        return v

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, v: str | None) -> str | None:
        if v is not None and not v.replace("_", "").isalnum():
            raise ValueError("api_key_env must be the NAME of an environment variable")
        return v

    @model_validator(mode="after")
    def _native_is_possible(self) -> JudgeSpec:
        """`transport: native` speaks only OpenAI chat completions, to an explicit endpoint, and
        sends thinking only as an effort level (docs/guides/transports.md)."""
        if self.transport != "native":
            return self
        if not self.model.startswith(NATIVE_PREFIXES):
            raise ValueError("transport native takes only openai/ and hosted_vllm/ models")
        if self.model.startswith("openai/") and self.api_base is None:
            raise ValueError("transport native on an openai/ model needs api_base")
        if isinstance(self.thinking, int) or (self.thinking or "").strip().isdigit():
            raise ValueError("transport native sends thinking as an effort level, not a budget")
        return self

    @property
    def judge_id(self) -> str:
        return self.id or self.model


class RetryConfig(Strict):
    """Backoff timing (seconds): exponential with full jitter, capped; Retry-After capped."""

    initial_wait: float = Field(1.0, ge=0)
    max_wait: float = Field(30.0, ge=0)
    max_retry_after: float = Field(60.0, ge=0)


class BreakerConfig(Strict):
    """When a judge is declared broken and the run stops (exit 2; docs/guides/judges.md).

    `consecutive_failures`: calls in a row that failed in a way retries cannot fix (connection
    refused, unknown host, HTTP 404 or 400) with no answer in between. `failed_votes`: votes in
    a row whose every attempt failed, whatever the cause.
    """

    consecutive_failures: int = Field(5, ge=1, le=1_000_000)
    failed_votes: int = Field(10, ge=1, le=1_000_000)


class CascadeConfig(Strict):
    """`grader.cascade` (docs/guides/cascades.md): the `first` judges grade every criterion; a
    criterion whose first-stage agreement is below its threshold (or with an errored or
    abstaining first-stage sample) goes to the `then` judges. `escalate_below` is one threshold
    or a map `{criterion name: T, "*": T}` (`threshold`)."""

    first: list[str]
    then: list[str]
    escalate_below: float | dict[str, float] = 1.0

    @field_validator("first", "then")
    @classmethod
    def _stage_named(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("a cascade stage needs at least one judge id")
        if len(set(v)) != len(v):
            raise ValueError("a judge id is named twice in this stage")
        return v

    @field_validator("escalate_below", mode="before")
    @classmethod
    def _thresholds(cls, v: Any) -> Any:
        return checked_thresholds(v)

    @model_validator(mode="after")
    def _stages_disjoint(self) -> CascadeConfig:
        both = [j for j in self.then if j in self.first]
        if both:
            raise ValueError(f"judge {both[0]!r} is named in then and in first; one stage each")
        return self

    def threshold(self, criterion: str) -> float:
        return criterion_threshold(self.escalate_below, criterion)

    def check_criteria(self, names: list[str]) -> None:
        check_map_names(self.escalate_below, names)


class LLMConfig(Strict):
    """The resolved grader configuration (rubric `grader:` section, then CLI flags)."""

    judges: list[JudgeSpec] = Field(default_factory=list)
    aggregation: BinaryAggregation = "majority"
    ordinal_aggregation: OrdinalAggregation = "mean"
    nominal_aggregation: NominalAggregation = "mode"
    sample_aggregation: SampleAggregation = "majority"
    cannot_assess: CannotAssessConfig = Field(default_factory=CannotAssessConfig)
    length_penalty: LengthPenalty | None = None
    normalize: bool = True
    # docs/reference/rubric-file.md: clamp each item's score (item) or only the mean (mean)
    clip: Clip = "item"
    shuffle_options: bool = True
    auto_na_option: bool = False
    # docs/reference/rubric-file.md: fixed, so reruns hit the cache (docs/guides/cache-and-cost.md)
    seed: int = Field(0, ge=0)
    concurrency: int = Field(64, ge=1, le=100_000)
    timeout: float = Field(60.0, gt=0)
    max_attempts: int = Field(6, ge=1, le=1000)
    retry: RetryConfig = Field(default_factory=RetryConfig)
    breaker: BreakerConfig = Field(default_factory=BreakerConfig)
    adaptive_concurrency: bool = True  # AIMD under each judge's max_concurrency (429s)
    few_shot: FewShotConfig | None = None
    system_prompt: str | None = None
    multi_choice_system_prompt: str | None = None
    # per_item calls (docs/guides/per-item.md): one prompt for every criterion
    item_system_prompt: str | None = None
    # docs/guides/per-item.md
    llm_calls: LLMCalls = "per_criterion"
    # docs/guides/cache-and-cost.md
    cache: bool = True
    # docs/guides/batches.md
    batch: bool = False
    # USD; the run stops before passing it (docs/reference/exit-codes.md)
    max_cost: float | None = Field(None, ge=0)
    # where `run`/`resume` make their litellm calls: "auto" (here until this process is
    # saturated, then in worker processes, up to the cores), N (N worker processes from the
    # start), 0 (here). docs/guides/judges.md, worker processes.
    workers: int | Literal["auto"] = Field("auto", union_mode="left_to_right")
    cascade: CascadeConfig | None = None  # docs/guides/cascades.md
    # every reply also names the criteria it is about (`review`'s meta-rubric,
    # docs/guides/rubric-quality.md); per-criterion calls only
    affected_criteria: bool = False

    @field_validator("workers")
    @classmethod
    def _workers_range(cls, v: int | str) -> int | str:
        if isinstance(v, int) and not 0 <= v <= 1024:
            raise ValueError('workers must be "auto" or a whole number from 0 to 1024')
        return v

    @model_validator(mode="after")
    def _affected_per_criterion(self) -> LLMConfig:
        if self.affected_criteria and self.llm_calls != "per_criterion":
            raise ValueError("affected_criteria needs llm_calls: per_criterion")
        return self

    @model_validator(mode="after")
    def _unique_judge_ids(self) -> LLMConfig:
        seen: set[str] = set()
        for judge in self.judges:
            if judge.judge_id in seen:
                raise ValueError(f"duplicate judge id {judge.judge_id!r}; set a distinct `id`")
            seen.add(judge.judge_id)
        return self

    @model_validator(mode="after")
    def _cascade_judges(self) -> LLMConfig:
        """Every judge belongs to exactly one cascade stage, and every id named is a judge."""
        if self.cascade is None:
            return self
        ids = [j.judge_id for j in self.judges]
        for stage in ("first", "then"):
            for judge_id in getattr(self.cascade, stage):
                if judge_id not in ids:
                    raise ValueError(
                        f"cascade {stage}: unknown judge id {judge_id!r}; the judges are {ids}"
                    )
        staged = {*self.cascade.first, *self.cascade.then}
        left = [j for j in ids if j not in staged]
        if left:
            raise ValueError(
                f"judge {left[0]!r} is in no cascade stage; name it in cascade first or then"
            )
        return self

    def judge_weights(self) -> dict[str, float]:
        return {j.judge_id: j.weight for j in self.judges}


class GateCheck(Strict):
    metric: str = Field(min_length=1)
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _has_bound(self) -> GateCheck:
        if self.min is None and self.max is None:
            raise ValueError("a gate check needs `min` and/or `max`")
        _finite(self.min, "min")
        _finite(self.max, "max")
        return self

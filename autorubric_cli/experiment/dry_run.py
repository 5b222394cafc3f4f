"""`run --dry-run` / `resume --dry-run` (docs/guides/cache-and-cost.md): the bill before paying it.

Every request is built exactly as the run would build it (same RequestBuilder, seed, shuffles,
few-shot examples, response format) and looked up in the call cache (read-only: nothing is
created or written). Calls the cache would not serve are billed:

- prompt tokens: `litellm.token_counter(model, messages)` on the exact messages sent;
- completion tokens: an estimate, the tokens of the largest reply the response schema allows
  with an explanation of `EXPLANATION_WORDS` words, capped by the judge's `max_tokens`
  (thinking tokens are not estimated);
- cost: `litellm.cost_per_token` from litellm's bundled price map; None (`n/a`) for a model
  it does not price, 0 for simulated judges (they are free).

Re-asks and retries are not in the bill: it counts first attempts. With `llm_calls: per_item`
it bills one call per (item, judge, sample), on the line of the first criterion it asks for.
An item's own criteria (docs/reference/dataset-files.md) are billed together, on each judge's
`(item criteria)` line.

Prompt caching (docs/guides/prompt-caching.md): when an item's calls to a judge share a prefix
(the run's own rule, `prompt_caching.shares_prefix`), the first call sent is billed as writing
the prefix (Anthropic: at the cache-write price; implicit providers: at the input price) and
every other one as reading it (the cache-read price), with litellm's prices for both.
`prompt_tokens` stays the whole prompt; `cached_prompt_tokens` / `cache_write_tokens` say how
much of it is estimated to be read from / written to the provider's cache.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.experiment.bill import ITEM_CRITERIA, Bill, CallBill, PrefixBill
from autorubric_cli.experiment.dry_run_cascade import cascade_bill
from autorubric_cli.experiment.few_shot_labels import experiment_examples
from autorubric_cli.experiment.flags import resumed_config, with_switches
from autorubric_cli.experiment.lifecycle import pending_items, recorded
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.options import RunOptions, SessionFlags
from autorubric_cli.experiment.preflight import preflight
from autorubric_cli.experiment.shard import planned_items
from autorubric_cli.experiment.store import ReadIssues
from autorubric_cli.grading.few_shot import criterion_examples
from autorubric_cli.grading.grader import per_item_builder, shared_prefix_requests
from autorubric_cli.grading.per_item import ItemRequestBuilder
from autorubric_cli.grading.requests import RequestBuilder
from autorubric_cli.grading.reuse import VoteKey, reusable_votes
from autorubric_cli.judges.cache import CallCache, cache_path
from autorubric_cli.judges.pairs import PairRequest
from autorubric_cli.judges.policy.preflight import print_warnings
from autorubric_cli.judges.policy.providers import dialects
from autorubric_cli.judges.pricing import known_unpriced
from autorubric_cli.judges.prompt_caching import (
    caching_kind,
    min_prefix_tokens,
    provider_of,
    shares_schema,
)
from autorubric_cli.judges.replies import REPLY_FIELDS, response_format, with_affected
from autorubric_cli.judges.request import Call, CallRequest, VoteRequest
from autorubric_cli.judges.request_key import request_key
from autorubric_cli.judges.samples import sample_groups
from autorubric_cli.judges.transports.litellm import load_litellm
from autorubric_cli.judges.transports.simulated import is_simulated

EXPLANATION_WORDS = 60
IMPLICIT_STEP = {"openai": 128, "azure": 128}
"""Providers that cache a prefix in steps of this many tokens (OpenAI: 128)."""
Reused = Collection[VoteKey]
"""The (criterion, judge id, sample) votes an item reuses from its earlier record."""
JudgeCall = tuple[str, str, CallBill]
Prefixed = TypeVar("Prefixed", VoteRequest, PairRequest)  # a call with a shared prefix
"""A call's judge id, the criterion line it is billed on, and its bill."""


def first_call(spec: JudgeSpec, request: CallRequest) -> Call:
    """The call the run sends first for `request`: its schema for this judge, the judge's
    first structured-output dialect (a run that switches after a refusal sends others)."""
    schema = request.response_format(shares_schema(spec))
    return Call(request.messages, schema, request, dialects(spec)[0])


def reply_schema(spec: JudgeSpec, request: CallRequest) -> dict[str, Any]:
    """The largest reply a call can get: a per-criterion call fills its own fields (those of
    its kind's schema) and, under the shared schema, sets the other fields to null."""
    if not isinstance(request, VoteRequest):
        schema: dict[str, Any] = request.response_format(False)["json_schema"]["schema"]
        return schema
    own_format = response_format(request.option_count, request.elicitation)
    if request.names_criteria:
        own_format = with_affected(own_format)
    own = own_format["json_schema"]["schema"]
    if not shares_schema(spec):
        return dict(own)
    nulls = {f: {"const": None} for f in REPLY_FIELDS if f not in own["properties"]}
    return {**own, "properties": {**own["properties"], **nulls}}


def example_value(schema: dict[str, Any]) -> Any:
    """The largest instance of a reply schema (enum: its longest value; arrays: full)."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return max(schema["enum"], key=lambda value: len(json.dumps(value)))
    kind = schema.get("type")
    if kind == "object":
        return {name: example_value(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        size, items = schema.get("maxItems", 1), schema.get("items", {})
        alternatives = items.get("anyOf") or []
        if len(alternatives) == size:  # a per-item reply: one entry per criterion asked
            return [example_value(entry) for entry in alternatives]
        return [example_value(items) for _ in range(size)]
    if kind == "integer":
        return schema.get("maximum", 1)
    return " ".join(["word"] * EXPLANATION_WORDS)


@dataclass
class Estimator:
    """Token counts and prices through litellm, memoized per (model, schema)."""

    litellm: Any = field(default_factory=load_litellm)
    completions: dict[tuple[str, str], int] = field(default_factory=dict)

    def prompt_tokens(self, spec: JudgeSpec, messages: list[dict[str, str]]) -> int:
        return int(self.litellm.token_counter(model=spec.model, messages=messages))

    def completion_tokens(self, spec: JudgeSpec, schema: dict[str, Any]) -> int:
        text = json.dumps(example_value(schema))
        key = (spec.model, text)
        if key not in self.completions:
            self.completions[key] = int(self.litellm.token_counter(model=spec.model, text=text))
        tokens = self.completions[key]
        return tokens if spec.max_tokens is None else min(tokens, spec.max_tokens)

    def cost(
        self, spec: JudgeSpec, prompt: int, completion: int, prefix: PrefixBill = PrefixBill()
    ) -> float | None:
        if is_simulated(spec.model):
            return 0.0
        if known_unpriced(spec.model):
            return None  # registered at a zero price by judges/pricing.py: still unpriced
        usage = self.litellm.Usage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            prompt_tokens_details={"cached_tokens": prefix.read},
            cache_read_input_tokens=prefix.read,
            cache_creation_input_tokens=prefix.written,
        )
        try:
            costs = self.litellm.cost_per_token(model=spec.model, usage_object=usage)
        except Exception:  # litellm raises for a model it cannot price
            return None
        return float(sum(costs))

    def prefix_tokens(self, spec: JudgeSpec, request: VoteRequest | PairRequest) -> int:
        """The tokens of a request's shared prefix (system prompt and the user message's
        first part), as the provider would cache it (OpenAI: in 128-token steps)."""
        prefix = request.messages[1]["content"][: request.prefix_chars]
        messages = [request.messages[0], {"role": "user", "content": prefix}]
        tokens = self.prompt_tokens(spec, messages)
        if tokens < min_prefix_tokens(spec.model):
            return 0
        step = IMPLICIT_STEP.get(provider_of(spec.model), 1)
        return tokens - tokens % step


@dataclass(frozen=True)
class Pricing:
    """What pricing a call needs: the token counter and the read-only call cache."""

    estimator: Estimator
    cache: CallCache | None

    def served(self, spec: JudgeSpec, request: CallRequest) -> bool:
        """The call cache would answer this call (simulated judges are never cached)."""
        if self.cache is None or is_simulated(spec.model):
            return False
        return bool(self.cache.get(request_key(spec, first_call(spec, request))))

    def call(
        self,
        spec: JudgeSpec,
        request: CallRequest,
        hit: bool,
        prefix: PrefixBill = PrefixBill(),
        choices: int = 1,
    ) -> CallBill:
        """One call's bill: free when the cache serves it; `choices`: the samples it asks for
        together (the prompt billed once, a reply for each)."""
        if hit:
            return CallBill(hit=True, prefix=prefix)
        prompt = self.estimator.prompt_tokens(spec, request.messages)
        completion = self.estimator.completion_tokens(spec, reply_schema(spec, request)) * choices
        cost = self.estimator.cost(spec, prompt, completion, prefix)
        return CallBill(False, prompt, completion, cost, prefix)


def criteria_calls(
    pricing: Pricing, spec: JudgeSpec, asked: list[tuple[str, Prefixed]]
) -> list[tuple[str, CallBill]]:
    """An item's per-criterion calls to one judge (or a comparison's calls in one order), as
    the run sends them: a cached call is free, samples asked together are one request
    (judges/samples.py); the first request sent writes the shared prefix, the others read it
    (when the run would share it)."""
    hits = [pricing.served(spec, request) for _, request in asked]
    out = [(c, pricing.call(spec, r, True)) for (c, r), hit in zip(asked, hits, strict=True) if hit]
    line = {id(r): c for c, r in asked}
    groups = sample_groups(spec, [r for (_, r), hit in zip(asked, hits, strict=True) if not hit])
    heads = shared_prefix_requests(spec, [group[0] for group in groups])
    tokens = 0
    if heads and heads[0].prefix_chars is not None:
        tokens = pricing.estimator.prefix_tokens(spec, heads[0])
    prefixes = prefix_bills(tokens, len(groups), caching_kind(spec) == "explicit")
    return out + [
        (line[id(group[0])], pricing.call(spec, head, False, prefix, len(group)))
        for head, group, prefix in zip(heads, groups, prefixes, strict=True)
    ]


def prefix_bills(tokens: int, calls: int, explicit: bool) -> list[PrefixBill]:
    """Per call sent: the first writes the prefix (billed as a write only by explicit
    caching), every later one reads it."""
    if not tokens:
        return [PrefixBill()] * calls
    first = PrefixBill(written=tokens if explicit else 0)
    return [first, *[PrefixBill(tokens)] * (calls - 1)][:calls]


@dataclass(frozen=True)
class ItemCalls:
    """How the run would ask about an item: per criterion (`builder`) or per item."""

    rubric: Rubric
    builder: RequestBuilder
    per_item: ItemRequestBuilder | None

    def calls(self, pricing: Pricing, item: Item, reuse: Reused) -> list[JudgeCall]:
        """(judge id, criterion line, bill) of each call the item needs (its criteria: the
        file's, then its own, billed on the `ITEM_CRITERIA` line); `reuse`: votes kept."""
        criteria = self.rubric.for_item(item.rubric).criteria
        own = {c.name for c in item.rubric}
        out: list[JudgeCall] = []
        for spec in self.rubric.grader.judges:
            if self.per_item is None:
                asked = [
                    (c.name, self.builder.request(item, c, spec.judge_id, sample))
                    for c in criteria
                    for sample in range(spec.samples)
                    if (c.name, spec.judge_id, sample) not in reuse
                ]
                calls = criteria_calls(pricing, spec, asked)
            else:
                calls = item_calls(pricing, self.per_item, criteria, spec, item, reuse)
            out += [
                (spec.judge_id, ITEM_CRITERIA if name in own else name, call)
                for name, call in calls
            ]
        return out


def item_calls(
    pricing: Pricing,
    per_item: ItemRequestBuilder,
    criteria: list[Criterion],
    spec: JudgeSpec,
    item: Item,
    reuse: Reused,
) -> list[tuple[str, CallBill]]:
    """One call per sample asking every criterion not reused, billed on the line of the
    first (like the records, docs/guides/per-item.md)."""
    out: list[tuple[str, CallBill]] = []
    for sample in range(spec.samples):
        needed = [c for c in criteria if (c.name, spec.judge_id, sample) not in reuse]
        if needed:
            request = per_item.request(item, needed, judge_id=spec.judge_id, sample=sample)
            out.append((needed[0].name, pricing.call(spec, request, pricing.served(spec, request))))
    return out


def estimate_bill(
    rubric: Rubric,
    items: Iterable[Item],
    *,
    seed: int,
    base_dir: Path | None,
    cache: CallCache | None,
    priors: dict[str, ItemRecord] | None = None,
) -> Bill:
    """The docs/guides/cache-and-cost.md bill of grading `items`; votes reused from `priors`
    are not calls."""
    examples = experiment_examples(rubric, base_dir)
    builder = RequestBuilder(rubric, seed, criterion_examples(rubric, seed, base_dir, examples))
    asking = ItemCalls(rubric, builder, per_item_builder(rubric, seed, base_dir, examples))
    pricing = Pricing(Estimator(), cache)
    priors = priors or {}
    bill = Bill.empty(rubric)
    for item in items:
        reuse = reusable_votes(priors.get(item.id))
        for judge_id, criterion, call in asking.calls(pricing, item, reuse):
            bill.add(judge_id, criterion, call)
    return bill


def open_readonly_cache(rubric: Rubric, cache_dir: Path | None) -> CallCache | None:
    return CallCache(cache_path(cache_dir), readonly=True) if rubric.grader.cache else None


def dry_run_start(rubric_path: Path, dataset_path: Path, options: RunOptions) -> dict[str, Any]:
    """The bill of `run` with these options; validates like `run`, creates nothing."""
    plan = preflight(rubric_path, dataset_path, options)  # refuses exactly what `run` refuses
    print_warnings(plan.warnings)
    rubric, fields = plan.rubric, plan.fields
    items = planned_items(dataset_path, rubric, fields, options.limit, plan.shard)
    cache = open_readonly_cache(rubric, options.cache_dir)
    try:
        bill = estimate_bill(
            rubric, items, seed=rubric.grader.seed, base_dir=rubric_path.parent, cache=cache
        )
        return cascade_bill(bill.to_json(), rubric.grader.cascade, options.escalation_rate)
    finally:
        if cache is not None:
            cache.close()


def dry_run_resume(
    directory: Path, *, retry_errors: bool, cache: bool, cache_dir: Path | None
) -> dict[str, Any]:
    """The bill of `resume` with these flags; reads the experiment, writes nothing."""
    experiment = open_experiment(directory)
    manifest = experiment.manifest
    config, _ = resumed_config(experiment, SessionFlags())
    rubric = experiment.rubric.model_copy(update={"grader": with_switches(config, cache=cache)})
    done, priors = recorded(directory, retry_errors, ReadIssues(), rubric.criteria)
    items = pending_items(Path(manifest.dataset.path), rubric, manifest, done)
    call_cache = open_readonly_cache(rubric, cache_dir)
    try:
        bill = estimate_bill(
            rubric,
            items,
            seed=manifest.seed,
            base_dir=Path(manifest.rubric.path).parent,
            cache=call_cache,
            priors=priors,
        )
        return cascade_bill(bill.to_json(), rubric.grader.cascade, None)
    finally:
        if call_cache is not None:
            call_cache.close()

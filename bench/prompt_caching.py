"""Benchmark: provider prompt caching across an item's criteria, and the spend cap.

Default: 200 items x 8 criteria (6 binary, 2 ordinal) x ~2,000-token submissions, one judge,
against the caching fakes (tests/support/prompt_cache.py: OpenAI's automatic prefix caching in
the OpenAI loopback server, Anthropic's breakpoints in the Anthropic Messages provider fake), with
litellm's real prices for `anthropic/claude-sonnet-4-5` and `openai/gpt-4.1-mini`. The fakes
count tokens with litellm's tokenizer for the model (as the dry run does). For each model it
runs `prompt_caching: auto` and `off` (same concurrency, no call cache) and prints:

- billed: what the provider bills for the run (input, cached input, cache writes, output), from
  the usage the fake sent back, priced by litellm; `ratio` = billed / the same calls with no
  cached tokens (targets: <= 0.40 Anthropic, <= 0.50 OpenAI);
- recorded: the cost the run records in items.jsonl (must equal billed);
- verdicts identical to `off`; wall time auto / off (target within 10%, median of --runs);
- the dry-run estimate / billed, with and without caching (target within 5%);
- a `--max-cost` stop at half the auto bill, then `resume` with a higher cap: where it stopped
  (cap - paid; within one call's cost), calls sent in total, and items graded twice (must be 0).

`--workload conversation` grades agent transcripts of the same size instead (system, user, a
reasoning turn with two tool calls, their results, the answer): the transcript is the shared
prefix, so the savings must match the text workload's. `--workload per-item` grades items that
carry their own 8 criteria (6 in HealthBench's `{criterion, points, tags}` form, 2 ordinal) and
a conversation `context` before a text submission, of the same size, against a rubric file with
no criteria (docs/guides/per-item-rubrics.md): the transcript (context, then the submission) is
the item's shared prefix, so the savings must match too.

    python -m bench.prompt_caching [--items 200] [--latency 0.05] [--concurrency 64] [--runs 1]
        [--workload text|conversation|per-item] [--samples 3]

`--samples 3` instead compares, for the OpenAI model with caching on, `samples: 3` asked in one
request (`n`) against three requests: requests, billed tokens and USD, and wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ["LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS"] = "true"  # no fetch at the first call

import tests.support.judge_server as judge_server  # noqa: E402
import tests.support.judge_server.chat as judge_server_chat  # noqa: E402
import tests.support.providers.wire as provider_wire  # noqa: E402
from autorubric_cli.errors import BudgetStop, InputError  # noqa: E402
from autorubric_cli.experiment.dry_run import EXPLANATION_WORDS, dry_run_start  # noqa: E402
from autorubric_cli.experiment.session import RunOptions, resume_run, start_run  # noqa: E402
from autorubric_cli.judges.replies import REPLY_FIELDS  # noqa: E402
from autorubric_cli.judges.transports.litellm import load_litellm  # noqa: E402
from tests.support.prompt_cache import AnthropicPromptCache, OpenAIPromptCache  # noqa: E402
from tests.support.providers.anthropic import AnthropicFake  # noqa: E402

KEY_ENV = "AUTORUBRIC_BENCH_KEY"
MODELS = {"anthropic": "anthropic/claude-sonnet-4-5", "openai": "openai/gpt-4.1-mini"}
TARGETS = {"anthropic": 0.40, "openai": 0.50}
WORDS = str.split(
    "the battery cell stores energy in its cathode and anode while the electrolyte moves "
    "ions between them during charge and discharge cycles at a given rate"
)


def tokenizer(model: str) -> Any:
    litellm = load_litellm()
    return lambda text: litellm.encode(model=model, text=text)


def filler(i: int, words: int, offset: int = 0) -> str:
    return " ".join(WORDS[(i * 7 + offset + k) % len(WORDS)] for k in range(words))


def agent_run(i: int) -> list[dict[str, Any]]:
    """A ~1,900-word agent transcript: system, user, a reasoning turn calling two tools, their
    results, and the final answer (the `conversation` workload)."""
    calls = [
        {
            "id": f"c{i}-{k}",
            "type": "function",
            "function": {"name": f"tool_{k}", "arguments": json.dumps({"q": filler(i, 20, k)})},
        }
        for k in range(2)
    ]
    return [
        {"role": "system", "content": f"You are agent {i}. {filler(i, 200)}"},
        {"role": "user", "content": f"Question {i}? {filler(i, 300, 1)}"},
        {"role": "assistant", "content": None, "reasoning": filler(i, 200, 2), "tool_calls": calls},
        *({"role": "tool", "tool_call_id": c["id"], "content": filler(i, 300, 3)} for c in calls),
        {"role": "assistant", "content": f"Answer {i}. {filler(i, 560, 4)}"},
    ]


def write_inputs(directory: Path, items: int, workload: str = "text") -> tuple[Path, Path]:
    data = directory / "data.jsonl"
    with data.open("w") as handle:
        for i in range(items):
            submission: Any = f"Answer {i}. {filler(i, 1900)}"
            if workload == "conversation":
                submission = agent_run(i)
            row = {"id": f"q{i}", "submission": submission, "query": f"Question {i}?"}
            if workload == "per-item":
                row = {**row, **own_criteria(i), "submission": f"Answer {i}. {filler(i, 900)}"}
            handle.write(json.dumps(row) + "\n")
    return directory / "rubric.yaml", data


ORDINAL = [
    {"label": "Poor", "value": 0},
    {"label": "Fair", "value": 0.5},
    {"label": "Good", "value": 1},
]


def own_criteria(i: int) -> dict[str, Any]:
    """Item i's context (~1,000 words over three turns) and its own 8 criteria (the
    `per-item` workload): 6 binary in HealthBench's form, 2 ordinal in ours."""
    context = [
        {"role": "user", "content": f"Question {i}? {filler(i, 850, 5)}"},
        {"role": "assistant", "content": f"Let me ask first. {filler(i, 100, 6)}"},
        {"role": "user", "content": f"Here is more. {filler(i, 50, 7)}"},
    ]
    binary = [
        {
            "criterion": f"The answer states fact number {k} of question {i} correctly",
            "points": -5 if k == 5 else k + 1,
            "tags": [f"axis:a{k % 3}"],
        }
        for k in range(6)
    ]
    ordinal = [
        {
            "name": f"o{k}",
            "requirement": f"How good is aspect {k} of answer {i}?",
            "options": ORDINAL,
        }
        for k in range(2)
    ]
    return {"context": context, "rubric": binary + ordinal}


def rubric_text(
    model: str,
    api_base: str,
    caching: str,
    concurrency: int,
    workload: str = "text",
    extra: str = "",
) -> str:
    binary = "\n".join(
        f'  - {{name: b{k}, requirement: "The answer states fact number {k} correctly"}}'
        for k in range(6)
    )
    ordinal = "\n".join(
        f"""  - name: o{k}
    requirement: "How good is aspect {k} of the answer?"
    options: [{{label: Poor, value: 0}}, {{label: Fair, value: 0.5}}, {{label: Good, value: 1}}]"""
        for k in range(2)
    )
    criteria = " []" if workload == "per-item" else f"\n{binary}\n{ordinal}"
    return f"""criteria:{criteria}
grader:
  judges:
    - {{model: {model}, id: judge, api_base: "{api_base}", api_key_env: {KEY_ENV},
        prompt_caching: {caching}, max_concurrency: {concurrency}{extra}}}
  concurrency: {concurrency}
  adaptive_concurrency: false
  workers: 0
  seed: 1
  timeout: 60
"""


def billed(litellm: Any, model: str, usage: dict[str, int], cached: bool = True) -> float:
    """What the provider bills for one reply's usage (input, cache read/write, output)."""
    read = usage.get("cache_read_input_tokens", usage.get("cached_tokens", 0)) if cached else 0
    written = usage.get("cache_creation_input_tokens", 0) if cached else 0
    prompt = usage.get("prompt_tokens")
    if prompt is None:  # Anthropic's input_tokens exclude the cache read and write
        prompt = usage["input_tokens"] + usage.get("cache_read_input_tokens", 0)
        prompt += usage.get("cache_creation_input_tokens", 0)
    completion = usage.get("completion_tokens", usage.get("output_tokens", 0))
    counted = litellm.Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        prompt_tokens_details={"cached_tokens": read},
        cache_read_input_tokens=read,
        cache_creation_input_tokens=written,
    )
    return float(sum(litellm.cost_per_token(model=model, usage_object=counted)))


def records(directory: Path) -> list[dict[str, Any]]:
    lines = (directory / "items.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def verdicts(directory: Path) -> dict[tuple[str, str], Any]:
    return {
        (r["id"], c["name"]): [(v["verdict"], v["option_index"]) for v in c["votes"]]
        for r in records(directory)
        for c in r["criteria"]
    }


def verbose(answer: str) -> str:
    """A fake's answer with an explanation of `EXPLANATION_WORDS` words, the length the dry
    run assumes (a judge's one or two sentences), and every field of the shared schema (a
    strict structured output has them all: the unasked ones null); the verdict is unchanged."""
    reply = json.loads(answer)
    reply["explanation"] = " ".join(["because"] * EXPLANATION_WORDS)
    for name in REPLY_FIELDS:
        reply.setdefault(name, None)
    return json.dumps(reply)


def fresh_cache(server: Any, provider: str, model: str) -> None:
    """Every run starts with an empty provider cache (no run reads another's entries)."""
    if provider == "anthropic":
        server.prompt_cache = AnthropicPromptCache(tokenize=tokenizer(model))
    else:
        server.prompt_cache = OpenAIPromptCache(tokenizer(model))


@contextlib.contextmanager
def server_for(provider: str, model: str, latency: float) -> Iterator[Any]:
    tokenize = tokenizer(model)
    count = lambda text: max(1, len(tokenize(text)))  # noqa: E731
    judge_server_chat.word_tokens = count  # the fakes bill tokens as litellm counts them
    provider_wire.word_tokens = count
    server: Any
    if provider == "anthropic":
        cache = AnthropicPromptCache(tokenize=tokenize)
        server = AnthropicFake(latency=latency, prompt_cache=cache)
        server.answer = lambda messages, schema: verbose(provider_wire.answer_for(messages, schema))
    else:
        server = judge_server.JudgeServer(latency=latency, prompt_cache=OpenAIPromptCache(tokenize))
        server.answer = lambda body: verbose(judge_server.default_answer(body))
    with server:
        yield server


def run_once(
    server: Any,
    work: Path,
    data: Path,
    name: str,
    caching: str,
    args: argparse.Namespace,
    extra: str = "",
    **kw: Any,
) -> tuple[Path, float, float]:
    """(experiment directory, wall seconds, billed USD) of one run; `extra`: judge keys."""
    model = MODELS[args.provider]
    rubric = work / f"{name}.yaml"
    text = rubric_text(model, server.api_base, caching, args.concurrency, args.workload, extra)
    rubric.write_text(text)
    out = work / name
    server.reset()
    fresh_cache(server, args.provider, model)
    started = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(BudgetStop):
        start_run(rubric, data, RunOptions(out=out, grace_s=60.0, **kw))
    wall = time.perf_counter() - started
    litellm = load_litellm()
    bill = sum(billed(litellm, model, r.usage or {}) for r in server.requests)
    return out, wall, bill


def bench(args: argparse.Namespace) -> None:
    litellm = load_litellm()
    model = MODELS[args.provider]
    os.environ[KEY_ENV] = "bench-key"
    with tempfile.TemporaryDirectory() as tmp, server_for(args.provider, model, args.latency) as s:
        work = Path(tmp)
        _, data = write_inputs(work, args.items, args.workload)
        walls: dict[str, list[float]] = {"auto": [], "off": []}
        for run in range(args.runs):
            for caching in ("auto", "off"):
                out, wall, bill = run_once(
                    s, work, data, f"{caching}{run}", caching, args, cache=False
                )
                walls[caching].append(wall)
                if run == 0 and caching == "auto":
                    auto_dir, auto_bill = out, bill
                    no_cache = sum(billed(litellm, model, r.usage or {}, False) for r in s.requests)
                    calls_auto = len(s.requests)
                    largest = max(billed(litellm, model, r.usage or {}) for r in s.requests)
                if run == 0 and caching == "off":
                    off_dir, off_bill = out, bill
        recorded = sum(r["cost"] or 0.0 for r in records(auto_dir))
        same = verdicts(auto_dir) == verdicts(off_dir)
        estimates = {}
        for caching in ("auto", "off"):
            rubric = work / f"{caching}0.yaml"
            with contextlib.redirect_stderr(io.StringIO()):
                estimates[caching] = dry_run_start(rubric, data, RunOptions(cache=False))
        print(
            f"{args.provider}: {model}, {args.items} {args.workload} items x 8 criteria, "
            f"{calls_auto} calls"
        )
        print(f"  billed with caching      ${auto_bill:.4f}")
        print(f"  same calls, no cache     ${no_cache:.4f}")
        ratio = auto_bill / no_cache
        target = TARGETS[args.provider]
        print(f"  billed ratio             {ratio:.3f}  (target <= {target:.2f})")
        print(f"  billed with caching: off ${off_bill:.4f}")
        equal = abs(recorded - auto_bill) < 1e-9
        print(f"  recorded cost            ${recorded:.4f}  (== billed: {equal})")
        print(f"  verdicts identical to off: {same}")
        auto_wall, off_wall = statistics.median(walls["auto"]), statistics.median(walls["off"])
        print(
            f"  wall time auto {auto_wall:.2f}s / off {off_wall:.2f}s = {auto_wall / off_wall:.3f}"
            f"  (median of {args.runs}; target <= 1.10)"
        )
        for caching, bill in (("auto", auto_bill), ("off", off_bill)):
            estimate = estimates[caching]["cost_estimate"]
            print(
                f"  dry-run estimate {caching:4} ${estimate:.4f} / billed = {estimate / bill:.3f}"
            )
        cap = round(auto_bill / 2, 4)
        calls = work / "call-cache"  # the call cache keeps what the stopped run paid for
        out, _, first_bill = run_once(
            s, work, data, "capped", "auto", args, max_cost=cap, cache_dir=calls
        )
        stopped = records(out)
        first_calls = len(s.requests)
        s.reset()
        with contextlib.redirect_stderr(io.StringIO()):
            try:
                resume_run(
                    out,
                    retry_errors=False,
                    concurrency=None,
                    max_cost=auto_bill * 2,
                    cache_dir=calls,
                )
            except (BudgetStop, InputError) as exc:
                print(f"  resume failed: {exc}")
        second_calls = len(s.requests)
        second_bill = sum(billed(litellm, model, r.usage or {}) for r in s.requests)
        ids = [r["id"] for r in records(out)]
        manifest = json.loads((out / "manifest.json").read_text())
        print(
            f"  --max-cost ${cap:.4f}: stopped after {len(stopped)} items, billed "
            f"${first_bill:.4f} (cap - billed = ${cap - first_bill:.4f}; the dearest call "
            f"${largest:.4f})"
        )
        print(
            f"  resume --max-cost ${auto_bill * 2:.4f}: {manifest['status']}, "
            f"{len(set(ids))}/{args.items} items, graded twice: {len(ids) - len(set(ids))}, "
            f"calls {first_calls} + {second_calls} (uncapped run: {calls_auto}), "
            f"billed ${first_bill + second_bill:.4f}"
        )


def tokens_billed(requests: list[Any]) -> tuple[int, int, int]:
    """(prompt, of which read from the provider's cache, completion) tokens the fake billed."""
    prompt = sum((r.usage or {}).get("prompt_tokens", 0) for r in requests)
    read = sum((r.usage or {}).get("cached_tokens", 0) for r in requests)
    completion = sum((r.usage or {}).get("completion_tokens", 0) for r in requests)
    return prompt, read, completion


def compare_samples(args: argparse.Namespace) -> None:
    """`samples: N` asked in one request (`n`) against N requests, both with prompt caching
    on: requests, billed tokens and USD, wall time (median of --runs, runs alternating)."""
    model = MODELS["openai"]
    args = argparse.Namespace(**{**vars(args), "provider": "openai"})
    os.environ[KEY_ENV] = "bench-key"
    with tempfile.TemporaryDirectory() as tmp, server_for("openai", model, args.latency) as s:
        work = Path(tmp)
        _, data = write_inputs(work, args.items, args.workload)
        walls: dict[str, list[float]] = {"one": [], "separate": []}
        seen: dict[str, tuple[int, float, tuple[int, int, int]]] = {}
        for run in range(args.runs):
            for mode in walls:
                extra = f", samples: {args.samples}, sample_request: {mode}"
                _, wall, bill = run_once(
                    s, work, data, f"{mode}{run}", "auto", args, extra=extra, cache=False
                )
                walls[mode].append(wall)
                seen[mode] = (len(s.requests), bill, tokens_billed(s.requests))
        estimates = {}
        for mode in walls:
            with contextlib.redirect_stderr(io.StringIO()):
                bill = dry_run_start(work / f"{mode}0.yaml", data, RunOptions(cache=False))
            estimates[mode] = (bill["calls"]["to_send"], bill["cost_estimate"])
    print(f"openai: {model}, {args.items} items x 8 criteria, samples {args.samples}, caching on")
    for mode, times in walls.items():
        calls, bill, (prompt, read, completion) = seen[mode]
        sent, estimate = estimates[mode]
        print(
            f"  {mode:8} {calls} requests, billed {prompt:,} prompt tokens ({read:,} cached) + "
            f"{completion:,} completion = ${bill:.4f}; wall median "
            f"{statistics.median(times):.2f}s (runs: {', '.join(f'{t:.2f}' for t in times)}); "
            f"dry run: {sent} requests, ${estimate:.4f} = {estimate / bill:.3f} of billed"
        )
    one, separate = seen["one"], seen["separate"]
    wall = statistics.median(walls["one"]) / statistics.median(walls["separate"])
    print(
        f"  one/separate: USD {one[1] / separate[1]:.3f}, prompt tokens "
        f"{one[2][0] / separate[2][0]:.3f}, wall {wall:.2f}"
    )
    print("  anthropic: one request a sample (it returns one choice per request)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", choices=sorted(MODELS), action="append")
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--workload",
        choices=["text", "conversation", "per-item"],
        default="text",
        help="submissions: ~2,000-token texts, agent transcripts of the same size, or items "
        "with their own criteria and a context of the same size",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=0,
        help="only compare `samples: N` in one request against N requests (OpenAI)",
    )
    args = parser.parse_args()
    if args.samples:
        compare_samples(args)
        return
    for provider in args.provider or ["anthropic", "openai"]:
        bench(argparse.Namespace(**{**vars(args), "provider": provider}))


if __name__ == "__main__":
    main()

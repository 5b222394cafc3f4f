"""Benchmark: a calibrated judge cascade against asking the strong judge everything.

The workload (docs/guides/cascades.md, "When it pays"): 1,000 items x 6 binary criteria with
ground truth. The cheap judge is simulated at accuracy 0.85 with hard items (`hard_share: 0.3`,
`hard_accuracy: 0.5`), `samples: 3` asked in one request; the strong one at accuracy 0.95
(`hard_share: 0.3`, `hard_accuracy: 0.85`), one sample. Every simulated judge finds the same
pairs hard. Simulated judges are free, so every vote is priced from its recorded token counts
(words) with litellm's price table: the cheap judge as gpt-4.1-nano, the strong one as
claude-sonnet-4-5. Then:

1. the two plain runs (cheap only, strong only) are calibrated per criterion with `cascade
   calibrate`'s function at the target agreement with the strong judge (and with one threshold,
   for comparison);
2. a live cascade with the recommended thresholds is run and priced; its escalations and
   outcomes must equal the replay's;
3. printed: the cascade's cost as a share of the all-strong run's (target <= 0.35 at >= 0.95
   agreement), and with provider discounts (batch prices, and each item's shared prefix read
   from the provider's prompt cache, as each provider bills it) against a naive all-strong
   per-criterion run without them (target <= 0.10);
4. the floors no escalation rule over this first stage can beat, with the arithmetic;
5. the `autorubric` library's own per-criterion calibration (`calibrate_escalation`), run
   offline on the same records in a throwaway venv (bench/library_cascade_driver.py), its
   thresholds replayed here for their cost and agreement.

Prompt caching is priced as the providers bill it (judges/prompt_caching.py): only a prefix of at
least the provider's minimum (1,024 tokens) shared by two or more calls of an item to a judge
is cached. OpenAI (the cheap judge) caches on its own and bills a read at its cached-input
price; Anthropic (the strong judge) bills the first call's prefix as a cache write (1.25x) and
the later ones as reads (0.1x). Batch prices are the price table's (half the list prices).

    python -m bench.cascade [--items 1000] [--words 1200] [--target 0.95]
        [--sample-request one|separate] [--library-python /tmp/arlib/bin/python]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import yaml

from autorubric_cli import api
from autorubric_cli.core.items import Item, Submission
from autorubric_cli.core.outcome import outcome_label
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.grading.calibrate import Pair, ThresholdEntry, threshold_entry
from autorubric_cli.grading.requests import RequestBuilder
from autorubric_cli.judges.price_table import price_table
from autorubric_cli.judges.prompt_caching import (
    PROVIDER_CACHING,
    min_prefix_tokens,
    provider_of,
)
from autorubric_cli.report.calibrate import Calibration, calibrate_experiments, latest_pairs

MODELS = {"cheap": "openai/gpt-4.1-nano", "strong": "anthropic/claude-sonnet-4-5"}
CRITERIA = [
    ("cites_figures", "States the cell's energy density with a figure and a unit"),
    ("compares", "Compares at least two chemistries on the same property"),
    ("safety", "Mentions a thermal-runaway or safety consideration"),
    ("cost", "Discusses cost per kWh"),
    ("sources", "Names a source for a numeric claim"),
    ("wrong_claim", "Claims LFP has higher gravimetric energy density than NMC"),
]
VOCABULARY = [
    "cell",
    "cathode",
    "anode",
    "energy",
    "density",
    "cost",
    "safety",
    "cycle",
    "life",
    "voltage",
]
TARGET_COST, TARGET_DISCOUNTED = 0.35, 0.10
LIBRARY_PYTHON = "/tmp/arlib/bin/python"


@dataclass(frozen=True)
class Price:
    """USD per token of one judge's model: list and batch prices, and its prompt caching."""

    model: str
    input: float
    output: float
    read: float  # a cached input token
    write: float  # an input token written to an explicit cache (Anthropic)
    batch: float  # batch price / list price
    caching: str | None  # "explicit", "implicit" or None

    @classmethod
    def of(cls, model: str) -> Price:
        entry = price_table()[model.split("/", 1)[1]]
        base = entry["input_cost_per_token"]
        return cls(
            model=model,
            input=base,
            output=entry["output_cost_per_token"],
            read=entry.get("cache_read_input_token_cost", base),
            write=entry.get("cache_creation_input_token_cost", base),
            batch=entry.get("input_cost_per_token_batches", base) / base,
            caching=PROVIDER_CACHING.get(provider_of(model)),
        )

    def list_cost(self, usage: dict[str, int]) -> float:
        return usage.get("prompt_tokens", 0) * self.input + (
            usage.get("completion_tokens", 0) * self.output
        )


def judges(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    cheap_params = {"accuracy": args.cheap_accuracy, "hard_share": args.hard_share}
    cheap_params["hard_accuracy"] = args.cheap_hard_accuracy
    strong_params = {"accuracy": args.strong_accuracy, "hard_share": args.hard_share}
    strong_params["hard_accuracy"] = args.strong_hard_accuracy
    cheap = {"model": "simulated/cheap", "id": "cheap", "samples": 3, "params": cheap_params}
    cheap["sample_request"] = args.sample_request
    return {
        "cheap": cheap,
        "strong": {"model": "simulated/strong", "id": "strong", "params": strong_params},
    }


def write_inputs(directory: Path, args: argparse.Namespace) -> None:
    rng = random.Random(7)
    with (directory / "data.jsonl").open("w") as handle:
        for i in range(args.items):
            text = " ".join(rng.choice(VOCABULARY) for _ in range(args.words))
            truth = {name: rng.choice(["MET", "UNMET"]) for name, _ in CRITERIA}
            line = {"id": f"q{i:05d}", "submission": text, "ground_truth": truth}
            handle.write(json.dumps(line) + "\n")
    criteria = [{"name": n, "requirement": r} for n, r in CRITERIA]
    found = judges(args)
    for name, judge in (("first", "cheap"), ("then", "strong")):
        grader = {"judges": [found[judge]], "concurrency": 256}
        (directory / f"{name}.yaml").write_text(
            yaml.safe_dump({"criteria": criteria, "grader": grader})
        )


def write_cascade(directory: Path, args: argparse.Namespace, thresholds: Any) -> Path:
    criteria = [{"name": n, "requirement": r} for n, r in CRITERIA]
    found = judges(args)
    grader = {"judges": [found["cheap"], found["strong"]], "concurrency": 256}
    grader["cascade"] = {"first": ["cheap"], "then": ["strong"], "escalate_below": thresholds}
    path = directory / "cascade.yaml"
    path.write_text(yaml.safe_dump({"criteria": criteria, "grader": grader}))
    return path


def records(directory: Path) -> list[ItemRecord]:
    return [
        ItemRecord.model_validate(orjson.loads(raw))
        for raw in (directory / "items.jsonl").read_bytes().splitlines()
    ]


def price_votes(directory: Path, prices: dict[str, Price]) -> None:
    """Rewrite items.jsonl with every vote priced from its token counts (simulated votes are
    free), so `calibrate` and the report see the cost the named models would have had. With
    `sample_request: one` a call's prompt sits on its first sample's vote, so it is priced once."""
    lines = []
    for record in records(directory):
        for criterion in record.criteria:
            for vote in criterion.votes:
                vote.cost = prices[vote.judge].list_cost(vote.usage)
        record.cost = math.fsum(v.cost or 0.0 for c in record.criteria for v in c.votes)
        lines.append(orjson.dumps(record.model_dump(mode="json")))
    (directory / "items.jsonl").write_bytes(b"\n".join(lines) + b"\n")


def prefix_tokens(directory: Path, words: int) -> int:
    """The shared prefix of a per-criterion call (system prompt + submission), in the simulated
    judge's tokens (words)."""
    experiment = open_experiment(directory)
    builder = RequestBuilder(experiment.rubric, 0, {})
    item = Item(id="x", index=0, line=1, submission=Submission(output=" ".join(["w"] * words)))
    system, prefix, _ = builder.parts(item, experiment.rubric.criteria[0], None)
    return len(system.split()) + len(prefix.split())


def discounted_cost(directory: Path, prices: dict[str, Price], prefix: int) -> float:
    """The run's cost at batch prices with provider prompt caching of each item's shared prefix
    (the module docstring says how each provider bills it). A call is a vote that carries
    prompt tokens (a call for several samples bills its prompt on its first one)."""
    total = 0.0
    for record in records(directory):
        by_judge: dict[str, list[dict[str, int]]] = {}
        for criterion in record.criteria:
            for vote in criterion.votes:
                by_judge.setdefault(vote.judge, []).append(vote.usage)
        for judge, usages in by_judge.items():
            total += item_judge_cost(prices[judge], usages, prefix)
    return total


def item_judge_cost(price: Price, usages: list[dict[str, int]], prefix: int) -> float:
    calls = sum(1 for u in usages if u.get("prompt_tokens", 0) > 0)
    cached = price.caching is not None and calls >= 2 and prefix >= min_prefix_tokens(price.model)
    cost, first = 0.0, True
    for usage in usages:
        prompt = usage.get("prompt_tokens", 0)
        cost += usage.get("completion_tokens", 0) * price.output
        if prompt == 0:
            continue
        shared = min(prefix, prompt) if cached else 0
        if first:
            head = price.write if price.caching == "explicit" else price.input
            cost += shared * head + (prompt - shared) * price.input
        else:
            cost += shared * price.read + (prompt - shared) * price.input
        first = False
    return cost * price.batch


def run(root: Path, name: str, rubric: Path) -> float:
    started = time.perf_counter()
    api.run(rubric, root / "data.jsonl", out=root / name, cache=False)
    return time.perf_counter() - started


def decisions(directory: Path) -> dict[tuple[str, str], tuple[bool, str]]:
    return {
        (record.id, c.name): (bool(c.escalated), outcome_label(c))
        for record in records(directory)
        for c in record.criteria
    }


def replay_decisions(pairs: list[Pair], fitted: dict[str, float]) -> dict[Any, Any]:
    from autorubric_cli.grading.calibrate import replayed_outcome

    names = [n for n, _ in CRITERIA]
    return {
        (p.item, names[p.criterion]): replayed_outcome(p, fitted[names[p.criterion]]) for p in pairs
    }


def oracle_floor(pairs: list[Pair], target: float) -> tuple[float, float, float]:
    """What no escalation rule over this first stage can beat: (the first stage's cost, the
    least share of pairs an oracle must escalate to reach `target` agreement with the all-strong
    outcome, the cost of that oracle cascade), costs as shares of the all-strong run's. The
    oracle sees the strong outcome and escalates only pairs where the first stage disagrees
    with it, the cheapest first; every real rule escalates at least those."""
    all_then = math.fsum(p.then_cost or 0.0 for p in pairs)
    first = math.fsum(p.first_cost or 0.0 for p in pairs)
    wrong = sorted(
        p.then_cost or 0.0 for p in pairs if outcome_label(p.first.outcome) != p.then_outcome
    )
    needed = max(0, math.ceil(target * len(pairs)) - (len(pairs) - len(wrong)))
    floor = first + math.fsum(wrong[:needed])
    return first / all_then, needed / len(pairs), floor / all_then


def library_runs(pairs: list[Pair], path: Path) -> None:
    """The two runs as bench/library_cascade_driver.py reads them."""
    names = [n for n, _ in CRITERIA]
    first = {r.id: r for r in records(path.parent / "first")}
    then = {r.id: r for r in records(path.parent / "then")}
    items = []
    for item_id, record in first.items():
        samples = {c.name: [str(v.verdict) for v in c.votes] for c in record.criteria}
        items.append(
            {
                "id": item_id,
                "truth": record.ground_truth,
                "samples": samples,
                "first": {c.name: outcome_label(c) for c in record.criteria},
                "then": {c.name: outcome_label(c) for c in then[item_id].criteria},
                "first_cost": record.cost or 0.0,
                "then_cost": then[item_id].cost or 0.0,
            }
        )
    path.write_text(json.dumps({"criteria": names, "items": items}))


def library_calibration(
    python: str, runs: Path, pairs: list[Pair], rules: Any
) -> tuple[dict[str, Any], ThresholdEntry] | None:
    """The library's chosen point, and our replay of its thresholds. Its confidence threshold t
    escalates a binary pair whose chosen share p has 2p - 1 < t, i.e. p < (t + 1) / 2."""
    if not Path(python).exists():
        return None
    driver = Path(__file__).with_name("library_cascade_driver.py")
    done = subprocess.run(
        [python, str(driver), str(runs)], capture_output=True, text=True, check=True
    )
    point = json.loads(done.stdout.splitlines()[-1])
    ours = {n: (point["threshold"] + 1) / 2 for n, _ in CRITERIA}
    ours.update({n: (t + 1) / 2 for n, t in (point["per_criterion"] or {}).items()})
    return point, threshold_entry(pairs, rules, ours)


def entry_line(label: str, entry: ThresholdEntry) -> str:
    thresholds = entry.per_criterion or {"all": entry.threshold}
    shown = ", ".join(f"{k} {v:.4g}" for k, v in thresholds.items())
    return (
        f"{label}: escalated {entry.escalation_rate:.3f}, agreement with all-strong "
        f"{entry.agreement_with_then:.4f}, with ground truth {entry.agreement_with_labels:.4f}, "
        f"cost {entry.cost_ratio:.3f} of all-strong; thresholds {shown}"
    )


def print_fits(calibration: Calibration) -> None:
    for fit in calibration.per_criterion or []:
        print(
            f"  {fit.name:<14} threshold {fit.threshold:.4g}  escalated "
            f"{fit.escalation_rate:.3f}  agreement {fit.agreement_with_then:.4f}  saved "
            f"${fit.saved:.4f} of ${fit.all_then_cost:.4f}"
        )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--words", type=int, default=1200, help="words per submission")
    parser.add_argument("--cheap-accuracy", type=float, default=0.85)
    parser.add_argument("--cheap-hard-accuracy", type=float, default=0.5)
    parser.add_argument("--strong-accuracy", type=float, default=0.95)
    parser.add_argument("--strong-hard-accuracy", type=float, default=0.85)
    parser.add_argument("--hard-share", type=float, default=0.3)
    parser.add_argument("--sample-request", default="one", choices=["one", "separate"])
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument("--library-python", default=LIBRARY_PYTHON)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    prices = {judge: Price.of(model) for judge, model in MODELS.items()}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_inputs(root, args)
        runs_s = sum(run(root, name, root / f"{name}.yaml") for name in ("first", "then"))
        for name in ("first", "then"):
            price_votes(root / name, prices)
        report(root, args, prices, runs_s)


def report(root: Path, args: argparse.Namespace, prices: dict[str, Price], runs_s: float) -> None:
    started = time.perf_counter()
    single = calibrate_experiments(root / "first", root / "then", args.target)
    fitted = calibrate_experiments(root / "first", root / "then", args.target, per_criterion=True)
    calibrate_s = time.perf_counter() - started
    print(
        f"{args.items} items x {len(CRITERIA)} criteria, {args.words}-word submissions; cheap "
        f"{MODELS['cheap']} x3 samples ({args.sample_request} request) at {args.cheap_accuracy} "
        f"(hard {args.hard_share} at {args.cheap_hard_accuracy}), strong {MODELS['strong']} at "
        f"{args.strong_accuracy} (hard at {args.strong_hard_accuracy})"
    )
    print(f"two plain runs {runs_s:.1f} s; both calibrations {calibrate_s:.1f} s (no judge call)")
    print(f"all-strong cost ${fitted.all_then_cost:.4f}")
    if single.recommended is not None:
        print(entry_line("one threshold", single.recommended))
    chosen = fitted.recommended
    if chosen is None or chosen.per_criterion is None:
        print(f"no set of thresholds reaches {args.target} agreement with the strong judge")
        return
    print(entry_line("per criterion", chosen))
    print_fits(fitted)
    live_check(root, args, prices, chosen)
    floors(root, args, prices, chosen)
    library(root, args, chosen)


def live_check(
    root: Path, args: argparse.Namespace, prices: dict[str, Price], chosen: ThresholdEntry
) -> None:
    assert chosen.per_criterion is not None and chosen.cost is not None
    live_s = run(root, "live", write_cascade(root, args, chosen.per_criterion))
    price_votes(root / "live", prices)
    pairs = latest_pairs(root / "first", root / "then")
    same = decisions(root / "live") == replay_decisions(pairs, chosen.per_criterion)
    live_cost = math.fsum(r.cost or 0.0 for r in records(root / "live"))
    all_then = math.fsum(p.then_cost or 0.0 for p in pairs)
    ratio = live_cost / all_then
    met = ratio <= TARGET_COST and (chosen.agreement_with_then or 0) >= args.target
    print(
        f"live cascade ({live_s:.1f} s): escalations and outcomes equal the replay's: {same}; "
        f"cost ${live_cost:.4f} = {ratio:.3f} of all-strong (target <= {TARGET_COST} at >= "
        f"{args.target} agreement: {'met' if met else 'NOT met'})"
    )
    prefix = prefix_tokens(root / "first", args.words)
    combined = discounted_cost(root / "live", prices, prefix)
    naive = combined / all_then
    print(
        f"with batch prices and prompt caching (shared prefix {prefix} tokens): "
        f"${combined:.4f} = {naive:.3f} of a naive all-strong per-criterion run "
        f"(target <= {TARGET_DISCOUNTED}: {'met' if naive <= TARGET_DISCOUNTED else 'NOT met'})"
    )
    discounted_strong = discounted_cost(root / "then", prices, prefix)
    print(
        f"  (the all-strong run itself with the same discounts: {discounted_strong / all_then:.3f}"
        f" of naive)"
    )


def floors(
    root: Path, args: argparse.Namespace, prices: dict[str, Price], chosen: ThresholdEntry
) -> None:
    pairs = latest_pairs(root / "first", root / "then")
    first_share, oracle_rate, floor = oracle_floor(pairs, args.target)
    prefix = prefix_tokens(root / "first", args.words)
    first_discount = discounted_cost(root / "first", prices, prefix) / math.fsum(
        r.cost or 0.0 for r in records(root / "first")
    )
    print(
        f"floors: the first stage alone costs {first_share:.3f} of all-strong "
        f"({first_share * first_discount:.3f} with its discounts); an oracle escalating only "
        f"the pairs where it disagrees with the strong judge must escalate {oracle_rate:.3f} of "
        f"pairs to reach {args.target}, costing {floor:.3f} of all-strong"
    )
    escalations = (chosen.cost_ratio or 0.0) - first_share
    print(
        f"at the recommended thresholds the escalations alone cost {escalations:.3f} of "
        f"all-strong for {chosen.escalation_rate:.3f} of the pairs"
    )


def library(root: Path, args: argparse.Namespace, chosen: ThresholdEntry) -> None:
    pairs = latest_pairs(root / "first", root / "then")
    rules = open_experiment(root / "first").rules
    labels = calibrate_experiments(
        root / "first", root / "then", 0.0, per_criterion=True, against="labels"
    )
    runs = root / "library_runs.json"
    library_runs(pairs, runs)
    started = time.perf_counter()
    found = library_calibration(args.library_python, runs, pairs, rules)
    if found is None:
        print(
            f"the autorubric library's calibration: not run ({args.library_python} missing; "
            f"python3 -m venv /tmp/arlib && /tmp/arlib/bin/pip install autorubric==1.6.1)"
        )
        return
    point, entry = found
    print(
        f"autorubric 1.6.1 calibrate_escalation(per_criterion=True), offline on the same "
        f"records ({time.perf_counter() - started:.1f} s): best() = global {point['threshold']}, "
        f"per criterion {point['per_criterion']} (confidence units), criterion_accuracy "
        f"{point['metric']:.4f}, escalation rate {point['escalation_rate']:.3f}"
    )
    print(entry_line("  its thresholds replayed here", entry))
    print(entry_line("  ours, per criterion against the strong judge", chosen))
    best_labels = max(
        labels.thresholds, key=lambda e: (e.agreement_with_labels or 0, -(e.cost or 0))
    )
    print(entry_line("  ours, the single threshold most accurate against labels", best_labels))


if __name__ == "__main__":
    main()

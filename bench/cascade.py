"""Benchmark: a calibrated judge cascade against asking the strong judge everything.

1,000 items x 6 binary criteria with ground truth; a cheap simulated judge asked three times
(`samples: 3`, accuracy 0.8) and a strong one (accuracy 0.95). Simulated judges are free, so
every vote is priced here from its recorded token counts with litellm's price table, the cheap
judge as gpt-4.1-mini and the strong one as claude-sonnet-4-5. Then:

1. the two plain runs (cheap only, strong only) are calibrated with `cascade calibrate`'s
   function at the target agreement;
2. a live cascade at the recommended threshold is run and priced; its escalations must equal
   the replay's;
3. printed: the threshold, agreement with the all-strong outcome, the cascade's cost as a
   share of the all-strong run's (target <= 0.40 at >= 0.95 agreement), and the same with
   provider discounts (batch APIs at half price, the item's shared prefix read from the
   provider's prompt cache on every call of an item but the first) against a naive all-strong
   per-criterion run without them (target <= 0.10);
4. the floor no escalation rule over this first stage can beat (an oracle that escalates only
   the pairs where the first stage disagrees with the strong judge), and what the escalations
   alone cost at the recommended threshold.

The `autorubric` library's own cascade cannot run here: its first stage is its vendor's
decision model, reached over the network (an API key and a hosted model), and the library is
not installed in this environment. Nothing of it is printed.

    python -m bench.cascade [--items 1000] [--cheap-accuracy 0.8] [--target 0.95]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
import time
from pathlib import Path

import orjson
import yaml

from autorubric_cli import api
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.grading.calibrate import Pair, outcome_label
from autorubric_cli.judges.price_table import price_table
from autorubric_cli.report.calibrate import calibrate_experiments, latest_pairs

CHEAP_MODEL, STRONG_MODEL = "gpt-4.1-mini", "claude-sonnet-4-5"
CRITERIA = [
    ("cites_figures", "States the cell's energy density with a figure and a unit"),
    ("compares", "Compares at least two chemistries on the same property"),
    ("safety", "Mentions a thermal-runaway or safety consideration"),
    ("cost", "Discusses cost per kWh"),
    ("sources", "Names a source for a numeric claim"),
    ("wrong_claim", "Claims LFP has higher gravimetric energy density than NMC"),
]
BATCH_DISCOUNT = 0.5
CALL_MODES = ["per_criterion", "per_item"]


def write_inputs(directory: Path, items: int, words: int, accuracy: float, strong: float) -> None:
    rng = random.Random(7)
    vocabulary = [
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
    with (directory / "data.jsonl").open("w") as handle:
        for i in range(items):
            text = " ".join(rng.choice(vocabulary) for _ in range(words))
            truth = {name: rng.choice(["MET", "UNMET"]) for name, _ in CRITERIA}
            line = {"id": f"q{i:05d}", "submission": text, "ground_truth": truth}
            handle.write(json.dumps(line) + "\n")
    cheap = {"model": "simulated/cheap", "id": "cheap", "samples": 3}
    cheap["params"] = {"accuracy": accuracy}
    strong_judge = {"model": "simulated/strong", "id": "strong", "params": {"accuracy": strong}}
    criteria = [{"name": n, "requirement": r} for n, r in CRITERIA]
    for name, judges in (("first", [cheap]), ("then", [strong_judge])):
        grader = {"judges": judges, "concurrency": 256}
        rubric = {"criteria": criteria, "grader": grader}
        (directory / f"{name}.yaml").write_text(yaml.safe_dump(rubric))
    both = {"judges": [cheap, strong_judge], "concurrency": 256}
    both["cascade"] = {"first": ["cheap"], "then": ["strong"], "escalate_below": 1.0}
    (directory / "cascade.yaml").write_text(yaml.safe_dump({"criteria": criteria, "grader": both}))


def prices() -> dict[str, tuple[float, float, float]]:
    """judge id -> (input, output, cached input) USD per token."""
    table = price_table()
    out = {}
    for judge, model in (("cheap", CHEAP_MODEL), ("strong", STRONG_MODEL)):
        entry = table[model]
        read = entry.get("cache_read_input_token_cost", entry["input_cost_per_token"])
        out[judge] = (entry["input_cost_per_token"], entry["output_cost_per_token"], read)
    return out


def price_votes(directory: Path, table: dict[str, tuple[float, float, float]]) -> None:
    """Rewrite items.jsonl with every vote priced from its token counts (simulated votes are
    free), so `calibrate` and the report see the cost the named models would have had."""
    path = directory / "items.jsonl"
    lines = []
    for raw in path.read_bytes().splitlines():
        record = ItemRecord.model_validate(orjson.loads(raw))
        for criterion in record.criteria:
            for vote in criterion.votes:
                i, o, _ = table[vote.judge]
                u = vote.usage
                vote.cost = u.get("prompt_tokens", 0) * i + u.get("completion_tokens", 0) * o
        record.cost = sum(v.cost or 0.0 for c in record.criteria for v in c.votes)
        lines.append(orjson.dumps(record.model_dump(mode="json")))
    path.write_bytes(b"\n".join(lines) + b"\n")


def discounted_cost(
    directory: Path, table: dict[str, tuple[float, float, float]], prefix: int
) -> float:
    """The run's cost with batches (half price) and the item's shared prefix of `prefix`
    tokens read from the provider's cache on each call of an item to a judge but the first."""
    total = 0.0
    for raw in (directory / "items.jsonl").read_bytes().splitlines():
        record = ItemRecord.model_validate(orjson.loads(raw))
        seen: set[str] = set()
        for criterion in record.criteria:
            for vote in criterion.votes:
                i, o, read = table[vote.judge]
                prompt = vote.usage.get("prompt_tokens", 0)
                cost = prompt * i + vote.usage.get("completion_tokens", 0) * o
                if vote.judge in seen:
                    shared = min(prefix, prompt)
                    cost -= shared * (i - read)
                seen.add(vote.judge)
                total += cost * BATCH_DISCOUNT
    return total


def oracle_floor(pairs: list[Pair], target: float) -> tuple[float, float, float]:
    """What no escalation rule over this first stage can beat: (the first stage's cost, the
    least share of pairs an oracle must escalate to reach `target` agreement with the all-strong
    outcome, the cost of that oracle cascade), costs as shares of the all-strong run's. The
    oracle sees the strong outcome and escalates only pairs where the first stage disagrees
    with it, the cheapest first; every real rule escalates at least those."""
    all_then = sum(p.then_cost or 0.0 for p in pairs)
    first = sum(p.first_cost or 0.0 for p in pairs)
    wrong = sorted(
        p.then_cost or 0.0 for p in pairs if outcome_label(p.first.outcome) != p.then_outcome
    )
    needed = max(0, math.ceil(target * len(pairs)) - (len(pairs) - len(wrong)))
    floor = first + sum(wrong[:needed])
    return first / all_then, needed / len(pairs), floor / all_then


def run_cost(directory: Path) -> float:
    return sum(
        ItemRecord.model_validate(orjson.loads(raw)).cost or 0.0
        for raw in (directory / "items.jsonl").read_bytes().splitlines()
    )


def outcomes(directory: Path) -> dict[tuple[str, str], tuple[bool, str]]:
    out = {}
    for raw in (directory / "items.jsonl").read_bytes().splitlines():
        record = ItemRecord.model_validate(orjson.loads(raw))
        for c in record.criteria:
            out[(record.id, c.name)] = (bool(c.escalated), str(c.verdict))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--words", type=int, default=400, help="words per submission")
    parser.add_argument("--cheap-accuracy", type=float, default=0.8)
    parser.add_argument("--strong-accuracy", type=float, default=0.95)
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument(
        "--llm-calls", default="per_criterion", choices=["per_criterion", "per_item"]
    )
    args = parser.parse_args()
    table = prices()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_inputs(root, args.items, args.words, args.cheap_accuracy, args.strong_accuracy)
        started = time.perf_counter()
        for name in ("first", "then"):
            api.run(
                root / f"{name}.yaml",
                root / "data.jsonl",
                out=root / name,
                cache=False,
                llm_calls=args.llm_calls,
            )
            price_votes(root / name, table)
        naive = root / "then"
        if args.llm_calls != "per_criterion":  # the naive comparator asks per criterion
            naive = root / "naive"
            api.run(root / "then.yaml", root / "data.jsonl", out=naive, cache=False)
            price_votes(naive, table)
        runs_s = time.perf_counter() - started
        started = time.perf_counter()
        calibration = calibrate_experiments(root / "first", root / "then", args.target)
        calibrate_s = time.perf_counter() - started
        chosen = calibration.recommended
        print(
            f"items {args.items} x {len(CRITERIA)} criteria; cheap {CHEAP_MODEL} x3 samples "
            f"at {args.cheap_accuracy}, strong {STRONG_MODEL} at {args.strong_accuracy}"
        )
        print(
            f"two plain runs {runs_s:.1f} s; calibration over {len(calibration.thresholds)} "
            f"thresholds {calibrate_s:.1f} s (no judge call)"
        )
        print(f"all-strong cost ${calibration.all_then_cost:.4f}")
        if chosen is None:
            print(f"no threshold reaches {args.target} agreement with the strong judge")
            return
        cascade = yaml.safe_load((root / "cascade.yaml").read_text())
        cascade["grader"]["cascade"]["escalate_below"] = chosen.threshold
        (root / "cascade.yaml").write_text(yaml.safe_dump(cascade))
        api.run(
            root / "cascade.yaml",
            root / "data.jsonl",
            out=root / "live",
            cache=False,
            llm_calls=args.llm_calls,
        )
        price_votes(root / "live", table)
        live = outcomes(root / "live")
        live_rate = sum(flag for flag, _ in live.values()) / len(live)
        live_cost = run_cost(root / "live")
        assert calibration.all_then_cost
        print(
            f"recommended escalate_below {chosen.threshold:.4g}: escalation rate "
            f"{chosen.escalation_rate:.3f}, agreement with all-strong "
            f"{chosen.agreement_with_then:.4f}, with ground truth "
            f"{chosen.agreement_with_labels:.4f}"
        )
        print(
            f"cascade cost (replayed) ${chosen.cost:.4f} = {chosen.cost_ratio:.3f} of all-strong "
            f"(target <= 0.40 at >= {args.target} agreement: "
            f"{'met' if (chosen.cost_ratio or 1) <= 0.40 else 'NOT met'})"
        )
        print(
            f"live cascade at that threshold: escalation rate {live_rate:.3f} "
            f"(replay {chosen.escalation_rate:.3f}), cost ${live_cost:.4f} = "
            f"{live_cost / calibration.all_then_cost:.3f} of all-strong"
        )
        naive_cost = calibration.all_then_cost
        combined = discounted_cost(root / "live", table, prefix=args.words)
        print(
            f"with batches (x{BATCH_DISCOUNT}) and prompt caching of the submission: "
            f"${combined:.4f} = {combined / naive_cost:.3f} of a naive all-strong per-criterion "
            f"run (target <= 0.10: {'met' if combined / naive_cost <= 0.10 else 'NOT met'})"
        )
        first_share, oracle_rate, floor = oracle_floor(
            latest_pairs(root / "first", root / "then"), args.target
        )
        discount = discounted_cost(root / "first", table, prefix=args.words) / run_cost(
            root / "first"
        )
        then_discount = discounted_cost(naive, table, prefix=args.words) / naive_cost
        combined_floor = first_share * discount + (floor - first_share) * then_discount
        print(
            f"floor for any escalation rule over this first stage: the first stage alone costs "
            f"{first_share:.3f} of all-strong; an oracle that escalates only the pairs where it "
            f"disagrees with the strong judge must escalate {oracle_rate:.3f} of pairs to reach "
            f"{args.target} agreement, costing {floor:.3f} of all-strong "
            f"({'under' if floor <= 0.40 else 'over'} 0.40), and {combined_floor:.3f} of the "
            f"naive run with batches and caching ({'under' if combined_floor <= 0.10 else 'over'} "
            f"0.10)"
        )
        print(
            f"at the recommended threshold the escalations alone cost "
            f"{(chosen.cost_ratio or 0.0) - first_share:.3f} of all-strong: no cheaper first "
            f"stage brings this cascade under 0.40"
        )
        print(
            "the autorubric library's cascade: not run (its first stage is its vendor's "
            "hosted decision model; no network and the library is not installed here)"
        )


if __name__ == "__main__":
    main()

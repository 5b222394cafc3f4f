"""Claude and Gemini batches at scale, against the loopback fakes (docs/guides/batches.md, issue
22).

For each provider: 500 items x 3 criteria graded directly (the reference), then in batch mode
with 3 SIGKILLs, each followed by `resume`: the first inside a create call (an orphan: the
batch exists at the provider, its id unrecorded), the others at random moments. Printed side
by side: whether the records equal the direct run's apart from accounting, whether the
provider answered every request exactly once (and the same request bodies as the direct run
sent), the cost of both runs and their ratio (the batch price), batches created, orphans
found, wall times.

    python bench/provider_batches.py [--items 500] [--kills 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.batch_fake import BatchFake
from tests.support.experiment.batch import comparable, ledger_events
from tests.support.experiment.provider_batch import FAKES, bodies, provider_rubric
from tests.support.experiment.runs import (
    KEY_ENV,
    KEY_VALUE,
    start_cli,
    valid_lines,
    write_dataset,
)

ROOT = Path(__file__).resolve().parents[1]

SETTINGS = {"SEND_DELAY_S": "0.5", "POLL_S": "0.1", "MAX_REQUESTS": "250"}


def cli(*args: Any) -> None:
    proc = start_cli(*args)
    _, err = proc.communicate(timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"{args[0]} failed ({proc.returncode}): {err.decode()[-2000:]}")


def cost(directory: Path) -> float:
    return sum(line["cost"] or 0.0 for line in valid_lines(directory / "items.jsonl"))


def grading(directory: Path, moment: float) -> bool:
    """The process started after `moment` is grading: manifest rewritten, batching begun."""
    path = directory / "manifest.json"
    return path.exists() and path.stat().st_mtime > moment and bool(ledger_events(directory))


def creating(directory: Path, server: BatchFake) -> bool:
    """A batch exists at the provider whose id the ledger does not hold yet: a create call is
    being answered (the fake holds its reply `create_delay` seconds)."""
    known = {e["batch_id"] for e in ledger_events(directory) if e["event"] == "submitted"}
    return any(job_id not in known for job_id in list(server.jobs))


def killed_run(
    rubric: Path, data: Path, exp: Path, kills: int, rng: random.Random, server: BatchFake
) -> int:
    """`run --batch`, SIGKILLed `kills` times, each time resumed; the last resume runs to the
    end. The first kill lands inside a create call (the batch exists, its id is unrecorded: an
    orphan for `resume` to find), the others at random moments 0-3 s after the (re)started
    process began grading. Returns the kills made."""
    proc = start_cli("run", rubric, data, "--out", exp, "--batch", "--no-cache")
    made, moment = 0, time.time()
    while made < kills:
        if made == 0:
            while not creating(exp, server) and proc.poll() is None:
                time.sleep(0.002)
        else:
            while not grading(exp, moment) and proc.poll() is None:
                time.sleep(0.01)
            time.sleep(rng.uniform(0.0, 3.0))
        if proc.poll() is not None:
            break
        proc.kill()
        proc.wait()
        made += 1
        moment = time.time()
        proc = start_cli("resume", exp, "--no-cache")
    _, err = proc.communicate(timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"resume failed ({proc.returncode}): {err.decode()[-2000:]}")
    return made


def one_provider(provider: str, items: int, kills: int, seed: int, work: Path) -> dict[str, Any]:
    rng = random.Random(f"{seed}-{provider}")
    with FAKES[provider](batch_delay=1.0, create_delay=0.3) as server:
        rubric = provider_rubric(work / f"{provider}.yaml", provider, server.api_base)
        data = write_dataset(work / "data.jsonl", items)
        started = time.monotonic()
        cli("run", rubric, data, "--out", work / f"{provider}-direct", "--no-cache")
        direct_s = time.monotonic() - started
        direct = server.direct_requests
        server.reset()
        started = time.monotonic()
        made = killed_run(rubric, data, work / f"{provider}-batch", kills, rng, server)
        batch_s = time.monotonic() - started
        batched, called = server.batch_requests, server.direct_requests
        jobs = len(server.jobs)
    events = ledger_events(work / f"{provider}-batch")
    direct_cost, batch_cost = cost(work / f"{provider}-direct"), cost(work / f"{provider}-batch")
    return {
        "provider": provider,
        "requests": len(direct),
        "records identical": comparable(work / f"{provider}-batch")
        == comparable(work / f"{provider}-direct"),
        "same bodies, each answered once": bodies(batched) == bodies(direct)
        and set(Counter(p.key for p in batched).values()) == {1}
        and not called,
        "kills": made,
        "batches": jobs,
        "orphans found": sum("found_by" in e for e in events),
        "abandoned (never created)": sum(e["event"] == "abandoned" for e in events),
        "cost direct $": round(direct_cost, 6),
        "cost batch $": round(batch_cost, 6),
        "batch/direct": round(batch_cost / direct_cost, 6) if direct_cost else None,
        "direct s": round(direct_s, 1),
        "batch s (kills included)": round(batch_s, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    os.environ[KEY_ENV] = KEY_VALUE
    os.environ["LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS"] = "true"
    for name, value in SETTINGS.items():
        os.environ[f"AUTORUBRIC_BATCH_{name}"] = value
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AUTORUBRIC_CACHE_DIR"] = str(Path(tmp) / "cache")
        rows = [one_provider(p, args.items, args.kills, args.seed, Path(tmp)) for p in FAKES]
    print(f"{args.items} items x 3 criteria, batch mode with {args.kills} SIGKILLs + resumes")
    for key in rows[0]:
        print(f"  {key:28} " + "  ".join(f"{str(row[key]):>14}" for row in rows))
    print(json.dumps(rows))


if __name__ == "__main__":
    main()

"""The simulated judge's pairwise replies (docs/guides/pairwise.md, "Offline").

Two of the judge's `params` (judges/transports/simulated.py) decide, each draw seeded from
(seed, comparison, question, sample, order) alone:

- `position_bias`: with this probability it replies `A` (the response shown first) whatever
  the responses say;
- `accuracy`, the preference strength: otherwise, with this probability it gives the true
  answer (the truly better response, or `tie` when neither is), else one of the two other
  replies, each as likely.

The truth (`PairRequest.truth`) is decided where the comparison is built (pairwise/truth.py)
from the items' ground truth or `metadata.score`; with neither, neither response is better.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any, Protocol

from autorubric_cli.core.pairs import PREFERENCES
from autorubric_cli.judges.pairs import PairRequest
from autorubric_cli.judges.request import Completion


class Behaviour(Protocol):
    @property
    def seed(self) -> object: ...
    @property
    def accuracy(self) -> float: ...
    @property
    def position_bias(self) -> float: ...


def pair_completion(params: Behaviour, request: PairRequest) -> Completion:
    """The reply, with usage in words (prompt and reply) and no cost, as for other questions."""
    content = pair_reply(params, request)
    words = sum(len(m.get("content", "").split()) for m in request.messages)
    usage = {"prompt_tokens": words, "completion_tokens": len(content.split())}
    return Completion(content=content, usage=usage, cost=0.0)


def pair_reply(params: Behaviour, request: PairRequest) -> str:
    """The reply's JSON text."""
    parts = (params.seed, request.unit, request.question.name, request.sample, request.order)
    key = "\x1f".join(str(p) for p in parts)
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest(), "big"))
    truth = request.truth or "tie"
    if rng.random() < params.position_bias:
        preference = "A"
    elif rng.random() < params.accuracy:
        preference = truth
    else:
        preference = rng.choice([p for p in PREFERENCES if p != truth])
    reply: dict[str, Any] = {
        "explanation": f"simulated judge prefers {preference} on {request.question.name}",
        "preference": preference,
    }
    return json.dumps(reply)

"""An offline judge for demos and dry runs: model strings `simulated/<name>`.

It reads the same messages a real judge gets and answers with the same JSON text, which goes
through the same parser. Behaviour, from `JudgeSpec.params` (each a probability in [0, 1]):

- `abstain_rate`: answer CANNOT_ASSESS (binary) or the NA option when the criterion has one
  (a multi-choice criterion without an NA option cannot abstain).
- `position_bias`: otherwise, pick the FIRST option shown (binary: answer MET; a pair: the
  response shown first).
- `accuracy` (default 0.8): otherwise, answer the truth; else a wrong answer drawn uniformly.
  For pairs it is the preference strength (simulated_pairs.py).
- `hard_share` (default 0) and `hard_accuracy` (default `accuracy`): hard items. A share
  `hard_share` of the (item, criterion) pairs is hard, chosen by a hash of the item id and
  criterion name alone (`is_hard`), so every simulated judge finds the same pairs hard. On them
  the accuracy is `hard_accuracy`; on the others it is set so that the mean stays `accuracy`:
  `(accuracy - hard_share * hard_accuracy) / (1 - hard_share)`, which must lie in [0, 1]. Each
  sample draws on its own, so at a `hard_accuracy` near 0.5 a judge's samples disagree on the
  hard pairs, as real judges disagree with themselves where items are hard.
- `vague_accuracy` (default `accuracy`) and `vague_pattern` (a regular expression, default
  `VAGUE_WORDS`): the accuracy on a criterion whose wording is vague, on every pair (hard or
  not). A criterion's wording is its requirement and its options' descriptions (never its name
  or its option labels); it is vague when `vague_pattern` finds a match in it,
  case-insensitively. Real judges err where a criterion is vaguely worded; this is how a bench
  makes one criterion's wording err, and how a rewording (`improve`) can repair it. The
  simulated reviser (simulated_reviser.py) removes what the pattern matches.
- `set_rate` (default 0.3): for response-set schemas (`selected_options`), the set is the
  forced choice above plus each other non-NA option, independently, with this probability.
  A binary set holds the status answered (1. MET or 2. UNMET) plus the other one with this
  probability; when the status is CANNOT_ASSESS, the set is both.
- `seed`: the random stream; default the judge id. Each call is seeded from (seed, item id,
  criterion, sample) alone, so answers never depend on call order. The set is drawn from its
  own stream, after the forced choice, so `both` gives the same forced choices as
  `forced_choice`, and a `response_set` set contains the forced choice it does not report.

It answers the fields the criterion asks for (`VoteRequest.asked_fields`; every per-criterion
call shares one schema): `criterion_status` / `selected_option` and/or `selected_options`.

The truth is the item's ground-truth label for the criterion; without one, a pseudo-truth is
derived from a hash of (item id, criterion). A multi-choice truth's position is found by
reading the numbered options in the prompt, so option shuffling is really exercised. Usage is
a word count, cost is 0.0, and nothing touches the network.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from dataclasses import dataclass, replace
from typing import Any

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.numeric import in_unit_interval
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.errors import InputError
from autorubric_cli.judges.pairs import PairRequest
from autorubric_cli.judges.per_item.asked import AskedCriterion
from autorubric_cli.judges.per_item.request import ItemRequest
from autorubric_cli.judges.prompts import shown_label
from autorubric_cli.judges.replies import ASKED_FIELDS, BINARY_SET_LABELS
from autorubric_cli.judges.request import Call, CallRequest, Choice, Completion, VoteRequest
from autorubric_cli.judges.revision import ReviseRequest
from autorubric_cli.judges.transports.simulated_pairs import pair_completion
from autorubric_cli.judges.transports.simulated_reviser import revised

PREFIX = "simulated/"
PROBABILITIES = {"accuracy": 0.8, "position_bias": 0.0, "abstain_rate": 0.0, "set_rate": 0.3}
HARD = {"hard_share": 0.0, "hard_accuracy": None}  # None: `accuracy`
WORDING = {"vague_accuracy": None}  # None: `accuracy`
VAGUE_WORDS = (
    r"\b(?:appropriate(?:ly)?|adequate(?:ly)?|good|well|proper(?:ly)?|reasonabl[ey]|"
    r"sufficient(?:ly)?|clear(?:ly)?|relevant|nice(?:ly)?|helpful|high[- ]quality)\b"
)
"""The simulated judge's default `vague_pattern`: words that say how good, not what."""
OPTIONS_BLOCK = re.compile(r"<options>\n(.*?)\n</options>", re.DOTALL)
OPTION_LINE = re.compile(r"^(\d+)\. (.*)$")
ITEM_SECTION = re.compile(
    r"^Criterion \d+ of \d+, named .*?\n<criterion>\n.*?\n</criterion>"
    r"(?:\n<options>\n(.*?)\n</options>)?",
    re.DOTALL | re.MULTILINE,
)
MET, UNMET, CANNOT_ASSESS = (v.value for v in CriterionVerdict)


def is_simulated(model: str) -> bool:
    return model.startswith(PREFIX)


def simulated_run(judges: list[JudgeSpec]) -> bool:
    """The one fact records, the manifest and the reports carry: some judge is simulated."""
    return any(is_simulated(j.model) for j in judges)


def digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


@dataclass(frozen=True)
class SimulationParams:
    """A simulated judge's behaviour (the module's docstring says what each does)."""

    accuracy: float
    position_bias: float
    abstain_rate: float
    set_rate: float
    seed: object
    hard_share: float = 0.0
    hard_accuracy: float | None = None  # None: `accuracy`
    easy_accuracy: float | None = None  # None: `accuracy` (no hard pairs)
    vague_accuracy: float | None = None  # None: `accuracy`
    vague_pattern: re.Pattern[str] = re.compile(VAGUE_WORDS, re.IGNORECASE)


def simulation_params(spec: JudgeSpec) -> SimulationParams:
    """Validated params: known names only, probabilities in [0, 1], hard items consistent."""
    probabilities: dict[str, float | None] = {**PROBABILITIES, **HARD, **WORDING}
    seed: object = spec.judge_id
    pattern = re.compile(VAGUE_WORDS, re.IGNORECASE)
    for name, value in spec.params.items():
        if name == "seed":
            seed = value
        elif name == "vague_pattern":
            pattern = vague_pattern(spec, value)
        elif name not in probabilities:
            known = ", ".join(sorted([*probabilities, "seed", "vague_pattern"]))
            raise InputError(
                f"judge {spec.judge_id!r}: unknown simulated-judge param {name!r} "
                f"(one of: {known})",
                key=f"params.{name}",
            )
        elif not in_unit_interval(value):
            raise InputError(
                f"judge {spec.judge_id!r}: param {name!r} must be a number in [0, 1]",
                key=f"params.{name}",
            )
        else:
            probabilities[name] = float(value)
    params = SimulationParams(seed=seed, vague_pattern=pattern, **probabilities)  # type: ignore[arg-type]
    return with_hard_items(spec, params)


def vague_pattern(spec: JudgeSpec, value: Any) -> re.Pattern[str]:
    """`params.vague_pattern`: a regular expression, matched case-insensitively."""
    try:
        if not isinstance(value, str) or not value:
            raise re.error("must be a non-empty string")
        return re.compile(value, re.IGNORECASE)
    except re.error as exc:
        raise InputError(
            f"judge {spec.judge_id!r}: param 'vague_pattern' is not a regular expression ({exc})",
            key="params.vague_pattern",
        ) from None


def wording(criterion: Criterion) -> str:
    """What a criterion says, as the simulated judge reads it for vagueness: its requirement
    and its options' descriptions."""
    descriptions = [o.description or "" for o in criterion.options or []]
    return "\n".join([criterion.requirement, *descriptions])


def with_hard_items(spec: JudgeSpec, params: SimulationParams) -> SimulationParams:
    """`params` with the accuracy on the pairs that are not hard, checked to be in [0, 1]."""
    share, hard = params.hard_share, params.hard_accuracy
    if share == 0.0 or hard is None:
        return params
    if share == 1.0:
        easy = params.accuracy if math.isclose(hard, params.accuracy) else math.nan
        left = "hard_share 1 leaves no other pair, so hard_accuracy must equal accuracy"
    else:
        easy = (params.accuracy - share * hard) / (1.0 - share)
        left = (
            f"the other pairs' accuracy (accuracy - hard_share * hard_accuracy) / "
            f"(1 - hard_share) would be {easy:.4g}, outside [0, 1]"
        )
    if not (-1e-12 <= easy <= 1.0 + 1e-12):
        raise InputError(
            f"judge {spec.judge_id!r}: with accuracy {params.accuracy:g}, hard_share "
            f"{share:g} and hard_accuracy {hard:g}, {left}; bring hard_accuracy closer to "
            "accuracy or lower hard_share",
            key="params.hard_accuracy",
        )
    return replace(params, easy_accuracy=min(1.0, max(0.0, easy)))


def is_hard(item_id: str, criterion: str, share: float) -> bool:
    """Whether the pair is hard: a hash of (item id, criterion name) alone, never of a judge's
    seed, so that every simulated judge finds the same pairs hard."""
    draw = int.from_bytes(digest("hard", item_id, criterion)[:8], "big") / 2**64
    return draw < share


def shown_labels(messages: list[dict[str, str]]) -> list[str]:
    """The option labels in the order shown, read from the last `<options>` block."""
    for message in reversed(messages):
        if message.get("role") != "user":
            continue
        found = OPTIONS_BLOCK.findall(message.get("content", ""))
        if found:
            return option_lines(found[-1])
    return []


def option_lines(block: str) -> list[str]:
    return [m.group(2) for line in block.split("\n") if (m := OPTION_LINE.match(line))]


def item_sections(messages: list[dict[str, str]]) -> list[list[str]]:
    """A per-item prompt's shown option labels per criterion section, in the order shown
    (empty for a binary criterion)."""
    user = next((m for m in reversed(messages) if m.get("role") == "user"), {})
    return [option_lines(block or "") for block in ITEM_SECTION.findall(user.get("content", ""))]


def pseudo_truth(item_id: str, criterion: Criterion) -> str:
    """A stable stand-in label for items without ground truth (never an NA option)."""
    draw = int.from_bytes(digest("pseudo-truth", item_id, criterion.name)[:8], "big")
    if criterion.options is None:
        return MET if draw % 2 == 0 else UNMET
    labels = [o.label for o in criterion.options if not o.na]
    return labels[draw % len(labels)]


class SimulatedTransport:
    """Answers like a judge with the configured accuracy and biases: an ordinary transport
    (what is simulated is known from the judge's model, `is_simulated`, never asked of it)."""

    def __init__(self, spec: JudgeSpec) -> None:
        self.spec = spec
        self.params = simulation_params(spec)

    def rng(self, item_id: str, criterion: Criterion, sample: int, *stream: str) -> random.Random:
        seed = digest(self.params.seed, item_id, criterion.name, sample, *stream)
        return random.Random(int.from_bytes(seed, "big"))

    async def complete(self, call: Call) -> Completion:
        messages, request = call.messages, call.request
        if isinstance(request, PairRequest):  # pairwise: simulated_pairs.py
            return pair_completion(self.params, request)
        if isinstance(request, ReviseRequest):
            reply: dict[str, Any] = revised(request.criterion, self.params.vague_pattern)
        elif isinstance(request, ItemRequest):
            sections = item_sections(messages)
            entries = [
                {"criterion": a.name, **self.answer(request, a, shown)}
                for a, shown in zip(request.asked, sections, strict=False)
            ]
            reply = {"criteria": entries}
        else:
            asked, shown = set(request.asked_fields), shown_labels(messages)
            replies = [
                self.answer(replace(request, sample=sample), request, shown, asked)
                for sample in call.samples
            ]
            return self.completion(messages, [json.dumps(r) for r in replies])
        return self.completion(messages, [json.dumps(reply)])

    @staticmethod
    def completion(messages: list[dict[str, str]], contents: list[str]) -> Completion:
        """A reply of one choice per content (several for a call asking for several samples:
        each answers as its own call would); usage counts words, the prompt once."""
        words = sum(len(m.get("content", "").split()) for m in messages)
        answered = sum(len(content.split()) for content in contents)
        usage = {"prompt_tokens": words, "completion_tokens": answered}
        choices = tuple(Choice(content) for content in contents) if len(contents) > 1 else ()
        return Completion(content=contents[0], usage=usage, cost=0.0, choices=choices)

    async def aclose(self) -> None:
        """Nothing to close: it never touches the network."""

    def answer(
        self,
        request: CallRequest,
        asked: VoteRequest | AskedCriterion,
        shown: list[str],
        fields: set[str] | None = None,
    ) -> dict[str, Any]:
        """One criterion's reply fields; the same in both modes (same seeded streams)."""
        criterion, sample = asked.criterion, request.sample
        rng = self.rng(request.item_id, criterion, sample)
        set_rng = self.rng(request.item_id, criterion, sample, "set")
        truth = asked.truth or pseudo_truth(request.item_id, criterion)
        if fields is None:
            fields = set(ASKED_FIELDS[(criterion.options is not None, asked.elicitation)])
        reply: dict[str, Any] = {"explanation": f"simulated judge {self.spec.judge_id}"}
        accuracy = self.accuracy_for(request.item_id, criterion)
        if criterion.options is None:
            status = self.binary_status(rng, truth, accuracy)
            if "criterion_status" in fields or "selected_options" not in fields:
                reply["criterion_status"] = status
            if "selected_options" in fields:
                reply["selected_options"] = self.binary_set(set_rng, status)
        else:
            choice = self.shown_choice(rng, truth, criterion, shown, accuracy)
            if "selected_option" in fields or "selected_options" not in fields:
                reply["selected_option"] = choice
            if "selected_options" in fields:
                reply["selected_options"] = self.shown_set(set_rng, choice, criterion, shown)
        return reply

    def accuracy_for(self, item_id: str, criterion: Criterion) -> float:
        """The accuracy on this (item, criterion): `vague_accuracy` on a vaguely worded
        criterion, else `hard_accuracy` on a hard pair, the other pairs' accuracy elsewhere
        (`accuracy` itself without hard items)."""
        p = self.params
        if p.vague_accuracy is not None and p.vague_pattern.search(wording(criterion)):
            return p.vague_accuracy
        if p.easy_accuracy is None or p.hard_accuracy is None:
            return p.accuracy
        hard = is_hard(item_id, criterion.name, p.hard_share)
        return p.hard_accuracy if hard else p.easy_accuracy

    def binary_status(self, rng: random.Random, truth: str, accuracy: float) -> str:
        p = self.params
        if rng.random() < p.abstain_rate:
            return CANNOT_ASSESS
        if rng.random() < p.position_bias:
            return MET
        if rng.random() < accuracy:
            return truth
        if truth == CANNOT_ASSESS:
            return rng.choice([MET, UNMET])
        return UNMET if truth == MET else MET

    def shown_choice(
        self,
        rng: random.Random,
        truth: str,
        criterion: Criterion,
        shown: list[str],
        accuracy: float,
    ) -> int:
        """A 1-based position in the options as shown."""
        p = self.params
        na_index = criterion.na_option_index()
        if rng.random() < p.abstain_rate and na_index is not None:
            return self.position_of(shown, criterion.option_list()[na_index].label)
        if rng.random() < p.position_bias:
            return 1
        right = self.position_of(shown, truth)
        if rng.random() < accuracy or len(shown) < 2:
            return right
        wrong = [i for i in range(1, len(shown) + 1) if i != right]
        return rng.choice(wrong)

    def binary_set(self, rng: random.Random, status: str) -> list[int]:
        """Positions in 1. MET, 2. UNMET: the status answered, the other one at `set_rate`."""
        if status == CANNOT_ASSESS:
            return [1, 2]
        chosen = BINARY_SET_LABELS.index(status) + 1
        other = 3 - chosen
        return sorted({chosen, other}) if rng.random() < self.params.set_rate else [chosen]

    def shown_set(
        self, rng: random.Random, choice: int, criterion: Criterion, shown: list[str]
    ) -> list[int]:
        """Shown positions: the forced choice plus each other non-NA option at `set_rate`.

        The other options are drawn in rubric order, so they do not depend on the shuffle.
        """
        positions = {choice}
        for option in criterion.option_list():
            if not option.na and rng.random() < self.params.set_rate:
                positions.add(self.position_of(shown, option.label))
        return sorted(positions)

    @staticmethod
    def position_of(shown: list[str], label: str) -> int:
        wanted = shown_label(label)
        return shown.index(wanted) + 1 if wanted in shown else 1

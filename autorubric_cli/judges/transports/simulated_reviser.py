"""The simulated reviser (`improve --reviser simulated/NAME`): offline, for tests and demos.

It is a simulation, not a model: it never reads the errors in the prompt. It rewords a
criterion by removing from its requirement and its options' descriptions what its judge's
`vague_pattern` matches (simulated.py; default `VAGUE_WORDS`), then tidies the text (spaces,
stray commas, "a"/"an"). With the simulated judge's `vague_accuracy`, a criterion worded with
those words is graded less accurately and the reworded one is not: the loop of `improve` can
then be shown end to end, honestly labelled as simulated. A criterion with nothing to remove
comes back unchanged (the loop keeps no candidate for it).
"""

from __future__ import annotations

import re
from typing import Any

from autorubric_cli.core.rubric import Criterion

CUT = "\x00"  # where a removal was, until the text is tidied
TIDY = (
    (re.compile(rf"\b([Aa])n? (?:{CUT}\s*)+(?=[aeiouAEIOU])"), r"\1n "),  # "an answer"
    (re.compile(rf"\b([Aa])n? (?:{CUT}\s*)+(?=[^aeiouAEIOU\W])"), r"\1 "),  # "a refund"
    (re.compile(CUT), ""),
    (re.compile(r"\s{2,}"), " "),
    (re.compile(r"\s+([,.;:!?])"), r"\1"),  # a space left before punctuation
    (re.compile(r"([,;:])(?:\s*[,;:])+"), r"\1"),  # punctuation doubled by a removal
    (re.compile(r"[,;:]\s*(?=[.!?]|$)"), ""),  # a comma left at the end
)


def reworded(text: str, pattern: re.Pattern[str]) -> str:
    """`text` without what `pattern` matches (with a comma or an "and" joining it to the next
    word), tidied; `text` itself when nothing is left."""
    if not pattern.search(text):
        return text
    joined = re.compile(rf"(?:{pattern.pattern})(?:\s*,|\s+and\b)?", pattern.flags)
    out = joined.sub(CUT, text)
    for found, replacement in TIDY:
        out = found.sub(replacement, out)
    out = out.strip(" ,;:")
    return out[:1].upper() + out[1:] if out else text


def revised(criterion: Criterion, pattern: re.Pattern[str]) -> dict[str, Any]:
    """The reply of the simulated reviser for `criterion` (judges/revision.py's schema)."""
    texts = [criterion.requirement, *(o.description or "" for o in criterion.options or [])]
    removed = sorted({m.group(0).lower() for t in texts for m in pattern.finditer(t)})
    descriptions = [
        {"label": o.label, "description": reworded(o.description, pattern)}
        for o in criterion.options or []
        if o.description
    ]
    said = ", ".join(removed) if removed else "nothing"
    return {
        "explanation": f"simulated reviser: removed the vague wording ({said})",
        "requirement": reworded(criterion.requirement, pattern),
        "option_descriptions": descriptions,
    }

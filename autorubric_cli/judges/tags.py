"""The tags that delimit a judge prompt's blocks, and the neutralising of text placed inside
them (`prompts` explains the scheme)."""

from __future__ import annotations

import html
import re

TAGS = (
    "guidelines",
    "query",
    "reference_submission",
    "examples",
    "example",
    "submission",
    "thinking",
    "output",
    "answer",
    "explanation",
    "criterion",
    "options",
    "conversation",
    "turn",
    "tool_call",
    "response_a",  # pairwise judging (judges/pairs.py)
    "response_b",
    "question",
)
TAG_LOOKALIKE = re.compile(r"<(\s*/?\s*(?:" + "|".join(TAGS) + r")\b)", re.IGNORECASE)


def neutralise(text: str) -> str:
    """Make text unable to open or close one of the prompt's tags."""
    return TAG_LOOKALIKE.sub(r"&lt;\1", text)


def block(tag: str, text: str) -> str:
    return f"<{tag}>\n{neutralise(text.strip())}\n</{tag}>"


def opening_tag(tag: str, attributes: dict[str, str | int]) -> str:
    """`<tag a="1" b="x">`; values are escaped, so they cannot end the tag."""
    shown = " ".join(
        f'{k}="{html.escape(" ".join(str(v).split()))}"' for k, v in attributes.items()
    )
    return f"<{tag} {shown}>" if shown else f"<{tag}>"

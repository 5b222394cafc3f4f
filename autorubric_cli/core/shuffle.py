"""Seeded option permutations (docs/guides/rubrics.md).

The permutation depends only on (seed, item id, judge id, criterion name, sample index): a
Fisher-Yates shuffle driven by SHA-256, so it is identical across runs, machines and library
versions. `order[p]` is the original option index shown at 0-based position p.
"""

from __future__ import annotations

import hashlib


def shuffle_order(
    seed: int, item_id: str, judge_id: str, criterion: str, sample: int, n: int
) -> list[int]:
    key = "\x1f".join([str(seed), item_id, judge_id, criterion, str(sample)]).encode()
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        digest = hashlib.sha256(key + b"\x1e" + str(i).encode()).digest()
        j = int.from_bytes(digest, "big") % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def identity_order(n: int) -> list[int]:
    return list(range(n))


def original_index(order: list[int], shown_position: int) -> int:
    """Map a judge's 1-based shown position back to the original option index."""
    if not 1 <= shown_position <= len(order):
        raise ValueError(f"option {shown_position} is outside 1..{len(order)}")
    return order[shown_position - 1]

"""The seeded, stratified train/test split of `split` and `improve` (docs/guides/rubric-quality.md).

Items are grouped by a stratum key (their ground-truth pattern). The test part holds
`round(share * N)` items (half up), and each stratum gives it `floor(share * n_s)` items plus,
for the strata with the largest remainders `share * n_s - floor(share * n_s)`, one more, until
the total is reached (ties between remainders in a seeded order). So every stratum's test count
is within one item of `share * n_s`, and the total is exact. Within a stratum the items taken are
the first of a seeded shuffle. Every draw is SHA-256 of (seed, stratum key, ...): the same seed
and items give the same split on every machine and version, whatever the order of the strata.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence

from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError


def stream(seed: int, *parts: str) -> random.Random:
    digest = hashlib.sha256("\x1f".join(["split", str(seed), *parts]).encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def test_size(n: int, share: float) -> int:
    """`round(share * n)`, half up; an InputError when a part would be empty."""
    size = math.floor(share * n + 0.5)
    if not 0 < size < n:
        raise InputError(
            f"a test share of {share:g} of {plural(n, 'item')} leaves the "
            f"{'test' if size == 0 else 'train'} part empty",
            key="--test-share",
        )
    return size


def test_quotas(sizes: dict[str, int], share: float, total: int, seed: int) -> dict[str, int]:
    """Items each stratum gives the test part: floors, then largest remainders."""
    quotas = {key: math.floor(share * n) for key, n in sizes.items()}
    order = sorted(sizes, key=lambda k: stream(seed, "tie", k).random())
    order.sort(key=lambda k: share * sizes[k] - quotas[k], reverse=True)  # stable: ties seeded
    for key in order[: total - sum(quotas.values())]:
        quotas[key] += 1
    return quotas


def split_indices(keys: Sequence[str], share: float, seed: int) -> set[int]:
    """The indices (into `keys`, one stratum key per item) of the test part."""
    strata: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        strata.setdefault(key, []).append(index)
    total = test_size(len(keys), share)
    quotas = test_quotas({k: len(v) for k, v in strata.items()}, share, total, seed)
    test: set[int] = set()
    for key, members in strata.items():
        shuffled = list(members)
        stream(seed, "stratum", key).shuffle(shuffled)
        test.update(shuffled[: quotas[key]])
    return test

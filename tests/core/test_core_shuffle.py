"""Seeded option permutations (docs/guides/rubrics.md "Option shuffling", core/shuffle.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorubric_cli.core.shuffle import identity_order, original_index, shuffle_order

texts = st.text(max_size=12)
keys = st.tuples(st.integers(0, 2**63), texts, texts, texts, st.integers(0, 20))


@given(key=keys, n=st.integers(0, 12))
def test_shuffle_is_a_permutation(key: tuple, n: int) -> None:
    order = shuffle_order(*key, n)
    assert sorted(order) == list(range(n))


@given(key=keys, n=st.integers(1, 12))
def test_shuffle_is_deterministic(key: tuple, n: int) -> None:
    seed, item, judge, criterion, sample = key
    first = shuffle_order(seed, item, judge, criterion, sample, n)
    again = shuffle_order(int(seed), str(item), str(judge), str(criterion), int(sample), n)
    assert first == again


@given(key=keys, n=st.integers(1, 12))
def test_original_index_maps_every_shown_position_back(key: tuple, n: int) -> None:
    order = shuffle_order(*key, n)
    mapped = [original_index(order, p) for p in range(1, n + 1)]
    assert mapped == order
    assert sorted(mapped) == list(range(n))
    for bad in (0, n + 1, -1):
        with pytest.raises(ValueError):
            original_index(order, bad)


def test_original_index_hand_worked() -> None:
    order = [2, 0, 3, 1]  # position 1 shows option 2, position 3 shows option 3
    assert [original_index(order, p) for p in (1, 2, 3, 4)] == [2, 0, 3, 1]
    assert original_index(identity_order(3), 2) == 1
    assert identity_order(4) == [0, 1, 2, 3]


BASE = (42, "item-1", "judge-a", "crit", 0)


@pytest.mark.parametrize("position", range(5))
def test_each_key_component_changes_the_order_in_most_cases(position: int) -> None:
    """Varying any one of (seed, item, judge, criterion, sample) gives many different orders."""
    n = 6  # 720 permutations
    orders = []
    for k in range(200):
        key = list(BASE)
        key[position] = k if isinstance(BASE[position], int) else f"{BASE[position]}-{k}"
        orders.append(tuple(shuffle_order(*key, n)))
    base = tuple(shuffle_order(*BASE, n))
    assert sum(order == base for order in orders) <= 5
    assert len(set(orders)) >= 150


def test_orders_are_roughly_uniform() -> None:
    counts = Counter(tuple(shuffle_order(7, f"item{i}", "j", "c", 0, 3)) for i in range(3000))
    assert len(counts) == 6
    assert all(350 <= c <= 650 for c in counts.values()), counts


def test_components_are_not_concatenated_ambiguously() -> None:
    n = 8
    a = shuffle_order(1, "ab", "c", "crit", 0, n)
    b = shuffle_order(1, "a", "bc", "crit", 0, n)
    c = shuffle_order(11, "", "c", "crit", 0, n)
    assert len({tuple(a), tuple(b), tuple(c)}) == 3

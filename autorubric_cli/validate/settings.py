"""`validate` options and how they resolve for one criterion (positive set, beta pair, model).

- Positive options: ``--positive`` labels apply to every criterion that has all of them; other
  criteria use their default: the options whose value is above 0.5 (binary: MET), else the
  highest-valued options. An abstention option is never positive by default.
- Beta pair (k, k'): ``--beta-pair "k,k'"`` applies to every criterion that has both options;
  a binary criterion defaults to (MET, UNMET) (raters who chose UNMET may find MET
  reasonable too, as in the paper's binary tasks); a multi-choice criterion has no default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from autorubric_cli.errors import InputError
from autorubric_cli.validate.fc_model import (
    FcModel,
    FcModelError,
    beta_model,
    identity_model,
    matrix_model,
)
from autorubric_cli.validate.space import OptionSpace

DEFAULT_SWEEP = (0.0, 0.1, 0.2, 0.3, 0.4)


@dataclass(frozen=True)
class ValidateSettings:
    tau: float = 0.5
    positive: tuple[str, ...] | None = None
    beta: float = 0.0
    beta_pair: tuple[str, str] | None = None
    beta_sweep: tuple[float, ...] | None = None
    """None: the default sweep, where a beta pair is known; () turns the sweep off."""
    fc_matrix: Mapping[str, Any] | None = None
    """criterion name -> rows of the user's forced-choice -> response-set matrix."""
    fc_matrix_source: str = ""

    def check(self) -> None:
        """Flag combinations that cannot both hold; numbers out of range."""
        if not (math.isfinite(self.tau) and 0.0 < self.tau <= 1.0):
            raise InputError("must be a number in (0, 1]", key="--tau")
        for beta in (self.beta, *(self.beta_sweep or ())):
            if not (math.isfinite(beta) and 0.0 <= beta <= 1.0):
                raise InputError(f"beta {beta} is outside [0, 1]", key="--beta")
        beta_flags = self.beta != 0.0 or self.beta_pair is not None or bool(self.beta_sweep)
        if self.fc_matrix is not None and beta_flags:
            raise InputError(
                "use either --fc-matrix or --beta/--beta-pair/--beta-sweep, not both",
                key="--fc-matrix",
            )


def split_labels(text: str, key: str) -> tuple[str, ...]:
    """'a,b' -> ('a', 'b'); labels trimmed, none empty."""
    labels = tuple(part.strip() for part in text.split(","))
    if not all(labels):
        raise InputError(f"empty label in {text!r} (labels are separated by commas)", key=key)
    return labels


def split_numbers(text: str, key: str) -> tuple[float, ...]:
    """'0,0.1,0.2' -> (0.0, 0.1, 0.2)."""
    try:
        return tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise InputError(f"{text!r} is not a comma-separated list of numbers", key=key) from None


def find_all(space: OptionSpace, labels: Sequence[str]) -> tuple[int, ...] | None:
    """Positions of every label in the space, or None if one is missing."""
    found = [space.find(label) for label in labels]
    return None if any(i is None for i in found) else tuple(i for i in found if i is not None)


def default_positive(space: OptionSpace) -> tuple[int, ...]:
    """Options valued above 0.5; else the highest-valued ones."""
    valued = [(i, v) for i, v in enumerate(space.values) if v is not None]
    above = tuple(i for i, v in valued if v > 0.5)
    if above:
        return above
    top = max(v for _, v in valued)
    return tuple(i for i, v in valued if v == top)


def positive_for(space: OptionSpace, settings: ValidateSettings) -> tuple[tuple[int, ...], bool]:
    """(positive option indices, whether --positive applied)."""
    if settings.positive is not None:
        found = find_all(space, settings.positive)
        if found is not None:
            return found, True
    return default_positive(space), False


def pair_for(
    space: OptionSpace, settings: ValidateSettings, binary: bool
) -> tuple[int, int] | None:
    """(k, k') for the beta model, or None when the criterion has no pair."""
    if settings.beta_pair is not None:
        found = find_all(space, settings.beta_pair)
        if found is not None:
            return found[0], found[1]
    return (0, 1) if binary else None


def main_model(
    space: OptionSpace, settings: ValidateSettings, pair: tuple[int, int] | None
) -> FcModel:
    """The model the main figures use: a user matrix, the beta form, or the identity."""
    if settings.fc_matrix is not None:
        rows = settings.fc_matrix.get(space.criterion)
        if rows is None:
            return identity_model(space.q)
        try:
            return matrix_model(space, rows, space.criterion)
        except FcModelError as exc:
            raise InputError(str(exc), path=settings.fc_matrix_source, key=exc.key) from None
    if settings.beta == 0.0:
        return identity_model(space.q)
    if pair is None:
        raise _needs_pair(space)
    return beta_model(space.q, settings.beta, pair)


def sweep_values(
    space: OptionSpace, settings: ValidateSettings, pair: tuple[int, int] | None
) -> tuple[float, ...]:
    """The betas to sweep for this criterion (none with a user matrix or without a pair)."""
    if settings.fc_matrix is not None:
        return ()
    if settings.beta_sweep is None:
        return DEFAULT_SWEEP if pair is not None else ()
    if settings.beta_sweep and pair is None:
        raise _needs_pair(space)
    return settings.beta_sweep


def _needs_pair(space: OptionSpace) -> InputError:
    return InputError(
        f"criterion {space.criterion!r} needs --beta-pair naming two of its options "
        f"(one of: {', '.join(space.labels)}), or --criterion to leave it out",
        key="--beta-pair",
    )

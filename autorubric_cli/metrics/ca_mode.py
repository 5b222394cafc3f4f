"""The cannot-assess modes (metrics/codes.py says what each does), apart from the codes (numpy)
so that commands check `--ca-mode` before loading what computes."""

from __future__ import annotations

from typing import Final, Literal, cast, get_args

CaMode = Literal["exclude", "as_unmet", "as_category"]
CA_MODES: Final[tuple[str, ...]] = get_args(CaMode)


def check_ca_mode(ca_mode: str) -> CaMode:
    """The ca_mode, or ValueError naming the accepted ones."""
    if ca_mode not in CA_MODES:
        raise ValueError(f"unknown ca_mode {ca_mode!r}; expected one of {', '.join(CA_MODES)}")
    return cast(CaMode, ca_mode)

"""The one number formatter: `n/a` for undefined, no `-0.000`, separators for counts."""

from __future__ import annotations

import math

from autorubric_cli.report.formats import dollars, interval, number, p_value, plural, rate


def test_undefined_is_na_for_every_kind_of_figure() -> None:
    assert {number(None), number(math.nan), interval(None), dollars(None), p_value(None)} == {"n/a"}


def test_a_figure_that_rounds_to_zero_has_no_sign() -> None:
    assert number(-0.0001) == "0.000" and number(-0.0) == "0.000"
    assert number(-0.0004, signed=True) == "+0.000" and number(-0.03, signed=True) == "-0.030"


def test_counts_fractions_money_and_p_values() -> None:
    assert (number(12345), number(0.38605), number(10.0, 1)) == ("12,345", "0.386", "10.0")
    assert interval([-0.05, -0.01], signed=True) == "[-0.050, -0.010]"
    assert (dollars(0.00123), p_value(0.0004), p_value(0.04)) == ("$0.0012", "4.00e-04", "0.040")
    assert (plural(1, "rater"), plural(2, "rater")) == ("1 rater", "2 raters")


def test_a_rate_is_a_fraction_to_three_decimals_or_na() -> None:
    assert rate(0.125) == "0.125"
    assert rate(0.0) == "0.000"
    assert rate(None) == "n/a"

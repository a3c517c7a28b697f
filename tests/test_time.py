"""Instants as exact integer nanoseconds (``minruntime._time``): a float's exact value, fast."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import InvalidTimestamp, Job
from minruntime._time import float_ns, from_ns, instant_ns, to_ns


def exact_ns(seconds: float) -> int:
    """The reference: the float's exact rational value times 10**9, rounded half to even."""
    return round(Fraction(seconds) * 10**9)


def seconds() -> st.SearchStrategy[float]:
    """Finite floats: any (the extremes included), POSIX times of the last and next decades,
    and multiples of 1/1024 s, whose nanoseconds end in exactly .5 (ties) when odd."""
    return st.one_of(
        st.floats(allow_nan=False, allow_infinity=False),
        st.floats(1.5e9, 2.2e9),
        st.integers(-(2**45), 2**45).map(lambda n: n / 1024),
    )


@given(seconds())
def test_float_seconds_convert_exactly_as_the_fraction_reference(value: float) -> None:
    """to_ns, instant_ns (a job's start time) and float_ns give the float's exact nanoseconds,
    rounded half to even, for every finite float; a job's start time is the same instant."""
    expected = exact_ns(value)
    fraction = Fraction(value) * 10**9
    event("a tie (exactly half a nanosecond)" if fraction.denominator == 2 else "no tie")
    event("whole seconds" if value.is_integer() else "a fraction of a second")
    assert float_ns(value) == expected
    assert to_ns(value, "a time") == expected
    assert instant_ns(value, object()) == expected
    if abs(value) < 1e11:
        assert Job("j", "q", start_time=value).start_time == from_ns(expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, 0),
        (-0.0, 0),
        (1.5, 1_500_000_000),
        (1 / 1024, 976_562),  # 976,562.5: the even neighbour
        (3 / 1024, 2_929_688),  # 2,929,687.5: the even neighbour
        (-1 / 1024, -976_562),
        (1732000000.1234567, 1_732_000_000_123_456_717),
        (5e-324, 0),
    ],
)
def test_float_seconds_examples(value: float, expected: int) -> None:
    assert to_ns(value, "a time") == expected == exact_ns(value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_finite_time_is_still_refused_naming_the_job(value: float) -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        instant_ns(value, Job("train", "q"))
    assert (
        str(caught.value)
        == f"invalid time {value!r} for job 'train' start_time: not a finite number"
    )
    with pytest.raises(InvalidTimestamp) as caught:
        to_ns(value, "the session's now")
    assert str(caught.value) == f"invalid time {value!r} for the session's now: not a finite number"


def test_a_boolean_is_not_seconds() -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        instant_ns(True, Job("train", "q"))
    assert "invalid time True for job 'train' start_time" in str(caught.value)

"""Instants as exact integer nanoseconds (``minruntime._time``): a float's exact value, fast."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import InvalidTimestamp, Job
from minruntime._time import EARLIEST, FOREVER, float_ns, from_ns, instant_ns, start_ns, to_ns


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
    event("in floats (|x| >= 2**20)" if abs(value) >= 2**20 else "in integers (|x| < 2**20)")
    assert float_ns(value) == expected
    assert to_ns(value, "a time") == expected
    assert instant_ns(value, object()) == expected
    in_a_job = abs(value) < 1e11
    event("a job's start time too (|x| < 1e11)" if in_a_job else "beyond a job's (|x| >= 1e11)")
    if in_a_job:
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


def job_start_ns(seconds: float) -> int:
    """The reference for a job's start: the exact nanoseconds rounded up to the microsecond,
    within the instants a datetime holds."""
    micros = -(-exact_ns(seconds) // 1000)
    first, last = exact_ns(EARLIEST.timestamp()) // 1000, (FOREVER - from_ns(0)) // _MICRO
    return min(max(micros, first), last) * 1000


_MICRO = from_ns(1000) - from_ns(0)


def start_seconds() -> st.SearchStrategy[float]:
    """Finite floats, most of them start times of the fast path's range (2**20 to 2**33
    seconds): any float there, ties (multiples of 1/1024 s), and floats next to a whole
    microsecond (where rounding up to it is decided by the last nanosecond)."""
    fast = st.floats(2.0**20, 2.0**33, exclude_max=True)
    micro_edges = st.tuples(
        st.integers(2**20 * 10**6, 2**33 * 10**6 - 1), st.sampled_from([-1.0, 0.0, 1.0])
    ).map(lambda pair: math.nextafter(pair[0] / 1e6, pair[0] / 1e6 + pair[1]))
    return st.one_of(
        fast,
        micro_edges,
        st.integers(2**30, 2**43 - 1).map(lambda n: n / 1024),
        st.floats(allow_nan=False, allow_infinity=False),
    )


@given(start_seconds())
def test_a_start_time_in_seconds_is_exact_to_the_microsecond_as_a_job_holds_it(
    value: float,
) -> None:
    """start_ns (the facts' start time of POSIX seconds) is the float's exact nanoseconds,
    rounded half to even, then up to the microsecond, within a datetime's range: the exact
    (Fraction) reference, on the fast path (2**20 to 2**33 seconds) and off it; and the instant
    a library Job holds for the same start."""
    fast = 2**20 <= value < 2**33
    event("the fast path" if fast else "the exact path")
    if fast:
        event("a whole microsecond" if exact_ns(value) % 1000 == 0 else "rounded up")
    assert start_ns(value, None) == job_start_ns(value)
    if abs(value) < 1e11:
        job = Job("j", "q", start_time=value)
        assert job.start_time is not None
        assert start_ns(value, None) == to_ns(job.start_time, "start")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1795867200.0, 1_795_867_200_000_000_000),
        (1795867200.0000003, 1_795_867_200_000_001_000),  # 238.4 ns: up to the microsecond
        (2.0**20 + 1 / 1024, 1_048_576_000_977_000),  # 976,562.5 ns: 976,562, then up
        (2.0**33 - 2.0**-20, 8_589_934_592_000_000_000),  # ...999,046.3 ns: up
        (1.0000001, 1_000_001_000),
        (-1.5e-7, 0),
        (1e300, (FOREVER - from_ns(0)) // _MICRO * 1000),
    ],
)
def test_start_time_examples(value: float, expected: int) -> None:
    assert start_ns(value, None) == expected == job_start_ns(value)

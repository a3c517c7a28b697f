"""The protection predicate and protected_until (docs/spec/protection.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import FOREVER, InvalidTimestamp, MinRuntime, MinRuntimeError
from minruntime._protection import is_protected, protected_until
from minruntime.testing import BASE_TIME, min_runtimes

START = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
TEN_MINUTES = MinRuntime("10m")
ONE_MICROSECOND = timedelta(microseconds=1)


# ---------------------------------------------------------------------------------------------
# The boundary: protected iff now < start + MR
# ---------------------------------------------------------------------------------------------


def test_exactly_at_start_plus_mr_is_not_protected() -> None:
    assert is_protected(TEN_MINUTES, START, START + timedelta(minutes=10)) is False


def test_one_microsecond_before_start_plus_mr_is_protected() -> None:
    assert is_protected(TEN_MINUTES, START, START + timedelta(minutes=10) - ONE_MICROSECOND) is True


def test_one_microsecond_after_start_plus_mr_is_not_protected() -> None:
    assert (
        is_protected(TEN_MINUTES, START, START + timedelta(minutes=10) + ONE_MICROSECOND) is False
    )


def test_at_start_is_protected_for_a_positive_mr() -> None:
    assert is_protected(TEN_MINUTES, START, START) is True


def test_nanosecond_boundary_with_posix_seconds() -> None:
    mr = MinRuntime.from_nanoseconds(1500)
    assert is_protected(mr, 0, 1.499e-6) is True  # 1499 ns after the start
    assert is_protected(mr, 0, 1.5e-6) is False  # exactly 1500 ns after the start
    assert is_protected(MinRuntime.from_nanoseconds(1), 100, 100) is True


def test_boundary_with_integer_posix_seconds() -> None:
    assert is_protected(TEN_MINUTES, 1_700_000_000, 1_700_000_599) is True
    assert is_protected(TEN_MINUTES, 1_700_000_000, 1_700_000_600) is False


def test_boundary_with_float_posix_seconds() -> None:
    assert is_protected(TEN_MINUTES, 1_700_000_000.25, 1_700_000_600.0) is True
    assert is_protected(TEN_MINUTES, 1_700_000_000.25, 1_700_000_600.25) is False


def test_datetimes_and_posix_seconds_mix() -> None:
    start_seconds = START.timestamp()
    assert start_seconds == 1_795_348_800.0
    assert is_protected(TEN_MINUTES, 1_795_348_800, START + timedelta(minutes=10)) is False
    assert is_protected(TEN_MINUTES, START, 1_795_348_800 + 599) is True
    assert is_protected(TEN_MINUTES, START, 1_795_348_800 + 600) is False


def test_any_timezone_aware_datetime_is_the_same_instant() -> None:
    plus_two = timezone(timedelta(hours=2))
    start = START.astimezone(plus_two)
    assert is_protected(TEN_MINUTES, start, START + timedelta(minutes=10)) is False
    assert is_protected(TEN_MINUTES, start, datetime(2026, 11, 22, 14, 9, tzinfo=plus_two)) is True


# ---------------------------------------------------------------------------------------------
# Never, no start time, future start time
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "start",
    [None, START, START - timedelta(days=3650), START + timedelta(days=1), 0, 1.5],
)
def test_never_is_protected_whatever_the_start_time(start: datetime | float | None) -> None:
    assert is_protected(MinRuntime.NEVER, start, START) is True
    assert is_protected(MinRuntime.NEVER, start, START + timedelta(days=36500)) is True


@pytest.mark.parametrize("mr", [MinRuntime.ZERO, TEN_MINUTES, MinRuntime("520w")])
def test_no_start_time_is_not_protected(mr: MinRuntime) -> None:
    assert is_protected(mr, None, START) is False


def test_future_start_time_protects_until_start_plus_mr() -> None:
    start = START + timedelta(minutes=5)
    assert is_protected(TEN_MINUTES, start, START) is True
    assert is_protected(TEN_MINUTES, start, start + timedelta(minutes=10) - ONE_MICROSECOND) is True
    assert is_protected(TEN_MINUTES, start, start + timedelta(minutes=10)) is False


def test_future_start_time_protects_even_with_zero_mr() -> None:
    start = START + timedelta(seconds=30)
    assert is_protected(MinRuntime.ZERO, start, START) is True
    assert is_protected(MinRuntime.ZERO, start, start - ONE_MICROSECOND) is True
    assert is_protected(MinRuntime.ZERO, start, start) is False
    assert is_protected(MinRuntime.ZERO, 100, 50) is True


def test_zero_mr_with_past_start_is_not_protected() -> None:
    assert is_protected(MinRuntime.ZERO, START, START) is False
    assert is_protected(MinRuntime.ZERO, START - timedelta(hours=1), START) is False


# ---------------------------------------------------------------------------------------------
# Bad times
# ---------------------------------------------------------------------------------------------


def test_naive_now_raises_invalid_timestamp_saying_naive() -> None:
    naive = datetime(2026, 1, 1)
    with pytest.raises(InvalidTimestamp) as caught:
        is_protected(TEN_MINUTES, START, naive)
    message = str(caught.value)
    assert "naive" in message
    assert "2026-01-01 00:00:00" in message
    assert "now" in message
    assert caught.value.value == naive
    assert caught.value.origin == "now"
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, MinRuntimeError)


def test_naive_start_time_raises_invalid_timestamp_saying_naive() -> None:
    naive = datetime(2026, 1, 1, 12, 30)
    with pytest.raises(InvalidTimestamp) as caught:
        is_protected(TEN_MINUTES, naive, START)
    assert str(caught.value).startswith("naive datetime 2026-01-01 12:30:00 for the start time:")
    assert caught.value.origin == "the start time"


def test_naive_start_time_raises_in_protected_until() -> None:
    with pytest.raises(InvalidTimestamp, match="naive datetime 2026-01-01 00:00:00"):
        protected_until(TEN_MINUTES, datetime(2026, 1, 1))


def test_naive_now_raises_even_for_never() -> None:
    with pytest.raises(InvalidTimestamp, match="naive"):
        is_protected(MinRuntime.NEVER, None, datetime(2026, 1, 1))


@pytest.mark.parametrize("now", [True, False, "2026-01-01T00:00:00Z", None, float("nan")])
def test_now_of_the_wrong_kind_is_rejected_naming_it(now: object) -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        is_protected(TEN_MINUTES, START, now)
    assert repr(now) in str(caught.value)
    assert "for now" in str(caught.value)
    assert caught.value.origin == "now"


@pytest.mark.parametrize("start", [True, "2026-01-01T00:00:00Z", float("inf")])
def test_start_time_of_the_wrong_kind_is_rejected_naming_it(start: object) -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        is_protected(TEN_MINUTES, start, START)
    assert repr(start) in str(caught.value)
    assert "for the start time" in str(caught.value)


# ---------------------------------------------------------------------------------------------
# protected_until
# ---------------------------------------------------------------------------------------------


def test_protected_until_is_forever_for_never() -> None:
    assert protected_until(MinRuntime.NEVER, None) is FOREVER
    assert protected_until(MinRuntime.NEVER, START) is FOREVER
    assert datetime.max.replace(tzinfo=UTC) == FOREVER


def test_protected_until_is_none_without_a_start_time() -> None:
    assert protected_until(TEN_MINUTES, None) is None
    assert protected_until(MinRuntime.ZERO, None) is None


def test_protected_until_is_start_plus_mr() -> None:
    assert protected_until(TEN_MINUTES, START) == datetime(2026, 11, 22, 12, 10, tzinfo=UTC)
    assert protected_until(MinRuntime.ZERO, START) == START
    assert protected_until(MinRuntime("90s"), 0) == datetime(1970, 1, 1, 0, 1, 30, tzinfo=UTC)
    assert protected_until(MinRuntime("90s"), 0.5) == datetime(
        1970, 1, 1, 0, 1, 30, 500_000, tzinfo=UTC
    )
    until = protected_until(TEN_MINUTES, START)
    assert until is not None
    assert until.utcoffset() == timedelta(0)


def test_protected_until_rounds_a_sub_microsecond_mr_up() -> None:
    assert protected_until(MinRuntime.from_nanoseconds(1), START) == START + ONE_MICROSECOND
    assert protected_until(MinRuntime.from_nanoseconds(1001), START) == START + 2 * ONE_MICROSECOND
    assert protected_until(MinRuntime.from_nanoseconds(1000), START) == START + ONE_MICROSECOND
    until = protected_until(MinRuntime.from_nanoseconds(1), START)
    assert until is not None
    assert is_protected(MinRuntime.from_nanoseconds(1), START, until) is False


def test_protected_until_of_a_future_start() -> None:
    start = START + timedelta(hours=1)
    assert protected_until(MinRuntime.ZERO, start) == start
    assert protected_until(TEN_MINUTES, start) == start + timedelta(minutes=10)


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------

_SPAN = 30 * 86_400 * 10**6  # microseconds either side of BASE_TIME
instants = st.integers(-_SPAN, _SPAN).map(lambda us: BASE_TIME + timedelta(microseconds=us))
start_times = st.one_of(st.none(), instants, st.integers(1_700_000_000, 1_800_000_000))


@given(min_runtimes(), start_times, instants, st.integers(0, 10**12), st.booleans(), st.data())
def test_more_elapsed_time_never_turns_unprotected_into_protected(
    mr: MinRuntime,
    start: datetime | int | None,
    now: datetime,
    later_us: int,
    near: bool,
    data: st.DataObject,
) -> None:
    """More elapsed time never makes a victim protected again (protection only ends)."""
    later = now + timedelta(microseconds=later_us)
    end = protected_until(mr, start)
    if near and end is not None and end is not FOREVER:  # now before the protection ends, later not
        now = end - timedelta(microseconds=data.draw(st.integers(1, 10**9), label="before"))
        later = end + timedelta(microseconds=later_us)
    protected_now, protected_later = is_protected(mr, start, now), is_protected(mr, start, later)
    event(f"protected now: {protected_now}; later: {protected_later}")
    assert protected_now or not protected_later


@given(start_times, instants)
def test_never_is_always_protected(start: datetime | int | None, now: datetime) -> None:
    """Never is always protected, whatever the start time and now."""
    assert is_protected(MinRuntime.NEVER, start, now) is True
    assert protected_until(MinRuntime.NEVER, start) is FOREVER


@given(min_runtimes(allow_never=False), instants, instants)
def test_protected_exactly_until_protected_until(
    mr: MinRuntime, start: datetime, now: datetime
) -> None:
    """For microsecond instants, protected at now iff now < protected_until (rounded up)."""
    until = protected_until(mr, start)
    assert until is not None
    assert is_protected(mr, start, now) is (now < until)


@given(min_runtimes(), instants)
def test_no_start_time_is_never_protected_unless_never(mr: MinRuntime, now: datetime) -> None:
    """Without a start time only never protects."""
    assert is_protected(mr, None, now) is mr.is_never

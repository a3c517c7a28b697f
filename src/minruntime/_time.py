"""Instants as exact integer nanoseconds since the POSIX epoch (private helpers).

Time enters the library as a timezone-aware datetime or POSIX seconds; a naive datetime is
rejected where it enters. Inside, an instant is an int of nanoseconds, so that comparisons are
exact and cheap.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Final

from minruntime.errors import InvalidTimestamp

EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
NS_PER_SECOND: Final = 1_000_000_000
NS_PER_MICROSECOND: Final = 1_000

FOREVER: Final = datetime.max.replace(tzinfo=UTC)
"""The ``protected_until`` of a victim protected by a never min-runtime."""
EARLIEST: Final = datetime.min.replace(tzinfo=UTC)
"""The earliest instant a datetime holds."""

Instant = datetime | int | float


def to_ns(value: object, what: str) -> int:
    """Nanoseconds since the epoch of an aware datetime or POSIX seconds.

    Raises:
        InvalidTimestamp: for a naive datetime, a boolean, a non-finite number or another type.
    """
    if value.__class__ is float and value - value == 0.0:
        return float_ns(value)  # finite: inf - inf is nan
    if isinstance(value, datetime):
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            raise InvalidTimestamp(
                f"naive datetime {value} for {what}: give a timezone-aware datetime "
                "(for example with tzinfo=timezone.utc) or POSIX seconds",
                value=value,
                origin=what,
            )
        delta = value - EPOCH
        return (delta.days * 86_400 + delta.seconds) * NS_PER_SECOND + (
            delta.microseconds * NS_PER_MICROSECOND
        )
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidTimestamp(
            f"invalid time {value!r} for {what}: expected a timezone-aware datetime or "
            "POSIX seconds",
            value=value,
            origin=what,
        )
    if isinstance(value, int):
        return value * NS_PER_SECOND
    if not math.isfinite(value):
        raise InvalidTimestamp(
            f"invalid time {value!r} for {what}: not a finite number", value=value, origin=what
        )
    return float_ns(value)


_EXACT_PRODUCT: Final = 2.0**20
"""From this magnitude up, a float's fraction of a second times 1e9 is exact in floats."""


def float_ns(seconds: float) -> int:
    """The exact nanoseconds of finite float seconds, rounded half to even.

    From 2**20 seconds (12 days after the epoch) up, in floats: a float ``x`` there is a
    multiple of ``2**(e - 52)`` with ``2**e <= |x|``, ``e >= 20``, so its fraction of a second
    ``x - int(x)`` (exact: a difference of two floats of the same binade or less) is ``m``
    times that power of two with ``m < 2**32``; times 1e9 (``2**9 * 1953125``) it is ``m *
    1953125`` (below ``2**53``) times a power of two, which a float holds exactly, and
    ``round`` rounds it half to even. Below, the float's exact binary value (numerator over a
    power of two) times 10**9, in integer arithmetic.

    >>> float_ns(1.5), float_ns(-1e-9), float_ns(1732000000.1234567)
    (1500000000, -1, 1732000000123456717)
    """
    if seconds >= _EXACT_PRODUCT or seconds <= -_EXACT_PRODUCT:
        whole = int(seconds)
        return whole * NS_PER_SECOND + round((seconds - whole) * 1e9)
    if seconds.is_integer():
        return int(seconds) * NS_PER_SECOND
    numerator, denominator = seconds.as_integer_ratio()
    whole, rest = divmod(numerator * NS_PER_SECOND, denominator)
    twice = rest + rest
    if twice > denominator or (twice == denominator and whole & 1):
        whole += 1
    return whole


def optional_to_ns(value: object, what: str) -> int | None:
    """Like :func:`to_ns`, with ``None`` kept as ``None``."""
    return None if value is None else to_ns(value, what)


def from_ns(ns: int) -> datetime:
    """The UTC datetime of an instant, rounded up to the microsecond (datetimes hold no less)."""
    micros = -(-ns // NS_PER_MICROSECOND)
    try:
        return EPOCH + timedelta(0, 0, micros)  # positional: no keyword parsing
    except OverflowError:
        return FOREVER if micros > 0 else EARLIEST


_ONE_MICROSECOND: Final = timedelta(microseconds=1)


def instant_ns(value: object, job: object) -> int:
    """:func:`to_ns` of a job's start time, with fast paths for an aware datetime (two C
    operations: a naive one fails the subtraction) and for finite POSIX seconds, and errors
    that name the job."""
    if value.__class__ is datetime:
        try:
            return (value - EPOCH) // _ONE_MICROSECOND * NS_PER_MICROSECOND
        except TypeError:
            pass
    elif value.__class__ is float:
        if value - value == 0.0:  # finite: inf - inf and nan - nan are nan
            return float_ns(value)
    elif value.__class__ is int:
        return value * NS_PER_SECOND
    return to_ns(value, f"job {getattr(job, 'id', job)!r} start_time")


_MICROS_FIRST: Final = (EARLIEST - EPOCH) // timedelta(microseconds=1)
_MICROS_LAST: Final = (FOREVER - EPOCH) // timedelta(microseconds=1)


_FAST_FIRST: Final = float(2**20)
_FAST_END: Final = float(2**33)
"""POSIX seconds in [2**20, 2**33) (1970-01-13 to 2242) take :func:`start_ns`'s fast path."""


def start_ns(value: object, job: object) -> int:
    """A job's start time in nanoseconds as a :class:`~minruntime.Job` holds it: the exact
    nanoseconds (:func:`instant_ns`, with its errors) rounded up to the microsecond (as
    :func:`from_ns`), within the instants a datetime holds (an instant beyond them is the first
    or last).

    POSIX seconds ``x`` from 2**20 to 2**33 (the start of every job now running) take a fast
    path in floats, each step exact: ``w = x // 1.0`` and ``t = (x - w) * 1e9`` (the
    nanoseconds past the second, exact as in :func:`float_ns`); rounded half to even, ``t`` is
    at most ``1000 * k`` exactly when ``t - 0.5 <= 1000 * k`` (``1000 * k`` is even), so the
    microseconds past the second are ``-((0.5 - t) // 1000.0)`` (``0.5 - t`` is exact: ``t`` is a
    multiple of ``2**-23`` below ``2**30``); and ``w * 1e6`` plus them is an integer below
    ``2**53``, exact in a float.

    >>> start_ns(1.0000001, None), start_ns(1795867200.0000003, None)
    (1000001000, 1795867200000001000)
    >>> start_ns(1e300, None) == start_ns(FOREVER, None)
    True
    """
    if value.__class__ is float and _FAST_FIRST <= value < _FAST_END:
        whole = value // 1.0
        return int(whole * 1e6 - (0.5 - (value - whole) * 1e9) // 1000.0) * NS_PER_MICROSECOND
    micros = -(-instant_ns(value, job) // NS_PER_MICROSECOND)
    if micros > _MICROS_LAST:
        micros = _MICROS_LAST
    elif micros < _MICROS_FIRST:
        micros = _MICROS_FIRST
    return micros * NS_PER_MICROSECOND


def checked_from_ns(ns: int, what: str) -> datetime:
    """Like :func:`from_ns`, but an instant a datetime cannot hold is an error, not clamped.

    Raises:
        InvalidTimestamp: for an instant before 0001-01-01 or after 9999-12-31 (UTC).
    """
    moment = from_ns(ns)
    if moment in (FOREVER, EARLIEST):
        raise InvalidTimestamp(
            f"time for {what} out of range (expected an instant between "
            "0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z)",
            value=ns,
            origin=what,
        )
    return moment

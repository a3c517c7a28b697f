"""The protection predicate: may min-runtime let a victim be evicted at ``now``?

- A never MR protects, whatever the start time (checked first).
- No start time: not protected.
- Otherwise protected iff ``now < start + MR``: strict, so at exactly ``start + MR`` the victim
  is no longer protected. A start time in the future protects until ``start + MR``.

Times are timezone-aware datetimes or POSIX seconds; ``now`` is always an argument.

>>> from datetime import datetime, timezone
>>> from minruntime import MinRuntime
>>> start = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
>>> is_protected(MinRuntime("10m"), start, datetime(2026, 11, 22, 12, 9, tzinfo=timezone.utc))
True
>>> is_protected(MinRuntime("10m"), start, datetime(2026, 11, 22, 12, 10, tzinfo=timezone.utc))
False
>>> protected_until(MinRuntime("10m"), start)
datetime.datetime(2026, 11, 22, 12, 10, tzinfo=datetime.timezone.utc)
"""

from __future__ import annotations

from datetime import datetime

from minruntime._time import FOREVER, Instant, from_ns, optional_to_ns, to_ns
from minruntime.durations import MinRuntime

__all__ = ["FOREVER", "is_protected", "protected_ns", "protected_until"]


def protected_ns(min_runtime: MinRuntime, start_ns: int | None, now_ns: int) -> bool:
    """The protection predicate on nanoseconds: never, else ``now < start + MR``.

    >>> protected_ns(MinRuntime("1s"), 0, 999_999_999), protected_ns(MinRuntime("1s"), 0, 10**9)
    (True, False)
    """
    if min_runtime._ns < 0:
        return True
    return start_ns is not None and now_ns < start_ns + min_runtime._ns


def is_protected(min_runtime: MinRuntime, start_time: Instant | None, now: Instant) -> bool:
    """Whether a victim that (re)started at ``start_time`` is protected at ``now``.

    Args:
        min_runtime: the resolved MR.
        start_time: when the victim last went from no running pods to running, or ``None``.
        now: the instant of the decision.

    Raises:
        InvalidTimestamp: for a naive datetime or a value that is not a time.

    >>> is_protected(MinRuntime.NEVER, None, 0)
    True
    >>> is_protected(MinRuntime("1h"), None, 0)
    False
    >>> is_protected(MinRuntime(0), 100, 50)  # a start time in the future
    True
    """
    now_ns = to_ns(now, "now")
    if min_runtime.is_never:
        return True
    return protected_ns(min_runtime, optional_to_ns(start_time, "the start time"), now_ns)


def protected_until(min_runtime: MinRuntime, start_time: Instant | None) -> datetime | None:
    """The first instant at which the victim is no longer protected.

    Returns :data:`FOREVER` for a never MR and ``None`` without a start time (never
    protected). A sub-microsecond MR is rounded up to the next microsecond, so that the victim
    really is unprotected at the instant returned.

    >>> protected_until(MinRuntime.NEVER, None) is FOREVER
    True
    >>> protected_until(MinRuntime("90s"), 0)
    datetime.datetime(1970, 1, 1, 0, 1, 30, tzinfo=datetime.timezone.utc)
    """
    if min_runtime.is_never:
        return FOREVER
    start_ns = optional_to_ns(start_time, "the start time")
    if start_ns is None:
        return None
    return from_ns(start_ns + min_runtime._ns)

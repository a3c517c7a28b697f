"""Preemption delay (docs/spec/preemption-delay.md): may this pending job trigger evictions yet?

A pending job may be held back from triggering evictions for a while, so that a cluster
autoscaler can win the race and nobody has to be evicted. Min-runtime protects the victim; the
delay holds back the preemptor; both apply.

The rule: the delay's anchor is ``max(creation time, last eviction)`` (a job evicted and pending
again gets a fresh window); the job may trigger evictions once ``now >= anchor + delay`` (at
exactly that instant it may). No delay (unset or zero), or no anchor at all: never held back. A
delay of never: never triggers evictions.

>>> from minruntime import MinRuntime
>>> S = 10**9
>>> held_until_ns(MinRuntime("5m"), anchors=(0, 120 * S)) // S       # anchored at the eviction
420
>>> is_held(held_until_ns(MinRuntime("5m"), anchors=(0,)), now_ns=300 * S)  # exactly at the end
False
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from minruntime._protection import FOREVER_NS
from minruntime.durations import MinRuntime

__all__ = ["held_until_ns", "is_held", "last_eviction_ns"]


def last_eviction_ns(last_eviction: int | None, evictions: Sequence[int] | None) -> int | None:
    """A job's last eviction, the delay's second anchor: the latest of its eviction times
    (sorted, oldest first) and a lone last-eviction time, or ``None`` when neither is known.

    >>> last_eviction_ns(5, (1, 9)), last_eviction_ns(None, None), last_eviction_ns(5, ())
    (9, None, 5)
    """
    latest = evictions[-1] if evictions else None
    if last_eviction is None or (latest is not None and latest > last_eviction):
        return latest
    return last_eviction


def held_until_ns(delay: MinRuntime | None, anchors: Iterable[int | None]) -> int | None:
    """The first instant at which a job with this delay may trigger evictions.

    ``anchors`` are its creation time and its evictions (nanoseconds; ``None`` where unknown):
    the latest counts. ``None`` when nothing holds it back (no delay, a zero delay, or no
    anchor); :data:`~minruntime._protection.FOREVER_NS` for a delay of never.
    """
    if delay is None or not delay:
        return None
    if delay.is_never:
        return FOREVER_NS
    known = [anchor for anchor in anchors if anchor is not None]
    if not known:
        return None
    return max(known) + delay.ns


def is_held(until_ns: int | None, now_ns: int) -> bool:
    """Whether the job is still within its delay at ``now``: strictly before its end."""
    return until_ns is not None and now_ns < until_ns

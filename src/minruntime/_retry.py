"""The retry time (docs/spec/session.md, ``next_expiry``, and docs/spec/preemption-delay.md): when
a preemptor that could not get what it needs should ask again.

- A victim **waits** for the retry when it passes every fundamental but is protected: refused
  by its protection (min-runtime, a job's own request, a spent eviction budget, the checkpoint
  grace), or elastic and held to its minimum. A semi-preemptible victim does not: its protection
  changes nothing, its core stays whatever the time (docs/decisions/
  next-expiry-ignores-semi-preemptible.md). A never min-runtime never ends.
- The retry is the earliest end of those protections after ``now``; none when no victim waits.
- While the preemptor is within its preemption delay, a victim that is free already counts as
  ending now, and the retry is the end of the delay or, if every victim is still protected then,
  the earliest moment both have passed; a delay of never gives no retry.

The instants are integer nanoseconds; :data:`~minruntime._protection.FOREVER_NS` is never.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from minruntime._protection import FOREVER_NS
from minruntime.decisions import ALLOWED, Reason

__all__ = ["WAITING", "earliest", "free_now", "waits"]

WAITING: Final = frozenset({Reason.PROTECTED, Reason.EVICTION_BUDGET, Reason.CHECKPOINT_GRACE})
"""The reasons of a victim refused by its protection alone."""


def waits(reason: Reason, semi: bool) -> bool:
    """Whether a victim with this reason waits for the end of its protection.

    >>> waits(Reason.PROTECTED, False), waits(Reason.DEFERRED, True), waits(Reason.NEVER, False)
    (True, False, False)
    """
    return reason in WAITING or (reason is Reason.DEFERRED and not semi)


def free_now(reason: Reason, delayed: bool) -> bool:
    """Whether a victim counts as ending ``now`` for the retry: it is free already (allowed) and
    only the preemptor's delay holds the preemptor back."""
    return delayed and reason in ALLOWED


def earliest(ends: Iterable[int | None], held: int | None, delayed: bool) -> int | None:
    """The retry instant from the ends of the waiting victims' protections (``None``: none),
    and the preemptor's delay (``held``: its end, ``delayed``: whether it holds now).

    >>> earliest([300, None, 120, FOREVER_NS], None, False)
    120
    >>> earliest([120], held=600, delayed=True), earliest([], held=FOREVER_NS, delayed=True)
    (600, None)
    """
    found: int | None = None
    for end in ends:
        if end is not None and end < FOREVER_NS and (found is None or end < found):
            found = end
    if delayed:
        assert held is not None
        found = held if found is None else max(held, found)
        if found >= FOREVER_NS:
            return None
    return found

"""The windows in which an eviction may not happen: while a victim is protected, and while a
preemptor is held back.

This module is the one home of docs/spec/protection.md (min-runtime), of the protections of
docs/spec/beyond-min-runtime.md (a job's own request, the eviction budget, the checkpoint
grace), and of docs/spec/preemption-delay.md (the preemptor's side: how long a pending job waits
before it may trigger evictions). Every decision of the library (batch eligibility, one victim,
validation, evictable tasks, ``explain``, ``next_expiry``, ranking, statistics, the cycle form)
is derived from the functions below. The two sides are written together because they are the
same kind of rule, an instant compared with ``now`` (a window that never ends is
:data:`FOREVER_NS` for both), and because each decision asks both.

Min-runtime, the rule: a never MR protects whatever the start time; no start time is not
protected; otherwise a victim is protected iff ``now < start + MR``. It is written here once, as
a *threshold*: :func:`free_before` gives the latest start time that min-runtime leaves
unprotected at ``now``, so that "protected" is ``start > threshold``. A group of victims that
share an MR (one queue, one preemptor) evaluates the rule once, as one threshold, and splits the
group with it (a comparison per victim, or one binary search over start times); a single victim
is the same rule with a group of one.

Instants and durations here are integer nanoseconds (private); values enter as
:class:`~minruntime.MinRuntime` and are read through its accessors, never through its encoding.

>>> from minruntime import MinRuntime
>>> S = 10**9
>>> free_before(MinRuntime("10m"), now_ns=3600 * S) // S   # started at or before 50m: free
3000
>>> is_protected_ns(MinRuntime("10m"), start_ns=3000 * S + 1, now_ns=3600 * S)
True
>>> free_before(MinRuntime.NEVER, now_ns=0) is None          # nothing is free
True

The preemption delay, the rule: the delay's anchor is ``max(creation time, last eviction)`` (a
job evicted and pending again gets a fresh window); the job may trigger evictions once
``now >= anchor + delay`` (at exactly that instant it may). No delay (unset or zero), or no
anchor at all: never held back. A delay of never: never triggers evictions. Min-runtime protects
the victim; the delay holds back the preemptor; both apply.

>>> held_until_ns(MinRuntime("5m"), anchors=(0, 120 * S)) // S       # anchored at the eviction
420
>>> is_held(held_until_ns(MinRuntime("5m"), anchors=(0,)), now_ns=300 * S)  # exactly at the end
False
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Final, NamedTuple

import attrs

from minruntime.decisions import ProtectionKind
from minruntime.durations import MinRuntime

__all__ = [
    "FOREVER_NS",
    "NO_INPUTS",
    "NO_SETTINGS",
    "Inputs",
    "Protection",
    "Settings",
    "checkpoint_of_run",
    "effective_min_runtime",
    "evictions_in_window",
    "free_before",
    "held_until_ns",
    "is_held",
    "is_protected_ns",
    "last_eviction_ns",
    "next_checkpoint_ns",
    "protection",
    "protection_end_ns",
    "unsaved_seconds",
    "work_since_ns",
]

FOREVER_NS: Final = 1 << 80
"""An instant past any datetime: how long never, and a spent count-only budget, protect."""


def free_before(min_runtime: MinRuntime, now_ns: int) -> int | None:
    """The latest start time that ``min_runtime`` leaves unprotected at ``now``; ``None``: never.

    A victim that started at or before it is free (at exactly ``start + MR`` the protection is
    over); one that started after it is protected; one with no start time is free unless the MR
    is never. This is the min-runtime rule, evaluated once per group of victims that share an MR.

    >>> from minruntime import MinRuntime
    >>> free_before(MinRuntime(0), now_ns=100)   # MR 0: a start in the future still protects
    100
    """
    if min_runtime.is_never:
        return None
    return now_ns - min_runtime.ns


def is_protected_ns(min_runtime: MinRuntime, start_ns: int | None, now_ns: int) -> bool:
    """The min-runtime predicate for one victim: the threshold of :func:`free_before`.

    >>> from minruntime import MinRuntime
    >>> is_protected_ns(MinRuntime.NEVER, None, 0), is_protected_ns(MinRuntime("1h"), None, 0)
    (True, False)
    """
    threshold = free_before(min_runtime, now_ns)
    if threshold is None:
        return True
    return start_ns is not None and start_ns > threshold


class Inputs(NamedTuple):
    """A job's section 16 inputs, as exact nanoseconds.

    Attributes:
        checkpoint_ns: its last checkpoint; ``None`` when unknown or before its start time.
        interval_ns: its checkpoint interval, or ``None`` (it does not checkpoint).
        restore_ns: how long it restores after a start before it computes again (the
            checkpoint phase): its first checkpoint of a run is ``start + restore + interval``.
        eviction_ns: its past evictions, sorted; ``None`` where only a count is known.
        eviction_count: how many evictions (the length of ``eviction_ns`` when times are known).
        requested_ns: its own min-runtime request, or ``None``.
        delay: its preemption delay (docs/spec/preemption-delay.md), or ``None``.
        created_ns: when it was created, or ``None``.
        last_eviction_ns: its latest eviction (of its eviction times and a lone last
            eviction), or ``None``.
    """

    checkpoint_ns: int | None = None
    interval_ns: int | None = None
    restore_ns: int = 0
    eviction_ns: tuple[int, ...] | None = ()
    eviction_count: int = 0
    requested_ns: int | None = None
    delay: MinRuntime | None = None
    created_ns: int | None = None
    last_eviction_ns: int | None = None


NO_INPUTS: Final = Inputs()


@attrs.frozen(kw_only=True, cache_hash=True)
class Settings:
    """The section 16 settings that apply to one victim, for one action and preemptor.

    Attributes:
        grace: the checkpoint grace (zero: off), resolved like the MR of the action.
        max_evictions: the eviction budget; ``None`` is unlimited.
        eviction_window: the budget's window; never means ever.
        max_job_min_runtime: the cap on a job's own request (zero: requests ignored; never: no
            cap).
        grace_source, budget_source, cap_source: the queue each came from, or ``None`` for the
            node-pool default.
    """

    grace: MinRuntime = MinRuntime.ZERO
    max_evictions: int | None = None
    eviction_window: MinRuntime = MinRuntime.NEVER
    max_job_min_runtime: MinRuntime = MinRuntime.ZERO
    grace_source: str | None = None
    budget_source: str | None = None
    cap_source: str | None = None

    @property
    def off(self) -> bool:
        """True when none of them can protect anything: min-runtime alone decides."""
        return not self.grace and self.max_evictions is None and not self.max_job_min_runtime


NO_SETTINGS: Final = Settings()


class Protection(NamedTuple):
    """What protects a victim at ``now`` (``kind``, ``None`` if nothing) and until when.

    ``until_ns`` is the first instant at which the victim is free: for a protected victim the
    end of whatever protects it, chained when one protection begins just as another ends;
    ``FOREVER_NS`` for never; ``None`` when it is not protected.
    """

    kind: ProtectionKind | None
    until_ns: int | None


_FREE: Final = Protection(None, None)
_NEVER: Final = Protection(ProtectionKind.NEVER, FOREVER_NS)


def effective_min_runtime(
    min_runtime: MinRuntime, requested_ns: int | None, cap: MinRuntime
) -> MinRuntime:
    """``max(MR, min(requested, cap))``: a job may ask for more protection, up to its queue's cap.

    Never stays never; a zero cap ignores requests; a never cap lets any request through.

    >>> from minruntime import MinRuntime
    >>> S = 10**9
    >>> str(effective_min_runtime(MinRuntime("10m"), 7200 * S, MinRuntime("1h")))  # clipped
    '1h'
    >>> str(effective_min_runtime(MinRuntime("10m"), 60 * S, MinRuntime("1h")))   # never less
    '10m'
    """
    if min_runtime.is_never or requested_ns is None or not cap:
        return min_runtime
    allowed = requested_ns if cap.is_never else min(requested_ns, cap.ns)
    if allowed <= min_runtime.ns:
        return min_runtime
    return MinRuntime.from_nanoseconds(allowed)


def checkpoint_of_run(checkpoint_ns: int | None, start_ns: int | None) -> int | None:
    """The last checkpoint as the rule reads it: one before the start time is of an earlier run
    and ignored (``None``); without a start time it is kept.

    >>> checkpoint_of_run(500, 1000), checkpoint_of_run(1500, 1000), checkpoint_of_run(500, None)
    (None, 1500, 500)
    """
    if checkpoint_ns is not None and start_ns is not None and checkpoint_ns < start_ns:
        return None
    return checkpoint_ns


def work_since_ns(start_ns: int, inputs: Inputs) -> int:
    """Since when the job's work is unsaved: its last checkpoint of this run, else the end of
    its restore after the start (the start itself with no restore phase)."""
    computing = start_ns + inputs.restore_ns
    checkpoint = inputs.checkpoint_ns
    return computing if checkpoint is None or checkpoint < computing else checkpoint


def next_checkpoint_ns(start_ns: int | None, inputs: Inputs) -> int | None:
    """When the job's next checkpoint falls: ``work_since + interval``; ``None`` without one."""
    if inputs.interval_ns is None or start_ns is None:
        return None
    return work_since_ns(start_ns, inputs) + inputs.interval_ns


def unsaved_seconds(start_ns: int | None, inputs: Inputs, now_ns: int) -> float:
    """Seconds of work an eviction at ``now`` would lose per unit of weight (zero unstarted).

    >>> unsaved_seconds(0, Inputs(checkpoint_ns=60 * 10**9), 90 * 10**9)
    30.0
    """
    if start_ns is None:
        return 0.0
    return max(0, now_ns - work_since_ns(start_ns, inputs)) / 1e9


def evictions_in_window(inputs: Inputs, window: MinRuntime, now_ns: int) -> tuple[int, ...] | None:
    """The job's evictions that still count at ``now`` (``t`` counts while ``now < t + window``),
    oldest first; ``None`` where only a count is known (then every eviction counts)."""
    times = inputs.eviction_ns
    if times is None:
        return None
    if window.is_never:
        return times
    span = window.ns
    return tuple(moment for moment in times if now_ns < moment + span)


def _budget_until_ns(inputs: Inputs, settings: Settings, now_ns: int) -> int | None:
    """Until when a spent eviction budget protects, or ``None`` if it is not spent.

    With ``k >= max_evictions`` evictions in the window, protection lasts until the
    ``(k - max_evictions + 1)``-th of them leaves it; with a bare count, or an unbounded window,
    or a budget of zero, for good.
    """
    budget = settings.max_evictions
    if budget is None:
        return None
    recent = evictions_in_window(inputs, settings.eviction_window, now_ns)
    count = inputs.eviction_count if recent is None else len(recent)
    if count < budget:
        return None
    if recent is None or budget == 0 or settings.eviction_window.is_never:
        return FOREVER_NS
    return recent[len(recent) - budget] + settings.eviction_window.ns


def _grace_until_ns(
    start_ns: int | None, inputs: Inputs, grace: MinRuntime, now_ns: int
) -> int | None:
    """The next checkpoint, when it falls within ``(now, now + grace]``; else ``None``.

    Never with a zero grace, and never when the interval is no longer than the grace: such a
    job's next checkpoint is always within the grace, so the grace would protect it for good,
    while its unsaved work never exceeds one interval anyway (docs/decisions/
    checkpoint-protection-order.md).
    """
    if not grace or inputs.interval_ns is None or inputs.interval_ns <= grace.ns:
        return None
    following = next_checkpoint_ns(start_ns, inputs)
    if following is not None and now_ns < following <= now_ns + grace.ns:
        return following
    return None


def _protection_at(
    min_runtime: MinRuntime, start_ns: int | None, inputs: Inputs, settings: Settings, now_ns: int
) -> Protection:
    found = _FREE
    effective = effective_min_runtime(
        min_runtime, inputs.requested_ns, settings.max_job_min_runtime
    )
    if is_protected_ns(effective, start_ns, now_ns):
        assert start_ns is not None  # a finite MR protects only a started job
        kind = (
            ProtectionKind.MIN_RUNTIME
            if is_protected_ns(min_runtime, start_ns, now_ns)
            else ProtectionKind.JOB_REQUEST
        )
        found = Protection(kind, start_ns + effective.ns)
    budget = _budget_until_ns(inputs, settings, now_ns)
    if (
        budget is not None
        and budget > now_ns
        and (found.until_ns is None or budget > found.until_ns)
    ):
        found = Protection(ProtectionKind.EVICTION_BUDGET, budget)
    if found.kind is None:
        grace = _grace_until_ns(start_ns, inputs, settings.grace, now_ns)
        if grace is not None:
            found = Protection(ProtectionKind.CHECKPOINT_GRACE, grace)
    return found


def protection(
    min_runtime: MinRuntime,
    start_ns: int | None,
    inputs: Inputs,
    settings: Settings,
    now_ns: int,
) -> Protection:
    """What protects a victim at ``now``, and the first instant at which it is free.

    In order: a never MR (for good); the effective MR (the resolved MR, lengthened by the job's
    own request up to its queue's cap: ``MIN_RUNTIME``, or ``JOB_REQUEST`` when only the
    request protects); a spent eviction budget (when it lasts longer); and, for a victim neither
    of those protects, the checkpoint grace. When one protection ends just as another begins
    (the MR ends with a checkpoint due within the grace), ``until_ns`` is the end of the last,
    so that a scheduler retrying then finds the victim free. With :data:`NO_SETTINGS` this is
    min-runtime alone.

    >>> from minruntime import MinRuntime
    >>> S = 10**9
    >>> settings = Settings(grace=MinRuntime("10m"))
    >>> inputs = Inputs(interval_ns=1800 * S)
    >>> protection(MinRuntime(0), 0, inputs, settings, now_ns=1500 * S)   # checkpoint at 1800 s
    Protection(kind=<ProtectionKind.CHECKPOINT_GRACE: 'checkpoint-grace'>, until_ns=1800000000000)
    >>> protection(MinRuntime(0), 0, inputs, settings, now_ns=1000 * S)   # 800 s away
    Protection(kind=None, until_ns=None)
    """
    if min_runtime.is_never:
        return _NEVER
    if settings is NO_SETTINGS:
        if is_protected_ns(min_runtime, start_ns, now_ns):
            assert start_ns is not None
            return Protection(ProtectionKind.MIN_RUNTIME, start_ns + min_runtime.ns)
        return _FREE
    found = _protection_at(min_runtime, start_ns, inputs, settings, now_ns)
    until = found.until_ns
    if until is not None:
        for _ in range(8):  # each link ends at a later instant; a few links at most in practice
            if until >= FOREVER_NS:
                break
            later = _protection_at(min_runtime, start_ns, inputs, settings, until).until_ns
            if later is None or later <= until:
                break
            until = later
    return Protection(found.kind, until)


def protection_end_ns(
    found: Protection,
    min_runtime: MinRuntime,
    start_ns: int | None,
    inputs: Inputs,
    settings: Settings,
) -> int | None:
    """When the victim's protection ends: for a protected victim the end of what protects it
    (:attr:`Protection.until_ns`); for one that is not, when its effective min-runtime ended
    (``start + MR``, a job's own request included); ``None`` without a start time.

    >>> from minruntime import MinRuntime
    >>> S = 10**9
    >>> protection_end_ns(Protection(None, None), MinRuntime("1m"), 0, NO_INPUTS, NO_SETTINGS) // S
    60
    """
    if found.until_ns is not None:
        return found.until_ns
    if start_ns is None:
        return None
    effective = effective_min_runtime(
        min_runtime, inputs.requested_ns, settings.max_job_min_runtime
    )
    return start_ns + effective.ns


def is_protected(min_runtime: MinRuntime, start_time: object, now: object) -> bool:
    """:func:`is_protected_ns` for times as datetimes or POSIX seconds (a convenience for
    tests and tools; the rule is :func:`free_before`).

    >>> from minruntime import MinRuntime
    >>> is_protected(MinRuntime("1h"), 0, 3599), is_protected(MinRuntime("1h"), 0, 3600)
    (True, False)
    """
    from minruntime._time import optional_to_ns, to_ns

    now_ns = to_ns(now, "now")
    return is_protected_ns(min_runtime, optional_to_ns(start_time, "the start time"), now_ns)


def protected_until(min_runtime: MinRuntime, start_time: object) -> datetime | None:
    """When min-runtime alone stops protecting a victim: ``FOREVER`` for never, ``None``
    without a start time (rounded up to the microsecond).

    >>> from minruntime import MinRuntime
    >>> protected_until(MinRuntime("90s"), 0).isoformat()
    '1970-01-01T00:01:30+00:00'
    """
    from minruntime._time import FOREVER, from_ns, optional_to_ns

    if min_runtime.is_never:
        return FOREVER
    start_ns = optional_to_ns(start_time, "the start time")
    return None if start_ns is None else from_ns(start_ns + min_runtime.ns)


# -- the preemptor's side: the preemption delay (docs/spec/preemption-delay.md) ---------------
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
    anchor); :data:`FOREVER_NS` for a delay of never.
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

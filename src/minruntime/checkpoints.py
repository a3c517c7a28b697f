"""Checkpoint-aware protection (BEHAVIOR.md section 16), as pure functions over nanoseconds.

Plain min-runtime cuts restarts but does not know how much work an eviction destroys. These
rules, all opt-in, use what a job says about its checkpoints and its history:

- **per-job request**: the effective MR is ``max(MR, min(requested, max_job_min_runtime))``;
- **eviction budget**: a job evicted ``max_evictions`` times within ``eviction_window`` is
  protected until the oldest of those evictions leaves the window (for good with a bare count);
- **checkpoint grace**: a victim not protected by its MR whose next checkpoint,
  ``max(start, last_checkpoint) + checkpoint_interval``, falls within the grace after ``now`` is
  protected until that checkpoint;
- **unsaved work**: ``now - max(start, last_checkpoint)`` times the weight of the tasks that
  would go.

With none of the settings given, :func:`protection` says exactly what min-runtime alone says.

>>> from minruntime import MinRuntime
>>> S = 10**9
>>> settings = Extensions(grace=MinRuntime("10m"))
>>> inputs = JobInputs(checkpoint_ns=None, interval_ns=1800 * S)
>>> protection(0, 0, inputs, settings, now_ns=1500 * S)   # next checkpoint at 1800 s
('checkpoint-grace', 1800000000000)
>>> protection(0, 0, inputs, settings, now_ns=1000 * S)   # 800 s away: beyond the grace
(None, None)
"""

from __future__ import annotations

from typing import Final, Literal

import attrs

from minruntime.durations import MinRuntime

__all__ = [
    "CHECKPOINT_GRACE",
    "EVICTION_BUDGET",
    "FOREVER_NS",
    "MIN_RUNTIME",
    "Extensions",
    "JobInputs",
    "ProtectedBy",
    "budget_until_ns",
    "effective_min_runtime_ns",
    "grace_until_ns",
    "protection",
    "unsaved_work",
]

FOREVER_NS: Final = 1 << 80
"""An instant past any datetime: how long "never" and a spent count-only budget protect."""

MIN_RUNTIME: Final = "min-runtime"
"""Protected because it started less than its (effective) min-runtime ago."""
EVICTION_BUDGET: Final = "eviction-budget"
"""Protected because it was evicted as often as its queue allows within the window."""
CHECKPOINT_GRACE: Final = "checkpoint-grace"
"""Protected because its next checkpoint is due within the checkpoint grace."""

ProtectedBy = Literal["min-runtime", "eviction-budget", "checkpoint-grace"]
"""What protects a victim (see :func:`protection`)."""


@attrs.frozen(kw_only=True)
class Extensions:
    """The section 16 settings that apply to one victim (for one action and preemptor).

    Attributes:
        grace: the checkpoint grace; zero is off.
        max_evictions: the eviction budget; ``None`` is unlimited.
        eviction_window: the budget's window; never means ever.
        max_job_min_runtime: the cap on a job's own request; zero ignores requests, never has
            no cap.
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


@attrs.frozen(kw_only=True)
class JobInputs:
    """A job's section 16 inputs, in nanoseconds.

    Attributes:
        checkpoint_ns: its last checkpoint, already ``None`` when before its start time.
        interval_ns: its checkpoint interval, or ``None``.
        eviction_ns: the times of its past evictions, sorted, or ``None`` where only a count
            is kept.
        eviction_count: how many evictions, when only a count is kept.
        requested_ns: its own min-runtime request, or ``None``.
    """

    checkpoint_ns: int | None = None
    interval_ns: int | None = None
    eviction_ns: tuple[int, ...] | None = ()
    eviction_count: int = 0
    requested_ns: int | None = None


def effective_min_runtime_ns(mr_ns: int, requested_ns: int | None, cap: MinRuntime) -> int:
    """``max(MR, min(requested, cap))``: a job may ask for more protection, up to the cap.

    ``mr_ns`` is ``-1`` for never (which stays never); a zero cap ignores requests; a never cap
    lets any request through.

    >>> S = 10**9
    >>> effective_min_runtime_ns(600 * S, 7200 * S, MinRuntime("1h")) // S  # clipped
    3600
    >>> effective_min_runtime_ns(600 * S, 60 * S, MinRuntime("1h")) // S  # never less
    600
    """
    if mr_ns < 0 or requested_ns is None or not cap:
        return mr_ns
    allowed = requested_ns if cap.is_never else min(requested_ns, cap._ns)
    return max(mr_ns, allowed)


def grace_until_ns(
    start_ns: int | None, inputs: JobInputs, grace: MinRuntime, now_ns: int
) -> int | None:
    """The next checkpoint, when it falls within ``(now, now + grace]``; else ``None``.

    Never without a checkpoint interval or a start time, and never with a zero grace. Nor when
    the interval is no longer than the grace: such a job's next checkpoint is always within the
    grace, so the grace would protect it for good, while its unsaved work never exceeds one
    interval anyway. The grace therefore holds a preemptor back at most ``grace`` in every
    interval, and the job is evictable for ``interval - grace`` of it (just after a checkpoint
    first).
    """
    interval = inputs.interval_ns
    if not grace or interval is None or start_ns is None or interval <= grace._ns:
        return None
    base = start_ns if inputs.checkpoint_ns is None else max(start_ns, inputs.checkpoint_ns)
    following = base + interval
    if now_ns < following <= now_ns + grace._ns:
        return following
    return None


def budget_until_ns(
    inputs: JobInputs, max_evictions: int | None, window: MinRuntime, now_ns: int
) -> int | None:
    """Until when a spent eviction budget protects, or ``None`` if it is not spent.

    An eviction at ``t`` counts while ``now < t + window``. With ``k >= max_evictions``
    evictions in the window, sorted, protection lasts until the ``(k - max_evictions + 1)``-th
    of them leaves it. With a bare count (no times) a spent budget protects for good, and so
    does an unbounded (never) window.
    """
    if max_evictions is None:
        return None
    times = inputs.eviction_ns
    if times is None:
        return FOREVER_NS if inputs.eviction_count >= max_evictions else None
    recent = [t for t in times if window.is_never or now_ns < t + window._ns]
    if len(recent) < max_evictions:
        return None
    if window.is_never:
        return FOREVER_NS
    if max_evictions == 0:
        return FOREVER_NS
    return recent[len(recent) - max_evictions] + window._ns


def protection(
    mr_ns: int,
    start_ns: int | None,
    inputs: JobInputs,
    settings: Extensions,
    now_ns: int,
) -> tuple[ProtectedBy | None, int | None]:
    """What protects a victim at ``now`` and until when: ``(kind, until_ns)`` or ``(None, None)``.

    ``mr_ns`` is the resolved MR (``-1`` for never, which the caller handles first). The
    effective MR protects first; then a spent eviction budget; then the checkpoint grace (only
    for a victim its MR does not protect). ``kind`` names what protects it now (of the MR and
    the budget, the one that lasts longer). ``until`` is when it is free: when one protection
    ends just as another begins (the MR ends with a checkpoint due within the grace), the end of
    the last, so that a scheduler retrying then finds the victim free.
    """
    kind, until = _protection_at(mr_ns, start_ns, inputs, settings, now_ns)
    if until is not None:
        for _ in range(8):  # each link ends at a later instant; a few links at most in practice
            if until >= FOREVER_NS:
                break
            _, later = _protection_at(mr_ns, start_ns, inputs, settings, until)
            if later is None or later <= until:
                break
            until = later
    return kind, until


def _protection_at(
    mr_ns: int,
    start_ns: int | None,
    inputs: JobInputs,
    settings: Extensions,
    now_ns: int,
) -> tuple[ProtectedBy | None, int | None]:
    found: ProtectedBy | None = None
    until: int | None = None
    effective = effective_min_runtime_ns(mr_ns, inputs.requested_ns, settings.max_job_min_runtime)
    if start_ns is not None and now_ns < start_ns + effective:
        found, until = MIN_RUNTIME, start_ns + effective
    budget = budget_until_ns(inputs, settings.max_evictions, settings.eviction_window, now_ns)
    if budget is not None and budget > now_ns and (until is None or budget > until):
        found, until = EVICTION_BUDGET, budget
    if found is None:
        grace = grace_until_ns(start_ns, inputs, settings.grace, now_ns)
        if grace is not None:
            found, until = CHECKPOINT_GRACE, grace
    return found, until


def unsaved_work(
    start_ns: int | None, checkpoint_ns: int | None, now_ns: int, weight: float
) -> float:
    """Work an eviction at ``now`` would lose: seconds since the last checkpoint times weight.

    Zero without a start time; a checkpoint before the start does not count.

    >>> unsaved_work(0, None, 90 * 10**9, 2.0)
    180.0
    """
    if start_ns is None:
        return 0.0
    since = start_ns if checkpoint_ns is None else max(start_ns, checkpoint_ns)
    return max(0, now_ns - since) / 1e9 * weight

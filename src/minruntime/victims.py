"""Victim filters: the min-runtime filter, full eligibility, and evictable tasks.

These are pure functions over the derived facts of two jobs (:class:`~minruntime.jobs.JobFacts`),
a resolved min-runtime and ``now`` in nanoseconds. The :class:`~minruntime.Session` calls
them; a scheduler author normally calls the Session.

Two layers:

- the **min-runtime filter** (the reference scheduler's plugin hook): a never MR excludes the
  victim; elastic and semi-preemptible victims pass (the scenario validator judges them); any
  other victim passes iff it is not protected;
- **eligibility**: the fundamentals of preempt or reclaim (not itself, queue, priority,
  preemptibility, an active task, a known queue), then the min-runtime filter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minruntime.decisions import Reason
from minruntime.durations import MinRuntime
from minruntime.jobs import JobFacts, TaskLike
from minruntime.preemptibility import Preemptibility
from minruntime.resolution import Action

__all__ = [
    "TaskOrder",
    "evictable_tasks",
    "fundamental_reason",
    "min_runtime_filter",
    "min_runtime_reason",
    "protected_ns",
    "sacrifice_order",
]

TaskOrder = Callable[[TaskLike], Any]
"""A key that sorts a job's tasks most important first (the reverse is the sacrifice order)."""

_NON = Preemptibility.NON_PREEMPTIBLE
_SEMI = Preemptibility.SEMI_PREEMPTIBLE


def protected_ns(min_runtime: MinRuntime, start_ns: int | None, now_ns: int) -> bool:
    """The protection predicate on nanoseconds: never, else ``now < start + MR``.

    >>> protected_ns(MinRuntime("1s"), 0, 999_999_999), protected_ns(MinRuntime("1s"), 0, 10**9)
    (True, False)
    """
    if min_runtime._ns < 0:
        return True
    return start_ns is not None and now_ns < start_ns + min_runtime._ns


def fundamental_reason(
    action: Action, preemptor: JobFacts, victim: JobFacts, victim_queue_known: bool
) -> Reason | None:
    """The first fundamental of section 8 that the victim fails, or ``None`` if it passes all.

    Preempt: not the preemptor itself, a known queue, the same queue, strictly lower priority,
    not non-preemptible, at least one active task. Reclaim: the same without the priority rule
    and with a different queue.
    """
    if victim.id == preemptor.id:
        return Reason.SAME_JOB
    if not victim_queue_known:
        return Reason.UNKNOWN_VICTIM_QUEUE
    if action is Action.PREEMPT:
        if victim.queue != preemptor.queue:
            return Reason.DIFFERENT_QUEUE
        if victim.priority >= preemptor.priority:
            return Reason.NOT_LOWER_PRIORITY
    elif victim.queue == preemptor.queue:
        return Reason.SAME_QUEUE
    if victim.preemptibility is _NON:
        return Reason.NON_PREEMPTIBLE
    if victim.active_count == 0:
        return Reason.NO_ACTIVE_TASK
    if victim.preemptibility is _SEMI and not victim.has_surplus:
        return Reason.NON_PREEMPTIBLE  # only its core runs: nothing may be taken
    return None


def min_runtime_reason(victim: JobFacts, min_runtime: MinRuntime, now_ns: int) -> Reason:
    """What min-runtime says of a victim that passed the fundamentals.

    ``NEVER`` for a never MR; ``DEFERRED`` for a semi-preemptible victim, and for an elastic
    one that is protected; ``PROTECTED`` for any other protected victim; else ``ELIGIBLE``.
    """
    if min_runtime._ns < 0:
        return Reason.NEVER
    if victim.preemptibility is _SEMI:
        return Reason.DEFERRED
    if victim.start_ns is not None and now_ns < victim.start_ns + min_runtime._ns:
        return Reason.DEFERRED if victim.elastic else Reason.PROTECTED
    return Reason.ELIGIBLE


def min_runtime_filter(victim: JobFacts, min_runtime: MinRuntime, now_ns: int) -> bool:
    """The reference plugin's hook: may the victim be considered, as far as min-runtime goes?

    False for a never MR (elastic or not); true for elastic and semi-preemptible victims (left
    to the scenario validator); otherwise true iff not protected.
    """
    if min_runtime._ns < 0:
        return False
    if victim.elastic or victim.preemptibility is _SEMI:
        return True
    return not protected_ns(min_runtime, victim.start_ns, now_ns)


def sacrifice_order(tasks: tuple[TaskLike, ...], order: TaskOrder | None) -> tuple[TaskLike, ...]:
    """Tasks least important first: ``order`` sorts most important first, this reverses it.

    Without ``order``, the reverse of the listing order. Ties under ``order`` keep the reverse of
    their listing order.
    """
    if order is None:
        return tasks[::-1]
    return tuple(sorted(tasks, key=order)[::-1])


def evictable_tasks(
    reason: Reason, victim: JobFacts, order: TaskOrder | None = None
) -> tuple[TaskLike, ...]:
    """The tasks that may be evicted given the victim's decision, in sacrifice order.

    None unless the reason allows; all active tasks for ``ELIGIBLE``; per pod set the active
    tasks above ``min_available`` (those after the first ``min_available`` in listing order) for
    ``DEFERRED``.
    """
    if reason is Reason.ELIGIBLE:
        return sacrifice_order(victim.active_tasks(), order)
    if reason is Reason.DEFERRED:
        return sacrifice_order(victim.surplus_tasks(), order)
    return ()

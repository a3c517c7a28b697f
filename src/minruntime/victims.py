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

from collections import Counter
from collections.abc import Callable, Container, Iterable
from typing import Any, Final

from minruntime.checkpoints import (
    CHECKPOINT_GRACE,
    EVICTION_BUDGET,
    MIN_RUNTIME,
    Extensions,
    protection,
)
from minruntime.decisions import Reason
from minruntime.durations import MinRuntime
from minruntime.jobs import JobFacts, TaskLike
from minruntime.preemptibility import Preemptibility
from minruntime.protection import protected_ns
from minruntime.resolution import Action

__all__ = [
    "ALLOWED",
    "TaskOrder",
    "evictable_tasks",
    "judge",
    "min_runtime_filter",
    "protected_ns",
    "sacrifice_order",
]

TaskOrder = Callable[[TaskLike], Any]
"""A key that sorts a job's tasks most important first (the reverse is the sacrifice order)."""

_NON: Final = Preemptibility.NON_PREEMPTIBLE
_SEMI: Final = Preemptibility.SEMI_PREEMPTIBLE
_SAME_JOB: Final = Reason.SAME_JOB
_UNKNOWN: Final = Reason.UNKNOWN_VICTIM_QUEUE
_DIFFERENT_QUEUE: Final = Reason.DIFFERENT_QUEUE
_SAME_QUEUE: Final = Reason.SAME_QUEUE
_NOT_LOWER: Final = Reason.NOT_LOWER_PRIORITY
_NON_PREEMPTIBLE: Final = Reason.NON_PREEMPTIBLE
_NO_ACTIVE: Final = Reason.NO_ACTIVE_TASK
_NEVER: Final = Reason.NEVER
_PROTECTED: Final = Reason.PROTECTED
_DEFERRED: Final = Reason.DEFERRED
_ELIGIBLE: Final = Reason.ELIGIBLE
_BY_KIND: Final = {
    MIN_RUNTIME: Reason.PROTECTED,
    EVICTION_BUDGET: Reason.EVICTION_BUDGET,
    CHECKPOINT_GRACE: Reason.CHECKPOINT_GRACE,
}


ALLOWED: Final = frozenset({Reason.ELIGIBLE, Reason.DEFERRED})
"""The reasons that let a victim (or part of it) be evicted."""


def judge(
    action: Action,
    preemptor: JobFacts,
    victims: Iterable[JobFacts],
    known_queues: Container[str],
    min_runtime_of: Callable[[str], MinRuntime],
    now_ns: int,
    extensions_of: Callable[[str], Extensions] | None = None,
    influence: Counter[str] | None = None,
) -> list[Reason]:
    """The reason of each victim's decision, in input order: the one rule of eligibility.

    The fundamentals first, the first one failing names the reason: not the preemptor itself
    (``SAME_JOB``); a queue in the tree (``UNKNOWN_VICTIM_QUEUE``); for preempt the same queue
    (``DIFFERENT_QUEUE``) and strictly lower priority (``NOT_LOWER_PRIORITY``), for reclaim
    another queue (``SAME_QUEUE``); not non-preemptible (``NON_PREEMPTIBLE``); an active task
    (``NO_ACTIVE_TASK``); for a semi-preemptible victim a task above its core
    (``NON_PREEMPTIBLE``). Then min-runtime: ``NEVER`` for a never MR; ``DEFERRED`` for a
    semi-preemptible victim and for an elastic one that is protected; ``PROTECTED`` for any other
    protected victim; else ``ELIGIBLE``.

    Args:
        action: preempt or reclaim.
        preemptor: the preemptor's facts.
        victims: the victims' facts.
        known_queues: the queue names in the tree.
        min_runtime_of: the MR for a victim in a given queue (for this action and preemptor);
            called once per distinct victim queue.
        now_ns: the instant, in nanoseconds since the epoch.
        influence: counts, by kind, the decisions a checkpoint-aware protection made.
        extensions_of: the checkpoint-aware settings for a victim in a given queue, when any are
            in use (BEHAVIOR.md section 16): then a spent eviction budget (``EVICTION_BUDGET``), a
            checkpoint due within the grace (``CHECKPOINT_GRACE``) and a job's own request
            protect too, and an elastic victim so protected is ``DEFERRED``. ``None`` (the
            default) is min-runtime alone.

    This is the scheduler's inner loop, so it is written as one flat loop; every other
    decision of the library (one victim, the retry timer, explain) comes from here too.
    """
    reasons: list[Reason] = []
    append = reasons.append
    mr_of_queue: dict[str, int] = {}
    settings_of_queue: dict[str, Extensions] = {}
    pre_id = preemptor.id
    pre_queue = preemptor.queue
    pre_priority = preemptor.priority
    preempt = action is Action.PREEMPT
    for victim in victims:
        if victim.id == pre_id:
            append(_SAME_JOB)
            continue
        queue = victim.queue
        if queue not in known_queues:
            append(_UNKNOWN)
            continue
        if preempt:
            if queue != pre_queue:
                append(_DIFFERENT_QUEUE)
                continue
            if victim.priority >= pre_priority:
                append(_NOT_LOWER)
                continue
        elif queue == pre_queue:
            append(_SAME_QUEUE)
            continue
        preemptibility = victim.preemptibility
        if preemptibility is _NON:
            append(_NON_PREEMPTIBLE)
            continue
        if not victim.active_count:
            append(_NO_ACTIVE)
            continue
        if preemptibility is _SEMI and not victim.has_surplus:
            append(_NON_PREEMPTIBLE)  # only its core runs: nothing may be taken
            continue
        mr = mr_of_queue.get(queue)
        if mr is None:
            mr = mr_of_queue[queue] = min_runtime_of(queue)._ns
        if mr < 0:
            append(_NEVER)
        elif preemptibility is _SEMI:
            append(_DEFERRED)
        elif extensions_of is not None:
            settings = settings_of_queue.get(queue)
            if settings is None:
                settings = settings_of_queue[queue] = extensions_of(queue)
            inputs = victim.inputs()
            kind, _ = protection(mr, victim.start_ns, inputs, settings, now_ns)
            if influence is not None and kind is not None:
                if kind != MIN_RUNTIME:
                    influence[kind] += 1
                elif inputs.requested_ns is not None and not (
                    victim.start_ns is not None and now_ns < victim.start_ns + mr
                ):
                    influence["job-request"] += 1
            if kind is None:
                append(_ELIGIBLE)
            elif victim.elastic:
                append(_DEFERRED)
            else:
                append(_BY_KIND[kind])
        else:
            start = victim.start_ns
            if start is not None and now_ns < start + mr:
                append(_DEFERRED if victim.elastic else _PROTECTED)
            else:
                append(_ELIGIBLE)
    return reasons


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

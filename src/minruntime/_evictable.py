"""Evictable tasks (docs/spec/evictable-tasks.md and docs/spec/sub-group-trees.md): which
tasks of a victim may go, in sacrifice order.

- not eligible at all (non-preemptible, protected and not elastic, never): none;
- eligible and not protected (``ELIGIBLE``): every active task;
- protected and elastic, or semi-preemptible (``DEFERRED``): every active task outside its core
  (:meth:`minruntime._tree.Shape.split`): the optional sub-groups whole, and the active tasks
  of each core pod set above its ``min_available``. For a job without a sub-group tree, that is
  per pod set the active tasks after the first ``min_available`` in listing order.

The order is the sacrifice order, surplus first (docs/decisions/surplus-first-order.md), in
three parts:

1. the optional sub-groups, whole, the last listed first;
2. the surplus: the active tasks above each core pod set's ``min_available``, every pod set's
   surplus before any pod set loses a task it needs;
3. for a victim that is not protected (``ELIGIBLE``), the rest: its core.

Within each sub-group of part 1 and within parts 2 and 3, least important first: a caller's key
sorts tasks most important first, and the library takes them from the other end; by default the
reverse of the job's listing order. So a protected victim's evictable tasks are the first two
parts, and an unprotected one's begin with exactly those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minruntime._facts import JobFacts
from minruntime.decisions import ALLOWED, Reason
from minruntime.jobs import TaskLike

__all__ = ["TaskOrder", "evictable_tasks", "sacrifice_order"]

TaskOrder = Callable[[TaskLike], Any]
"""A key that sorts a job's tasks most important first (the reverse is the sacrifice order)."""


def sacrifice_order(tasks: tuple[TaskLike, ...], order: TaskOrder | None) -> tuple[TaskLike, ...]:
    """Tasks least important first: ``order`` sorts most important first, this reverses it.

    Without ``order``, the reverse of the listing order. Ties under ``order`` keep the reverse of
    their listing order.
    """
    if order is None:
        return tasks[::-1]
    return tuple(sorted(tasks, key=order)[::-1])


def evictable_tasks(
    reason: Reason, victim: JobFacts, order: TaskOrder | None = None, *, protected: bool = False
) -> tuple[TaskLike, ...]:
    """The tasks that may be evicted given the victim's decision, in sacrifice order.

    ``protected``: whether a semi-preemptible victim with a sub-group tree is protected (its
    reason, ``DEFERRED``, does not say): then the elastic rule holds back what would leave a set
    of it short, beside its core (docs/spec/sub-group-trees.md, "a short set")."""
    if reason not in ALLOWED:
        return ()
    if reason is Reason.ELIGIBLE and not victim.has_surplus:
        # every active task is in its core: the whole order is part 3
        return sacrifice_order(victim.active_tasks(), order)
    shape = victim.shape
    # a semi-preemptible core is fixed; an elastic job's minimum is its most important tasks
    core, optional, surplus = shape.split() if victim.semi else shape.split_by(order)
    taken: list[TaskLike] = []
    for node in reversed(optional):
        taken.extend(sacrifice_order(tuple(shape.tasks_below(node)), order))
    taken.extend(sacrifice_order(tuple(surplus), order))
    if reason is Reason.ELIGIBLE:
        taken.extend(sacrifice_order(tuple(core), order))
    if protected and victim.semi and not shape.flat:
        return _kept_whole(victim, taken)
    return tuple(taken)


def _kept_whole(victim: JobFacts, tasks: list[TaskLike]) -> tuple[TaskLike, ...]:
    """Of ``tasks`` (sacrifice order), those the elastic rule lets a protected victim lose: each
    taken only where the tasks taken so far and it break no set
    (:meth:`minruntime._tree.Shape.breaks`)."""
    shape = victim.shape
    where = victim.task_pod_sets()
    counts: dict[str, int] = {}
    kept = []
    for task in tasks:
        name = where[task.id]
        counts[name] = counts.get(name, 0) + 1
        if shape.breaks(counts):
            counts[name] -= 1
        else:
            kept.append(task)
    return tuple(kept)

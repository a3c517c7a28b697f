"""Evictable tasks (docs/spec/evictable-tasks.md and docs/spec/sub-group-trees.md): which tasks of a
victim may go, in sacrifice order.

- not eligible at all (non-preemptible, protected and not elastic, never): none;
- eligible and not protected (``ELIGIBLE``): every active task;
- protected and elastic, or semi-preemptible (``DEFERRED``): every active task outside its core
  (:meth:`minruntime._tree.Shape.split`): the optional sub-groups whole, and the active tasks
  of each core pod set above its ``min_available``. For a job without a sub-group tree, that is
  per pod set the active tasks after the first ``min_available`` in listing order.

The order is the sacrifice order: optional sub-groups first, whole, the last listed first; then
the other tasks, least important first: a caller's key sorts tasks most important first, and
the library takes them from the other end; by default the reverse of the job's listing order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minruntime._facts import JobFacts
from minruntime.decisions import Reason
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
    reason: Reason, victim: JobFacts, order: TaskOrder | None = None
) -> tuple[TaskLike, ...]:
    """The tasks that may be evicted given the victim's decision, in sacrifice order."""
    if reason is not Reason.ELIGIBLE and reason is not Reason.DEFERRED:
        return ()
    shape = victim.shape
    _, optional, surplus = shape.split()
    if reason is Reason.ELIGIBLE and not optional:
        return sacrifice_order(victim.active_tasks(), order)
    first: list[TaskLike] = []
    for node in reversed(optional):
        first.extend(sacrifice_order(tuple(shape.tasks_below(node)), order))
    if reason is Reason.ELIGIBLE:
        taken = {id(task) for task in first}
        rest = tuple(task for task in victim.active_tasks() if id(task) not in taken)
    else:
        rest = tuple(surplus)
    return (*first, *sacrifice_order(rest, order))

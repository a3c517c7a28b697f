"""Unsaved work and victim ranking (docs/spec/beyond-min-runtime.md): the one home of both.

**A task's weight** is what it holds of the configuration's cost resource
(``Config.cost_resource``, ``nvidia.com/gpu`` unless the scheduler names another), or 1 where it
holds none of it. **Unsaved work** of a victim at ``now``: the seconds since its work was last
saved (its last checkpoint of this run, else the end of its restore after the start; zero
unstarted; see :func:`~minruntime._protection.work_since_ns`) times the summed weight of the tasks
that would go.

**Ranking**: eligible victims cheapest first, by :func:`rank_key`: least unsaved work, then lower
priority, then fewer evictions within the eviction window (every eviction recorded, when no
window is set), then the later start (a job never started counts as the latest), then input
order. Ties are common (every job that just checkpointed has no unsaved work), and the last
three keys spread the evictions over the tied jobs instead of letting the caller's listing
order choose (docs/decisions/ranking-ties.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeVar

from minruntime._facts import JobFacts
from minruntime._protection import FOREVER_NS, Settings, evictions_in_window, unsaved_seconds
from minruntime.jobs import Task, TaskLike
from minruntime.resources import ONE_POD, Resources, task_resources

__all__ = [
    "RankKey",
    "rank_key",
    "recent_evictions",
    "resources_of",
    "task_weight",
    "unsaved_work",
    "weight_of",
]

J = TypeVar("J")

RankKey = tuple[float, int, int, int]
"""(unsaved work, priority, recent evictions, minus the start): a victim's place, cheapest
first; the input order breaks what ties remain."""

_NEVER_STARTED: Final = -FOREVER_NS
"""The start key of a job that never started: the latest of all."""


def resources_of(task: TaskLike, owner: object) -> Resources:
    """What ``task`` holds: a library :class:`~minruntime.Task`'s resources, a caller's task's
    ``resources`` attribute read as :class:`~minruntime.Task` reads it, else one pod.

    Raises:
        InvalidResources: for a caller's resources that are not a mapping of finite amounts.
    """
    if task.__class__ is Task:
        return task.resources
    given = getattr(task, "resources", None)
    if isinstance(given, Resources):
        return given
    return task_resources(given, f"job {owner!r} task {task.id!r} resources")


def task_weight(task: TaskLike, cost: str, owner: object) -> float:
    """What ``task`` holds of the cost resource, or 1 where it holds none of it."""
    return _weight(resources_of(task, owner), cost)


def _weight(held: Resources, cost: str) -> float:
    if held is ONE_POD:  # the common case: a task that names no resource
        return 1.0
    amount = held.get(cost)
    return float(amount) if amount else 1.0


def weight_of(facts: JobFacts, tasks: Iterable[TaskLike], cost: str) -> float:
    """The summed weight of ``tasks`` of the victim ``facts``."""
    owner = facts.id
    total = 0.0
    last: Resources | None = None
    weight = 0.0
    for task in tasks:  # a job's tasks mostly share one value of resources (a reader's do)
        held = resources_of(task, owner)
        if held is not last:
            last, weight = held, _weight(held, cost)
        total += weight
    return total


def unsaved_work(facts: JobFacts, tasks: Iterable[TaskLike], now_ns: int, cost: str) -> float:
    """The work evicting ``tasks`` of the victim at ``now`` would lose (weighted seconds)."""
    seconds = unsaved_seconds(facts.start_ns, facts.inputs(), now_ns)
    return seconds * weight_of(facts, tasks, cost) if seconds else 0.0


def recent_evictions(facts: JobFacts, settings: Settings, now_ns: int) -> int:
    """How many of the victim's evictions count for ranking: those within its queue's eviction
    window, every one recorded when no window is set (or only a count is known)."""
    inputs = facts.inputs()
    recent = evictions_in_window(inputs, settings.eviction_window, now_ns)
    return inputs.eviction_count if recent is None else len(recent)


def rank_key(facts: JobFacts, unsaved: float, settings: Settings, now_ns: int) -> RankKey:
    """The victim's ranking key, cheapest first (see the module's docstring)."""
    start = facts.start_ns
    return (
        unsaved,
        facts.priority,
        recent_evictions(facts, settings, now_ns),
        _NEVER_STARTED if start is None else -start,
    )

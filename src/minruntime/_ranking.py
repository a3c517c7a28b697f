"""Unsaved work, victim ranking and selection (docs/spec/beyond-min-runtime.md).

**Unsaved work** of a victim at ``now``: the seconds since its work was last saved (its last
checkpoint of this run, else the end of its restore after the start; zero unstarted; see
:func:`~minruntime._protection.work_since_ns`) times the summed weight of the tasks that would
go (a task's ``weight``, default 1).

**Ranking**: eligible victims cheapest first: least unsaved work, then lower priority, then
input order. **Selection**: the shortest prefix of that ranking whose evictable tasks free at
least what is needed, by task weight, or every eligible victim and the shortfall.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from minruntime._facts import JobFacts
from minruntime._fields import finite_weight
from minruntime._protection import unsaved_seconds
from minruntime.decisions import Selection
from minruntime.jobs import Task, TaskLike

__all__ = ["Candidate", "rank", "select", "unsaved_work", "weight_of"]

J = TypeVar("J")


def weight_of(facts: JobFacts, tasks: Iterable[TaskLike]) -> float:
    """The summed weight of ``tasks`` (1 each unless they carry a ``weight``)."""
    total = 0.0
    for task in tasks:
        if task.__class__ is Task:
            total += task.weight
        else:
            weight = getattr(task, "weight", 1.0)
            total += finite_weight(weight, f"job {facts.id!r} task {task.id!r} weight")
    return total


def unsaved_work(facts: JobFacts, tasks: Iterable[TaskLike], now_ns: int) -> float:
    """The work evicting ``tasks`` of the victim at ``now`` would lose (weighted seconds)."""
    return unsaved_seconds(facts.start_ns, facts.inputs(), now_ns) * weight_of(facts, tasks)


Candidate = tuple[float, int, int, J, tuple[TaskLike, ...]]
"""(unsaved work, priority, input index, victim, evictable tasks): a victim as ranked."""


def rank(candidates: list[Candidate[J]]) -> list[Candidate[J]]:
    """Cheapest first: least unsaved work, then lower priority, then input order."""
    return sorted(candidates, key=lambda item: item[:3])


def select(
    ranked: Sequence[Candidate[J]], facts: Sequence[JobFacts], needed: float
) -> Selection[J]:
    """The shortest prefix of ``ranked`` whose evictable tasks free at least ``needed``.

    ``facts`` are the victims' facts in the order of ``ranked``.
    """
    victims: list[J] = []
    tasks: list[tuple[TaskLike, ...]] = []
    freed = 0.0
    lost = 0.0
    for (work, _priority, _index, victim, evictable), fact in zip(ranked, facts, strict=True):
        if freed >= needed:
            break
        victims.append(victim)
        tasks.append(evictable)
        freed += weight_of(fact, evictable)
        lost += work
    return Selection(
        victims=tuple(victims), tasks=tuple(tasks), freed=freed, needed=needed, unsaved_work=lost
    )

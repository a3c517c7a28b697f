"""Plans (docs/spec/plans.md): which tasks a preemptor takes for what it needs (private).

A plan for one preemptor, one action and one need takes tasks in this order: its eligible
victims cheapest first (their verdicts' rank keys, then input order: :mod:`minruntime._ranking`),
and within each victim its evictable tasks in sacrifice order (the verdict's tasks, which leave
out what a cycle has claimed and what the victim's validator would refuse beside it), one task
at a time, until every resource of the need is covered. A task that frees nothing of what is
still missing is passed over (a CPU-only pod in a plan for GPUs). A victim gives only the tasks
the need takes. Any subset of a victim's evictable tasks is a scenario its validator accepts
(evicting fewer tasks never breaks more), so a plan never takes a set of tasks its validator
would refuse.

The plan says what its tasks free per resource, the unsaved work they hold, what is still
missing (a resource counts as covered within :data:`~minruntime.resources.TOLERANCE` of its
amount), and, when something is missing, the retry time (:mod:`minruntime._retry`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TypeVar

from minruntime._ranking import resources_of
from minruntime._time import from_ns
from minruntime._verdict import Verdict
from minruntime.decisions import Action, Plan
from minruntime.jobs import TaskLike
from minruntime.resources import Resources, covered

__all__ = ["ranked", "take"]

J = TypeVar("J")


def ranked(candidates: Iterable[tuple[int, J, Verdict]]) -> list[tuple[int, J, Verdict]]:
    """The eligible candidates (input index, job, verdict), cheapest first: rank key, then input
    order."""
    return sorted(
        (item for item in candidates if item[2].allowed),
        key=lambda item: (item[2].rank_key, item[0]),
    )


def take(
    action: Action,
    preemptor: object,
    order: Iterable[tuple[int, J, Verdict]],
    need: Resources,
    retry: Callable[[], int | None],
) -> Plan[J]:
    """The plan over ``order`` (eligible candidates, cheapest first) for ``need``; ``retry``
    gives the retry instant, asked only when something is missing."""
    wanted = {name: amount for name, amount in need.items() if amount > 0}
    missing = dict(wanted)
    freed: dict[str, float] = {}
    victims: list[J] = []
    tasks: list[tuple[TaskLike, ...]] = []
    losses: list[float] = []
    for _, job, verdict in order:
        if not missing:
            break
        owner = verdict.facts.id
        taken: list[TaskLike] = []
        for task in verdict.tasks:
            held = resources_of(task, owner)
            if not any(held.get(name) for name in missing):
                continue  # it frees nothing still missing
            taken.append(task)
            for name, amount in held.items():
                freed[name] = freed.get(name, 0) + amount
            for name in [name for name in missing if name in held]:
                if covered(freed[name], wanted[name]):
                    del missing[name]
                else:
                    missing[name] = wanted[name] - freed[name]
            if not missing:
                break
        if taken:
            victims.append(job)
            tasks.append(tuple(taken))
            losses.append(verdict.unsaved_of(taken))
    when: datetime | None = None
    if missing:
        end = retry()
        when = None if end is None else from_ns(end)
    return Plan(
        action=action,
        preemptor=preemptor,
        need=need,
        victims=tuple(victims),
        tasks=tuple(tasks),
        freed=Resources(freed),
        missing=Resources(missing),
        lost=sum(losses),
        losses=tuple(losses),
        retry=when,
    )

"""Scenario validation (docs/spec/validation.md and docs/spec/sub-group-trees.md): would evicting
exactly these tasks break a protection?

A scenario is a preemptor plus, for each victim job, the tasks it would evict. Each victim is
judged by one rule (docs/decisions/validator-one-rule.md): the eviction must keep the job's
shape (:meth:`minruntime._tree.Shape.breaks`). For a job without a sub-group tree that is: for
each pod set with at least one evicted task, ``active - evicted >= min_available`` (equality
allowed; ``active`` counts every active task of the pod set, the evicted ones included); in a
tree, a pod set may drop below its minimum where its set can do without it. The rule applies to
any victim while it is protected (by whatever :func:`~minruntime._protection.protection` says);
a never min-runtime refuses any eviction at all. A semi-preemptible victim's core is never
evicted, protected or not: each core pod set may lose only its tasks above ``min_available``,
and a sub-group outside the core may go whole (docs/spec/sub-group-trees.md); while protected,
the rule above holds back the rest too. A semi-preemptible victim whose scheduler named its core
(``core_pods``, :meth:`minruntime._tree.Shape.named_core`) is judged by that list instead: an
eviction fails where it takes a named task (docs/decisions/core-pods.md).

Tasks are matched by id and count whatever their status. A task the victim does not have raises
:class:`~minruntime.InvalidScenario`: that is a caller's bug, not a policy answer.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from datetime import datetime

from minruntime._facts import JobFacts
from minruntime._protection import Protection
from minruntime.decisions import Failure, FailureKind, ProtectionKind
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidScenario

__all__ = ["validate_victim"]


def _evicted_per_pod_set(victim: JobFacts, ids: dict[object, None]) -> dict[str, int]:
    where = victim.task_pod_sets()
    counts: dict[str, int] = {}
    for task_id in ids:
        name = where.get(task_id)
        if name is None:
            names = ", ".join(repr(p.name) for p in victim.pod_sets)
            raise InvalidScenario(
                f"job {victim.id!r} has no task {task_id!r} (its pod sets: {names})"
            )
        counts[name] = counts.get(name, 0) + 1
    return counts


def validate_victim(
    victim: JobFacts,
    evicted: Iterable[object],
    min_runtime: MinRuntime,
    protected: Protection,
    protected_until: datetime | None = None,
) -> list[Failure]:
    """The failures of one victim of a scenario (empty when it passes).

    Args:
        victim: the victim's facts.
        evicted: the tasks (or task ids) the scenario would evict from it.
        min_runtime: the resolved MR (for messages).
        protected: what protects the victim now (:func:`~minruntime._protection.protection`).
        protected_until: when its protection ends, for messages.

    Raises:
        InvalidScenario: if an evicted task is not one of the victim's tasks.
    """
    ids = dict.fromkeys(getattr(task, "id", task) for task in evicted)
    counts = _evicted_per_pod_set(victim, ids)
    if not counts:
        return []
    if protected.kind is ProtectionKind.NEVER:
        return [
            Failure(
                victim=victim.id,
                kind=FailureKind.NEVER,
                pod_set=None,
                active=victim.active_count,
                evicted=sum(counts.values()),
                min_available=0,
                min_runtime=min_runtime,
            )
        ]
    shape = victim.shape
    failures = []
    if victim.semi:
        named = shape.named_core()
        if named is not None:
            failures = _named_core_failures(victim, ids, named, counts, min_runtime)
        else:
            failures = _core_failures(victim, counts, min_runtime, protected_until)
        if protected.kind is None or shape.flat:
            # unprotected, only the core counts; a flat job's elastic rule is its core's
            return failures
    elif protected.kind is None:
        return []
    kind = FailureKind.PROTECTED
    failing = {failure.pod_set for failure in failures}
    for leaf, above, satisfied in shape.breaks(counts):
        pod_set = leaf.leaf
        assert pod_set is not None
        if pod_set.name in failing:
            continue  # its core already fails
        failures.append(
            Failure(
                victim=victim.id,
                kind=kind,
                pod_set=pod_set.name,
                active=len(pod_set.active),
                evicted=counts[pod_set.name],
                min_available=pod_set.min_available,
                min_runtime=min_runtime,
                protected_until=protected_until,
                protected_by=protected.kind,
                sub_group=above.name,
                satisfied=None if shape.flat else satisfied,
                needed=None if shape.flat else above.need,
            )
        )
    return failures


def _core_failures(
    victim: JobFacts,
    counts: dict[str, int],
    min_runtime: MinRuntime,
    protected_until: datetime | None,
) -> list[Failure]:
    """A semi-preemptible victim's computed core: each core pod set (one not inside a sub-group
    outside the core) that would lose more than its tasks above ``min_available`` fails; a
    sub-group outside the core may go whole (docs/spec/sub-group-trees.md). In a tree, the
    failure names the set the loss would leave short, as the elastic rule's do."""
    shape = victim.shape
    optional: set[str | None] = set()
    stack = list(shape.split()[1])
    while stack:
        node = stack.pop()
        optional.add(node.name)
        stack.extend(node.children)
    broken = {}
    if not shape.flat:
        broken = {leaf.name: (above, kept) for leaf, above, kept in shape.breaks(counts)}
    failures = []
    for pod_set in victim.pod_sets:
        evicted = counts.get(pod_set.name)
        if not evicted or pod_set.name in optional:
            continue  # nothing taken, or a sub-group outside the core: it may go whole
        active = pod_set.active
        spare = len(active) - min(pod_set.min_available, len(active))
        if evicted > spare:
            above, kept = broken.get(pod_set.name, (None, None))
            failures.append(
                Failure(
                    victim=victim.id,
                    kind=FailureKind.CORE,
                    pod_set=pod_set.name,
                    active=len(active),
                    evicted=evicted,
                    min_available=pod_set.min_available,
                    min_runtime=min_runtime,
                    protected_until=protected_until,
                    sub_group=None if above is None else above.name,
                    satisfied=kept,
                    needed=None if above is None else above.need,
                )
            )
    return failures


def _named_core_failures(
    victim: JobFacts,
    ids: dict[object, None],
    named: frozenset[Hashable],
    counts: dict[str, int],
    min_runtime: MinRuntime,
) -> list[Failure]:
    """A semi-preemptible victim whose scheduler named its core: each pod set that would lose a
    task of that core fails (docs/decisions/core-pods.md)."""
    failures = []
    for pod_set in victim.pod_sets:
        hit = sum(task.id in named and task.id in ids for task in pod_set.active)
        if hit:
            failures.append(
                Failure(
                    victim=victim.id,
                    kind=FailureKind.CORE,
                    pod_set=pod_set.name,
                    active=len(pod_set.active),
                    evicted=counts[pod_set.name],
                    min_available=pod_set.min_available,
                    min_runtime=min_runtime,
                    core=hit,
                )
            )
    return failures

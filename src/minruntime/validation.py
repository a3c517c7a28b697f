"""Scenario validation: would evicting exactly these tasks break a protection?

A scenario is a preemptor plus, for each victim job, the tasks it would evict. Each victim is
judged by the same per-pod-set rule: for each pod set with at least one evicted task,
``active - evicted >= min_available`` must hold (equality allowed; ``active`` counts every active
task of the pod set, the evicted ones included). The rule applies

- to a semi-preemptible victim always (its core is never evicted, whatever the min-runtime);
- to any other victim while it is protected by min-runtime (for an elastic job this keeps it at
  its minimum; for a non-elastic job it refuses any eviction, as the filter would have);
- and a never min-runtime refuses any eviction at all.

Tasks are matched by id and count whatever their status. A task the victim does not have raises
:class:`~minruntime.InvalidScenario`: that is a caller's bug, not a policy answer.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable
from datetime import datetime

import attrs

from minruntime.decisions import _when
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidScenario
from minruntime.jobs import JobFacts
from minruntime.preemptibility import Preemptibility
from minruntime.resolution import Action
from minruntime.victims import protected_ns

__all__ = ["Failure", "FailureKind", "ScenarioResult", "validate_victim"]


class FailureKind(enum.Enum):
    """Why a victim fails a scenario."""

    NEVER = "never"
    """Its min-runtime is never: no task of it may be evicted."""
    CORE = "core"
    """It is semi-preemptible and a pod set would drop below its core."""
    PROTECTED = "protected"
    """It is protected and a pod set would drop below ``min_available``."""

    def __str__(self) -> str:
        return self.value


@attrs.frozen(kw_only=True)
class Failure:
    """One victim pod set (or, for never, the whole victim) that a scenario would break.

    ``pod_set`` is ``None`` for a never failure; ``active``, ``evicted`` and ``min_available``
    are that pod set's numbers (for never, ``evicted`` is the whole count).
    """

    victim: Hashable
    kind: FailureKind
    pod_set: str | None
    active: int
    evicted: int
    min_available: int
    min_runtime: MinRuntime
    protected_until: datetime | None = None
    protected_by: str | None = None
    """``"eviction-budget"`` or ``"checkpoint-grace"`` when one of those protects the victim;
    ``None`` for its min-runtime."""

    def _by(self) -> str:
        if self.protected_by in (None, "min-runtime"):
            return f"min-runtime {self.min_runtime}"
        return f"its {str(self.protected_by).replace('-', ' ')}"

    def __str__(self) -> str:
        if self.kind is FailureKind.NEVER:
            return (
                f"job {self.victim!r}: min-runtime is never, but {self.evicted} task(s) "
                "would be evicted"
            )
        left = self.active - self.evicted
        numbers = (
            f"{self.active} active - {self.evicted} evicted = {left} < "
            f"min_available {self.min_available}"
        )
        if self.kind is FailureKind.CORE:
            return (
                f"job {self.victim!r} pod set {self.pod_set!r}: {numbers} (semi-preemptible core)"
            )
        return (
            f"job {self.victim!r} pod set {self.pod_set!r}: {numbers} "
            f"(protected by {self._by()} until {_when(self.protected_until)})"
        )


@attrs.frozen(kw_only=True)
class ScenarioResult:
    """The validator's answer: true when valid; when false, ``failures`` names every problem.

    >>> result = ScenarioResult(action=Action.RECLAIM, preemptor="p", failures=())
    >>> bool(result), str(result)
    (True, "reclaim scenario of 'p': valid")
    """

    action: Action
    preemptor: Hashable
    failures: tuple[Failure, ...] = ()

    @property
    def valid(self) -> bool:
        """True when no victim fails."""
        return not self.failures

    def __bool__(self) -> bool:
        return not self.failures

    @property
    def failing_victims(self) -> tuple[Hashable, ...]:
        """The ids of the victims that fail, in scenario order, each once."""
        return tuple(dict.fromkeys(failure.victim for failure in self.failures))

    def __str__(self) -> str:
        head = f"{self.action} scenario of {self.preemptor!r}"
        if not self.failures:
            return f"{head}: valid"
        return f"{head}: invalid: " + "; ".join(str(failure) for failure in self.failures)


def validate_victim(
    victim: JobFacts,
    evicted: Iterable[object],
    min_runtime: MinRuntime,
    now_ns: int,
    protected_until: datetime | None = None,
    *,
    protected: bool | None = None,
    protected_by: str | None = None,
) -> list[Failure]:
    """The failures of one victim of a scenario (empty when it passes).

    Args:
        victim: the victim's facts.
        evicted: the tasks (or task ids) the scenario would evict from it.
        min_runtime: the resolved MR for this preemptor and victim.
        now_ns: the instant, in nanoseconds.
        protected_until: for messages only.
        protected: whether the victim is protected now; by default, the min-runtime predicate
            (the Session passes its full answer, checkpoint-aware settings included).

    Raises:
        InvalidScenario: if an evicted task is not one of the victim's tasks.
    """
    ids = dict.fromkeys(getattr(task, "id", task) for task in evicted)
    if not ids:
        return []
    where = victim.task_pod_sets()
    per_pod_set: dict[str, int] = {}
    for task_id in ids:
        name = where.get(task_id)
        if name is None:
            names = ", ".join(repr(p.name) for p in victim.pod_sets)
            raise InvalidScenario(
                f"job {victim.id!r} has no task {task_id!r} (its pod sets: {names})"
            )
        per_pod_set[name] = per_pod_set.get(name, 0) + 1
    if min_runtime._ns < 0:
        return [
            Failure(
                victim=victim.id,
                kind=FailureKind.NEVER,
                pod_set=None,
                active=victim.active_count,
                evicted=len(ids),
                min_available=0,
                min_runtime=min_runtime,
            )
        ]
    if victim.preemptibility is Preemptibility.SEMI_PREEMPTIBLE:
        kind = FailureKind.CORE
    elif protected if protected is not None else protected_ns(min_runtime, victim.start_ns, now_ns):
        kind = FailureKind.PROTECTED
    else:
        return []
    failures = []
    for pod_set in victim.pod_sets:
        count = per_pod_set.get(pod_set.name, 0)
        if count and len(pod_set.active) - count < pod_set.min_available:
            failures.append(
                Failure(
                    victim=victim.id,
                    kind=kind,
                    pod_set=pod_set.name,
                    active=len(pod_set.active),
                    evicted=count,
                    min_available=pod_set.min_available,
                    min_runtime=min_runtime,
                    protected_until=protected_until,
                    protected_by=protected_by if kind is FailureKind.PROTECTED else None,
                )
            )
    return failures

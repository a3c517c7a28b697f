"""Derived facts of a job, computed once per job (private).

What every decision needs to know about a victim and that does not depend on the preemptor or
on ``now``: its effective preemptibility (explicit, else the legacy priority rule of
:func:`~minruntime.preemptibility.legacy_preemptibility`), its active tasks, whether it is
elastic (BEHAVIOR.md section 6) and whether anything of it could go at all, its start time in
nanoseconds, and its section 16 inputs. A :class:`~minruntime.Job` is immutable, so its facts
are kept on the object; a scheduler's own objects get theirs once per session.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime
from operator import attrgetter
from typing import Any, Final

from minruntime._protection import NO_INPUTS, Inputs
from minruntime._time import from_ns, instant_ns, to_ns
from minruntime.decisions import Reason
from minruntime.durations import MinRuntime
from minruntime.jobs import (
    ACTIVE_STATUSES,
    IS_ACTIVE,
    Job,
    JobInputs,
    JobLike,
    TaskLike,
    TaskStatus,
)
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    Preemptibility,
    PreemptibilitySource,
    legacy_preemptibility,
)

__all__ = ["JobFacts", "PodSetFacts"]

_NON: Final = Preemptibility.NON_PREEMPTIBLE
_SEMI: Final = Preemptibility.SEMI_PREEMPTIBLE
_STATUS: Final = attrgetter("status")
_IS_ACTIVE: Final = IS_ACTIVE.__getitem__
_LEGACY: dict[int, dict[int, Preemptibility]] = {}
"""threshold -> priority -> the legacy rule's answer: the rule evaluated once per priority."""


class PodSetFacts:
    """A pod set as computed once: its name, minimum, size and active tasks (listing order)."""

    __slots__ = ("active", "min_available", "name", "size", "tasks")

    def __init__(
        self,
        name: str,
        min_available: int,
        tasks: tuple[TaskLike, ...],
        active: tuple[TaskLike, ...],
    ) -> None:
        self.name = name
        self.min_available = min_available
        self.tasks = tasks
        self.size = len(tasks)
        self.active = active

    @property
    def surplus(self) -> int:
        """How many active tasks are above ``min_available`` (zero if none)."""
        return max(0, len(self.active) - self.min_available)


def _is_active(task: TaskLike) -> bool:
    return TaskStatus.parse(task.status) in ACTIVE_STATUSES


class JobFacts:
    """The derived facts of one job; read-only.

    Attributes:
        job: the job they were computed from.
        id, queue, priority: the job's.
        start_ns: its start time in nanoseconds since the epoch, or ``None``.
        preemptibility, preemptibility_source: effective preemptibility and what decided it.
        elastic: some pod set has ``min_available`` below its number of tasks (any status).
        active_count: active tasks over all pod sets.
        has_surplus: some pod set has more active tasks than its ``min_available``.
        barrier: the first fundamental of eligibility that fails on the victim alone, whatever
            the preemptor (``NON_PREEMPTIBLE``, ``NO_ACTIVE_TASK``, or ``NON_PREEMPTIBLE`` for a
            semi-preemptible job with nothing above its core), else ``None``.
        semi: it is semi-preemptible (its core is never evicted).
        flexible: only part of it may go while protected (elastic or semi-preemptible).
    """

    __slots__ = (
        "_inputs",
        "_pod_sets",
        "active_count",
        "barrier",
        "elastic",
        "flexible",
        "has_surplus",
        "id",
        "job",
        "preemptibility",
        "preemptibility_source",
        "priority",
        "queue",
        "semi",
        "start_ns",
    )

    def __init__(
        self,
        job: JobLike,
        start_ns: int | None,
        preemptibility: Preemptibility,
        source: PreemptibilitySource,
        elastic: bool,
        active_count: int,
        has_surplus: bool,
    ) -> None:
        self.job = job
        self.id: Hashable = job.id
        self.queue: str = job.queue
        self.priority: int = job.priority
        self.start_ns = start_ns
        self.preemptibility = preemptibility
        self.preemptibility_source = source
        self.elastic = elastic
        self.active_count = active_count
        self.has_surplus = has_surplus
        semi = self.semi = preemptibility is _SEMI
        self.flexible = elastic or semi
        if preemptibility is _NON:
            self.barrier: Reason | None = Reason.NON_PREEMPTIBLE
        elif not active_count:
            self.barrier = Reason.NO_ACTIVE_TASK
        elif semi and not has_surplus:
            self.barrier = Reason.NON_PREEMPTIBLE  # only its core runs: nothing may be taken
        else:
            self.barrier = None
        self._pod_sets: tuple[PodSetFacts, ...] | None = None
        self._inputs: Inputs | None = None

    def __repr__(self) -> str:
        return (
            f"<JobFacts {self.id!r} queue={self.queue!r} priority={self.priority} "
            f"{self.preemptibility} active={self.active_count} elastic={self.elastic}>"
        )

    @classmethod
    def of(cls, job: JobLike, threshold: int = LEGACY_PRIORITY_THRESHOLD) -> JobFacts:
        """Compute the facts of ``job``; ``threshold`` is the legacy priority threshold.

        Raises:
            InvalidPreemptibility: for an explicit preemptibility that is not a valid value.
            InvalidTimestamp: for a naive or malformed start time.
            ValueError: for a task status that is not a status.
        """
        own = job.__class__ is Job
        if own:
            cached = job._facts  # type: ignore[attr-defined]
            if cached is not None and cached[0] == threshold:
                return cached[1]  # type: ignore[no-any-return]
        explicit = job.preemptibility
        if explicit is None or explicit == "":
            rule = _LEGACY.get(threshold)
            if rule is None:
                rule = _LEGACY[threshold] = {}
            priority = job.priority
            preemptibility = rule.get(priority)
            if preemptibility is None:
                preemptibility = rule[priority] = legacy_preemptibility(priority, threshold)
            source = PreemptibilitySource.LEGACY_PRIORITY
        else:
            preemptibility = (
                explicit
                if explicit.__class__ is Preemptibility
                else Preemptibility.parse(explicit, origin=f"job {job.id!r} preemptibility")
            )
            source = PreemptibilitySource.EXPLICIT
        elastic = False
        surplus = False
        active_count = 0
        for pod_set in job.pod_sets:
            tasks = pod_set.tasks
            try:
                active = sum(map(_IS_ACTIVE, map(_STATUS, tasks)))
            except KeyError:  # a status spelled in another case, or not a status at all
                active = sum(map(_is_active, tasks))
            minimum = pod_set.min_available
            if minimum < len(tasks):
                elastic = True
            if active > minimum:
                surplus = True
            active_count += active
        start = job.start_time
        if start is not None:
            start = instant_ns(start, job)
        facts = cls(job, start, preemptibility, source, elastic, active_count, surplus)
        if own:
            object.__setattr__(job, "_facts", (threshold, facts))
        return facts

    # -- detail, computed on first use ----------------------------------------------------------

    @property
    def pod_sets(self) -> tuple[PodSetFacts, ...]:
        """Per pod set facts, in listing order."""
        if self._pod_sets is None:
            self._pod_sets = tuple(
                PodSetFacts(
                    pod_set.name,
                    pod_set.min_available,
                    tuple(pod_set.tasks),
                    tuple(task for task in pod_set.tasks if _is_active(task)),
                )
                for pod_set in self.job.pod_sets
            )
        return self._pod_sets

    @property
    def start_time(self) -> datetime | None:
        """The start time as a UTC datetime."""
        return None if self.start_ns is None else from_ns(self.start_ns)

    def core_tasks(self) -> tuple[TaskLike, ...]:
        """The first ``min_available`` active tasks of each pod set, in listing order."""
        return tuple(
            task for pod_set in self.pod_sets for task in pod_set.active[: pod_set.min_available]
        )

    def surplus_tasks(self) -> tuple[TaskLike, ...]:
        """The active tasks above each pod set's ``min_available``, in listing order."""
        return tuple(
            task for pod_set in self.pod_sets for task in pod_set.active[pod_set.min_available :]
        )

    def active_tasks(self) -> tuple[TaskLike, ...]:
        """Every active task, in listing order."""
        return tuple(task for pod_set in self.pod_sets for task in pod_set.active)

    def task_pod_sets(self) -> dict[Hashable, str]:
        """Every task id of the job (any status) mapped to the name of its pod set."""
        return {task.id: pod_set.name for pod_set in self.pod_sets for task in pod_set.tasks}

    def inputs(self) -> Inputs:
        """The job's section 16 inputs in nanoseconds, read on first use (``inputs`` attribute,
        read with ``getattr`` so that a scheduler's own objects need not have one)."""
        if self._inputs is None:
            given: Any = getattr(self.job, "inputs", None)
            self._inputs = NO_INPUTS if given is None else _read_inputs(self, given)
        return self._inputs


def _read_inputs(facts: JobFacts, given: object) -> Inputs:
    if not isinstance(given, JobInputs):
        raise TypeError(
            f"job {facts.id!r} inputs: expected a minruntime.JobInputs, got {type(given).__name__}"
        )
    where = f"job {facts.id!r}"
    checkpoint = (
        None
        if given.last_checkpoint is None
        else to_ns(given.last_checkpoint, f"{where} last_checkpoint")
    )
    if checkpoint is not None and facts.start_ns is not None and checkpoint < facts.start_ns:
        checkpoint = None
    history = given.evictions
    times: tuple[int, ...] | None
    if isinstance(history, int):
        times, count = None, history
    else:
        stamps = [to_ns(moment, f"{where} evictions") for moment in history]
        times, count = tuple(sorted(stamps)), len(stamps)
    return Inputs(
        checkpoint_ns=checkpoint,
        interval_ns=_ns(given.checkpoint_interval),
        restore_ns=_ns(given.checkpoint_restore) or 0,
        eviction_ns=times,
        eviction_count=count,
        requested_ns=_ns(given.requested_min_runtime),
    )


def _ns(value: MinRuntime | None) -> int | None:
    return None if value is None else value.ns

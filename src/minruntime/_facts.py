"""Derived facts of a job, computed once per job (private).

What every decision needs to know about a victim and that does not depend on the preemptor or
on ``now``: its effective preemptibility (explicit, else the legacy priority rule of
:func:`~minruntime.preemptibility.legacy_preemptibility`), its active tasks, whether it is
elastic (BEHAVIOR.md section 6) and whether anything of it could go at all, its start time in
nanoseconds, and its section 16 inputs. A session computes them once per job.
"""

from __future__ import annotations

import gc
from collections.abc import Hashable, Iterable
from datetime import UTC, datetime
from typing import Any, Final

from minruntime._delay import held_until_ns
from minruntime._protection import NO_INPUTS, Inputs
from minruntime._time import from_ns, instant_ns, to_ns
from minruntime._tree import Shape, TreeError, link
from minruntime.decisions import Reason
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidJob
from minruntime.jobs import (
    Job,
    JobInputs,
    JobLike,
    PodSet,
    TaskLike,
    TaskStatus,
    count_active,
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
_LEGACY: dict[int, dict[int, Preemptibility]] = {}
"""threshold -> priority -> the legacy rule's answer: the rule evaluated once per priority."""


class PodSetFacts:
    """A pod set as computed once: its name, minimum, size, active tasks (listing order) and
    the sub-group set it belongs to (``None``: the job itself)."""

    __slots__ = ("active", "min_available", "name", "parent", "size", "tasks")

    def __init__(
        self,
        name: str,
        min_available: int,
        tasks: tuple[TaskLike, ...],
        active: tuple[TaskLike, ...],
        parent: str | None = None,
    ) -> None:
        self.name = name
        self.min_available = min_available
        self.tasks = tasks
        self.size = len(tasks)
        self.active = active
        self.parent = parent

    @property
    def surplus(self) -> int:
        """How many active tasks are above ``min_available`` (zero if none)."""
        return max(0, len(self.active) - self.min_available)


def _is_active(task: TaskLike) -> bool:
    return TaskStatus.parse(task.status).is_active


def _start(value: object, job: JobLike) -> datetime:
    """A job's start time as an aware datetime (datetimes hold microseconds, like a ``Job``'s)."""
    if value.__class__ is datetime and value.utcoffset() is not None:
        return value
    return from_ns(instant_ns(value, job))


class JobFacts:
    """The derived facts of one job; read-only. Built with direct slot stores (no ``__init__``
    call), because a session builds one per job; the per-pod-set detail, the start in
    nanoseconds and the section 16 inputs are computed on first use.

    Attributes:
        job: the job they were computed from.
        id, queue, priority: the job's.
        start: its start time as an aware datetime, or ``None``.
        barrier: the first fundamental of eligibility that fails on the victim alone, whatever
            the preemptor (``NON_PREEMPTIBLE``, ``NO_ACTIVE_TASK``, or ``NON_PREEMPTIBLE`` for a
            semi-preemptible job with nothing above its core), else ``None``.
        elastic: some pod set has ``min_available`` below its number of tasks (any status), or
            some set of its sub-group tree needs fewer children than it has (section 18).
        semi: it is semi-preemptible (its core is never evicted).
        preemptibility, preemptibility_source: effective preemptibility and what decided it.
        active_count: active tasks over all pod sets.
        has_surplus: some active task is outside its core (for a job without a sub-group tree:
            some pod set has more active tasks than its ``min_available``).
    """

    __slots__ = (
        "_inputs",
        "_shape",
        "_start_ns",
        "active_count",
        "barrier",
        "elastic",
        "has_surplus",
        "id",
        "job",
        "preemptibility",
        "preemptibility_source",
        "priority",
        "queue",
        "semi",
        "start",
    )

    job: JobLike
    id: Hashable
    queue: str
    priority: int
    start: datetime | None
    barrier: Reason | None
    elastic: bool
    semi: bool
    preemptibility: Preemptibility
    preemptibility_source: PreemptibilitySource
    active_count: int
    has_surplus: bool
    _shape: Shape[PodSetFacts] | None
    _inputs: Inputs | None
    _start_ns: int | None

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
        return cls.many([job], threshold, {})[0]

    @classmethod
    def many(
        cls, jobs: Iterable[JobLike], threshold: int, known: dict[int, JobFacts]
    ) -> list[JobFacts]:
        """The facts of each of ``jobs``, in order: from ``known`` (by ``id(job)``) where they
        are, else computed and added to it. One loop for a whole batch, because a session builds
        facts for every running job: the per-job cost is the scheduler's, every cycle."""
        # the objects made here form no cycles: a collection while a whole cycle's jobs are read
        # would only walk the scheduler's heap, so the collector waits until the loop is done
        collecting = gc.isenabled()
        if collecting:
            gc.disable()
        try:
            return cls._many(jobs, threshold, known)
        finally:
            if collecting:
                gc.enable()

    @classmethod
    def _many(
        cls, jobs: Iterable[JobLike], threshold: int, known: dict[int, JobFacts]
    ) -> list[JobFacts]:
        result: list[JobFacts] = []
        append = result.append
        get = known.get
        legacy = _LEGACY.get(threshold)
        if legacy is None:
            legacy = _LEGACY[threshold] = {}
        semi_value, non_value, pod_set_class, count = _SEMI, _NON, PodSet, count_active
        new, utc, job_class = _new, UTC, Job
        for job in jobs:
            key = id(job)
            facts = get(key)
            if facts is not None:
                append(facts)
                continue
            priority = job.priority
            explicit = job.preemptibility
            if explicit is None or explicit == "":
                preemptibility = legacy.get(priority)
                if preemptibility is None:
                    preemptibility = legacy[priority] = legacy_preemptibility(priority, threshold)
                source = _LEGACY_SOURCE
            else:
                preemptibility = (
                    explicit
                    if explicit.__class__ is Preemptibility
                    else Preemptibility.parse(explicit, origin=f"job {job.id!r} preemptibility")
                )
                source = _EXPLICIT
            elastic = surplus = False
            active_count = 0
            for pod_set in job.pod_sets:
                tasks = pod_set.tasks
                # a library PodSet counted its active tasks when it was built
                active = pod_set._active if pod_set.__class__ is pod_set_class else count(tasks)
                minimum = pod_set.min_available
                if minimum < len(tasks):
                    elastic = True
                if active > minimum:
                    surplus = True
                active_count += active
            shape = None
            if job.__class__ is job_class:
                tree = job.sub_groups or job.min_sub_group is not None
            else:
                tree = (
                    bool(getattr(job, "sub_groups", None))
                    or getattr(job, "min_sub_group", None) is not None
                    or any(getattr(p, "parent", None) is not None for p in job.pod_sets)
                )
            if tree:  # a sub-group tree: its sets may make it elastic, its core is its own
                shape = _shape_of(job)
                elastic = elastic or shape.elastic_sets()
                surplus = shape.outside_core()
            semi = preemptibility is semi_value
            if preemptibility is non_value:
                barrier: Reason | None = _NON_PREEMPTIBLE
            elif not active_count:
                barrier = _NO_ACTIVE
            elif semi and not surplus:
                barrier = _NON_PREEMPTIBLE  # only its core runs: nothing may be taken
            else:
                barrier = None
            start = job.start_time
            if start is not None and not (start.__class__ is datetime and start.tzinfo is utc):
                start = _start(start, job)
            facts = new(cls)
            facts.job = job
            facts.id = job.id
            facts.queue = job.queue
            facts.priority = priority
            facts.start = start
            facts.barrier = barrier
            facts.elastic = elastic
            facts.semi = semi
            facts.preemptibility = preemptibility
            facts.preemptibility_source = source
            facts.active_count = active_count
            facts.has_surplus = surplus
            facts._shape = shape
            facts._inputs = facts._start_ns = None
            known[key] = facts
            append(facts)
        return result

    # -- derived, computed on first use ---------------------------------------------------------

    @property
    def flexible(self) -> bool:
        """Only part of it may go while protected: elastic or semi-preemptible."""
        return self.elastic or self.semi

    @property
    def start_ns(self) -> int | None:
        """The start time in nanoseconds since the epoch, or ``None``."""
        if self._start_ns is None and self.start is not None:
            self._start_ns = to_ns(self.start, "the start time")
        return self._start_ns

    @property
    def start_time(self) -> datetime | None:
        """The start time as a datetime (the same as ``start``)."""
        return self.start

    @property
    def shape(self) -> Shape[PodSetFacts]:
        """The job's sub-group tree over its pod sets (for a job without one, the degenerate
        tree: the job needs each of its pod sets)."""
        if self._shape is None:
            self._shape = _shape_of(self.job)
        return self._shape

    @property
    def pod_sets(self) -> tuple[PodSetFacts, ...]:
        """Per pod set facts, in listing order."""
        return self.shape.pod_sets

    def core_tasks(self) -> tuple[TaskLike, ...]:
        """Its core (section 18, which for a job without a tree is section 7's: the first
        ``min_available`` active tasks of each pod set), in listing order."""
        return tuple(self.shape.split()[0])

    def surplus_tasks(self) -> tuple[TaskLike, ...]:
        """The active tasks of its core pod sets above their ``min_available`` (for a job
        without a sub-group tree: of every pod set), in listing order."""
        return tuple(self.shape.split()[2])

    def active_tasks(self) -> tuple[TaskLike, ...]:
        """Every active task, in listing order."""
        return tuple(task for pod_set in self.pod_sets for task in pod_set.active)

    def task_pod_sets(self) -> dict[Hashable, str]:
        """Every task id of the job (any status) mapped to the name of its pod set."""
        return {task.id: pod_set.name for pod_set in self.pod_sets for task in pod_set.tasks}

    def held_until_ns(self) -> int | None:
        """As a preemptor: the first instant at which it may trigger evictions (its preemption
        delay, section 17), or ``None`` when nothing holds it back."""
        inputs = self.inputs()
        return held_until_ns(inputs.delay, (inputs.created_ns, inputs.last_eviction_ns))

    def inputs(self) -> Inputs:
        """The job's section 16 inputs in nanoseconds, read on first use (``inputs`` attribute,
        read with ``getattr`` so that a scheduler's own objects need not have one)."""
        if self._inputs is None:
            given: Any = getattr(self.job, "inputs", None)
            self._inputs = NO_INPUTS if given is None else _read_inputs(self, given)
        return self._inputs


def _shape_of(job: JobLike) -> Shape[PodSetFacts]:
    """The sub-group tree of ``job`` over the facts of its pod sets."""
    leaves = []
    for pod_set in job.pod_sets:
        tasks = tuple(pod_set.tasks)
        facts = PodSetFacts(
            pod_set.name,
            pod_set.min_available,
            tasks,
            tuple(task for task in tasks if _is_active(task)),
            getattr(pod_set, "parent", None),
        )
        leaves.append((facts.name, facts.parent, facts.min_available, facts))
    sets = getattr(job, "sub_groups", None) or ()
    try:
        root = link(
            leaves,
            [
                (
                    getattr(node, "name", None),
                    getattr(node, "parent", None),
                    getattr(node, "min_sub_group", None),
                )
                for node in sets
            ],
            getattr(job, "min_sub_group", None),
        )
    except TreeError as error:
        raise InvalidJob(f"job {job.id!r}: {error}") from None
    return Shape(root)


_new = object.__new__
_LEGACY_SOURCE: Final = PreemptibilitySource.LEGACY_PRIORITY
_EXPLICIT: Final = PreemptibilitySource.EXPLICIT
_NON_PREEMPTIBLE: Final = Reason.NON_PREEMPTIBLE
_NO_ACTIVE: Final = Reason.NO_ACTIVE_TASK


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
    lone = (
        None
        if given.last_eviction is None
        else to_ns(given.last_eviction, f"{where} last_eviction")
    )
    latest = [moment for moment in (lone, times[-1] if times else None) if moment is not None]
    return Inputs(
        checkpoint_ns=checkpoint,
        interval_ns=_ns(given.checkpoint_interval),
        restore_ns=_ns(given.checkpoint_restore) or 0,
        eviction_ns=times,
        eviction_count=count,
        requested_ns=_ns(given.requested_min_runtime),
        delay=given.preemption_delay,
        created_ns=None if given.created is None else to_ns(given.created, f"{where} created"),
        last_eviction_ns=max(latest) if latest else None,
    )


def _ns(value: MinRuntime | None) -> int | None:
    return None if value is None else value.ns

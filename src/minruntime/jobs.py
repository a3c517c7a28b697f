"""Jobs, pod sets and tasks: the plain value classes and the protocol the Session reads.

A job has an id, a queue, a priority, an explicit preemptibility or none, a start time or none,
and one or more pod sets (sub-groups), each with a ``min_available`` and its tasks. A scheduler
may pass its own objects instead: anything with the attributes of :class:`JobLike` works.

>>> from minruntime import Job, PodSet, Task
>>> job = Job("train-1", "team-a", start_time=0, pod_sets=[
...     PodSet("workers", min_available=2, tasks=[Task("w0"), Task("w1"), Task("w2", "Pending")])])
>>> facts = JobFacts.of(job)
>>> facts.elastic, facts.active_count
(True, 2)
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable, Sequence
from datetime import datetime
from typing import Any, Final, Protocol

import attrs

from minruntime._time import Instant, from_ns, optional_to_ns, to_ns
from minruntime.checkpoints import JobInputs
from minruntime.durations import MinRuntime, parse_optional_min_runtime
from minruntime.errors import InvalidDuration, InvalidTimestamp
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    Preemptibility,
    PreemptibilitySource,
)

__all__ = [
    "ACTIVE_STATUSES",
    "ALLOCATED_STATUSES",
    "DEFAULT_POD_SET",
    "DEFAULT_PRIORITY",
    "Job",
    "JobFacts",
    "JobLike",
    "PodSet",
    "PodSetLike",
    "Task",
    "TaskLike",
    "TaskStatus",
]

DEFAULT_POD_SET: Final = "default"
"""The name of the pod set of a job without sub-groups."""

DEFAULT_PRIORITY: Final = 50
"""The priority of a job that names none: the reference scheduler's fallback."""


class TaskStatus(enum.Enum):
    """The status of one task (pod), as the reference scheduler names them.

    ``TaskStatus("Running")`` reads the name; :meth:`parse` also ignores case.

    >>> TaskStatus.RELEASING.is_active, TaskStatus.PIPELINED.is_allocated
    (True, False)
    """

    __hash__ = object.__hash__  # identity: Enum's own __hash__ is slow Python code

    PENDING = "Pending"
    GATED = "Gated"
    ALLOCATED = "Allocated"
    PIPELINED = "Pipelined"
    BINDING = "Binding"
    BOUND = "Bound"
    RUNNING = "Running"
    RELEASING = "Releasing"
    STUCK_IN_RELEASING = "StuckInReleasing"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    UNKNOWN = "Unknown"
    DELETED = "Deleted"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: object) -> TaskStatus:
        """Read a status by its name, in any case.

        Raises:
            ValueError: for an unknown status.

        >>> TaskStatus.parse("stuckinreleasing")
        <TaskStatus.STUCK_IN_RELEASING: 'StuckInReleasing'>
        """
        if isinstance(value, TaskStatus):
            return value
        found = _STATUS_BY_NAME.get(value.lower()) if isinstance(value, str) else None
        if found is None:
            names = ", ".join(status.value for status in TaskStatus)
            raise ValueError(f"invalid task status {value!r} (expected one of {names})")
        return found

    @property
    def is_active(self) -> bool:
        """Holds resources: Allocated, Pipelined, Binding, Bound, Running, Releasing, StuckInReleasing."""
        return self in ACTIVE_STATUSES

    @property
    def is_allocated(self) -> bool:
        """Counts for start-time stamping: Allocated, Binding, Bound, Running."""
        return self in ALLOCATED_STATUSES


_STATUS_BY_NAME: Final = {status.value.lower(): status for status in TaskStatus}

ACTIVE_STATUSES: Final = frozenset(
    {
        TaskStatus.ALLOCATED,
        TaskStatus.PIPELINED,
        TaskStatus.BINDING,
        TaskStatus.BOUND,
        TaskStatus.RUNNING,
        TaskStatus.RELEASING,
        TaskStatus.STUCK_IN_RELEASING,
    }
)
"""Statuses of tasks that hold resources (and count towards ``min_available``)."""

ALLOCATED_STATUSES: Final = frozenset(
    {TaskStatus.ALLOCATED, TaskStatus.BINDING, TaskStatus.BOUND, TaskStatus.RUNNING}
)
"""Statuses that make a job count as started, for start-time stamping."""

_IS_ACTIVE: Final[dict[object, bool]] = {
    **{status: status in ACTIVE_STATUSES for status in TaskStatus},
    **{status.value: status in ACTIVE_STATUSES for status in TaskStatus},
}


class TaskLike(Protocol):
    """What the library reads of a task."""

    @property
    def id(self) -> Hashable: ...

    @property
    def status(self) -> TaskStatus | str: ...


class PodSetLike(Protocol):
    """What the library reads of a pod set (sub-group)."""

    @property
    def name(self) -> str: ...

    @property
    def min_available(self) -> int: ...

    @property
    def tasks(self) -> Sequence[TaskLike]: ...


class JobLike(Protocol):
    """What the library reads of a job; a scheduler's own job objects may satisfy it directly.

    ``preemptibility`` may be a :class:`~minruntime.Preemptibility`, one of its spellings,
    ``""`` or ``None`` (then the legacy priority rule decides). ``start_time`` is an aware
    datetime, POSIX seconds, or ``None`` (never started: not protected).
    """

    @property
    def id(self) -> Hashable: ...

    @property
    def queue(self) -> str: ...

    @property
    def priority(self) -> int: ...

    @property
    def preemptibility(self) -> Preemptibility | str | None: ...

    @property
    def start_time(self) -> Instant | None: ...

    @property
    def pod_sets(self) -> Sequence[PodSetLike]: ...


def _to_status(value: TaskStatus | str) -> TaskStatus:
    return TaskStatus.parse(value)


def _check_weight(instance: Task, attribute: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ValueError(f"task {instance.id!r}: weight must be a number >= 0, got {value!r}")


@attrs.frozen
class Task:
    """One task (pod) of a job, with an optional weight (BEHAVIOR.md section 16).

    >>> Task("worker-0")
    Task(id='worker-0', status=<TaskStatus.RUNNING: 'Running'>)
    >>> Task("worker-1", "pending").status
    <TaskStatus.PENDING: 'Pending'>
    """

    id: str
    status: TaskStatus = attrs.field(default=TaskStatus.RUNNING, converter=_to_status)
    weight: float = attrs.field(default=1.0, kw_only=True, validator=_check_weight)
    """What losing this task's work costs per second (for example its GPUs); default 1."""

    def __repr__(self) -> str:
        weight = "" if self.weight == 1 else f", weight={self.weight!r}"
        return f"Task(id={self.id!r}, status={self.status!r}{weight})"


def _to_tasks(tasks: Iterable[Task]) -> tuple[Task, ...]:
    return tuple(tasks)


def _check_min_available(instance: PodSet, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(
            f"pod set {instance.name!r}: min_available must be an integer >= 0, got {value!r}"
        )


@attrs.frozen
class PodSet:
    """A pod set (sub-group) of a job: a name, ``min_available`` and its tasks.

    >>> PodSet(min_available=1, tasks=[Task("a"), Task("b")])
    PodSet(name='default', min_available=1, tasks=(Task(id='a', status=<TaskStatus.RUNNING: 'Running'>), Task(id='b', status=<TaskStatus.RUNNING: 'Running'>)))
    """

    name: str = DEFAULT_POD_SET
    min_available: int = attrs.field(default=1, validator=_check_min_available)
    tasks: tuple[Task, ...] = attrs.field(default=(), converter=_to_tasks)


def _to_pod_sets(pod_sets: Iterable[PodSet]) -> tuple[PodSet, ...]:
    return tuple(pod_sets)


def _to_preemptibility(value: Preemptibility | str | None) -> Preemptibility | None:
    if value is None or value == "":
        return None
    return Preemptibility.parse(value, origin="Job preemptibility")


def _to_start_time(value: Instant | None) -> datetime | None:
    if value is None or (isinstance(value, datetime) and value.tzinfo is not None):
        return value
    ns = optional_to_ns(value, "a job's start_time")
    return None if ns is None else from_ns(ns)


def _to_interval(value: object) -> MinRuntime | None:
    interval = parse_optional_min_runtime(
        value, origin="Job checkpoint_interval", allow_never=False
    )
    if interval is not None and not interval:
        raise InvalidDuration(
            "invalid duration 0 in Job checkpoint_interval: a checkpoint interval must be "
            "positive (expected e.g. '30m')",
            value=value,
            origin="Job checkpoint_interval",
        )
    return interval


def _to_request(value: object) -> MinRuntime | None:
    return parse_optional_min_runtime(value, origin="Job requested_min_runtime", allow_never=False)


def _to_evictions(value: object) -> tuple[datetime, ...] | int:
    if isinstance(value, bool):
        raise ValueError(f"Job evictions: expected times or a count, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"Job evictions: a count must be >= 0, got {value!r}")
        return value
    if not isinstance(value, Iterable) or isinstance(value, str | bytes):
        raise ValueError(f"Job evictions: expected times or a count, got {value!r}")
    return tuple(sorted(from_ns(to_ns(moment, "a job's eviction time")) for moment in value))


def _check_pod_sets(
    instance: Job, attribute: attrs.Attribute[tuple[PodSet, ...]], value: tuple[PodSet, ...]
) -> None:
    names = [pod_set.name for pod_set in value]
    if len(set(names)) != len(names):
        raise ValueError(f"job {instance.id!r}: duplicate pod set names in {names}")


@attrs.frozen
class Job:
    """A job (pod group) as the Session sees it.

    Args:
        id: unique id (for Kubernetes, ``namespace/name`` of the PodGroup).
        queue: the name of its (leaf) queue.
        priority: its priority; 50 when it names none.
        preemptibility: explicit preemptibility, or ``None``/``""`` for the legacy rule.
        start_time: when it last went from no running pods to running: an aware datetime or
            POSIX seconds; ``None`` if it never started.
        pod_sets: its pod sets; by default one empty ``"default"`` pod set.
        last_checkpoint: when it last completed a checkpoint (BEHAVIOR.md section 16), or
            ``None``; ignored when before ``start_time``.
        checkpoint_interval: how often it checkpoints (a duration), or ``None``.
        evictions: the times it was evicted before, or just a count where times are not kept.
        requested_min_runtime: its own min-runtime request (a duration; never is not a request).

    >>> Job("j", "q", preemptibility="Non-Preemptible", start_time=60).start_time
    datetime.datetime(1970, 1, 1, 0, 1, tzinfo=datetime.timezone.utc)
    """

    id: str
    queue: str
    priority: int = DEFAULT_PRIORITY
    preemptibility: Preemptibility | None = attrs.field(default=None, converter=_to_preemptibility)
    start_time: datetime | None = attrs.field(default=None, converter=_to_start_time)
    pod_sets: tuple[PodSet, ...] = attrs.field(
        factory=lambda: (PodSet(),), converter=_to_pod_sets, validator=_check_pod_sets
    )
    last_checkpoint: datetime | None = attrs.field(
        default=None, kw_only=True, converter=_to_start_time
    )
    checkpoint_interval: MinRuntime | None = attrs.field(
        default=None, kw_only=True, converter=_to_interval
    )
    evictions: tuple[datetime, ...] | int = attrs.field(
        default=(), kw_only=True, converter=_to_evictions
    )
    requested_min_runtime: MinRuntime | None = attrs.field(
        default=None, kw_only=True, converter=_to_request
    )
    # (legacy threshold, JobFacts): a Job is immutable, so its facts are computed once, not once
    # per session; see JobFacts.of.
    _facts: tuple[int, JobFacts] | None = attrs.field(
        default=None, init=False, eq=False, repr=False, hash=False
    )

    def __repr__(self) -> str:
        shown = [
            f"id={self.id!r}",
            f"queue={self.queue!r}",
            f"priority={self.priority!r}",
            f"preemptibility={self.preemptibility!r}",
            f"start_time={self.start_time!r}",
            f"pod_sets={self.pod_sets!r}",
        ]
        # the checkpoint-aware inputs of BEHAVIOR.md section 16, only when given
        shown += [
            f"{name}={getattr(self, name)!r}"
            for name in (
                "last_checkpoint",
                "checkpoint_interval",
                "evictions",
                "requested_min_runtime",
            )
            if getattr(self, name) not in (None, ())
        ]
        return f"Job({', '.join(shown)})"

    def tasks(self) -> tuple[Task, ...]:
        """Every task of every pod set, in listing order."""
        return tuple(task for pod_set in self.pod_sets for task in pod_set.tasks)


@attrs.define(eq=False)
class PodSetFacts:
    """What a pod set is, as computed once: its active tasks in listing order and counts."""

    name: str
    min_available: int
    size: int
    active: tuple[TaskLike, ...]

    @property
    def surplus(self) -> int:
        """Active tasks above ``min_available`` (zero if none)."""
        return max(0, len(self.active) - self.min_available)


class JobFacts:
    """Derived facts of a job, computed once per job per session (once per object for a
    :class:`Job`, which is immutable).

    Treat them as read-only. The counts a filter needs (active tasks, elastic, whether some pod
    set runs above its minimum) are computed when the facts are built; the per-pod-set detail
    (which tasks are active, the core, the surplus) only when first asked for, since most
    victims are decided without it.

    Attributes:
        job: the job they were computed from.
        id, queue, priority: the job's.
        start_ns: start time in nanoseconds since the epoch, or ``None``.
        preemptibility: the effective preemptibility (explicit, else the legacy rule).
        preemptibility_source: explicit or legacy-priority.
        elastic: some pod set has ``min_available`` below its number of tasks (any status).
        active_count: active tasks over all pod sets.
        has_surplus: some pod set has more active tasks than its ``min_available``.
    """

    __slots__ = (
        "_inputs",
        "_pod_sets",
        "active_count",
        "elastic",
        "has_surplus",
        "id",
        "job",
        "preemptibility",
        "preemptibility_source",
        "priority",
        "queue",
        "start_ns",
    )

    def __init__(
        self,
        job: JobLike,
        *,
        start_ns: int | None,
        preemptibility: Preemptibility,
        preemptibility_source: PreemptibilitySource,
        elastic: bool,
        active_count: int,
        has_surplus: bool,
    ) -> None:
        self.job = job
        self.id = job.id
        self.queue = job.queue
        self.priority = job.priority
        self.start_ns = start_ns
        self.preemptibility = preemptibility
        self.preemptibility_source = preemptibility_source
        self.elastic = elastic
        self.active_count = active_count
        self.has_surplus = has_surplus
        self._pod_sets: tuple[PodSetFacts, ...] | None = None
        self._inputs: JobInputs | None = None

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
            preemptibility = (
                Preemptibility.PREEMPTIBLE
                if job.priority < threshold
                else Preemptibility.NON_PREEMPTIBLE
            )
            source = PreemptibilitySource.LEGACY_PRIORITY
        elif explicit.__class__ is Preemptibility:
            preemptibility = explicit
            source = PreemptibilitySource.EXPLICIT
        else:
            preemptibility = Preemptibility.parse(explicit, origin=f"job {job.id!r} preemptibility")
            source = PreemptibilitySource.EXPLICIT
        elastic = False
        surplus = False
        active_count = 0
        lookup = _IS_ACTIVE.__getitem__
        for pod_set in job.pod_sets:
            tasks = pod_set.tasks
            try:
                active = sum(map(lookup, [task.status for task in tasks]))
            except KeyError:  # a status spelled in another case, or not a status at all
                active = sum(TaskStatus.parse(task.status) in ACTIVE_STATUSES for task in tasks)
            minimum = pod_set.min_available
            if minimum < len(tasks):
                elastic = True
            if active > minimum:
                surplus = True
            active_count += active
        start = job.start_time
        if start is not None:
            try:
                start = to_ns(start, "")
            except InvalidTimestamp:  # again, naming the job: the name costs time on the hot path
                to_ns(start, f"job {job.id!r} start_time")
                raise
        facts = cls(
            job,
            start_ns=start,
            preemptibility=preemptibility,
            preemptibility_source=source,
            elastic=elastic,
            active_count=active_count,
            has_surplus=surplus,
        )
        if own:
            object.__setattr__(job, "_facts", (threshold, facts))
        return facts

    def inputs(self) -> JobInputs:
        """The job's checkpoint-aware inputs (BEHAVIOR.md section 16), read on first use.

        Read with ``getattr``, so a scheduler's own job objects need not have them. A last
        checkpoint before the start time is ignored.
        """
        if self._inputs is None:
            job = self.job
            where = f"job {self.id!r}"
            last = getattr(job, "last_checkpoint", None)
            checkpoint = None if last is None else to_ns(last, f"{where} last_checkpoint")
            if checkpoint is not None and self.start_ns is not None and checkpoint < self.start_ns:
                checkpoint = None
            interval = parse_optional_min_runtime(
                getattr(job, "checkpoint_interval", None),
                origin=f"{where} checkpoint_interval",
                allow_never=False,
            )
            requested = parse_optional_min_runtime(
                getattr(job, "requested_min_runtime", None),
                origin=f"{where} requested_min_runtime",
                allow_never=False,
            )
            history: Any = getattr(job, "evictions", ())
            times: tuple[int, ...] | None
            if isinstance(history, int) and not isinstance(history, bool):
                times, count = None, history
            else:
                stamps = [to_ns(moment, f"{where} evictions") for moment in history]
                times, count = tuple(sorted(stamps)), len(stamps)
            self._inputs = JobInputs(
                checkpoint_ns=checkpoint,
                interval_ns=None if interval is None else interval._ns,
                eviction_ns=times,
                eviction_count=count,
                requested_ns=None if requested is None else requested._ns,
            )
        return self._inputs

    @property
    def pod_sets(self) -> tuple[PodSetFacts, ...]:
        """Per pod set facts, in listing order (computed on first use)."""
        if self._pod_sets is None:
            self._pod_sets = tuple(
                PodSetFacts(
                    pod_set.name,
                    pod_set.min_available,
                    len(pod_set.tasks),
                    tuple(
                        task
                        for task in pod_set.tasks
                        if TaskStatus.parse(task.status) in ACTIVE_STATUSES
                    ),
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
        return {task.id: pod_set.name for pod_set in self.job.pod_sets for task in pod_set.tasks}

"""Jobs, pod sets and tasks: the plain value classes and the protocol the Session reads.

A job has an id, a queue, a priority, an explicit preemptibility or none, a start time or none,
and one or more pod sets (sub-groups), each with a ``min_available`` and its tasks. A scheduler
may pass its own objects instead: anything with the attributes of :class:`JobLike` works.

>>> from minruntime import Job, PodSet, Task
>>> job = Job("train-1", "team-a", start_time=0, pod_sets=[
...     PodSet("workers", min_available=2, tasks=[Task("w0"), Task("w1"), Task("w2", "Pending")])])
>>> [task.status.is_active for task in job.tasks()]
[True, True, False]
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import datetime
from typing import Any, Final, Protocol

import attrs

from minruntime._fields import (
    non_negative_int,
    read_optional_duration,
    read_optional_instant,
    read_optional_min_runtime,
    read_optional_positive_duration,
    reported,
    slot_setters,
    where,
)
from minruntime._time import Instant, from_ns, to_ns
from minruntime._tree import TreeError, link
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidJob, InvalidResources
from minruntime.preemptibility import Preemptibility
from minruntime.resources import ONE_POD, Resources, ResourcesLike, task_resources

__all__ = [
    "DEFAULT_POD_SET",
    "DEFAULT_PRIORITY",
    "Job",
    "JobInputs",
    "JobLike",
    "PodSet",
    "PodSetLike",
    "SubGroup",
    "SubGroupLike",
    "Task",
    "TaskLike",
    "TaskStatus",
]


def __dir__() -> list[str]:
    return __all__


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

IS_ACTIVE: Final[dict[object, bool]] = {
    **{status: status in ACTIVE_STATUSES for status in TaskStatus},
    **{status.value: status in ACTIVE_STATUSES for status in TaskStatus},
}
"""Task status (or its exact name) -> active: one dict lookup per task on the hot path."""


class TaskLike(Protocol):
    """What the library reads of a task: ``id`` and ``status`` (a :class:`TaskStatus` or its
    name); ``resources`` too where it exists (a mapping from resource names to amounts; default
    one pod, see :class:`Task`)."""

    @property
    def id(self) -> Hashable: ...

    @property
    def status(self) -> TaskStatus | str: ...


class PodSetLike(Protocol):
    """What the library reads of a pod set (a leaf sub-group); a ``parent`` attribute (the name
    of its sub-group set, docs/spec/sub-group-trees.md), where it exists, is read too."""

    @property
    def name(self) -> str: ...

    @property
    def min_available(self) -> int: ...

    @property
    def tasks(self) -> Sequence[TaskLike]: ...


class SubGroupLike(Protocol):
    """What the library reads of a sub-group set (docs/spec/sub-group-trees.md)."""

    @property
    def name(self) -> str: ...

    @property
    def parent(self) -> str | None: ...

    @property
    def min_sub_group(self) -> int | None: ...


class JobLike(Protocol):
    """What the library reads of a job; a scheduler's own job objects may satisfy it directly.

    ``preemptibility`` may be a :class:`~minruntime.Preemptibility`, one of its spellings,
    ``""`` or ``None`` (then the legacy priority rule decides). ``start_time`` is an aware
    datetime, POSIX seconds, or ``None`` (never started: not protected). Where they exist, an
    ``inputs`` attribute (a :class:`JobInputs`) and the sub-group tree's ``sub_groups`` (a
    sequence of :class:`SubGroupLike`) and ``min_sub_group`` (the job's own, an int or
    ``None``) are read too, and so is ``core_pods`` (the ids of the tasks the scheduler names
    as a semi-preemptible job's core, an iterable of ids or ``None``; see :class:`Job`).
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


class _Table(dict[Any, Any]):
    """A converter that is one dict lookup for the common values (no Python call), and a
    function for the rest: ``table.__getitem__`` is the converter."""

    def __init__(self, common: dict[Any, Any], rest: Any) -> None:
        super().__init__(common)
        self._rest = rest

    def __missing__(self, value: object) -> Any:
        return self._rest(value)


def _status(value: object) -> TaskStatus:
    try:
        return TaskStatus.parse(value)
    except ValueError as error:
        raise InvalidJob(f"Task status: {error}") from None


_TO_STATUS: Final = _Table(
    {**{status: status for status in TaskStatus}, **{s.value: s for s in TaskStatus}}, _status
)


@attrs.frozen(init=False)
class Task:
    """One task (pod) of a job, and the resources it holds (docs/spec/plans.md).

    Args:
        id: the task's id, unique within its job.
        status: a :class:`TaskStatus` or its name, in any case; default running.
        resources: what it holds: a mapping from resource names (``"nvidia.com/gpu"``,
            ``"cpu"``, ``"memory"``, any name the scheduler uses) to finite amounts ``>= 0``;
            every task is one pod, so ``"pods": 1`` is added unless it names a count of pods.
            Default: one pod and nothing else.

    Raises:
        InvalidJob: for a status that is not one.
        InvalidResources: for resources that are not such a mapping, naming the task.

    >>> Task("worker-0")
    Task(id='worker-0', status=<TaskStatus.RUNNING: 'Running'>, resources=Resources({'pods': 1}))
    >>> Task("worker-1", "pending", resources={"nvidia.com/gpu": 1, "cpu": 8}).resources
    Resources({'cpu': 8, 'nvidia.com/gpu': 1, 'pods': 1})
    """

    id: str
    status: TaskStatus = TaskStatus.RUNNING
    resources: Resources = attrs.field(default=ONE_POD, kw_only=True)

    def __init__(
        self,
        id: str,
        status: TaskStatus | str = TaskStatus.RUNNING,
        *,
        resources: ResourcesLike | None = None,
    ) -> None:
        # Tasks are built by the thousand: each field is stored by its slot's own setter (not
        # object.__setattr__, which looks the name up each time); a status is one dict lookup
        # (the reader is called for any other spelling), and no resources need no check.
        _TASK_ID(self, id)
        try:
            _TASK_STATUS(self, _TO_STATUS[status])
        except InvalidJob as error:  # name the task
            raise InvalidJob(f"Task {id!r} {str(error).removeprefix('Task ')}") from None
        try:  # the task is named only when its resources are refused: tasks are many
            _TASK_RESOURCES(
                self, ONE_POD if resources is None else task_resources(resources, "resources")
            )
        except InvalidResources as error:
            raise InvalidResources(f"Task {id!r} {error}") from None


_TASK_ID, _TASK_STATUS, _TASK_RESOURCES = slot_setters(Task, "id", "status", "resources")


def checked_priority(value: object, job: object) -> int:
    """A job's priority: an integer (not a bool).

    Raises:
        InvalidJob: naming the job, the field and the value.

    >>> checked_priority("high", "train")
    Traceback (most recent call last):
    ...
    minruntime.errors.InvalidJob: job 'train' priority: expected an integer (e.g. a priority class's value, 50 when none), got 'high'
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise InvalidJob(
        f"job {job!r} priority: expected an integer (e.g. a priority class's value, 50 when "
        f"none), got {value!r:.60}"
    )


def task_status(value: object, task: object, job: object) -> TaskStatus:
    """A task's status (a :class:`TaskStatus` or its name, in any case).

    Raises:
        InvalidJob: naming the job, the task and the value.

    >>> task_status("Bogus", "w-0", "train")
    Traceback (most recent call last):
    ...
    minruntime.errors.InvalidJob: job 'train' task 'w-0' status: invalid task status 'Bogus' (expected one of Pending, Gated, Allocated, Pipelined, Binding, Bound, Running, Releasing, StuckInReleasing, Succeeded, Failed, Unknown, Deleted)
    """
    try:
        return TaskStatus.parse(value)
    except ValueError as error:
        raise InvalidJob(f"job {job!r} task {task!r} status: {error}") from None


def count_active(tasks: Iterable[TaskLike]) -> int:
    """How many of ``tasks`` are active (hold resources): the one count every rule uses.

    >>> count_active([Task("a"), Task("b", "Pending"), Task("c", "releasing")])
    2
    """
    active = IS_ACTIVE
    count = 0
    for task in tasks:  # a plain loop: cheaper than map and sum for a job's few tasks
        status = task.status
        try:
            is_active = active[status]
        except (KeyError, TypeError):  # a status spelled in another case, or not a status
            is_active = TaskStatus.parse(status).is_active
        if is_active:
            count += 1
    return count


@attrs.frozen(init=False)
class PodSet:
    """A pod set (a leaf sub-group) of a job: a name, ``min_available`` and its tasks, and the
    sub-group set it belongs to in a sub-group tree (docs/spec/sub-group-trees.md), if any.

    Args:
        name: unique within its job; default ``"default"``.
        min_available: how many of its tasks must be active for it to be satisfied.
        tasks: its tasks, in listing order.
        parent: the name of its :class:`SubGroup` (keyword only); ``None``: the job itself.

    Raises:
        InvalidJob: for a ``min_available`` that is not an integer >= 0 (a parent that is not a
            name is an error of the job that lists it).

    >>> PodSet(min_available=1, tasks=[Task("a")])
    PodSet(name='default', min_available=1, tasks=(Task(id='a', status=<TaskStatus.RUNNING: 'Running'>, resources=Resources({'pods': 1})),), parent=None)
    """

    name: str = DEFAULT_POD_SET
    min_available: int = 1
    tasks: tuple[Task, ...] = ()
    # checked where a job links its tree (one call per job, not one per pod set)
    parent: str | None = attrs.field(default=None, kw_only=True)
    # a PodSet is immutable: its active tasks are counted once, when it is built, rather than by
    # every session that asks about it (minruntime._facts)
    _active: int = attrs.field(init=False, repr=False, eq=False, hash=False)

    def __init__(
        self,
        name: str = DEFAULT_POD_SET,
        min_available: int = 1,
        tasks: Iterable[Task] = (),
        *,
        parent: str | None = None,
    ) -> None:
        # stored by the slots' own setters (see Task); min_available checked by its validator
        # unless it is a plain int >= 0
        _POD_SET_NAME(self, name)
        _POD_SET_MIN(self, min_available)
        if min_available.__class__ is not int or min_available < 0:
            _check_min_available(self, _MIN_AVAILABLE, min_available)
        tasks = tuple(tasks)
        _POD_SET_TASKS(self, tasks)
        _POD_SET_PARENT(self, parent)
        _POD_SET_ACTIVE(self, count_active(tasks))

    @property
    def active_count(self) -> int:
        """How many of its tasks are active (they hold resources), counted once, when it was
        built.

        >>> PodSet(tasks=[Task("a"), Task("b", "Pending"), Task("c", "Releasing")]).active_count
        2
        """
        return self._active


_POD_SET_NAME, _POD_SET_MIN, _POD_SET_TASKS, _POD_SET_PARENT, _POD_SET_ACTIVE = slot_setters(
    PodSet, "name", "min_available", "tasks", "parent", "_active"
)
_MIN_AVAILABLE: Final = attrs.fields(PodSet).min_available
_check_min_available: Final = non_negative_int(InvalidJob)


def _a_name(*, optional: bool) -> Callable[[object, attrs.Attribute[Any], object], None]:
    """A validator: a non-empty name (or ``None`` too when ``optional``)."""
    expected = "a non-empty name" + (" or None" if optional else "")

    def check(instance: object, field: attrs.Attribute[Any], value: object) -> None:
        if not (optional and value is None) and (not isinstance(value, str) or not value):
            raise InvalidJob(f"{where(instance, field)}: expected {expected}, got {value!r:.60}")

    return check


@attrs.frozen
class SubGroup:
    """A sub-group set of a job's sub-group tree (docs/spec/sub-group-trees.md): it holds other
    sub-groups (sets, or pod sets naming it as their ``parent``), not tasks.

    Args:
        name: unique among the job's sub-groups and pod sets.
        parent: the set it belongs to; ``None``: the job itself.
        min_sub_group: how many of its children must be satisfied for it to be; ``None``
            (default): all of them.

    Raises:
        InvalidJob: for an empty name or parent, or a ``min_sub_group`` that is not an
            integer >= 0.

    >>> decode = SubGroup("decode", min_sub_group=1)
    >>> job = Job("serve", "q", sub_groups=[decode], pod_sets=[
    ...     PodSet("decode-0", 2, [Task("a"), Task("b")], parent="decode"),
    ...     PodSet("decode-1", 2, [Task("c"), Task("d")], parent="decode")])
    >>> [s.name for s in job.sub_groups]
    ['decode']
    """

    name: str = attrs.field(validator=_a_name(optional=False))
    parent: str | None = attrs.field(default=None, validator=_a_name(optional=True))
    min_sub_group: int | None = attrs.field(
        default=None, validator=non_negative_int(InvalidJob, optional=True)
    )


def _to_sub_groups(sub_groups: Iterable[SubGroup]) -> tuple[SubGroup, ...]:
    found = tuple(sub_groups)
    for index, node in enumerate(found):
        if not isinstance(node, SubGroup):
            raise InvalidJob(
                f"Job sub_groups[{index}]: expected a SubGroup, got {type(node).__name__}"
            )
    return found


def _to_core_pods(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise InvalidJob(
            f"Job core_pods: expected pod (task) ids as an iterable of strings, or None, got "
            f"{value!r:.60}"
        )
    found = tuple(value)
    for index, name in enumerate(found):
        if not isinstance(name, str):
            raise InvalidJob(
                f"Job core_pods[{index}]: expected a pod (task) id string, got {name!r:.60}"
            )
    return found


def _preemptibility(value: object) -> Preemptibility:
    return Preemptibility.parse(value, origin="Job preemptibility")


_TO_PREEMPTIBILITY: Final = _Table(
    {
        None: None,
        "": None,
        **{p: p for p in Preemptibility},
        **{p.value: p for p in Preemptibility},
    },
    _preemptibility,
)


def _start_time(value: Instant | None) -> datetime | None:
    if value is None or (value.__class__ is datetime and value.tzinfo is not None):
        return value
    return from_ns(to_ns(value, "Job start_time"))


def _check_shape(instance: Job, min_sub_group: object) -> None:
    """The job's shape, in one call per job: unique pod set names, and where it has a sub-group
    tree, a tree (docs/spec/sub-group-trees.md; the tree checks its own fields)."""
    pod_sets = instance.pod_sets
    if len(pod_sets) == 1:
        tree = pod_sets[0].parent is not None
    else:
        names = [pod_set.name for pod_set in pod_sets]
        if len(set(names)) != len(names):
            raise InvalidJob(f"job {instance.id!r}: duplicate pod set names in {names}")
        tree = any(pod_set.parent is not None for pod_set in pod_sets)
    if tree or instance.sub_groups or min_sub_group is not None:
        try:
            link(
                [(p.name, p.parent, p.min_available, p) for p in pod_sets],
                [(s.name, s.parent, s.min_sub_group) for s in instance.sub_groups],
                min_sub_group,
            )
        except TreeError as error:
            raise InvalidJob(f"job {instance.id!r}: {error}") from None


def _to_evictions(value: object) -> tuple[datetime, ...] | int:
    if value == ():
        return ()
    if isinstance(value, bool):
        raise InvalidJob(f"JobInputs evictions: expected times or a count, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise InvalidJob(f"JobInputs evictions: a count must be >= 0, got {value!r}")
        return value
    if not isinstance(value, Iterable) or isinstance(value, str | bytes):
        raise InvalidJob(f"JobInputs evictions: expected times or a count, got {value!r:.60}")
    return tuple(sorted(from_ns(to_ns(moment, "JobInputs evictions")) for moment in value))


@attrs.frozen(kw_only=True)
class JobInputs:
    """What a job says about itself beyond the basics: the inputs of docs/spec/beyond-min-runtime.md
    and docs/spec/preemption-delay.md.

    All optional; a job without them (``Job.inputs`` is ``None``) is judged by min-runtime alone.

    Args:
        checkpoint_interval: how often it checkpoints (a positive duration), or ``None``.
        last_checkpoint: when it last completed a checkpoint (an aware datetime or POSIX
            seconds); ignored when before its start time.
        checkpoint_restore: how long it restores from a checkpoint after each start before it
            computes again (the checkpoint phase): its first checkpoint of a run falls
            ``checkpoint_interval`` after the restore, and its unsaved work counts from the end
            of the restore. Default zero.
        evictions: the times at which it was evicted before, or just a count.
        requested_min_runtime: its own min-runtime request (a duration; never is not a request).
        preemption_delay: how long the job, pending, may not trigger evictions
            (docs/spec/preemption-delay.md): a duration (zero: no delay) or never (it never triggers
            evictions).
        created: when the job was created: the delay's anchor, with its last eviction.
        last_eviction: when it was last evicted, where only that is known (the latest of
            ``evictions`` counts too).

    Raises:
        InvalidDuration: for a bad duration, naming the field.
        InvalidTimestamp: for a naive or malformed time.
        InvalidJob: for evictions that are neither times nor a count >= 0.

    >>> inputs = JobInputs(checkpoint_interval="30m", last_checkpoint=600, evictions=2)
    >>> str(inputs.checkpoint_interval), inputs.last_checkpoint.isoformat(), inputs.evictions
    ('30m', '1970-01-01T00:10:00+00:00', 2)
    """

    checkpoint_interval: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_positive_duration, validator=reported
    )
    last_checkpoint: datetime | None = attrs.field(
        default=None, converter=read_optional_instant, validator=reported
    )
    checkpoint_restore: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_duration, validator=reported
    )
    evictions: tuple[datetime, ...] | int = attrs.field(default=(), converter=_to_evictions)
    requested_min_runtime: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_duration, validator=reported
    )
    preemption_delay: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_min_runtime, validator=reported
    )
    created: datetime | None = attrs.field(
        default=None, converter=read_optional_instant, validator=reported
    )
    last_eviction: datetime | None = attrs.field(
        default=None, converter=read_optional_instant, validator=reported
    )


def _to_inputs(value: object) -> JobInputs | None:
    if value is None or isinstance(value, JobInputs):
        return value
    raise InvalidJob(f"Job inputs: expected a JobInputs or None, got {type(value).__name__}")


@attrs.frozen(init=False)
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
        inputs: its checkpoint, eviction and request inputs (docs/spec/beyond-min-runtime.md), or
            ``None``.
        sub_groups: the sets of its sub-group tree (docs/spec/sub-group-trees.md); default none.
        min_sub_group: how many of its top-level sub-groups (sets, or pod sets with no parent)
            must be satisfied for the job to be; ``None`` (default): all.
        core_pods: the ids of the tasks the scheduler reports as a semi-preemptible job's core
            (the reference scheduler's ``status.schedulingState.corePods``), or ``None``
            (default): the core is computed (docs/spec/sub-group-trees.md). Where it names an
            active task of a semi-preemptible job, it is that job's core; ids the job lacks are
            ignored, and a list naming none of its active tasks (an empty one included) leaves
            the computed core (docs/decisions/core-pods.md). Other jobs ignore it.

    Raises:
        InvalidPreemptibility: for a preemptibility that is none of the accepted spellings.
        InvalidJob: for duplicate pod set names, inputs that are not a ``JobInputs``, a
            sub-group tree that is not one (an unknown parent, a cycle, a set with nothing below
            it, a ``min_sub_group`` above the number of children), naming the sub-group, or
            ``core_pods`` that are not strings.
        InvalidTimestamp: for a naive or malformed start time.

    >>> Job("j", "q", preemptibility="Non-Preemptible", start_time=60).start_time
    datetime.datetime(1970, 1, 1, 0, 1, tzinfo=datetime.timezone.utc)
    >>> Job("j", "q", preemptibility="semi-preemptible", core_pods=["w-0"]).core_pods
    ('w-0',)
    """

    id: str
    queue: str
    priority: int = DEFAULT_PRIORITY
    preemptibility: Preemptibility | None = None
    start_time: datetime | None = None
    pod_sets: tuple[PodSet, ...] = attrs.field(factory=lambda: (PodSet(),))
    inputs: JobInputs | None = attrs.field(default=None, kw_only=True)
    sub_groups: tuple[SubGroup, ...] = attrs.field(default=(), kw_only=True)
    min_sub_group: int | None = attrs.field(default=None, kw_only=True)
    core_pods: tuple[str, ...] | None = attrs.field(default=None, kw_only=True)

    def __init__(
        self,
        id: str,
        queue: str,
        priority: int = DEFAULT_PRIORITY,
        preemptibility: Preemptibility | str | None = None,
        start_time: Instant | None = None,
        pod_sets: Iterable[PodSet] | None = None,
        *,
        inputs: JobInputs | None = None,
        sub_groups: Iterable[SubGroup] = (),
        min_sub_group: int | None = None,
        core_pods: Iterable[str] | None = None,
    ) -> None:
        # Jobs are built by the thousand: each field is stored by its slot's own setter (see
        # Task), the common values take a fast path, and every other value goes to the same
        # converter or check as before, which names the field and the value.
        _JOB_ID(self, id)
        _JOB_QUEUE(self, queue)
        _JOB_PRIORITY(
            self, priority if priority.__class__ is int else checked_priority(priority, id)
        )
        _JOB_PREEMPTIBILITY(self, _TO_PREEMPTIBILITY[preemptibility])
        if start_time is not None and (
            start_time.__class__ is not datetime or start_time.tzinfo is None
        ):
            start_time = _start_time(start_time)
        _JOB_START(self, start_time)
        pod_sets = (PodSet(),) if pod_sets is None else tuple(pod_sets)
        _JOB_POD_SETS(self, pod_sets)
        _JOB_INPUTS(self, None if inputs is None else _to_inputs(inputs))
        sub_groups = () if sub_groups == () else _to_sub_groups(sub_groups)
        _JOB_SUB_GROUPS(self, sub_groups)
        _JOB_MIN_SUB_GROUP(self, min_sub_group)
        _JOB_CORE_PODS(self, None if core_pods is None else _to_core_pods(core_pods))
        if (
            len(pod_sets) != 1
            or pod_sets[0].parent is not None
            or sub_groups
            or min_sub_group is not None
        ):
            _check_shape(self, min_sub_group)

    def tasks(self) -> tuple[Task, ...]:
        """Every task of every pod set, in listing order.

        >>> Job("j", "q", pod_sets=[PodSet(tasks=[Task("a"), Task("b")])]).tasks()[1].id
        'b'
        """
        return tuple(task for pod_set in self.pod_sets for task in pod_set.tasks)


(
    _JOB_ID,
    _JOB_QUEUE,
    _JOB_PRIORITY,
    _JOB_PREEMPTIBILITY,
    _JOB_START,
    _JOB_POD_SETS,
    _JOB_INPUTS,
    _JOB_SUB_GROUPS,
    _JOB_MIN_SUB_GROUP,
    _JOB_CORE_PODS,
) = slot_setters(
    Job,
    "id",
    "queue",
    "priority",
    "preemptibility",
    "start_time",
    "pod_sets",
    "inputs",
    "sub_groups",
    "min_sub_group",
    "core_pods",
)

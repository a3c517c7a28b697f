"""Derived facts of a job, computed once per job (private).

What every decision needs to know about a victim and that does not depend on the preemptor or
on ``now``: its effective preemptibility (explicit, else the legacy priority rule of
:func:`~minruntime.preemptibility.legacy_preemptibility`), its active tasks, whether it is
elastic (docs/spec/jobs.md and docs/spec/sub-group-trees.md) and whether anything of it could go at
all, its start time (integer nanoseconds, the engine's one time encoding), and its section 16
inputs. A session computes them once per job, for a whole batch in one loop, and keeps them in one
form: the columns of a :class:`FactsTable`. :class:`JobFacts` is the one small accessor that reads
one row of those columns for the paths that ask about one victim; it holds nothing of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from itertools import islice
from operator import is_
from typing import Any, Final

from minruntime._protection import (
    NO_INPUTS,
    Inputs,
    checkpoint_of_run,
    held_until_ns,
    last_eviction_ns,
)
from minruntime._time import EPOCH, start_ns, to_ns
from minruntime._tree import Shape, TreeError, link
from minruntime.decisions import Reason
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidJob
from minruntime.jobs import (
    IS_ACTIVE,
    Job,
    JobInputs,
    JobLike,
    PodSet,
    TaskLike,
    TaskStatus,
    checked_priority,
    count_active,
    task_status,
)
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    Preemptibility,
    PreemptibilitySource,
    legacy_preemptibility,
)

__all__ = [
    "ELASTIC",
    "EXPLICIT",
    "PLAIN",
    "SEMI",
    "SURPLUS",
    "FactsTable",
    "JobFacts",
    "PodSetFacts",
]

_NON: Final = Preemptibility.NON_PREEMPTIBLE
_SEMI: Final = Preemptibility.SEMI_PREEMPTIBLE
_MICROSECOND: Final = timedelta(microseconds=1)
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


def _counted(job: JobLike, tasks: Sequence[TaskLike]) -> int:
    """How many of a caller's tasks are active; a status that is not one names the job and
    the task."""
    try:
        return count_active(tasks)
    except ValueError:
        for task in tasks:
            task_status(task.status, task.id, job.id)
        raise


class FactsTable:
    """The derived facts of every job a session has seen, one row per job, kept in columns.

    A session reads the facts of every running job each cycle; kept as one object per job, the
    100,000 objects of a large cluster would cost more to build, and to walk at each of the
    collector's passes, than the whole decision they serve. Columns (one list per fact, indexed
    by row) make a batch a few appends per job and hold nothing the collector must walk per job.
    The per-victim paths (explain, validation, ranking) read a row through :class:`JobFacts`.

    The facts are computed once, here, by :meth:`rows` (a whole batch in one loop):

    - ``ids``, ``queues``, ``priorities``: the job's;
    - ``starts``: its start time in nanoseconds since the epoch, or ``None``;
    - ``barriers``: the first fundamental of eligibility that fails on the victim alone,
      whatever the preemptor (``NON_PREEMPTIBLE``; ``NO_ACTIVE_TASK``; ``NON_PREEMPTIBLE`` for
      a semi-preemptible job with nothing above its core), else ``None``;
    - ``flags``: :data:`ELASTIC` (some pod set has ``min_available`` below its number of tasks,
      or some set of its sub-group tree needs fewer children than it has), :data:`SEMI`,
      :data:`SURPLUS` (some active task is outside its core), :data:`EXPLICIT` (its
      preemptibility was given, not derived by the legacy priority rule), :data:`PLAIN` (a
      library :class:`~minruntime.Job` without a sub-group tree);
    - ``preemptibilities``: its effective preemptibility; ``active``: its active tasks;
    - ``shapes``: the sub-group tree of a job that has one (by row; the others' on first use);
    - ``inputs``: its section 16 inputs, read on first use (by row).

    Lazily computed facts are built whole and then published in one step, and a batch of new
    jobs is added under a lock, so that threads may share a table.

    ``jobs`` keeps each job alive while its row is known, so that a row found by ``id(job)``
    is always that job's.
    """

    __slots__ = (
        "_index",
        "_legacy",
        "_lock",
        "_spans",
        "_threshold",
        "active",
        "barriers",
        "flags",
        "ids",
        "inputs",
        "jobs",
        "preemptibilities",
        "priorities",
        "queues",
        "shapes",
        "starts",
    )

    def __init__(self, threshold: int = LEGACY_PRIORITY_THRESHOLD) -> None:
        self._threshold = threshold
        legacy = _LEGACY.get(threshold)
        if legacy is None:
            legacy = _LEGACY[threshold] = {}
        self._legacy = legacy
        self._lock = threading.Lock()
        self._index: dict[int, int] = {}
        self._spans: dict[tuple[int, int], int] = {}
        self.jobs: list[JobLike] = []
        self.ids: list[Hashable] = []
        self.queues: list[str] = []
        self.priorities: list[int] = []
        self.starts: list[int | None] = []
        self.barriers: list[Reason | None] = []
        self.flags: list[int] = []
        self.preemptibilities: list[Preemptibility] = []
        self.active: list[int] = []
        self.shapes: dict[int, Shape[PodSetFacts]] = {}
        self.inputs: dict[int, Inputs] = {}

    def __len__(self) -> int:
        return len(self.jobs)

    def row(self, job: JobLike) -> int:
        """The row of ``job``, its facts computed if they are not known yet."""
        row = self._index.get(id(job))
        if row is None:  # one new job (a preemptor): its row added alone, under the lock
            with self._lock:
                row = self._index.get(id(job))
                if row is None:
                    row = len(self.jobs)
                    self._add((job,))
                    self._index[id(job)] = row
        return row

    def rows(self, jobs: Iterable[JobLike]) -> Sequence[int]:
        """The row of each of ``jobs``, in order, the facts of those not known yet computed in
        one loop for the whole batch (the per-job cost is the scheduler's, every cycle).

        A batch seen before (the same jobs in the same order, in any container) is recognised
        by identity in one pass; a batch of new jobs is indexed in bulk.

        Raises:
            InvalidPreemptibility: for an explicit preemptibility that is not a valid value.
            InvalidTimestamp: for a naive or malformed start time.
            InvalidJob: for a sub-group tree that does not link.
            ValueError: for a task status that is not a status.
        """
        batch = jobs if isinstance(jobs, list | tuple) else list(jobs)
        count = len(batch)
        if not count:
            return ()
        start = self._spans.get((id(batch[0]), count))
        if start is not None and all(map(is_, batch, islice(self.jobs, start, start + count))):
            return range(start, start + count)
        with self._lock:  # one batch at a time adds rows; a row is published once complete
            return self._rows(batch, count)

    def _rows(self, batch: Sequence[JobLike], count: int) -> Sequence[int]:
        index = self._index
        first = len(self.jobs)
        fresh = dict(zip(map(id, batch), range(first, first + count), strict=True))
        if len(fresh) == count and (not index or index.keys().isdisjoint(fresh)):
            # new jobs only, none listed twice: indexed in bulk (a first batch: the index whole)
            self._add(batch)
            if index:
                index.update(fresh)
            else:
                self._index = fresh
            self._spans[id(batch[0]), count] = first
            return range(first, first + count)
        keys = list(map(id, batch))
        found = list(map(index.get, keys))
        missing: dict[int, JobLike] = {}
        for job, key, row in zip(batch, keys, found, strict=True):
            if row is None and key not in missing:
                missing[key] = job
        self._add(list(missing.values()))
        index.update(zip(missing, range(first, first + len(missing)), strict=True))
        return list(map(index.__getitem__, keys))

    def _add(self, jobs: Sequence[JobLike]) -> None:
        """Append the facts of ``jobs`` (none of them known), all or none of them."""
        first = len(self.jobs)
        try:
            self._compute(jobs)
        except BaseException:
            for column in self._columns():
                del column[first:]
            for row in [row for row in self.shapes if row >= first]:
                del self.shapes[row]
            raise

    def _columns(self) -> tuple[list[Any], ...]:
        return (
            self.jobs,
            self.ids,
            self.queues,
            self.priorities,
            self.starts,
            self.barriers,
            self.flags,
            self.preemptibilities,
            self.active,
        )

    def _compute(self, jobs: Sequence[JobLike]) -> None:
        """The facts of each of ``jobs``, computed in one loop and appended to the columns.

        What a job's class decides (a library ``Job``, or a scheduler's class whose instances
        may carry sub-group sets or a pod set's parent: see :func:`_may_carry`) is looked up
        once per run of jobs of one class, not per job.
        """
        legacy, threshold = self._legacy, self._threshold
        semi_value, non_value, pod_set_class = _SEMI, _NON, PodSet
        utc, job_class, shapes = UTC, Job, self.shapes
        epoch, micro = EPOCH, _MICROSECOND
        add_id, add_queue = self.ids.append, self.queues.append
        add_priority, add_start = self.priorities.append, self.starts.append
        add_barrier, add_flags = self.barriers.append, self.flags.append
        add_preemptibility, add_active = self.preemptibilities.append, self.active.append
        row = len(self.jobs)
        job_kind: type | None = None  # the class of the last job and of its pod sets ...
        set_kind: type | None = None
        may_sets = may_parent = False  # ... and what they may carry
        for job in jobs:
            priority = job.priority
            if priority.__class__ is not int:
                priority = checked_priority(priority, job.id)
            explicit = job.preemptibility
            if explicit is None or explicit == "":
                preemptibility = legacy.get(priority)
                if preemptibility is None:
                    preemptibility = legacy[priority] = legacy_preemptibility(priority, threshold)
                flags = 0
            else:
                preemptibility = (
                    explicit
                    if explicit.__class__ is Preemptibility
                    else Preemptibility.parse(explicit, origin=f"job {job.id!r} preemptibility")
                )
                flags = EXPLICIT
            tree = False
            active_count = 0
            for pod_set in job.pod_sets:
                tasks = pod_set.tasks
                if pod_set.__class__ is pod_set_class:
                    active = pod_set._active  # a library PodSet counted them when it was built
                else:  # a scheduler's own: a parent only if its class can carry one
                    active = _counted(job, tasks)
                    if pod_set.__class__ is not set_kind:
                        set_kind = pod_set.__class__
                        may_parent = _may_carry(set_kind, _PARENT)
                    if may_parent and getattr(pod_set, "parent", None) is not None:
                        tree = True
                minimum = pod_set.min_available
                if minimum < len(tasks):
                    flags |= ELASTIC
                if active > minimum:
                    flags |= SURPLUS
                active_count += active
            # a library Job's pod sets name a parent only beside sets, which it validated
            if job.__class__ is job_class:
                tree = bool(job.sub_groups) or job.min_sub_group is not None
            else:
                if job.__class__ is not job_kind:
                    job_kind = job.__class__
                    may_sets = _may_carry(job_kind, _SETS)
                if may_sets:
                    tree = (
                        tree
                        or bool(getattr(job, "sub_groups", None))
                        or getattr(job, "min_sub_group", None) is not None
                    )
            if preemptibility is semi_value:
                flags |= SEMI
                named = _core_pods_of(job)
            else:
                named = None
            if not tree and job.__class__ is job_class:
                flags |= PLAIN
            if tree or named is not None:  # its sets may make it elastic, its core is its own
                shape = shapes[row] = _shape_of(job, named, semi=preemptibility is semi_value)
                if shape.elastic_sets():
                    flags |= ELASTIC
                flags = flags | SURPLUS if shape.outside_core() else flags & ~SURPLUS
            if preemptibility is non_value:
                barrier: Reason | None = _NON_PREEMPTIBLE
            elif not active_count:
                barrier = _NO_ACTIVE
            elif preemptibility is semi_value and not flags & SURPLUS:
                barrier = _NON_PREEMPTIBLE  # only its core runs: nothing may be taken
            else:
                barrier = None
            start = job.start_time
            if start is not None:
                if start.__class__ is datetime and start.tzinfo is utc:
                    start = (start - epoch) // micro * 1000  # exact: datetimes hold microseconds
                else:
                    start = start_ns(start, job)
            add_id(job.id)
            add_queue(job.queue)
            add_priority(priority)
            add_start(start)
            add_barrier(barrier)
            add_flags(flags)
            add_preemptibility(preemptibility)
            add_active(active_count)
            row += 1
        self.jobs.extend(jobs)

    def view(self, row: int) -> JobFacts:
        """The facts of one row, read through :class:`JobFacts` (for the per-victim paths)."""
        return JobFacts(self, row)

    def facts(self, job: JobLike) -> JobFacts:
        """The facts of ``job`` as one object, computed if they are not known yet."""
        return self.view(self.row(job))


ELASTIC: Final = 1
"""A flag of :attr:`FactsTable.flags`: the job is elastic (docs/spec/jobs.md and
docs/spec/sub-group-trees.md)."""
SEMI: Final = 2
"""A flag of :attr:`FactsTable.flags`: the job is semi-preemptible (its core is never evicted)."""
SURPLUS: Final = 4
"""A flag of :attr:`FactsTable.flags`: some active task of the job is outside its core."""
EXPLICIT: Final = 8
"""A flag of :attr:`FactsTable.flags`: its preemptibility was given, not derived."""
PLAIN: Final = 16
"""A flag of :attr:`FactsTable.flags`: a library :class:`~minruntime.Job` (checked when it was
built) without a sub-group tree. Its shape is the degenerate tree, whose leaves are its pod sets
in their order and which needs each of them (docs/spec/sub-group-trees.md): what only that tells
is known without building the shape."""


class JobFacts:
    """The derived facts of one job: an accessor that reads its row of a :class:`FactsTable`
    (which computes and keeps them), for the paths that ask about one victim.

    Attributes:
        table, row: where its facts are kept.
        job: the job they were computed from.
        id, queue, priority: the job's.
        start_ns: its start time in nanoseconds since the epoch, or ``None``.
        barrier: see :class:`FactsTable`.
        elastic: some pod set has ``min_available`` below its number of tasks (any status), or
            some set of its sub-group tree needs fewer children than it has
            (docs/spec/sub-group-trees.md).
        semi: it is semi-preemptible (its core is never evicted).
        preemptibility, preemptibility_source: effective preemptibility and what decided it.
        active_count: active tasks over all pod sets.
        has_surplus: some active task is outside its core (for a job without a sub-group tree:
            some pod set has more active tasks than its ``min_available``).
    """

    __slots__ = ("row", "table")

    def __init__(self, table: FactsTable, row: int) -> None:
        self.table = table
        self.row = row

    def __repr__(self) -> str:
        return (
            f"<JobFacts {self.id!r} queue={self.queue!r} priority={self.priority} "
            f"{self.preemptibility} active={self.active_count} elastic={self.elastic}>"
        )

    @classmethod
    def of(cls, job: JobLike, threshold: int = LEGACY_PRIORITY_THRESHOLD) -> JobFacts:
        """Compute the facts of ``job`` alone; ``threshold`` is the legacy priority threshold.

        Raises:
            InvalidPreemptibility: for an explicit preemptibility that is not a valid value.
            InvalidTimestamp: for a naive or malformed start time.
            ValueError: for a task status that is not a status.
        """
        return FactsTable(threshold).facts(job)

    # -- the columns ----------------------------------------------------------------------------

    @property
    def job(self) -> JobLike:
        return self.table.jobs[self.row]

    @property
    def id(self) -> Hashable:
        return self.table.ids[self.row]

    @property
    def queue(self) -> str:
        return self.table.queues[self.row]

    @property
    def priority(self) -> int:
        return self.table.priorities[self.row]

    @property
    def start_ns(self) -> int | None:
        return self.table.starts[self.row]

    @property
    def barrier(self) -> Reason | None:
        return self.table.barriers[self.row]

    @property
    def elastic(self) -> bool:
        return bool(self.table.flags[self.row] & ELASTIC)

    @property
    def semi(self) -> bool:
        return bool(self.table.flags[self.row] & SEMI)

    @property
    def has_surplus(self) -> bool:
        return bool(self.table.flags[self.row] & SURPLUS)

    @property
    def flexible(self) -> bool:
        """Only part of it may go while protected: elastic or semi-preemptible."""
        return bool(self.table.flags[self.row] & (ELASTIC | SEMI))

    @property
    def preemptibility(self) -> Preemptibility:
        return self.table.preemptibilities[self.row]

    @property
    def preemptibility_source(self) -> PreemptibilitySource:
        return _EXPLICIT if self.table.flags[self.row] & EXPLICIT else _LEGACY_SOURCE

    @property
    def active_count(self) -> int:
        return self.table.active[self.row]

    # -- derived, computed on first use and kept in the table -----------------------------------

    @property
    def shape(self) -> Shape[PodSetFacts]:
        """The job's sub-group tree over its pod sets (for a job without one, the degenerate
        tree: the job needs each of its pod sets)."""
        shapes = self.table.shapes
        shape = shapes.get(self.row)
        if shape is None:  # built whole, then published: a thread that lost the race uses it
            semi = self.semi
            core_pods = _core_pods_of(self.job) if semi else None
            shape = shapes.setdefault(self.row, _shape_of(self.job, core_pods, semi=semi))
        return shape

    @property
    def pod_sets(self) -> tuple[PodSetFacts, ...]:
        """Per pod set facts, in listing order."""
        return self.shape.pod_sets

    def core_tasks(self, computed: bool = False) -> tuple[TaskLike, ...]:
        """Its core (docs/spec/sub-group-trees.md, which for a job without a tree is section
        7's: the first ``min_available`` active tasks of each pod set), in listing order; the one
        its scheduler named (``core_pods``) where that counts, unless ``computed``."""
        shape = self.shape
        return tuple(shape.computed_core() if computed else shape.split()[0])

    def surplus_tasks(self) -> tuple[TaskLike, ...]:
        """The active tasks of its core pod sets above their ``min_available`` (for a job
        without a sub-group tree: of every pod set), in listing order."""
        return tuple(self.shape.split()[2])

    @property
    def flat(self) -> bool:
        """Whether it needs each of its pod sets and has no sets (:attr:`Shape.flat`): a
        :data:`PLAIN` job does, known without building its shape."""
        return bool(self.table.flags[self.row] & PLAIN) or self.shape.flat

    def active_tasks(self) -> tuple[TaskLike, ...]:
        """Every active task, in listing order."""
        if not self.table.flags[self.row] & PLAIN or self.row in self.table.shapes:
            return tuple(task for pod_set in self.pod_sets for task in pod_set.active)
        # the degenerate tree's leaves are the job's pod sets, in their order (PLAIN): a status
        # is one dict look-up (a library Task's is a TaskStatus), the reader for any other
        active = IS_ACTIVE
        found = []
        for pod_set in self.job.pod_sets:
            for task in pod_set.tasks:
                is_active = active.get(task.status)
                if is_active is None:
                    is_active = _is_active(task)
                if is_active:
                    found.append(task)
        return tuple(found)

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
        kept = self.table.inputs
        inputs = kept.get(self.row)
        if inputs is None:
            given: Any = getattr(self.job, "inputs", None)
            read = NO_INPUTS if given is None else _read_inputs(self, given)
            inputs = kept.setdefault(self.row, read)
        return inputs


_SETS: Final = ("sub_groups", "min_sub_group")
_PARENT: Final = ("parent",)
_CARRIES: Final[dict[tuple[str, ...], dict[type, bool]]] = {_SETS: {}, _PARENT: {}}
"""field names -> class -> whether its instances may carry one of them (see :func:`_may_carry`)."""


def _may_carry(cls: type, names: tuple[str, ...]) -> bool:
    """Whether an instance of ``cls`` may have an attribute of one of ``names``: false only when
    no class of its MRO defines one, its instances have no ``__dict__``, and no ``__getattr__``
    or ``__getattribute__`` makes attributes up. Then asking each instance (a miss raises and
    catches inside ``getattr``) is saved.

    >>> class Slotted:
    ...     __slots__ = ("pod_sets",)
    >>> _may_carry(Slotted, ("sub_groups",)), _may_carry(type("Plain", (), {}), ("sub_groups",))
    (False, True)
    """
    cache = _CARRIES.setdefault(names, {})
    known = cache.get(cls)
    if known is None:
        known = cache[cls] = (
            any(hasattr(cls, name) for name in names)
            or getattr(cls, "__dictoffset__", 1) != 0
            or any(
                "__getattr__" in vars(base) or "__getattribute__" in vars(base)
                for base in cls.__mro__[:-1]
            )
        )
    return known


_CORE: Final = ("core_pods",)


def _core_pods_of(job: JobLike) -> frozenset[Hashable] | None:
    """The task ids a job's scheduler names as its core (``core_pods``), or ``None``: read from
    a library :class:`Job` directly, from a caller's class only where it may carry one.

    Raises:
        InvalidJob: for a caller's ``core_pods`` that is not an iterable of hashable ids.
    """
    if job.__class__ is Job:
        given: object = job.core_pods
    elif _may_carry(job.__class__, _CORE):
        given = getattr(job, "core_pods", None)
    else:
        return None
    if given is None:
        return None
    try:
        if isinstance(given, str | bytes) or not isinstance(given, Iterable):
            raise TypeError
        return frozenset(given)
    except TypeError:
        raise InvalidJob(
            f"job {job.id!r} core_pods: expected an iterable of pod (task) ids or None, got "
            f"{given!r:.60}"
        ) from None


def _shape_of(
    job: JobLike, named: Iterable[Hashable] | None = None, *, semi: bool = False
) -> Shape[PodSetFacts]:
    """The sub-group tree of ``job`` over the facts of its pod sets; ``named``: the core its
    scheduler names (a semi-preemptible job's ``core_pods``), if any; ``semi``: whether it is
    semi-preemptible (a short set's core, :class:`~minruntime._tree.Shape`)."""
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
    return Shape(root, named, semi=semi)


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
    return Inputs(
        checkpoint_ns=checkpoint_of_run(checkpoint, facts.start_ns),
        interval_ns=_ns(given.checkpoint_interval),
        restore_ns=_ns(given.checkpoint_restore) or 0,
        eviction_ns=times,
        eviction_count=count,
        requested_ns=_ns(given.requested_min_runtime),
        delay=given.preemption_delay,
        created_ns=None if given.created is None else to_ns(given.created, f"{where} created"),
        last_eviction_ns=last_eviction_ns(lone, times),
    )


def _ns(value: MinRuntime | None) -> int | None:
    return None if value is None else value.ns

"""The simulation loop: a discrete-event GPU cluster whose scheduler asks minruntime about victims.

Events are job arrivals, job completions and wake-ups. After the events of an instant, one
scheduling pass runs at that instant. Jobs run on the workload's nodes
(:mod:`~minruntime_sim.placement`: a gang on one node when one node holds it, else on whole
nodes; an elastic job's GPUs above its minimum one by one), and every queue has a fair share
of the cluster, recomputed when the demand changes (:mod:`~minruntime_sim.quotas`: deserved
quota at every level, over-quota weight, limit):

1. **allocate**: pending jobs whose gang can be placed on the nodes start, within their
   queues' limits (the leaf's and every ancestor's), queues in the reference scheduler's
   hierarchical order (level by level, furthest below its fair share first), then higher
   priority, then earlier arrival. A job starts with at least its ``need`` (``min_available``,
   or all its GPUs) and an elastic job takes up to all its GPUs.
2. **reclaim, then preempt**: for each queue with pending work, in the same order, its best
   pending job that does not start may evict running jobs:

   - *reclaim* if the queue and each of its ancestors stay within their fair share once the
     job runs (a sole top-level queue excepted, as the reference scheduler does): victims
     come from the queues on the other side of the lowest common ancestor that are above their
     fair share, most over first, and only as far as their excess (a victim queue never drops
     below its fair share);
   - *preempt*: victims are lower-priority jobs of its own queue.

   Victims are considered lowest priority first, then in the run's victim order
   (:class:`~minruntime_sim.VictimOrder`). Victims are added until the job's gang can be placed
   on the nodes with their GPUs freed (and its queues' limits allow it); a victim none of whose
   GPUs is on a node the job would use is then left running. Every victim is chosen through a
   :class:`~minruntime.Session` built at the pass's instant:
   :meth:`~minruntime.Session.eligible_victims` says who may be evicted,
   :meth:`~minruntime.Session.evictable_tasks` which tasks (all of a gang; for an elastic job as
   many as needed without going below its minimum), and :meth:`~minruntime.Session.validate`
   must accept the whole plan before anything is evicted. When the plan falls short, nothing is
   evicted and, when protection held a victim back, the simulation wakes up again at
   :meth:`~minruntime.Session.next_expiry`.
3. **grow**: GPUs still free go to running elastic jobs below their full size, within limits.

An evicted job loses the work done since its last checkpoint (without one, everything since it
last started) and a checkpoint it was still writing, returns to pending, and gets a new start
time when it is allocated again (a job that grows keeps its start time); when it runs again it
first restores (its restart overhead) before it computes. With checkpoint costs on (the
default; :mod:`minruntime_sim.costs`), each checkpoint takes time in which the job makes no
progress, the first of a run completes an interval after the restore, and jobs without an
interval draw one; with them off, checkpoints are free and fall every interval after each start.
A partial eviction of an elastic job that keeps at least its minimum loses nothing: its
remaining tasks carry its state.

Under the ``checkpoint-aware`` policy each job shows the Session what the simulator knows
(docs/spec/beyond-min-runtime.md): its ``checkpoint_interval``, its ``last_checkpoint`` (the latest
checkpoint of its current run, the very instant whose progress an eviction keeps), its
``checkpoint_restore`` (the current run's restore, with checkpoint costs on), the times of its
past evictions, its own min-runtime request when the run gives one (``Settings.job_request``
over its GPUs), and a weight of 1 per task (one GPU).

The simulator asks the library only through its public names (``from minruntime import ...``).
What it knows of its own jobs it computes itself rather than asking the Session: a job's
effective preemptibility (the explicit one, else the legacy priority rule), whether it goes
whole (neither elastic nor semi-preemptible), and how many of its tasks are above its minimum.

Invariants are checked as it runs, and a break raises :class:`SimulationError`.

>>> from minruntime import Queue, QueueTree
>>> from minruntime_sim import JobSpec, Settings, Workload, simulate
>>> workload = Workload(name="toy", tree=QueueTree([Queue("a"), Queue("b")]),
...     deserved={"a": 2, "b": 2}, total_gpus=4, jobs=[
...     JobSpec(id="a1", queue="a", submit=0, run_time=100, gpus=2),
...     JobSpec(id="a2", queue="a", submit=5, run_time=100, gpus=2),
...     JobSpec(id="b1", queue="b", submit=10, run_time=50, gpus=2)])
>>> [(e.job, e.action, e.time, e.lost_gpu_seconds) for e in simulate(workload).evictions]
[('a2', 'reclaim', 10, 70)]
>>> protected = simulate(workload, Settings(reclaim_min_runtime="1m"))
>>> [(e.job, e.action, e.time, e.lost_gpu_seconds) for e in protected.evictions]
[('a1', 'reclaim', 60, 180)]
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final, cast

import attrs

from minruntime import (
    Action,
    Config,
    JobInputs,
    MinRuntime,
    Preemptibility,
    QueueTree,
    Resources,
    Session,
    TaskStatus,
)
from minruntime_sim.costs import checkpoint_duration, draw_checkpoint_interval
from minruntime_sim.errors import InvalidSetting, SimulationError
from minruntime_sim.metrics import EvictionRecord, JobOutcome, Metrics, QueueTotals, compute_metrics
from minruntime_sim.model import JobSpec, Settings, VictimOrder, Workload
from minruntime_sim.placement import Nodes
from minruntime_sim.quotas import fair_shares

__all__ = ["SimulationResult", "simulate"]

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_SECOND: Final = timedelta(seconds=1)
_MICROSECOND: Final = timedelta(microseconds=1)
_PENDING: Final = TaskStatus.PENDING
_RUNNING: Final = TaskStatus.RUNNING
_SUCCEEDED: Final = TaskStatus.SUCCEEDED
_NON: Final = Preemptibility.NON_PREEMPTIBLE
_SEMI: Final = Preemptibility.SEMI_PREEMPTIBLE
_PREEMPTIBLE: Final = Preemptibility.PREEMPTIBLE
_POD_SET: Final = "default"
_COMPLETE: Final = 0
_WAKE: Final = 1
_CHUNK: Final = 32
"""Victims are handed to the Session this many at a time, so that a plan stops early."""

_Costs = tuple[int | None, int, int]
"""A job's checkpoint interval (or ``None``), checkpoint duration and restore, seconds."""


def _job_costs(spec: JobSpec, settings: Settings) -> _Costs:
    """What checkpoints and restarts cost a job under these settings (see
    :mod:`minruntime_sim.costs`)."""
    restore = (
        settings.restart_overhead if spec.checkpoint_restore is None else spec.checkpoint_restore
    )
    interval = spec.checkpoint_interval or settings.checkpoint_interval
    if not settings.checkpoint_costs:
        return interval, 0, restore
    if interval is None:
        interval = draw_checkpoint_interval(settings.seed, spec.id)
    duration = spec.checkpoint_duration
    if duration is None:
        duration = checkpoint_duration(interval)
    elif duration >= interval:
        raise InvalidSetting(
            f"job {spec.id!r}: checkpoint_duration ({duration}) must be shorter than its "
            f"checkpoint interval ({interval})"
        )
    return interval, duration, restore


@attrs.frozen(kw_only=True, eq=False)
class SimulationResult:
    """What one run produced: its metrics, every eviction and every job's outcome.

    >>> from minruntime_sim import simulate
    >>> from minruntime_sim.synthetic import toy_workload
    >>> toy = toy_workload()
    >>> result = simulate(toy)
    >>> result.workload, result.settings.label, len(result.jobs), len(result.evictions)
    ('toy', 'reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0', 3, 1)
    """

    workload: str
    settings: Settings
    metrics: Metrics
    evictions: tuple[EvictionRecord, ...]
    jobs: tuple[JobOutcome, ...]
    usage: tuple[tuple[int, int], ...] = ()
    """Busy GPUs over time: ``(time, busy)`` at every instant the count changed (from the first
    submission on), a step function: ``busy`` holds until the next entry's time."""
    placements: tuple[tuple[int, str, int, int], ...] = ()
    """Every change of a job's GPUs on a node, in order: ``(time, job, node, change)``, the
    change positive when GPUs are taken (a start, a growth), negative when given back (a
    completion, an eviction); nodes are numbered in the workload's inventory order."""


class _Task:
    __slots__ = ("id", "node", "status")

    resources: Final = Resources({"nvidia.com/gpu": 1})
    """Each task is one GPU: unsaved work is counted in GPU-seconds."""

    def __init__(self, task_id: str) -> None:
        self.id = task_id
        self.status = _PENDING
        self.node = -1
        """The node it runs on (-1 while it does not run)."""


class _PodSet:
    __slots__ = ("min_available", "name", "tasks")

    def __init__(self, min_available: int, tasks: list[_Task]) -> None:
        self.name = _POD_SET
        self.min_available = min_available
        self.tasks = tasks


class _Job:
    """A job's state; it is also the ``JobLike`` the Session reads."""

    __slots__ = (
        "active",
        "anchor",
        "checkpoint_spent",
        "computing",
        "done",
        "draw",
        "duration",
        "effective",
        "epoch",
        "eviction_count",
        "eviction_times",
        "finish",
        "first_start",
        "goes_whole",
        "id",
        "index",
        "interval",
        "lost",
        "pending_since",
        "pending_total",
        "pod_sets",
        "preemptibility",
        "priority",
        "queue",
        "required",
        "restart_lost",
        "restore",
        "restore_input",
        "run_start",
        "segments",
        "settled",
        "spec",
        "start_time",
        "tasks",
    )

    def __init__(self, spec: JobSpec, index: int, costs: _Costs, threshold: int) -> None:
        self.spec = spec
        self.index = index
        self.id = spec.id
        self.queue = spec.queue
        self.priority = spec.priority
        self.preemptibility = spec.preemptibility
        self.effective = spec.preemptibility or (
            _PREEMPTIBLE if spec.priority < threshold else _NON
        )
        """Its preemptibility: the explicit one, else the legacy priority rule
        (docs/spec/preemptibility.md#preemptibility-determination)."""
        self.goes_whole = not spec.elastic and self.effective is not _SEMI
        """A gang that is neither elastic nor semi-preemptible is evicted whole or not at all."""
        self.start_time: int | None = None
        self.draw = 0.0
        """Its place in the ``random`` victim order, drawn at every start."""
        self.tasks = [_Task(f"{spec.id}/{i}") for i in range(spec.gpus)]
        self.pod_sets = (_PodSet(spec.need, self.tasks),)
        self.interval, self.duration, self.restore = costs
        """Its checkpoint interval (``None``: it never checkpoints), each checkpoint's duration
        (0: instantaneous) and its restore after a restart, seconds."""
        self.computing = 0
        """When the current run computes: its start, plus its restore when it restarts."""
        self.anchor = 0
        """What the current run's checkpoints count from: its first completes an interval
        after this (the end of its restore with checkpoint costs on, its start without)."""
        self.restore_input: MinRuntime | None = None
        """The restore of the current run as the Session is told it (``None``: none)."""
        self.checkpoint_spent = 0
        """GPU-seconds spent writing checkpoints that completed."""
        self.active = 0
        self.done = 0
        self.required = spec.work
        self.settled = 0
        self.run_start = 0
        self.segments: list[tuple[int, int, int]] = []
        self.epoch = 0
        self.pending_since = spec.submit
        self.pending_total = 0
        self.first_start: int | None = None
        self.finish: int | None = None
        self.eviction_count = 0
        self.eviction_times: list[int] = []
        self.lost = 0
        """GPU-seconds its evictions wasted, restores excepted (those are ``restart_lost``)."""
        self.restart_lost = 0
        """GPU-seconds it spent restoring after restarts."""

    @property
    def surplus(self) -> int:
        """How many of its active tasks are above its minimum (a semi-preemptible job's core)."""
        return max(0, self.active - self.spec.need)

    @property
    def order(self) -> tuple[int, int, int]:
        """Pending order inside a queue: higher priority, then earlier arrival."""
        return (-self.priority, self.spec.submit, self.index)

    def checkpoint_at(self, moment: int) -> int | None:
        """The latest checkpoint of the current run completed at ``moment`` (one that completes
        exactly then counts), or ``None``. The k-th completes at ``anchor + k * interval`` and
        takes ``duration`` seconds before that."""
        interval = self.interval
        if not interval:
            return None
        count = (moment - self.anchor) // interval
        return self.anchor + count * interval if count >= 1 else None

    def saved_since(self, moment: int) -> int:
        """Since when its work is unsaved at ``moment``: its latest checkpoint of this run,
        else the anchor (as the Session counts it: ``max(start + restore, last checkpoint)``)."""
        checkpoint = self.checkpoint_at(moment)
        return self.anchor if checkpoint is None else checkpoint

    def compute_at(self, moment: int) -> int:
        """Seconds the current run has computed by ``moment``: none while it restores or writes
        a checkpoint."""
        elapsed = moment - self.computing
        if elapsed <= 0:
            return 0
        interval, duration = self.interval, self.duration
        if not interval or not duration:
            return elapsed
        periods, rest = divmod(elapsed, interval)  # duration > 0: anchor == computing
        return periods * (interval - duration) + min(rest, interval - duration)

    def moment_of(self, computed: int) -> int:
        """The first moment at which the current run has computed ``computed`` seconds (> 0)."""
        interval, duration = self.interval, self.duration
        if not interval or not duration:
            return self.computing + computed
        periods, rest = divmod(computed, interval - duration)
        # done just as a checkpoint would begin: it finishes without writing it
        return self.computing + (
            periods * interval - duration if rest == 0 else periods * interval + rest
        )

    def progress_at(self, moment: int) -> int:
        """Work done at ``moment`` (GPU-seconds), within the current run."""
        for time, done, active in reversed(self.segments):
            if time <= moment:
                return done + (self.compute_at(moment) - self.compute_at(time)) * active
        raise SimulationError(f"job {self.id!r}: no progress known at {moment}")  # pragma: no cover

    def busy_between(self, start: int, end: int) -> int:
        """GPU-seconds its tasks held between ``start`` and ``end`` within the current run."""
        busy = 0
        segments = self.segments
        for i, (time, _, active) in enumerate(segments):
            until = segments[i + 1][0] if i + 1 < len(segments) else end
            low, high = max(time, start), min(until, end)
            if high > low:
                busy += (high - low) * active
        return busy

    def interrupted_checkpoint(self, moment: int) -> int:
        """GPU-seconds spent on a checkpoint still being written at ``moment`` (0 if none)."""
        interval, duration = self.interval, self.duration
        if not interval or not duration or moment <= self.computing:
            return 0
        begins = self.saved_since(moment) + interval - duration
        return self.busy_between(begins, moment) if moment > begins else 0


class _Clock:
    """What the jobs that report their checkpoints share: the simulation's current instant, and
    how many of its latest evictions a job shows (the largest eviction budget in use: only the
    latest ``max_evictions`` of a job's evictions can spend its budget)."""

    __slots__ = ("history", "now")

    def __init__(self, history: int) -> None:
        self.now = 0
        self.history = history


class _AwareJob(_Job):
    """A job that also shows the Session its checkpoint-aware inputs
    (docs/spec/beyond-min-runtime.md).

    ``last_checkpoint`` is :meth:`checkpoint_at` the clock's instant, the same checkpoint whose
    progress an eviction keeps, and ``checkpoint_restore`` the current run's restore (with
    checkpoint costs on), so the Session's unsaved work is the GPU time an eviction wastes.
    """

    __slots__ = ("checkpoint_interval", "clock", "request")

    def __init__(
        self,
        spec: JobSpec,
        index: int,
        costs: _Costs,
        threshold: int,
        clock: _Clock,
        request: MinRuntime | None = None,
    ) -> None:
        super().__init__(spec, index, costs, threshold)
        self.clock = clock
        self.checkpoint_interval = None if self.interval is None else MinRuntime(self.interval)
        self.request = request
        """Its own min-runtime request (``Settings.job_request`` over its GPUs), or ``None``."""

    @property
    def last_checkpoint(self) -> int | None:
        """The latest completed checkpoint of the current run (seconds), or ``None``."""
        if not self.active or not self.interval:
            return None
        return self.checkpoint_at(self.clock.now)

    @property
    def evictions(self) -> tuple[int, ...]:
        """The times of its latest evictions, partial ones included (seconds): as many as the
        largest eviction budget can count (none without a budget)."""
        history = self.clock.history
        return tuple(self.eviction_times[-history:]) if history else ()

    @property
    def inputs(self) -> JobInputs:
        """Its checkpoint-aware inputs, as the Session reads them."""
        return JobInputs(
            requested_min_runtime=self.request,
            checkpoint_interval=self.checkpoint_interval,
            last_checkpoint=self.last_checkpoint,
            checkpoint_restore=self.restore_input,
            evictions=self.evictions,
        )


class _Queue:
    __slots__ = (
        "alloc",
        "blocked",
        "demand",
        "deserved",
        "fair",
        "limit",
        "memo",
        "name",
        "path",
        "pending",
        "pending_count",
        "running",
        "running_gpus",
        "waiting",
    )

    def __init__(self, name: str, deserved: int, limit: int | None) -> None:
        self.name = name
        self.deserved = deserved
        self.limit = limit
        self.fair = 0
        """Its fair share (:func:`~minruntime_sim.quotas.fair_shares`), as of the last change
        of demand."""
        self.demand = 0
        """GPUs of its jobs that have arrived and not finished (a leaf's)."""
        self.path: tuple[_Queue, ...] = (self,)
        """From its top-level queue down to itself."""
        self.alloc = 0
        self.pending: dict[int, list[tuple[int, int, int, _Job]]] = {}
        self.pending_count = 0
        self.running: dict[int, dict[str, _Job]] = {}
        self.running_gpus: dict[int, int] = {}
        self.memo: dict[Action, tuple[tuple[str, int, int, int], int | None, bool]] = {}
        self.blocked = False
        self.waiting = 0

    def level_key(self) -> tuple[int, float, str]:
        """Among siblings: furthest below its fair share first; a fair share of 0 last."""
        if self.fair:
            return (0, self.alloc / self.fair, self.name)
        return (1, float(self.alloc), self.name)

    def share_key(self) -> tuple[tuple[int, float, str], ...]:
        """The allocation order of leaf queues, level by level from the top (the reference
        scheduler's hierarchical queue order): the top-level queue furthest below its fair
        share first, then within it the child furthest below its own, and so on."""
        return tuple(queue.level_key() for queue in self.path)

    def room(self) -> float:
        """How many more GPUs its limits (its own and its ancestors') let it take."""
        room = math.inf
        for queue in self.path:
            if queue.limit is not None:
                room = min(room, queue.limit - queue.alloc)
        return room

    def push(self, job: _Job) -> None:
        heapq.heappush(self.pending.setdefault(job.spec.need, []), (*job.order, job))
        self.pending_count += 1

    def best_fit(self, room: float, fits: Callable[[int], bool] | None = None) -> _Job | None:
        """The first pending job in order whose need fits in ``room`` GPUs (and that ``fits``
        accepts: its gang can be placed on the nodes)."""
        best: tuple[int, int, int, _Job] | None = None
        for need, heap in self.pending.items():
            if (
                heap
                and need <= room
                and (best is None or heap[0] < best)
                and (fits is None or fits(need))
            ):
                best = heap[0]
        return None if best is None else best[3]

    def pop(self, job: _Job) -> None:
        heap = self.pending[job.spec.need]
        if heap[0][3] is not job:  # pragma: no cover - the caller always pops the best
            raise SimulationError(f"job {job.id!r} is not at the head of its pending list")
        heapq.heappop(heap)
        self.pending_count -= 1

    def add_running(self, job: _Job) -> None:
        self.running.setdefault(job.priority, {})[job.id] = job

    def remove_running(self, job: _Job) -> None:
        del self.running[job.priority][job.id]

    def victims(self, below_priority: float, order: VictimOrder) -> tuple[list[_Job], int]:
        """Running jobs below a priority, lowest priority first, then in ``order`` (see
        :class:`VictimOrder`), and their GPUs. Within a priority, jobs are kept in the order
        they (re)started."""
        members: list[_Job] = []
        gpus = 0
        for priority in sorted(self.running):
            if priority >= below_priority:
                break
            jobs = self.running[priority].values()
            if order is VictimOrder.YOUNGEST or order is VictimOrder.LEAST_UNSAVED:
                members.extend(reversed(jobs))  # rank_victims breaks ties in this order
            elif order is VictimOrder.OLDEST:
                members.extend(jobs)
            elif order is VictimOrder.RANDOM:
                members.extend(sorted(jobs, key=_by_draw))
            else:
                members.extend(sorted(jobs, key=_reference_key))
            gpus += self.running_gpus.get(priority, 0)
        return members, gpus


def _by_draw(job: _Job) -> tuple[float, int]:
    return (job.draw, job.index)


def _reference_key(job: _Job) -> tuple[bool, int, int]:
    """The reference scheduler's victim order within a priority: jobs above their minimum first,
    then the latest submitted, then the later listed (its creation time, then UID, reversed)."""
    return (job.active <= job.spec.need, -job.spec.submit, -job.index)


def _seconds(moment: datetime) -> int:
    """Whole seconds at or after an instant."""
    micros = (moment - _EPOCH) // _MICROSECOND
    return -(-micros // 1_000_000)


def _chunks(items: Sequence[_Job]) -> Iterator[Sequence[_Job]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


class _Simulation:
    def __init__(self, workload: Workload, settings: Settings, tree: QueueTree) -> None:
        self.workload = workload
        self.settings = settings
        self.total = workload.total_gpus
        self.free = workload.total_gpus
        self.used = 0
        self.version = 0
        self.aware = settings.checkpoint_aware
        self.order = settings.ranked_order
        self.ranking = self.order is VictimOrder.LEAST_UNSAVED
        self.rng = random.Random(settings.seed)
        self.shows = shows_checkpoints = self.aware or self.ranking
        tree = settings.tree(tree)
        budgets = [tree[name].protections.max_evictions for name in tree]
        budgets.append(settings.max_evictions)
        self.clock = _Clock(max((budget for budget in budgets if budget is not None), default=0))
        self.tree = tree
        self.config: Config = settings.config()
        threshold = settings.legacy_priority_threshold
        # each pass asks a session at its own instant; resolutions carry over (Session.at)
        self.session = Session(tree, self.config, 0, legacy_priority_threshold=threshold)
        self.nodes = Nodes(workload.node_inventory)
        self.every_queue = {
            name: _Queue(name, workload.deserved.get(name, 0), workload.limits.get(name))
            for name in tree
        }
        for name, queue in self.every_queue.items():
            queue.path = tuple(self.every_queue[step] for step in tree.path(name))
        self.queues = {
            name: self.every_queue[name] for name in sorted(tree) if not tree.children(name)
        }
        """The leaf queues (the queues jobs are in), by name."""
        self.queue_list = list(self.queues.values())
        self.sole_top = len(tree.children(None)) == 1
        """Whether one top-level queue holds every other (its fair share is then the cluster:
        the reference scheduler does not hold a reclaimer to it)."""
        self.demand_changed = True
        self.fair_version = 0
        self.fit_version = -1
        self.fit_cache: dict[int, int] = {}
        """Per change of the nodes: whether a gang of ``n`` fits (key ``n``), the least to free
        for it (key ``-n``)."""
        self.jobs = [
            _AwareJob(
                spec,
                index,
                _job_costs(spec, settings),
                threshold,
                self.clock,
                settings.requested_min_runtime(spec.gpus),
            )
            if shows_checkpoints
            else _Job(spec, index, _job_costs(spec, settings), threshold)
            for index, spec in enumerate(workload.jobs)
        ]
        self.events: list[tuple[int, int, int, _Job | None, int]] = []
        self.sequence = 0
        self.wakeups: set[int] = set()
        self.shrunk: dict[str, _Job] = {}
        self.records: list[EvictionRecord] = []
        self.usage: list[tuple[int, int]] = []
        self.placements: list[tuple[int, str, int, int]] = []
        self.held = False
        """Whether the attempt under way saw protection hold a victim back."""
        self.busy = 0

    # -- events ---------------------------------------------------------------------------------

    def _push(self, time: int, kind: int, job: _Job | None, epoch: int) -> None:
        self.sequence += 1
        heapq.heappush(self.events, (time, kind, self.sequence, job, epoch))

    def _wake_at(self, time: int) -> None:
        if time not in self.wakeups:
            self.wakeups.add(time)
            self._push(time, _WAKE, None, 0)

    def _schedulable(self, job: _Job) -> bool:
        """Whether the job could ever start: its minimum fits in the cluster (on empty nodes
        the placement rule holds any number of GPUs up to the total) and in its queue's limits."""
        queue = self.queues.get(job.queue)
        if queue is None:
            raise SimulationError(f"job {job.id!r}: queue {job.queue!r} is not a leaf of the tree")
        return job.spec.need <= self.total and job.spec.need <= queue.room()

    def run(self) -> SimulationResult:
        arrivals = sorted(
            (job for job in self.jobs if self._schedulable(job)),
            key=lambda job: (job.spec.submit, job.index),
        )
        unschedulable = len(self.jobs) - len(arrivals)
        events = self.events
        count = len(arrivals)
        i = 0
        last = arrivals[0].spec.submit if arrivals else 0
        origin = last
        while True:
            if i < count:
                now = arrivals[i].spec.submit
                if events and events[0][0] < now:
                    now = events[0][0]
            elif events:
                now = events[0][0]
            else:
                break
            self._integrate(now - last)
            last = now
            self.clock.now = now
            while events and events[0][0] == now:
                _, kind, _, job, epoch = heapq.heappop(events)
                if kind == _WAKE:
                    self.wakeups.discard(now)
                elif job is not None and job.epoch == epoch and job.active:
                    self._complete(job, now)
            while i < count and arrivals[i].spec.submit == now:
                job = arrivals[i]
                queue = self.queues[job.queue]
                queue.push(job)
                queue.demand += job.spec.gpus
                self.demand_changed = True
                i += 1
            self._pass(now)
        for job in arrivals:
            if job.finish is None:  # pragma: no cover - a bug, not an outcome
                raise SimulationError(f"job {job.id!r} never finished")
        return self._result(origin, last, unschedulable)

    def _integrate(self, elapsed: int) -> None:
        if elapsed <= 0:
            return
        self.busy += self.used * elapsed
        for queue in self.queue_list:
            if queue.blocked and queue.alloc < queue.deserved:
                queue.waiting += (queue.deserved - queue.alloc) * elapsed

    # -- one pass -------------------------------------------------------------------------------

    def _share(self) -> None:
        """Every queue's fair share, when the demand changed since they were computed."""
        if not self.demand_changed:
            return
        workload = self.workload
        shares = fair_shares(
            self.tree,
            self.total,
            deserved=workload.deserved,
            demand={name: queue.demand for name, queue in self.queues.items()},
            weights=workload.over_quota_weights,
            limits=workload.limits,
        )
        for name, queue in self.every_queue.items():
            queue.fair = shares[name]
        self.demand_changed = False
        self.fair_version += 1

    def _fits(self, need: int) -> bool:
        """Whether a gang of ``need`` GPUs can be placed on the nodes now (cached until the
        next change of the nodes)."""
        if need > self.free:
            return False
        if self.fit_version != self.version:
            self.fit_cache.clear()
            self.fit_version = self.version
        fits = self.fit_cache.get(need)
        if fits is None:
            fits = self.fit_cache[need] = self.nodes.fits(need)
        return bool(fits)

    def _least_to_free(self, need: int) -> int:
        """:meth:`Nodes.least_to_free`, cached until the next change of the nodes."""
        if self.fit_version != self.version:
            self.fit_cache.clear()
            self.fit_version = self.version
        least = self.fit_cache.get(-need)
        if least is None:
            least = self.fit_cache[-need] = self.nodes.least_to_free(need)
        return int(least)

    def _reclaim_room(self, queue: _Queue) -> float:
        """How many GPUs the queue may reclaim for: it and every ancestor stay within their
        fair share (a sole top-level queue excepted), and within their limits."""
        room = queue.room()
        for step in queue.path[1:] if self.sole_top else queue.path:
            room = min(room, step.fair - step.alloc)
        return room

    def _pass(self, now: int) -> None:
        self._share()
        self._allocate(now)
        self._evict_phase(now)
        self._grow(now)
        if not self.usage or self.usage[-1][1] != self.used:
            self.usage.append((now, self.used))
        allocated = sum(q.alloc for q in self.queue_list)
        if (
            self.free < 0
            or self.free + allocated != self.total
            or self.free != self.nodes.free_gpus
        ):
            raise SimulationError(
                f"at {now}: {self.free} free GPUs ({self.nodes.free_gpus} on the nodes) and "
                f"{allocated} allocated do not add up to {self.total}"
            )
        for queue in self.every_queue.values():
            if queue.limit is not None and queue.alloc > queue.limit:
                raise SimulationError(  # pragma: no cover - a bug, not an outcome
                    f"at {now}: queue {queue.name!r} holds {queue.alloc} GPUs, over its limit "
                    f"{queue.limit}"
                )
        for queue in self.queue_list:
            room = queue.room()
            for need, heap in queue.pending.items():
                if heap and need <= room and self._fits(need):  # pragma: no cover - a bug
                    raise SimulationError(
                        f"at {now}: job {heap[0][3].id!r} needs {need} GPUs, {self.free} are "
                        "free and its gang fits on the nodes, yet it is still pending"
                    )

    def _pending_queues(self) -> list[_Queue]:
        return sorted((q for q in self.queue_list if q.pending_count), key=_Queue.share_key)

    def _allocate(self, now: int) -> None:
        while self.free > 0:
            for queue in self._pending_queues():
                room = queue.room()
                job = queue.best_fit(min(self.free, room), self._fits)
                if job is not None:
                    queue.pop(job)
                    self._start(job, now, int(min(job.spec.gpus, self.free, room)))
                    break
            else:
                return

    def _evict_phase(self, now: int) -> None:
        for queue in self.queue_list:
            queue.blocked = False
        tried: set[tuple[str, Action]] = set()
        progressed = True
        while progressed:
            progressed = False
            for queue in self._pending_queues():
                for action in (Action.RECLAIM, Action.PREEMPT):
                    if (queue.name, action) in tried:
                        continue
                    tried.add((queue.name, action))
                    if action is Action.RECLAIM:
                        job = queue.best_fit(self._reclaim_room(queue))
                    else:
                        job = queue.best_fit(math.inf)
                    if job is None:
                        continue
                    if self._attempt(action, queue, job, now):
                        tried.discard((queue.name, Action.RECLAIM))
                        tried.discard((queue.name, Action.PREEMPT))
                        self._allocate(now)
                        progressed = True
                        break
                if progressed:
                    break

    def _grow(self, now: int) -> None:
        if self.free <= 0 or not self.shrunk:
            return
        queues = self.queues
        order = sorted(
            self.shrunk.values(),
            key=lambda job: (queues[job.queue].share_key(), job.order),
        )
        for job in order:
            if self.free <= 0:
                break
            room = int(min(job.spec.gpus - job.active, self.free, queues[job.queue].room()))
            if room > 0:
                self._start(job, now, room)

    # -- victims --------------------------------------------------------------------------------

    def _groups(self, action: Action, queue: _Queue, job: _Job) -> list[tuple[int, list[_Job]]]:
        """Candidate victims in the order they are considered, grouped with how much each group
        may give.

        For reclaim, a group is a queue on the victims' side of the lowest common ancestor
        (the reference scheduler compares the two queues at that level): it may give its
        excess over its fair share, and it comes most over first; its victims are those of
        its leaf queues, most over their own fair share first."""
        if action is Action.PREEMPT:
            members, gpus = queue.victims(job.priority, self.order)
            return [(gpus, members)] if members else []
        sides: dict[str, tuple[_Queue, list[_Queue]]] = {}
        for other in self.queue_list:
            if other is queue or not other.alloc:
                continue
            shared = 0
            while other.path[shared] is queue.path[shared]:
                shared += 1
            side = other.path[shared]
            if side.alloc > side.fair:
                sides.setdefault(side.name, (side, []))[1].append(other)
        ordered = sorted(sides.values(), key=lambda entry: _over_key(entry[0]))
        groups = []
        for side, leaves in ordered:
            victims: list[_Job] = []
            for leaf in sorted(leaves, key=_over_key):
                victims.extend(leaf.victims(math.inf, self.order)[0])
            groups.append((side.alloc - side.fair, victims))
        return groups

    def _attempt(self, action: Action, queue: _Queue, job: _Job, now: int) -> bool:
        need = job.spec.need - self.free
        key = (job.id, self.free, self.version, self.fair_version)
        memo = queue.memo.get(action)
        if memo is not None and memo[0] == key and (memo[1] is None or now < memo[1]):
            if action is Action.RECLAIM:
                queue.blocked = memo[2]
            return False
        groups = self._groups(action, queue, job)
        if sum(cap for cap, _ in groups) < max(need, self._least_to_free(job.spec.need)):
            queue.memo[action] = (key, None, False)
            return False
        session = self.session.at(now)
        plan: list[tuple[_Job, tuple[_Task, ...], tuple[_Task, ...]]] = []
        freed = 0
        fits = False
        self.held = self.aware or self.ranking  # protection moves with time: always ask
        ranked: list[tuple[int, list[_Job]]] = []
        for cap, members in groups:
            left = cap
            batches: Iterator[Sequence[_Job]]
            if self.ranking:
                order = session.rank_victims(action, job, members)
                ranked.append((cap, order))
                batches = iter((order,))
            else:
                batches = (
                    self._eligible(session, action, job, chunk) for chunk in _chunks(members)
                )
            for eligible in batches:
                for victim in eligible:
                    evictable = cast(
                        "tuple[_Task, ...]", session.verdict(action, job, victim).tasks
                    )
                    if len(evictable) < victim.active:
                        self.held = True
                    take = self._take(victim, evictable, max(1, need - freed), left)
                    if take:
                        plan.append((victim, evictable[:take], evictable))
                        freed += take
                        left -= take
                        fits = freed >= need and self._plan_fits(queue, job, plan)
                        if fits or left <= 0:
                            break
                if fits or left <= 0:
                    break
            if fits:
                break
        if fits:
            self._commit(session, action, job, self._helpful(queue, job, plan), now)
            if action is Action.RECLAIM:
                queue.blocked = False
            return True
        retry_at = None
        blocked = False
        if self.held:  # else waiting changes nothing: only a change (the key) can help
            everyone = [victim for _, members in groups for victim in members]
            retry = session.next_expiry(action, job, everyone)
            retry_at = None if retry is None else _seconds(retry)
            if retry_at is not None:
                self._wake_at(retry_at)
            blocked = action is Action.RECLAIM and self._blocked_by_protection(
                session, action, job, groups
            )
        if action is Action.RECLAIM:
            queue.blocked = blocked
        if not self.aware and not self.ranking:
            short = True  # the order and the eligible victims only change with the key
        else:
            if not self.ranking:
                ranked = [
                    (cap, session.eligible_victims(action, job, members)) for cap, members in groups
                ]
            short = self._short_whatever_the_order(session, action, job, ranked, need)
        if short:
            # Until ``retry_at`` (or a change: the key), the same attempt fails the same way:
            # no protection ends before then and nothing else moves. Under checkpoint-aware
            # ranking the order moves with time, so only a plan short whatever the order is kept.
            queue.memo[action] = (key, retry_at, blocked)
        return False

    def _eligible(
        self, session: Session, action: Action, job: _Job, chunk: Sequence[_Job]
    ) -> Sequence[_Job]:
        """:meth:`Session.eligible_victims`, noting when protection held a candidate back."""
        eligible = session.eligible_victims(action, job, chunk)
        if len(eligible) < len(chunk):
            self.held = True
        return eligible

    @staticmethod
    def _short_whatever_the_order(
        session: Session, action: Action, job: _Job, ranked: list[tuple[int, list[_Job]]], need: int
    ) -> bool:
        """Whether taking every evictable task of every eligible victim, each victim queue up to
        its cap, would still free fewer than ``need`` GPUs (a gang larger than its queue's cap
        can never go). Until the next expiry the eligible victims and their evictable tasks can
        only shrink (a checkpoint grace may begin), so such a failure stays a failure."""
        bound = 0
        for cap, victims in ranked:
            got = 0
            for victim in victims:
                evictable = len(session.verdict(action, job, victim).tasks)
                if evictable > cap and victim.goes_whole:
                    continue  # a gang goes whole or not at all
                got += evictable
            bound += min(cap, got)
        return bound < need

    def _plan_fits(
        self, queue: _Queue, job: _Job, plan: Sequence[tuple[_Job, tuple[_Task, ...], object]]
    ) -> bool:
        """Whether the job could start once the plan's tasks are evicted: its gang placed on
        the nodes, and its queue and every ancestor within their limits."""
        need = job.spec.need
        for step in queue.path:
            if step.limit is None:
                continue
            freed = sum(
                len(chosen) for victim, chosen, _ in plan if step in self.queues[victim.queue].path
            )
            if step.alloc - freed + need > step.limit:
                return False
        freed_on = Counter(task.node for _, chosen, _ in plan for task in chosen)
        return self.nodes.fits_after(need, freed_on)

    def _helpful(
        self,
        queue: _Queue,
        job: _Job,
        plan: list[tuple[_Job, tuple[_Task, ...], tuple[_Task, ...]]],
    ) -> list[tuple[_Job, tuple[_Task, ...], tuple[_Task, ...]]]:
        """The plan without the victims that free nothing where the job will go: a victim none
        of whose evicted tasks is on a node the job's gang would be placed on is dropped, last
        first, as long as the rest still lets the job start. On one node, nothing is dropped."""
        if len(self.nodes.capacity) == 1 or len(plan) == 1:
            return plan
        freed_on = Counter(task.node for _, chosen, _ in plan for task in chosen)
        where = self.nodes.would_place(job.spec.need, freed_on)
        if where is None:  # pragma: no cover - the plan fits
            raise SimulationError(f"job {job.id!r}: the eviction plan no longer fits")
        kept = list(plan)
        for index in range(len(plan) - 1, -1, -1):
            if any(task.node in where for task in plan[index][1]):
                continue
            trial = kept[:index] + kept[index + 1 :]
            if trial and self._plan_fits(queue, job, trial):
                kept = trial
        return kept

    @staticmethod
    def _take(victim: _Job, evictable: tuple[_Task, ...], wanted: int, left: int) -> int:
        """How many of a victim's evictable tasks to take (0: skip it)."""
        if not evictable:
            return 0
        if victim.goes_whole:
            take = len(evictable)  # a gang goes whole
        else:
            take = min(len(evictable), wanted, left)
            if victim.active - take < victim.spec.need:
                take = victim.active  # below its minimum it cannot run: the whole job goes
        if take > left or take > len(evictable):
            return 0
        return take

    def _blocked_by_protection(
        self, session: Session, action: Action, job: _Job, groups: list[tuple[int, list[_Job]]]
    ) -> bool:
        """Whether the plan would have covered the need had min-runtime protected nobody."""
        available = self.free
        protected_any = False
        for cap, members in groups:
            got = 0
            for victim in members:
                evictable = len(session.verdict(action, job, victim).tasks)
                extra = 0
                if session.protection(action, job, victim).protected:
                    if victim.effective is _SEMI:
                        extra = victim.surplus - evictable
                    elif victim.effective is not _NON:
                        extra = victim.active - evictable
                if extra > 0:
                    protected_any = True
                got += evictable + extra
                if got >= cap:
                    break
            available += min(got, cap)
        return protected_any and available >= job.spec.need

    def _commit(
        self,
        session: Session,
        action: Action,
        job: _Job,
        plan: list[tuple[_Job, tuple[_Task, ...], tuple[_Task, ...]]],
        now: int,
    ) -> None:
        result = session.validate(action, job, [(victim, chosen) for victim, chosen, _ in plan])
        if not result:
            raise SimulationError(f"at {now}: eviction plan rejected: {result}")
        for victim, chosen, evictable in plan:
            allowed = {id(task) for task in evictable}
            if any(id(task) not in allowed for task in chosen):
                raise SimulationError(  # pragma: no cover - slicing cannot produce this
                    f"at {now}: task of {victim.id!r} evicted outside Session.evictable_tasks"
                )
            if len(chosen) == victim.active and session.protection(action, job, victim).protected:
                raise SimulationError(  # pragma: no cover - validate refuses this first
                    f"at {now}: {victim.id!r} is protected from {job.id!r} by min-runtime "
                    f"{session.resolve(action, job.queue, victim.queue).min_runtime}, yet would be evicted whole"
                )
            mine = {id(task) for task in victim.tasks}
            if any(id(task) not in mine or task.status is not _RUNNING for task in chosen):
                raise SimulationError(  # pragma: no cover
                    f"at {now}: a task evicted from {victim.id!r} is not a running task of it"
                )
        for victim, chosen, _ in plan:
            min_runtime = session.resolve(action, job.queue, victim.queue).min_runtime
            effective = victim.effective
            unsaved = session.unsaved_work(victim, chosen) if self.shows else None
            self._evict(victim, chosen, now, action, job, min_runtime, effective, unsaved)
        queue = self.queues[job.queue]
        queue.pop(job)
        if job.spec.need > self.free:
            raise SimulationError(
                f"at {now}: job {job.id!r} needs {job.spec.need} GPUs, only {self.free} freed"
            )
        self._start(job, now, int(min(job.spec.gpus, self.free, queue.room())))

    # -- job state changes ----------------------------------------------------------------------

    def _settle(self, job: _Job, now: int) -> None:
        settled = job.settled
        if now <= settled:
            return
        computed = job.compute_at(now) - job.compute_at(settled)
        job.done += computed * job.active
        restoring = max(0, min(now, job.computing) - settled)
        job.restart_lost += restoring * job.active
        job.checkpoint_spent += (now - settled - computed - restoring) * job.active
        job.settled = now

    def _schedule_completion(self, job: _Job) -> None:
        job.epoch += 1
        remaining = job.required - job.done
        if remaining <= 0:
            finish = job.settled
        else:
            needed = -(-remaining // job.active)
            finish = job.moment_of(job.compute_at(job.settled) + needed)
        self._push(finish, _COMPLETE, job, job.epoch)

    def _start(self, job: _Job, now: int, count: int) -> None:
        queue = self.queues[job.queue]
        if count < 1 or count > self.free or count > queue.room():
            raise SimulationError(
                f"at {now}: starting {count} tasks of {job.id!r} with {self.free} GPUs free "
                f"and room for {queue.room()} in its queue's limits"
            )
        pending = [task for task in job.tasks if task.status is _PENDING][:count]
        nodes = self.nodes
        if job.active == 0:  # its minimum goes as a gang, by the placement rule
            gang = nodes.place(job.spec.need)
            if gang is None or count < job.spec.need:
                raise SimulationError(
                    f"at {now}: job {job.id!r} starts with {count} GPUs, its gang of "
                    f"{job.spec.need} cannot be placed on the nodes"
                )
            slots = [node for node, taken in gang for _ in range(taken)]
        else:
            slots = []
        mine = sorted({task.node for task in job.tasks if task.status is _RUNNING} | set(slots))
        while len(slots) < count:  # each GPU above its minimum on its own
            slots.append(nodes.place_one(mine))
        for task, node in zip(pending, slots, strict=True):
            task.status = _RUNNING
            task.node = node
        for node, taken in sorted(Counter(slots).items()):
            self.placements.append((now, job.id, node, taken))
        if job.active == 0:
            if self.order is VictimOrder.RANDOM:
                job.draw = self.rng.random()
            job.start_time = now  # a run starts now; a job that grows keeps its start time
            job.run_start = now
            restore = job.restore if job.first_start is not None else 0  # a restart restores
            job.computing = now + restore
            phase = restore if self.settings.checkpoint_costs else 0
            job.anchor = now + phase
            job.restore_input = MinRuntime(phase) if phase else None
            job.settled = now
            job.segments = [(now, job.done, count)]
            job.pending_total += now - job.pending_since
            if job.first_start is None:
                job.first_start = now
            queue.add_running(job)
        else:
            self._settle(job, now)
            job.segments.append((now, job.done, job.active + count))
        job.active += count
        for step in queue.path:
            step.alloc += count
        queue.running_gpus[job.priority] = queue.running_gpus.get(job.priority, 0) + count
        self.free -= count
        self.used += count
        self.version += 1
        if job.active < job.spec.gpus:
            self.shrunk[job.id] = job
        else:
            self.shrunk.pop(job.id, None)
        self._schedule_completion(job)

    def _release(self, job: _Job, tasks: Iterable[_Task], now: int) -> None:
        """Give back the GPUs of these running tasks, on the nodes they ran on."""
        on = Counter(task.node for task in tasks)
        count = sum(on.values())
        for node, given in sorted(on.items()):
            self.nodes.release(node, given)
            self.placements.append((now, job.id, node, -given))
        for task in tasks:
            task.node = -1
        queue = self.queues[job.queue]
        job.active -= count
        for step in queue.path:
            step.alloc -= count
        queue.running_gpus[job.priority] -= count
        self.free += count
        self.used -= count
        self.version += 1

    def _complete(self, job: _Job, now: int) -> None:
        self._settle(job, now)
        if job.done < job.required:  # pragma: no cover - a bug, not an outcome
            raise SimulationError(f"at {now}: job {job.id!r} completed with work left")
        running = [task for task in job.tasks if task.status is _RUNNING]
        self._release(job, running, now)
        for task in job.tasks:
            task.status = _SUCCEEDED
        queue = self.queues[job.queue]
        queue.remove_running(job)
        queue.demand -= job.spec.gpus
        self.demand_changed = True
        self.shrunk.pop(job.id, None)
        job.finish = now

    def _evict(
        self,
        job: _Job,
        chosen: tuple[_Task, ...],
        now: int,
        action: Action,
        preemptor: _Job,
        min_runtime: MinRuntime,
        preemptibility: Preemptibility,
        unsaved: float | None = None,
    ) -> None:
        """Evict ``chosen``; ``unsaved`` is the Session's unsaved work of them, checked against
        the GPU time since the job's work was last saved when the whole job goes after a run at
        one size.

        A whole eviction wastes the progress since the latest checkpoint and the time spent on a
        checkpoint still being written (or, for a job that saves when evicted, the save time
        instead of the progress); the restart it causes is paid as the job restores when it
        runs again. The record charges that restart at the job's size when evicted."""
        self._settle(job, now)
        before = job.active
        since_start = job.done - job.segments[0][1]
        for task in chosen:
            task.status = _PENDING
        lost = restart = 0
        if len(chosen) == before:
            since = job.saved_since(now)
            interrupted = job.interrupted_checkpoint(now)
            job.checkpoint_spent -= interrupted  # it never completes: wasted, not a checkpoint
            save = self.settings.save_on_preempt
            if save is None:
                saved = job.progress_at(since)
                lost = job.done - saved + interrupted
            else:  # it saves everything, which takes ``save`` on each of its GPUs
                saved = job.done
                job.required += save * before  # busy GPU time that is not progress, paid later
                lost = save * before + interrupted
            if save is None and unsaved is not None and len(job.segments) == 1:
                busy = job.busy_between(since, now)
                if unsaved != busy:
                    raise SimulationError(
                        f"at {now}: {job.id!r} held {busy} GPU-seconds since its work was last "
                        f"saved at {since}, but the Session counts {unsaved} unsaved"
                    )
            restart = job.restore * before
            job.done = saved
            self._release(job, chosen, now)
            job.epoch += 1  # its completion event is void
            queue = self.queues[job.queue]
            queue.remove_running(job)
            self.shrunk.pop(job.id, None)
            job.pending_since = now
            queue.push(job)
        else:
            self._release(job, chosen, now)
            job.segments.append((now, job.done, job.active))
            self.shrunk[job.id] = job
            self._schedule_completion(job)
        job.eviction_count += 1
        job.eviction_times.append(now)
        job.lost += lost
        start = job.start_time if job.start_time is not None else now
        self.records.append(
            EvictionRecord(
                time=now,
                job=job.id,
                queue=job.queue,
                action=str(action),
                preemptor=preemptor.id,
                preemptor_queue=preemptor.queue,
                tasks=len(chosen),
                active_before=before,
                min_available=job.spec.need,
                preemptibility=str(preemptibility),
                start_time=start,
                min_runtime=str(min_runtime),
                work_since_start=since_start,
                lost_gpu_seconds=lost + restart,
                restart_gpu_seconds=restart,
            )
        )

    # -- result ---------------------------------------------------------------------------------

    def _result(self, origin: int, end: int, unschedulable: int) -> SimulationResult:
        outcomes = tuple(
            JobOutcome(
                id=job.id,
                queue=job.queue,
                gpus=job.spec.gpus,
                submit=job.spec.submit,
                first_start=job.first_start,
                finish=job.finish,
                pending_time=job.pending_total,
                evictions=job.eviction_count,
                lost_gpu_seconds=job.lost + job.restart_lost,
                restart_gpu_seconds=job.restart_lost,
                checkpoint_gpu_seconds=job.checkpoint_spent,
            )
            for job in self.jobs
        )
        totals = tuple(
            QueueTotals(name=queue.name, deserved=queue.deserved, waiting_gpu_seconds=queue.waiting)
            for queue in self.queue_list
        )
        metrics = compute_metrics(
            outcomes,
            self.records,
            totals,
            total_gpus=self.total,
            busy_gpu_seconds=self.busy,
            start=origin,
            end=end,
            unschedulable=unschedulable,
        )
        return SimulationResult(
            workload=self.workload.name,
            settings=self.settings,
            metrics=metrics,
            evictions=tuple(self.records),
            jobs=outcomes,
            usage=tuple(self.usage),
            placements=tuple(self.placements),
        )


def _over_key(queue: _Queue) -> tuple[int, float, str]:
    """Most over its fair share first (a fair share of 0 first of all), then by name."""
    flag, ratio, name = queue.level_key()
    return (-flag, -ratio, name)


def simulate(
    workload: Workload, settings: Settings | None = None, *, tree: QueueTree | None = None
) -> SimulationResult:
    """Run a workload to completion under the given settings.

    Args:
        workload: the cluster, its queues and the jobs.
        settings: the min-runtime defaults, checkpoints and restart overhead (default: none).
        tree: a queue tree to use instead of the workload's (for queue-level settings); it must
            hold the workload's queues.

    Returns:
        The metrics, every eviction, every job's outcome and every placement on a node. Jobs
        that need more GPUs than the cluster has, or than a limit on their queue's path allows,
        never run; the metrics count them as unschedulable.

    Raises:
        SimulationError: if an invariant breaks (capacity of the cluster or of a node, a queue
            over its limit, eviction outside the evictable tasks, an eviction plan the Session
            does not validate).

    >>> from minruntime_sim import simulate
    >>> from minruntime_sim.synthetic import toy_workload
    >>> toy = toy_workload()
    >>> [(job.id, job.finish) for job in simulate(toy, Settings(reclaim_min_runtime="1m")).jobs]
    [('a1', 235), ('a2', 105), ('b1', 110)]
    """
    settings = settings if settings is not None else Settings()
    return _Simulation(workload, settings, tree if tree is not None else workload.tree).run()

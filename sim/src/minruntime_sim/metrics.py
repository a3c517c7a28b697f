"""What a simulation run measures: evictions, lost work, completion and queueing, waiting, use.

All amounts are exact integers in seconds or GPU-seconds; the ``*_hours`` properties divide for
reading. Percentiles use the nearest-rank rule, so they are values that occurred.

- **evictions**: by action (preempt, reclaim), partial ones (an elastic job kept its minimum),
  how many jobs were evicted how many times.
- **lost work**: GPU-seconds evictions wasted: the progress since the victim's last checkpoint
  (the evicted job runs that again), a checkpoint cut short, the save time of a job that saves
  when evicted, and the restore of every restart.
- **checkpoint work**: GPU-seconds spent writing checkpoints that completed (the price of
  checkpointing, paid with or without evictions). Busy GPU-seconds are exactly the jobs' work
  plus the lost and the checkpoint work.
- **completion time**: finish - submit; **queueing delay**: all the time a job spent pending,
  before its first start and after each full eviction. Both over the jobs that ran.
- **reclaim waiting**: GPU-seconds a queue spent below its deserved share while its reclaim
  failed *because of protection*: it had a job that fits in its share, a victim was refused by
  min-runtime, and the victims (counting the protected ones) would have covered the need. The
  amount is ``deserved - allocated`` integrated over that time.
- **utilisation**: busy GPU-seconds (lost work included) / (GPUs x makespan), the makespan from
  the first submission to the last completion.

>>> Distribution.of([5, 1, 3, 2, 4])
Distribution(count=5, mean=3.0, p50=3, p95=5, max=5)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

__all__ = [
    "Distribution",
    "EvictionRecord",
    "JobOutcome",
    "Metrics",
    "QueueMetrics",
    "QueueTotals",
    "compute_metrics",
    "percentile",
]

_HOUR = 3600


def percentile(ordered: Sequence[int], percent: int) -> int:
    """The nearest-rank ``percent``-th percentile of sorted values (0 for none).

    The smallest value with at least ``percent`` % of the values at or below it.

    >>> percentile([10, 20, 30, 40], 50), percentile([10, 20, 30, 40], 95)
    (20, 40)
    """
    if not ordered:
        return 0
    rank = max(1, -(-percent * len(ordered) // 100))
    return ordered[rank - 1]


@attrs.frozen(kw_only=True)
class Distribution:
    """Count, mean, median, 95th percentile and maximum of a list of durations (seconds).

    >>> Distribution.of([60, 120, 3600])
    Distribution(count=3, mean=1260.0, p50=120, p95=3600, max=3600)
    """

    count: int
    mean: float
    p50: int
    p95: int
    max: int

    @classmethod
    def of(cls, values: Iterable[int]) -> Distribution:
        """Summarise ``values`` (an empty list gives zeros)."""
        ordered = sorted(values)
        if not ordered:
            return cls(count=0, mean=0.0, p50=0, p95=0, max=0)
        return cls(
            count=len(ordered),
            mean=sum(ordered) / len(ordered),
            p50=percentile(ordered, 50),
            p95=percentile(ordered, 95),
            max=ordered[-1],
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Distribution:
        """Read back what :meth:`to_dict` wrote (the mean as rounded there).

        >>> Distribution.from_dict(Distribution.of([60, 120, 3600]).to_dict())
        Distribution(count=3, mean=1260.0, p50=120, p95=3600, max=3600)
        """
        return cls(
            count=int(data["count"]),
            mean=float(data["mean"]),
            p50=int(data["p50"]),
            p95=int(data["p95"]),
            max=int(data["max"]),
        )

    def to_dict(self) -> dict[str, object]:
        """As JSON-ready values (seconds)."""
        return {
            "count": self.count,
            "mean": round(self.mean, 3),
            "p50": self.p50,
            "p95": self.p95,
            "max": self.max,
        }


@attrs.frozen(kw_only=True)
class EvictionRecord:
    """One eviction of tasks of a running job.

    >>> from minruntime_sim import simulate
    >>> from minruntime_sim.synthetic import toy_workload
    >>> toy = toy_workload()
    >>> record = simulate(toy).evictions[0]
    >>> record.job, record.preemptor, record.time, record.work_since_start, record.lost_gpu_seconds
    ('a2', 'b1', 10, 10, 70)

    Attributes:
        time: when (seconds).
        job, queue: the victim and its queue.
        action: ``"preempt"`` or ``"reclaim"``.
        preemptor, preemptor_queue: the pending job the GPUs went to.
        tasks: tasks (GPUs) evicted; ``active_before`` the victim had; ``min_available`` its
            minimum.
        preemptibility: the victim's effective preemptibility.
        start_time: the victim's start time (seconds).
        min_runtime: the min-runtime the Session resolved for this preemptor and victim.
        work_since_start: GPU-seconds of progress since it last started.
        lost_gpu_seconds: what the eviction cost: the progress since the last checkpoint (or
            the save time), a checkpoint cut short, and the restart it causes; zero for a
            partial eviction.
        restart_gpu_seconds: the restart part of it: the job's restore on every GPU it had
            (the job's outcome counts the restores as they happen, at the size it restarts
            with).
    """

    time: int
    job: str
    queue: str
    action: str
    preemptor: str
    preemptor_queue: str
    tasks: int
    active_before: int
    min_available: int
    preemptibility: str
    start_time: int
    min_runtime: str
    work_since_start: int
    lost_gpu_seconds: int
    restart_gpu_seconds: int

    @property
    def full(self) -> bool:
        """Whether the job lost every task (and went back to pending)."""
        return self.tasks == self.active_before

    @property
    def ran(self) -> int:
        """Seconds between the victim's start and the eviction."""
        return self.time - self.start_time


@attrs.frozen(kw_only=True)
class JobOutcome:
    """What happened to one job.

    >>> from minruntime_sim import simulate
    >>> from minruntime_sim.synthetic import toy_workload
    >>> toy = toy_workload()
    >>> simulate(toy).jobs[1]
    JobOutcome(id='a2', queue='a', gpus=2, submit=5, first_start=5, finish=190, pending_time=50, evictions=1, lost_gpu_seconds=70, restart_gpu_seconds=60, checkpoint_gpu_seconds=0)
    """

    id: str
    queue: str
    gpus: int
    submit: int
    first_start: int | None
    finish: int | None
    pending_time: int
    evictions: int
    lost_gpu_seconds: int
    restart_gpu_seconds: int
    checkpoint_gpu_seconds: int = 0

    @property
    def completion_time(self) -> int | None:
        """finish - submit, or ``None`` if it never ran."""
        return None if self.finish is None else self.finish - self.submit


@attrs.frozen(kw_only=True)
class QueueTotals:
    """Per-queue amounts the loop integrates over time."""

    name: str
    deserved: int
    waiting_gpu_seconds: int


@attrs.frozen(kw_only=True)
class QueueMetrics:
    """The metrics of one queue.

    >>> from minruntime_sim import simulate
    >>> from minruntime_sim.synthetic import toy_workload
    >>> toy = toy_workload()
    >>> [(q.name, q.reclaim_evictions, q.lost_gpu_seconds) for q in simulate(toy).metrics.per_queue]
    [('a', 1, 70), ('b', 0, 0)]
    """

    name: str
    deserved: int
    jobs: int
    preempt_evictions: int
    reclaim_evictions: int
    lost_gpu_seconds: int
    completion: Distribution
    queueing: Distribution
    reclaim_waiting_gpu_seconds: int

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QueueMetrics:
        """Read back what :meth:`to_dict` wrote (the means of the distributions as rounded
        there).

        >>> from minruntime_sim import simulate
        >>> from minruntime_sim.synthetic import toy_workload
        >>> queue = simulate(toy_workload()).metrics.per_queue[0]
        >>> QueueMetrics.from_dict(queue.to_dict()).to_dict() == queue.to_dict()
        True
        """
        return cls(
            name=str(data["name"]),
            deserved=int(data["deserved"]),
            jobs=int(data["jobs"]),
            preempt_evictions=int(data["preempt_evictions"]),
            reclaim_evictions=int(data["reclaim_evictions"]),
            lost_gpu_seconds=int(data["lost_gpu_seconds"]),
            completion=Distribution.from_dict(data["completion_time"]),
            queueing=Distribution.from_dict(data["queueing_delay"]),
            reclaim_waiting_gpu_seconds=int(data["reclaim_waiting_gpu_seconds"]),
        )

    def to_dict(self) -> dict[str, object]:
        """As JSON-ready values."""
        return {
            "name": self.name,
            "deserved": self.deserved,
            "jobs": self.jobs,
            "preempt_evictions": self.preempt_evictions,
            "reclaim_evictions": self.reclaim_evictions,
            "lost_gpu_seconds": self.lost_gpu_seconds,
            "completion_time": self.completion.to_dict(),
            "queueing_delay": self.queueing.to_dict(),
            "reclaim_waiting_gpu_seconds": self.reclaim_waiting_gpu_seconds,
        }


@attrs.frozen(kw_only=True)
class Metrics:
    """The metrics of one run (see the module's description of each).

    >>> from minruntime_sim import simulate
    >>> from minruntime_sim.synthetic import toy_workload
    >>> toy = toy_workload()
    >>> metrics = simulate(toy).metrics
    >>> metrics.completed, metrics.reclaim_evictions, metrics.lost_gpu_seconds
    (3, 1, 70)
    """

    jobs: int
    completed: int
    unschedulable: int
    preempt_evictions: int
    reclaim_evictions: int
    partial_evictions: int
    evicted_jobs: int
    evictions_per_job: tuple[tuple[int, int], ...]
    """(evictions, jobs evicted that many times), for jobs evicted at least once."""
    lost_gpu_seconds: int
    restart_gpu_seconds: int
    completion: Distribution
    queueing: Distribution
    reclaim_waiting_gpu_seconds: int
    busy_gpu_seconds: int
    total_gpus: int
    makespan: int
    per_queue: tuple[QueueMetrics, ...]
    checkpoint_gpu_seconds: int = 0
    """GPU-seconds spent writing checkpoints that completed."""

    @property
    def evictions(self) -> int:
        """All evictions, preempt and reclaim."""
        return self.preempt_evictions + self.reclaim_evictions

    @property
    def lost_gpu_hours(self) -> float:
        """Lost work in GPU-hours."""
        return self.lost_gpu_seconds / _HOUR

    @property
    def reclaim_waiting_gpu_hours(self) -> float:
        """Reclaim waiting in GPU-hours, over all queues."""
        return self.reclaim_waiting_gpu_seconds / _HOUR

    @property
    def mean_wait_minutes(self) -> float:
        """The jobs' mean time pending (``queueing``: before the first start and after each
        eviction), in minutes: what a job's owner waits, on average.

        >>> from minruntime_sim import simulate
        >>> from minruntime_sim.synthetic import toy_workload
        >>> round(simulate(toy_workload()).metrics.mean_wait_minutes, 3)
        0.278
        """
        return self.queueing.mean / 60

    @property
    def utilisation(self) -> float:
        """Busy GPU-seconds over GPUs x makespan (0 for an empty run)."""
        capacity = self.total_gpus * self.makespan
        return self.busy_gpu_seconds / capacity if capacity else 0.0

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Metrics:
        """Read back what :meth:`to_dict` wrote (a results file of ``--json``): equal to the
        metrics written but for the means of the distributions, rounded to 3 places there; the
        derived figures (evictions, hours, utilisation) are computed again, not read.

        Raises:
            KeyError: for a field :meth:`to_dict` writes that ``data`` lacks.

        >>> from minruntime_sim import simulate
        >>> from minruntime_sim.synthetic import toy_workload
        >>> metrics = simulate(toy_workload()).metrics
        >>> Metrics.from_dict(metrics.to_dict()).to_dict() == metrics.to_dict()
        True
        >>> Metrics.from_dict(metrics.to_dict()).completion.mean, metrics.completion.mean
        (111.667, 111.66666666666667)
        """
        return cls(
            jobs=int(data["jobs"]),
            completed=int(data["completed"]),
            unschedulable=int(data["unschedulable"]),
            preempt_evictions=int(data["preempt_evictions"]),
            reclaim_evictions=int(data["reclaim_evictions"]),
            partial_evictions=int(data["partial_evictions"]),
            evicted_jobs=int(data["evicted_jobs"]),
            evictions_per_job=tuple(
                sorted((int(n), int(jobs)) for n, jobs in data["evictions_per_job"].items())
            ),
            lost_gpu_seconds=int(data["lost_gpu_seconds"]),
            restart_gpu_seconds=int(data["restart_gpu_seconds"]),
            completion=Distribution.from_dict(data["completion_time"]),
            queueing=Distribution.from_dict(data["queueing_delay"]),
            reclaim_waiting_gpu_seconds=int(data["reclaim_waiting_gpu_seconds"]),
            busy_gpu_seconds=int(data["busy_gpu_seconds"]),
            total_gpus=int(data["total_gpus"]),
            makespan=int(data["makespan"]),
            per_queue=tuple(QueueMetrics.from_dict(queue) for queue in data["per_queue"]),
            checkpoint_gpu_seconds=int(data["checkpoint_gpu_seconds"]),
        )

    def to_dict(self) -> dict[str, object]:
        """As JSON-ready values, in a fixed key order."""
        return {
            "jobs": self.jobs,
            "completed": self.completed,
            "unschedulable": self.unschedulable,
            "evictions": self.evictions,
            "preempt_evictions": self.preempt_evictions,
            "reclaim_evictions": self.reclaim_evictions,
            "partial_evictions": self.partial_evictions,
            "evicted_jobs": self.evicted_jobs,
            "evictions_per_job": {str(n): jobs for n, jobs in self.evictions_per_job},
            "lost_gpu_seconds": self.lost_gpu_seconds,
            "lost_gpu_hours": round(self.lost_gpu_hours, 3),
            "restart_gpu_seconds": self.restart_gpu_seconds,
            "checkpoint_gpu_seconds": self.checkpoint_gpu_seconds,
            "completion_time": self.completion.to_dict(),
            "queueing_delay": self.queueing.to_dict(),
            "reclaim_waiting_gpu_seconds": self.reclaim_waiting_gpu_seconds,
            "reclaim_waiting_gpu_hours": round(self.reclaim_waiting_gpu_hours, 3),
            "busy_gpu_seconds": self.busy_gpu_seconds,
            "total_gpus": self.total_gpus,
            "makespan": self.makespan,
            "utilisation": round(self.utilisation, 6),
            "per_queue": [queue.to_dict() for queue in self.per_queue],
        }


def compute_metrics(
    outcomes: Sequence[JobOutcome],
    evictions: Sequence[EvictionRecord],
    queues: Sequence[QueueTotals],
    *,
    total_gpus: int,
    busy_gpu_seconds: int,
    start: int,
    end: int,
    unschedulable: int,
) -> Metrics:
    """Summarise a run from its job outcomes, eviction records and per-queue totals."""
    ran = [job for job in outcomes if job.finish is not None]
    by_queue: dict[str, list[JobOutcome]] = {queue.name: [] for queue in queues}
    for job in ran:
        by_queue[job.queue].append(job)
    actions: Counter[tuple[str, str]] = Counter((e.queue, e.action) for e in evictions)
    lost_by_queue: Counter[str] = Counter()
    for job in outcomes:
        lost_by_queue[job.queue] += job.lost_gpu_seconds
    per_queue = tuple(
        QueueMetrics(
            name=queue.name,
            deserved=queue.deserved,
            jobs=len(by_queue[queue.name]),
            preempt_evictions=actions[(queue.name, "preempt")],
            reclaim_evictions=actions[(queue.name, "reclaim")],
            lost_gpu_seconds=lost_by_queue[queue.name],
            completion=Distribution.of(_completion(by_queue[queue.name])),
            queueing=Distribution.of(job.pending_time for job in by_queue[queue.name]),
            reclaim_waiting_gpu_seconds=queue.waiting_gpu_seconds,
        )
        for queue in queues
    )
    histogram = Counter(job.evictions for job in outcomes if job.evictions)
    return Metrics(
        jobs=len(outcomes),
        completed=len(ran),
        unschedulable=unschedulable,
        preempt_evictions=sum(1 for e in evictions if e.action == "preempt"),
        reclaim_evictions=sum(1 for e in evictions if e.action == "reclaim"),
        partial_evictions=sum(1 for e in evictions if not e.full),
        evicted_jobs=sum(histogram.values()),
        evictions_per_job=tuple(sorted(histogram.items())),
        lost_gpu_seconds=sum(job.lost_gpu_seconds for job in outcomes),
        restart_gpu_seconds=sum(job.restart_gpu_seconds for job in outcomes),
        checkpoint_gpu_seconds=sum(job.checkpoint_gpu_seconds for job in outcomes),
        completion=Distribution.of(_completion(ran)),
        queueing=Distribution.of(job.pending_time for job in ran),
        reclaim_waiting_gpu_seconds=sum(queue.waiting_gpu_seconds for queue in queues),
        busy_gpu_seconds=busy_gpu_seconds,
        total_gpus=total_gpus,
        makespan=max(0, end - start),
        per_queue=per_queue,
    )


def _completion(jobs: Iterable[JobOutcome]) -> list[int]:
    return [job.finish - job.submit for job in jobs if job.finish is not None]

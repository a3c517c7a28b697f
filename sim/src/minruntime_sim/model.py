"""The simulator's inputs: jobs from a trace, the workload (cluster and queues), run settings.

Time in the simulator is a whole number of seconds from the trace's origin (its first
submission), and work is counted in GPU-seconds. A job of ``gpus`` GPUs runs as that many tasks
of one GPU each in one pod set; ``min_available`` below ``gpus`` makes it elastic (it starts with
at least ``min_available`` tasks and grows when GPUs are free).

>>> from minruntime import Queue, QueueTree
>>> workload = Workload(
...     name="toy",
...     jobs=[JobSpec(id="j1", queue="a", submit=0, run_time=600, gpus=2)],
...     tree=QueueTree([Queue("a"), Queue("b")]),
...     deserved={"a": 4, "b": 4},
...     total_gpus=8,
... )
>>> workload.jobs[0].work, workload.jobs[0].need
(1200, 2)
>>> sorted(workload.with_gpus(5).deserved.items())
[('a', 3), ('b', 2)]
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs

from minruntime import (
    Config,
    MinRuntime,
    Preemptibility,
    ProtectionSettings,
    Queue,
    QueueTree,
)
from minruntime.preemptibility import LEGACY_PRIORITY_THRESHOLD
from minruntime_sim.errors import InvalidSetting, InvalidTrace

__all__ = [
    "DEFAULT_PRIORITY",
    "DEFAULT_RESTART_OVERHEAD",
    "POLICIES",
    "RESOLVE_METHODS",
    "JobSpec",
    "Settings",
    "VictimOrder",
    "Workload",
    "ceil_seconds",
    "parse_duration",
    "parse_seconds",
    "scale_shares",
]

SECOND_NS: Final = 1_000_000_000

DEFAULT_PRIORITY: Final = 50
"""A job's priority when the trace gives none (the policy library's default too)."""

RESOLVE_METHODS: Final = ("lca", "queue")
"""The reclaim resolve methods a run can use (see :class:`minruntime.Config`)."""

POLICIES: Final = ("none", "min-runtime", "checkpoint-aware")
"""The protection policies a run can use (see :class:`Settings`)."""


class VictimOrder(enum.Enum):
    """The order in which the simulated scheduler considers running jobs as victims.

    Victims always come from the queues the action allows (the preemptor's own queue for
    preempt; for reclaim, the queues over their share, most over first); this is the order
    inside each of those queues.

    - ``REFERENCE`` (the default): the reference scheduler's. KAI-Scheduler walks victims in the
      reverse of its job order (``pkg/scheduler/actions/utils/job_order_by_queue.go``: a victim
      queue compares with ``!JobOrderFn``). Its job order is the priority plugin's (higher
      priority first), then the elastic plugin's (jobs below their minimum, then at it, then
      above it: ``pkg/scheduler/plugins/elastic/elastic.go``), then the pod group's creation
      time and UID (``pkg/scheduler/framework/session_plugins.go``). Reversed: lowest priority
      first, then jobs running above their minimum before jobs at it, then the latest
      *submitted* first (a restarted job keeps its submission time), then the later listed.
    - ``YOUNGEST``: lowest priority first, then the most recently (re)started first: the least
      work since its start (this simulator's order before the choice existed).
    - ``OLDEST``: lowest priority first, then the longest running first.
    - ``RANDOM``: lowest priority first, then a random order drawn afresh at every start from
      the run's ``seed``.
    - ``LEAST_UNSAVED``: :meth:`minruntime.Session.rank_victims`: least unsaved work first
      (every job shows the Session its checkpoints), then lower priority.

    >>> VictimOrder("least-unsaved"), str(VictimOrder.REFERENCE)
    (<VictimOrder.LEAST_UNSAVED: 'least-unsaved'>, 'reference')
    """

    REFERENCE = "reference"
    YOUNGEST = "youngest"
    OLDEST = "oldest"
    RANDOM = "random"
    LEAST_UNSAVED = "least-unsaved"

    def __str__(self) -> str:
        return self.value


DEFAULT_RESTART_OVERHEAD: Final = 30
"""Seconds a job spends restarting after an eviction unless told otherwise: the re-allocation
delay the Pollux simulator charges every restart (Qiao et al., OSDI'21; ``rescale_time = 30``
in ``Job.reallocate``, ``simulator/simulator.py`` of petuum/adaptdl, the repository the Philly
trace comes from)."""

DEFAULT_CHECKPOINT_GRACE: Final = MinRuntime("10m")
"""The checkpoint grace of the ``checkpoint-aware`` policy unless told otherwise."""

DEFAULT_REQUEST_CAP: Final = MinRuntime("2h")
"""The cap on a job's own min-runtime request (the queues' ``max_job_min_runtime``) when the
``checkpoint-aware`` policy makes jobs request one, unless told otherwise."""


def _positive(name: str) -> Any:
    def check(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidTrace(
                f"job {getattr(instance, 'id', '?')!r}: {name} must be an integer >= 1, "
                f"got {value!r}"
            )

    return check


def _non_negative(instance: JobSpec, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidTrace(
            f"job {instance.id!r}: {attribute.name} must be an integer >= 0, got {value!r}"
        )


def _to_preemptibility(value: Preemptibility | str | None) -> Preemptibility | None:
    if value is None or value == "":
        return None
    try:
        return Preemptibility.parse(value, origin="JobSpec preemptibility")
    except ValueError as error:
        raise InvalidTrace(str(error)) from error


def _check_min_available(
    instance: JobSpec, attribute: attrs.Attribute[int | None], value: int | None
) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= instance.gpus:
        raise InvalidTrace(
            f"job {instance.id!r}: min_available must be an integer from 1 to its gpus "
            f"({instance.gpus}), got {value!r}"
        )


def _check_interval(
    instance: JobSpec, attribute: attrs.Attribute[int | None], value: int | None
) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise InvalidTrace(
            f"job {instance.id!r}: checkpoint_interval must be None or an integer number of "
            f"seconds >= 1, got {value!r}"
        )


def _check_seconds(
    instance: JobSpec, attribute: attrs.Attribute[int | None], value: int | None
) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise InvalidTrace(
            f"job {instance.id!r}: {attribute.name} must be None or an integer number of "
            f"seconds >= 0, got {value!r}"
        )


@attrs.frozen(kw_only=True)
class JobSpec:
    """One job of a trace, as submitted.

    Args:
        id: unique id.
        queue: its leaf queue.
        submit: submission time, seconds from the trace's origin.
        run_time: how long it runs at full size, in seconds (>= 1).
        gpus: how many GPUs (tasks of one GPU) it asks for (>= 1).
        priority: its priority (default 50).
        preemptibility: explicit preemptibility, or ``None`` for the legacy priority rule.
        min_available: the fewest tasks it can run with (elastic when below ``gpus``); ``None``
            means all of them (a gang).
        checkpoint_interval: seconds between its checkpoints (completion to completion),
            overriding the run's setting; ``None`` to use the run's (or, with checkpoint costs
            on, a drawn one: :mod:`minruntime_sim.costs`).
        checkpoint_duration: seconds each of its checkpoints takes, during which it makes no
            progress (with checkpoint costs on); ``None``: 3.5% of its interval. Must be
            shorter than its interval.
        checkpoint_restore: seconds it spends restoring after each restart before it computes
            again (its restart overhead, and the phase of its checkpoints); ``None``: the run's
            ``restart_overhead``.

    Raises:
        InvalidTrace: for a value out of range, naming the job and the field.

    >>> JobSpec(id="x", queue="q", submit=0, run_time=60, gpus=4, min_available=2).elastic
    True
    >>> JobSpec(id="y", queue="q", submit=0, run_time=60, gpus=1, checkpoint_interval=60,
    ...         checkpoint_duration=60)
    Traceback (most recent call last):
    ...
    minruntime_sim.errors.InvalidTrace: job 'y': checkpoint_duration (60) must be shorter than checkpoint_interval (60)
    """

    id: str
    queue: str
    submit: int = attrs.field(validator=_non_negative)
    run_time: int = attrs.field(validator=_positive("run_time"))
    gpus: int = attrs.field(validator=_positive("gpus"))
    priority: int = DEFAULT_PRIORITY
    preemptibility: Preemptibility | None = attrs.field(default=None, converter=_to_preemptibility)
    min_available: int | None = attrs.field(default=None, validator=_check_min_available)
    checkpoint_interval: int | None = attrs.field(default=None, validator=_check_interval)
    checkpoint_duration: int | None = attrs.field(default=None, validator=_check_seconds)
    checkpoint_restore: int | None = attrs.field(default=None, validator=_check_seconds)

    def __attrs_post_init__(self) -> None:
        interval, duration = self.checkpoint_interval, self.checkpoint_duration
        if interval is not None and duration is not None and duration >= interval:
            raise InvalidTrace(
                f"job {self.id!r}: checkpoint_duration ({duration}) must be shorter than "
                f"checkpoint_interval ({interval})"
            )

    @property
    def need(self) -> int:
        """The GPUs it needs to start: ``min_available``, or all of them for a gang."""
        return self.gpus if self.min_available is None else self.min_available

    @property
    def elastic(self) -> bool:
        """Whether it can run with fewer tasks than it asks for."""
        return self.need < self.gpus

    @property
    def work(self) -> int:
        """Its work in GPU-seconds: ``run_time * gpus``."""
        return self.run_time * self.gpus


def scale_shares(shares: Mapping[str, int], total: int) -> dict[str, int]:
    """Integer shares proportional to ``shares`` that add up to ``total`` (largest remainder).

    Ties in the remainders go to the larger original share, then to the name, so the result
    never depends on the mapping's order.

    >>> scale_shares({"a": 64, "b": 32, "c": 32}, 10)
    {'a': 5, 'b': 3, 'c': 2}
    """
    weight = sum(shares.values())
    if weight <= 0:
        return dict.fromkeys(shares, 0)
    base = {name: share * total // weight for name, share in shares.items()}
    left = total - sum(base.values())
    by_remainder = sorted(
        shares, key=lambda name: (-(shares[name] * total % weight), -shares[name], name)
    )
    for name in by_remainder[:left]:
        base[name] += 1
    return base


def _even_spread(count: int) -> list[int]:
    """The indices ``0 .. count-1`` in an order that spreads any prefix evenly over them: the
    bit-reversal order (0, then the middle, then the quarters...), ties by index.

    >>> _even_spread(5)
    [0, 4, 2, 1, 3]
    """
    bits = max(1, (count - 1).bit_length())

    def reverse(index: int) -> int:
        return int(format(index, f"0{bits}b")[::-1], 2)

    return sorted(range(count), key=lambda index: (reverse(index), index))


def _to_weights(weights: Mapping[str, float]) -> dict[str, float]:
    return dict(weights)


def _to_nodes(nodes: Iterable[int]) -> tuple[int, ...]:
    return tuple(nodes)


def _to_jobs(jobs: Iterable[JobSpec]) -> tuple[JobSpec, ...]:
    return tuple(jobs)


def _to_counts(counts: Mapping[str, int]) -> dict[str, int]:
    return dict(counts)


def _to_notes(notes: Iterable[str]) -> tuple[str, ...]:
    return tuple(notes)


def parse_duration(value: object, *, origin: str, allow_never: bool = True) -> MinRuntime:
    """A duration as the policy library reads it, or :class:`InvalidSetting` naming ``origin``.

    >>> parse_duration("1h30m", origin="--checkpoint-interval")
    MinRuntime('1h30m')
    >>> parse_duration("never", origin="Settings checkpoint_grace", allow_never=False)
    Traceback (most recent call last):
    ...
    minruntime_sim.errors.InvalidSetting: invalid duration 'never' in Settings checkpoint_grace: ...
    """
    try:
        return MinRuntime.parse(value, origin=origin, allow_never=allow_never)
    except ValueError as error:
        raise InvalidSetting(str(error)) from error


def _to_reclaim(value: object) -> MinRuntime:
    return parse_duration(value, origin="Settings reclaim_min_runtime")


def _to_preempt(value: object) -> MinRuntime:
    return parse_duration(value, origin="Settings preempt_min_runtime")


@attrs.frozen(kw_only=True, eq=False)
class Workload:
    """A cluster and what is submitted to it: jobs, queue tree, queue quotas, nodes.

    Args:
        name: what it is called in reports.
        jobs: the jobs, in any order (the simulator orders them by submission, then listing);
            each in a leaf queue of the tree.
        tree: the queue tree (min-runtime settings on queues included).
        deserved: GPUs a queue deserves (its guaranteed quota), at any level of the tree;
            missing: 0. A parent's quota is shared by its children, never added to the cluster.
            A queue may use more when GPUs are idle (up to its fair share and beyond, see
            :mod:`minruntime_sim.quotas`), and then others may reclaim the excess.
        total_gpus: the cluster's GPUs (the sum of ``nodes`` when they are given).
        nodes: each node's GPUs; empty (the default): one node holding all ``total_gpus``.
        over_quota_weights: each queue's share of the GPUs beyond the deserved quotas
            (``overQuotaWeight``; missing: 1, 0: none).
        limits: the most GPUs a queue (with its children) may ever hold (``limit``; missing:
            no limit).
        notes: what the reader did that a reader of the results should know.

    Raises:
        InvalidTrace: for a job in a queue that is not a leaf of the tree, a quota for a queue
            not in the tree, a negative quota, weight or limit, nodes that do not add up to
            ``total_gpus``, or fewer than one GPU (all the problems at once).

    >>> from minruntime import Queue, QueueTree
    >>> toy = Workload(name="toy", tree=QueueTree([Queue("a"), Queue("b")]),
    ...     deserved={"a": 3, "b": 1}, total_gpus=4,
    ...     jobs=[JobSpec(id="j1", queue="a", submit=0, run_time=60, gpus=1)])
    >>> dict(toy.with_gpus(8).deserved), toy.with_gpus(8).notes
    ({'a': 6, 'b': 2}, ('cluster resized to 8 GPUs on 1 node, quotas scaled',))
    >>> Workload(name="two", tree=QueueTree([Queue("a")]), total_gpus=16, nodes=(8, 8),
    ...     jobs=[]).node_inventory
    (8, 8)
    """

    name: str
    jobs: tuple[JobSpec, ...] = attrs.field(converter=_to_jobs)
    tree: QueueTree
    deserved: Mapping[str, int] = attrs.field(factory=dict, converter=_to_counts)
    total_gpus: int
    nodes: tuple[int, ...] = attrs.field(default=(), converter=_to_nodes)
    over_quota_weights: Mapping[str, float] = attrs.field(factory=dict, converter=_to_weights)
    limits: Mapping[str, int] = attrs.field(factory=dict, converter=_to_counts)
    notes: tuple[str, ...] = attrs.field(default=(), converter=_to_notes)

    def __attrs_post_init__(self) -> None:
        problems: list[str] = []
        if isinstance(self.total_gpus, bool) or not isinstance(self.total_gpus, int):
            problems.append(f"total_gpus must be an integer, got {self.total_gpus!r}")
        elif self.total_gpus < 1:
            problems.append(f"total_gpus must be >= 1, got {self.total_gpus}")
        for field, values in (("deserved", self.deserved), ("limit", self.limits)):
            for queue, value in sorted(values.items()):
                if queue not in self.tree:
                    problems.append(f"{field} for queue {queue!r}, which is not in the tree")
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    problems.append(
                        f"queue {queue!r}: {field} must be an integer >= 0, got {value!r}"
                    )
        for queue, weight in sorted(self.over_quota_weights.items()):
            if queue not in self.tree:
                problems.append(f"over-quota weight for queue {queue!r}, which is not in the tree")
            if (
                isinstance(weight, bool)
                or not isinstance(weight, int | float)
                or not 0 <= weight < float("inf")
            ):
                problems.append(
                    f"queue {queue!r}: over-quota weight must be a number >= 0, got {weight!r}"
                )
        if self.nodes:
            bad = [
                count
                for count in self.nodes
                if isinstance(count, bool) or not isinstance(count, int) or count < 1
            ]
            if bad:
                problems.append(f"nodes must each have an integer >= 1 of GPUs, got {bad[0]!r}")
            elif sum(self.nodes) != self.total_gpus:
                problems.append(
                    f"nodes hold {sum(self.nodes)} GPUs in all, but total_gpus is {self.total_gpus}"
                )
        queues = sorted({job.queue for job in self.jobs})
        for queue in queues:
            first = next(job.id for job in self.jobs if job.queue == queue)
            if queue not in self.tree:
                problems.append(f"job {first!r} is in queue {queue!r}, which is not in the tree")
            elif self.tree.children(queue):
                problems.append(
                    f"job {first!r} is in queue {queue!r}, which has child queues "
                    "(jobs go in leaf queues)"
                )
        seen: set[str] = set()
        for job in self.jobs:
            if job.id in seen:
                problems.append(f"duplicate job id {job.id!r}")
                break
            seen.add(job.id)
        if problems:
            raise InvalidTrace(f"workload {self.name!r}: " + "; ".join(problems))

    @property
    def node_inventory(self) -> tuple[int, ...]:
        """Each node's GPUs: ``nodes``, or one node of ``total_gpus`` when none are given."""
        return self.nodes or (self.total_gpus,)

    def with_gpus(self, total_gpus: int) -> Workload:
        """The same workload on a cluster of ``total_gpus``.

        Nodes are kept whole and taken from the inventory in an even spread (every k-th, so a
        mix of node sizes keeps its proportions), as many as fit in ``total_gpus``; when they
        fall short of it, one more node is cut to the GPUs left. The deserved quotas of each
        group of siblings are scaled by ``total_gpus / self.total_gpus`` (largest remainder:
        :func:`scale_shares`), limits too (rounded up).

        >>> from minruntime import Queue, QueueTree
        >>> eight = Workload(name="w", tree=QueueTree([Queue("a")]), deserved={"a": 32},
        ...     total_gpus=32, nodes=(8, 8, 8, 8), limits={"a": 24}, jobs=[])
        >>> half = eight.with_gpus(20)
        >>> half.nodes, dict(half.deserved), dict(half.limits)
        ((8, 8, 4), {'a': 20}, {'a': 15})
        """
        if isinstance(total_gpus, bool) or not isinstance(total_gpus, int) or total_gpus < 1:
            raise InvalidSetting(
                f"cluster size must be an integer >= 1 of GPUs, got {total_gpus!r}"
            )
        chosen: list[int] = []
        left = total_gpus if self.nodes else 0
        for index in _even_spread(len(self.nodes)) if self.nodes else ():
            if self.nodes[index] <= left:
                chosen.append(index)
                left -= self.nodes[index]
        nodes = [self.nodes[index] for index in sorted(chosen)] + ([left] if left else [])
        old = self.total_gpus
        deserved: dict[str, int] = {}
        groups: dict[str | None, dict[str, int]] = {}
        for queue, value in self.deserved.items():
            groups.setdefault(self.tree.parent(queue), {})[queue] = value
        for members in groups.values():
            deserved.update(scale_shares(members, -(-sum(members.values()) * total_gpus // old)))
        return attrs.evolve(
            self,
            total_gpus=total_gpus,
            nodes=(*nodes,) if self.nodes else (),
            deserved={queue: deserved[queue] for queue in self.deserved},
            limits={queue: -(-limit * total_gpus // old) for queue, limit in self.limits.items()},
            notes=(
                *self.notes,
                f"cluster resized to {total_gpus} GPUs on {max(1, len(nodes))} node"
                f"{'' if len(nodes) <= 1 else 's'}, quotas scaled",
            ),
        )

    def with_load(self, factor: float) -> Workload:
        """The same jobs arriving ``factor`` times as fast: every submission time divided by
        ``factor`` (rounded down), on the same nodes and quotas. The load-scaling knob: 2 doubles
        the arrival rate (halves every gap between submissions), 1 is the trace as recorded.

        >>> from minruntime import Queue, QueueTree
        >>> jobs = [JobSpec(id=f"j{t}", queue="a", submit=t, run_time=5, gpus=1) for t in (0, 5, 9)]
        >>> toy = Workload(name="toy", jobs=jobs, tree=QueueTree([Queue("a")]), total_gpus=1)
        >>> busier = toy.with_load(2)
        >>> [job.submit for job in busier.jobs], busier.name, busier.notes
        ([0, 2, 4], 'toy(load x2)', ('load x2: submission times divided by 2',))
        """
        if (
            isinstance(factor, bool)
            or not isinstance(factor, int | float)
            or not 0 < factor < float("inf")
        ):
            raise InvalidSetting(f"load factor must be a number > 0, got {factor!r}")
        if factor == 1:
            return self
        text = f"{factor:g}"
        return attrs.evolve(
            self,
            name=f"{self.name}(load x{text})",
            jobs=[attrs.evolve(job, submit=int(job.submit // factor)) for job in self.jobs],
            notes=(*self.notes, f"load x{text}: submission times divided by {text}"),
        )

    def head(self, count: int) -> Workload:
        """The first ``count`` jobs by submission time (then listing order)."""
        order = sorted(range(len(self.jobs)), key=lambda i: (self.jobs[i].submit, i))
        return attrs.evolve(self, jobs=[self.jobs[i] for i in sorted(order[:count])])

    def window(self, index: int, count: int) -> Workload:
        """The jobs submitted in the ``index``-th of ``count`` equal spans of the submission
        times (0-based), their submissions counted from the span's start: a slice of a trace.

        >>> from minruntime import Queue, QueueTree
        >>> jobs = [JobSpec(id=f"j{t}", queue="a", submit=t, run_time=5, gpus=1) for t in (0, 4, 6, 9)]
        >>> toy = Workload(name="toy", jobs=jobs, tree=QueueTree([Queue("a")]), deserved={"a": 1},
        ...                total_gpus=1)
        >>> second = toy.window(1, 2)
        >>> second.name, [(job.id, job.submit) for job in second.jobs], second.notes
        ('toy[2/2]', [('j6', 1), ('j9', 4)], ('window 2 of 2: submissions from 5 to 10',))
        """
        if not 0 <= index < count:
            raise InvalidSetting(f"window {index} of {count}: expected 0 <= index < count")
        first = min((job.submit for job in self.jobs), default=0)
        span = max((job.submit for job in self.jobs), default=0) - first + 1
        low, high = first + span * index // count, first + span * (index + 1) // count
        return attrs.evolve(
            self,
            name=f"{self.name}[{index + 1}/{count}]",
            jobs=[
                attrs.evolve(job, submit=job.submit - low)
                for job in self.jobs
                if low <= job.submit < high
            ],
            notes=(*self.notes, f"window {index + 1} of {count}: submissions from {low} to {high}"),
        )


def parse_seconds(value: object, *, origin: str) -> int:
    """A duration in whole seconds (rounded up), from any spelling ``MinRuntime`` reads.

    Raises:
        InvalidSetting: for never or anything that is not a duration.

    >>> parse_seconds("1h30m", origin="--checkpoint-interval"), parse_seconds("1.5s", origin="x")
    (5400, 2)
    """
    duration = parse_duration(value, origin=origin)
    if duration.is_never:
        raise InvalidSetting(
            f"invalid duration {value!r} in {origin}: never is not a length of time "
            "(expected e.g. '10m', '1h30m')"
        )
    ns = duration.nanoseconds or 0
    return -(-ns // SECOND_NS)


def _check_resolve_method(instance: Settings, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in RESOLVE_METHODS:
        raise InvalidSetting(
            f"reclaim_resolve_method: invalid value {value!r} (expected 'lca' or 'queue')"
        )


def _check_policy(instance: Settings, attribute: attrs.Attribute[str], value: str) -> None:
    if value not in POLICIES:
        raise InvalidSetting(
            f"policy: invalid value {value!r} (expected one of {', '.join(POLICIES)})"
        )


def _to_order(value: object) -> VictimOrder:
    if isinstance(value, VictimOrder):
        return value
    try:
        return VictimOrder(value)
    except ValueError:
        raise InvalidSetting(
            f"victim_order: invalid value {value!r} (expected one of "
            f"{', '.join(order.value for order in VictimOrder)})"
        ) from None


def _to_grace(value: object) -> MinRuntime:
    return parse_duration(value, origin="Settings checkpoint_grace", allow_never=False)


def _to_window(value: object) -> MinRuntime:
    return parse_duration(value, origin="Settings eviction_window")


def _to_cap(value: object) -> MinRuntime:
    return parse_duration(value, origin="Settings request_cap")


@attrs.frozen(kw_only=True)
class Settings:
    """The settings of one simulation run.

    Args:
        preempt_min_runtime: the node-pool default preempt min-runtime.
        reclaim_min_runtime: the node-pool default reclaim min-runtime.
        reclaim_resolve_method: ``"lca"`` or ``"queue"``.
        checkpoint_interval: seconds between checkpoints for jobs that set none; ``None``: each
            job draws its own (:mod:`minruntime_sim.costs`) with checkpoint costs on, and has
            no checkpoints with them off (an evicted job loses everything since it last
            started).
        checkpoint_costs: whether checkpoints cost what they do in real clusters (the
            default): each takes time during which the job makes no progress, the first of a
            run falls an interval after the job's restore, and jobs without an interval draw
            one, all as :mod:`minruntime_sim.costs` documents. ``False``
            (``--no-checkpoint-costs``): free, instantaneous checkpoints every interval after
            each start, only for jobs given an interval (the model of the earlier tables).
        restart_overhead: seconds a job spends restoring after each restart before it computes
            again, on every GPU it restarts with (a job's ``checkpoint_restore`` overrides
            it); default :data:`DEFAULT_RESTART_OVERHEAD` (30 s), 0 for none.
        save_on_preempt: seconds a job takes to write a checkpoint when it is told to go, for
            jobs that save on eviction (preempt or reclaim alike; a SIGTERM handler); ``None``
            (the default): they do not, and lose the work since their last checkpoint. A job
            that saves loses no progress; its GPUs are charged the save time (counted in lost
            work, paid when it restarts) and are free for the preemptor at once.
        legacy_priority_threshold: the legacy preemptibility rule's threshold.
        policy: how running jobs are protected (:data:`POLICIES`):

            - ``"none"``: no protection at all: both min-runtimes are 0 whatever is given, the
              tree's queue-level values are ignored too, and no checkpoint-aware setting
              applies;
            - ``"min-runtime"`` (the default): the min-runtimes above and the tree's, no
              checkpoint-aware setting;
            - ``"checkpoint-aware"``: the min-runtimes, plus docs/spec/beyond-min-runtime.md: every
              job tells the Session its checkpoint interval, its last checkpoint and its past
              evictions, and the grace and budget below apply.
        victim_order: the order in which victims are considered (:class:`VictimOrder`; default
            the reference scheduler's), whatever the policy.
        seed: the seed of everything random in the run (the ``random`` victim order, the
            drawn checkpoint intervals); reset to 0 when nothing is random.
        checkpoint_grace: the checkpoint grace, preempt and reclaim alike (``checkpoint-aware``
            only; default 10m, 0 turns it off).
        max_evictions: the eviction budget per job (``checkpoint-aware`` only; ``None``: no
            budget).
        eviction_window: the window of the budget (never: a job's whole life).
        rank_unsaved: ``checkpoint-aware`` only: take victims by least unsaved work
            (:meth:`minruntime.Session.rank_victims`, as the ``least-unsaved`` order does)
            instead of ``victim_order``, which stays the order the run is compared within.
        job_request: ``checkpoint-aware`` only: the size-aware per-job request, in GPU-seconds:
            each job asks for a min-runtime of ``job_request`` over its GPUs
            (``JobInputs.requested_min_runtime``, whole seconds rounded up), allowed up to
            ``request_cap``; ``None`` (the default): jobs request nothing.
        request_cap: the queues' ``max_job_min_runtime`` when jobs request a min-runtime
            (default 2h; reset to it when they request none).

    Queue-level min-runtime settings come from the workload's tree; these defaults apply where
    no queue sets a value. Settings a policy does not use are reset (the grace to 0, the budget
    to none; the min-runtimes to 0 for ``none``), so equal runs have equal settings.

    >>> settings = Settings(reclaim_min_runtime=MinRuntime("30m"))
    >>> settings.config().default_reclaim_min_runtime, settings.label
    (MinRuntime('30m'), 'reclaim=30m preempt=0s checkpoint=drawn order=reference seed=0')
    >>> aware = Settings(reclaim_min_runtime="30m", policy="checkpoint-aware", max_evictions=3,
    ...                  victim_order="least-unsaved", checkpoint_interval=600)
    >>> aware.label
    'reclaim=30m preempt=0s checkpoint=10m order=least-unsaved policy=checkpoint-aware grace=10m budget=3'
    >>> Settings(reclaim_min_runtime="30m", policy="none", victim_order="random", seed=7,
    ...          checkpoint_costs=False).label
    'reclaim=0s preempt=0s checkpoint=none order=random seed=7 policy=none'
    >>> Settings(checkpoint_interval=600, checkpoint_costs=False).label
    'reclaim=0s preempt=0s checkpoint=10m/free order=reference'
    >>> evidence = Settings(reclaim_min_runtime="30m", policy="checkpoint-aware",
    ...                     rank_unsaved=True, job_request=8 * 3600)
    >>> evidence.label
    'reclaim=30m preempt=0s checkpoint=drawn order=reference seed=0 policy=checkpoint-aware grace=10m rank=unsaved request=8h/2h'
    >>> evidence.ranked_order, evidence.requested_min_runtime(gpus=16)
    (<VictimOrder.LEAST_UNSAVED: 'least-unsaved'>, MinRuntime('30m'))
    """

    preempt_min_runtime: MinRuntime = attrs.field(default=MinRuntime.ZERO, converter=_to_preempt)
    reclaim_min_runtime: MinRuntime = attrs.field(default=MinRuntime.ZERO, converter=_to_reclaim)
    reclaim_resolve_method: str = attrs.field(default="lca", validator=_check_resolve_method)
    checkpoint_interval: int | None = None
    restart_overhead: int = DEFAULT_RESTART_OVERHEAD
    legacy_priority_threshold: int = LEGACY_PRIORITY_THRESHOLD
    policy: str = attrs.field(default="min-runtime", validator=_check_policy)
    checkpoint_grace: MinRuntime = attrs.field(
        default=DEFAULT_CHECKPOINT_GRACE, converter=_to_grace
    )
    max_evictions: int | None = None
    eviction_window: MinRuntime = attrs.field(default=MinRuntime.NEVER, converter=_to_window)
    victim_order: VictimOrder = attrs.field(default=VictimOrder.REFERENCE, converter=_to_order)
    seed: int = 0
    save_on_preempt: int | None = None
    checkpoint_costs: bool = True
    rank_unsaved: bool = False
    job_request: int | None = None
    request_cap: MinRuntime = attrs.field(default=DEFAULT_REQUEST_CAP, converter=_to_cap)

    def __attrs_post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InvalidSetting(f"seed must be an integer, got {self.seed!r}")
        if not isinstance(self.checkpoint_costs, bool):
            raise InvalidSetting(
                f"checkpoint_costs must be True or False, got {self.checkpoint_costs!r}"
            )
        if not self.seeded:
            object.__setattr__(self, "seed", 0)  # unused: equal runs have equal settings
        budget = self.max_evictions
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, int) or budget < 0
        ):
            raise InvalidSetting(f"max_evictions must be None or an integer >= 0, got {budget!r}")
        if not isinstance(self.rank_unsaved, bool):
            raise InvalidSetting(f"rank_unsaved must be True or False, got {self.rank_unsaved!r}")
        request = self.job_request
        if request is not None and (
            isinstance(request, bool) or not isinstance(request, int) or request < 1
        ):
            raise InvalidSetting(f"job_request must be None or GPU-seconds >= 1, got {request!r}")
        if self.policy != "checkpoint-aware":
            object.__setattr__(self, "checkpoint_grace", MinRuntime.ZERO)
            object.__setattr__(self, "max_evictions", None)
            object.__setattr__(self, "eviction_window", MinRuntime.NEVER)
            object.__setattr__(self, "rank_unsaved", False)
            object.__setattr__(self, "job_request", None)
        elif budget is None:
            object.__setattr__(self, "eviction_window", MinRuntime.NEVER)
        if self.job_request is None:  # unused: equal runs have equal settings
            object.__setattr__(self, "request_cap", DEFAULT_REQUEST_CAP)
        if self.policy == "none":
            object.__setattr__(self, "preempt_min_runtime", MinRuntime.ZERO)
            object.__setattr__(self, "reclaim_min_runtime", MinRuntime.ZERO)
        interval = self.checkpoint_interval
        if interval is not None and (
            isinstance(interval, bool) or not isinstance(interval, int) or interval < 1
        ):
            raise InvalidSetting(
                f"checkpoint_interval must be None or seconds >= 1, got {interval!r}"
            )
        overhead = self.restart_overhead
        if isinstance(overhead, bool) or not isinstance(overhead, int) or overhead < 0:
            raise InvalidSetting(f"restart_overhead must be seconds >= 0, got {overhead!r}")
        save = self.save_on_preempt
        if save is not None and (isinstance(save, bool) or not isinstance(save, int) or save < 0):
            raise InvalidSetting(f"save_on_preempt must be None or seconds >= 0, got {save!r}")

    @property
    def draws_intervals(self) -> bool:
        """Whether jobs without a checkpoint interval draw one (checkpoint costs on, no
        interval for the run)."""
        return self.checkpoint_costs and self.checkpoint_interval is None

    @property
    def seeded(self) -> bool:
        """Whether anything in the run is random: the ``random`` victim order or drawn
        checkpoint intervals (then ``seed`` matters)."""
        return self.victim_order is VictimOrder.RANDOM or self.draws_intervals

    @property
    def checkpoint_aware(self) -> bool:
        """Whether the run uses the checkpoint-aware policy."""
        return self.policy == "checkpoint-aware"

    @property
    def ranked_order(self) -> VictimOrder:
        """The order victims are taken in: ``least-unsaved`` when the run ranks by unsaved
        work (``rank_unsaved``), else ``victim_order``."""
        return VictimOrder.LEAST_UNSAVED if self.rank_unsaved else self.victim_order

    def requested_min_runtime(self, gpus: int) -> MinRuntime | None:
        """The min-runtime a job of ``gpus`` GPUs requests: ``job_request`` over its GPUs,
        whole seconds rounded up (the queues' cap applies in the library), or ``None``.

        >>> request = Settings(policy="checkpoint-aware", job_request=8 * 3600)
        >>> [str(request.requested_min_runtime(gpus)) for gpus in (1, 8, 64)]
        ['8h', '1h', '7m30s']
        """
        if self.job_request is None:
            return None
        return MinRuntime(-(-self.job_request // gpus))

    def config(self) -> Config:
        """The library configuration these settings stand for."""
        return Config(
            default_preempt_min_runtime=self.preempt_min_runtime,
            default_reclaim_min_runtime=self.reclaim_min_runtime,
            reclaim_resolve_method=self.reclaim_resolve_method,
            protections=ProtectionSettings(
                preempt_checkpoint_grace=self.checkpoint_grace,
                reclaim_checkpoint_grace=self.checkpoint_grace,
                max_evictions=self.max_evictions,
                eviction_window=self.eviction_window,
                max_job_min_runtime=self.request_cap if self.job_request else None,
            ),
        )

    def tree(self, tree: QueueTree) -> QueueTree:
        """The queue tree a run under these settings uses.

        ``none`` drops every queue-level setting; ``min-runtime`` keeps the min-runtimes and
        drops the checkpoint-aware ones; ``checkpoint-aware`` keeps the tree as it is.

        >>> budget = ProtectionSettings(max_evictions=2)
        >>> tree = QueueTree([Queue("a", reclaim_min_runtime="1h", protections=budget)])
        >>> queue = Settings(policy="none").tree(tree)["a"]
        >>> queue.reclaim_min_runtime, bool(queue.protections)
        (None, False)
        >>> queue = Settings().tree(tree)["a"]
        >>> queue.reclaim_min_runtime, bool(queue.protections)
        (MinRuntime('1h'), False)
        """
        if self.checkpoint_aware:
            return tree
        plain = self.policy == "none"
        return QueueTree(
            [
                Queue(
                    name,
                    tree[name].parent,
                    None if plain else tree[name].preempt_min_runtime,
                    None if plain else tree[name].reclaim_min_runtime,
                )
                for name in tree
            ]
        )

    @property
    def budget(self) -> str:
        """The eviction budget as text: ``"off"``, ``"3"`` (ever) or ``"3/1d"`` (per window)."""
        if self.max_evictions is None:
            return "off"
        if self.eviction_window.is_never:
            return str(self.max_evictions)
        return f"{self.max_evictions}/{self.eviction_window}"

    @property
    def label(self) -> str:
        """A short name for tables: the min-runtimes, the checkpoint interval (``drawn`` per
        job; ``/free`` when checkpoint costs are off), the victim order, the seed when
        anything is random, and the policy (named unless it is ``min-runtime``)."""
        interval = self.checkpoint_interval
        if interval is None:
            checkpoint = "drawn" if self.checkpoint_costs else "none"
        else:
            checkpoint = str(MinRuntime(interval)) + ("" if self.checkpoint_costs else "/free")
        label = (
            f"reclaim={self.reclaim_min_runtime} preempt={self.preempt_min_runtime} "
            f"checkpoint={checkpoint} order={self.victim_order}"
        )
        if self.seeded:
            label += f" seed={self.seed}"
        if self.save_on_preempt is not None:
            label += f" save={MinRuntime(self.save_on_preempt)}"
        if self.policy != "min-runtime":
            label += f" policy={self.policy}"
        if self.checkpoint_aware:
            label += f" grace={self.checkpoint_grace}"
            if self.max_evictions is not None:
                label += f" budget={self.budget}"
            if self.rank_unsaved:
                label += " rank=unsaved"
            if self.job_request is not None:
                label += f" request={self.request}"
        return label

    @property
    def request(self) -> str:
        """The per-job request as text: ``"off"``, or GPU-time over the cap (``"8h/2h"``:
        8 GPU-hours over the job's GPUs, at most 2h).

        >>> Settings(policy="checkpoint-aware", job_request=8 * 3600).request
        '8h/2h'
        """
        if self.job_request is None:
            return "off"
        return f"{MinRuntime(self.job_request)}/{self.request_cap}"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        """Read back what :meth:`to_dict` wrote (a results file of ``--json``).

        The fields added after the first results files (``rank_unsaved``, ``job_request``,
        ``request_cap``) may be missing: they take their defaults.

        Raises:
            InvalidSetting: for a value :class:`Settings` refuses.
            KeyError: for another field :meth:`to_dict` writes that ``data`` lacks.

        >>> settings = Settings(reclaim_min_runtime="30m", policy="checkpoint-aware")
        >>> Settings.from_dict(settings.to_dict()) == settings
        True
        """
        return cls(
            reclaim_min_runtime=data["reclaim_min_runtime"],
            preempt_min_runtime=data["preempt_min_runtime"],
            reclaim_resolve_method=data["reclaim_resolve_method"],
            checkpoint_interval=data["checkpoint_interval"],
            restart_overhead=data["restart_overhead"],
            legacy_priority_threshold=data["legacy_priority_threshold"],
            policy=data["policy"],
            checkpoint_grace=data["checkpoint_grace"],
            max_evictions=data["max_evictions"],
            eviction_window=data["eviction_window"],
            victim_order=data["victim_order"],
            seed=data["seed"],
            save_on_preempt=data["save_on_preempt"],
            checkpoint_costs=data["checkpoint_costs"],
            rank_unsaved=data.get("rank_unsaved", False),
            job_request=data.get("job_request"),
            request_cap=data.get("request_cap", DEFAULT_REQUEST_CAP),
        )

    def to_dict(self) -> dict[str, object]:
        """The settings as JSON-ready values (durations in their canonical text)."""
        return {
            "reclaim_min_runtime": str(self.reclaim_min_runtime),
            "preempt_min_runtime": str(self.preempt_min_runtime),
            "reclaim_resolve_method": self.reclaim_resolve_method,
            "checkpoint_interval": self.checkpoint_interval,
            "restart_overhead": self.restart_overhead,
            "legacy_priority_threshold": self.legacy_priority_threshold,
            "policy": self.policy,
            "checkpoint_grace": str(self.checkpoint_grace),
            "max_evictions": self.max_evictions,
            "eviction_window": str(self.eviction_window),
            "victim_order": str(self.victim_order),
            "seed": self.seed,
            "save_on_preempt": self.save_on_preempt,
            "checkpoint_costs": self.checkpoint_costs,
            "rank_unsaved": self.rank_unsaved,
            "job_request": self.job_request,
            "request_cap": str(self.request_cap),
        }


def ceil_seconds(ns: int) -> int:
    """Whole seconds at or after an instant given in nanoseconds."""
    return -(-ns // SECOND_NS)

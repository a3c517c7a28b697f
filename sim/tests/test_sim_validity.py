"""The simulator's validity checks, and two cross-checks against answers computed another way.

Validity, on random small workloads under every victim order and policy, with and without
saving on eviction, with checkpoint costs on and off, on one node or several, with and without
queue limits and weights: capacity is never exceeded (the cluster's, and each node's), no queue
ever holds more than its limit, an eviction gives back the GPUs on the nodes the victim held,
busy GPU-seconds are conserved (the area under busy GPUs, and exactly the work plus the lost work
plus the checkpoint work, elastic jobs included), no job starts before it is submitted, every job
completes or is reported unschedulable, and no job is evicted whole before its protection ends.
Cross-checks: FIFO on one queue equals an independent first-fit computation on nodes job by job,
and an M/M/c queue's mean wait matches Erlang C within the simulation's confidence interval.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
import statistics
from collections import Counter, defaultdict

import attrs
from hypothesis import event, given, settings, target
from hypothesis import strategies as st

from minruntime import MinRuntime, Queue, QueueTree
from minruntime_sim import (
    JobSpec,
    Settings,
    SimulationResult,
    VictimOrder,
    Workload,
    simulate,
    synthetic_workload,
)

CHECKS = settings(max_examples=25, deadline=None)


def contended(seed: int) -> Workload:
    """14 jobs on 8 GPUs in 3 queues: elastic, semi-preemptible and gang jobs that contend."""
    return synthetic_workload(
        seed=seed, jobs=14, queues=3, total_gpus=8, max_gpus=4, mean_gap=200, checkpoints=0.3
    )


def never_runs(workload: Workload, spec: JobSpec) -> bool:
    """Whether a job can never start: its minimum exceeds the cluster or a limit on its path."""
    limits = [workload.limits[q] for q in workload.tree.path(spec.queue) if q in workload.limits]
    return spec.need > workload.total_gpus or spec.need > min(limits, default=math.inf)


def check_placements(workload: Workload, result: SimulationResult) -> tuple[dict[str, int], int]:
    """Replay every change of GPUs on a node: no node ever has more GPUs in use than it holds,
    no job gives back GPUs it does not hold on that node, no queue (with its children) ever
    holds more than its limit, every eviction gives back exactly the victim's evicted tasks,
    and at the end nothing is held. Returns the most GPUs each limited queue held and the most
    nodes any one job spanned (for the statistics)."""
    capacity = workload.node_inventory
    used = [0] * len(capacity)
    held: Counter[tuple[str, int]] = Counter()
    queue_of = {job.id: job.queue for job in workload.jobs}
    in_queue: Counter[str] = Counter()
    given_back: Counter[tuple[int, str]] = Counter()
    widest = 0
    peaks: defaultdict[str, int] = defaultdict(int)
    for time, job, node, change in result.placements:
        used[node] += change
        held[(job, node)] += change
        assert 0 <= used[node] <= capacity[node], (time, job, node, used[node])
        assert held[(job, node)] >= 0, (time, job, node)
        for queue in workload.tree.path(queue_of[job]):
            in_queue[queue] += change
            if queue in workload.limits:
                assert in_queue[queue] <= workload.limits[queue], (time, queue, in_queue[queue])
                peaks[queue] = max(peaks[queue], in_queue[queue])
        if change < 0:
            given_back[(time, job)] -= change
        widest = max(widest, sum(1 for (j, _), count in held.items() if j == job and count))
    assert all(count == 0 for count in used)
    evicted: Counter[tuple[int, str]] = Counter()
    for record in result.evictions:
        evicted[(record.time, record.job)] += record.tasks
    for (time, job), tasks in evicted.items():
        assert given_back[(time, job)] == tasks, (time, job)
    return dict(peaks), widest


def check_validity(workload: Workload, result: SimulationResult) -> None:
    """Every validity check of one run (the assertions name what broke)."""
    total = workload.total_gpus
    usage = result.usage
    # capacity: never more GPUs busy than the cluster has; the step function ends idle
    assert all(0 <= busy <= total for _, busy in usage)
    assert [time for time, _ in usage] == sorted({time for time, _ in usage})
    if usage:
        assert usage[-1][1] == 0
    # conservation: the area under busy GPUs is the busy GPU-seconds the metrics report
    area = sum(busy * (end - start) for (start, busy), (end, _) in itertools.pairwise(usage))
    assert area == result.metrics.busy_gpu_seconds
    # ... and every busy GPU-second is work, lost work or checkpoint work; an elastic job may
    # also run part of its last second on fewer GPUs than it holds (less than one second each)
    finished = {outcome.id for outcome in result.jobs if outcome.finish is not None}
    work = sum(job.work for job in workload.jobs if job.id in finished)
    metrics = result.metrics
    rounding = metrics.busy_gpu_seconds - (
        work + metrics.lost_gpu_seconds + metrics.checkpoint_gpu_seconds
    )
    assert 0 <= rounding < sum(job.gpus for job in workload.jobs if job.elastic) + 1
    assert all(job.checkpoint_gpu_seconds >= 0 for job in result.jobs)
    assert all(job.lost_gpu_seconds >= job.restart_gpu_seconds >= 0 for job in result.jobs)
    check_placements(workload, result)
    specs = {job.id: job for job in workload.jobs}
    for outcome in result.jobs:
        spec = specs[outcome.id]
        if never_runs(workload, spec):  # reported unschedulable, never started
            assert (outcome.first_start, outcome.finish) == (None, None)
            continue
        # no start before submission; every schedulable job completes, after running long enough
        assert outcome.first_start is not None
        assert outcome.finish is not None
        assert spec.submit <= outcome.first_start < outcome.finish
        assert outcome.finish - outcome.first_start >= -(-spec.work // spec.gpus)
    unschedulable = sum(1 for job in workload.jobs if never_runs(workload, job))
    assert (result.metrics.completed, result.metrics.unschedulable) == (
        len(workload.jobs) - unschedulable,
        unschedulable,
    )
    # protection: a job evicted whole had run at least the min-runtime that applied
    for record in result.evictions:
        min_runtime = MinRuntime(record.min_runtime)
        assert not min_runtime.is_never
        if record.full and record.preemptibility != "semi-preemptible":
            assert record.ran * 10**9 >= (min_runtime.nanoseconds or 0)


LAYOUTS = [(), (4, 4), (2, 2, 4), (2, 2, 2, 2)]
"""The 8 GPUs of :func:`contended` on one node, or on several (equal and mixed sizes)."""

QUOTAS = {
    "flat": {},
    "limited": {"limits": {"q0": 3, "root": 7}, "over_quota_weights": {"q1": 3, "q2": 0}},
    "parent quota": {"deserved": {"root": 8, "q0": 4}, "limits": {"q2": 2}},
}
"""Queue settings on top of :func:`contended`'s equal deserved quotas: limits on a leaf and on
the parent with unequal weights, or a quota on the parent with one leaf's own quota in it."""


def arranged(seed: int, layout: tuple[int, ...], quotas: str) -> Workload:
    """:func:`contended` on the nodes of ``layout`` with the queue settings named ``quotas``."""
    workload = contended(seed)
    extra = QUOTAS[quotas]
    deserved = {**workload.deserved, **extra.get("deserved", {})}
    if "deserved" in extra:
        deserved = {name: share for name, share in deserved.items() if name in ("root", "q0")}
    return attrs.evolve(
        workload,
        nodes=layout,
        deserved=deserved,
        limits=extra.get("limits", {}),
        over_quota_weights=extra.get("over_quota_weights", {}),
    )


@CHECKS
@given(
    seed=st.integers(0, 10_000),
    order=st.sampled_from(list(VictimOrder)),
    policy=st.sampled_from(["none", "min-runtime", "checkpoint-aware"]),
    reclaim=st.sampled_from(["0s", "10m", "1h"]),
    interval=st.sampled_from([None, 600]),
    save=st.sampled_from([None, 20]),
    costs=st.booleans(),
    layout=st.sampled_from(LAYOUTS),
    quotas=st.sampled_from(sorted(QUOTAS)),
)
def test_every_run_passes_the_validity_checks(
    seed: int,
    order: VictimOrder,
    policy: str,
    reclaim: str,
    interval: int | None,
    save: int | None,
    costs: bool,
    layout: tuple[int, ...],
    quotas: str,
) -> None:
    """Law: whatever the order, policy, settings, nodes and queue quotas, every validity check
    holds (each node's capacity and each queue's limit among them)."""
    workload = arranged(seed, layout, quotas)
    result = simulate(
        workload,
        Settings(
            policy=policy,
            reclaim_min_runtime=reclaim,
            preempt_min_runtime="5m",
            checkpoint_interval=interval,
            restart_overhead=30,
            victim_order=order,
            seed=seed,
            save_on_preempt=save,
            checkpoint_costs=costs,
        ),
    )

    check_validity(workload, result)
    peaks, widest = check_placements(workload, result)
    event(f"evicted: {bool(result.evictions)}")  # the checks bite: most runs evict
    held = any(  # the protection check bites: a job evicted whole once a min-runtime applied
        record.full
        and record.preemptibility != "semi-preemptible"
        and (MinRuntime(record.min_runtime).nanoseconds or 0) > 0
        for record in result.evictions
    )
    event(f"a job evicted whole after a min-runtime above 0: {held}")
    stuck = sum(1 for job in workload.jobs if never_runs(workload, job))
    event(f"a job that never runs: {stuck > 0}")
    target(float(stuck), label="jobs that never run")  # their check: reported, never started
    event(f"checkpointed: {bool(result.metrics.checkpoint_gpu_seconds)}")
    event(f"a gang spanned nodes: {widest > 1}")
    for queue, limit in sorted(workload.limits.items()):  # the limits bite: they are reached
        event(f"{quotas}: {queue} reached its limit {limit}: {peaks.get(queue, 0) == limit}")
        target(float(peaks.get(queue, 0)) / limit, label=f"{quotas}: {queue} held / limit")


def test_the_validity_workloads_do_evict() -> None:
    """The property's workloads are not vacuous: each of the first 10 seeds evicts under the
    default settings (the property's statistics show about 85% of its runs evict)."""
    evicting = [seed for seed in range(10) if simulate(contended(seed)).evictions]
    assert evicting == list(range(10))


# -- FIFO on one queue against an independent first-fit computation --------------------------


def one_queue(name: str, jobs: list[JobSpec], nodes: tuple[int, ...]) -> Workload:
    """One queue ``q`` that deserves the whole cluster, on nodes of these GPUs."""
    total = sum(nodes)
    return Workload(
        name=name,
        jobs=jobs,
        tree=QueueTree([Queue("q")]),
        deserved={"q": total},
        total_gpus=total,
        nodes=nodes,
    )


def place_on(free: list[int], capacity: tuple[int, ...], gpus: int) -> list[int] | None:
    """The nodes (with repeats, one entry per GPU) a gang of ``gpus`` goes to under the
    documented placement rule, written apart from the simulator: the node with the fewest free
    GPUs that holds it all (lowest index on a tie); else the largest wholly free node (lowest
    index on a tie), taken entirely, and the rest placed the same way."""
    holding = [i for i, count in enumerate(free) if count >= gpus]
    if holding:
        node = min(holding, key=lambda i: (free[i], i))
        return [node] * gpus
    empty = [i for i, count in enumerate(free) if count and count == capacity[i]]
    if not empty:
        return None
    node = max(empty, key=lambda i: (capacity[i], -i))
    rest = place_on(
        [0 if i == node else count for i, count in enumerate(free)], capacity, gpus - capacity[node]
    )
    return None if rest is None else [node] * capacity[node] + rest


def first_fit(
    jobs: list[JobSpec], capacity: tuple[int, ...], fragmented: list[str] | None = None
) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """(start, finish, nodes) of each job when, at every instant, the first pending job in
    submission order that can be placed on the nodes starts, again and again until none can:
    written apart from the simulator, as a reference. ``fragmented`` collects the jobs that
    could not be placed at some instant though enough GPUs were free in all."""
    pending = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
    arrivals = [jobs[i].submit for i in pending]
    running: list[tuple[int, int, list[int]]] = []  # (finish, index, nodes of its GPUs)
    waiting: list[int] = []
    free = list(capacity)
    times: dict[str, tuple[int, int, tuple[int, ...]]] = {}
    next_arrival = 0
    while next_arrival < len(pending) or running:
        now = min(
            arrivals[next_arrival] if next_arrival < len(pending) else math.inf,
            running[0][0] if running else math.inf,
        )
        assert isinstance(now, int)
        while running and running[0][0] == now:
            for node in heapq.heappop(running)[2]:
                free[node] += 1
        while next_arrival < len(pending) and arrivals[next_arrival] == now:
            waiting.append(pending[next_arrival])
            next_arrival += 1
        started = True
        while started:
            started = False
            for i in waiting:
                nodes = place_on(free, capacity, jobs[i].gpus)
                if nodes is None and sum(free) >= jobs[i].gpus and fragmented is not None:
                    fragmented.append(jobs[i].id)
                if nodes is not None:
                    for node in nodes:
                        free[node] -= 1
                    finish = now + jobs[i].run_time
                    times[jobs[i].id] = (now, finish, tuple(sorted(set(nodes))))
                    heapq.heappush(running, (finish, i, nodes))
                    waiting.remove(i)
                    started = True
                    break
    return times


@settings(max_examples=40, deadline=None)
@given(
    specs=st.lists(
        st.tuples(st.integers(0, 100), st.integers(1, 400), st.integers(1, 12)),
        min_size=1,
        max_size=25,
    ),
    nodes=st.sampled_from([(4, 4), (8,), (4, 2, 2), (2, 4, 4), (8, 8), (1, 1, 1, 1, 1)]),
)
def test_fifo_on_one_queue_matches_an_independent_first_fit(
    specs: list[tuple[int, int, int]], nodes: tuple[int, ...]
) -> None:
    """Law: one queue, one priority, gangs, on nodes: every job starts and finishes when
    first-fit in submission order says, on the nodes it says (jobs larger than the cluster
    never start)."""
    total = sum(nodes)
    jobs = [
        JobSpec(id=f"j{i}", queue="q", submit=submit, run_time=run, gpus=gpus)
        for i, (submit, run, gpus) in enumerate(specs)
    ]
    workload = one_queue("fifo", jobs, nodes)

    result = simulate(workload, Settings(checkpoint_costs=False))  # first-fit has no checkpoints

    fragmented: list[str] = []
    expected = first_fit([job for job in jobs if job.gpus <= total], nodes, fragmented)
    on: defaultdict[str, set[int]] = defaultdict(set)
    for _, job, node, change in result.placements:
        if change > 0:
            on[job].add(node)
    got = {
        o.id: (o.first_start, o.finish, tuple(sorted(on[o.id])))
        for o in result.jobs
        if o.first_start is not None
    }
    assert got == expected
    assert result.evictions == ()
    waited = sum(1 for o in result.jobs if o.first_start is not None and o.first_start > o.submit)
    event(f"some job waited: {waited > 0}")
    event(f"some gang spanned nodes: {any(len(nodes) > 1 for *_, nodes in expected.values())}")
    event(f"some job waited though enough GPUs were free in all: {bool(fragmented)}")


# -- M/M/c against Erlang C -------------------------------------------------------------------


def erlang_c_wait(servers: int, arrival_rate: float, service_rate: float) -> float:
    """The mean wait in queue of an M/M/c queue (Erlang C): P(wait) / (c mu - lambda)."""
    offered = arrival_rate / service_rate
    rho = offered / servers
    terms = sum(offered**k / math.factorial(k) for k in range(servers))
    last = offered**servers / math.factorial(servers) / (1 - rho)
    probability = last / (terms + last)
    return probability / (servers * service_rate - arrival_rate)


def test_an_m_m_c_queue_waits_as_erlang_c_says() -> None:
    """2 GPUs, one-GPU jobs, Poisson arrivals and exponential run times (mean 600 s) at 60% load:
    Erlang C gives a mean wait of 337.5 s. The simulated mean over 30,000 jobs (the first 3,000
    dropped as warm-up), 347.3 s with a 95% interval of +-35.6 s from 20 batch means, contains
    it; the interval is narrow enough (under 15% of the value) for the check to mean something.
    (Over seeds 0-5, all 6 intervals contain it.) Two servers rather than eight: at the same
    relative precision an 8-server queue at 75% load needs 100,000 jobs (five times the run),
    since its waits are rarer and burstier; two servers still queue as Erlang C says and not
    as one server or two separate queues would."""
    servers, mean_run, load = 2, 600.0, 0.6
    arrival_rate = load * servers / mean_run
    draw = random.Random(0)
    clock, jobs = 0.0, []
    for i in range(30_000):
        clock += draw.expovariate(arrival_rate)
        run = max(1, round(draw.expovariate(1 / mean_run)))
        jobs.append(JobSpec(id=f"m{i:06d}", queue="q", submit=round(clock), run_time=run, gpus=1))
    workload = one_queue("mmc", jobs, (1,) * servers)  # one node per server

    costs_off = Settings(checkpoint_costs=False)  # run times are service times, as in the model
    waits = [outcome.pending_time for outcome in simulate(workload, costs_off).jobs][3_000:]
    batches = [statistics.fmean(waits[k : k + 1_350]) for k in range(0, len(waits), 1_350)]
    mean = statistics.fmean(batches)
    half_width = 2.093 * statistics.stdev(batches) / math.sqrt(len(batches))  # t(0.975, 19)
    expected = erlang_c_wait(servers, arrival_rate, 1 / mean_run)

    assert round(expected, 1) == 337.5
    assert len(batches) == 20
    assert mean - half_width <= expected <= mean + half_width
    assert (round(mean, 1), round(half_width, 1)) == (347.3, 35.6)
    assert half_width < 0.15 * expected

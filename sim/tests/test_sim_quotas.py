"""Queue quotas as the reference scheduler has them: fair shares with exact values, reclaim that
stops at the fair share, limits that block a start, and a parent's quota that never becomes a
queue of its own or adds GPUs to the cluster."""

from __future__ import annotations

from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import Queue, QueueTree
from minruntime_sim import JobSpec, Settings, Workload, read_csv, simulate
from minruntime_sim.quotas import fair_shares

TWO = QueueTree([Queue("a"), Queue("b")])


def test_each_queue_gets_its_deserved_quota_then_the_surplus_by_weight() -> None:
    assert fair_shares(TWO, 10, deserved={"a": 2, "b": 2}, demand={"a": 10, "b": 10}) == {
        "a": 5,
        "b": 5,
    }
    assert fair_shares(
        TWO, 10, deserved={"a": 2, "b": 2}, weights={"a": 3}, demand={"a": 10, "b": 10}
    ) == {"a": 7, "b": 3}


def test_a_queue_never_gets_more_than_it_asks_for_or_its_limit() -> None:
    """What a queue does not ask for goes to the others; a limit caps what it asks for."""
    assert fair_shares(TWO, 10, deserved={"a": 5, "b": 5}, demand={"a": 1, "b": 20}) == {
        "a": 1,
        "b": 9,
    }
    assert fair_shares(
        TWO, 10, deserved={"a": 5, "b": 5}, limits={"b": 6}, demand={"a": 1, "b": 20}
    ) == {"a": 1, "b": 6}


def test_a_weight_of_zero_gets_no_surplus() -> None:
    assert fair_shares(
        TWO, 10, deserved={"a": 2, "b": 2}, weights={"a": 0}, demand={"a": 10, "b": 10}
    ) == {"a": 2, "b": 8}


def test_children_share_their_parents_fair_share() -> None:
    """p deserves 6 of 10, z 4; within p, x deserves 1 and y 0, so x gets 1 and then half of
    the remaining 5 each, rounded: x 1 + 2 + the odd GPU (the larger fraction, then the name),
    y 2."""
    tree = QueueTree([Queue("p"), Queue("x", "p"), Queue("y", "p"), Queue("z")])

    shares = fair_shares(
        tree, 10, deserved={"p": 6, "x": 1, "z": 4}, demand={"x": 9, "y": 9, "z": 9}
    )

    assert shares == {"p": 6, "x": 4, "y": 2, "z": 4}


def test_quotas_larger_than_the_cluster_are_given_as_the_reference_scheduler_does() -> None:
    """Deserved quotas are given first even when they add up to more than the cluster (the
    reference scheduler's ``setDeservedResource``): nothing is left to share."""
    assert fair_shares(TWO, 4, deserved={"a": 3, "b": 3}, demand={"a": 9, "b": 9}) == {
        "a": 3,
        "b": 3,
    }


@given(
    deserved=st.dictionaries(st.sampled_from("abc"), st.integers(0, 8)),
    weights=st.dictionaries(st.sampled_from("abc"), st.integers(0, 3)),
    limits=st.dictionaries(st.sampled_from("abc"), st.integers(0, 12)),
    demand=st.dictionaries(st.sampled_from("abc"), st.integers(0, 12)),
    total=st.integers(1, 24),
)
def test_fair_shares_never_exceed_asks_or_limits_and_use_the_cluster(
    deserved: dict[str, int],
    weights: dict[str, int],
    limits: dict[str, int],
    demand: dict[str, int],
    total: int,
) -> None:
    """Law: a queue's fair share never exceeds what it asks for (capped by its limit); when the
    deserved quotas fit in the cluster, the shares use the whole cluster or satisfy every queue
    that can take more."""
    tree = QueueTree([Queue(name) for name in "abc"])

    shares = fair_shares(
        tree, total, deserved=deserved, weights=weights, limits=limits, demand=demand
    )

    asks = {q: min(demand.get(q, 0), limits.get(q, 10**9)) for q in "abc"}
    assert all(0 <= shares[q] <= asks[q] for q in "abc")
    if sum(min(deserved.get(q, 0), asks[q]) for q in "abc") <= total:
        hungry = [q for q in "abc" if shares[q] < asks[q] and weights.get(q, 1) > 0]
        assert sum(shares.values()) == total or not hungry
        event(f"the cluster is shared out: {sum(shares.values()) == total}")


# -- in the simulator --------------------------------------------------------------------------


def test_a_reclaim_stops_at_the_fair_share() -> None:
    """4 GPUs, a and b deserve 2 each. a runs four 1-GPU jobs from 0; at 10 b asks for three:
    both fair shares are 2, so b reclaims two GPUs (a's latest submitted jobs) and its third job
    waits; a keeps its fair share."""
    jobs = [JobSpec(id=f"a{i}", queue="a", submit=i, run_time=1000, gpus=1) for i in range(4)] + [
        JobSpec(id=f"b{i}", queue="b", submit=10, run_time=100, gpus=1) for i in range(3)
    ]
    workload = Workload(name="fair", tree=TWO, deserved={"a": 2, "b": 2}, total_gpus=4, jobs=jobs)

    result = simulate(workload, Settings(restart_overhead=0))

    assert [(e.time, e.job, e.action, e.preemptor) for e in result.evictions] == [
        (10, "a3", "reclaim", "b0"),
        (10, "a2", "reclaim", "b1"),
    ]
    starts = {job.id: job.first_start for job in result.jobs}
    assert (starts["b0"], starts["b1"], starts["b2"]) == (10, 10, 110)


def test_an_over_quota_weight_moves_the_fair_share() -> None:
    """The same workload with a deserving 1 and b 1, b's over-quota weight 3: b's fair share
    is 3 of 4, so it reclaims three GPUs and all its jobs start at 10."""
    jobs = [JobSpec(id=f"a{i}", queue="a", submit=i, run_time=1000, gpus=1) for i in range(4)] + [
        JobSpec(id=f"b{i}", queue="b", submit=10, run_time=100, gpus=1) for i in range(3)
    ]
    workload = Workload(
        name="weighted",
        tree=TWO,
        deserved={"a": 1, "b": 1},
        over_quota_weights={"b": 3},
        total_gpus=4,
        jobs=jobs,
    )

    result = simulate(workload, Settings(restart_overhead=0))

    assert [e.job for e in result.evictions] == ["a3", "a2", "a1"]
    assert [job.first_start for job in result.jobs if job.queue == "b"] == [10, 10, 10]


def test_a_limit_blocks_a_start_though_gpus_are_free() -> None:
    """4 GPUs; a's limit is 2. a1 (2 GPUs) starts at 0; a2 (1 GPU) waits for it to end at 100
    though 2 GPUs are free; a3 (3 GPUs, over the limit) never runs: unschedulable."""
    jobs = [
        JobSpec(id="a1", queue="a", submit=0, run_time=100, gpus=2),
        JobSpec(id="a2", queue="a", submit=0, run_time=100, gpus=1),
        JobSpec(id="a3", queue="a", submit=0, run_time=100, gpus=3),
    ]
    workload = Workload(
        name="limited", tree=TWO, deserved={"a": 4}, limits={"a": 2}, total_gpus=4, jobs=jobs
    )

    result = simulate(workload)

    assert [(job.id, job.first_start, job.finish) for job in result.jobs] == [
        ("a1", 0, 100),
        ("a2", 100, 200),
        ("a3", None, None),
    ]
    assert result.metrics.unschedulable == 1


def test_a_parents_limit_holds_its_children_together() -> None:
    """p (limit 3) holds x and y: x1 (2 GPUs) starts at 0, y1 (2) waits for it; z1 (2),
    outside p, starts at once."""
    tree = QueueTree([Queue("p"), Queue("x", "p"), Queue("y", "p"), Queue("z")])
    jobs = [
        JobSpec(id="x1", queue="x", submit=0, run_time=100, gpus=2),
        JobSpec(id="y1", queue="y", submit=0, run_time=100, gpus=2),
        JobSpec(id="z1", queue="z", submit=0, run_time=100, gpus=2),
    ]
    workload = Workload(
        name="parent limit",
        tree=tree,
        deserved={"p": 4, "z": 4},
        limits={"p": 3},
        total_gpus=8,
        jobs=jobs,
    )

    assert [(job.id, job.first_start) for job in simulate(workload).jobs] == [
        ("x1", 0),
        ("y1", 100),
        ("z1", 0),
    ]


def test_a_parents_quota_is_not_a_queue_and_adds_no_gpus(tmp_path: Path) -> None:
    """A queues file where the parent p deserves 8 and its child x 4 of them: the cluster is
    8 GPUs (not 12), p is no queue of jobs, and x and y share p's quota."""
    (tmp_path / "w.csv").write_text(
        "id,queue,submit,run_time,gpus\nj1,x,0,60,2\nj2,y,0,60,2\n", encoding="utf-8"
    )
    (tmp_path / "w.queues.csv").write_text(
        "name,parent,deserved,over_quota_weight,limit\np,,8,,\nx,p,4,2,6\ny,p,,,\n",
        encoding="utf-8",
    )

    workload = read_csv(tmp_path / "w.csv")
    result = simulate(workload)

    assert workload.total_gpus == 8
    assert (dict(workload.deserved), dict(workload.over_quota_weights), dict(workload.limits)) == (
        {"p": 8, "x": 4},
        {"x": 2},
        {"x": 6},
    )
    assert [queue.name for queue in result.metrics.per_queue] == ["x", "y"]
    assert fair_shares(
        workload.tree,
        workload.total_gpus,
        deserved=workload.deserved,
        weights=workload.over_quota_weights,
        limits=workload.limits,
        demand={"x": 8, "y": 8},
    ) == {"p": 8, "x": 6, "y": 2}

"""Nodes and gang placement: hand-built scenarios with exact expected values, and the rule's laws
on random node states."""

from __future__ import annotations

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import Preemptibility, Queue, QueueTree
from minruntime_sim import InvalidTrace, JobSpec, Workload, simulate
from minruntime_sim.placement import Nodes


def placed(
    result_placements: tuple[tuple[int, str, int, int], ...], job: str
) -> list[tuple[int, int, int]]:
    """(time, node, change) of one job's placements."""
    return [(time, node, change) for time, name, node, change in result_placements if name == job]


def test_a_gang_waits_for_whole_nodes_though_enough_gpus_are_free() -> None:
    """Two 8-GPU nodes. a (2 GPUs) and f (6) fill node 0, b (2) goes to node 1; f ends at 10,
    leaving 6 free on each node. x (12 GPUs) arrives at 20: 12 GPUs are free, but no node is
    wholly free, so it waits until a ends at 100 and node 0 is whole: 8 there, 4 on node 1."""
    jobs = [
        JobSpec(id="a", queue="q", submit=0, run_time=100, gpus=2),
        JobSpec(id="f", queue="q", submit=0, run_time=10, gpus=6),
        JobSpec(id="b", queue="q", submit=0, run_time=200, gpus=2),
        JobSpec(id="x", queue="q", submit=20, run_time=50, gpus=12),
    ]
    workload = Workload(
        name="two nodes",
        tree=QueueTree([Queue("q")]),
        deserved={"q": 16},
        total_gpus=16,
        nodes=(8, 8),
        jobs=jobs,
    )

    result = simulate(workload)

    starts = {job.id: job.first_start for job in result.jobs}
    assert starts == {"a": 0, "f": 0, "b": 0, "x": 100}
    assert placed(result.placements, "a") == [(0, 0, 2), (100, 0, -2)]
    assert placed(result.placements, "f") == [(0, 0, 6), (10, 0, -6)]
    assert placed(result.placements, "b") == [(0, 1, 2), (200, 1, -2)]
    assert placed(result.placements, "x") == [(100, 0, 8), (100, 1, 4), (150, 0, -8), (150, 1, -4)]
    assert result.evictions == ()


def test_on_one_node_the_same_jobs_do_not_wait() -> None:
    """The same jobs on one 16-GPU node: x starts when it arrives, at 20."""
    jobs = [
        JobSpec(id="a", queue="q", submit=0, run_time=100, gpus=2),
        JobSpec(id="f", queue="q", submit=0, run_time=10, gpus=6),
        JobSpec(id="b", queue="q", submit=0, run_time=200, gpus=2),
        JobSpec(id="x", queue="q", submit=20, run_time=50, gpus=12),
    ]
    workload = Workload(
        name="one node", tree=QueueTree([Queue("q")]), deserved={"q": 16}, total_gpus=16, jobs=jobs
    )

    assert {job.id: job.first_start for job in simulate(workload).jobs}["x"] == 20


def test_a_reclaim_evicts_only_victims_that_free_gpus_where_the_gang_goes() -> None:
    """Two 4-GPU nodes; a deserves 2, b 6. a3 (4 GPUs) fills node 0; a1 (2) and n (2,
    non-preemptible) fill node 1. At 10 b1 and b2 (4 each) arrive: b's fair share is 6, a's 2,
    so a may give 6. In the reference order a1 (submitted later) comes before a3, but evicting
    it leaves node 1 half held by n: b1 needs a whole node, which only a3's eviction frees.
    a1 is left running; b1 goes to node 0."""
    jobs = [
        JobSpec(id="a3", queue="a", submit=0, run_time=1000, gpus=4),
        JobSpec(id="a1", queue="a", submit=1, run_time=1000, gpus=2),
        JobSpec(
            id="n",
            queue="a",
            submit=2,
            run_time=1000,
            gpus=2,
            priority=125,
            preemptibility=Preemptibility.NON_PREEMPTIBLE,
        ),
        JobSpec(id="b1", queue="b", submit=10, run_time=100, gpus=4),
        JobSpec(id="b2", queue="b", submit=10, run_time=100, gpus=4),
    ]
    workload = Workload(
        name="helpful",
        tree=QueueTree([Queue("a"), Queue("b")]),
        deserved={"a": 2, "b": 6},
        total_gpus=8,
        nodes=(4, 4),
        jobs=jobs,
    )

    result = simulate(workload)

    assert [(e.time, e.job, e.tasks, e.preemptor) for e in result.evictions] == [
        (10, "a3", 4, "b1")
    ]
    assert placed(result.placements, "b1")[0] == (10, 0, 4)
    assert placed(result.placements, "a1") == [(1, 1, 2), (1001, 1, -2)]


def test_a_workload_checks_its_nodes() -> None:
    with pytest.raises(InvalidTrace) as caught:
        Workload(name="w", tree=QueueTree([Queue("q")]), total_gpus=10, nodes=(4, 4), jobs=[])
    assert str(caught.value) == "workload 'w': nodes hold 8 GPUs in all, but total_gpus is 10"
    with pytest.raises(InvalidTrace) as caught:
        Workload(name="w", tree=QueueTree([Queue("q")]), total_gpus=4, nodes=(4, 0), jobs=[])
    assert str(caught.value) == "workload 'w': nodes must each have an integer >= 1 of GPUs, got 0"


def test_resizing_keeps_whole_nodes_spread_over_the_inventory() -> None:
    """Every other node of a mixed inventory, then one cut to the GPUs left."""
    workload = Workload(
        name="w",
        tree=QueueTree([Queue("q")]),
        deserved={"q": 24},
        total_gpus=24,
        nodes=(8, 2, 8, 2, 2, 2),
        jobs=[],
    )

    assert workload.with_gpus(12).nodes == (8, 2, 2)
    assert workload.with_gpus(11).nodes == (8, 2, 1)
    assert workload.with_gpus(30).nodes == (8, 2, 8, 2, 2, 2, 6)


# -- the rule's laws on random node states -----------------------------------------------------

node_states = st.lists(st.sampled_from([1, 2, 4, 8]), min_size=1, max_size=6).flatmap(
    lambda capacity: st.tuples(
        st.just(tuple(capacity)),
        st.tuples(*(st.integers(0, size) for size in capacity)),
    )
)


def nodes_at(capacity: tuple[int, ...], used: tuple[int, ...]) -> Nodes:
    nodes = Nodes(capacity)
    for node, count in enumerate(used):
        for _ in range(count):
            nodes.place_one([node])
    return nodes


@given(state=node_states, gpus=st.integers(1, 20), whole=st.booleans(), data=st.data())
def test_a_placement_takes_exactly_the_gpus_and_fits_says_when(
    state: tuple[tuple[int, ...], tuple[int, ...]], gpus: int, whole: bool, data: st.DataObject
) -> None:
    """Law: ``fits`` is true exactly when ``place`` succeeds; a placement takes ``gpus`` GPUs,
    never more than a node has free, and every node but the last it uses is taken whole."""
    capacity, used = state
    if (
        whole and len(capacity) > 1
    ):  # two nodes empty, and more GPUs than the larger: a gang over them
        used = (0, 0, *used[2:])
        gpus = data.draw(st.integers(max(capacity[:2]) + 1, sum(capacity[:2])), label="gpus")
    nodes = nodes_at(capacity, used)
    free = list(nodes.free)
    fits = nodes.fits(gpus)

    placement = nodes.place(gpus)

    assert (placement is not None) == fits
    event(f"fits: {fits}; spans nodes: {placement is not None and len(placement) > 1}")
    if placement is None:
        assert nodes.free == free
        return
    assert sum(count for _, count in placement) == gpus
    for node, count in placement:
        assert count <= free[node]
        assert nodes.free[node] == free[node] - count
    for node, count in placement[:-1]:
        assert count == capacity[node] == free[node]


@given(state=node_states, gpus=st.integers(1, 20), more=st.data())
def test_freeing_gpus_never_makes_a_gang_stop_fitting(
    state: tuple[tuple[int, ...], tuple[int, ...]], gpus: int, more: st.DataObject
) -> None:
    """Law: ``fits_after`` agrees with freeing the GPUs first, and more free GPUs never make a
    gang that fits stop fitting."""
    capacity, used = state
    freed = {
        node: more.draw(st.integers(0, count), label=f"freed on {node}")
        for node, count in enumerate(used)
    }
    nodes = nodes_at(capacity, used)
    before = nodes.fits(gpus)
    after = nodes.fits_after(gpus, freed)
    for node, count in freed.items():
        nodes.release(node, count)

    assert after == nodes.fits(gpus)
    assert not before or after
    event(f"fits before: {before}; freeing made it fit: {after and not before}")

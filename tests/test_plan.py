"""Plans and commits (``minruntime._plan``, :meth:`Session.plan`, :meth:`Cycle.plan` and
:meth:`Cycle.commit`): which tasks a preemptor takes for what it needs, and a cycle that
remembers what it gave away (docs/spec/plans.md)."""

from __future__ import annotations

import re
import threading
from collections.abc import Hashable, Sequence
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import event, given, target
from hypothesis import strategies as st

from minruntime import (
    Action,
    Config,
    Cycle,
    Job,
    Plan,
    PlanConflict,
    PodSet,
    Queue,
    QueueTree,
    Resources,
    Session,
    Task,
    TaskLike,
)
from minruntime._ranking import resources_of
from minruntime.resources import covered

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
GPU = "nvidia.com/gpu"
TREE = QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b")])


def ago(minutes: float) -> datetime:
    return NOW - timedelta(minutes=minutes)


def ids(tasks: Sequence[TaskLike]) -> list[str]:
    return [str(task.id) for task in tasks]


def gpu_job(
    name: str, gpus: int, *, minutes: float = 120, min_available: int | None = None, per: float = 1
) -> Job:
    """A preemptible job in queue a: ``gpus`` tasks of ``per`` GPUs each, started ``minutes``
    ago (reclaim min-runtime 1h: protected under 60)."""
    tasks = [Task(f"{name}-{i}", resources={GPU: per}) for i in range(gpus)]
    return Job(
        name,
        "a",
        preemptibility="preemptible",
        start_time=ago(minutes),
        pod_sets=[
            PodSet(min_available=gpus if min_available is None else min_available, tasks=tasks)
        ],
    )


PREEMPTOR = Job("pending", "b", priority=100)


# -- exact values --------------------------------------------------------------------------------


def test_a_plan_trims_an_unprotected_elastic_victim_to_the_need() -> None:
    """An unprotected elastic victim of 8 GPUs gives 4 for a need of 4: its tasks above the
    minimum first (the last listed first), and only as many as the need takes."""
    elastic = gpu_job("elastic", 8, min_available=2)
    plan = Session(TREE, Config(), NOW).plan("reclaim", PREEMPTOR, [elastic], {GPU: 4})
    assert [job.id for job in plan.victims] == ["elastic"]
    assert [ids(tasks) for tasks in plan.tasks] == [
        ["elastic-7", "elastic-6", "elastic-5", "elastic-4"]
    ]
    assert (dict(plan.freed), dict(plan.missing), plan.retry) == ({GPU: 4, "pods": 4}, {}, None)
    # two hours of unsaved work on each of 4 GPUs
    assert plan.lost == plan.losses[0] == 4 * 2 * 3600.0


def test_a_plan_over_gpus_and_cpu_covers_both() -> None:
    """A need of 2 GPUs and 48 CPUs: the GPU job is the cheaper victim (90 minutes on four pods
    weighing one GPU each, against 100 minutes on four CPU pods weighing 1 each); its four pods
    are taken, the last two for their CPUs alone (the GPUs are covered by then, the CPUs are
    still missing); then one CPU pod of the next victim covers the CPUs."""
    gpu = Job(
        "gpu",
        "a",
        preemptibility="preemptible",
        start_time=ago(90),
        pod_sets=[
            PodSet(
                min_available=0,
                tasks=[Task(f"gpu-{i}", resources={GPU: 1, "cpu": 8}) for i in range(4)],
            )
        ],
    )
    cpu = Job(
        "cpu",
        "a",
        preemptibility="preemptible",
        start_time=ago(100),
        pod_sets=[
            PodSet(
                min_available=0, tasks=[Task(f"cpu-{i}", resources={"cpu": 16}) for i in range(4)]
            )
        ],
    )
    plan = Session(TREE, Config(), NOW).plan("reclaim", PREEMPTOR, [cpu, gpu], {GPU: 2, "cpu": 48})
    assert [job.id for job in plan.victims] == ["gpu", "cpu"]
    assert [ids(tasks) for tasks in plan.tasks] == [["gpu-3", "gpu-2", "gpu-1", "gpu-0"], ["cpu-3"]]
    assert (dict(plan.freed), dict(plan.missing)) == ({GPU: 4, "cpu": 48, "pods": 5}, {})


def test_a_cpu_only_victim_frees_no_gpu_and_is_passed_over() -> None:
    """A plan for GPUs passes over the CPU-only pods of the cheapest victim (they free nothing
    still missing: 61 minutes on two pods weighing 1 each, against 240 minutes on two GPUs) and
    takes the GPU pods of the next."""
    cpu = Job(
        "etl",
        "a",
        preemptibility="preemptible",
        start_time=ago(61),
        pod_sets=[PodSet(tasks=[Task(f"etl-{i}", resources={"cpu": 16}) for i in range(2)])],
    )
    gpu = gpu_job("train", 2, minutes=240)
    plan = Session(TREE, Config(), NOW).plan("reclaim", PREEMPTOR, [cpu, gpu], {GPU: 2})
    assert Session(TREE, Config(), NOW).rank_victims("reclaim", PREEMPTOR, [cpu, gpu]) == [
        cpu,
        gpu,
    ]  # the CPU job is the cheaper victim ...
    assert [job.id for job in plan.victims] == ["train"]  # ... but frees no GPU
    assert (dict(plan.freed), dict(plan.missing)) == ({GPU: 2, "pods": 2}, {})


def test_a_fractional_gpu_need_is_covered_by_fractions_within_the_tolerance() -> None:
    shares = gpu_job("shares", 3, per=0.1)
    plan = Session(TREE, Config(), NOW).plan("reclaim", PREEMPTOR, [shares], {GPU: 0.3})
    assert (len(plan.tasks[0]), dict(plan.missing), bool(plan)) == (3, {}, True)
    assert covered(plan.freed[GPU], 0.3)


def test_a_plan_short_of_the_need_says_what_is_missing_and_when_to_retry() -> None:
    """One victim is free, one protected until 12:30 (started 11:30, reclaim min-runtime 1h):
    the plan takes the free one's 2 GPUs, misses 2, and retries when the other is free."""
    free = gpu_job("free", 2, minutes=120)
    young = gpu_job("young", 2, minutes=30)
    plan = Session(TREE, Config(), NOW).plan("reclaim", PREEMPTOR, [young, free], {GPU: 4})
    assert [job.id for job in plan.victims] == ["free"]
    assert (dict(plan.missing), plan.retry) == ({GPU: 2}, NOW + timedelta(minutes=30))
    assert str(plan) == (
        "reclaim plan of 'pending' for nvidia.com/gpu 4: takes 2 tasks of 'free', freeing "
        "nvidia.com/gpu 2, pods 2 and losing 14400 of unsaved work; still missing "
        "nvidia.com/gpu 2; retry at 2026-11-22T12:30:00Z"
    )


def test_a_bad_need_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match=re.escape("need 'nvidia.com/gpu': expected a finite")):
        Session(TREE, Config(), NOW).plan("reclaim", PREEMPTOR, [], {GPU: -1})


def test_a_second_plan_in_a_cycle_does_not_see_the_first_ones_committed_tasks() -> None:
    running = [gpu_job("old", 4, minutes=300), gpu_job("older", 4, minutes=400)]
    cycle = Session(TREE, Config(), NOW).cycle(running)
    first = cycle.plan("reclaim", Job("p1", "b"), {GPU: 3})
    assert [ids(tasks) for tasks in first.tasks] == [["old-3", "old-2", "old-1"]]
    cycle.commit(first)
    second = cycle.plan("reclaim", Job("p2", "b"), {GPU: 3})
    assert [job.id for job in second.victims] == ["old", "older"]
    assert [ids(tasks) for tasks in second.tasks] == [["old-0"], ["older-3", "older-2"]]
    # the cycle's other answers see the commit too
    assert [task.id for task in cycle.verdict("reclaim", Job("p3", "b"), running[0]).tasks] == [
        "old-0"
    ]
    # validation counts the committed tasks as evicted; old is not protected: the rest may go
    assert cycle.validate("reclaim", Job("p3", "b"), [(running[0], ["old-0"])]).valid
    cycle.commit(second)
    assert cycle.eligible_victims("reclaim", Job("p4", "b")) == [running[1]]  # old has none left


def test_a_plan_that_is_not_committed_changes_nothing() -> None:
    running = [gpu_job("old", 2)]
    cycle = Session(TREE, Config(), NOW).cycle(running)
    first = cycle.plan("reclaim", Job("p1", "b"), {GPU: 2})
    again = cycle.plan("reclaim", Job("p2", "b"), {GPU: 2})
    assert first.tasks == again.tasks


def test_a_commit_is_refused_when_another_took_a_task_first_from_two_threads() -> None:
    """Two threads plan for the same two GPUs at once and commit together: exactly one commit
    holds; the other is refused, naming the tasks it lost, and records nothing."""
    for _ in range(20):
        cycle = Session(TREE, Config(), NOW).cycle([gpu_job("v", 2)])
        plans = [cycle.plan("reclaim", Job(f"p{i}", "b"), {GPU: 2}) for i in range(2)]
        outcomes: list[str] = []
        refused: list[PlanConflict] = []
        barrier = threading.Barrier(2)
        threads = [
            threading.Thread(target=race, args=(cycle, plan, barrier, outcomes, refused))
            for plan in plans
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) == [
            "2 tasks of this plan were committed since it was made: 'v-1' of job 'v', 'v-0' of "
            "job 'v'",
            "committed",
        ]
        assert [error.tasks for error in refused] == [(("v", "v-1"), ("v", "v-0"))]
        assert cycle.eligible_victims("reclaim", Job("p", "b")) == []


def race(
    cycle: Cycle[Job],
    plan: Plan[Job],
    barrier: threading.Barrier,
    outcomes: list[str],
    refused: list[PlanConflict],
) -> None:
    """Commit ``plan`` as soon as the other thread is ready too; say what happened."""
    barrier.wait()
    try:
        cycle.commit(plan)
        outcomes.append("committed")
    except PlanConflict as error:
        outcomes.append(str(error))
        refused.append(error)


def test_a_commit_of_a_job_the_cycle_does_not_hold_is_refused() -> None:
    cycle = Session(TREE, Config(), NOW).cycle([gpu_job("v", 1)])
    stranger = gpu_job("stranger", 1)
    plan = Session(TREE, Config(), NOW).plan("reclaim", PREEMPTOR, [stranger], {GPU: 1})
    with pytest.raises(PlanConflict, match="job 'stranger' of the plan is not a running job"):
        cycle.commit(plan)


def test_a_hand_made_plan_the_validator_refuses_is_not_committed() -> None:
    """A protected gang (reclaim min-runtime 1h, started 30 minutes ago) may not lose a pod: a
    plan built by hand that takes one is refused, and nothing is recorded."""
    gang = gpu_job("gang", 2, minutes=30)
    cycle = Session(TREE, Config(), NOW).cycle([gang])
    plan: Plan[Job] = Plan(
        action=Action.RECLAIM,
        preemptor=PREEMPTOR,
        need=Resources({GPU: 1}),
        victims=(gang,),
        tasks=((gang.pod_sets[0].tasks[1],),),
        freed=Resources({GPU: 1}),
        missing=Resources(),
        lost=0.0,
        losses=(0.0,),
        retry=None,
    )
    with pytest.raises(PlanConflict, match="the plan would leave job 'gang' in a shape"):
        cycle.commit(plan)
    assert cycle.plan("reclaim", PREEMPTOR, {GPU: 1}).retry == NOW + timedelta(minutes=30)


# -- laws over random cycles ---------------------------------------------------------------------


@st.composite
def running_jobs(draw: st.DrawFn) -> list[Job]:
    """Running jobs in queue a: GPU or CPU pods, gangs or elastic, some semi-preemptible, some
    protected (reclaim min-runtime 1h), some never started."""
    jobs = []
    for number in range(draw(st.integers(1, 6))):
        size = draw(st.integers(1, 4))
        kind = draw(st.sampled_from(["gpu", "gpu", "cpu", "mixed"]))
        tasks = []
        for index in range(size):
            if kind == "gpu" or (kind == "mixed" and index % 2 == 0):
                held: dict[str, float] = {GPU: draw(st.sampled_from([1, 1, 2, 0.5])), "cpu": 4}
            else:
                held = {"cpu": draw(st.sampled_from([4, 8]))}
            status = draw(st.sampled_from(["Running", "Running", "Running", "Pending"]))
            tasks.append(Task(f"j{number}-{index}", status, resources=held))
        jobs.append(
            Job(
                f"j{number}",
                "a",
                priority=draw(st.sampled_from([10, 50])),
                preemptibility=draw(
                    st.sampled_from(["preemptible", "preemptible", "semi-preemptible"])
                ),
                start_time=draw(st.one_of(st.none(), st.integers(5, 300).map(ago))),
                pod_sets=[PodSet(min_available=draw(st.integers(0, size)), tasks=tasks)],
            )
        )
    return jobs


needs = st.dictionaries(
    st.sampled_from([GPU, "cpu", "pods"]), st.sampled_from([0.5, 1, 2, 3, 8]), min_size=1
)


def freed_by(plan: Plan[Job]) -> dict[str, float]:
    total: dict[str, float] = {}
    for tasks in plan.tasks:
        for task in tasks:
            for name, amount in resources_of(task, "").items():
                total[name] = total.get(name, 0) + amount
    return total


def assert_honest(plan: Plan[Job]) -> None:
    """The plan covers its need or says exactly what is missing, and could not drop its last
    task and still cover the need."""
    freed = freed_by(plan)
    assert dict(plan.freed) == pytest.approx(freed)
    short = {
        name: amount - freed.get(name, 0)
        for name, amount in plan.need.items()
        if amount > 0 and not covered(freed.get(name, 0), amount)
    }
    assert dict(plan.missing) == pytest.approx(short)
    if plan.tasks and not plan.missing:
        last = plan.tasks[-1][-1]
        held = resources_of(last, "")
        without = {name: freed[name] - held.get(name, 0) for name in freed}
        assert any(
            amount > 0 and not covered(without.get(name, 0), amount)
            for name, amount in plan.need.items()
        )
        event("a plan covers its need")
    elif plan.missing:
        event("a plan is short")


@given(running_jobs(), st.lists(needs, min_size=1, max_size=5), st.data())
def test_plans_and_commits_over_a_cycle_keep_their_laws(
    running: list[Job], wanted: list[dict[str, float]], data: st.DataObject
) -> None:
    """Over random cycles of plans, some committed: no task is committed twice; each victim's
    committed tasks pass its validator; every plan covers its need or says exactly what is
    missing, and could not drop its last task and still cover it; and the cycle then answers
    exactly as a fresh cycle over the same jobs to which every committed task was committed at
    once.

    "Never offered again" has something to compare with only when a plan offers a victim that
    an earlier committed plan took tasks of: an event says how often, and the search is steered
    towards more such victims."""
    session = Session(TREE, Config(), NOW)
    cycle = session.cycle(running)
    committed: dict[int, list[Hashable]] = {}
    by_id = {id(job): job for job in running}
    offered_again = 0  # plans' victims that earlier committed plans took tasks of
    for number, need in enumerate(wanted):
        preemptor = Job(f"p{number}", "b", priority=100)
        plan = cycle.plan("reclaim", preemptor, need)
        assert_honest(plan)
        for victim, tasks in zip(plan.victims, plan.tasks, strict=True):
            taken = committed.get(id(victim), [])
            offered_again += bool(taken)  # the check below has earlier commits to compare with
            assert not set(ids(tasks)) & set(map(str, taken))  # never offered again
        if data.draw(st.booleans(), label="commit"):
            cycle.commit(plan)
            for victim, tasks in zip(plan.victims, plan.tasks, strict=True):
                again = id(victim) in committed
                committed.setdefault(id(victim), []).extend(task.id for task in tasks)
                if again:
                    event("a victim gives tasks to two committed plans")
            for key, taken in committed.items():
                assert len(taken) == len(set(taken))  # no task committed twice
                result = session.validate("reclaim", preemptor, [(by_id[key], taken)])
                assert result.valid, str(result)
    event(f"'never offered again' checked against earlier commits: {offered_again > 0}")
    target(float(offered_again), label="victims offered again after a commit")
    # a fresh cycle, everything committed at once
    fresh = Session(TREE, Config(), NOW).cycle(running)
    victims = tuple(by_id[key] for key in committed)
    if victims:
        lookup: dict[tuple[int, Hashable], Task] = {
            (id(job), task.id): task for job in running for task in job.tasks()
        }
        everything: Plan[Job] = Plan(
            action=Action.RECLAIM,
            preemptor=Job("all", "b", priority=100),
            need=Resources(),
            victims=victims,
            tasks=tuple(
                tuple(lookup[id(job), task] for task in committed[id(job)]) for job in victims
            ),
            freed=Resources(),
            missing=Resources(),
            lost=0.0,
            losses=(0.0,) * len(victims),
            retry=None,
        )
        fresh.commit(everything)
        event("cycles compared after commits")
    probe = Job("probe", "b", priority=100)
    assert same_answers(cycle, fresh, probe, data.draw(needs, label="probe need"))


def same_answers(one: Cycle[Job], other: Cycle[Job], probe: Job, need: dict[str, float]) -> bool:
    assert one.eligible_victims("reclaim", probe) == other.eligible_victims("reclaim", probe)
    assert one.next_expiry("reclaim", probe) == other.next_expiry("reclaim", probe)
    first, second = one.plan("reclaim", probe, need), other.plan("reclaim", probe, need)
    assert first.victims == second.victims
    assert first.tasks == second.tasks
    assert (first.missing, first.retry) == (second.missing, second.retry)
    return True

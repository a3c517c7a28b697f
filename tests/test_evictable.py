"""Evictable tasks and the sacrifice order (docs/spec/evictable-tasks.md): ``minruntime._evictable``.

Which tasks of a victim may go, in which order: none from an ineligible victim, every active
task from an eligible unprotected one, only the surplus of a protected elastic or a
semi-preemptible one; a task-order key sets the sacrifice order.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs
import pytest
from hypothesis import event, given
from tests.world import LONG_AGO, NOW, PREEMPTOR, RECENT, ids, job, session

from minruntime import Action, Job, PodSet, Reason, Task, TaskLike
from minruntime._evictable import evictable_tasks, sacrifice_order
from minruntime._facts import JobFacts
from minruntime.testing import Situation, situations


@pytest.mark.parametrize(
    "victim",
    [
        pytest.param(job(preemptibility="non-preemptible", statuses=("Running",) * 3), id="non"),
        pytest.param(job(start=RECENT), id="protected-non-elastic"),
        pytest.param(job("v", "vault", statuses=("Running",) * 3), id="never-elastic"),
        pytest.param(job(priority=100, statuses=("Running",) * 3), id="not-lower-priority"),
    ],
)
def test_no_task_is_evictable_from_an_ineligible_victim(victim: Job) -> None:
    assert session().verdict(Action.PREEMPT, PREEMPTOR, victim).tasks == ()


def test_every_active_task_is_evictable_from_an_eligible_unprotected_victim() -> None:
    victim = job(statuses=("Running", "Pending", "Releasing", "Bound", "Succeeded"))
    tasks = session().verdict(Action.PREEMPT, PREEMPTOR, victim).tasks
    assert ids(tasks) == ["v-3", "v-2", "v-0"]


def test_the_evictable_tasks_are_the_jobs_own_task_objects() -> None:
    victim = job(statuses=("Running", "Running"))
    tasks = session().verdict(Action.PREEMPT, PREEMPTOR, victim).tasks
    assert tasks == (victim.pod_sets[0].tasks[1], victim.pod_sets[0].tasks[0])
    assert tasks[0] is victim.pod_sets[0].tasks[1]


def two_pod_set_victim(start: datetime | None, preemptibility: str = "preemptible") -> Job:
    return Job(
        "v",
        "a",
        priority=10,
        preemptibility=preemptibility,
        start_time=start,
        pod_sets=[
            PodSet("workers", 2, [Task("w0"), Task("w1"), Task("w2"), Task("w3")]),
            PodSet("ps", 1, [Task("p0", "Pending"), Task("p1")]),
            PodSet("eval", 0, [Task("e0", "Releasing")]),
        ],
    )


def test_only_the_surplus_is_evictable_from_a_protected_elastic_victim() -> None:
    victim = two_pod_set_victim(RECENT)
    s = session()
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).reason is Reason.DEFERRED
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == ["e0", "w3", "w2"]


def test_the_whole_active_set_is_evictable_once_the_elastic_victims_protection_ends() -> None:
    """Surplus first: every pod set's surplus (e0 of eval, w3 and w2 of workers) before ps
    loses p1, its only running task, which it needs."""
    victim = two_pod_set_victim(RECENT)
    later = session().at(RECENT + timedelta(minutes=10))
    assert ids(later.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == [
        "e0",
        "w3",
        "w2",
        "p1",
        "w1",
        "w0",
    ]


def test_a_semi_preemptible_core_is_never_evictable_even_after_min_runtime() -> None:
    victim = two_pod_set_victim(LONG_AGO, "semi-preemptible")
    s = session()
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected is False
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == ["e0", "w3", "w2"]


def test_the_semi_preemptible_core_is_the_first_active_tasks_in_listing_order() -> None:
    victim = job(
        preemptibility="semi-preemptible",
        min_available=2,
        statuses=("Pending", "Running", "Succeeded", "Running", "Running", "Running"),
    )
    assert ids(session().verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == ["v-5", "v-4"]


def test_a_protected_elastic_victim_with_min_available_zero_loses_every_active_task() -> None:
    victim = job(start=RECENT, min_available=0, statuses=("Running", "Pending", "Running"))
    s = session()
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).reason is Reason.DEFERRED
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == ["v-2", "v-0"]


def test_a_task_order_key_gives_its_reverse_as_the_sacrifice_order() -> None:
    importance = {"v-0": 1, "v-1": 0, "v-2": 1, "v-3": 0, "v-4": 2}
    victim = job(statuses=("Running",) * 5)

    def key(task: TaskLike) -> int:
        return importance[str(task.id)]

    s = session(task_order=key)
    # sorted most important first: v-1, v-3 (0), v-0, v-2 (1), v-4 (2); reversed, ties
    # keep the reverse of the listing order.
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == [
        "v-4",
        "v-2",
        "v-0",
        "v-3",
        "v-1",
    ]
    assert ids(s.at(NOW).verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == [
        "v-4",
        "v-2",
        "v-0",
        "v-3",
        "v-1",
    ]


def test_sacrifice_order_without_a_key_reverses_the_listing() -> None:
    tasks = (Task("a"), Task("b"), Task("c"))
    assert ids(sacrifice_order(tasks, None)) == ["c", "b", "a"]
    assert ids(sacrifice_order(tasks, lambda task: 0)) == ["c", "b", "a"]


# -- the sacrifice order: surplus first ---------------------------------------------------------


def pod_sets_job(start: datetime, *shapes: tuple[str, int, int]) -> Job:
    """A preemptible job with a pod set per ``(name, min_available, running tasks)``; tasks are
    ``<name><n>``."""
    return Job(
        "v",
        "a",
        priority=10,
        preemptibility="preemptible",
        start_time=start,
        pod_sets=[
            PodSet(name, minimum, [Task(f"{name}{n}") for n in range(size)])
            for name, minimum, size in shapes
        ],
    )


def test_the_references_case_one_task_above_each_minimum_goes_before_any_pod_set_breaks() -> None:
    """The reference scheduler's eviction tests: pod sets of minimum 1 with two tasks each lose
    one task each before either loses the task it needs."""
    victim = pod_sets_job(LONG_AGO, ("a", 1, 2), ("b", 1, 2))
    s = session()
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).reason is Reason.ELIGIBLE
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == ["b1", "a1", "b0", "a0"]
    protected = pod_sets_job(RECENT, ("a", 1, 2), ("b", 1, 2))
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, protected).tasks) == ["b1", "a1"]


def test_a_gang_pod_set_is_broken_only_after_every_other_pod_sets_surplus() -> None:
    """A gang (minimum = its size) has no surplus; the elastic pod set listed after it loses
    its surplus first, then the needed tasks go in reverse listing order."""
    victim = pod_sets_job(LONG_AGO, ("g", 2, 2), ("x", 1, 3))
    s = session()
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == [
        "x2",
        "x1",
        "x0",
        "g1",
        "g0",
    ]
    # the gang listed last: the elastic pod set's surplus still goes before the gang's tasks
    victim = pod_sets_job(LONG_AGO, ("x", 1, 3), ("g", 2, 2))
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == [
        "x2",
        "x1",
        "g1",
        "g0",
        "x0",
    ]


def test_a_task_order_key_orders_each_part_and_picks_each_pod_sets_surplus() -> None:
    """With a key, each pod set keeps its most important ``min_available`` tasks as its
    minimum; its least important ones are its surplus, and each part is in reverse key order."""
    importance = {"a0": 2, "a1": 0, "a2": 1, "b0": 1, "b1": 0}

    def key(task: TaskLike) -> int:
        return importance[str(task.id)]

    s = session(task_order=key)
    victim = pod_sets_job(LONG_AGO, ("a", 1, 3), ("b", 1, 2))
    # minimum: a1 and b1 (importance 0); surplus a2, a0, b0; ties in reverse listing order
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks) == [
        "a0",
        "b0",
        "a2",
        "b1",
        "a1",
    ]
    protected = pod_sets_job(RECENT, ("a", 1, 3), ("b", 1, 2))
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, protected).tasks) == ["a0", "b0", "a2"]
    # a semi-preemptible core is fixed (listing order), whatever the key: a0 and b0 stay
    semi = attrs.evolve(victim, preemptibility="semi-preemptible")
    assert ids(s.core_tasks(semi)) == ["a0", "b0"]
    assert ids(s.verdict(Action.PREEMPT, PREEMPTOR, semi).tasks) == ["a2", "b1", "a1"]


def test_a_plan_takes_each_victims_tasks_in_the_surplus_first_order_until_covered() -> None:
    victim = pod_sets_job(LONG_AGO, ("a", 1, 2), ("b", 1, 2))
    chosen = session().plan(Action.PREEMPT, PREEMPTOR, [victim], {"pods": 3})
    assert [ids(tasks) for tasks in chosen.tasks] == [["b1", "a1", "b0"]]
    assert (dict(chosen.freed), dict(chosen.missing)) == ({"pods": 3}, {})


def test_evictable_tasks_function_follows_the_reason() -> None:
    facts = JobFacts.of(job(min_available=1, statuses=("Running", "Running", "Running")))
    assert ids(evictable_tasks(Reason.ELIGIBLE, facts)) == ["v-2", "v-1", "v-0"]
    assert ids(evictable_tasks(Reason.DEFERRED, facts)) == ["v-2", "v-1"]
    for reason in Reason:
        if not reason.allowed:
            assert evictable_tasks(reason, facts) == ()


# -- properties ---------------------------------------------------------------------------------


@given(situations(trees=True))
def test_evictable_tasks_are_active_tasks_of_the_victim_each_once(world: Situation) -> None:
    """Law: evictable tasks are a duplicate-free subset of the victim's active tasks, and none
    exist unless the victim is eligible."""
    s = world.session()
    for victim in world.victims:
        tasks = s.verdict(world.action, world.preemptor, victim).tasks
        active = [task for task in victim.tasks() if task.status.is_active]
        assert len(set(ids(tasks))) == len(tasks)
        assert set(ids(tasks)) <= set(ids(active))
        event("a victim with evictable tasks" if tasks else "a victim without")
        if not s.verdict(world.action, world.preemptor, victim).allowed:
            assert tasks == ()

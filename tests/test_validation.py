"""Scenario validators (docs/spec/preemptibility.md, docs/spec/validation.md): one rule per pod set,
the core, never, errors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.world import LONG_AGO, NOW, PREEMPTOR, RECENT, RECLAIMER, job, session

from minruntime import (
    FOREVER,
    Action,
    Config,
    Failure,
    FailureKind,
    InvalidScenario,
    Job,
    JobLike,
    MinRuntime,
    MinRuntimeError,
    PodSet,
    Preemptibility,
    ProtectionKind,
    QueueTree,
    ScenarioResult,
    Session,
    Task,
)
from minruntime._facts import JobFacts
from minruntime._protection import NO_INPUTS, NO_SETTINGS, is_protected, protection
from minruntime._resolution import resolve
from minruntime._validation import validate_victim
from minruntime.testing import BASE_TIME, jobs, min_runtimes, queue_trees

TEN_MINUTES = MinRuntime("10m")


def evict(victim: JobLike, tasks: Iterable[object]) -> dict[JobLike, Iterable[object]]:
    """A one-victim scenario as a mapping (typed: ``Mapping`` is invariant in its key)."""
    return {victim: tasks}


def validate(victim: Job, tasks: Sequence[object], at: datetime = NOW) -> ScenarioResult:
    return session(at).validate(Action.PREEMPT, PREEMPTOR, evict(victim, tasks))


# -- victims that are neither elastic nor semi-preemptible --------------------------------------


def test_an_unprotected_non_elastic_victim_passes_any_eviction() -> None:
    victim = job()
    result = validate(victim, ["v-0"])
    assert bool(result) is True
    assert result.valid is True
    assert result.failures == ()


def test_a_victim_without_start_time_is_not_protected_and_passes() -> None:
    assert validate(job(start=None, min_available=3, statuses=("Running",) * 3), ["v-0"])


def test_a_protected_non_elastic_victim_fails_any_eviction() -> None:
    victim = job(start=RECENT)
    result = validate(victim, ["v-0"])
    assert bool(result) is False
    assert result.failures == (
        Failure(
            victim="v",
            kind=FailureKind.PROTECTED,
            pod_set="default",
            active=1,
            evicted=1,
            min_available=1,
            min_runtime=TEN_MINUTES,
            protected_until=NOW + timedelta(minutes=5),
            protected_by=ProtectionKind.MIN_RUNTIME,
        ),
    )


# -- never --------------------------------------------------------------------------------------


def test_a_never_min_runtime_fails_any_eviction_even_from_the_surplus() -> None:
    victim = job("v", "vault", start=None, statuses=("Running",) * 3)
    result = session().validate(Action.RECLAIM, RECLAIMER, evict(victim, ["v-2"]))
    assert result.failures == (
        Failure(
            victim="v",
            kind=FailureKind.NEVER,
            pod_set=None,
            active=3,
            evicted=1,
            min_available=0,
            min_runtime=MinRuntime.NEVER,
        ),
    )
    assert (
        str(result.failures[0]) == "job 'v': min-runtime is never, but 1 task(s) would be evicted"
    )


def test_a_never_min_runtime_fails_a_semi_preemptible_victim_too() -> None:
    victim = job("v", "vault", preemptibility="semi-preemptible", statuses=("Running",) * 3)
    result = session().validate(Action.RECLAIM, RECLAIMER, evict(victim, ["v-1", "v-2"]))
    assert [(f.kind, f.pod_set, f.active, f.evicted) for f in result.failures] == [
        (FailureKind.NEVER, None, 3, 2)
    ]


def test_evicting_nothing_from_a_never_victim_is_valid() -> None:
    victim = job("v", "vault", statuses=("Running",) * 3)
    assert session().validate(Action.RECLAIM, RECLAIMER, evict(victim, [])).failures == ()


# -- elastic victims ----------------------------------------------------------------------------


def test_an_unprotected_elastic_victim_may_lose_every_task() -> None:
    victim = job(min_available=2, statuses=("Running",) * 3)
    assert validate(victim, ["v-0", "v-1", "v-2"]).failures == ()


def test_a_protected_elastic_victim_may_go_down_to_exactly_min_available() -> None:
    victim = job(start=RECENT, min_available=1, statuses=("Running",) * 3)
    assert validate(victim, ["v-1", "v-2"]).failures == ()


def test_a_protected_elastic_victim_may_not_go_below_min_available() -> None:
    victim = job(start=RECENT, min_available=2, statuses=("Running",) * 3)
    result = validate(victim, ["v-1", "v-2"])
    assert not result
    (failure,) = result.failures
    assert (failure.active, failure.evicted, failure.min_available) == (3, 2, 2)
    assert failure.kind is FailureKind.PROTECTED
    assert failure.pod_set == "default"
    assert str(failure) == (
        "job 'v' pod set 'default': 3 active - 2 evicted = 1 < min_available 2 "
        "(protected by min-runtime 10m until 2026-01-01T12:05:00Z)"
    )


def test_the_same_eviction_is_valid_once_protection_ends() -> None:
    victim = job(start=RECENT, min_available=2, statuses=("Running",) * 3)
    assert validate(victim, ["v-1", "v-2"], at=NOW + timedelta(minutes=5)).failures == ()
    assert not validate(victim, ["v-1", "v-2"], at=NOW + timedelta(minutes=5, microseconds=-1))


def test_a_protected_elastic_victim_with_min_available_zero_may_lose_every_active_task() -> None:
    victim = job(start=RECENT, min_available=0, statuses=("Running", "Running", "Pending"))
    s = session()
    evictable = s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks
    assert [task.id for task in evictable] == ["v-1", "v-0"]
    assert s.validate(Action.PREEMPT, PREEMPTOR, evict(victim, evictable)).failures == ()


def test_releasing_tasks_count_as_active() -> None:
    victim = job(start=RECENT, min_available=2, statuses=("Running", "Running", "Releasing"))
    assert validate(victim, ["v-0"]).failures == ()
    (failure,) = validate(victim, ["v-0", "v-1"]).failures
    assert (failure.active, failure.evicted, failure.min_available) == (3, 2, 2)


def test_stuck_in_releasing_and_allocated_tasks_count_as_active() -> None:
    victim = job(start=RECENT, min_available=2, statuses=("StuckInReleasing", "Allocated", "Bound"))
    assert validate(victim, ["v-2"]).failures == ()


def test_pending_and_finished_tasks_do_not_count_as_active() -> None:
    victim = job(
        start=RECENT, min_available=2, statuses=("Running", "Running", "Pending", "Failed")
    )
    (failure,) = validate(victim, ["v-0"]).failures
    assert (failure.active, failure.evicted, failure.min_available) == (2, 1, 2)


def test_an_evicted_task_counts_whatever_its_status() -> None:
    victim = job(start=RECENT, min_available=2, statuses=("Running", "Running", "Pending"))
    (failure,) = validate(victim, ["v-2"]).failures
    assert (failure.active, failure.evicted, failure.min_available) == (2, 1, 2)


def elastic_two_pod_sets(start: datetime | None, preemptibility: str = "preemptible") -> Job:
    return Job(
        "v",
        "a",
        priority=10,
        preemptibility=preemptibility,
        start_time=start,
        pod_sets=[
            PodSet("workers", 2, [Task("w0"), Task("w1"), Task("w2"), Task("w3", "Pending")]),
            PodSet("ps", 3, [Task("p0"), Task("p1", "Pending"), Task("p2", "Pending")]),
        ],
    )


def test_only_pod_sets_with_evicted_tasks_are_checked() -> None:
    # 'ps' is already below its min_available (1 active < 3) but loses nothing.
    victim = elastic_two_pod_sets(RECENT)
    assert validate(victim, ["w2"]).failures == ()


def test_every_failing_pod_set_is_named() -> None:
    victim = elastic_two_pod_sets(RECENT)
    result = validate(victim, ["w1", "w2", "p1"])
    assert [(f.pod_set, f.active, f.evicted, f.min_available) for f in result.failures] == [
        ("workers", 3, 2, 2),
        ("ps", 1, 1, 3),
    ]
    assert result.failing_victims == ("v",)


# -- semi-preemptible victims -------------------------------------------------------------------


def test_the_semi_preemptible_core_is_kept_after_min_runtime() -> None:
    victim = job(preemptibility="semi-preemptible", min_available=2, statuses=("Running",) * 3)
    s = session()
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected is False
    result = s.validate(Action.PREEMPT, PREEMPTOR, evict(victim, ["v-1", "v-2"]))
    assert result.failures == (
        Failure(
            victim="v",
            kind=FailureKind.CORE,
            pod_set="default",
            active=3,
            evicted=2,
            min_available=2,
            min_runtime=TEN_MINUTES,
            protected_until=NOW - timedelta(minutes=50),
        ),
    )
    assert str(result.failures[0]) == (
        "job 'v' pod set 'default': 3 active - 2 evicted = 1 < min_available 2 "
        "(semi-preemptible core)"
    )
    assert s.validate(Action.PREEMPT, PREEMPTOR, evict(victim, ["v-2"])).failures == ()


def test_a_positive_min_runtime_changes_nothing_for_a_semi_preemptible_victim() -> None:
    victim = elastic_two_pod_sets(RECENT, "semi-preemptible")
    protected, expired = session(), session(NOW + timedelta(hours=1))
    assert protected.protection(Action.PREEMPT, PREEMPTOR, victim).protected is True
    assert expired.protection(Action.PREEMPT, PREEMPTOR, victim).protected is False
    for s in (protected, expired):
        assert [t.id for t in s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks] == ["w2"]
        assert s.validate(Action.PREEMPT, PREEMPTOR, evict(victim, ["w2"])).failures == ()
        failures = s.validate(Action.PREEMPT, PREEMPTOR, evict(victim, ["w1", "w2"])).failures
        assert [(f.kind, f.pod_set, f.active, f.evicted) for f in failures] == [
            (FailureKind.CORE, "workers", 3, 2)
        ]


def test_a_semi_preemptible_victim_with_min_available_zero_may_lose_everything() -> None:
    victim = job(preemptibility="semi-preemptible", min_available=0, start=RECENT)
    assert validate(victim, ["v-0"]).failures == ()


# -- scenario shapes and errors -----------------------------------------------------------------


def test_evicting_a_task_the_job_does_not_have_is_an_invalid_scenario() -> None:
    victim = elastic_two_pod_sets(RECENT)
    with pytest.raises(InvalidScenario) as caught:
        validate(victim, ["w0", "ghost-task"])
    assert str(caught.value) == "job 'v' has no task 'ghost-task' (its pod sets: 'workers', 'ps')"
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, MinRuntimeError)


def test_a_task_of_another_job_is_an_invalid_scenario_even_for_an_unprotected_victim() -> None:
    other = job("other")
    with pytest.raises(InvalidScenario, match=r"job 'v' has no task 'other-0'"):
        validate(job(), [other.pod_sets[0].tasks[0]])


def test_an_unknown_task_is_reported_even_when_the_min_runtime_is_never() -> None:
    victim = job("v", "vault")
    with pytest.raises(InvalidScenario, match=r"job 'v' has no task 'nope'"):
        session().validate(Action.RECLAIM, RECLAIMER, evict(victim, ["nope"]))


def test_evictions_as_a_mapping_or_as_pairs_give_the_same_result() -> None:
    first = job("v1", start=RECENT, min_available=2, statuses=("Running",) * 3)
    second = job("v2", start=RECENT)
    as_mapping = session().validate(
        Action.PREEMPT, PREEMPTOR, evict(first, ["v1-1", "v1-2"]) | evict(second, ["v2-0"])
    )
    as_pairs = session().validate(
        Action.PREEMPT, PREEMPTOR, [(first, ["v1-1", "v1-2"]), (second, ["v2-0"])]
    )
    assert as_mapping == as_pairs
    assert as_pairs.failing_victims == ("v1", "v2")


def test_tasks_may_be_given_as_task_objects_or_ids() -> None:
    victim = job(start=RECENT, min_available=2, statuses=("Running",) * 3)
    tasks = victim.pod_sets[0].tasks
    by_object = validate(victim, [tasks[1], tasks[2]])
    by_id = validate(victim, ["v-1", "v-2"])
    assert by_object == by_id
    assert by_id.failures[0].evicted == 2


def test_duplicate_evictions_are_counted_once() -> None:
    victim = job(start=RECENT, min_available=2, statuses=("Running",) * 3)
    task = victim.pod_sets[0].tasks[2]
    assert validate(victim, [task, "v-2", task]).failures == ()
    (failure,) = validate(victim, ["v-1", task, "v-1", "v-2"]).failures
    assert failure.evicted == 2


def test_a_scenario_result_names_each_failing_victim_once_in_order() -> None:
    broken = elastic_two_pod_sets(RECENT)
    fine = job("fine")
    locked = job("locked", start=RECENT)
    result = session().validate(
        "preempt",
        PREEMPTOR,
        [(locked, ["locked-0"]), (fine, ["fine-0"]), (broken, ["w1", "w2", "p0"])],
    )
    assert result.action is Action.PREEMPT
    assert result.preemptor == "pre"
    assert bool(result) is False
    assert result.valid is False
    assert result.failing_victims == ("locked", "v")
    assert [(f.victim, f.pod_set) for f in result.failures] == [
        ("locked", "default"),
        ("v", "workers"),
        ("v", "ps"),
    ]
    assert str(result) == (
        "preempt scenario of 'pre': invalid: "
        "job 'locked' pod set 'default': 1 active - 1 evicted = 0 < min_available 1 "
        "(protected by min-runtime 10m until 2026-01-01T12:05:00Z); "
        "job 'v' pod set 'workers': 3 active - 2 evicted = 1 < min_available 2 "
        "(protected by min-runtime 10m until 2026-01-01T12:05:00Z); "
        "job 'v' pod set 'ps': 1 active - 1 evicted = 0 < min_available 3 "
        "(protected by min-runtime 10m until 2026-01-01T12:05:00Z)"
    )


def test_a_valid_scenario_result_is_true_and_says_so() -> None:
    result = session().validate(Action.RECLAIM, RECLAIMER, evict(job(), ["v-0"]))
    assert bool(result) is True
    assert result.failing_victims == ()
    assert str(result) == "reclaim scenario of 'rec': valid"


def test_an_empty_scenario_is_valid() -> None:
    assert session().validate(Action.PREEMPT, PREEMPTOR, {}) == ScenarioResult(
        action=Action.PREEMPT, preemptor="pre", failures=()
    )


def test_the_validator_ignores_the_fundamentals() -> None:
    # A non-preemptible victim of a higher priority in another queue: the filter's business.
    victim = Job(
        "v",
        "b",
        priority=500,
        preemptibility="non-preemptible",
        start_time=LONG_AGO,
        pod_sets=[PodSet(tasks=[Task("v-0")])],
    )
    assert validate(victim, ["v-0"]).failures == ()


def test_a_protection_failure_for_never_shows_forever() -> None:
    failure = Failure(
        victim="v",
        kind=FailureKind.PROTECTED,
        pod_set="default",
        active=2,
        evicted=2,
        min_available=1,
        min_runtime=MinRuntime.NEVER,
        protected_until=FOREVER,
    )
    assert str(failure) == (
        "job 'v' pod set 'default': 2 active - 2 evicted = 0 < min_available 1 "
        "(protected by min-runtime never until forever)"
    )


def test_validate_victim_on_facts() -> None:
    facts = JobFacts.of(job(start=0, min_available=2, statuses=("Running",) * 3))
    ten_seconds = MinRuntime("10s")

    def judged(tasks: list[str], mr: MinRuntime, now_ns: int) -> list[Failure]:
        found = protection(mr, facts.start_ns, NO_INPUTS, NO_SETTINGS, now_ns)
        return validate_victim(facts, tasks, mr, found)

    assert judged(["v-0"], ten_seconds, 9 * 10**9) == []
    [failure] = judged(["v-0", "v-1"], ten_seconds, 9 * 10**9)
    assert (failure.kind, failure.active, failure.evicted, failure.protected_until) == (
        FailureKind.PROTECTED,
        3,
        2,
        None,
    )
    assert judged(["v-0", "v-1"], ten_seconds, 10 * 10**9) == []
    assert judged([], MinRuntime.NEVER, 0) == []


# -- properties ---------------------------------------------------------------------------------


@attrs.frozen
class Scenario:
    """A random scenario: a tree, a config, ``now``, an action, a preemptor, victims and, for
    each victim, a random selection of its tasks (any status, duplicates possible)."""

    tree: QueueTree
    config: Config
    now: datetime
    action: Action
    preemptor: Job
    evictions: list[tuple[Job, list[Task]]]

    def session(self) -> Session:
        return Session(self.tree, self.config, self.now)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    tree = draw(queue_trees(max_queues=3))
    names = (*tree, *tree, "ghost")
    defaults = st.one_of(st.just(MinRuntime("1h")), min_runtimes(max_seconds=6 * 3600))
    config = Config(
        default_preempt_min_runtime=draw(defaults),
        default_reclaim_min_runtime=draw(defaults),
        reclaim_resolve_method=draw(st.sampled_from(["lca", "queue"])),
    )
    now = BASE_TIME + timedelta(seconds=draw(st.integers(-900, 8 * 3600)))
    action = draw(st.sampled_from(list(Action)))
    preemptor = draw(jobs(queues=(*tree, *names), id="preemptor"))
    preemptor = attrs.evolve(preemptor, priority=draw(st.sampled_from([50, 100, 125, 200])))
    victim_queues = (preemptor.queue,) * 4 + names if action is Action.PREEMPT else names
    evictions = []
    for number in range(draw(st.integers(0, 4))):
        victim = draw(jobs(queues=victim_queues, id=f"victim-{number}"))
        if draw(st.integers(0, 3)):
            ago = timedelta(seconds=draw(st.integers(-600, 6 * 3600)))
            victim = attrs.evolve(victim, start_time=now - ago)
        tasks = victim.tasks()
        chosen = draw(st.lists(st.sampled_from(tasks), max_size=6)) if tasks else []
        evictions.append((victim, chosen))
    return Scenario(tree, config, now, action, preemptor, evictions)


def effective_preemptibility(job: Job) -> Preemptibility:
    if job.preemptibility is not None:
        return job.preemptibility
    return Preemptibility.PREEMPTIBLE if job.priority < 100 else Preemptibility.NON_PREEMPTIBLE


def broken_pod_sets(scenario: Scenario, victim: Job, evicted: list[Task]) -> list[str | None]:
    """The rule of §7/§9 as this library applies it, written out independently: the pod sets a
    scenario leaves below ``min_available`` while they are guarded (``None`` for never)."""
    if not evicted:
        return []
    mr = resolve(
        scenario.tree, scenario.config, scenario.action, scenario.preemptor.queue, victim.queue
    ).min_runtime
    if mr.is_never:
        return [None]
    semi = effective_preemptibility(victim) is Preemptibility.SEMI_PREEMPTIBLE
    if not semi and not is_protected(mr, victim.start_time, scenario.now):
        return []
    evicted_ids = {task.id for task in evicted}
    broken: list[str | None] = []
    for pod_set in victim.pod_sets:
        gone = sum(1 for task in pod_set.tasks if task.id in evicted_ids)
        active = sum(1 for task in pod_set.tasks if task.status.is_active)
        if gone and active - gone < pod_set.min_available:
            broken.append(pod_set.name)
    return broken


@given(scenarios())
def test_a_scenario_is_valid_iff_no_guarded_pod_set_drops_below_min_available(
    scenario: Scenario,
) -> None:
    """Law: a scenario the validator accepts never leaves a protected pod set, or a
    semi-preemptible core, below ``min_available``, nor evicts under a never MR; and it rejects
    exactly the scenarios that would."""
    result = scenario.session().validate(scenario.action, scenario.preemptor, scenario.evictions)
    expected = [
        (victim.id, name)
        for victim, evicted in scenario.evictions
        for name in broken_pod_sets(scenario, victim, evicted)
    ]
    assert [(failure.victim, failure.pod_set) for failure in result.failures] == expected
    assert bool(result) is (expected == [])


@given(scenarios())
def test_evicting_exactly_the_evictable_tasks_is_a_valid_scenario(scenario: Scenario) -> None:
    """Law: ``evictable_tasks`` is a subset of the victim's active tasks and evicting exactly
    those tasks, from every victim at once, is a valid scenario."""
    s = scenario.session()
    plan = []
    for victim, _ in scenario.evictions:
        tasks = s.verdict(scenario.action, scenario.preemptor, victim).tasks
        active_ids = {task.id for task in victim.tasks() if task.status.is_active}
        assert {task.id for task in tasks} <= active_ids
        plan.append((victim, tasks))
    result = s.validate(scenario.action, scenario.preemptor, plan)
    assert result.failures == ()
    assert result


def test_evictions_that_are_neither_pairs_nor_a_mapping_are_refused_naming_them() -> None:
    victim = job(statuses=("Running",))
    with pytest.raises(InvalidScenario) as caught:
        session().validate(Action.PREEMPT, PREEMPTOR, [victim])  # type: ignore[arg-type]
    assert str(caught.value).startswith(
        "evictions: expected (job, tasks) pairs, or a mapping from job to tasks where the jobs "
        "are hashable, got Job(id='v'"
    )


def test_the_pairs_form_takes_a_schedulers_unhashable_jobs() -> None:
    """A plain dataclass is unhashable: the pairs form needs no hashing."""

    @dataclass
    class Own:
        id: str
        queue: str
        priority: int
        preemptibility: str | None
        start_time: float | None
        pod_sets: list[PodSet]

    own = Own("own", "a", 10, "preemptible", None, [PodSet(tasks=[Task("own-0")])])
    with pytest.raises(TypeError):
        hash(own)
    assert session().validate(Action.PREEMPT, PREEMPTOR, [(own, ["own-0"])]).valid

"""Jobs, pod sets, tasks, task statuses and the facts derived from them (docs/spec/jobs.md)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Hashable, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from hypothesis import given

from minruntime import (
    Config,
    InvalidJob,
    InvalidPreemptibility,
    InvalidTimestamp,
    Job,
    JobLike,
    PodSet,
    Preemptibility,
    PreemptibilitySource,
    Queue,
    QueueTree,
    Session,
    SubGroup,
    Task,
    TaskStatus,
)
from minruntime._facts import JobFacts
from minruntime._time import from_ns
from minruntime.jobs import (
    ACTIVE_STATUSES,
    ALLOCATED_STATUSES,
    DEFAULT_POD_SET,
    DEFAULT_PRIORITY,
    count_active,
)
from minruntime.testing import jobs

ALL_STATUS_NAMES = [
    "Pending",
    "Gated",
    "Allocated",
    "Pipelined",
    "Binding",
    "Bound",
    "Running",
    "Releasing",
    "StuckInReleasing",
    "Succeeded",
    "Failed",
    "Unknown",
    "Deleted",
]
ACTIVE_NAMES = {
    "Allocated",
    "Pipelined",
    "Binding",
    "Bound",
    "Running",
    "Releasing",
    "StuckInReleasing",
}
ALLOCATED_NAMES = {"Allocated", "Binding", "Bound", "Running"}


# -- TaskStatus ---------------------------------------------------------------------------------


def test_task_status_has_exactly_the_thirteen_reference_statuses() -> None:
    assert [status.value for status in TaskStatus] == ALL_STATUS_NAMES


@pytest.mark.parametrize("name", ALL_STATUS_NAMES)
def test_task_status_str_is_its_reference_name(name: str) -> None:
    assert str(TaskStatus(name)) == name


def test_active_statuses_are_exactly_those_holding_resources() -> None:
    assert {status.value for status in ACTIVE_STATUSES} == ACTIVE_NAMES


def test_allocated_statuses_are_exactly_those_that_stamp_a_start_time() -> None:
    assert {status.value for status in ALLOCATED_STATUSES} == ALLOCATED_NAMES


@pytest.mark.parametrize("name", ALL_STATUS_NAMES)
def test_is_active_and_is_allocated_agree_with_the_sets(name: str) -> None:
    status = TaskStatus(name)
    assert (status.is_active, status.is_allocated) == (
        name in ACTIVE_NAMES,
        name in ALLOCATED_NAMES,
    )


@pytest.mark.parametrize("name", ALL_STATUS_NAMES)
@pytest.mark.parametrize("spelling", [str.lower, str.upper, str.swapcase, lambda s: s])
def test_task_status_parse_ignores_case(name: str, spelling: Callable[[str], str]) -> None:
    assert TaskStatus.parse(spelling(name)) is TaskStatus(name)


def test_task_status_parse_returns_a_status_unchanged() -> None:
    assert TaskStatus.parse(TaskStatus.BOUND) is TaskStatus.BOUND


@pytest.mark.parametrize("value", ["Runing", "", "stuck-in-releasing", None, 3])
def test_task_status_parse_rejects_an_unknown_status_naming_it(value: object) -> None:
    with pytest.raises(ValueError, match="invalid task status") as caught:
        TaskStatus.parse(value)
    assert repr(value) in str(caught.value)
    assert "StuckInReleasing" in str(caught.value)


@dataclasses.dataclass
class OwnTask:
    id: str
    status: str


def test_count_active_reads_each_status_once_in_any_spelling() -> None:
    # a one-shot iterable of a scheduler's own tasks, one status in another case: all counted
    tasks = iter([OwnTask("a", "Running"), OwnTask("b", "running"), OwnTask("c", "PENDING")])
    assert count_active(tasks) == 2


def test_count_active_rejects_an_unhashable_status_as_a_status() -> None:
    unhashable: Any = ["x"]
    with pytest.raises(ValueError, match=r"invalid task status \['x'\]"):
        count_active([OwnTask("a", "Running"), OwnTask("b", unhashable)])


# -- Task ---------------------------------------------------------------------------------------


def test_task_defaults_to_running() -> None:
    assert Task("t").status is TaskStatus.RUNNING


def test_task_converts_a_string_status_in_any_case() -> None:
    assert Task("t", "stuckINreleasing").status is TaskStatus.STUCK_IN_RELEASING


def test_task_rejects_an_unknown_status_naming_it() -> None:
    with pytest.raises(ValueError, match="invalid task status 'Sleeping'"):
        Task("t", "Sleeping")


# -- PodSet -------------------------------------------------------------------------------------


def test_pod_set_defaults() -> None:
    pod_set = PodSet()
    assert (pod_set.name, pod_set.min_available, pod_set.tasks) == ("default", 1, ())
    assert DEFAULT_POD_SET == "default"


def test_pod_set_keeps_its_tasks_as_a_tuple_in_listing_order() -> None:
    tasks = [Task("b"), Task("a", "Pending")]
    assert PodSet("w", 1, tasks).tasks == (Task("b"), Task("a", TaskStatus.PENDING))


def test_pod_set_accepts_min_available_zero() -> None:
    assert PodSet("w", min_available=0).min_available == 0


@pytest.mark.parametrize("value", [-1, True, False, 1.0, 2.5, "2", None])
def test_pod_set_rejects_a_min_available_that_is_not_an_int_at_least_zero(value: object) -> None:
    with pytest.raises(ValueError, match="min_available: expected an integer >= 0") as caught:
        PodSet("workers", min_available=value)  # type: ignore[arg-type]
    assert "PodSet 'workers'" in str(caught.value)
    assert f"got {value!r}" in str(caught.value)


# -- Job ----------------------------------------------------------------------------------------


def test_job_defaults() -> None:
    job = Job("j", "q")
    assert (job.id, job.queue, job.priority, job.preemptibility, job.start_time) == (
        "j",
        "q",
        50,
        None,
        None,
    )
    assert DEFAULT_PRIORITY == 50
    assert job.pod_sets == (PodSet("default", 1, ()),)


def test_job_rejects_duplicate_pod_set_names_naming_job_and_names() -> None:
    with pytest.raises(ValueError, match="duplicate pod set names") as caught:
        Job("train-1", "q", pod_sets=[PodSet("w"), PodSet("ps"), PodSet("w")])
    assert "job 'train-1'" in str(caught.value)
    assert "['w', 'ps', 'w']" in str(caught.value)


def test_job_tasks_lists_every_task_of_every_pod_set_in_order() -> None:
    job = Job(
        "j",
        "q",
        pod_sets=[
            PodSet("a", 1, [Task("a0"), Task("a1", "Pending")]),
            PodSet("b", 0, [Task("b0", "Failed")]),
        ],
    )
    assert [task.id for task in job.tasks()] == ["a0", "a1", "b0"]


@pytest.mark.parametrize("value", ["", None])
def test_job_empty_or_missing_preemptibility_means_none(value: str | None) -> None:
    assert Job("j", "q", preemptibility=value).preemptibility is None


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("preemptible", Preemptibility.PREEMPTIBLE),
        ("Preemptible", Preemptibility.PREEMPTIBLE),
        ("NON-PREEMPTIBLE", Preemptibility.NON_PREEMPTIBLE),
        ("Non-Preemptible", Preemptibility.NON_PREEMPTIBLE),
        ("semi-Preemptible", Preemptibility.SEMI_PREEMPTIBLE),
        (Preemptibility.SEMI_PREEMPTIBLE, Preemptibility.SEMI_PREEMPTIBLE),
    ],
)
def test_job_preemptibility_is_parsed_case_insensitively(
    spelling: Preemptibility | str, expected: Preemptibility
) -> None:
    assert Job("j", "q", preemptibility=spelling).preemptibility is expected


def test_job_rejects_an_invalid_preemptibility_naming_value_and_origin() -> None:
    with pytest.raises(InvalidPreemptibility) as caught:
        Job("j", "q", preemptibility="nonpreemptible")
    assert "'nonpreemptible'" in str(caught.value)
    assert "Job preemptibility" in str(caught.value)
    assert caught.value.value == "nonpreemptible"


def test_job_keeps_an_aware_start_time() -> None:
    start = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
    assert Job("j", "q", start_time=start).start_time == start


def test_job_keeps_an_aware_start_time_in_another_zone_as_the_same_instant() -> None:
    start = datetime(2026, 3, 1, 14, 30, tzinfo=timezone(timedelta(hours=2)))
    assert Job("j", "q", start_time=start).start_time == datetime(2026, 3, 1, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0, datetime(1970, 1, 1, tzinfo=UTC)),
        (60, datetime(1970, 1, 1, 0, 1, tzinfo=UTC)),
        (1.5, datetime(1970, 1, 1, 0, 0, 1, 500_000, tzinfo=UTC)),
        (1_767_225_600, datetime(2026, 1, 1, tzinfo=UTC)),
    ],
)
def test_job_converts_a_posix_start_time_to_a_utc_datetime(
    seconds: float, expected: datetime
) -> None:
    start = Job("j", "q", start_time=seconds).start_time
    assert start == expected
    assert start is not None
    assert start.tzinfo is not None
    assert start.utcoffset() == timedelta(0)


def test_job_rejects_a_naive_start_time_naming_value_and_origin() -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        Job("j", "q", start_time=datetime(2026, 1, 1, 8))
    assert "naive datetime 2026-01-01 08:00:00" in str(caught.value)
    assert "start_time" in str(caught.value)


@pytest.mark.parametrize("value", [True, "2026-01-01T00:00:00Z", float("nan")])
def test_job_rejects_a_start_time_that_is_not_a_time(value: object) -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        Job("j", "q", start_time=value)  # type: ignore[arg-type]
    assert repr(value) in str(caught.value)
    assert "start_time" in str(caught.value)


# -- JobFacts: elasticity and counts -------------------------------------------------------------


def gang(*statuses: str, min_available: int, name: str = "default") -> PodSet:
    return PodSet(
        name,
        min_available,
        [Task(f"{name}-{i}", status) for i, status in enumerate(statuses)],
    )


@pytest.mark.parametrize("extra", ["Pending", "Succeeded", "Failed", "Gated", "Deleted"])
def test_a_job_with_an_extra_task_of_any_status_is_elastic(extra: str) -> None:
    job = Job("j", "q", pod_sets=[gang("Running", "Running", extra, min_available=2)])
    facts = JobFacts.of(job)
    assert (facts.elastic, facts.active_count) == (True, 2)


@pytest.mark.parametrize("min_available", [3, 4])
def test_a_job_with_min_available_at_least_its_task_count_is_not_elastic(
    min_available: int,
) -> None:
    job = Job(
        "j", "q", pod_sets=[gang("Running", "Running", "Pending", min_available=min_available)]
    )
    assert JobFacts.of(job).elastic is False


def test_a_job_is_elastic_when_any_one_pod_set_is() -> None:
    job = Job(
        "j",
        "q",
        pod_sets=[
            gang("Running", "Running", min_available=2, name="ps"),
            gang("Running", "Running", "Running", min_available=2, name="w"),
        ],
    )
    assert JobFacts.of(job).elastic is True


def test_a_job_without_tasks_is_not_elastic() -> None:
    assert JobFacts.of(Job("j", "q")).elastic is False


def test_min_available_zero_with_one_task_is_elastic() -> None:
    job = Job("j", "q", pod_sets=[gang("Pending", min_available=0)])
    assert JobFacts.of(job).elastic is True


def test_active_count_includes_releasing_but_not_pending_succeeded_or_failed() -> None:
    job = Job(
        "j",
        "q",
        pod_sets=[
            gang("Running", "Releasing", "Pending", min_available=1, name="a"),
            gang("StuckInReleasing", "Succeeded", "Failed", "Pipelined", min_available=1, name="b"),
        ],
    )
    facts = JobFacts.of(job)
    assert facts.active_count == 4
    assert [(ps.name, ps.size, len(ps.active)) for ps in facts.pod_sets] == [
        ("a", 3, 2),
        ("b", 4, 2),
    ]


@pytest.mark.parametrize("name", ALL_STATUS_NAMES)
def test_a_single_task_counts_as_active_exactly_for_active_statuses(name: str) -> None:
    facts = JobFacts.of(Job("j", "q", pod_sets=[gang(name, min_available=1)]))
    assert facts.active_count == (1 if name in ACTIVE_NAMES else 0)


# -- JobFacts: effective preemptibility ----------------------------------------------------------


@pytest.mark.parametrize(
    ("priority", "expected"),
    [
        (0, Preemptibility.PREEMPTIBLE),
        (99, Preemptibility.PREEMPTIBLE),
        (100, Preemptibility.NON_PREEMPTIBLE),
        (125, Preemptibility.NON_PREEMPTIBLE),
    ],
)
def test_without_explicit_value_the_legacy_rule_decides_at_threshold_100(
    priority: int, expected: Preemptibility
) -> None:
    facts = JobFacts.of(Job("j", "q", priority=priority))
    assert (facts.preemptibility, facts.preemptibility_source) == (
        expected,
        PreemptibilitySource.LEGACY_PRIORITY,
    )


@pytest.mark.parametrize(
    ("priority", "expected"),
    [
        (59, Preemptibility.PREEMPTIBLE),
        (60, Preemptibility.NON_PREEMPTIBLE),
        (99, Preemptibility.NON_PREEMPTIBLE),
    ],
)
def test_the_legacy_rule_uses_a_custom_threshold(priority: int, expected: Preemptibility) -> None:
    assert JobFacts.of(Job("j", "q", priority=priority), threshold=60).preemptibility is expected


@pytest.mark.parametrize(
    ("explicit", "priority"),
    [
        (Preemptibility.PREEMPTIBLE, 125),
        (Preemptibility.NON_PREEMPTIBLE, 10),
        (Preemptibility.SEMI_PREEMPTIBLE, 100),
    ],
)
def test_an_explicit_preemptibility_wins_over_the_priority(
    explicit: Preemptibility, priority: int
) -> None:
    facts = JobFacts.of(Job("j", "q", priority=priority, preemptibility=explicit))
    assert (facts.preemptibility, facts.preemptibility_source) == (
        explicit,
        PreemptibilitySource.EXPLICIT,
    )


def test_job_facts_copy_identity_fields_and_start() -> None:
    job = Job("j", "team", priority=75, start_time=90)
    facts = JobFacts.of(job)
    assert (facts.job, facts.id, facts.queue, facts.priority) == (job, "j", "team", 75)
    assert facts.start_ns == 90 * 10**9
    assert from_ns(facts.start_ns) == datetime(1970, 1, 1, 0, 1, 30, tzinfo=UTC)


def test_job_facts_of_a_job_that_never_started() -> None:
    facts = JobFacts.of(Job("j", "q"))
    assert facts.start_ns is None


def test_job_facts_start_ns_is_exact_for_a_datetime_with_microseconds() -> None:
    job = Job("j", "q", start_time=datetime(1970, 1, 1, 0, 0, 2, 250_001, tzinfo=UTC))
    assert JobFacts.of(job).start_ns == 2_250_001_000


# -- JobFacts: core, surplus and active tasks ----------------------------------------------------


def two_pod_set_job() -> Job:
    return Job(
        "j",
        "q",
        pod_sets=[
            PodSet(
                "w",
                2,
                [
                    Task("w0", "Pending"),
                    Task("w1"),
                    Task("w2", "Succeeded"),
                    Task("w3", "Releasing"),
                    Task("w4"),
                    Task("w5", "Bound"),
                ],
            ),
            PodSet("ps", 1, [Task("p0"), Task("p1", "Failed")]),
            PodSet("ev", 0, [Task("e0"), Task("e1", "Allocated")]),
        ],
    )


def ids(tasks: Sequence[object]) -> list[Hashable]:
    return [task.id for task in tasks]  # type: ignore[attr-defined]


def test_core_tasks_are_the_first_min_available_active_tasks_of_each_pod_set() -> None:
    assert ids(JobFacts.of(two_pod_set_job()).core_tasks()) == ["w1", "w3", "p0"]


def test_surplus_tasks_are_the_active_tasks_above_min_available() -> None:
    assert ids(JobFacts.of(two_pod_set_job()).surplus_tasks()) == ["w4", "w5", "e0", "e1"]


def test_active_tasks_lists_every_active_task_in_listing_order() -> None:
    assert ids(JobFacts.of(two_pod_set_job()).active_tasks()) == [
        "w1",
        "w3",
        "w4",
        "w5",
        "p0",
        "e0",
        "e1",
    ]


def test_per_pod_set_surplus_counts() -> None:
    facts = JobFacts.of(two_pod_set_job())
    assert [(ps.name, ps.surplus) for ps in facts.pod_sets] == [("w", 2), ("ps", 0), ("ev", 2)]


def test_core_is_all_active_tasks_when_fewer_than_min_available_are_active() -> None:
    job = Job("j", "q", pod_sets=[gang("Running", "Pending", "Running", min_available=3)])
    facts = JobFacts.of(job)
    assert ids(facts.core_tasks()) == ["default-0", "default-2"]
    assert (facts.surplus_tasks(), facts.has_surplus) == ((), False)


def test_has_surplus_when_some_pod_set_has_more_active_tasks_than_min_available() -> None:
    assert JobFacts.of(two_pod_set_job()).has_surplus is True


def test_no_surplus_when_the_extra_tasks_are_not_active() -> None:
    job = Job("j", "q", pod_sets=[gang("Running", "Running", "Pending", min_available=2)])
    facts = JobFacts.of(job)
    assert (facts.elastic, facts.has_surplus) == (True, False)


def test_task_pod_sets_maps_every_task_of_any_status_to_its_pod_set() -> None:
    assert JobFacts.of(two_pod_set_job()).task_pod_sets() == {
        "w0": "w",
        "w1": "w",
        "w2": "w",
        "w3": "w",
        "w4": "w",
        "w5": "w",
        "p0": "ps",
        "p1": "ps",
        "e0": "ev",
        "e1": "ev",
    }


# -- A scheduler's own job class ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MyTask:
    id: str
    status: str


@dataclasses.dataclass(frozen=True)
class MyPodSet:
    name: str
    min_available: int
    tasks: list[MyTask]


@dataclasses.dataclass(frozen=True)
class MyJob:
    id: str
    queue: str
    priority: int
    preemptibility: str | None
    start_time: float | None
    pod_sets: list[MyPodSet]


class PlainTask:
    """Not a dataclass: attributes set in __init__."""

    def __init__(self, id: str, status: str) -> None:
        self.id = id
        self.status = status


class PlainPodSet:
    def __init__(self, name: str, min_available: int, tasks: list[PlainTask]) -> None:
        self.name = name
        self.min_available = min_available
        self.tasks = tasks


class PlainJob:
    """A plain class whose pod sets are properties, with an aware start time in another zone."""

    def __init__(self, pod_sets: list[PlainPodSet]) -> None:
        self.id = ("ns", "plain")
        self.queue = "q"
        self.priority = 100
        self.preemptibility = ""
        self.start_time = datetime(2026, 1, 1, 2, tzinfo=timezone(timedelta(hours=2)))
        self._pod_sets = pod_sets

    @property
    def pod_sets(self) -> list[PlainPodSet]:
        return self._pod_sets


def my_job(preemptibility: str | None = None, priority: int = 50) -> MyJob:
    return MyJob(
        id="ns/train",
        queue="team-a",
        priority=priority,
        preemptibility=preemptibility,
        start_time=1_767_225_600.5,
        pod_sets=[
            MyPodSet(
                "w",
                2,
                [
                    MyTask("w0", "running"),
                    MyTask("w1", "PENDING"),
                    MyTask("w2", "Releasing"),
                    MyTask("w3", "running"),
                ],
            ),
            MyPodSet("ps", 1, [MyTask("p0", "bound")]),
        ],
    )


def the_same_job_as_minruntime_job(preemptibility: str | None = None, priority: int = 50) -> Job:
    return Job(
        "ns/train",
        "team-a",
        priority=priority,
        preemptibility=preemptibility,
        start_time=1_767_225_600.5,
        pod_sets=[
            PodSet(
                "w",
                2,
                [
                    Task("w0", "Running"),
                    Task("w1", "Pending"),
                    Task("w2", "Releasing"),
                    Task("w3", "Running"),
                ],
            ),
            PodSet("ps", 1, [Task("p0", "Bound")]),
        ],
    )


def summary(facts: JobFacts) -> tuple[object, ...]:
    return (
        facts.id,
        facts.queue,
        facts.priority,
        facts.start_ns,
        None if facts.start_ns is None else from_ns(facts.start_ns),
        facts.preemptibility,
        facts.preemptibility_source,
        facts.elastic,
        facts.active_count,
        facts.has_surplus,
        ids(facts.core_tasks()),
        ids(facts.surplus_tasks()),
        ids(facts.active_tasks()),
        facts.task_pod_sets(),
        [(ps.name, ps.min_available, ps.size, ps.surplus) for ps in facts.pod_sets],
    )


@pytest.mark.parametrize(
    ("preemptibility", "priority"),
    [(None, 50), ("", 125), ("Semi-Preemptible", 50), ("non-preemptible", 10)],
)
def test_a_schedulers_own_job_class_gives_the_same_facts_as_job(
    preemptibility: str | None, priority: int
) -> None:
    mine: JobLike = my_job(preemptibility, priority)
    ours = the_same_job_as_minruntime_job(preemptibility, priority)
    assert summary(JobFacts.of(mine)) == summary(JobFacts.of(ours))


def test_a_schedulers_own_job_class_facts_have_exact_values() -> None:
    facts = JobFacts.of(my_job())
    assert summary(facts) == (
        "ns/train",
        "team-a",
        50,
        1_767_225_600_500_000_000,
        datetime(2026, 1, 1, 0, 0, 0, 500_000, tzinfo=UTC),
        Preemptibility.PREEMPTIBLE,
        PreemptibilitySource.LEGACY_PRIORITY,
        True,
        4,
        True,
        ["w0", "w2", "p0"],
        ["w3"],
        ["w0", "w2", "w3", "p0"],
        {"w0": "w", "w1": "w", "w2": "w", "w3": "w", "p0": "ps"},
        [("w", 2, 4, 1), ("ps", 1, 1, 0)],
    )


def test_a_schedulers_own_plain_classes_work_and_their_tasks_are_returned_as_given() -> None:
    tasks = [PlainTask("a", "Running"), PlainTask("b", "gated"), PlainTask("c", "binding")]
    job: JobLike = PlainJob([PlainPodSet("default", 1, tasks)])
    facts = JobFacts.of(job)
    assert (facts.id, facts.elastic, facts.active_count, facts.start_ns) == (
        ("ns", "plain"),
        True,
        2,
        1_767_225_600 * 10**9,
    )
    assert (facts.preemptibility, facts.preemptibility_source) == (
        Preemptibility.NON_PREEMPTIBLE,
        PreemptibilitySource.LEGACY_PRIORITY,
    )
    assert facts.core_tasks() == (tasks[0],)
    assert facts.core_tasks()[0] is tasks[0]
    assert facts.surplus_tasks() == (tasks[2],)


def test_a_schedulers_own_job_with_an_invalid_preemptibility_is_rejected_naming_the_job() -> None:
    with pytest.raises(InvalidPreemptibility) as caught:
        JobFacts.of(my_job("sometimes"))
    assert "'sometimes'" in str(caught.value)
    assert "job 'ns/train' preemptibility" in str(caught.value)


def test_a_schedulers_own_job_with_a_naive_start_time_is_rejected_naming_the_job() -> None:
    job = dataclasses.replace(my_job(), start_time=datetime(2026, 1, 1))  # type: ignore[arg-type]
    with pytest.raises(InvalidTimestamp) as caught:
        JobFacts.of(job)
    assert "naive datetime 2026-01-01 00:00:00" in str(caught.value)
    assert "job 'ns/train' start_time" in str(caught.value)


def test_a_schedulers_own_task_with_an_unknown_status_is_rejected_naming_it() -> None:
    job = MyJob("j", "q", 50, None, None, [MyPodSet("default", 1, [MyTask("a", "Napping")])])
    with pytest.raises(ValueError, match="invalid task status 'Napping'"):
        JobFacts.of(job)


# -- Properties ---------------------------------------------------------------------------------


@given(jobs(queues=("a", "b")))
def test_core_and_surplus_partition_the_active_tasks_of_each_pod_set(job: Job) -> None:
    """Per pod set, core ++ surplus == active (in listing order) and core has
    min(min_available, active) tasks; active means a status in ACTIVE_STATUSES."""
    facts = JobFacts.of(job)
    core = ids(facts.core_tasks())
    surplus = ids(facts.surplus_tasks())
    expected_core: list[Hashable] = []
    expected_surplus: list[Hashable] = []
    for pod_set in job.pod_sets:
        active = [task.id for task in pod_set.tasks if task.status in ACTIVE_STATUSES]
        expected_core += active[: pod_set.min_available]
        expected_surplus += active[pod_set.min_available :]
    assert (core, surplus) == (expected_core, expected_surplus)
    assert facts.active_count == len(core) + len(surplus)
    assert facts.has_surplus is bool(surplus)


@given(jobs())
def test_elastic_iff_some_pod_set_has_min_available_below_its_task_count(job: Job) -> None:
    """A job is elastic exactly when some pod set lists more tasks (of any status) than its
    min_available."""
    expected = any(pod_set.min_available < len(pod_set.tasks) for pod_set in job.pod_sets)
    assert JobFacts.of(job).elastic is expected


@given(jobs())
def test_effective_preemptibility_is_explicit_else_the_legacy_rule(job: Job) -> None:
    """The effective preemptibility is the explicit value when set, else preemptible exactly when
    the priority is below 100."""
    facts = JobFacts.of(job)
    if job.preemptibility is not None:
        expected = (job.preemptibility, PreemptibilitySource.EXPLICIT)
    elif job.priority < 100:
        expected = (Preemptibility.PREEMPTIBLE, PreemptibilitySource.LEGACY_PRIORITY)
    else:
        expected = (Preemptibility.NON_PREEMPTIBLE, PreemptibilitySource.LEGACY_PRIORITY)
    assert (facts.preemptibility, facts.preemptibility_source) == expected


def test_a_jobs_facts_are_computed_once_per_session_and_follow_the_threshold() -> None:
    job = Job("j", "q", priority=99, pod_sets=[PodSet(tasks=[Task("t")])])
    session = Session(QueueTree([Queue("q")]), Config(), now=0)
    first = session._fact(job)
    assert (session._fact(job).table, session._fact(job).row) == (first.table, first.row)
    assert first.preemptibility is Preemptibility.PREEMPTIBLE
    stricter = Session(QueueTree([Queue("q")]), Config(), now=0, legacy_priority_threshold=50)
    assert stricter._fact(job).preemptibility is Preemptibility.NON_PREEMPTIBLE


def test_an_evolved_job_gets_its_own_facts() -> None:
    job = Job("j", "q", priority=99, pod_sets=[PodSet(tasks=[Task("t")])])
    assert JobFacts.of(job).preemptibility is Preemptibility.PREEMPTIBLE
    raised = attrs.evolve(job, priority=100)
    assert JobFacts.of(raised).preemptibility is Preemptibility.NON_PREEMPTIBLE
    assert raised == attrs.evolve(raised)
    assert hash(raised) == hash(attrs.evolve(raised))


@pytest.mark.parametrize(
    "value",
    [
        Task("t", "Pending", resources={"nvidia.com/gpu": 2}),
        PodSet("workers", 1, [Task("a"), Task("b", "Succeeded")], parent=None),
        Job(
            "j",
            "q",
            75,
            "semi-preemptible",
            60.5,
            [PodSet("p0", 1, [Task("a")], parent="s"), PodSet("p1", 0, [], parent="s")],
            sub_groups=[SubGroup("s", min_sub_group=1)],
            min_sub_group=1,
        ),
    ],
    ids=["Task", "PodSet", "Job"],
)
def test_a_value_is_built_from_every_field_by_name(value: Task | PodSet | Job) -> None:
    """Task, PodSet and Job build themselves (a fast constructor): it takes every field, in
    order and by its name, so that attrs.evolve rebuilds an equal value."""
    cls = type(value)
    fields = [field.alias for field in attrs.fields(cls) if field.init]
    assert list(inspect.signature(cls).parameters) == fields
    assert attrs.evolve(value) == value
    changed: Any = attrs.evolve(value, **{fields[0]: "other"})  # type: ignore[arg-type]
    assert getattr(changed, fields[0]) == "other"
    assert changed != value


# -- errors at the door --------------------------------------------------------------------------


class _OwnTask:
    def __init__(self, id: str, status: object) -> None:
        self.id = id
        self.status = status


class _OwnPodSet:
    def __init__(self, tasks: list[_OwnTask]) -> None:
        self.name = "default"
        self.min_available = 1
        self.tasks = tasks


class _OwnJob:
    """A scheduler's own job, with whatever priority and statuses it was given (typed ``Any``:
    it is wrong on purpose)."""

    def __init__(self, priority: Any, status: Any = "Running") -> None:
        self.id = "own"
        self.queue = "q"
        self.priority = priority
        self.preemptibility = None
        self.start_time = None
        self.pod_sets: Any = [_OwnPodSet([_OwnTask("own-0", status)])]


_PRIORITY = "expected an integer (e.g. a priority class's value, 50 when none)"
_STATUSES = (
    "expected one of Pending, Gated, Allocated, Pipelined, Binding, Bound, Running, Releasing, "
    "StuckInReleasing, Succeeded, Failed, Unknown, Deleted"
)


@pytest.mark.parametrize("priority", ["high", True, 1.5, None])
def test_a_priority_that_is_not_an_integer_is_refused_naming_the_job(priority: object) -> None:
    with pytest.raises(InvalidJob) as caught:
        Job("train", "q", priority=priority)  # type: ignore[arg-type]
    assert str(caught.value) == f"job 'train' priority: {_PRIORITY}, got {priority!r}"


def test_a_schedulers_own_job_with_a_text_priority_is_refused_where_it_enters() -> None:
    session = Session(QueueTree([Queue("q")]), Config(), now=0)
    with pytest.raises(InvalidJob) as caught:
        session.eligible_victims("preempt", Job("p", "q", priority=100), [_OwnJob("high")])
    assert str(caught.value) == f"job 'own' priority: {_PRIORITY}, got 'high'"
    with pytest.raises(InvalidJob) as caught:  # the preemptor too
        session.verdict("preempt", _OwnJob("urgent"), Job("v", "q"))
    assert str(caught.value) == f"job 'own' priority: {_PRIORITY}, got 'urgent'"


def test_a_status_that_is_not_one_names_the_task_and_its_job() -> None:
    with pytest.raises(InvalidJob) as caught:
        Task("w-0", 5)  # type: ignore[arg-type]
    assert str(caught.value) == f"Task 'w-0' status: invalid task status 5 ({_STATUSES})"
    session = Session(QueueTree([Queue("q")]), Config(), now=0)
    with pytest.raises(InvalidJob) as caught:
        session.eligible_victims("preempt", Job("p", "q", priority=100), [_OwnJob(10, "Bogus")])
    assert str(caught.value) == (
        f"job 'own' task 'own-0' status: invalid task status 'Bogus' ({_STATUSES})"
    )

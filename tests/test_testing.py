"""The hypothesis strategies and the fake clock in minruntime.testing do what they promise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import Job, MinRuntime, Preemptibility, QueueTree, TaskStatus
from minruntime.testing import (
    BASE_TIME,
    FakeClock,
    duration_strings,
    jobs,
    min_runtimes,
    optional_min_runtimes,
    queue_trees,
    task_statuses,
)

# -- queue_trees ---------------------------------------------------------------------------------


@given(queue_trees())
def test_queue_trees_are_valid_and_acyclic(tree: QueueTree) -> None:
    """Every queue's path climbs to a top-level queue without repeating a name, and the tree's
    own queues build the same tree again without problems or warnings."""
    names = list(tree)
    assert names == [f"q{i}" for i in range(len(names))]
    assert tree.warnings == ()
    for name in names:
        path = tree.path(name)
        assert path[-1] == name
        assert len(set(path)) == len(path)
        assert tree.parent(path[0]) is None
        assert tree.depth(name) == len(path) - 1
    rebuilt = QueueTree([tree[name] for name in reversed(names)])
    assert {name: rebuilt.path(name) for name in rebuilt} == {
        name: tree.path(name) for name in names
    }


@given(queue_trees())
def test_queue_tree_parents_come_before_their_children(tree: QueueTree) -> None:
    """A queue's parent is an earlier queue (q<j> with j < i): acyclic by construction."""
    parents = [(name, tree.parent(name)) for name in tree]
    event("a queue with a parent" if any(p for _, p in parents) else "top-level queues only")
    for name, parent in parents:
        if parent is not None:
            assert int(parent[1:]) < int(name[1:])


@given(queue_trees(min_queues=3, max_queues=6))
def test_queue_trees_respect_the_size_bounds(tree: QueueTree) -> None:
    """min_queues <= len(tree) <= max_queues."""
    assert 3 <= len(tree) <= 6


@given(queue_trees(allow_never=False))
def test_queue_trees_without_never_have_no_never_setting(tree: QueueTree) -> None:
    """With allow_never=False no queue's preempt or reclaim setting is never."""
    settings = [
        setting
        for name in tree
        for setting in (tree[name].preempt_min_runtime, tree[name].reclaim_min_runtime)
    ]
    event("a queue with a setting" if any(s is not None for s in settings) else "no setting")
    for setting in settings:
        assert setting is None or not setting.is_never


# -- min_runtimes and duration_strings -----------------------------------------------------------


@given(min_runtimes(allow_never=False))
def test_min_runtimes_without_never_never_give_never(value: MinRuntime) -> None:
    """allow_never=False gives finite durations within the default 14 days."""
    assert not value.is_never
    assert value.nanoseconds is not None
    assert 0 <= value.nanoseconds <= 14 * 86_400 * 10**9


@given(min_runtimes(max_seconds=60))
def test_min_runtimes_stay_within_max_seconds_or_are_never(value: MinRuntime) -> None:
    """Every value is never or a duration of at most max_seconds."""
    assert value.is_never or 0 <= (value.nanoseconds or 0) <= 60 * 10**9


@given(optional_min_runtimes(allow_never=False))
def test_optional_min_runtimes_without_never_give_none_or_a_duration(
    value: MinRuntime | None,
) -> None:
    """allow_never=False gives None or a finite duration."""
    assert value is None or not value.is_never


@given(duration_strings())
def test_duration_strings_parse_to_a_finite_duration(text: str) -> None:
    """Every generated string parses, to a duration (never is not a duration string), and its
    canonical text parses back to the same value."""
    value = MinRuntime.parse(text)
    assert not value.is_never
    assert MinRuntime.parse(str(value)) == value


# -- task_statuses and jobs ----------------------------------------------------------------------


@given(task_statuses())
def test_task_statuses_are_task_statuses(status: TaskStatus) -> None:
    """The strategy gives members of TaskStatus."""
    assert status in set(TaskStatus)


@given(jobs(queues=("prod", "dev")))
def test_jobs_are_in_one_of_the_given_queues(job: Job) -> None:
    """A job's queue is one of queues=."""
    assert job.queue in {"prod", "dev"}


@given(jobs())
def test_jobs_default_to_queue_q0(job: Job) -> None:
    """Without queues= every job is in q0."""
    assert job.queue == "q0"


@given(jobs(id="fixed", max_pod_sets=2, max_tasks=3))
def test_jobs_respect_id_and_size_bounds(job: Job) -> None:
    """id= fixes the id; 1..max_pod_sets pod sets named default, set1, ...; at most max_tasks
    tasks each, with min_available in 0..max_tasks and task ids unique."""
    assert job.id == "fixed"
    assert 1 <= len(job.pod_sets) <= 2
    assert [pod_set.name for pod_set in job.pod_sets] == ["default", "set1"][: len(job.pod_sets)]
    for pod_set in job.pod_sets:
        assert len(pod_set.tasks) <= 3
        assert 0 <= pod_set.min_available <= 3
    task_ids = [task.id for task in job.tasks()]
    assert len(set(task_ids)) == len(task_ids)
    assert all(task_id.startswith("fixed/") for task_id in task_ids)


@given(jobs(start_within=timedelta(minutes=30)))
def test_jobs_start_within_the_window_around_base_time_or_never(job: Job) -> None:
    """A start time is None or within start_within before, and 10 minutes after, BASE_TIME;
    priorities come from the reference values and preemptibility is a value or None."""
    start = job.start_time
    event("a start time" if start is not None else "no start time")
    if start is not None:
        assert BASE_TIME - timedelta(minutes=30) <= start <= BASE_TIME + timedelta(minutes=10)
        assert start.utcoffset() == timedelta(0)
    assert job.priority in {25, 50, 75, 99, 100, 125}
    assert job.preemptibility is None or job.preemptibility in set(Preemptibility)


@given(st.lists(jobs(), min_size=2, max_size=5))
def test_generated_job_ids_look_like_job_hex(many: list[Job]) -> None:
    """Without id=, ids are job-<8 hex digits>."""
    for job in many:
        assert job.id.startswith("job-")
        assert len(job.id) == 12
        assert set(job.id[4:]) <= set("0123456789abcdef")


# -- FakeClock -----------------------------------------------------------------------------------


def test_base_time_is_2026_new_year_utc() -> None:
    assert datetime(2026, 1, 1, tzinfo=UTC) == BASE_TIME


def test_fake_clock_starts_at_base_time() -> None:
    assert FakeClock().now == BASE_TIME


def test_fake_clock_advance_moves_now_and_returns_it() -> None:
    clock = FakeClock()
    assert clock.advance(minutes=5) == datetime(2026, 1, 1, 0, 5, tzinfo=UTC)
    assert clock.now == datetime(2026, 1, 1, 0, 5, tzinfo=UTC)


def test_fake_clock_advances_accumulate_across_units() -> None:
    clock = FakeClock(now=datetime(2026, 6, 1, tzinfo=UTC))
    clock.advance(hours=1)
    clock.advance(seconds=30, milliseconds=250)
    assert clock.advance(days=1) == datetime(2026, 6, 2, 1, 0, 30, 250_000, tzinfo=UTC)
    assert clock.now == datetime(2026, 6, 2, 1, 0, 30, 250_000, tzinfo=UTC)


def test_fake_clock_advance_by_nothing_keeps_now() -> None:
    clock = FakeClock()
    assert clock.advance() == BASE_TIME
    assert clock.now == BASE_TIME

"""Hypothesis strategies and a fake clock, for minruntime's tests and for schedulers' own.

Needs hypothesis: the ``testing`` extra, installed from this repository (``pip install
".[testing]"`` in a clone), not by name from a package index.

>>> from hypothesis import given
>>> from minruntime.testing import queue_trees
>>> @given(queue_trees())
... def test_every_queue_has_a_path(tree):
...     assert all(tree.path(name)[-1] == name for name in tree)
>>> test_every_queue_has_a_path()
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache

import attrs
from hypothesis import strategies as st

from minruntime.config import Config
from minruntime.decisions import Action
from minruntime.durations import MinRuntime
from minruntime.jobs import Job, PodSet, SubGroup, Task, TaskStatus
from minruntime.preemptibility import Preemptibility
from minruntime.queues import Queue, QueueTree
from minruntime.session import Session

__all__ = [
    "BASE_TIME",
    "FakeClock",
    "Situation",
    "duration_strings",
    "jobs",
    "min_runtimes",
    "optional_min_runtimes",
    "queue_trees",
    "situations",
    "sub_group_trees",
    "task_statuses",
]

BASE_TIME = datetime(2026, 1, 1, tzinfo=UTC)
"""The instant around which the strategies place start times."""

_UNITS = ("ns", "us", "µs", "ms", "s", "m", "h", "d", "w")


def duration_strings() -> st.SearchStrategy[str]:
    """Valid Go-style duration strings (with ``d`` and ``w``), for example ``"1.5h30m"``.

    >>> from hypothesis import given
    >>> from minruntime import MinRuntime
    >>> @given(duration_strings())
    ... def test_parses(text):
    ...     assert MinRuntime.parse(str(MinRuntime.parse(text))) == MinRuntime.parse(text)
    >>> test_parses()
    """
    number = st.one_of(
        st.integers(0, 10_000).map(str),
        st.tuples(st.integers(0, 999), st.integers(0, 999_999)).map(lambda p: f"{p[0]}.{p[1]}"),
    )
    pair = st.tuples(number, st.sampled_from(_UNITS)).map("".join)
    return st.lists(pair, min_size=1, max_size=4).map("".join)


def min_runtimes(
    *, allow_never: bool = True, max_seconds: int = 14 * 86_400
) -> st.SearchStrategy[MinRuntime]:
    """Min-runtime values: zero, durations up to ``max_seconds`` (nanosecond-exact), never.

    >>> from hypothesis import given
    >>> @given(min_runtimes(allow_never=False))
    ... def test_finite(value):
    ...     assert not value.is_never
    >>> test_finite()
    """
    durations = st.one_of(
        st.just(MinRuntime.ZERO),
        st.integers(0, max_seconds).map(MinRuntime.parse),
        st.integers(0, max_seconds * 10**9).map(MinRuntime.from_nanoseconds),
    )
    if allow_never:
        return st.one_of(durations, st.just(MinRuntime.NEVER))
    return durations


@cache
def optional_min_runtimes(*, allow_never: bool = True) -> st.SearchStrategy[MinRuntime | None]:
    """A queue setting: unset (``None``, most often), a duration, or never."""
    return st.one_of(st.none(), st.none(), min_runtimes(allow_never=allow_never))


# The composite strategies below draw from the same few strategies many times per example;
# each is built once (a strategy is immutable), since building and validating a new one at every
# draw cost more than the drawing itself. What they generate is the same.


@cache
def _parent_index(count: int) -> st.SearchStrategy[int | None]:
    """No parent, or one of the ``count`` earlier items (``count`` > 0)."""
    return st.one_of(st.none(), st.integers(0, count - 1))


@cache
def _up_to(count: int) -> st.SearchStrategy[int | None]:
    """Unset, or 0 to ``count``: a ``min_sub_group``."""
    return st.one_of(st.none(), st.integers(0, count))


@st.composite
def queue_trees(
    draw: st.DrawFn,
    *,
    min_queues: int = 1,
    max_queues: int = 25,
    allow_never: bool = True,
) -> QueueTree:
    """Random valid queue trees: several top-level trees, random settings on any queue.

    Queues are named ``q0``, ``q1``, ... and each one's parent comes before it, so trees are
    acyclic by construction.
    """
    count = draw(st.integers(min_queues, max_queues))
    queues = []
    for i in range(count):
        parent = draw(_parent_index(i)) if i else None
        queues.append(
            Queue(
                f"q{i}",
                None if parent is None else f"q{parent}",
                preempt_min_runtime=draw(optional_min_runtimes(allow_never=allow_never)),
                reclaim_min_runtime=draw(optional_min_runtimes(allow_never=allow_never)),
            )
        )
    return QueueTree(queues)


@cache
def task_statuses() -> st.SearchStrategy[TaskStatus]:
    """Any task status, running most often."""
    return st.one_of(st.just(TaskStatus.RUNNING), st.sampled_from(list(TaskStatus)))


@st.composite
def sub_group_trees(
    draw: st.DrawFn,
    *,
    id: str = "tree",
    max_sets: int = 4,
    max_pod_sets: int = 6,
    max_tasks: int = 4,
    all_required: bool = False,
) -> tuple[tuple[SubGroup, ...], int | None, tuple[PodSet, ...]]:
    """Random sub-group trees (docs/spec/sub-group-trees.md): ``(sub_groups, min_sub_group,
    pod_sets)`` for a :class:`~minruntime.Job`.

    Sets ``s0``, ``s1``, ... each under the job or an earlier set, each with at least one pod
    set below it; pod sets ``p0``, ``p1``, ... under the job or a set, listed in a random order;
    a random ``min_sub_group`` (``None``, or 0 to the number of children) on the job and on each
    set, unless ``all_required`` (then every set needs all of its children: the degenerate tree
    that must act as its pod sets alone). Tasks ``<id>/<pod set>/<n>`` with random statuses,
    running most often.

    >>> from hypothesis import given
    >>> from minruntime import Job
    >>> @given(sub_group_trees())
    ... def test_every_tree_makes_a_job(tree):
    ...     sub_groups, min_sub_group, pod_sets = tree
    ...     Job("j", "q", sub_groups=sub_groups, min_sub_group=min_sub_group, pod_sets=pod_sets)
    >>> test_every_tree_makes_a_job()
    """
    set_count = draw(st.integers(0, max_sets))
    set_parents = [draw(_parent_index(i)) if i else None for i in range(set_count)]
    # one pod set under each set (so that every set has one below it), then a few more anywhere
    extra = draw(st.integers(1 if not set_count else 0, max(1, max_pod_sets - set_count)))
    leaf_parents: list[int | None] = [*range(set_count)]
    leaf_parents += [draw(_parent_index(set_count)) if set_count else None for _ in range(extra)]
    order = draw(st.permutations(range(len(leaf_parents))))
    children: dict[int | None, int] = {}
    for parent in (*set_parents, *leaf_parents):
        children[parent] = children.get(parent, 0) + 1

    def need(key: int | None) -> int | None:
        if all_required:
            return None
        return draw(_up_to(children.get(key, 0)))

    sub_groups = tuple(
        SubGroup(f"s{i}", None if parent is None else f"s{parent}", need(i))
        for i, parent in enumerate(set_parents)
    )
    pod_sets = []
    for index in order:
        parent = leaf_parents[index]
        size = draw(st.integers(0, max_tasks))
        statuses = task_statuses()
        tasks = [Task(f"{id}/p{index}/{t}", draw(statuses)) for t in range(size)]
        pod_sets.append(
            PodSet(
                f"p{index}",
                min_available=draw(st.integers(0, max_tasks)),
                tasks=tasks,
                parent=None if parent is None else f"s{parent}",
            )
        )
    return sub_groups, need(None), tuple(pod_sets)


_JOB_IDS = st.uuids().map(lambda u: f"job-{u.hex[:8]}")
_PRIORITIES = st.sampled_from([25, 50, 75, 99, 100, 125])
_PREEMPTIBILITIES = st.one_of(st.none(), st.sampled_from(list(Preemptibility)))


@cache
def _start_offsets(within_seconds: int) -> st.SearchStrategy[int | None]:
    """A missing start, or seconds from ``within_seconds`` before to 10 minutes after."""
    return st.one_of(st.none(), st.integers(-within_seconds, 600))


@cache
def _sampled(values: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(values)


@st.composite
def jobs(
    draw: st.DrawFn,
    *,
    queues: tuple[str, ...] = ("q0",),
    id: str | None = None,
    max_pod_sets: int = 3,
    max_tasks: int = 5,
    start_within: timedelta = timedelta(hours=4),
    trees: bool = False,
) -> Job:
    """Random jobs in one of ``queues``: priorities, preemptibility, pod sets, statuses, and,
    with ``trees``, sub-group trees half of the time (:func:`sub_group_trees`).

    Start times fall within ``start_within`` before or slightly after :data:`BASE_TIME`, or are
    missing.
    """
    job_id = id if id is not None else draw(_JOB_IDS)
    sub_groups: tuple[SubGroup, ...] = ()
    min_sub_group = None
    pod_sets: list[PodSet] = []
    if trees and draw(st.booleans()):
        sub_groups, min_sub_group, tree_pod_sets = draw(
            sub_group_trees(id=job_id, max_tasks=max_tasks)
        )
        pod_sets.extend(tree_pod_sets)
    for p in range(0 if pod_sets else draw(st.integers(1, max_pod_sets))):
        size = draw(st.integers(0, max_tasks))
        statuses = task_statuses()
        tasks = [Task(f"{job_id}/{p}/{t}", draw(statuses)) for t in range(size)]
        pod_sets.append(
            PodSet(
                "default" if p == 0 else f"set{p}",
                min_available=draw(st.integers(0, max_tasks)),
                tasks=tasks,
            )
        )
    offset = draw(_start_offsets(int(start_within.total_seconds())))
    return Job(
        job_id,
        draw(_sampled(queues)),
        priority=draw(_PRIORITIES),
        preemptibility=draw(_PREEMPTIBILITIES),
        start_time=None if offset is None else BASE_TIME + timedelta(seconds=offset),
        pod_sets=pod_sets,
        sub_groups=sub_groups,
        min_sub_group=min_sub_group,
    )


@attrs.frozen
class Situation:
    """A random scheduling situation: a tree, a configuration, ``now``, an action, a preemptor
    and its candidate victims (see :func:`situations`)."""

    tree: QueueTree
    config: Config
    now: datetime
    action: Action
    preemptor: Job
    victims: tuple[Job, ...]

    def session(self, now: datetime | None = None) -> Session:
        """A Session over this situation, at its ``now`` or at another instant."""
        return Session(self.tree, self.config, self.now if now is None else now)


@st.composite
def situations(
    draw: st.DrawFn, *, max_queues: int = 3, max_victims: int = 8, trees: bool = False
) -> Situation:
    """Random situations biased towards real candidates, for property tests of a scheduler.

    Small random trees with random settings and node-pool defaults; for preempt most victims
    share the preemptor's queue; some victims sit in a queue that is not in the tree
    (``"ghost"``); most start near ``now``; the preemptor itself is sometimes among them. With
    ``trees``, half of the jobs have sub-group trees.

    >>> from hypothesis import given
    >>> @given(situations())
    ... def test_the_verdict_agrees_with_the_batch_form(s):
    ...     session = s.session()
    ...     for victim in s.victims:
    ...         assert (session.verdict(s.action, s.preemptor, victim).allowed
    ...                 == (victim in session.eligible_victims(s.action, s.preemptor, [victim])))
    >>> test_the_verdict_agrees_with_the_batch_form()
    """
    tree = draw(queue_trees(max_queues=max_queues))
    names = (*tree, *tree, "ghost")
    defaults = st.one_of(
        st.sampled_from([MinRuntime("10m"), MinRuntime("1h")]), min_runtimes(max_seconds=6 * 3600)
    )
    config = Config(
        default_preempt_min_runtime=draw(defaults),
        default_reclaim_min_runtime=draw(defaults),
        reclaim_resolve_method=draw(st.sampled_from(["lca", "queue"])),
    )
    seconds = st.one_of(st.integers(-900, 6 * 3600), st.integers(0, 16 * 86_400))
    now = BASE_TIME + timedelta(seconds=draw(seconds))
    action = draw(st.sampled_from(list(Action)))
    preemptor = draw(jobs(queues=names, trees=trees))
    preemptor = attrs.evolve(preemptor, priority=draw(st.sampled_from([50, 100, 125, 200])))
    victim_queues = (preemptor.queue,) * 4 + names if action is Action.PREEMPT else names
    victims = []
    victim_jobs = jobs(queues=victim_queues, trees=trees)
    for _ in range(draw(st.integers(0, max_victims))):
        victim = draw(victim_jobs)
        if draw(st.integers(0, 3)):
            ago = timedelta(seconds=draw(st.integers(-600, 6 * 3600)))
            victim = attrs.evolve(victim, start_time=now - ago)
        victims.append(victim)
    if draw(st.booleans()):
        victims.insert(draw(st.integers(0, len(victims))), preemptor)
    return Situation(tree, config, now, action, preemptor, tuple(victims))


@attrs.define
class FakeClock:
    """A clock for tests of a scheduling loop: read ``now``, move it with :meth:`advance`.

    The library never reads a clock itself; a loop under test can take its ``now`` from this.

    >>> clock = FakeClock()
    >>> clock.advance(minutes=5).isoformat()
    '2026-01-01T00:05:00+00:00'
    """

    now: datetime = BASE_TIME

    def advance(self, **delta: float) -> datetime:
        """Move the clock forward by a ``timedelta(**delta)`` and return the new ``now``."""
        self.now = self.now + timedelta(**delta)
        return self.now

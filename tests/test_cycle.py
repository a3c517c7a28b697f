"""The cycle form (``Session.cycle``) and the selection (``Session.select``, ``Cycle.select``).

The cycle form evaluates the one rule once per group of victims; its answers must be exactly the
batch form's, whatever the tree, the method, the section 16 settings and the preemptor.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import attrs
import pytest
from hypothesis import event, given, target
from hypothesis import strategies as st

from minruntime import (
    Action,
    Config,
    Job,
    JobInputs,
    PodSet,
    ProtectionSettings,
    Queue,
    QueueTree,
    Session,
    Task,
)
from minruntime.testing import BASE_TIME, Situation, situations

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

# org(reclaim 1h) > {a, b(reclaim 0) > {b1, b2(reclaim never)}}, and a separate tree x(10m) > x1
TREE = QueueTree(
    [
        Queue("org", reclaim_min_runtime="1h", preempt_min_runtime="30m"),
        Queue("a", "org"),
        Queue("b", "org", reclaim_min_runtime=0),
        Queue("b1", "b"),
        Queue("b2", "b", reclaim_min_runtime="never"),
        Queue("x", reclaim_min_runtime="10m"),
        Queue("x1", "x"),
    ]
)


def job(
    name: str,
    queue: str,
    minutes_ago: float | None,
    *,
    priority: int = 50,
    tasks: int = 1,
    min_available: int | None = None,
    preemptibility: str = "preemptible",
    weight: float = 1.0,
) -> Job:
    return Job(
        name,
        queue,
        priority=priority,
        preemptibility=preemptibility,
        start_time=None if minutes_ago is None else NOW - timedelta(minutes=minutes_ago),
        pod_sets=[
            PodSet(
                min_available=tasks if min_available is None else min_available,
                tasks=[
                    Task(f"{name}-{i}", resources={"nvidia.com/gpu": weight}) for i in range(tasks)
                ],
            )
        ],
    )


RUNNING = [
    job("a-young", "a", 5),
    job("a-old", "a", 120),
    job("a-mid", "a", 45),
    job("a-elastic", "a", 5, tasks=3, min_available=1),
    job("a-unstarted", "a", None),
    job("a-service", "a", 300, preemptibility="non-preemptible"),
    job("b1-young", "b1", 1),
    job("b2-old", "b2", 600),
    job("x1-young", "x1", 5),
    job("x1-old", "x1", 15),
    job("ghost", "nowhere", 600),
]


def ids(jobs: list[Job]) -> list[str]:
    return [j.id for j in jobs]


def test_reclaim_from_a_sibling_answers_in_input_order_as_the_batch_form() -> None:
    session = Session(TREE, Config(), NOW)
    cycle = session.cycle(RUNNING)
    pending = Job("p", "b1", priority=100)
    # from b1: victims in a walk from a (unset) up to org: 1h; b2 is b1's sibling: never;
    # x1 is in another tree: x's 10m.
    assert ids(cycle.eligible_victims(Action.RECLAIM, pending)) == [
        "a-old",
        "a-elastic",
        "a-unstarted",
        "x1-old",
    ]
    assert cycle.eligible_victims(Action.RECLAIM, pending) == session.eligible_victims(
        Action.RECLAIM, pending, RUNNING
    )


def test_reclaim_from_inside_a_subtree_uses_the_child_below_the_common_ancestor() -> None:
    session = Session(TREE, Config(), NOW)
    cycle = session.cycle(RUNNING)
    # from a: b1's walk starts at b (reclaim 0): everything of b is free; b2 too (LCA org,
    # step to b): 0, so b2-old is free despite its own never
    assert ids(cycle.eligible_victims(Action.RECLAIM, Job("p", "a", priority=100))) == [
        "b1-young",
        "b2-old",
        "x1-old",
    ]


def test_reclaim_with_the_queue_method_walks_from_each_victim_queue() -> None:
    session = Session(TREE, Config(reclaim_resolve_method="queue"), NOW)
    cycle = session.cycle(RUNNING)
    # b2's own never protects it now
    assert ids(cycle.eligible_victims(Action.RECLAIM, Job("p", "a", priority=100))) == [
        "b1-young",
        "x1-old",
    ]


def test_preempt_takes_lower_priority_jobs_of_the_preemptors_queue_only() -> None:
    session = Session(TREE, Config(), NOW)
    cycle = session.cycle([*RUNNING, job("a-vip", "a", 500, priority=200)])
    # preempt 30m from org: a-young (5m) protected; a-mid (45m) and a-old free; a-vip not lower
    assert ids(cycle.eligible_victims(Action.PREEMPT, Job("p", "a", priority=100))) == [
        "a-old",
        "a-mid",
        "a-elastic",
        "a-unstarted",
    ]
    assert cycle.eligible_victims(Action.PREEMPT, Job("p", "nowhere", priority=100)) == []


def test_an_unknown_preemptor_queue_gets_the_default_for_every_victim() -> None:
    session = Session(TREE, Config(default_reclaim_min_runtime="20m"), NOW)
    cycle = session.cycle(RUNNING)
    assert ids(cycle.eligible_victims("reclaim", Job("p", "elsewhere"))) == [
        "a-old",
        "a-mid",
        "a-elastic",
        "a-unstarted",
        "b2-old",
    ]  # x1-old started 15 minutes ago: protected by the 20m default


def test_the_preemptor_itself_is_never_its_own_victim() -> None:
    session = Session(TREE, Config(), NOW)
    running = job("self", "a", 600, priority=10)
    cycle = session.cycle([running])
    assert cycle.eligible_victims(Action.PREEMPT, running) == []
    assert cycle.eligible_victims(Action.RECLAIM, running) == []
    assert len(cycle) == 1


def test_groups_with_a_section_16_protection_are_judged_by_the_whole_rule() -> None:
    budget = ProtectionSettings(max_evictions=1, eviction_window="1h")
    tree = QueueTree([Queue("a", protections=budget), Queue("b")])
    thrashed = attrs.evolve(
        job("thrashed", "a", 600), inputs=JobInputs(evictions=[NOW - timedelta(minutes=10)])
    )
    calm = job("calm", "a", 600)
    session = Session(tree, Config(), NOW)
    pending = Job("p", "b")
    assert ids(session.cycle([thrashed, calm]).eligible_victims("reclaim", pending)) == ["calm"]


def test_next_expiry_over_the_running_jobs() -> None:
    session = Session(TREE, Config(), NOW)
    cycle = session.cycle(RUNNING)
    # from b1: a-young started 5m ago under 1h: free at +55m; a-mid at +15m; x1-young under 10m
    assert cycle.next_expiry(Action.RECLAIM, Job("p", "b1", priority=100)) == NOW + timedelta(
        minutes=5
    )


@given(
    situations(max_queues=6, max_victims=12, trees=True),
    st.sampled_from([None, "budget", "grace"]),
)
def test_the_cycle_answers_exactly_the_batch_rule(situation: Situation, extra: str | None) -> None:
    """For any tree, method, settings and preemptor, a cycle's victims are the batch form's, in
    the same (input) order."""
    tree = situation.tree
    config = situation.config
    if extra == "budget":
        config = attrs.evolve(config, protections=ProtectionSettings(max_evictions=0))
    elif extra == "grace":
        config = attrs.evolve(
            config, protections=ProtectionSettings(reclaim_checkpoint_grace="10m")
        )
    session = Session(tree, config, situation.now)
    cycle = session.cycle(situation.victims)
    answer = cycle.eligible_victims(situation.action, situation.preemptor)
    expected = session.eligible_victims(situation.action, situation.preemptor, situation.victims)
    event(f"{situation.action.value}: {'some' if expected else 'no'} victims")
    assert list(map(id, answer)) == list(map(id, expected))


@given(situations(max_queues=6, max_victims=12))
def test_the_cycle_answers_in_the_order_of_the_running_jobs(situation: Situation) -> None:
    """The answer is a subsequence of the running jobs as given, whatever their queues and
    start times (docs/decisions/cycle-answer-order.md).

    The order is at stake only in an answer of two victims or more: the events count the
    answers of 0, 1 and 2 or more, and the search is steered towards longer answers (most
    random situations leave none)."""
    session = Session(situation.tree, situation.config, situation.now)
    answer = session.cycle(situation.victims).eligible_victims(
        situation.action, situation.preemptor
    )
    queues = [victim.queue for victim in answer]
    event("several queues" if len(set(queues)) > 1 else "one queue or none")
    event(f"victims in the answer: {len(answer) if len(answer) < 2 else '2 or more'}")
    target(float(len(answer)), label="victims in the answer")
    places = iter(range(len(situation.victims)))
    for victim in answer:  # each victim found after the one before it
        assert any(situation.victims[place] is victim for place in places)


# -- plans ----------------------------------------------------------------------------------------

GPU = "nvidia.com/gpu"


def test_plan_takes_the_cheapest_victims_until_the_need_is_covered() -> None:
    session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), NOW)
    running = [
        job("old-big", "a", 600, tasks=2, weight=8),  # 600 m x 16 = the most unsaved work
        job("new-small", "a", 1, weight=1),  # 1 m x 1
        job("mid", "a", 60, weight=4),  # 60 m x 4
    ]
    chosen = session.plan("reclaim", Job("p", "b"), running, {GPU: 5})
    assert [v.id for v in chosen.victims] == ["new-small", "mid"]
    assert [[t.id for t in tasks] for tasks in chosen.tasks] == [["new-small-0"], ["mid-0"]]
    assert (dict(chosen.freed), dict(chosen.missing), bool(chosen)) == (
        {GPU: 5, "pods": 2},
        {},
        True,
    )
    assert (chosen.lost, chosen.losses) == (60.0 + 60 * 60 * 4.0, (60.0, 60 * 60 * 4.0))
    assert chosen.retry is None


def test_plan_says_what_is_missing_when_every_victim_is_not_enough() -> None:
    session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), NOW)
    running = [job("one", "a", 60, weight=2), job("two", "a", 30, weight=3)]
    chosen = session.plan("reclaim", Job("p", "b"), running, {GPU: 10})
    assert [v.id for v in chosen.victims] == ["two", "one"]
    assert (chosen.freed[GPU], dict(chosen.missing), bool(chosen), len(chosen)) == (
        5.0,
        {GPU: 5.0},
        False,
        2,
    )
    assert chosen.retry is None  # nothing protected: nothing could free more later


def test_a_plan_for_nothing_takes_nothing_and_covers_it() -> None:
    session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), NOW)
    chosen = session.plan("reclaim", Job("p", "b"), [job("one", "a", 60)], {GPU: 0})
    assert (
        chosen.victims,
        chosen.tasks,
        dict(chosen.freed),
        dict(chosen.missing),
        chosen.lost,
    ) == (
        (),
        (),
        {},
        {},
        0.0,
    )
    assert bool(chosen)


def test_a_plan_takes_only_what_may_go_of_a_protected_elastic_victim() -> None:
    tree = QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b")])
    session = Session(tree, Config(), NOW)
    elastic = job("elastic", "a", 5, tasks=4, min_available=1, weight=2)
    chosen = session.plan("reclaim", Job("p", "b"), [elastic], {GPU: 100})
    assert [[t.id for t in tasks] for tasks in chosen.tasks] == [
        ["elastic-3", "elastic-2", "elastic-1"]
    ]
    assert dict(chosen.freed) == {GPU: 6.0, "pods": 3}
    assert dict(chosen.missing) == {GPU: 94.0}
    assert chosen.retry == NOW + timedelta(minutes=55)  # its protection ends then


def test_cycle_plan_equals_session_plan_over_the_running_jobs() -> None:
    session = Session(TREE, Config(), NOW)
    pending = Job("p", "b1", priority=100)
    via_cycle = session.cycle(RUNNING).plan("reclaim", pending, {GPU: 2})
    direct = session.plan("reclaim", pending, RUNNING, {GPU: 2})
    assert [v.id for v in via_cycle.victims] == [v.id for v in direct.victims]
    assert via_cycle.tasks == direct.tasks
    assert (dict(via_cycle.freed), dict(via_cycle.missing), via_cycle.lost) == (
        dict(direct.freed),
        dict(direct.missing),
        direct.lost,
    )
    # the unstarted job has no unsaved work; the elastic one gives one task above its minimum
    assert [v.id for v in via_cycle.victims] == ["a-unstarted", "a-elastic"]
    assert [[t.id for t in tasks] for tasks in via_cycle.tasks] == [
        ["a-unstarted-0"],
        ["a-elastic-2"],
    ]


# -- core tasks (the quota helper) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("preemptibility", "expected"),
    [
        ("preemptible", []),
        ("non-preemptible", ["j-0", "j-2", "j-3"]),
        ("semi-preemptible", ["j-0", "j-2"]),
    ],
)
def test_core_tasks_are_what_must_fit_in_quota(preemptibility: str, expected: list[str]) -> None:
    statuses = ["Running", "Pending", "Running", "Releasing"]
    victim = Job(
        "j",
        "a",
        preemptibility=preemptibility,
        pod_sets=[
            PodSet(min_available=2, tasks=[Task(f"j-{i}", s) for i, s in enumerate(statuses)])
        ],
    )
    session = Session(QueueTree([Queue("a")]), Config(), BASE_TIME)
    assert [task.id for task in session.core_tasks(victim)] == expected

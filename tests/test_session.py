"""The Session facade (docs/spec/session.md): resolution and its cache, ``now``, ``at``, stats."""

from __future__ import annotations

import sys
from collections.abc import Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from hypothesis import event, given, settings
from tests.world import LONG_AGO, NOW, PREEMPTOR, RECLAIMER, TREE, job, session

from minruntime import (
    FOREVER,
    Action,
    Config,
    Cycle,
    InvalidTimestamp,
    Job,
    JobLike,
    MinRuntime,
    MinRuntimeError,
    PodSet,
    ProtectionKind,
    ProtectionStatus,
    Queue,
    QueueTree,
    Reason,
    Resolution,
    Session,
    SessionStats,
    SubGroup,
    Task,
)
from minruntime._protection import is_protected, protected_until
from minruntime.testing import Situation, situations

NOW_POSIX = 1_767_268_800  # NOW

# The design document's tree (docs/spec/resolution.md#resolution-examples).
DESIGN = QueueTree(
    [
        Queue("A"),
        Queue("B", "A", reclaim_min_runtime="600s"),
        Queue("C", "B"),
        Queue("leaf1", "C", reclaim_min_runtime="0s"),
        Queue("leaf2", "C", reclaim_min_runtime="180s"),
        Queue("D", "B", reclaim_min_runtime="60s"),
        Queue("leaf3", "D"),
    ]
)

# -- resolution ---------------------------------------------------------------------------------


def test_resolve_preempt_ignores_the_preemptor_queue() -> None:
    s = session()
    assert s.resolve(Action.PREEMPT, "ghost", "a") == Resolution(MinRuntime("10m"), "a")
    assert s.resolve("preempt", "b", "a") == Resolution(MinRuntime("10m"), "a")
    assert s.resolve("preempt", "a", "b") == Resolution(MinRuntime.ZERO, None)


def test_resolve_reclaim_steps_below_the_lca() -> None:
    s = session()
    assert s.resolve(Action.RECLAIM, "b", "a") == Resolution(MinRuntime("30m"), "org")
    assert s.resolve(Action.RECLAIM, "b", "vault") == Resolution(MinRuntime.NEVER, "vault")


@pytest.mark.parametrize(
    ("preemptor", "victim", "method", "expected", "source"),
    [
        ("leaf1", "leaf3", "lca", "60s", "D"),
        ("leaf1", "leaf2", "lca", "180s", "leaf2"),
        ("leaf3", "leaf1", "lca", "600s", "B"),
        ("leaf3", "leaf1", "queue", "0s", "leaf1"),
        ("leaf1", "leaf3", "queue", "60s", "D"),
    ],
)
def test_reclaim_min_runtime_follows_the_configured_method(
    preemptor: str, victim: str, method: str, expected: str, source: str
) -> None:
    s = Session(DESIGN, Config(reclaim_resolve_method=method), NOW)
    assert s.resolve("reclaim", preemptor, victim).min_runtime == MinRuntime(expected)
    assert s.resolve(Action.RECLAIM, preemptor, victim).source == source


def test_preempt_min_runtime_walks_up_or_takes_the_default() -> None:
    s = session(config=Config(default_preempt_min_runtime="2m"))
    assert s.resolve("preempt", "a", "a").min_runtime == MinRuntime("10m")
    assert s.resolve("preempt", "b", "b").min_runtime == MinRuntime("2m")
    assert s.resolve("preempt", "vault", "vault").min_runtime == MinRuntime.NEVER
    assert s.resolve("preempt", "ghost", "ghost").min_runtime == MinRuntime("2m")


def test_min_runtime_of_two_jobs_uses_their_queues() -> None:
    s = session()
    victim = job()
    assert s.resolve(Action.PREEMPT, PREEMPTOR.queue, victim.queue).min_runtime == MinRuntime("10m")
    assert s.resolve("reclaim", RECLAIMER.queue, victim.queue).min_runtime == MinRuntime("30m")
    assert s.resolve(Action.RECLAIM, RECLAIMER.queue, job("v", "vault").queue).min_runtime == (
        MinRuntime.NEVER
    )


def test_an_unknown_preemptor_queue_in_reclaim_uses_the_default_and_says_so() -> None:
    s = session(config=Config(default_reclaim_min_runtime="5m"))
    ghost = Job("ghost-job", "ghost", priority=100)
    victim = job(start=NOW - timedelta(minutes=4))
    assert s.resolve(Action.RECLAIM, "ghost", "a") == Resolution(MinRuntime("5m"), None, ("ghost",))
    decision = s.verdict(Action.RECLAIM, ghost, victim)
    assert decision.reason is Reason.PROTECTED
    assert decision.min_runtime == MinRuntime("5m")
    assert decision.source is None
    assert decision.protected_until == NOW + timedelta(minutes=1)
    assert decision.notes == ("queue 'ghost' is not in the tree: the node-pool default applies",)


def test_an_unknown_victim_queue_is_not_noted_twice() -> None:
    decision = session().verdict(Action.RECLAIM, RECLAIMER, job("v", "ghost"))
    assert decision.reason is Reason.UNKNOWN_VICTIM_QUEUE
    assert decision.notes == ()


def test_protection_queries_use_the_resolved_min_runtime() -> None:
    s = session()
    victim = job(start=NOW - timedelta(minutes=15))
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected is False
    assert s.protection(Action.RECLAIM, RECLAIMER, victim).protected is True
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected_until == NOW - timedelta(
        minutes=5
    )
    assert s.protection("reclaim", RECLAIMER, victim).protected_until == NOW + timedelta(minutes=15)


# -- protection: the three answers at once ------------------------------------------------------


def test_protection_of_a_job_within_its_min_runtime() -> None:
    recent = job(start=NOW - timedelta(minutes=5))
    status = session().protection(Action.PREEMPT, PREEMPTOR, recent)
    assert status == ProtectionStatus(
        resolution=Resolution(MinRuntime("10m"), "a"),
        protected_until=NOW + timedelta(minutes=5),
        protected_by=ProtectionKind.MIN_RUNTIME,
    )
    assert status.protected is True
    assert (status.min_runtime, status.source) == (MinRuntime("10m"), "a")


def test_protection_of_a_job_past_its_min_runtime_says_when_it_ended() -> None:
    status = session().protection("reclaim", RECLAIMER, job())  # reclaim 'b' -> 'a': 30m of 'org'
    assert status == ProtectionStatus(
        resolution=Resolution(MinRuntime("30m"), "org"),
        protected_until=LONG_AGO + timedelta(minutes=30),
        protected_by=None,
    )
    assert status.protected is False


def test_protection_without_a_start_time_and_under_never() -> None:
    unstarted = session().protection(Action.PREEMPT, PREEMPTOR, job(start=None))
    assert (unstarted.protected, unstarted.protected_until, unstarted.protected_by) == (
        False,
        None,
        None,
    )
    vault = session().protection(Action.PREEMPT, job("p", "vault"), job(queue="vault"))
    assert (vault.protected, vault.protected_until, vault.protected_by) == (
        True,
        FOREVER,
        ProtectionKind.NEVER,
    )
    assert str(vault.resolution) == "never from queue 'vault'"


@settings(max_examples=150, deadline=None)
@given(situations())
def test_protection_is_the_three_answers_it_replaces(situation: Situation) -> None:
    """Law: ``protection`` is, from one evaluation of the rule, the three answers it replaced
    (``is_protected``, ``protected_until`` and ``resolve``) and the verdict's ``protected_by``.

    Each answer is asked of its own fresh session (same tree, configuration and now), so that
    none is read from the cache another filled: the resolution from ``resolve``; whether and
    until when it is protected from the rule itself at that resolution (a situation has no
    protection beyond min-runtime) and from the verdict, with what protects it."""
    action, pre = situation.action, situation.preemptor
    for victim in situation.victims:
        status = situation.session().protection(action, pre, victim)
        event(f"protected: {status.protected}")
        event(f"protected by: {status.protected_by or 'nothing'}")
        resolution = situation.session().resolve(action, pre.queue, victim.queue)
        assert status.resolution == resolution
        assert status.protected == is_protected(
            resolution.min_runtime, victim.start_time, situation.now
        )
        assert status.protected_until == protected_until(resolution.min_runtime, victim.start_time)
        decision = situation.session().verdict(action, pre, victim)
        assert (status.min_runtime, status.source) == (decision.min_runtime, decision.source)
        assert status.protected_by is decision.protected_by
        assert status.protected == (decision.protected_by is not None)
        assert status.protected_until == decision.protected_until


@settings(max_examples=150, deadline=None)
@given(situations())
def test_protections_are_each_victims_protection_from_any_preemptor_of_the_queue(
    situation: Situation,
) -> None:
    """Law: the batch form answers what the one-victim form answers, victim by victim, and the
    preemptor counts only through its queue (the command asks once per queue).

    The one-victim answers are asked of a fresh session (same tree, configuration and now):
    asked of the session that judged the batch, they would be read from its cache."""
    current = situation.session()
    pre = situation.preemptor
    another = Job("another", pre.queue, priority=0)  # same queue, nothing else alike
    batch = current.protections(situation.action, pre, situation.victims)
    event(f"protected: {sum(status.protected for status in batch)} of {len(batch)}")
    alone = situation.session()
    assert batch == [alone.protection(situation.action, pre, v) for v in situation.victims]
    assert current.protections(situation.action, another, situation.victims) == batch


# -- the cache and the statistics ---------------------------------------------------------------


def test_stats_after_a_known_sequence_of_calls() -> None:
    s = session()
    victim = job(start=NOW - timedelta(minutes=15))  # preempt: 10m, over; reclaim: 30m, not
    s.resolve("preempt", "a", "a")  # lookup 1: miss
    s.resolve("preempt", "a", "a")  # lookup 2: hit
    s.resolve("reclaim", "b", "a")  # lookup 3: miss
    s.resolve("reclaim", "b", "a")  # lookup 4: hit
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed  # lookup 5: hit; eligible
    assert not s.verdict(Action.PREEMPT, PREEMPTOR, job("high", priority=100)).allowed  # no lookup
    s.verdict(Action.RECLAIM, RECLAIMER, victim)  # lookup 6: hit; protected
    s.verdict(Action.RECLAIM, RECLAIMER, victim)  # the same verdict: judged once, no lookup
    stats = s.stats()
    assert stats == SessionStats(
        decisions={"eligible": 1, "not-lower-priority": 1, "protected": 1},
        resolutions=6,
        cache_hits=4,
        jobs=4,
    )
    assert stats.cache_misses == 2


def test_stats_count_every_call_however_many_calls_and_victims() -> None:
    """A session keeps each call's reasons and adds them up in bounded steps (every 256 calls
    or 65,536 victims) and when stats() asks: the counts are those of every call."""
    s = session()
    young = [job(f"young-{i}", start=NOW - timedelta(minutes=5)) for i in range(301)]  # protected
    old = job("old", start=NOW - timedelta(minutes=15))  # eligible
    for victim in young[:300]:  # past 256 calls: added up once on the way
        assert not s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed
    assert s.stats().decisions == {"protected": 300}
    batch = [old] * 70_000  # past 65,536 victims in one call
    assert len(s.eligible_victims(Action.PREEMPT, PREEMPTOR, batch)) == 70_000
    s.verdict(Action.PREEMPT, PREEMPTOR, young[300])
    assert s.stats().decisions == {"protected": 301, "eligible": 70_000}
    assert s.stats().resolutions == 302  # one lookup per call: the one victim queue


def test_a_fresh_session_has_empty_stats() -> None:
    stats = session().stats()
    assert stats == SessionStats(decisions={}, resolutions=0, cache_hits=0, jobs=0)
    assert stats.cache_misses == 0


def test_each_distinct_pair_is_resolved_once() -> None:
    s = session()
    victims = [job(f"v{i}", start=NOW - timedelta(minutes=i * 10)) for i in range(6)]
    eligible = s.eligible_victims(Action.RECLAIM, RECLAIMER, victims)
    assert [victim.id for victim in eligible] == ["v3", "v4", "v5"]
    stats = s.stats()
    # one batch: one lookup for the one victim queue
    assert (stats.resolutions, stats.cache_hits, stats.cache_misses) == (1, 0, 1)
    assert stats.decisions == {"protected": 3, "eligible": 3}
    for victim in victims:
        s.verdict(Action.RECLAIM, RECLAIMER, victim)
    stats = s.stats()
    assert (stats.resolutions, stats.cache_hits, stats.cache_misses) == (7, 6, 1)


def test_stats_count_decisions_by_reason_value() -> None:
    s = session()
    victims = [
        job("young", start=NOW - timedelta(minutes=1)),
        job("old"),
        job("older", start=NOW - timedelta(days=1)),
        job("same", "b"),
        job("vaulted", "vault"),
    ]
    eligible = s.eligible_victims(Action.RECLAIM, RECLAIMER, victims)
    assert [victim.id for victim in eligible] == ["old", "older"]
    stats = s.stats()
    assert stats.decisions == {"protected": 1, "eligible": 2, "same-queue": 1, "never": 1}
    # 'same' fails a fundamental and needs no lookup; a batch looks up each victim queue once.
    assert (stats.resolutions, stats.cache_hits, stats.cache_misses) == (2, 0, 2)
    assert stats.jobs == 6


def test_job_facts_are_computed_once_per_job_object() -> None:
    s = session()
    victim = job()
    assert s._fact(victim).row == s._fact(victim).row
    s.verdict(Action.PREEMPT, PREEMPTOR, victim)
    s.verdict(Action.PREEMPT, PREEMPTOR, victim)
    assert s.stats().jobs == 2


def test_a_batch_seen_again_in_another_container_reuses_its_facts() -> None:
    s = session()
    victims = [job("old"), job("young", start=NOW - timedelta(minutes=1)), job("older")]
    first = s.eligible_victims(Action.PREEMPT, PREEMPTOR, victims)
    again = [
        s.eligible_victims(Action.PREEMPT, PREEMPTOR, tuple(victims)),
        s.eligible_victims(Action.PREEMPT, PREEMPTOR, list(victims)),
        s.eligible_victims(Action.PREEMPT, PREEMPTOR, iter(victims)),
    ]
    assert [v.id for v in first] == ["old", "older"]
    assert [[v.id for v in answer] for answer in again] == [["old", "older"]] * 3
    assert s.stats().jobs == 4  # three victims and the preemptor, each once


def test_a_batch_with_the_same_first_job_and_length_is_checked_job_by_job() -> None:
    s = session()
    old, young = job("old"), job("young", start=NOW - timedelta(minutes=1))
    assert [v.id for v in s.eligible_victims(Action.PREEMPT, PREEMPTOR, [old, old])] == [
        "old",
        "old",
    ]
    # same first job, same length, another second job: not the batch seen before
    assert [v.id for v in s.eligible_victims(Action.PREEMPT, PREEMPTOR, [old, young])] == ["old"]
    assert s.stats().jobs == 3


def test_known_and_new_jobs_in_one_batch_each_get_one_row() -> None:
    s = session()
    known, new = job("known"), job("new", start=NOW - timedelta(minutes=1))
    s.verdict(Action.PREEMPT, PREEMPTOR, known)
    answer = s.eligible_victims(Action.PREEMPT, PREEMPTOR, [known, new, known, new])
    assert [v.id for v in answer] == ["known", "known"]
    assert s.stats().jobs == 3


def test_a_batch_that_fails_leaves_no_facts_behind() -> None:
    @attrs.frozen
    class Own:
        id: str
        queue: str
        start_time: datetime
        priority: int = 10
        preemptibility: str = "preemptible"
        pod_sets: tuple[PodSet, ...] = (PodSet(tasks=[Task("t")]),)

    s = session()
    good = Own("good", "a", LONG_AGO)
    tree = Job(
        "tree",
        "a",
        start_time=LONG_AGO,
        pod_sets=[PodSet(f"r{i}", tasks=[Task(f"r{i}-0")], parent="g") for i in range(2)],
        sub_groups=[SubGroup("g", min_sub_group=1)],
    )
    naive = Own("naive", "a", datetime(2026, 1, 1, 11, 0))  # no offset: rejected
    batch: list[JobLike] = [good, tree, naive]
    with pytest.raises(InvalidTimestamp, match="naive"):
        s.eligible_victims(Action.PREEMPT, PREEMPTOR, batch)
    assert s.stats().jobs == 1  # the preemptor only: no row for 'good' or 'tree' either
    assert s._table.shapes == {}  # nor the tree's shape
    assert [v.id for v in s.eligible_victims(Action.PREEMPT, PREEMPTOR, [good])] == ["good"]
    assert s.stats().jobs == 2


def test_a_session_never_caches_protection_across_a_change_of_now() -> None:
    s = session()
    victim = job(start=NOW - timedelta(minutes=5))
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed is False
    later = s.at(NOW + timedelta(minutes=5))
    assert later.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed is True
    assert later.protection(Action.PREEMPT, PREEMPTOR, victim).protected is False
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed is False


# -- at(now) ------------------------------------------------------------------------------------


def test_at_keeps_the_resolutions_and_gives_a_new_now() -> None:
    s = session()
    s.resolve("reclaim", "b", "a")
    later = s.at(NOW + timedelta(hours=1))
    assert later.now == NOW + timedelta(hours=1)
    assert s.now == NOW
    assert later.tree is s.tree
    assert later.config is s.config
    assert later.resolve("reclaim", "b", "a").min_runtime == MinRuntime("30m")
    assert later.stats() == SessionStats(decisions={}, resolutions=1, cache_hits=1, jobs=0)


def test_at_starts_job_facts_and_decisions_afresh() -> None:
    s = session()
    s.verdict(Action.PREEMPT, PREEMPTOR, job())
    later = s.at(NOW)
    assert later.stats() == SessionStats(decisions={}, resolutions=0, cache_hits=0, jobs=0)
    assert s.stats().decisions == {"eligible": 1}


def test_a_derived_session_does_not_change_the_stats_of_the_original() -> None:
    s = session()
    s.resolve("reclaim", "b", "a")
    later = s.at(NOW + timedelta(hours=1))
    later.resolve("preempt", "a", "a")  # a new pair, computed by the shared resolver
    assert later.stats() == SessionStats(decisions={}, resolutions=1, cache_hits=0, jobs=0)
    assert s.stats() == SessionStats(decisions={}, resolutions=1, cache_hits=0, jobs=0)


def test_at_keeps_the_legacy_priority_threshold() -> None:
    preemptor = Job("pre", "a", priority=300)
    victim = Job("v", "a", priority=150, start_time=LONG_AGO, pod_sets=[PodSet(tasks=[Task("t")])])
    assert session().verdict(Action.PREEMPT, preemptor, victim).allowed is False
    lenient = Session(TREE, Config(), NOW, legacy_priority_threshold=200)
    assert lenient.verdict(Action.PREEMPT, preemptor, victim).allowed is True
    assert lenient.at(NOW + timedelta(hours=1)).verdict(Action.PREEMPT, preemptor, victim).allowed


# -- now ----------------------------------------------------------------------------------------


def test_now_accepts_an_aware_datetime_and_reports_it_in_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    s = session(datetime(2026, 1, 1, 14, 0, tzinfo=plus_two))
    assert s.now == NOW
    assert s.now.utcoffset() == timedelta(0)


def test_now_accepts_posix_seconds() -> None:
    assert Session(TREE, Config(), NOW_POSIX).now == NOW
    assert Session(TREE, Config(), NOW_POSIX + 0.25).now == NOW + timedelta(milliseconds=250)
    assert session().at(NOW_POSIX + 60).now == NOW + timedelta(minutes=1)


def test_a_naive_now_is_an_invalid_timestamp() -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        Session(TREE, Config(), datetime(2026, 1, 1, 12, 0))
    assert str(caught.value) == (
        "naive datetime 2026-01-01 12:00:00 for the session's now: give a timezone-aware "
        "datetime (for example with tzinfo=timezone.utc) or POSIX seconds"
    )
    assert caught.value.value == datetime(2026, 1, 1, 12, 0)
    assert caught.value.origin == "the session's now"
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, MinRuntimeError)


def test_at_rejects_a_naive_now() -> None:
    with pytest.raises(
        InvalidTimestamp, match=r"naive datetime 2026-01-02 00:00:00 for the session's now"
    ):
        session().at(datetime(2026, 1, 2))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("noon", "invalid time 'noon' for the session's now"),
        (True, "invalid time True for the session's now"),
        (float("nan"), "invalid time nan for the session's now: not a finite number"),
        (None, "invalid time None for the session's now"),
    ],
)
def test_a_now_that_is_not_a_time_is_an_invalid_timestamp(value: object, message: str) -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        Session(TREE, Config(), value)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)
    assert caught.value.value is value


# -- the caller's own job objects ---------------------------------------------------------------


@attrs.frozen
class PodTask:
    id: Hashable
    status: str


@attrs.frozen
class Group:
    name: str
    min_available: int
    tasks: tuple[PodTask, ...]


@attrs.frozen
class Workload:
    id: Hashable
    queue: str
    priority: int
    preemptibility: str | None
    start_time: datetime | float | None
    pod_sets: tuple[Group, ...]


def test_a_schedulers_own_job_objects_work_without_conversion() -> None:
    tasks = (PodTask(1, "running"), PodTask(2, "BOUND"), PodTask(3, "pending"))
    victim = Workload(
        ("ns", "train"),
        "a",
        10,
        "Semi-Preemptible",
        NOW_POSIX - 60,
        (Group("workers", 1, tasks),),
    )
    s = session()
    decision = s.verdict(Action.PREEMPT, PREEMPTOR, victim)
    assert (decision.reason, decision.victim) == (Reason.DEFERRED, ("ns", "train"))
    assert decision.start_time == NOW - timedelta(minutes=1)
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).tasks == (tasks[1],)
    assert s.validate(Action.PREEMPT, PREEMPTOR, [(victim, [2])]).valid is True
    assert s.validate(Action.PREEMPT, PREEMPTOR, [(victim, [1, 2])]).failing_victims == (
        ("ns", "train"),
    )


def test_a_naive_start_time_on_a_callers_job_is_an_invalid_timestamp() -> None:
    victim = Workload("ns/x", "a", 10, None, datetime(2026, 1, 1), ())
    with pytest.raises(
        InvalidTimestamp, match=r"naive datetime 2026-01-01 00:00:00 for job 'ns/x' start_time"
    ):
        session().verdict(Action.PREEMPT, PREEMPTOR, victim)


# -- threads ------------------------------------------------------------------------------------


def crowd(count: int) -> tuple[QueueTree, list[Job], list[Job]]:
    """A tree of 4 teams of 5 queues, ``count`` running jobs spread over them (starts, elastic
    sets, priorities and preemptibility varied), and 40 preemptors in various queues."""
    queues = [Queue("org", reclaim_min_runtime="30m", preempt_min_runtime="10m")]
    for team in range(4):
        queues.append(Queue(f"t{team}", "org", reclaim_min_runtime=f"{15 * team}m"))
        queues += [Queue(f"t{team}q{i}", f"t{team}") for i in range(5)]
    leaves = [queue.name for queue in queues if "q" in queue.name]
    preemptibilities = ["preemptible", None, "semi-preemptible", "non-preemptible"]
    victims = [
        Job(
            f"v{i}",
            leaves[i % len(leaves)],
            priority=(25, 50, 75, 125)[i % 4],
            preemptibility=preemptibilities[i % 7 % 4],
            start_time=None if i % 11 == 0 else NOW - timedelta(minutes=i % 90),
            pod_sets=[PodSet(min_available=1 + i % 2, tasks=[Task(f"v{i}-0"), Task(f"v{i}-1")])],
        )
        for i in range(count)
    ]
    preemptors = [
        Job(f"p{i}", leaves[(7 * i) % len(leaves)], priority=(60, 100, 200)[i % 3])
        for i in range(40)
    ]
    return QueueTree(queues), victims, preemptors


def test_threads_asking_one_session_get_the_answers_asked_in_turn() -> None:
    """Four threads asking one session (and one cycle) for the eligible victims of 40
    preemptors, each over its own slice of the running jobs and over all of them, get exactly
    the answers the same questions get asked one after another."""
    tree, victims, preemptors = crowd(2000)
    questions = [
        (Action.RECLAIM if i % 2 else Action.PREEMPT, preemptor, victims[i * 50 :] + victims)
        for i, preemptor in enumerate(preemptors)
    ]
    expected_session = Session(tree, Config(), NOW)
    expected = [
        [v.id for v in expected_session.eligible_victims(*question)] for question in questions
    ]
    counted = expected_session.stats()
    expected_cycle = Session(tree, Config(), NOW).cycle(victims)
    in_turn = [[v.id for v in expected_cycle.eligible_victims(a, p)] for a, p, _ in questions]
    assert sum(map(len, expected)) > 5_000  # real answers, not empty ones
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can: races show
    try:
        for _ in range(3):
            shared = Session(tree, Config(), NOW)
            assert asked_by_threads(shared, questions) == expected
            stats = shared.stats()  # every call counted once; no job read twice
            assert (stats.decisions, stats.resolutions, stats.jobs) == (
                counted.decisions,
                counted.resolutions,
                counted.jobs,
            )
            cycle = Session(tree, Config(), NOW).cycle(victims)
            assert asked_by_threads(cycle, [(a, p) for a, p, _ in questions]) == in_turn
    finally:
        sys.setswitchinterval(switch)


def test_sessions_sharing_a_resolver_count_their_own_misses_under_threads() -> None:
    """Four sessions on one resolver (``Session.at``), each asked from its own thread to
    resolve its own 400 victim queues: each counts exactly its 400 lookups, every one a miss
    (a pair no other session asks). A count read from a counter the resolver shares, before
    and after each lookup, took the other threads' misses too."""
    names = [f"q{i}" for i in range(1600)]
    tree = QueueTree([Queue("root", preempt_min_runtime="10m")] + [Queue(n, "root") for n in names])
    first = Session(tree, Config(), NOW)
    sessions = [first] + [first.at(NOW + timedelta(seconds=i)) for i in range(1, 4)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can: races show
    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            resolved = list(
                pool.map(
                    lambda k: [sessions[k].resolve("preempt", "root", n) for n in names[k::4]],
                    range(4),
                )
            )
    finally:
        sys.setswitchinterval(switch)
    assert [len({r.min_runtime for r in found}) for found in resolved] == [1, 1, 1, 1]
    counts = [(s.stats().resolutions, s.stats().cache_hits) for s in sessions]
    assert counts == [(400, 0)] * 4


def asked_by_threads(
    asked: Session | Cycle[Job], questions: Sequence[tuple[Any, ...]]
) -> list[list[Hashable]]:
    """The ids of the eligible victims of each question, asked by four threads at once."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda q: [v.id for v in asked.eligible_victims(*q)], questions))

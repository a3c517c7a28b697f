"""Decisions and reasons (docs/spec/session.md): what ``Session.explain`` says, and its sentence."""

from __future__ import annotations

from datetime import timedelta

import attrs
import pytest
from hypothesis import event, given
from tests.world import LONG_AGO, NOW, PREEMPTOR, RECENT, RECLAIMER, job, session

# -- Reason -------------------------------------------------------------------------------------
from minruntime import (
    FOREVER,
    Action,
    Config,
    Job,
    MinRuntime,
    Preemptibility,
    ProtectionKind,
    Reason,
    Verdict,
)
from minruntime.testing import Situation, situations


def test_only_eligible_and_deferred_allow_an_eviction() -> None:
    assert {reason for reason in Reason if reason.allowed} == {Reason.ELIGIBLE, Reason.DEFERRED}


def test_a_reason_prints_as_its_value() -> None:
    assert [str(reason) for reason in Reason] == [
        "preemptor-delayed",
        "same-job",
        "unknown-victim-queue",
        "different-queue",
        "same-queue",
        "not-lower-priority",
        "non-preemptible",
        "no-active-task",
        "never",
        "protected",
        "eviction-budget",
        "checkpoint-grace",
        "deferred",
        "eligible",
    ]


# -- explain: one test per reason ---------------------------------------------------------------


def test_explain_protected() -> None:
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, job(start=RECENT))
    assert decision == Verdict(
        action=Action.PREEMPT,
        preemptor="pre",
        victim="v",
        allowed=False,
        reason=Reason.PROTECTED,
        min_runtime=MinRuntime("10m"),
        source="a",
        preemptibility=Preemptibility.PREEMPTIBLE,
        start_time=RECENT,
        protected_until=NOW + timedelta(minutes=5),
        now=NOW,
        notes=(),
        protected_by=ProtectionKind.MIN_RUNTIME,
        tasks=(),
        unsaved_work=300.0,  # refused: what evicting its one active task would lose, 5 minutes
        rank_key=(300.0, 10, 0, -int(RECENT.timestamp()) * 10**9),
        min_runtime_filter=False,
    )
    assert bool(decision) is False
    assert str(decision) == (
        "preempt of 'v' by 'pre': refused: min-runtime 10m from queue 'a': "
        "started 2026-01-01T11:55:00Z, protected until 2026-01-01T12:05:00Z"
    )


def test_explain_never() -> None:
    decision = session().verdict(Action.RECLAIM, RECLAIMER, job("v", "vault"))
    assert (decision.reason, decision.allowed) == (Reason.NEVER, False)
    assert (decision.min_runtime, decision.source) == (MinRuntime.NEVER, "vault")
    assert decision.protected_until == FOREVER
    assert decision.start_time == LONG_AGO
    assert str(decision) == (
        "reclaim of 'v' by 'rec': refused: min-runtime never from queue 'vault': "
        "never evicted by reclaim"
    )


def test_explain_never_without_a_start_time() -> None:
    decision = session().verdict(Action.RECLAIM, RECLAIMER, job("v", "vault", start=None))
    assert (decision.reason, decision.protected_until, decision.start_time) == (
        Reason.NEVER,
        FOREVER,
        None,
    )


def test_explain_deferred_for_a_protected_elastic_victim() -> None:
    victim = job(start=RECENT, statuses=("Running",) * 3)
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, victim)
    assert (decision.reason, decision.allowed, bool(decision)) == (Reason.DEFERRED, True, True)
    assert (decision.min_runtime, decision.source) == (MinRuntime("10m"), "a")
    assert decision.protected_until == NOW + timedelta(minutes=5)
    assert str(decision) == (
        "preempt of 'v' by 'pre': allowed: elastic and protected "
        "(min-runtime 10m from queue 'a', until 2026-01-01T12:05:00Z): "
        "only tasks above min_available may be evicted"
    )


def test_explain_deferred_for_a_semi_preemptible_victim() -> None:
    victim = job(preemptibility="semi-preemptible", statuses=("Running",) * 2)
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, victim)
    assert (decision.reason, decision.allowed) == (Reason.DEFERRED, True)
    assert decision.preemptibility is Preemptibility.SEMI_PREEMPTIBLE
    assert (decision.min_runtime, decision.source) == (MinRuntime("10m"), "a")
    assert decision.protected_until == LONG_AGO + timedelta(minutes=10)
    assert str(decision) == (
        "preempt of 'v' by 'pre': allowed: semi-preemptible: only tasks above its core may be "
        "evicted"
    )


def test_explain_eligible() -> None:
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, job())
    assert (decision.reason, decision.allowed) == (Reason.ELIGIBLE, True)
    assert (decision.min_runtime, decision.source) == (MinRuntime("10m"), "a")
    assert decision.protected_until == LONG_AGO + timedelta(minutes=10)
    assert str(decision) == (
        "preempt of 'v' by 'pre': allowed: min-runtime 10m from queue 'a': "
        "started 2026-01-01T11:00:00Z, protection over"
    )


def test_explain_eligible_without_a_start_time() -> None:
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, job(start=None))
    assert (decision.reason, decision.start_time, decision.protected_until) == (
        Reason.ELIGIBLE,
        None,
        None,
    )
    assert str(decision) == (
        "preempt of 'v' by 'pre': allowed: min-runtime 10m from queue 'a': "
        "never started, so not protected"
    )


def test_explain_eligible_with_the_node_pool_default() -> None:
    preemptor = Job("pre-b", "b", priority=100)
    decision = session().verdict(Action.PREEMPT, preemptor, job("v", "b"))
    assert (decision.reason, decision.min_runtime, decision.source) == (
        Reason.ELIGIBLE,
        MinRuntime.ZERO,
        None,
    )
    assert decision.protected_until == LONG_AGO
    assert str(decision) == (
        "preempt of 'v' by 'pre-b': allowed: min-runtime 0s from the node-pool default: "
        "started 2026-01-01T11:00:00Z, protection over"
    )


def test_explain_non_preemptible() -> None:
    victim = job(preemptibility="non-preemptible")
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, victim)
    assert (decision.reason, decision.allowed) == (Reason.NON_PREEMPTIBLE, False)
    assert (decision.min_runtime, decision.source) == (MinRuntime("10m"), "a")
    assert decision.protected_until == LONG_AGO + timedelta(minutes=10)
    assert decision.preemptibility is Preemptibility.NON_PREEMPTIBLE
    assert str(decision) == "preempt of 'v' by 'pre': refused: the victim is non-preemptible"


def test_explain_non_preemptible_for_a_semi_preemptible_victim_without_surplus() -> None:
    victim = job(preemptibility="semi-preemptible", min_available=2, statuses=("Running",) * 2)
    decision = session().verdict(Action.RECLAIM, RECLAIMER, victim)
    assert (decision.reason, decision.allowed) == (Reason.NON_PREEMPTIBLE, False)
    assert (decision.min_runtime, decision.source) == (MinRuntime("30m"), "org")
    assert decision.protected_until == LONG_AGO + timedelta(minutes=30)
    assert str(decision) == (
        "reclaim of 'v' by 'rec': refused: the victim is semi-preemptible and has no task "
        "above its core"
    )


def test_explain_same_queue() -> None:
    decision = session().verdict(Action.RECLAIM, RECLAIMER, job("v", "b"))
    assert (decision.reason, decision.allowed) == (Reason.SAME_QUEUE, False)
    assert (decision.min_runtime, decision.source) == (MinRuntime("30m"), "org")
    assert decision.protected_until == LONG_AGO + timedelta(minutes=30)
    assert str(decision) == (
        "reclaim of 'v' by 'rec': refused: reclaim only takes victims from other queues"
    )


def test_explain_same_job() -> None:
    running = job("v")
    decision = session().verdict(Action.PREEMPT, running, running)
    assert (decision.reason, decision.allowed) == (Reason.SAME_JOB, False)
    assert (decision.preemptor, decision.victim) == ("v", "v")
    assert (decision.min_runtime, decision.source) == (MinRuntime("10m"), "a")
    assert str(decision) == "preempt of 'v' by 'v': refused: a job cannot evict itself"


def test_explain_unknown_victim_queue() -> None:
    config = Config(default_reclaim_min_runtime="7m")
    decision = session(config=config).verdict(Action.RECLAIM, RECLAIMER, job("v", "ghost"))
    assert (decision.reason, decision.allowed) == (Reason.UNKNOWN_VICTIM_QUEUE, False)
    assert (decision.min_runtime, decision.source) == (MinRuntime("7m"), None)
    assert decision.protected_until == LONG_AGO + timedelta(minutes=7)
    assert decision.notes == ()
    assert str(decision) == (
        "reclaim of 'v' by 'rec': refused: the victim's queue is not in the queue tree"
    )


def test_explain_different_queue() -> None:
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, job("v", "b"))
    assert (decision.reason, decision.allowed) == (Reason.DIFFERENT_QUEUE, False)
    assert (decision.min_runtime, decision.source) == (MinRuntime.ZERO, None)
    assert decision.protected_until == LONG_AGO
    assert str(decision) == (
        "preempt of 'v' by 'pre': refused: preempt only takes victims from the preemptor's own "
        "queue"
    )


def test_explain_not_lower_priority() -> None:
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, job(priority=100, start=None))
    assert (decision.reason, decision.allowed) == (Reason.NOT_LOWER_PRIORITY, False)
    assert (decision.min_runtime, decision.source, decision.protected_until) == (
        MinRuntime("10m"),
        "a",
        None,
    )
    assert str(decision) == (
        "preempt of 'v' by 'pre': refused: the victim's priority is not lower than the preemptor's"
    )


def test_explain_no_active_task() -> None:
    victim = job(statuses=("Pending", "Succeeded"))
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, victim)
    assert (decision.reason, decision.allowed) == (Reason.NO_ACTIVE_TASK, False)
    assert (decision.min_runtime, decision.source) == (MinRuntime("10m"), "a")
    assert str(decision) == "preempt of 'v' by 'pre': refused: the victim has no active task"


# -- notes --------------------------------------------------------------------------------------


def test_explain_notes_the_legacy_priority_rule() -> None:
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, job(preemptibility=None))
    assert decision.notes == ("preemptible by the legacy priority rule (10 < 100)",)
    assert str(decision) == (
        "preempt of 'v' by 'pre': allowed: min-runtime 10m from queue 'a': "
        "started 2026-01-01T11:00:00Z, protection over; "
        "preemptible by the legacy priority rule (10 < 100)"
    )


def test_explain_notes_a_legacy_non_preemptible_victim() -> None:
    preemptor = Job("pre", "a", priority=300)
    decision = session().verdict(Action.PREEMPT, preemptor, job(priority=150, preemptibility=None))
    assert decision.reason is Reason.NON_PREEMPTIBLE
    assert str(decision) == (
        "preempt of 'v' by 'pre': refused: the victim is non-preemptible; "
        "non-preemptible by the legacy priority rule (150 >= 100)"
    )


def test_explain_notes_an_unknown_preemptor_queue() -> None:
    preemptor = Job("pre", "ghost", priority=100)
    decision = session().verdict(Action.RECLAIM, preemptor, job())
    assert (decision.reason, decision.min_runtime, decision.source) == (
        Reason.ELIGIBLE,
        MinRuntime.ZERO,
        None,
    )
    assert str(decision) == (
        "reclaim of 'v' by 'pre': allowed: min-runtime 0s from the node-pool default: "
        "started 2026-01-01T11:00:00Z, protection over; "
        "queue 'ghost' is not in the tree: the node-pool default applies"
    )


# -- the decision value -------------------------------------------------------------------------


def test_a_decision_is_immutable() -> None:
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, job())
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        decision.allowed = False  # type: ignore[misc]
    assert decision.allowed is True


def test_explain_counts_in_the_session_stats() -> None:
    s = session()
    s.verdict(Action.PREEMPT, PREEMPTOR, job(start=RECENT))
    s.verdict(Action.PREEMPT, PREEMPTOR, job(start=RECENT))
    s.verdict(Action.PREEMPT, PREEMPTOR, job("v", "b"))
    assert s.stats().decisions == {"protected": 2, "different-queue": 1}


def test_explain_takes_the_action_by_name_and_reports_the_sessions_now() -> None:
    decision = session().verdict("reclaim", RECLAIMER, job())
    assert decision.action is Action.RECLAIM
    assert decision.now == NOW


# -- properties ---------------------------------------------------------------------------------


@given(situations(trees=True))
def test_explain_allows_exactly_what_is_eligible(world: Situation) -> None:
    """Law: a verdict's ``allowed`` is whether ``eligible_victims`` (the batch judgement, in a
    session of its own) lists the victim, and the decision's own truth, its reason's and its
    sentence's verdict agree."""
    s = world.session()
    event("victims" if world.victims else "no victim")
    listed = world.session().eligible_victims(world.action, world.preemptor, world.victims)
    eligible_ids = {id(victim) for victim in listed}
    for victim in world.victims:
        decision = s.verdict(world.action, world.preemptor, victim)
        eligible = id(victim) in eligible_ids
        assert decision.allowed is eligible
        assert bool(decision) is decision.reason.allowed is eligible
        verdict = "allowed" if eligible else "refused"
        assert str(decision).startswith(
            f"{world.action} of {victim.id!r} by {world.preemptor.id!r}: {verdict}: "
        )


@given(situations(trees=True))
def test_explain_reports_the_sessions_min_runtime_and_protection(world: Situation) -> None:
    """Law: a decision's MR and ``protected_until`` are the session's answers for the same pair."""
    s = world.session()
    event("victims" if world.victims else "no victim")
    for victim in world.victims:
        decision = s.verdict(world.action, world.preemptor, victim)
        assert (
            decision.min_runtime
            == s.resolve(world.action, world.preemptor.queue, victim.queue).min_runtime
        )
        assert (
            decision.protected_until
            == s.protection(world.action, world.preemptor, victim).protected_until
        )
        assert (
            decision.source == s.resolve(world.action, world.preemptor.queue, victim.queue).source
        )
        assert decision.start_time == victim.start_time
        assert decision.now == world.now

"""Eligibility (docs/spec/filters.md, with docs/spec/protection.md and docs/spec/preemptibility.md):
the fundamentals in order, the min-runtime filter, the batch form and the next expiry;
``minruntime._eligibility``. Evictable tasks are in test_evictable.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import event, given, target
from hypothesis import strategies as st
from tests.world import NOW, PREEMPTOR, RECENT, RECLAIMER, job, session

from minruntime import (
    FOREVER,
    Action,
    Job,
    MinRuntime,
    Preemptibility,
    QueueTree,
    Reason,
    Resolution,
)
from minruntime._eligibility import Groups, judge, min_runtime_filter
from minruntime._facts import FactsTable, JobFacts
from minruntime._protection import NO_SETTINGS, Settings, is_protected, protected_until
from minruntime._protection import is_protected_ns as protected_ns
from minruntime._resolution import resolve
from minruntime.testing import Situation, situations

# -- eligibility: preempt ---------------------------------------------------------------------

PREEMPT_CASES = [
    pytest.param(PREEMPTOR, job(), Reason.ELIGIBLE, id="eligible"),
    pytest.param(PREEMPTOR, job("v", "b"), Reason.DIFFERENT_QUEUE, id="different-queue"),
    pytest.param(PREEMPTOR, job(priority=100), Reason.NOT_LOWER_PRIORITY, id="equal-priority"),
    pytest.param(PREEMPTOR, job(priority=101), Reason.NOT_LOWER_PRIORITY, id="higher-priority"),
    pytest.param(
        PREEMPTOR, job(preemptibility="non-preemptible"), Reason.NON_PREEMPTIBLE, id="non"
    ),
    pytest.param(
        Job("pre", "a", priority=200),
        job(priority=150, preemptibility=None),
        Reason.NON_PREEMPTIBLE,
        id="legacy-non-preemptible",
    ),
    pytest.param(
        PREEMPTOR,
        job(statuses=("Pending", "Succeeded")),
        Reason.NO_ACTIVE_TASK,
        id="only-pending-and-succeeded",
    ),
    pytest.param(
        Job("pre", "ghost", priority=100),
        job("v", "ghost"),
        Reason.UNKNOWN_VICTIM_QUEUE,
        id="unknown-victim-queue",
    ),
    pytest.param(Job("pre", "vault", priority=100), job("v", "vault"), Reason.NEVER, id="never"),
    pytest.param(
        PREEMPTOR, job(start=NOW - timedelta(minutes=5)), Reason.PROTECTED, id="protected"
    ),
    pytest.param(
        PREEMPTOR,
        job(start=NOW - timedelta(minutes=5), statuses=("Running",) * 3),
        Reason.DEFERRED,
        id="protected-elastic",
    ),
    pytest.param(
        PREEMPTOR, job(statuses=("Running",) * 3), Reason.ELIGIBLE, id="unprotected-elastic"
    ),
    pytest.param(
        PREEMPTOR,
        job(preemptibility="semi-preemptible", statuses=("Running",) * 2),
        Reason.DEFERRED,
        id="semi-with-surplus",
    ),
    pytest.param(
        PREEMPTOR,
        job(preemptibility="semi-preemptible", min_available=2, statuses=("Running", "Running")),
        Reason.NON_PREEMPTIBLE,
        id="semi-without-surplus",
    ),
]


@pytest.mark.parametrize(("preemptor", "victim", "reason"), PREEMPT_CASES)
def test_preempt_eligibility_gives_the_reason(preemptor: Job, victim: Job, reason: Reason) -> None:
    s = session()
    assert s.verdict(Action.PREEMPT, preemptor, victim).reason is reason
    assert s.verdict(Action.PREEMPT, preemptor, victim).allowed is reason.allowed


def test_preempt_refuses_the_preemptor_itself() -> None:
    running = job("v")
    s = session()
    assert s.verdict(Action.PREEMPT, running, running).allowed is False
    assert s.verdict(Action.PREEMPT, running, running).reason is Reason.SAME_JOB


def test_a_distinct_object_with_the_preemptors_id_is_the_same_job() -> None:
    s = session()
    assert s.verdict(Action.PREEMPT, job("v", priority=50), job("v")).reason is Reason.SAME_JOB


# -- eligibility: reclaim ---------------------------------------------------------------------

RECLAIM_CASES = [
    pytest.param(RECLAIMER, job(), Reason.ELIGIBLE, id="eligible"),
    pytest.param(RECLAIMER, job("v", "b"), Reason.SAME_QUEUE, id="same-queue"),
    pytest.param(RECLAIMER, job(priority=100), Reason.ELIGIBLE, id="equal-priority"),
    pytest.param(RECLAIMER, job(priority=500), Reason.ELIGIBLE, id="higher-priority"),
    pytest.param(
        RECLAIMER, job(preemptibility="non-preemptible"), Reason.NON_PREEMPTIBLE, id="non"
    ),
    pytest.param(
        RECLAIMER, job(statuses=("Pending", "Succeeded")), Reason.NO_ACTIVE_TASK, id="inactive"
    ),
    pytest.param(RECLAIMER, job("v", "ghost"), Reason.UNKNOWN_VICTIM_QUEUE, id="unknown-queue"),
    pytest.param(RECLAIMER, job("v", "vault"), Reason.NEVER, id="never"),
    pytest.param(
        RECLAIMER, job(start=NOW - timedelta(minutes=20)), Reason.PROTECTED, id="protected"
    ),
    pytest.param(
        RECLAIMER,
        job(start=NOW - timedelta(minutes=20), statuses=("Running",) * 2),
        Reason.DEFERRED,
        id="protected-elastic",
    ),
    pytest.param(RECLAIMER, RECLAIMER, Reason.SAME_JOB, id="self"),
]


@pytest.mark.parametrize(("preemptor", "victim", "reason"), RECLAIM_CASES)
def test_reclaim_eligibility_gives_the_reason(preemptor: Job, victim: Job, reason: Reason) -> None:
    s = session()
    assert s.verdict(Action.RECLAIM, preemptor, victim).reason is reason
    assert s.verdict(Action.RECLAIM, preemptor, victim).allowed is reason.allowed


def test_reclaim_protection_uses_the_reclaim_min_runtime_not_the_preempt_one() -> None:
    # 15 minutes ago: past the preempt MR of 'a' (10m), inside the reclaim MR from 'org' (30m).
    victim = job(start=NOW - timedelta(minutes=15))
    s = session()
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed is True
    assert s.verdict(Action.RECLAIM, RECLAIMER, victim).allowed is False


def test_actions_may_be_given_by_name() -> None:
    victim = job(start=NOW - timedelta(minutes=15))
    s = session()
    assert s.verdict("preempt", PREEMPTOR, victim).allowed is True
    assert s.verdict("reclaim", RECLAIMER, victim).allowed is False


# -- the order of the checks --------------------------------------------------------------------

ORDER_CASES = [
    pytest.param(
        Action.PREEMPT,
        Job("x", "ghost", priority=1, preemptibility="non-preemptible"),
        Job("x", "ghost", priority=1, preemptibility="non-preemptible"),
        Reason.SAME_JOB,
        id="same-job-before-unknown-queue",
    ),
    pytest.param(
        Action.PREEMPT,
        PREEMPTOR,
        job("v", "ghost", priority=500, preemptibility="non-preemptible", statuses=()),
        Reason.UNKNOWN_VICTIM_QUEUE,
        id="unknown-queue-before-everything-else",
    ),
    pytest.param(
        Action.PREEMPT,
        PREEMPTOR,
        job("v", "b", priority=500, preemptibility="non-preemptible", statuses=()),
        Reason.DIFFERENT_QUEUE,
        id="different-queue-before-priority",
    ),
    pytest.param(
        Action.PREEMPT,
        PREEMPTOR,
        job(priority=500, preemptibility="non-preemptible", statuses=()),
        Reason.NOT_LOWER_PRIORITY,
        id="priority-before-preemptibility",
    ),
    pytest.param(
        Action.PREEMPT,
        PREEMPTOR,
        job(preemptibility="non-preemptible", statuses=("Pending",)),
        Reason.NON_PREEMPTIBLE,
        id="preemptibility-before-active-task",
    ),
    pytest.param(
        Action.PREEMPT,
        Job("pre", "vault", priority=100),
        job("v", "vault", statuses=("Pending",)),
        Reason.NO_ACTIVE_TASK,
        id="active-task-before-never",
    ),
    pytest.param(
        Action.PREEMPT,
        PREEMPTOR,
        job(start=NOW, statuses=("Failed",)),
        Reason.NO_ACTIVE_TASK,
        id="active-task-before-protection",
    ),
    pytest.param(
        Action.RECLAIM,
        RECLAIMER,
        job("v", "b", preemptibility="non-preemptible", statuses=()),
        Reason.SAME_QUEUE,
        id="same-queue-before-preemptibility",
    ),
    pytest.param(
        Action.RECLAIM,
        RECLAIMER,
        job("v", "vault", preemptibility="non-preemptible"),
        Reason.NON_PREEMPTIBLE,
        id="preemptibility-before-never",
    ),
    pytest.param(
        Action.RECLAIM,
        RECLAIMER,
        job("v", "vault", preemptibility="semi-preemptible", statuses=("Running",) * 3),
        Reason.NEVER,
        id="never-before-semi-deferral",
    ),
]


@pytest.mark.parametrize(("action", "preemptor", "victim", "reason"), ORDER_CASES)
def test_the_first_failing_check_names_the_reason(
    action: Action, preemptor: Job, victim: Job, reason: Reason
) -> None:
    assert session().verdict(action, preemptor, victim).reason is reason


def _judge(
    action: Action,
    pre: JobFacts,
    victim: JobFacts,
    known: bool = True,
    mr: MinRuntime = MinRuntime.ZERO,
    now_ns: int = 10**20,
) -> Reason:
    queues = {victim.queue} if known else set()
    (reason,) = judge(
        action,
        pre,
        victim.table,
        [victim.row],
        groups(lambda queue: mr, now_ns),
        queues,
        now_ns,
    ).reasons
    return reason


class GivenResolver:
    """A resolver with a given min-runtime per victim queue, section 16 settings off."""

    def __init__(self, min_runtime_of: Callable[[str], MinRuntime]) -> None:
        self.min_runtime_of = min_runtime_of
        self.has_protections = False

    def resolve(self, action: Action, preemptor_queue: str, victim_queue: str) -> Resolution:
        return Resolution(self.min_runtime_of(victim_queue), None)

    def lookup(
        self, action: Action, preemptor_queue: str, victim_queue: str
    ) -> tuple[Resolution, bool]:
        return self.resolve(action, preemptor_queue, victim_queue), True

    def settings(self, action: Action, preemptor_queue: str, victim_queue: str) -> Settings:
        return NO_SETTINGS


def groups(min_runtime_of: Callable[[str], MinRuntime], now_ns: int) -> Groups:
    """The groups of a session with a given min-runtime per victim queue, settings off."""
    return Groups(GivenResolver(min_runtime_of), now_ns)


def test_judge_checks_the_fundamentals_in_the_documented_order() -> None:
    pre = JobFacts.of(PREEMPTOR)
    bad = JobFacts.of(job("v", "b", priority=500, preemptibility="non-preemptible", statuses=()))
    assert _judge(Action.PREEMPT, pre, pre, known=False) is Reason.SAME_JOB
    assert _judge(Action.PREEMPT, pre, bad, known=False) is Reason.UNKNOWN_VICTIM_QUEUE
    assert _judge(Action.PREEMPT, pre, bad) is Reason.DIFFERENT_QUEUE
    assert _judge(Action.PREEMPT, pre, JobFacts.of(job())) is Reason.ELIGIBLE
    assert _judge(Action.RECLAIM, pre, JobFacts.of(job())) is Reason.SAME_QUEUE


def test_judge_checks_never_then_semi_then_protection() -> None:
    now_ns = 1_000 * 10**9
    plain = JobFacts.of(job("p", "b", start=1_000))
    elastic = JobFacts.of(job("e", "b", start=1_000, statuses=("Running",) * 2))
    semi = JobFacts.of(
        job("s", "b", start=None, preemptibility="semi-preemptible", min_available=0)
    )
    ten = MinRuntime("10s")
    pre = JobFacts.of(PREEMPTOR)
    act = Action.RECLAIM
    assert _judge(act, pre, semi, mr=MinRuntime.NEVER, now_ns=now_ns) is Reason.NEVER
    assert _judge(act, pre, semi, now_ns=now_ns) is Reason.DEFERRED
    assert _judge(act, pre, plain, mr=ten, now_ns=now_ns) is Reason.PROTECTED
    assert _judge(act, pre, elastic, mr=ten, now_ns=now_ns) is Reason.DEFERRED
    assert _judge(act, pre, plain, mr=ten, now_ns=now_ns + 10 * 10**9) is Reason.ELIGIBLE
    assert _judge(act, pre, elastic, mr=ten, now_ns=now_ns + 10 * 10**9) is Reason.ELIGIBLE


def test_judge_resolves_each_victim_queue_once() -> None:
    pre = JobFacts.of(PREEMPTOR)
    table = FactsTable()
    rows = table.rows([job(f"v{i}", "b" if i % 2 else "c") for i in range(6)])
    asked: list[str] = []

    def min_runtime_of(queue: str) -> MinRuntime:
        asked.append(queue)
        return MinRuntime.ZERO

    reasons = judge(
        Action.RECLAIM,
        pre,
        table,
        rows,
        groups(min_runtime_of, 10**20),
        {"b", "c"},
        10**20,
    ).reasons
    assert reasons == [Reason.ELIGIBLE] * 6
    assert asked == ["c", "b"]


# -- the min-runtime filter ---------------------------------------------------------------------


FILTER_CASES = [
    pytest.param(job("v", "vault"), False, id="never"),
    pytest.param(job("v", "vault", statuses=("Running",) * 3), False, id="never-elastic"),
    pytest.param(
        job("v", "vault", preemptibility="semi-preemptible", statuses=("Running",) * 3),
        False,
        id="never-semi",
    ),
    pytest.param(job(start=RECENT, statuses=("Running",) * 3), True, id="protected-elastic"),
    pytest.param(
        job(start=RECENT, preemptibility="semi-preemptible", statuses=("Running",) * 3),
        True,
        id="protected-semi",
    ),
    pytest.param(job(start=RECENT), False, id="protected"),
    pytest.param(job(), True, id="unprotected"),
    pytest.param(job(start=None), True, id="never-started"),
    pytest.param(
        job(priority=500, preemptibility="non-preemptible", statuses=()),
        True,
        id="fundamentals-ignored",
    ),
    pytest.param(
        job(start=RECENT, priority=500, preemptibility="non-preemptible"),
        False,
        id="fundamentals-ignored-protected",
    ),
    pytest.param(job("v", "ghost", start=RECENT), True, id="unknown-queue-default-zero"),
]


@pytest.mark.parametrize(("victim", "passes"), FILTER_CASES)
def test_min_runtime_filter(victim: Job, passes: bool) -> None:
    assert session().verdict(Action.PREEMPT, PREEMPTOR, victim).min_runtime_filter is passes


def test_min_runtime_filter_function_on_facts() -> None:
    protected = JobFacts.of(job(start=0))
    elastic = JobFacts.of(job(start=0, statuses=("Running",) * 2))
    ten = MinRuntime("10s")
    assert min_runtime_filter(protected, ten, NO_SETTINGS, 9 * 10**9) is False
    assert min_runtime_filter(protected, ten, NO_SETTINGS, 10 * 10**9) is True
    assert min_runtime_filter(elastic, ten, NO_SETTINGS, 0) is True
    assert min_runtime_filter(elastic, MinRuntime.NEVER, NO_SETTINGS, 10**18) is False


# -- §5 boundaries through the session ----------------------------------------------------------


def test_at_exactly_start_plus_min_runtime_the_victim_is_eligible() -> None:
    victim = job(start=NOW - timedelta(minutes=10))
    s = session()
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected is False
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed is True
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected_until == NOW


def test_one_microsecond_before_start_plus_min_runtime_the_victim_is_protected() -> None:
    victim = job(start=NOW - timedelta(minutes=10) + timedelta(microseconds=1))
    s = session()
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected is True
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed is False
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected_until == NOW + timedelta(
        microseconds=1
    )
    assert s.at(NOW + timedelta(microseconds=1)).verdict(Action.PREEMPT, PREEMPTOR, victim).allowed


def test_a_future_start_time_protects_until_start_plus_min_runtime() -> None:
    victim = job(start=NOW + timedelta(hours=1))
    s = session()
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected is True
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected_until == NOW + timedelta(
        minutes=70
    )
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).reason is Reason.PROTECTED


def test_a_future_start_time_with_zero_min_runtime_protects_until_the_start() -> None:
    victim = job("v", "b", start=NOW + timedelta(seconds=1))
    s = session()
    pre = Job("pre", "b", priority=100)
    assert s.protection(Action.PREEMPT, pre, victim).protected is True
    assert (
        s.at(NOW + timedelta(seconds=1)).protection(Action.PREEMPT, pre, victim).protected is False
    )


def test_no_start_time_is_not_protected() -> None:
    victim = job(start=None)
    s = session()
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected is False
    assert s.protection(Action.PREEMPT, PREEMPTOR, victim).protected_until is None
    assert s.verdict(Action.PREEMPT, PREEMPTOR, victim).allowed is True


def test_never_protects_without_a_start_time() -> None:
    victim = job("v", "vault", start=None)
    pre = Job("pre", "vault", priority=100)
    s = session()
    assert s.protection(Action.PREEMPT, pre, victim).protected is True
    assert s.protection(Action.PREEMPT, pre, victim).protected_until == FOREVER
    assert s.verdict(Action.PREEMPT, pre, victim).allowed is False


def test_never_protects_whatever_the_elapsed_time() -> None:
    victim = job("v", "vault", start=datetime(2000, 1, 1, tzinfo=UTC))
    pre = Job("pre", "vault", priority=100)
    assert session().protection(Action.PREEMPT, pre, victim).protected is True


def test_protected_ns_is_strict_at_the_boundary() -> None:
    ten = MinRuntime("10s")
    assert protected_ns(ten, 0, 10 * 10**9 - 1) is True
    assert protected_ns(ten, 0, 10 * 10**9) is False
    assert protected_ns(ten, None, 0) is False
    assert protected_ns(MinRuntime.NEVER, None, 0) is True


# -- the batch form -----------------------------------------------------------------------------


def test_eligible_victims_keeps_input_order() -> None:
    first, second, third = job("v1"), job("v2", priority=100), job("v3", statuses=("Running",) * 2)
    fourth = job("v4", start=RECENT)
    fifth = job("v5", start=None)
    result = session().eligible_victims(
        Action.PREEMPT, PREEMPTOR, [fifth, first, second, third, fourth]
    )
    assert result == [fifth, first, third]


def test_eligible_victims_accepts_any_iterable() -> None:
    victims = (job(f"v{i}", priority=i * 40) for i in range(4))
    result = session().eligible_victims(Action.PREEMPT, PREEMPTOR, victims)
    assert [victim.id for victim in result] == ["v0", "v1", "v2"]


# -- next expiry --------------------------------------------------------------------------------


def test_next_expiry_is_the_earliest_end_of_protection_among_real_candidates() -> None:
    victims = [
        job("expired"),  # unprotected: not a candidate
        job("five", start=NOW - timedelta(minutes=5)),  # until +5m
        job("two", start=NOW - timedelta(minutes=8)),  # until +2m
        job("elastic", start=NOW - timedelta(seconds=510), statuses=("Running",) * 2),  # +90s
        job("high", start=NOW - timedelta(minutes=9), priority=100),  # fails priority
        job(
            "semi",
            start=NOW - timedelta(seconds=570),
            preemptibility="semi-preemptible",
            statuses=("Running",) * 2,
        ),  # semi: ignored
        job("non", start=NOW - timedelta(seconds=590), preemptibility="non-preemptible"),
        job("idle", start=NOW - timedelta(seconds=595), statuses=("Pending",)),
        job("other", "b", start=NOW - timedelta(seconds=596)),  # different queue
        job("unstarted", start=None),
        job("future", start=NOW + timedelta(hours=1)),
    ]
    assert session().next_expiry(Action.PREEMPT, PREEMPTOR, victims) == NOW + timedelta(seconds=90)


def test_next_expiry_skips_never_and_uses_the_action_min_runtime() -> None:
    victims = [
        job("locked", "vault", start=NOW - timedelta(minutes=29)),
        job("young", start=NOW - timedelta(minutes=20)),
    ]
    assert session().next_expiry(Action.RECLAIM, RECLAIMER, victims) == NOW + timedelta(minutes=10)


def test_next_expiry_ignores_a_protection_that_ends_exactly_now() -> None:
    victims = [job("ending", start=NOW - timedelta(minutes=10))]
    assert session().next_expiry(Action.PREEMPT, PREEMPTOR, victims) is None


def test_next_expiry_is_none_without_candidates() -> None:
    s = session()
    assert s.next_expiry(Action.PREEMPT, PREEMPTOR, []) is None
    assert s.next_expiry(Action.PREEMPT, PREEMPTOR, [job("old"), job("v", "vault")]) is None


def test_next_expiry_of_a_future_start() -> None:
    victims = [job("future", start=NOW + timedelta(hours=1))]
    assert session().next_expiry(Action.PREEMPT, PREEMPTOR, victims) == NOW + timedelta(minutes=70)


# -- properties ---------------------------------------------------------------------------------


@given(situations(trees=True))
def test_eligible_victims_equals_filtering_one_by_one(world: Situation) -> None:
    """Law: the batch form returns exactly the victims ``is_eligible`` accepts, in input order."""
    batch = world.session().eligible_victims(world.action, world.preemptor, world.victims)
    single = world.session()
    expected = [
        victim
        for victim in world.victims
        if single.verdict(world.action, world.preemptor, victim).allowed
    ]
    assert [id(victim) for victim in batch] == [id(victim) for victim in expected]


@given(situations(trees=True), st.data())
def test_eligible_victims_does_not_depend_on_input_order(
    world: Situation, data: st.DataObject
) -> None:
    """Law: as a set, the eligible victims do not depend on the order they are given in."""
    shuffled = data.draw(st.permutations(world.victims))
    first = world.session().eligible_victims(world.action, world.preemptor, world.victims)
    second = world.session().eligible_victims(world.action, world.preemptor, shuffled)
    assert {id(victim) for victim in first} == {id(victim) for victim in second}


@given(situations(trees=True), st.integers(0, 20 * 86_400))
def test_more_elapsed_time_never_makes_an_eligible_victim_ineligible(
    world: Situation, seconds: int
) -> None:
    """Law: a victim eligible at ``now`` is still eligible at any later instant."""
    s = world.session()
    later = s.at(world.now + timedelta(seconds=seconds))
    allowed = [v for v in world.victims if s.verdict(world.action, world.preemptor, v).allowed]
    event("a victim eligible now" if allowed else "no victim eligible now")
    for victim in allowed:
        assert later.verdict(world.action, world.preemptor, victim).allowed


def effective_preemptibility(job: Job) -> Preemptibility:
    if job.preemptibility is not None:
        return job.preemptibility
    return Preemptibility.PREEMPTIBLE if job.priority < 100 else Preemptibility.NON_PREEMPTIBLE


def passes_fundamentals(action: Action, tree: QueueTree, preemptor: Job, victim: Job) -> bool:
    """Section 8's fundamentals, written out independently of the library."""
    if victim.id == preemptor.id or victim.queue not in tree:
        return False
    if action is Action.PREEMPT:
        if victim.queue != preemptor.queue or victim.priority >= preemptor.priority:
            return False
    elif victim.queue == preemptor.queue:
        return False
    kind = effective_preemptibility(victim)
    actives = [
        sum(1 for task in pod_set.tasks if task.status.is_active) for pod_set in victim.pod_sets
    ]
    if kind is Preemptibility.NON_PREEMPTIBLE:
        return False
    if kind is Preemptibility.SEMI_PREEMPTIBLE and not anything_outside_the_core(victim):
        return False
    return sum(actives) > 0


def anything_outside_the_core(job: Job) -> bool:
    """Sections 7 and 18, written out independently of the library: some active task is above a
    core pod set's minimum, or in a sub-group outside the core (a set's first ``min_sub_group``
    children, satisfied ones first, then by name, whether the set is satisfied or short)."""
    leaves = {pod_set.name: pod_set for pod_set in job.pod_sets}
    order = {pod_set.name: i for i, pod_set in enumerate(job.pod_sets)}
    parent_of = {p.name: p.parent for p in job.pod_sets} | {
        s.name: s.parent for s in job.sub_groups
    }
    need_of = {s.name: s.min_sub_group for s in job.sub_groups}

    def children(name: str | None) -> list[str]:
        def first(child: str) -> int:  # a set comes where its first pod set comes
            below = [leaf for leaf in leaves if child in ancestors(leaf)]
            return min(order[leaf] for leaf in below)

        return sorted((c for c, p in parent_of.items() if p == name), key=first)

    def ancestors(leaf: str) -> list[str]:
        found, current = [leaf], parent_of[leaf]
        while current is not None:
            found.append(current)
            current = parent_of[current]
        return found

    def active(leaf: str) -> int:
        return sum(1 for task in leaves[leaf].tasks if task.status.is_active)

    def satisfied(name: str | None) -> bool:
        if name in leaves:
            return active(name) >= leaves[name].min_available
        kids = children(name)
        wanted = job.min_sub_group if name is None else need_of[name]
        return sum(map(satisfied, kids)) >= (len(kids) if wanted is None else wanted)

    def outside(name: str | None) -> bool:
        if name in leaves:
            return active(name) > leaves[name].min_available
        kids = children(name)
        wanted = job.min_sub_group if name is None else need_of[name]
        # the core keeps the first min_sub_group children (all when unset), satisfied ones
        # first, then by name: a short set too (section 18, "a short set")
        ranked = sorted(kids, key=lambda kid: (not satisfied(kid), kid))
        kept = ranked[: len(kids) if wanted is None else wanted]
        return any(outside(kid) if kid in kept else any_active(kid) for kid in kids)

    def any_active(name: str) -> bool:
        return any(active(leaf) for leaf in leaves if name in ancestors(leaf))

    return outside(None)


@given(situations(trees=True))
def test_next_expiry_is_the_earliest_protected_until_among_candidates(world: Situation) -> None:
    """Law: next_expiry is the minimum ``protected_until`` after ``now`` over the victims that
    pass every fundamental, have a finite MR, are protected now and are not semi-preemptible."""
    tree, config, now, action, preemptor = (
        world.tree,
        world.config,
        world.now,
        world.action,
        world.preemptor,
    )
    ends = []
    for victim in world.victims:
        mr = resolve(tree, config, action, preemptor.queue, victim.queue).min_runtime
        if (
            passes_fundamentals(action, tree, preemptor, victim)
            and not mr.is_never
            and effective_preemptibility(victim) is not Preemptibility.SEMI_PREEMPTIBLE
            and is_protected(mr, victim.start_time, now)
        ):
            until = protected_until(mr, victim.start_time)
            assert until is not None
            assert until > now
            ends.append(until)
    expected = min(ends) if ends else None
    event("an expiry among the candidates" if ends else "no candidate protected now")
    target(len(ends), label="candidates protected now")  # steer towards worlds that have them
    assert world.session().next_expiry(action, preemptor, world.victims) == expected


@given(situations(trees=True))
def test_eligibility_is_the_fundamentals_then_the_min_runtime_filter(world: Situation) -> None:
    """Law: eligible iff the independently written fundamentals and the min-runtime filter pass."""
    s = world.session()
    event("victims" if world.victims else "no victim")
    for victim in world.victims:
        expected = (
            passes_fundamentals(world.action, world.tree, world.preemptor, victim)
            and s.verdict(world.action, world.preemptor, victim).min_runtime_filter
        )
        assert s.verdict(world.action, world.preemptor, victim).allowed is expected


def test_a_semi_preemptible_victim_with_no_active_task_is_refused_for_no_active_task() -> None:
    # The active-task check comes before the semi-preemptible "nothing above the core" rule:
    # a job that holds nothing is better explained by that than by its preemptibility.
    victim = job(preemptibility="semi-preemptible", min_available=0, statuses=("Pending",))
    assert session().verdict(Action.PREEMPT, PREEMPTOR, victim).reason is Reason.NO_ACTIVE_TASK


def test_a_semi_preemptible_victim_with_only_its_core_running_is_non_preemptible() -> None:
    victim = job(
        preemptibility="semi-preemptible", min_available=2, statuses=("Running", "Running")
    )
    decision = session().verdict(Action.PREEMPT, PREEMPTOR, victim)
    assert decision.reason is Reason.NON_PREEMPTIBLE
    assert str(decision).endswith("the victim is semi-preemptible and has no task above its core")

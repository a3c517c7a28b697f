"""Checkpoint-aware protection through the Session (docs/spec/beyond-min-runtime.md with
docs/spec/filters.md to docs/spec/session.md).

Eligibility, ``explain``, ``protected_until``, ``next_expiry``, ``validate`` and ``stats``
with checkpoint graces, eviction budgets and per-job requests; a Session over a Kubernetes
snapshot that carries the annotations; and the laws: without the inputs nothing changes, the
grace never holds a preemptor past ``now + grace``, and a job is never evicted beyond its
budget. Unsaved work and the ranking: ``tests/test_ranking.py``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import attrs
import pytest
from hypothesis import event, given, target
from hypothesis import strategies as st
from tests.world import (
    CHECKPOINT_TREE,
    CHECKPOINTING,
    PREEMPTOR,
    RECLAIMER,
    at,
    checkpoint_inputs,
    near_checkpoints,
    pod,
    pod_group,
    queue_object,
    session_at,
    stamp,
    victim,
)

from minruntime import (
    FOREVER,
    Action,
    Config,
    Failure,
    FailureKind,
    Job,
    JobInputs,
    MinRuntime,
    ProtectionKind,
    ProtectionSettings,
    Queue,
    QueueTree,
    Reason,
    Session,
    Verdict,
)
from minruntime._resolution import Resolver
from minruntime.kube import (
    CHECKPOINT_INTERVAL_ANNOTATION,
    EVICTIONS_ANNOTATION,
    LAST_CHECKPOINT_ANNOTATION,
    REQUESTED_MIN_RUNTIME_ANNOTATION,
    read_snapshot,
)
from minruntime.starttime import START_TIME_ANNOTATION
from minruntime.testing import jobs, min_runtimes, queue_trees

RECLAIM = Action.RECLAIM
PREEMPT = Action.PREEMPT


def explained(minutes: float, job: Job, action: Action = RECLAIM) -> Verdict:
    preemptor = RECLAIMER if action is RECLAIM else PREEMPTOR
    return session_at(minutes).verdict(action, preemptor, job)


# -- checkpoint grace ----------------------------------------------------------------------------


def test_grace_refuses_a_victim_whose_next_checkpoint_is_due_within_it() -> None:
    current = session_at(35)
    assert not current.verdict(RECLAIM, RECLAIMER, CHECKPOINTING).allowed
    assert current.protection(RECLAIM, RECLAIMER, CHECKPOINTING).protected
    assert current.protection(RECLAIM, RECLAIMER, CHECKPOINTING).protected_until == at(45)
    decision = current.verdict(RECLAIM, RECLAIMER, CHECKPOINTING)
    assert decision.reason is Reason.CHECKPOINT_GRACE
    assert not decision.allowed
    assert decision.protected_by == ProtectionKind.CHECKPOINT_GRACE
    assert decision.protected_until == at(45)
    assert decision.min_runtime == MinRuntime("30m")
    assert decision.unsaved_work == 35 * 60.0
    assert str(decision) == (
        "reclaim of 'ckpt' by 'rec': refused: min-runtime 30m from queue 'org' is over, but its "
        "next checkpoint is due within the checkpoint grace: protected until "
        "2026-01-01T00:45:00Z; checkpoint grace 10m from queue 'org'"
    )


@pytest.mark.parametrize(
    ("minutes", "reason"),
    [
        pytest.param(29.99, Reason.PROTECTED, id="min-runtime-still-protects"),
        pytest.param(30, Reason.ELIGIBLE, id="checkpoint-15m-away-beyond-grace"),
        pytest.param(34.99, Reason.ELIGIBLE, id="just-beyond-grace"),
        pytest.param(35, Reason.CHECKPOINT_GRACE, id="exactly-grace-away"),
        pytest.param(44.99, Reason.CHECKPOINT_GRACE, id="just-before-checkpoint"),
        pytest.param(45, Reason.ELIGIBLE, id="at-the-checkpoint"),
    ],
)
def test_grace_applies_only_within_now_and_now_plus_grace(minutes: float, reason: Reason) -> None:
    # reclaim: MR 30 m, grace 10 m; the next checkpoint is start + interval = 45 m
    assert explained(minutes, CHECKPOINTING).reason is reason


def test_a_checkpoint_the_job_did_not_report_is_not_inferred() -> None:
    # at 80 m the last reported checkpoint is still none: the next one was due at 45 m
    assert explained(80, CHECKPOINTING).reason is Reason.ELIGIBLE
    reported = attrs.evolve(
        CHECKPOINTING,
        inputs=attrs.evolve(CHECKPOINTING.inputs or JobInputs(), last_checkpoint=at(45)),
    )
    decision = explained(80, reported)
    assert (decision.reason, decision.protected_until) == (Reason.CHECKPOINT_GRACE, at(90))


def test_preempt_uses_the_preempt_grace() -> None:
    assert explained(39.99, CHECKPOINTING, PREEMPT).reason is Reason.ELIGIBLE
    decision = explained(40, CHECKPOINTING, PREEMPT)
    assert (decision.reason, decision.protected_until) == (Reason.CHECKPOINT_GRACE, at(45))
    assert str(decision) == (
        "preempt of 'ckpt' by 'pre': refused: min-runtime 20m from queue 'org' is over, but its "
        "next checkpoint is due within the checkpoint grace: protected until "
        "2026-01-01T00:45:00Z; checkpoint grace 5m from queue 'org'"
    )


def test_no_grace_without_a_checkpoint_interval() -> None:
    job = victim("plain", last_checkpoint=at(10))
    decision = explained(35, job)
    assert (decision.reason, decision.protected_by) == (Reason.ELIGIBLE, None)
    assert decision.protected_until == at(30)


def test_no_grace_without_a_start_time() -> None:
    job = victim("unstarted", start=None, checkpoint_interval="45m")
    decision = explained(35, job)
    assert (decision.reason, decision.protected_until, decision.unsaved_work) == (
        Reason.ELIGIBLE,
        None,
        0.0,
    )
    assert str(decision) == (
        "reclaim of 'unstarted' by 'rec': allowed: min-runtime 30m from queue 'org': never "
        "started, so not protected; unsaved work 0"
    )


def test_no_grace_where_it_resolves_to_zero() -> None:
    tree = QueueTree(
        [
            Queue(
                "org", reclaim_min_runtime="30m", protections=ProtectionSettings(max_evictions=5)
            ),
            Queue("a", "org"),
            Queue("b"),
        ]
    )
    job = victim("ckpt", checkpoint_interval="45m")
    decision = session_at(44, tree).verdict(RECLAIM, Job("rec", "b", priority=100), job)
    assert decision.reason is Reason.ELIGIBLE


def test_next_checkpoint_counts_from_the_last_checkpoint() -> None:
    job = victim("ckpt", last_checkpoint=at(20), checkpoint_interval="30m")
    assert explained(39.99, job).reason is Reason.ELIGIBLE  # next at 50 m
    decision = explained(40, job)
    assert (decision.reason, decision.protected_until) == (Reason.CHECKPOINT_GRACE, at(50))
    assert decision.unsaved_work == 20 * 60.0


def test_a_checkpoint_before_the_start_time_is_ignored() -> None:
    # taken during the previous run: the next checkpoint is 45 m after this start, not at 25 m
    job = victim("restarted", last_checkpoint=at(-20), checkpoint_interval="45m")
    decision = explained(35, job)
    assert (decision.reason, decision.protected_until) == (Reason.CHECKPOINT_GRACE, at(45))
    assert decision.unsaved_work == 35 * 60.0


def test_grace_is_resolved_like_the_min_runtime_by_lca() -> None:
    tree = QueueTree(
        [
            Queue("B", protections=ProtectionSettings(reclaim_checkpoint_grace="10m")),
            Queue("C", "B"),
            Queue("leaf1", "C", protections=ProtectionSettings(reclaim_checkpoint_grace="0s")),
            Queue("leaf2", "C", protections=ProtectionSettings(reclaim_checkpoint_grace="3m")),
        ]
    )
    job = victim("ckpt", "leaf1", checkpoint_interval="45m")
    from_leaf2 = Job("p2", "leaf2", priority=100)
    outside = Job("p3", "B", priority=100)
    # from leaf2 the LCA is C: step down to leaf1 (0s); from B the victim's step is C: walk up to B
    assert session_at(40, tree).verdict(RECLAIM, from_leaf2, job).reason is Reason.ELIGIBLE
    assert session_at(40, tree).verdict(RECLAIM, outside, job).reason is Reason.CHECKPOINT_GRACE


def test_grace_from_the_node_pool_default() -> None:
    tree = QueueTree([Queue("a"), Queue("b")])
    settings = Config(protections=ProtectionSettings(reclaim_checkpoint_grace="10m"))
    job = victim("ckpt", checkpoint_interval="45m")
    decision = session_at(35, tree, settings).verdict(RECLAIM, RECLAIMER, job)
    assert (decision.reason, decision.protected_until) == (Reason.CHECKPOINT_GRACE, at(45))
    assert str(decision) == (
        "reclaim of 'ckpt' by 'rec': refused: min-runtime 0s from the node-pool default is over, "
        "but its next checkpoint is due within the checkpoint grace: protected until "
        "2026-01-01T00:45:00Z; checkpoint grace 10m from the default"
    )


# -- eviction budget -----------------------------------------------------------------------------

# evictions at -50, -30 and -10 minutes; max 2 within 1 h; restarted at -5 (MR 30 m: until 25 m)
THRASHED = victim("thrashed", "budget", start=-5, evictions=[at(-50), at(-30), at(-10)])


@pytest.mark.parametrize(
    ("minutes", "reason", "until"),
    [
        pytest.param(10, Reason.EVICTION_BUDGET, at(30), id="both-protect-budget-ends-last"),
        pytest.param(24.99, Reason.EVICTION_BUDGET, at(30), id="mr-almost-over"),
        pytest.param(25, Reason.EVICTION_BUDGET, at(30), id="mr-over-budget-spent"),
        pytest.param(29.99, Reason.EVICTION_BUDGET, at(30), id="just-before-t2-leaves"),
        pytest.param(30, Reason.ELIGIBLE, at(25), id="t2-plus-window-no-longer-counts"),
    ],
)
def test_budget_protects_until_the_oldest_counted_eviction_leaves_the_window(
    minutes: float, reason: Reason, until: datetime
) -> None:
    decision = explained(minutes, THRASHED)
    assert (decision.reason, decision.protected_until) == (reason, until)
    assert decision.protected_by == (
        ProtectionKind.EVICTION_BUDGET if reason is Reason.EVICTION_BUDGET else None
    )


def test_budget_sentence_and_preempt() -> None:
    decision = explained(26, THRASHED)
    assert str(decision) == (
        "reclaim of 'thrashed' by 'rec': refused: its eviction budget is spent: protected until "
        "2026-01-01T00:30:00Z; eviction budget 2 per 1h from queue 'budget'; "
        "evicted 2 time(s) in the window"
    )
    job = attrs.evolve(THRASHED, queue="budget")
    own = Job("pre-b", "budget", priority=100)
    assert session_at(26).verdict(PREEMPT, own, job).reason is Reason.EVICTION_BUDGET


def test_the_min_runtime_is_named_when_it_protects_longer_than_the_budget() -> None:
    job = victim("once", "budget", start=-5, evictions=[at(-50), at(-40)])  # budget until 10 m
    decision = explained(5, job)
    assert (decision.reason, decision.protected_by, decision.protected_until) == (
        Reason.PROTECTED,
        ProtectionKind.MIN_RUNTIME,
        at(25),
    )


def test_evictions_below_the_budget_do_not_protect() -> None:
    job = victim("twice", "budget", start=-40, evictions=[at(-90), at(-50)])  # -90 is outside
    assert explained(0, job).reason is Reason.ELIGIBLE


def test_a_bare_count_at_the_max_protects_for_good() -> None:
    job = victim("counted", "budget", start=-60, evictions=2)
    current = session_at(0)
    decision = current.verdict(RECLAIM, RECLAIMER, job)
    assert (decision.reason, decision.protected_until) == (Reason.EVICTION_BUDGET, FOREVER)
    assert str(decision) == (
        "reclaim of 'counted' by 'rec': refused: its eviction budget is spent: protected until "
        "forever; eviction budget 2 per 1h from queue 'budget'; evicted 2 time(s), times "
        "unknown"
    )
    assert current.next_expiry(RECLAIM, RECLAIMER, [job]) is None
    assert (
        explained(
            0, attrs.evolve(job, inputs=attrs.evolve(job.inputs or JobInputs(), evictions=1))
        ).reason
        is Reason.ELIGIBLE
    )


def test_max_evictions_zero_protects_every_job_of_the_queue_for_good() -> None:
    job = victim("fresh", "spent", start=-60)
    decision = explained(0, job)
    assert (decision.reason, decision.protected_until) == (Reason.EVICTION_BUDGET, FOREVER)


def test_the_budget_walks_up_from_the_victims_queue_and_needs_no_grace() -> None:
    tree = QueueTree(
        [
            Queue("org", protections=ProtectionSettings(max_evictions=1, eviction_window="2h")),
            Queue("a", "org"),
            Queue("b"),
        ]
    )
    job = victim("evicted", evictions=[at(-30)])
    decision = session_at(0, tree).verdict(RECLAIM, RECLAIMER, job)
    assert (decision.reason, decision.protected_until) == (Reason.EVICTION_BUDGET, at(90))


# -- the min-runtime filter uses every protection (docs/spec/filters.md) ------------------------


@pytest.mark.parametrize(
    ("minutes", "job", "kind"),
    [
        pytest.param(
            0, victim("fresh", "spent", start=-60), ProtectionKind.EVICTION_BUDGET, id="budget-0"
        ),
        pytest.param(
            45,
            victim("patient", requested_min_runtime="1h"),
            ProtectionKind.JOB_REQUEST,
            id="request-1h-over-30m-at-45m",
        ),
        pytest.param(35, CHECKPOINTING, ProtectionKind.CHECKPOINT_GRACE, id="grace"),
    ],
)
def test_the_min_runtime_filter_refuses_a_victim_a_section_16_protection_holds(
    minutes: float, job: Job, kind: ProtectionKind
) -> None:
    # the queue's min-runtime (30m) is over in each case: only the section 16 protection holds
    current = session_at(minutes)
    assert current.verdict(RECLAIM, RECLAIMER, job).protected_by is kind
    assert current.protection(RECLAIM, RECLAIMER, job).protected is True
    assert current.verdict(RECLAIM, RECLAIMER, job).allowed is False
    assert current.verdict(RECLAIM, RECLAIMER, job).min_runtime_filter is False
    later = session_at(minutes + 60)
    if kind is not ProtectionKind.EVICTION_BUDGET:  # a budget of zero holds for good
        assert later.verdict(RECLAIM, RECLAIMER, job).min_runtime_filter is True


# -- per-job request -----------------------------------------------------------------------------


def test_a_request_above_the_cap_is_clipped_to_it() -> None:
    job = victim("patient", requested_min_runtime="3h")
    decision = explained(60, job)
    assert (decision.reason, decision.protected_by, decision.protected_until) == (
        Reason.PROTECTED,
        ProtectionKind.JOB_REQUEST,
        at(120),
    )
    assert decision.min_runtime == MinRuntime("30m")
    assert decision.notes == (
        "the job requested 3h: effective min-runtime 2h (cap 2h from queue 'org')",
    )
    assert str(decision) == (
        "reclaim of 'patient' by 'rec': refused: min-runtime 30m from queue 'org': started "
        "2026-01-01T00:00:00Z, protected until 2026-01-01T02:00:00Z; the job requested 3h: "
        "effective min-runtime 2h (cap 2h from queue 'org')"
    )
    assert explained(120, job).reason is Reason.ELIGIBLE


def test_a_request_within_the_cap_is_granted() -> None:
    job = victim("patient", requested_min_runtime="45m")
    assert explained(44.99, job).protected_until == at(45)
    assert explained(45, job).reason is Reason.ELIGIBLE


def test_a_request_below_the_queues_min_runtime_is_ignored() -> None:
    job = victim("hasty", requested_min_runtime="10m")
    decision = explained(20, job)
    assert (decision.reason, decision.protected_until) == (Reason.PROTECTED, at(30))
    assert decision.notes == ("the job requested 10m: no effect (cap 2h from queue 'org')",)
    assert explained(30, job).reason is Reason.ELIGIBLE


def test_a_request_under_a_zero_cap_is_ignored() -> None:
    job = victim("patient", "nocap", requested_min_runtime="3h")
    decision = explained(30, job)
    assert (decision.reason, decision.protected_until) == (Reason.ELIGIBLE, at(30))
    assert decision.notes == ("the job requested 3h: no effect (cap 0s from queue 'nocap')",)


def test_a_request_under_a_never_cap_is_not_clipped() -> None:
    job = victim("patient", "uncapped", requested_min_runtime="10h")
    decision = explained(599.99, job)
    assert (decision.reason, decision.protected_until) == (Reason.PROTECTED, at(600))
    assert decision.notes == (
        "the job requested 10h: effective min-runtime 10h (cap never from queue 'uncapped')",
    )


def test_a_request_with_no_cap_anywhere_is_ignored_with_a_note() -> None:
    tree = QueueTree(
        [
            Queue("a", reclaim_min_runtime="30m", protections=ProtectionSettings(max_evictions=9)),
            Queue("b"),
        ]
    )
    job = victim("patient", requested_min_runtime="3h")
    decision = session_at(30, tree).verdict(RECLAIM, RECLAIMER, job)
    assert decision.reason is Reason.ELIGIBLE
    assert decision.notes == ("the job requested 3h: no effect (cap 0s from the default)",)


def test_a_never_min_runtime_stays_never_whatever_the_request() -> None:
    job = victim("kept", "vault", requested_min_runtime="1h")
    decision = explained(600, job)
    assert (decision.reason, decision.protected_until, decision.notes) == (
        Reason.NEVER,
        FOREVER,
        (),
    )


# -- elastic victims and the scenario validator --------------------------------------------------

ELASTIC = victim("elastic", weights=(8, 2, 1), min_available=1, checkpoint_interval="45m")


def test_a_task_order_key_chooses_the_tasks_whose_unsaved_work_explain_counts() -> None:
    """With a key, the elastic victim keeps its most important task (the light one here): the
    two heavier tasks are its surplus, in explain as in the ranking."""
    weights = {"elastic-0": 8.0, "elastic-1": 2.0, "elastic-2": 1.0}
    keyed = Session(
        CHECKPOINT_TREE, Config(), at(35), task_order=lambda task: weights[str(task.id)]
    )
    decision = keyed.verdict(RECLAIM, RECLAIMER, ELASTIC)
    evictable = keyed.verdict(RECLAIM, RECLAIMER, ELASTIC).tasks
    assert [task.id for task in evictable] == ["elastic-0", "elastic-1"]
    assert decision.unsaved_work == 35 * 60 * 10.0 == keyed.unsaved_work(ELASTIC, evictable)


def test_an_elastic_victim_in_its_grace_is_deferred() -> None:
    current = session_at(35)
    decision = current.verdict(RECLAIM, RECLAIMER, ELASTIC)
    assert (decision.reason, decision.allowed) == (Reason.DEFERRED, True)
    assert (decision.protected_by, decision.protected_until) == (
        ProtectionKind.CHECKPOINT_GRACE,
        at(45),
    )
    assert decision.unsaved_work == 35 * 60 * 3.0  # the two tasks above the minimum
    assert str(decision) == (
        "reclaim of 'elastic' by 'rec': allowed: elastic and protected (checkpoint-grace, until "
        "2026-01-01T00:45:00Z): only tasks above min_available may be evicted; unsaved work 6300"
        "; checkpoint grace 10m from queue 'org'"
    )
    assert [task.id for task in current.verdict(RECLAIM, RECLAIMER, ELASTIC).tasks] == [
        "elastic-2",
        "elastic-1",
    ]


def test_a_victim_protected_by_grace_cannot_go_below_min_available() -> None:
    current = session_at(35)
    assert current.validate(RECLAIM, RECLAIMER, {ELASTIC: ["elastic-1", "elastic-2"]}).valid
    result = current.validate(
        RECLAIM, RECLAIMER, {ELASTIC: ["elastic-0", "elastic-1", "elastic-2"]}
    )
    assert not result.valid
    assert result.failures == (
        Failure(
            victim="elastic",
            kind=FailureKind.PROTECTED,
            pod_set="default",
            active=3,
            evicted=3,
            min_available=1,
            min_runtime=MinRuntime("30m"),
            protected_until=at(45),
            protected_by=ProtectionKind.CHECKPOINT_GRACE,
        ),
    )
    assert str(result).endswith(
        "3 active - 3 evicted = 0 < min_available 1 (protected by its checkpoint grace until "
        "2026-01-01T00:45:00Z)"
    )
    # once the checkpoint is taken, the grace is over and the whole job may go
    later = session_at(45).validate(RECLAIM, RECLAIMER, {ELASTIC: ["elastic-0", "elastic-1"]})
    assert later.valid


def test_a_non_elastic_victim_in_its_grace_fails_validation() -> None:
    result = session_at(35).validate(RECLAIM, RECLAIMER, {CHECKPOINTING: ["ckpt-0"]})
    assert [(f.victim, f.active, f.evicted, f.min_available) for f in result.failures] == [
        ("ckpt", 1, 1, 1)
    ]


def test_an_elastic_victim_with_a_spent_budget_is_deferred_and_validated() -> None:
    job = victim("elastic", "budget", start=-60, weights=(1, 1), min_available=1, evictions=3)
    current = session_at(0)
    decision = current.verdict(RECLAIM, RECLAIMER, job)
    assert (decision.reason, decision.protected_by) == (
        Reason.DEFERRED,
        ProtectionKind.EVICTION_BUDGET,
    )
    assert str(decision) == (
        "reclaim of 'elastic' by 'rec': allowed: elastic and protected (eviction-budget, until "
        "forever): only tasks above min_available may be evicted; unsaved work 3600"
        "; eviction budget 2 per 1h from queue 'budget'; evicted 3 time(s), times unknown"
    )
    assert current.validate(RECLAIM, RECLAIMER, {job: ["elastic-1"]}).valid
    assert not current.validate(RECLAIM, RECLAIMER, {job: ["elastic-0", "elastic-1"]}).valid


def test_an_elastic_victim_protected_by_its_request_is_validated_until_the_effective_end() -> None:
    job = victim("elastic", weights=(1, 1), min_available=1, requested_min_runtime="1h")
    scenario = {job: ["elastic-0", "elastic-1"]}
    failing = session_at(59).validate(RECLAIM, RECLAIMER, scenario)
    assert [f.protected_until for f in failing.failures] == [at(60)]
    assert session_at(60).validate(RECLAIM, RECLAIMER, scenario).valid


# -- next_expiry ---------------------------------------------------------------------------------


def test_next_expiry_accounts_for_the_grace_and_the_budget_and_skips_for_good() -> None:
    in_grace = CHECKPOINTING  # until 45 m
    budget = victim("thrashed", "budget", start=-10, evictions=[at(-20), at(-15)])  # until 40 m
    counted = victim("counted", "budget", start=-60, evictions=2)  # for good
    current = session_at(35)
    assert current.next_expiry(RECLAIM, RECLAIMER, [counted, in_grace, budget]) == at(40)
    assert current.next_expiry(RECLAIM, RECLAIMER, [counted, in_grace]) == at(45)
    assert current.next_expiry(RECLAIM, RECLAIMER, [counted]) is None


def test_next_expiry_accounts_for_a_request() -> None:
    job = victim("patient", requested_min_runtime="3h")
    assert session_at(60).next_expiry(RECLAIM, RECLAIMER, [job]) == at(120)


def test_next_expiry_of_an_elastic_victim_in_its_grace() -> None:
    assert session_at(35).next_expiry(RECLAIM, RECLAIMER, [ELASTIC]) == at(45)


def test_next_expiry_chains_a_grace_that_follows_the_min_runtime() -> None:
    """The retry time is when the victim is free: the min-runtime ends at 30 m, when the
    checkpoint at 35 m is within the 10 m grace, so the victim is free only at 35 m."""
    job = victim("chained", checkpoint_interval="35m")
    assert session_at(20).next_expiry(RECLAIM, RECLAIMER, [job]) == at(35)
    decision = explained(20, job)
    assert (decision.reason, decision.protected_until) == (Reason.PROTECTED, at(35))
    decision = explained(30, job)
    assert (decision.reason, decision.protected_until) == (Reason.CHECKPOINT_GRACE, at(35))
    assert explained(35, job).reason is Reason.ELIGIBLE


def test_grace_applies_before_every_checkpoint_but_never_holds_a_job_for_good() -> None:
    """The grace protects before any next checkpoint, but only when the interval is longer
    than the grace: a job checkpointing every 5 m under a 10 m grace would otherwise never be
    evictable, while its unsaved work never exceeds 5 m anyway."""
    long_interval = victim("hourly", last_checkpoint=at(120), checkpoint_interval="1h")
    assert explained(170, long_interval).reason is Reason.CHECKPOINT_GRACE  # due at 180 m
    assert explained(169, long_interval).reason is Reason.ELIGIBLE
    for minutes in range(30, 240, 7):
        reported = at(minutes // 5 * 5)  # a checkpoint every 5 m, each reported on time
        job = victim("frequent", last_checkpoint=reported, checkpoint_interval="5m")
        assert explained(minutes, job).reason is Reason.ELIGIBLE


# -- stats ---------------------------------------------------------------------------------------


def test_stats_count_the_new_reasons() -> None:
    current = session_at(35)
    budget = victim("thrashed", "budget", start=-10, evictions=[at(-20), at(-15)])
    counted = victim("counted", "budget", start=-60, evictions=2)
    young = victim("young", start=20)
    free = victim("free", start=-60)
    victims = [CHECKPOINTING, budget, counted, young, free, ELASTIC]
    assert current.eligible_victims(RECLAIM, RECLAIMER, victims) == [free, ELASTIC]
    assert current.stats().decisions == {
        "protected": 1,
        "eviction-budget": 2,
        "checkpoint-grace": 1,
        "deferred": 1,
        "eligible": 1,
    }


# -- from a Kubernetes snapshot ------------------------------------------------------------------


def gpus(count: int) -> dict[str, Any]:
    """A container's resources: ``count`` GPUs as its limit."""
    return {"limits": {"nvidia.com/gpu": count}}


SNAPSHOT = [
    queue_object(
        "org",
        reclaimMinRuntime="30m",
        reclaimCheckpointGrace="10m",
        maxEvictions=2,
        evictionWindow="1h",
        maxJobMinRuntime="2h",
    ),
    queue_object("a", parentQueue="org"),
    queue_object("b", parentQueue="org"),
    pod_group(
        "train",
        queue="a",
        annotations={
            START_TIME_ANNOTATION: stamp(0),
            LAST_CHECKPOINT_ANNOTATION: stamp(10),
            CHECKPOINT_INTERVAL_ANNOTATION: "30m",
        },
        minMember=2,
        preemptibility="preemptible",
    ),
    pod("train-0", "train", node="node-1", resources=gpus(8)),
    pod("train-1", "train", node="node-1", resources=gpus(4)),
    pod_group(
        "flaky",
        queue="a",
        annotations={
            START_TIME_ANNOTATION: stamp(-10),
            EVICTIONS_ANNOTATION: f"{stamp(-20)},{stamp(-15)}",
        },
        minMember=1,
        preemptibility="preemptible",
    ),
    pod("flaky-0", "flaky", node="node-1", resources=gpus(1)),
    pod_group(
        "patient",
        queue="a",
        annotations={START_TIME_ANNOTATION: stamp(-10), REQUESTED_MIN_RUNTIME_ANNOTATION: "1h"},
        minMember=1,
        preemptibility="preemptible",
    ),
    pod("patient-0", "patient", node="node-1", resources=gpus(2)),
]


def test_a_snapshot_with_the_annotations_gives_checkpoint_aware_decisions() -> None:
    snapshot = read_snapshot(SNAPSHOT)
    jobs_by_name = {job.name: job.job for job in snapshot.jobs}
    current = Session(snapshot.tree, snapshot.config, at(35))
    train = current.verdict(RECLAIM, RECLAIMER, jobs_by_name["train"])
    assert (train.reason, train.protected_until) == (Reason.CHECKPOINT_GRACE, at(40))
    assert train.unsaved_work == 25 * 60 * 12.0  # 8 GPUs + a weight of 4
    flaky = current.verdict(RECLAIM, RECLAIMER, jobs_by_name["flaky"])
    assert (flaky.reason, flaky.protected_until) == (Reason.EVICTION_BUDGET, at(40))
    patient = current.verdict(RECLAIM, RECLAIMER, jobs_by_name["patient"])
    assert (patient.reason, patient.protected_until) == (Reason.PROTECTED, at(50))
    assert patient.notes == (
        "the job requested 1h: effective min-runtime 1h (cap 2h from queue 'org')",
    )
    assert current.next_expiry(RECLAIM, RECLAIMER, [j.job for j in snapshot.jobs]) == at(40)
    later = Session(snapshot.tree, snapshot.config, at(40))
    assert [job.id for job in later.rank_victims(RECLAIM, RECLAIMER, jobs_by_name.values())] == [
        "ml/flaky",
        "ml/train",
    ]


# -- laws ----------------------------------------------------------------------------------------


def with_settings_off(queue: Queue) -> Queue:
    """The queue with its section 16 settings set to values that change no decision."""
    protections = attrs.evolve(
        queue.protections,
        preempt_checkpoint_grace=0,
        reclaim_checkpoint_grace=0,
        max_job_min_runtime=0,
        eviction_window="1h",
    )
    return attrs.evolve(queue, protections=protections)


def with_queue(tree: QueueTree, extra: Queue) -> QueueTree:
    return QueueTree([*(tree[name] for name in tree), extra])


def without_request_notes(decision: Verdict) -> Verdict:
    """The decision without what only a checkpoint-aware session adds (and no rule changes), and
    without the unsaved work and rank key, which a job's checkpoint inputs move whatever the
    settings (they order victims; they decide nothing)."""
    notes = tuple(note for note in decision.notes if not note.startswith("the job requested"))
    return attrs.evolve(
        decision, notes=notes, checkpoint_aware=False, unsaved_work=0.0, rank_key=(0.0, 0, 0, 0)
    )


def assert_same_decisions(
    plain: Session, other: Session, preemptor: Job, victims: list[Job], *, exact: bool
) -> None:
    for action in (PREEMPT, RECLAIM):
        assert [v.id for v in other.eligible_victims(action, preemptor, victims)] == [
            v.id for v in plain.eligible_victims(action, preemptor, victims)
        ]
        assert other.next_expiry(action, preemptor, victims) == plain.next_expiry(
            action, preemptor, victims
        )
        for job in victims:
            got = other.verdict(action, preemptor, job)
            expected = plain.verdict(action, preemptor, job)
            if exact:
                assert got == expected
            else:
                assert without_request_notes(got) == without_request_notes(expected)
            assert other.verdict(action, preemptor, job).allowed == expected.allowed
            assert (
                other.protection(action, preemptor, job).protected
                == plain.protection(action, preemptor, job).protected
            )
            assert (
                other.protection(action, preemptor, job).protected_until == expected.protected_until
            )
            assert (
                other.verdict(action, preemptor, job).tasks
                == plain.verdict(action, preemptor, job).tasks
            )
            evictions = {job: [task.id for task in job.tasks()]}
            assert other.validate(action, preemptor, evictions) == plain.validate(
                action, preemptor, evictions
            )


@st.composite
def cycles(draw: st.DrawFn, *, with_inputs: bool) -> tuple[QueueTree, Job, list[Job], datetime]:
    """A tree, a preemptor, victims (some in an unknown queue) and a now."""
    tree = draw(queue_trees(max_queues=6))
    names = tuple(tree)
    preemptor = draw(jobs(queues=names, id="preemptor"))
    victims = draw(st.lists(jobs(queues=(*names, "gone")), max_size=5))
    if with_inputs:
        victims = [draw(checkpoint_inputs(job)) for job in victims]
    now = at(draw(st.integers(-60, 5 * 60)))
    return tree, preemptor, [preemptor, *victims], now


@given(cycles(with_inputs=False))
def test_settings_on_an_unrelated_queue_change_no_decision(
    cycle: tuple[QueueTree, Job, list[Job], datetime],
) -> None:
    """With no job inputs, section 16 settings on a queue without jobs change nothing."""
    tree, preemptor, victims, now = cycle
    plain = Session(with_queue(tree, Queue("unrelated")), Config(), now)
    unrelated = Queue(
        "unrelated",
        protections=ProtectionSettings(
            max_job_min_runtime=0,
            max_evictions=0,
            preempt_checkpoint_grace="1h",
            reclaim_checkpoint_grace="1h",
            eviction_window="1m",
        ),
    )
    extended = Session(with_queue(tree, unrelated), Config(), now)
    assert extended.tree.has_protections
    assert not plain.tree.has_protections
    assert_same_decisions(plain, extended, preemptor, victims, exact=False)


@given(cycles(with_inputs=True))
def test_settings_that_are_off_change_no_decision_whatever_the_job_inputs(
    cycle: tuple[QueueTree, Job, list[Job], datetime],
) -> None:
    """Zero graces, zero caps and no budget (a window alone) are the same as no settings."""
    tree, preemptor, victims, now = cycle
    plain = Session(tree, Config(), now)
    off_tree = QueueTree([with_settings_off(tree[name]) for name in tree])
    off = Session(off_tree, Config(protections=ProtectionSettings(eviction_window="1d")), now)
    assert off.config.has_protections
    assert_same_decisions(plain, off, preemptor, victims, exact=False)


@given(cycles(with_inputs=False), st.data())
def test_job_inputs_without_settings_change_no_decision(
    cycle: tuple[QueueTree, Job, list[Job], datetime], data: st.DataObject
) -> None:
    """A job's checkpoint inputs, with no queue or config settings, give the same decisions."""
    tree, preemptor, victims, now = cycle
    with_inputs = [data.draw(checkpoint_inputs(job)) for job in victims]
    plain = Session(tree, Config(), now)
    other = Session(tree, Config(), now)
    for action in (PREEMPT, RECLAIM):
        assert [v.id for v in other.eligible_victims(action, preemptor, with_inputs)] == [
            v.id for v in plain.eligible_victims(action, preemptor, victims)
        ]
        assert other.next_expiry(action, preemptor, with_inputs) == plain.next_expiry(
            action, preemptor, victims
        )
        for bare, job in zip(victims, with_inputs, strict=True):
            assert without_request_notes(other.verdict(action, preemptor, job)) == (
                without_request_notes(plain.verdict(action, preemptor, bare))
            )


@st.composite
def extended_trees(draw: st.DrawFn) -> QueueTree:
    """Random trees with random section 16 settings on any queue."""
    tree = draw(queue_trees(max_queues=6, allow_never=True))
    durations = st.one_of(st.none(), min_runtimes(allow_never=False, max_seconds=3 * 3600))
    queues = []
    for name in tree:
        queues.append(
            attrs.evolve(
                tree[name],
                protections=attrs.evolve(
                    tree[name].protections,
                    preempt_checkpoint_grace=draw(durations),
                    reclaim_checkpoint_grace=draw(durations),
                    max_evictions=draw(st.one_of(st.none(), st.none(), st.integers(0, 3))),
                    eviction_window=draw(st.one_of(durations, st.just(MinRuntime.NEVER))),
                    max_job_min_runtime=draw(st.one_of(durations, st.just(MinRuntime.NEVER))),
                ),
            )
        )
    return QueueTree(queues)


GRACES = Config(
    protections=ProtectionSettings(preempt_checkpoint_grace="20m", reclaim_checkpoint_grace="1h")
)
"""The node-pool graces of :func:`test_grace_never_holds_a_preemptor_past_now_plus_grace`."""


@st.composite
def extended_cycles(
    draw: st.DrawFn, *, near: bool = False, action: Action | None = None
) -> tuple[QueueTree, Job, list[Job], datetime]:
    """A tree with section 16 settings, a preemptor, victims with inputs (mostly preemptible,
    some, or with ``near`` all, with a checkpoint near ``now``) and ``now``. With ``action``,
    most victims pass its fundamentals (a queue it may take from, preemptible, a lower
    priority) and checkpoint next within the grace :data:`GRACES` gives them, so that their
    protections decide."""
    tree = draw(extended_trees())
    names = tuple(tree)
    now = at(draw(st.integers(-60, 5 * 60)))
    preemptor = attrs.evolve(draw(jobs(queues=names, id="preemptor")), priority=125)
    victims = []
    queues = (preemptor.queue, preemptor.queue, *names, "gone")
    others = [name for name in names if name != preemptor.queue]
    resolver = Resolver(tree, GRACES)
    for job in draw(st.lists(jobs(queues=queues), min_size=0 if action is None else 1, max_size=6)):
        job = attrs.evolve(
            draw(checkpoint_inputs(job)),
            preemptibility=draw(
                st.sampled_from(["preemptible", "preemptible", "semi-preemptible", None])
            ),
        )
        if action is not None and others and draw(st.integers(0, 3)):
            queue = preemptor.queue if action is PREEMPT else draw(st.sampled_from(others))
            job = attrs.evolve(job, queue=queue, priority=50, preemptibility="preemptible")
            if draw(st.booleans()):  # not elastic: a protection refuses it whole
                sets = [attrs.evolve(s, min_available=len(s.tasks)) for s in job.pod_sets]
                job = attrs.evolve(job, pod_sets=sets)
            grace = resolver.settings(action, preemptor.queue, queue).grace
            seconds = int(grace.to_timedelta().total_seconds())
            if (
                seconds >= 1
            ):  # its next checkpoint within the grace, which is shorter than its interval
                interval = draw(st.integers(seconds + 1, seconds + 3 * 3600))
                start = now + timedelta(seconds=draw(st.integers(1, seconds)) - interval)
                inputs = attrs.evolve(
                    job.inputs or JobInputs(), last_checkpoint=None, checkpoint_interval=interval
                )
                victims.append(attrs.evolve(job, start_time=start, inputs=inputs))
                continue
        if near or draw(st.booleans()):
            job = draw(near_checkpoints(job, now))
        victims.append(job)
    return tree, preemptor, [preemptor, *victims], now


def _grace_cycles(
    action: Action,
) -> st.SearchStrategy[tuple[Action, tuple[QueueTree, Job, list[Job], datetime]]]:
    """An action and a cycle whose victims mostly pass its fundamentals."""
    return st.tuples(st.just(action), extended_cycles(near=True, action=action))


@given(st.sampled_from([PREEMPT, RECLAIM]).flatmap(_grace_cycles))
def test_grace_never_holds_a_preemptor_past_now_plus_grace(
    drawn: tuple[Action, tuple[QueueTree, Job, list[Job], datetime]],
) -> None:
    """A victim protected by its checkpoint grace is protected until a time in (now, now+grace]."""
    action, (tree, preemptor, victims, now) = drawn
    current = Session(tree, GRACES, now)
    resolver = Resolver(tree, GRACES)
    for job in victims:
        decision = current.verdict(action, preemptor, job)
        if decision.protected_by != ProtectionKind.CHECKPOINT_GRACE:
            continue
        grace = resolver.settings(action, preemptor.queue, job.queue).grace.to_timedelta()
        assert decision.protected_until is not None
        assert now < decision.protected_until <= now + grace
        event("a victim protected by its grace")
        if decision.reason is Reason.CHECKPOINT_GRACE:
            assert current.next_expiry(action, preemptor, [job]) == decision.protected_until
            event("a victim refused for its grace")


@given(
    max_evictions=st.integers(0, 3),
    window_s=st.one_of(st.none(), st.integers(1, 7200)),
    min_runtime_s=st.integers(0, 1800),
    steps=st.lists(st.integers(0, 3600), min_size=1, max_size=30),
    count_only=st.booleans(),
)
def test_a_job_is_never_evicted_beyond_its_budget(
    max_evictions: int,
    window_s: int | None,
    min_runtime_s: int,
    steps: list[int],
    count_only: bool,
) -> None:
    """Evicting whenever eligible, never more than max evictions fall within any window."""
    window = MinRuntime.NEVER if window_s is None else MinRuntime(window_s)
    tree = QueueTree(
        [
            Queue(
                "team",
                reclaim_min_runtime=min_runtime_s,
                protections=ProtectionSettings(
                    max_evictions=max_evictions,
                    eviction_window=window,
                    reclaim_checkpoint_grace="10m",
                ),
            ),
            Queue("other"),
        ]
    )
    preemptor = Job("rec", "other", priority=100)
    job = victim("thrashed", "team", start=0, checkpoint_interval="25m")
    if count_only:
        job = attrs.evolve(job, inputs=attrs.evolve(job.inputs or JobInputs(), evictions=0))
    history: list[datetime] = []
    refused_by_budget = 0
    now = at(0)
    for step in steps:
        current = Session(tree, Config(), now)
        if current.verdict(RECLAIM, preemptor, job).allowed:
            history.append(now)
            evictions: tuple[datetime, ...] | int = len(history) if count_only else tuple(history)
            job = attrs.evolve(
                job,
                start_time=now,
                inputs=attrs.evolve(job.inputs or JobInputs(), evictions=evictions),
            )
        else:
            reason = current.verdict(RECLAIM, preemptor, job).reason
            assert reason in (Reason.PROTECTED, Reason.EVICTION_BUDGET, Reason.CHECKPOINT_GRACE)
            refused_by_budget += reason is Reason.EVICTION_BUDGET
        now += timedelta(seconds=step)
    windowed = not count_only and window_s is not None
    event(
        f"{'a window' if windowed else 'a whole life'}; refused by the budget: {bool(refused_by_budget)}"
    )
    target(refused_by_budget, label="refusals by the budget")
    if count_only or window_s is None:
        assert len(history) <= max_evictions
    else:
        width = timedelta(seconds=window_s)
        for moment in history:
            assert len([t for t in history if moment - width < t <= moment]) <= max_evictions


@st.composite
def whole_victims(draw: st.DrawFn) -> tuple[Session, Action, Job, Job]:
    """A session over a queue 'team' with every section 16 setting drawn, a preemptor, and one
    whole (not elastic) victim in 'team' with drawn inputs; one case in four each is steered
    towards a spent budget, a request that outlasts the queue's min-runtime, and a checkpoint
    due near the end of the grace."""
    durations = min_runtimes(allow_never=False, max_seconds=3600)
    spans = st.integers(600, 4 * 3600).map(MinRuntime)
    steer = draw(st.sampled_from(["none", "budget", "request", "grace"]))
    team = Queue(
        "team",
        preempt_min_runtime=draw(st.one_of(st.none(), durations)),
        reclaim_min_runtime=draw(st.one_of(st.none(), durations)),
        protections=ProtectionSettings(
            preempt_checkpoint_grace=draw(spans),
            reclaim_checkpoint_grace=draw(spans),
            max_evictions=draw(st.sampled_from([None, 0, 1, 2] if steer == "none" else [None])),
            eviction_window=draw(st.one_of(durations, st.just(MinRuntime.NEVER))),
            max_job_min_runtime=draw(st.one_of(spans, st.just(MinRuntime.NEVER))),
        ),
    )
    action = draw(st.sampled_from([PREEMPT, RECLAIM]))
    preemptor = Job("preemptor", "team" if action is PREEMPT else "other", priority=125)
    now = draw(st.integers(0, 180))
    start = draw(st.one_of(st.none(), st.integers(-10, 240).map(lambda ago: now - ago)))
    job = draw(checkpoint_inputs(victim("victim", "team", start=start, weights=(1.0, 1.0))))
    job = attrs.evolve(
        job,
        inputs=attrs.evolve(
            job.inputs or JobInputs(), requested_min_runtime=draw(st.one_of(st.none(), spans))
        ),
    )
    if steer == "budget":
        budget = draw(st.integers(0, 2))
        team = attrs.evolve(
            team,
            protections=attrs.evolve(
                team.protections, max_evictions=budget, eviction_window=MinRuntime.NEVER
            ),
        )
        job = attrs.evolve(
            job,
            inputs=attrs.evolve(job.inputs or JobInputs(), evictions=draw(st.integers(budget, 3))),
        )
    elif steer == "request" and start is not None:
        elapsed = max(0, (now - start) * 60)  # a start in the future: any request outlasts it
        team = attrs.evolve(
            team, protections=attrs.evolve(team.protections, max_job_min_runtime=MinRuntime.NEVER)
        )
        job = attrs.evolve(
            job,
            inputs=attrs.evolve(
                job.inputs or JobInputs(),
                requested_min_runtime=MinRuntime(elapsed + draw(st.integers(1, 3600))),
            ),
        )
    elif steer == "grace" and start is not None:
        grace = team.protections.reclaim_checkpoint_grace
        if action is PREEMPT:
            grace = team.protections.preempt_checkpoint_grace
        assert grace is not None
        interval = grace.ns // 10**9 + draw(st.integers(1, 7200))
        due = now * 60 + draw(st.integers(-600, grace.ns // 10**9 + 600))
        job = attrs.evolve(
            job,
            start_time=min(at(start), at((due - interval) / 60)),
            inputs=attrs.evolve(
                job.inputs or JobInputs(),
                last_checkpoint=at((due - interval) / 60),
                checkpoint_interval=interval,
            ),
        )
    return Session(QueueTree([team, Queue("other")]), Config(), at(now)), action, preemptor, job


@given(whole_victims())
def test_the_filter_passes_a_whole_victim_iff_it_is_not_protected(
    case: tuple[Session, Action, Job, Job],
) -> None:
    """Law: for a victim that is neither elastic nor semi-preemptible, the min-runtime filter
    passes iff the victim is not protected, whatever section 16 settings are drawn."""
    current, action, preemptor, job = case
    protected = current.protection(action, preemptor, job).protected
    kind = current.verdict(action, preemptor, job).protected_by
    event(f"protected by {kind}" if protected else "free")
    assert current.verdict(action, preemptor, job).min_runtime_filter is (not protected)

"""Preemption delay (docs/spec/preemption-delay.md): the preemptor's side of the rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial

import pytest
from tests.world import (
    owner_object,
    owner_reference,
    pod,
    pod_group,
    priority_class,
    queue_object,
)

from minruntime import (
    FOREVER,
    Action,
    Config,
    InvalidDuration,
    InvalidTimestamp,
    Job,
    JobInputs,
    MinRuntime,
    PodSet,
    Queue,
    QueueTree,
    Reason,
    Session,
    Task,
)
from minruntime._protection import held_until_ns, is_held

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
S = 10**9
TREE = QueueTree([Queue("a", reclaim_min_runtime="30m"), Queue("b")])


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def pending(**inputs: object) -> Job:
    return Job("p", "b", priority=100, inputs=JobInputs(**inputs) if inputs else None)  # type: ignore[arg-type]


def running(name: str, started: float | None, *, tasks: int = 1, minimum: int | None = None) -> Job:
    return Job(
        name,
        "a",
        preemptibility="preemptible",
        start_time=None if started is None else at(started),
        pod_sets=[
            PodSet(
                min_available=tasks if minimum is None else minimum,
                tasks=[Task(f"{name}-{i}") for i in range(tasks)],
            )
        ],
    )


OLD = running("old", -120)  # free
YOUNG = running("young", -10)  # protected until +20 m


# -- the rule ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("delay", "anchors", "expected"),
    [
        (None, (0,), None),
        (MinRuntime(0), (0,), None),
        (MinRuntime("5m"), (None, None), None),  # no anchor: no delay
        (MinRuntime("5m"), (0, None), 300 * S),
        (MinRuntime("5m"), (None, 60 * S), 360 * S),
        (MinRuntime("5m"), (60 * S, 30 * S), 360 * S),  # the latest anchor counts
        (MinRuntime.NEVER, (None,), 1 << 80),
    ],
)
def test_the_end_of_a_delay(
    delay: MinRuntime | None, anchors: tuple[int | None, ...], expected: int | None
) -> None:
    assert held_until_ns(delay, anchors) == expected


def test_at_exactly_the_end_of_the_delay_the_job_may_trigger_evictions() -> None:
    assert is_held(300 * S, 300 * S - 1)
    assert not is_held(300 * S, 300 * S)
    assert not is_held(None, 0)


# -- through the session ---------------------------------------------------------------------------


def test_a_delayed_preemptor_takes_no_victim_with_its_own_reason() -> None:
    session = Session(TREE, Config(), at(3))
    delayed = pending(preemption_delay="5m", created=at(0))
    assert session.eligible_victims(Action.RECLAIM, delayed, [OLD, YOUNG]) == []
    decision = session.verdict(Action.RECLAIM, delayed, OLD)
    assert (decision.reason, decision.allowed) == (Reason.PREEMPTOR_DELAYED, False)
    assert (decision.preemption_delay, decision.delayed_until) == (MinRuntime("5m"), at(5))
    assert str(decision) == (
        "reclaim of 'old' by 'p': refused: 'p' is within its preemption delay window (5m) and "
        "may not trigger evictions before 2026-11-22T12:05:00Z"
    )
    assert decision.tasks == ()
    # the batch judged both victims; the verdict judged OLD again (a batch keeps no verdicts)
    assert session.stats().decisions == {"preemptor-delayed": 3}


def test_at_the_end_of_the_delay_the_preemptor_takes_its_victims() -> None:
    delayed = pending(preemption_delay="5m", created=at(0))
    assert Session(TREE, Config(), at(5)).eligible_victims(
        Action.RECLAIM, delayed, [OLD, YOUNG]
    ) == [OLD]
    decision = Session(TREE, Config(), at(5)).verdict(Action.RECLAIM, delayed, OLD)
    assert (decision.reason, decision.delayed_until) == (Reason.ELIGIBLE, None)


def test_the_delay_changes_nothing_for_the_jobs_own_evictability() -> None:
    session = Session(TREE, Config(), at(3))
    delayed_victim = Job(
        "dv",
        "a",
        preemptibility="preemptible",
        start_time=at(-120),
        inputs=JobInputs(preemption_delay="1h", created=at(0)),
        pod_sets=[PodSet(tasks=[Task("dv-0")])],
    )
    assert session.verdict(Action.RECLAIM, pending(), delayed_victim).allowed


def test_an_eviction_restarts_the_window() -> None:
    job = pending(preemption_delay="5m", created=at(-60), last_eviction=at(-2))
    assert Session(TREE, Config(), at(2)).eligible_victims(Action.RECLAIM, job, [OLD]) == []
    assert Session(TREE, Config(), at(3)).eligible_victims(Action.RECLAIM, job, [OLD]) == [OLD]
    by_times = pending(preemption_delay="5m", created=at(-60), evictions=[at(-30), at(-1)])
    assert Session(TREE, Config(), at(3.99)).eligible_victims(Action.RECLAIM, by_times, [OLD]) == []
    assert Session(TREE, Config(), at(4)).eligible_victims(Action.RECLAIM, by_times, [OLD]) == [OLD]


def test_without_a_creation_time_or_an_eviction_there_is_no_delay() -> None:
    job = pending(preemption_delay="1h")
    assert Session(TREE, Config(), at(0)).eligible_victims(Action.RECLAIM, job, [OLD]) == [OLD]


def test_a_delay_of_never_never_triggers_evictions() -> None:
    job = pending(preemption_delay="never")
    session = Session(TREE, Config(), at(10_000))
    assert session.eligible_victims(Action.RECLAIM, job, [OLD]) == []
    assert session.verdict(Action.RECLAIM, job, OLD).delayed_until == FOREVER
    assert session.next_expiry(Action.RECLAIM, job, [OLD, YOUNG]) is None


def test_next_expiry_of_a_delayed_preemptor() -> None:
    delayed = pending(preemption_delay="5m", created=at(0))
    session = Session(TREE, Config(), at(3))
    # a victim is free already: retry when the delay ends
    assert session.next_expiry(Action.RECLAIM, delayed, [OLD, YOUNG]) == at(5)
    # every victim still protected then: the earliest time both have passed
    assert session.next_expiry(Action.RECLAIM, delayed, [YOUNG]) == at(20)
    # no victim at all: the end of the delay
    assert session.next_expiry(Action.RECLAIM, delayed, []) == at(5)
    # a long delay outlasts the protection
    long = pending(preemption_delay="1h", created=at(0))
    assert session.next_expiry(Action.RECLAIM, long, [YOUNG]) == at(60)


def test_the_cycle_form_gives_a_delayed_preemptor_nothing() -> None:
    session = Session(TREE, Config(), at(3))
    cycle = session.cycle([OLD, YOUNG])
    assert (
        cycle.eligible_victims(Action.RECLAIM, pending(preemption_delay="5m", created=at(0))) == []
    )
    assert cycle.eligible_victims(Action.RECLAIM, pending()) == [OLD]
    plan = cycle.plan(Action.RECLAIM, pending(preemption_delay="5m", created=at(0)), {"pods": 1})
    assert (plan.victims, dict(plan.missing), plan.retry) == ((), {"pods": 1}, at(5))


def test_a_schedulers_own_preemptor_with_inputs_is_delayed_too() -> None:
    class Own:
        id = "own"
        queue = "b"
        priority = 100
        preemptibility = None
        start_time = None
        pod_sets = ()
        inputs = JobInputs(preemption_delay="10m", created=at(0))

    session = Session(TREE, Config(), at(9))
    assert session.eligible_victims(Action.RECLAIM, Own(), [OLD]) == []


# -- bad input ---------------------------------------------------------------------------------


def test_a_bad_delay_names_the_field_and_value() -> None:
    with pytest.raises(InvalidDuration) as caught:
        JobInputs(preemption_delay="5 minutes")
    assert str(caught.value).startswith(
        "invalid duration '5 minutes' in JobInputs preemption_delay: whitespace is not allowed"
    )


def test_a_naive_creation_time_is_an_error() -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        JobInputs(created=datetime(2026, 11, 22, 12, 0))
    assert "naive datetime 2026-11-22 12:00:00" in str(caught.value)
    assert caught.value.origin == "JobInputs created"


# -- reading it from Kubernetes objects --------------------------------------------------------

QUEUES = [queue_object("b")]

# the pending job 'ml/p' of queue 'b', created at 12:00, and its one pending pod
delayed_group = partial(
    pod_group,
    "p",
    queue="b",
    annotations={},
    created="2026-11-22T12:00:00Z",
    minMember=1,
    preemptibility="preemptible",
)
delayed_pod = partial(pod, "p-0", "p", phase="Pending")


def read(
    *objects: dict[str, object], strict: bool = False
) -> tuple[JobInputs | None, tuple[str, ...]]:
    from minruntime.kube import read_snapshot

    snapshot = read_snapshot([*QUEUES, *objects], strict_times=strict)
    job = snapshot.find("ml/p")
    return job.job.inputs, job.warnings


def test_the_spec_field_and_the_creation_time_are_read() -> None:
    inputs, warnings = read(delayed_group(preemptionDelay="5m"), delayed_pod())
    assert inputs is not None
    assert (inputs.preemption_delay, inputs.created) == (MinRuntime("5m"), T0)
    assert warnings == ()


def test_the_annotation_on_the_pod_group_then_the_pod_gives_the_delay() -> None:
    inputs, _ = read(
        delayed_group(annotations={"kai.scheduler/preemption-delay": "2m"}), delayed_pod()
    )
    assert inputs is not None
    assert inputs.preemption_delay == MinRuntime("2m")
    inputs, _ = read(
        delayed_group(), delayed_pod(annotations={"kai.scheduler/preemption-delay": "3m"})
    )
    assert inputs is not None
    assert inputs.preemption_delay == MinRuntime("3m")
    inputs, _ = read(
        delayed_group(annotations={"kai.scheduler/preemption-delay": "2m"}, preemptionDelay="1m"),
        delayed_pod(),
    )
    assert inputs is not None
    assert inputs.preemption_delay == MinRuntime("1m")  # the spec field wins


def test_the_last_eviction_annotation_is_read() -> None:
    inputs, _ = read(
        delayed_group(
            annotations={"kai.scheduler/last-eviction-timestamp": "2026-11-22T12:30:00Z"}
        ),
        delayed_pod(),
    )
    assert inputs is not None
    assert inputs.last_eviction == at(30)


def test_an_unreadable_delay_is_a_warning_and_no_delay_or_an_error_when_strict() -> None:
    from minruntime import InvalidObject

    inputs, warnings = read(delayed_group(preemptionDelay="5"), delayed_pod())
    assert inputs is not None
    assert inputs.preemption_delay is None
    assert warnings == (
        "PodGroup/ml/p spec.preemptionDelay: invalid duration '5': a bare number needs a unit "
        "(expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never); ignored",
    )
    with pytest.raises(InvalidObject) as caught:
        read(delayed_group(preemptionDelay="5"), delayed_pod(), strict=True)
    assert caught.value.field == "spec.preemptionDelay"


def test_an_unreadable_delay_on_an_owner_or_the_pod_names_where_it_is_and_the_next_is_used() -> (
    None
):
    owner = owner_object("Job", "step", annotations={"kai.scheduler/preemption-delay": "soon"})
    owned = partial(delayed_pod, owners=[owner_reference("Job", "step")])
    inputs, warnings = read(
        owner, delayed_group(), owned(annotations={"kai.scheduler/preemption-delay": "7"})
    )
    assert inputs is not None
    assert inputs.preemption_delay is None
    assert [w.split(": invalid duration")[0] for w in warnings] == [
        "PodGroup/ml/p annotation on Job/step",
        "PodGroup/ml/p annotation on Pod/ml/p-0",
    ]
    inputs, warnings = read(
        owner, delayed_group(), owned(annotations={"kai.scheduler/preemption-delay": "4m"})
    )
    assert inputs is not None
    assert inputs.preemption_delay == MinRuntime("4m")
    assert [w.split(": invalid duration")[0] for w in warnings] == [
        "PodGroup/ml/p annotation on Job/step"
    ]


def test_an_unreadable_creation_time_is_a_warning() -> None:
    inputs, warnings = read(delayed_group(created="yesterday"), delayed_pod())
    assert inputs is None
    assert warnings[0].startswith(
        "PodGroup/ml/p metadata.creationTimestamp: invalid timestamp 'yesterday'"
    )


def test_a_priority_class_that_never_preempts_gives_a_delay_of_never() -> None:
    never = priority_class("batch-no-preempt", 50, preemption_policy="Never")
    inputs, _ = read(never, delayed_group(priorityClassName="batch-no-preempt"), delayed_pod())
    assert inputs is not None
    assert inputs.preemption_delay is MinRuntime.NEVER


def test_an_eviction_stamps_the_last_eviction_and_restarts_the_window() -> None:
    from minruntime import stamp_last_eviction

    evicted_at = stamp_last_eviction(now=at(10))
    assert evicted_at == at(10)
    job = pending(preemption_delay="5m", created=at(0), last_eviction=evicted_at)
    assert Session(TREE, Config(), at(14)).eligible_victims(Action.RECLAIM, job, [OLD]) == []
    assert Session(TREE, Config(), at(15)).eligible_victims(Action.RECLAIM, job, [OLD]) == [OLD]
    with pytest.raises(InvalidTimestamp):
        stamp_last_eviction(now=datetime(2026, 11, 22, 12, 0))

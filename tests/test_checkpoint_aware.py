"""Checkpoint-aware protection as pure rules (docs/spec/beyond-min-runtime.md): the protections
of ``minruntime._protection`` and the unsaved work of ``minruntime._ranking``.

Also the places where the section 16 inputs and settings enter the library: ``Job``/``Task``
fields and ``JobFacts.inputs()``, ``Queue``/``Config`` settings and the plugin arguments,
``Resolver.extensions`` and the Kubernetes annotations and Queue fields of ``minruntime.kube``.
Times in the pure rules are nanoseconds; ``S`` is one second.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from tests.world import JSON, pod, pod_group, queue_object

from minruntime import (
    Action,
    Config,
    InvalidConfiguration,
    InvalidDuration,
    InvalidQueueTree,
    InvalidResources,
    InvalidTimestamp,
    Job,
    MinRuntime,
    PodSet,
    Preemptibility,
    ProtectionKind,
    ProtectionSettings,
    Queue,
    QueueTree,
    Task,
    TaskStatus,
)
from minruntime._facts import JobFacts
from minruntime._protection import (
    FOREVER_NS,
    _budget_until_ns,
    _grace_until_ns,
    effective_min_runtime,
    unsaved_seconds,
)
from minruntime._protection import Inputs as JobInputs
from minruntime._protection import Settings as Extensions
from minruntime._protection import protection as _protection
from minruntime._resolution import Resolver
from minruntime.errors import InvalidObject
from minruntime.jobs import JobInputs as PublicInputs
from minruntime.kube import (
    CHECKPOINT_INTERVAL_ANNOTATION,
    EVICTIONS_ANNOTATION,
    LAST_CHECKPOINT_ANNOTATION,
    REQUESTED_MIN_RUNTIME_ANNOTATION,
    read_queue,
    read_snapshot,
)
from minruntime.testing import min_runtimes

MIN_RUNTIME = ProtectionKind.MIN_RUNTIME
EVICTION_BUDGET = ProtectionKind.EVICTION_BUDGET
CHECKPOINT_GRACE = ProtectionKind.CHECKPOINT_GRACE
JOB_REQUEST = ProtectionKind.JOB_REQUEST


def _mr(ns: int) -> MinRuntime:
    return MinRuntime.NEVER if ns < 0 else MinRuntime.from_nanoseconds(ns)


def protection(
    mr_ns: int, start_ns: int | None, inputs: JobInputs, settings: Extensions, now_ns: int
) -> tuple[ProtectionKind | None, int | None]:
    """The protection rule on nanoseconds, as (kind, until)."""
    found = _protection(_mr(mr_ns), start_ns, inputs, settings, now_ns)
    return found.kind, found.until_ns


def effective_min_runtime_ns(mr_ns: int, requested_ns: int | None, cap: MinRuntime) -> int:
    effective = effective_min_runtime(_mr(mr_ns), requested_ns, cap)
    return -1 if effective.is_never else effective.ns


def budget_until_ns(
    inputs: JobInputs, max_evictions: int | None, window: MinRuntime, now_ns: int
) -> int | None:
    return _budget_until_ns(
        inputs, Extensions(max_evictions=max_evictions, eviction_window=window), now_ns
    )


def grace_until_ns(
    start_ns: int | None, inputs: JobInputs, grace: MinRuntime, now_ns: int
) -> int | None:
    return _grace_until_ns(start_ns, inputs, grace, now_ns)


def unsaved_work(
    start_ns: int | None, checkpoint_ns: int | None, now_ns: int, weight: float
) -> float:
    return unsaved_seconds(start_ns, JobInputs(checkpoint_ns=checkpoint_ns), now_ns) * weight


S = 10**9
MINUTE = 60 * S
HOUR = 60 * MINUTE
OFF = Extensions()
T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def grace(value: str) -> MinRuntime:
    return MinRuntime.parse(value)


def times(*seconds: int) -> JobInputs:
    """Inputs with evictions at these POSIX seconds."""
    return JobInputs(eviction_ns=tuple(s * S for s in seconds), eviction_count=len(seconds))


def count(evictions: int) -> JobInputs:
    """Inputs with only a count of evictions."""
    return JobInputs(eviction_ns=None, eviction_count=evictions)


# -- per-job request: effective MR ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("mr_s", "requested_s", "cap", "expected_s"),
    [
        pytest.param(600, 7200, MinRuntime("1h"), 3600, id="above-the-cap-is-clipped"),
        pytest.param(600, 3600, MinRuntime("1h"), 3600, id="equal-to-the-cap"),
        pytest.param(600, 1800, MinRuntime("1h"), 1800, id="between-mr-and-cap"),
        pytest.param(600, 60, MinRuntime("1h"), 600, id="below-the-mr-is-ignored"),
        pytest.param(600, 0, MinRuntime("1h"), 600, id="zero-request-is-ignored"),
        pytest.param(600, 7200, MinRuntime.ZERO, 600, id="cap-zero-ignores-requests"),
        pytest.param(0, 7200, MinRuntime.ZERO, 0, id="cap-zero-with-mr-zero"),
        pytest.param(600, 10 * 86_400, MinRuntime.NEVER, 10 * 86_400, id="cap-never-no-clip"),
        pytest.param(0, 1800, MinRuntime("1h"), 1800, id="mr-zero-request-counts"),
        pytest.param(5400, 7200, MinRuntime("1h"), 5400, id="cap-below-mr-keeps-mr"),
    ],
)
def test_effective_min_runtime_is_max_of_mr_and_capped_request(
    mr_s: int, requested_s: int, cap: MinRuntime, expected_s: int
) -> None:
    assert effective_min_runtime_ns(mr_s * S, requested_s * S, cap) == expected_s * S


def test_effective_min_runtime_without_a_request_is_the_mr() -> None:
    assert effective_min_runtime_ns(600 * S, None, MinRuntime.NEVER) == 600 * S
    assert effective_min_runtime_ns(0, None, MinRuntime("1h")) == 0


@pytest.mark.parametrize("cap", [MinRuntime.ZERO, MinRuntime("1h"), MinRuntime.NEVER])
def test_effective_min_runtime_of_a_never_mr_stays_never(cap: MinRuntime) -> None:
    assert effective_min_runtime_ns(-1, 7200 * S, cap) == -1


@given(
    mr=min_runtimes(),
    requested=min_runtimes(allow_never=False),
    cap=min_runtimes(),
)
def test_effective_min_runtime_is_never_less_than_the_mr_nor_above_cap_or_request(
    mr: MinRuntime, requested: MinRuntime, cap: MinRuntime
) -> None:
    """A job can ask for more protection, never beyond its queue's cap, never less than its MR."""
    mr_ns = -1 if mr.nanoseconds is None else mr.nanoseconds
    requested_ns = requested.nanoseconds
    assert requested_ns is not None
    effective = effective_min_runtime_ns(mr_ns, requested_ns, cap)
    if mr.is_never:
        event("never stays never")
        assert effective == -1
        return
    assert effective >= mr_ns
    if effective > mr_ns:
        event("raised by the request")
        assert effective <= requested_ns
        assert cap.nanoseconds is None or effective <= cap.nanoseconds
        assert cap  # a zero cap ignores requests
    # and exactly: max(MR, min(request, cap)), a zero cap honouring no request, never any
    ceiling = mr_ns if not cap else min(requested_ns, cap.nanoseconds or requested_ns)
    assert effective == max(mr_ns, ceiling)


# -- checkpoint grace ----------------------------------------------------------------------------

INTERVAL_30M = JobInputs(interval_ns=30 * MINUTE)


@pytest.mark.parametrize(
    ("now_s", "expected_s"),
    [
        pytest.param(1500, 1800, id="next-checkpoint-5m-away"),
        pytest.param(1200, 1800, id="exactly-grace-away-is-within"),
        pytest.param(1199, None, id="just-beyond-the-grace"),
        pytest.param(1000, None, id="800s-away"),
        pytest.param(1799, 1800, id="one-second-before"),
        pytest.param(1800, None, id="at-the-checkpoint-it-is-not-after-now"),
        pytest.param(2000, None, id="missed-checkpoint-in-the-past"),
    ],
)
def test_grace_applies_only_when_the_next_checkpoint_is_within_now_and_now_plus_grace(
    now_s: int, expected_s: int | None
) -> None:
    until = grace_until_ns(0, INTERVAL_30M, grace("10m"), now_s * S)
    assert until == (None if expected_s is None else expected_s * S)


def test_grace_window_is_open_at_now_and_closed_at_now_plus_grace_to_the_nanosecond() -> None:
    assert grace_until_ns(0, INTERVAL_30M, grace("10m"), 1200 * S - 1) is None
    assert grace_until_ns(0, INTERVAL_30M, grace("10m"), 1200 * S) == 1800 * S
    assert grace_until_ns(0, INTERVAL_30M, grace("10m"), 1800 * S - 1) == 1800 * S


def test_grace_never_applies_without_an_interval() -> None:
    inputs = JobInputs(checkpoint_ns=1000 * S)
    assert grace_until_ns(0, inputs, grace("1h"), 1500 * S) is None


def test_grace_never_applies_without_a_start_time() -> None:
    assert grace_until_ns(None, INTERVAL_30M, grace("1h"), 1500 * S) is None


def test_grace_never_applies_with_zero_grace() -> None:
    assert grace_until_ns(0, INTERVAL_30M, MinRuntime.ZERO, 1799 * S) is None


def test_next_checkpoint_counts_from_the_last_checkpoint_after_the_start() -> None:
    inputs = JobInputs(checkpoint_ns=1000 * S, interval_ns=30 * MINUTE)
    # the next checkpoint is 1000 s + 1800 s = 2800 s, not 1800 s
    assert grace_until_ns(0, inputs, grace("10m"), 1500 * S) is None
    assert grace_until_ns(0, inputs, grace("10m"), 2500 * S) == 2800 * S


def test_a_checkpoint_older_than_the_start_is_ignored_next_checkpoint_from_the_start() -> None:
    inputs = JobInputs(checkpoint_ns=500 * S, interval_ns=30 * MINUTE)
    # started at 1000 s: the next checkpoint is 1000 s + 1800 s = 2800 s (not 500 + 1800)
    assert grace_until_ns(1000 * S, inputs, grace("10m"), 2150 * S) is None  # 2300 s is near
    assert grace_until_ns(1000 * S, inputs, grace("10m"), 2500 * S) == 2800 * S


@given(
    start=st.integers(-10_000, 10_000),
    checkpoint=st.one_of(st.none(), st.integers(-10_000, 20_000)),
    interval=st.integers(1, 10_000),
    grace_s=st.integers(0, 10_000),
    near=st.booleans(),
    data=st.data(),
)
def test_grace_never_protects_past_now_plus_grace(
    start: int,
    checkpoint: int | None,
    interval: int,
    grace_s: int,
    near: bool,
    data: st.DataObject,
) -> None:
    """The grace bounds how long a preemptor is held back: a protection ends in (now, now+grace]."""
    if near:  # an interval longer than the grace, and now within the grace of the next checkpoint
        interval += grace_s
    base = start if checkpoint is None else max(start, checkpoint)
    following = base + interval
    instants = (
        st.integers(following - grace_s, following - 1)
        if near and grace_s
        else st.integers(-10_000, 30_000)
    )
    now = data.draw(instants, label="now")
    inputs = JobInputs(
        checkpoint_ns=None if checkpoint is None else checkpoint * S, interval_ns=interval * S
    )
    until = grace_until_ns(start * S, inputs, MinRuntime(grace_s), now * S)
    if until is None:
        event("no grace")
        assert interval <= grace_s or not now < base + interval <= now + grace_s
    else:
        event("the grace protects")
        assert interval > grace_s
        assert until == (base + interval) * S
        assert now * S < until <= (now + grace_s) * S


# -- eviction budget -----------------------------------------------------------------------------

T1, T2, T3 = 0, 100, 200
WINDOW = MinRuntime("1000s")


@pytest.mark.parametrize(
    ("max_evictions", "now_s", "expected_s"),
    [
        pytest.param(2, 300, T2 + 1000, id="three-in-window-max-2-until-t2-plus-w"),
        pytest.param(2, 999, T2 + 1000, id="t1-still-counts"),
        pytest.param(2, 1000, T2 + 1000, id="at-t1-plus-w-t1-no-longer-counts"),
        pytest.param(2, 1099, T2 + 1000, id="t2-and-t3-in-window"),
        pytest.param(2, 1100, None, id="at-t2-plus-w-only-t3-counts"),
        pytest.param(2, 1500, None, id="later"),
        pytest.param(3, 300, T1 + 1000, id="max-3-until-t1-plus-w"),
        pytest.param(3, 999, T1 + 1000, id="max-3-just-before-t1-leaves"),
        pytest.param(3, 1000, None, id="max-3-at-t1-plus-w"),
        pytest.param(1, 300, T3 + 1000, id="max-1-until-t3-plus-w"),
        pytest.param(1, 1199, T3 + 1000, id="max-1-just-before-t3-leaves"),
        pytest.param(1, 1200, None, id="max-1-at-t3-plus-w"),
        pytest.param(4, 300, None, id="max-4-not-spent"),
    ],
)
def test_budget_window_slides_over_the_eviction_times(
    max_evictions: int, now_s: int, expected_s: int | None
) -> None:
    until = budget_until_ns(times(T1, T2, T3), max_evictions, WINDOW, now_s * S)
    assert until == (None if expected_s is None else expected_s * S)


def test_an_eviction_stops_counting_exactly_at_t_plus_window_to_the_nanosecond() -> None:
    inputs = times(T3)
    assert budget_until_ns(inputs, 1, WINDOW, (T3 + 1000) * S - 1) == (T3 + 1000) * S
    assert budget_until_ns(inputs, 1, WINDOW, (T3 + 1000) * S) is None


def test_unlimited_budget_never_protects() -> None:
    assert budget_until_ns(times(T1, T2, T3), None, WINDOW, 300 * S) is None
    assert budget_until_ns(count(100), None, MinRuntime.NEVER, 300 * S) is None


@pytest.mark.parametrize(
    ("evictions", "max_evictions", "expected"),
    [
        pytest.param(2, 2, FOREVER_NS, id="count-equal-to-max"),
        pytest.param(3, 2, FOREVER_NS, id="count-above-max"),
        pytest.param(1, 2, None, id="count-below-max"),
        pytest.param(0, 0, FOREVER_NS, id="max-0-count-0"),
    ],
)
def test_a_bare_count_protects_for_good_once_at_the_max(
    evictions: int, max_evictions: int, expected: int | None
) -> None:
    # the window does not matter: a count has no times to leave it
    assert budget_until_ns(count(evictions), max_evictions, WINDOW, 10**6 * S) == expected


def test_max_evictions_zero_protects_for_good_even_without_evictions() -> None:
    assert budget_until_ns(JobInputs(), 0, WINDOW, 0) == FOREVER_NS
    assert budget_until_ns(times(T1), 0, WINDOW, 10**6 * S) == FOREVER_NS


def test_a_never_window_means_ever_and_protects_for_good() -> None:
    assert budget_until_ns(times(T1, T2), 2, MinRuntime.NEVER, 10**9 * S) == FOREVER_NS
    assert budget_until_ns(times(T1), 2, MinRuntime.NEVER, 10**9 * S) is None


@given(
    evictions=st.lists(st.integers(0, 5000), max_size=8),
    max_evictions=st.integers(0, 5),
    window=st.integers(1, 3000),
    now=st.integers(0, 10_000),
)
def test_budget_protects_exactly_while_max_evictions_are_in_the_window(
    evictions: list[int], max_evictions: int, window: int, now: int
) -> None:
    """Protected iff at least max evictions have now < t + W; until the count drops below max."""
    ordered = sorted(evictions)
    inputs = JobInputs(eviction_ns=tuple(t * S for t in ordered), eviction_count=len(ordered))
    until = budget_until_ns(inputs, max_evictions, MinRuntime(window), now * S)
    in_window = [t for t in ordered if now < t + window]
    if len(in_window) < max_evictions:
        event("the budget is not spent")
        assert until is None
    elif max_evictions == 0:
        event("no eviction at all")
        assert until == FOREVER_NS
    else:
        event("spent: protected until an eviction leaves the window")
        assert until is not None
        assert until > now * S
        later = until // S
        assert len([t for t in ordered if later - 1 < t + window]) >= max_evictions
        assert len([t for t in ordered if later < t + window]) < max_evictions


# -- protection: the three together --------------------------------------------------------------


def test_with_no_settings_protection_is_min_runtime_alone() -> None:
    assert protection(600 * S, 0, JobInputs(), OFF, 599 * S) == (MIN_RUNTIME, 600 * S)
    assert protection(600 * S, 0, JobInputs(), OFF, 600 * S) == (None, None)
    assert protection(600 * S, None, JobInputs(), OFF, 0) == (None, None)


def test_inputs_without_settings_change_nothing() -> None:
    inputs = JobInputs(
        checkpoint_ns=500 * S,
        interval_ns=700 * S,
        eviction_ns=(1 * S, 2 * S),
        eviction_count=2,
        requested_ns=HOUR,
    )
    assert protection(600 * S, 0, inputs, OFF, 650 * S) == (None, None)
    assert protection(600 * S, 0, inputs, OFF, 599 * S) == (MIN_RUNTIME, 600 * S)


def test_a_request_extends_min_runtime_protection() -> None:
    settings = Extensions(max_job_min_runtime=MinRuntime("2h"))
    inputs = JobInputs(requested_ns=HOUR)
    assert protection(10 * MINUTE, 0, inputs, settings, 30 * MINUTE) == (JOB_REQUEST, HOUR)
    assert protection(10 * MINUTE, 0, inputs, settings, HOUR) == (None, None)


def test_the_budget_is_named_when_it_ends_after_the_min_runtime() -> None:
    settings = Extensions(max_evictions=1, eviction_window=MinRuntime("1000s"))
    # MR protects until 600 s, the budget until 200 + 1000 = 1200 s
    assert protection(600 * S, 0, times(200), settings, 300 * S) == (EVICTION_BUDGET, 1200 * S)


def test_the_min_runtime_is_named_when_it_ends_after_the_budget() -> None:
    settings = Extensions(max_evictions=1, eviction_window=MinRuntime("100s"))
    # MR protects until 600 s, the budget until 200 + 100 = 300 s
    assert protection(600 * S, 0, times(200), settings, 250 * S) == (MIN_RUNTIME, 600 * S)


def test_grace_applies_only_to_a_victim_its_min_runtime_does_not_protect() -> None:
    settings = Extensions(grace=grace("10m"))
    inputs = JobInputs(interval_ns=15 * MINUTE)
    # MR 10 m protects until 600 s; then the checkpoint at 900 s is within the grace, so the
    # victim is free only at 900 s: the protection's end is the end of that chain
    assert protection(10 * MINUTE, 0, inputs, settings, 300 * S) == (MIN_RUNTIME, 900 * S)
    assert protection(10 * MINUTE, 0, inputs, settings, 600 * S) == (CHECKPOINT_GRACE, 900 * S)
    assert protection(10 * MINUTE, 0, inputs, settings, 900 * S) == (None, None)


def test_grace_does_not_apply_while_the_budget_protects() -> None:
    settings = Extensions(grace=grace("10m"), max_evictions=1, eviction_window=MinRuntime("1000s"))
    inputs = times(0)._replace(interval_ns=15 * MINUTE)
    assert protection(0, 0, inputs, settings, 600 * S) == (EVICTION_BUDGET, 1000 * S)


def test_grace_applies_once_an_extended_min_runtime_is_over() -> None:
    settings = Extensions(grace=grace("10m"), max_job_min_runtime=MinRuntime("1h"))
    inputs = JobInputs(interval_ns=50 * MINUTE, requested_ns=45 * MINUTE)
    # the request holds it to 45 m, the grace then to its checkpoint at 50 m
    assert protection(0, 0, inputs, settings, 44 * MINUTE) == (JOB_REQUEST, 50 * MINUTE)
    assert protection(0, 0, inputs, settings, 45 * MINUTE) == (CHECKPOINT_GRACE, 50 * MINUTE)


def test_grace_never_applies_when_the_interval_is_within_the_grace() -> None:
    """Otherwise the next checkpoint would always be within the grace: protected for good."""
    settings = Extensions(grace=grace("10m"))
    for interval in (5 * MINUTE, 10 * MINUTE):
        inputs = JobInputs(interval_ns=interval)
        for now in range(0, 3 * 3600, 60):
            assert protection(0, 0, inputs, settings, now * S) == (None, None)
    inputs = JobInputs(interval_ns=10 * MINUTE + 1)
    assert protection(0, 0, inputs, settings, 1) == (CHECKPOINT_GRACE, 10 * MINUTE + 1)


def test_a_spent_count_budget_protects_forever() -> None:
    settings = Extensions(max_evictions=3)
    assert protection(0, 0, count(3), settings, HOUR) == (EVICTION_BUDGET, FOREVER_NS)


# -- unsaved work --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start_s", "checkpoint_s", "now_s", "weight", "expected"),
    [
        pytest.param(None, None, 900, 4.0, 0.0, id="no-start-time"),
        pytest.param(0, None, 90, 2.0, 180.0, id="since-the-start"),
        pytest.param(0, 600, 900, 16.0, 4800.0, id="since-the-checkpoint"),
        pytest.param(1000, 500, 1900, 1.0, 900.0, id="checkpoint-before-start-ignored"),
        pytest.param(1000, None, 900, 8.0, 0.0, id="start-in-the-future"),
        pytest.param(0, 900, 900, 8.0, 0.0, id="just-checkpointed"),
        pytest.param(0, None, 90, 0.0, 0.0, id="zero-weight"),
    ],
)
def test_unsaved_work_is_time_since_the_last_save_times_weight(
    start_s: int | None, checkpoint_s: int | None, now_s: int, weight: float, expected: float
) -> None:
    start = None if start_s is None else start_s * S
    checkpoint = None if checkpoint_s is None else checkpoint_s * S
    assert unsaved_work(start, checkpoint, now_s * S, weight) == expected


# -- the inputs on jobs and tasks ----------------------------------------------------------------


def test_job_inputs_read_from_a_job() -> None:
    job = Job(
        "j",
        "q",
        start_time=T0,
        inputs=PublicInputs(
            last_checkpoint=T0 + timedelta(minutes=20),
            checkpoint_interval="30m",
            evictions=[T0 - timedelta(hours=1), T0 - timedelta(hours=3)],
            requested_min_runtime="2h",
        ),
    )
    start = JobFacts.of(job).start_ns
    assert start is not None
    assert JobFacts.of(job).inputs() == JobInputs(
        checkpoint_ns=start + 20 * MINUTE,
        interval_ns=30 * MINUTE,
        eviction_ns=(start - 3 * HOUR, start - HOUR),
        eviction_count=2,
        requested_ns=2 * HOUR,
        last_eviction_ns=start - HOUR,  # the latest eviction: the preemption delay's anchor
    )


def test_job_evictions_are_kept_sorted_as_datetimes() -> None:
    job = Job("j", "q", inputs=PublicInputs(evictions=[7200, 0, 3600]))
    assert job.inputs is not None
    assert job.inputs.evictions == (
        datetime(1970, 1, 1, tzinfo=UTC),
        datetime(1970, 1, 1, 1, tzinfo=UTC),
        datetime(1970, 1, 1, 2, tzinfo=UTC),
    )


def test_a_job_without_inputs_has_empty_inputs() -> None:
    assert JobFacts.of(Job("j", "q", start_time=0)).inputs() == JobInputs()


def test_a_checkpoint_before_the_start_time_is_dropped_from_the_inputs() -> None:
    job = Job(
        "j",
        "q",
        start_time=1000,
        inputs=PublicInputs(last_checkpoint=500, checkpoint_interval="30m"),
    )
    assert JobFacts.of(job).inputs().checkpoint_ns is None


def test_a_checkpoint_without_a_start_time_is_kept() -> None:
    job = Job("j", "q", inputs=PublicInputs(last_checkpoint=500))
    assert JobFacts.of(job).inputs().checkpoint_ns == 500 * S


def test_an_eviction_count_is_kept_without_times() -> None:
    inputs = JobFacts.of(Job("j", "q", inputs=PublicInputs(evictions=3))).inputs()
    assert (inputs.eviction_ns, inputs.eviction_count) == (None, 3)


@attrs.frozen
class OwnJob:
    """A scheduler's own job object, with only the attributes of JobLike."""

    id: Hashable
    queue: str
    priority: int = 50
    preemptibility: str | None = "preemptible"
    start_time: float | None = 0
    pod_sets: Sequence[PodSet] = (PodSet(tasks=[Task("t")]),)


@attrs.frozen
class OwnJobWithInputs(OwnJob):
    """A scheduler's own job object that also carries the section 16 inputs."""

    inputs: Any = None


def test_a_callers_job_object_without_the_attributes_has_empty_inputs() -> None:
    assert JobFacts.of(OwnJob("own", "q")).inputs() == JobInputs()


def test_a_callers_job_object_with_the_attributes_is_read() -> None:
    job = OwnJobWithInputs(
        "own",
        "q",
        start_time=100,
        inputs=PublicInputs(
            last_checkpoint=400,
            checkpoint_interval="10m",
            evictions=5,
            requested_min_runtime="1h",
        ),
    )
    assert JobFacts.of(job).inputs() == JobInputs(
        checkpoint_ns=400 * S,
        interval_ns=10 * MINUTE,
        eviction_ns=None,
        eviction_count=5,
        requested_ns=HOUR,
    )


def test_a_callers_inputs_of_another_type_are_an_error_naming_the_job() -> None:
    job = OwnJobWithInputs("own", "q", inputs={"requested_min_runtime": "1h"})
    with pytest.raises(TypeError) as caught:
        JobFacts.of(job).inputs()
    assert str(caught.value) == ("job 'own' inputs: expected a minruntime.JobInputs, got dict")


@pytest.mark.parametrize("value", ["never", -1, "-1", "NEVER"])
def test_never_is_not_a_valid_request(value: str | int) -> None:
    with pytest.raises(InvalidDuration) as caught:
        Job("j", "q", inputs=PublicInputs(requested_min_runtime=value))
    assert repr(value) in str(caught.value)
    assert "JobInputs requested_min_runtime" in str(caught.value)
    assert "never is not allowed" in str(caught.value)
    assert caught.value.origin == "JobInputs requested_min_runtime"


@pytest.mark.parametrize("value", ["never", -1])
def test_never_is_not_a_checkpoint_interval(value: str | int) -> None:
    with pytest.raises(InvalidDuration) as caught:
        Job("j", "q", inputs=PublicInputs(checkpoint_interval=value))
    assert repr(value) in str(caught.value)
    assert "JobInputs checkpoint_interval" in str(caught.value)


def test_a_zero_checkpoint_interval_is_an_error() -> None:
    with pytest.raises(InvalidDuration) as caught:
        Job("j", "q", inputs=PublicInputs(checkpoint_interval="0s"))
    assert str(caught.value) == (
        "invalid duration '0s' in JobInputs checkpoint_interval: must be positive "
        "(expected e.g. '30m')"
    )
    assert caught.value.value == "0s"


def test_a_bad_checkpoint_interval_names_the_value_and_field() -> None:
    with pytest.raises(InvalidDuration) as caught:
        Job("j", "q", inputs=PublicInputs(checkpoint_interval="30x"))
    assert "'30x' in JobInputs checkpoint_interval" in str(caught.value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1, "JobInputs evictions: a count must be >= 0, got -1"),
        (True, "JobInputs evictions: expected times or a count, got True"),
        ("2026-11-22T12:00:00Z", "JobInputs evictions: expected times or a count, got '2026-11-22"),
    ],
)
def test_bad_evictions_are_errors_naming_the_value(value: object, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        Job("j", "q", inputs=PublicInputs(evictions=value))


def test_a_naive_eviction_time_is_an_error() -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        Job("j", "q", inputs=PublicInputs(evictions=[datetime(2026, 11, 22, 12, 0)]))
    assert "naive datetime 2026-11-22 12:00:00" in str(caught.value)
    assert caught.value.origin == "JobInputs evictions"


def test_a_naive_last_checkpoint_is_an_error() -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        Job("j", "q", inputs=PublicInputs(last_checkpoint=datetime(2026, 11, 22, 12, 0)))
    assert "naive datetime 2026-11-22 12:00:00" in str(caught.value)


def test_a_task_holds_one_pod_by_default_and_shows_its_resources_in_repr() -> None:
    assert Task("t").resources == {"pods": 1}
    assert repr(Task("t")) == (
        "Task(id='t', status=<TaskStatus.RUNNING: 'Running'>, resources=Resources({'pods': 1}))"
    )
    assert repr(Task("t", resources={"nvidia.com/gpu": 8})) == (
        "Task(id='t', status=<TaskStatus.RUNNING: 'Running'>, "
        "resources=Resources({'nvidia.com/gpu': 8, 'pods': 1}))"
    )


@pytest.mark.parametrize("amount", [-1, float("nan"), True, "8", float("inf")])
def test_a_bad_resource_amount_is_an_error_naming_the_task_and_value(amount: object) -> None:
    with pytest.raises(InvalidResources) as caught:
        Task("t", resources={"nvidia.com/gpu": amount})  # type: ignore[dict-item]
    assert str(caught.value) == (
        f"Task 't' resources 'nvidia.com/gpu': expected a finite number >= 0, got {amount!r}"
    )


def test_job_repr_shows_the_inputs_as_one_value() -> None:
    tree = ", sub_groups=(), min_sub_group=None, core_pods=None)"
    assert repr(Job("j", "q")).endswith(f"inputs=None{tree}")
    assert repr(
        Job("j", "q", inputs=PublicInputs(evictions=2, requested_min_runtime="1h"))
    ).endswith(
        "inputs=JobInputs(checkpoint_interval=None, last_checkpoint=None, "
        "checkpoint_restore=None, evictions=2, requested_min_runtime=MinRuntime('1h'), "
        f"preemption_delay=None, created=None, last_eviction=None){tree}"
    )


# -- the settings on queues and the configuration ------------------------------------------------


def test_queue_settings_are_parsed_and_shown_as_one_value() -> None:
    value = Queue(
        "q",
        protections=ProtectionSettings(
            preempt_checkpoint_grace="5m",
            reclaim_checkpoint_grace=600,
            max_evictions=3,
            eviction_window="never",
            max_job_min_runtime=-1,
        ),
    )
    settings = value.protections
    assert settings.preempt_checkpoint_grace == MinRuntime("5m")
    assert settings.reclaim_checkpoint_grace == MinRuntime("10m")
    assert settings.max_evictions == 3
    assert settings.eviction_window is MinRuntime.NEVER
    assert settings.max_job_min_runtime is MinRuntime.NEVER
    assert settings
    assert repr(value) == (
        "Queue(name='q', parent=None, preempt_min_runtime=None, reclaim_min_runtime=None, "
        "protections=ProtectionSettings(preempt_checkpoint_grace=MinRuntime('5m'), "
        "reclaim_checkpoint_grace=MinRuntime('10m'), max_evictions=3, "
        "eviction_window=MinRuntime('never'), max_job_min_runtime=MinRuntime('never')))"
    )
    assert not Queue("plain", reclaim_min_runtime="1h").protections


def test_a_zero_setting_is_still_a_set_setting() -> None:
    assert Queue("q", protections=ProtectionSettings(max_job_min_runtime=0)).protections
    assert QueueTree(
        [Queue("a"), Queue("b", protections=ProtectionSettings(max_job_min_runtime=0))]
    ).has_protections
    assert not QueueTree([Queue("a"), Queue("b", "a", reclaim_min_runtime="1h")]).has_protections


@pytest.mark.parametrize("field", ["preempt_checkpoint_grace", "reclaim_checkpoint_grace"])
@pytest.mark.parametrize("value", ["never", -1])
def test_a_grace_may_not_be_never(field: str, value: object) -> None:
    settings: dict[str, Any] = {field: value}
    with pytest.raises(InvalidDuration) as caught:
        ProtectionSettings(**settings)
    assert repr(value) in str(caught.value)
    assert f"ProtectionSettings {field}" in str(caught.value)
    assert caught.value.origin == f"ProtectionSettings {field}"


@pytest.mark.parametrize("value", [-1, True, 2.5, "3"])
def test_a_bad_max_evictions_is_an_error_naming_the_field(value: object) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        ProtectionSettings(max_evictions=value)  # type: ignore[arg-type]
    assert caught.value.problems == (
        f"ProtectionSettings max_evictions: expected an integer >= 0 or None, got {value!r}",
    )


def test_from_records_reads_the_settings() -> None:
    tree = QueueTree.from_records(
        [
            {
                "name": "org",
                "protections": {
                    "max_evictions": 2,
                    "eviction_window": "1h",
                    "max_job_min_runtime": "4h",
                },
            }
        ]
    )
    settings = tree["org"].protections
    assert (settings.max_evictions, settings.eviction_window) == (2, MinRuntime("1h"))
    assert settings.max_job_min_runtime == MinRuntime("4h")


def test_from_records_reports_bad_settings_with_the_queue() -> None:
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree.from_records(
            [{"name": "org", "protections": {"max_evictons": 2, "eviction_window": "1x"}}]
        )
    assert caught.value.problems == (
        "queue 'org' protections: unknown keys ['max_evictons']",
        "queue 'org' protections: invalid duration '1x' in ProtectionSettings eviction_window: "
        "unknown unit 'x' (expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)",
    )


def test_config_defaults_are_off() -> None:
    settings = Config()
    assert settings.protection_default("preempt_checkpoint_grace") is MinRuntime.ZERO
    assert settings.protection_default("reclaim_checkpoint_grace") is MinRuntime.ZERO
    assert settings.protection_default("max_evictions") is None
    assert settings.protection_default("eviction_window") is MinRuntime.NEVER
    assert settings.protection_default("max_job_min_runtime") is MinRuntime.ZERO
    assert not settings.has_protections


def test_config_with_off_values_given_explicitly_has_no_protections() -> None:
    settings = Config(
        protections=ProtectionSettings(
            preempt_checkpoint_grace=0,
            max_evictions=None,
            eviction_window="never",
            max_job_min_runtime="0s",
        )
    )
    assert not settings.has_protections


def test_config_with_a_setting_has_protections_and_shows_it() -> None:
    settings = Config(protections=ProtectionSettings(max_evictions=3, eviction_window="1d"))
    assert settings.has_protections
    assert repr(settings) == (
        "Config(default_preempt_min_runtime=MinRuntime('0s'), "
        "default_reclaim_min_runtime=MinRuntime('0s'), reclaim_resolve_method='lca', "
        "protections=ProtectionSettings(preempt_checkpoint_grace=None, "
        "reclaim_checkpoint_grace=None, max_evictions=3, eviction_window=MinRuntime('24h'), "
        "max_job_min_runtime=None), cost_resource='nvidia.com/gpu', warnings=())"
    )


def test_a_bad_default_max_evictions_is_an_error() -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config(protections=ProtectionSettings(max_evictions=-2))
    assert "ProtectionSettings max_evictions: expected an integer >= 0 or None, got -2" in str(
        caught.value
    )


def test_plugin_arguments_read_the_checkpoint_aware_defaults() -> None:
    config = Config.from_plugin_arguments(
        {
            "defaultPreemptCheckpointGrace": "5m",
            "defaultReclaimCheckpointGrace": "10m",
            "defaultMaxEvictions": "3",
            "defaultEvictionWindow": "1d",
            "defaultMaxJobMinRuntime": "never",
        }
    )
    assert config.protections.preempt_checkpoint_grace == MinRuntime("5m")
    assert config.protections.reclaim_checkpoint_grace == MinRuntime("10m")
    assert config.protections.max_evictions == 3
    assert config.protections.eviction_window == MinRuntime("1d")
    assert config.protections.max_job_min_runtime is MinRuntime.NEVER
    assert config.warnings == ()


def test_plugin_arguments_max_evictions_may_be_an_integer() -> None:
    assert Config.from_plugin_arguments({"defaultMaxEvictions": 0}).protections.max_evictions == 0


def test_bad_checkpoint_aware_plugin_arguments_are_all_reported() -> None:
    arguments = {
        "defaultMaxEvictions": "two",
        "defaultPreemptCheckpointGrace": "never",
        "defaultEvictionWindow": "1x",
    }
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments(arguments)
    message = str(caught.value)
    assert "defaultMaxEvictions: invalid value 'two' (expected an integer >= 0)" in message
    assert "defaultPreemptCheckpointGrace: invalid duration 'never'" in message
    assert "defaultEvictionWindow: invalid duration '1x'" in message
    assert "minruntime plugin arguments" in message


def test_lenient_plugin_arguments_warn_and_use_the_defaults() -> None:
    config = Config.from_plugin_arguments(
        {"defaultMaxEvictions": "-1", "defaultReclaimCheckpointGrace": "never"}, lenient=True
    )
    assert config.protection_default("max_evictions") is None
    assert config.protection_default("reclaim_checkpoint_grace") is MinRuntime.ZERO
    assert config.warnings[0] == (
        "defaultReclaimCheckpointGrace: invalid duration 'never': never is not allowed here "
        "(expected a duration, e.g. '10m' or '1h30m'); using the default 0s"
    )
    assert config.warnings[1] == (
        "defaultMaxEvictions: invalid value '-1' (expected an integer >= 0); "
        "using the default unlimited"
    )


# -- resolving the settings ----------------------------------------------------------------------

# The design document's tree (docs/spec/resolution.md#resolution-examples) with graces where it has
# reclaim MRs.
DESIGN = QueueTree(
    [
        Queue("A"),
        Queue(
            "B",
            "A",
            reclaim_min_runtime="600s",
            protections=ProtectionSettings(reclaim_checkpoint_grace="10m"),
        ),
        Queue("C", "B"),
        Queue(
            "leaf1",
            "C",
            reclaim_min_runtime="0s",
            protections=ProtectionSettings(reclaim_checkpoint_grace="0s"),
        ),
        Queue(
            "leaf2",
            "C",
            reclaim_min_runtime="180s",
            protections=ProtectionSettings(reclaim_checkpoint_grace="3m"),
        ),
        Queue(
            "D",
            "B",
            reclaim_min_runtime="60s",
            protections=ProtectionSettings(reclaim_checkpoint_grace="1m"),
        ),
        Queue("leaf3", "D"),
    ]
)


@pytest.mark.parametrize(
    ("preemptor", "victim", "grace_value", "source"),
    [
        ("leaf1", "leaf3", "1m", "D"),
        ("leaf1", "leaf2", "3m", "leaf2"),
        ("leaf3", "leaf1", "10m", "B"),
    ],
)
def test_reclaim_grace_resolves_like_the_reclaim_mr_by_lca(
    preemptor: str, victim: str, grace_value: str, source: str
) -> None:
    resolver = Resolver(DESIGN, Config())
    settings = resolver.settings(Action.RECLAIM, preemptor, victim)
    mr = resolver.resolve(Action.RECLAIM, preemptor, victim)
    assert (settings.grace, settings.grace_source) == (MinRuntime(grace_value), source)
    assert settings.grace_source == mr.source


@pytest.mark.parametrize(
    ("preemptor", "victim", "grace_value", "source"),
    [("leaf1", "leaf3", "1m", "D"), ("leaf3", "leaf1", "0s", "leaf1")],
)
def test_reclaim_grace_resolves_from_the_victims_queue_with_method_queue(
    preemptor: str, victim: str, grace_value: str, source: str
) -> None:
    resolver = Resolver(DESIGN, Config(reclaim_resolve_method="queue"))
    settings = resolver.settings(Action.RECLAIM, preemptor, victim)
    assert (settings.grace, settings.grace_source) == (MinRuntime(grace_value), source)


def test_reclaim_grace_across_top_level_trees_uses_only_the_victims_top_level_queue() -> None:
    tree = QueueTree(
        [
            Queue("top1", protections=ProtectionSettings(reclaim_checkpoint_grace="7m")),
            Queue("mid", "top1", protections=ProtectionSettings(reclaim_checkpoint_grace="2m")),
            Queue("leaf", "mid"),
            Queue("top2"),
            Queue("other", "top2"),
        ]
    )
    resolver = Resolver(tree, Config(protections=ProtectionSettings(reclaim_checkpoint_grace="1m")))
    settings = resolver.settings(Action.RECLAIM, "other", "leaf")
    assert (settings.grace, settings.grace_source) == (MinRuntime("7m"), "top1")
    settings = resolver.settings(Action.RECLAIM, "leaf", "other")
    assert (settings.grace, settings.grace_source) == (MinRuntime("1m"), None)


def test_preempt_grace_walks_up_from_the_victims_queue_and_zero_stops_the_walk() -> None:
    tree = QueueTree(
        [
            Queue("B", protections=ProtectionSettings(preempt_checkpoint_grace="10m")),
            Queue("C", "B"),
            Queue("leaf1", "C", protections=ProtectionSettings(preempt_checkpoint_grace="0s")),
            Queue("leaf2", "C"),
        ]
    )
    resolver = Resolver(tree, Config(protections=ProtectionSettings(preempt_checkpoint_grace="1m")))
    assert resolver.settings(Action.PREEMPT, "leaf2", "leaf2").grace == MinRuntime("10m")
    assert resolver.settings(Action.PREEMPT, "leaf2", "leaf2").grace_source == "B"
    leaf1 = resolver.settings(Action.PREEMPT, "leaf1", "leaf1")
    assert (leaf1.grace, leaf1.grace_source) == (MinRuntime.ZERO, "leaf1")


def test_preempt_and_reclaim_graces_are_separate_settings() -> None:
    tree = QueueTree(
        [
            Queue("org", protections=ProtectionSettings(preempt_checkpoint_grace="5m")),
            Queue("a", "org"),
            Queue("b", "org"),
        ]
    )
    resolver = Resolver(tree, Config())
    assert resolver.settings(Action.PREEMPT, "a", "a").grace == MinRuntime("5m")
    assert resolver.settings(Action.RECLAIM, "b", "a").grace is MinRuntime.ZERO


def test_budget_and_cap_walk_up_from_the_victims_queue_whatever_the_action() -> None:
    tree = QueueTree(
        [
            Queue("org", protections=ProtectionSettings(max_evictions=2, max_job_min_runtime="4h")),
            Queue("team", "org", protections=ProtectionSettings(eviction_window="1h")),
            Queue("leaf", "team", protections=ProtectionSettings(max_evictions=5)),
            Queue("other", "org"),
        ]
    )
    resolver = Resolver(tree, Config(protections=ProtectionSettings(eviction_window="1d")))
    for action, preemptor in ((Action.RECLAIM, "other"), (Action.PREEMPT, "leaf")):
        settings = resolver.settings(action, preemptor, "leaf")
        assert settings.max_evictions == 5
        assert settings.budget_source == "leaf"
        assert settings.eviction_window == MinRuntime("1h")
        assert (settings.max_job_min_runtime, settings.cap_source) == (MinRuntime("4h"), "org")
    other = resolver.settings(Action.RECLAIM, "leaf", "other")
    assert (other.max_evictions, other.budget_source) == (2, "org")
    assert other.eviction_window == MinRuntime("1d")


def test_an_unknown_queue_gets_the_node_pool_defaults() -> None:
    config = Config(
        protections=ProtectionSettings(
            reclaim_checkpoint_grace="2m",
            preempt_checkpoint_grace="3m",
            max_evictions=4,
            eviction_window="6h",
            max_job_min_runtime="1h",
        )
    )
    resolver = Resolver(DESIGN, config)
    expected = Extensions(
        grace=MinRuntime("2m"),
        max_evictions=4,
        eviction_window=MinRuntime("6h"),
        max_job_min_runtime=MinRuntime("1h"),
    )
    assert resolver.settings(Action.RECLAIM, "leaf1", "gone") == expected
    assert resolver.settings(Action.PREEMPT, "gone", "gone") == attrs.evolve(
        expected, grace=MinRuntime("3m")
    )
    # an unknown preemptor queue: the default grace (as for the MR), the victim's budget
    unknown_preemptor = resolver.settings(Action.RECLAIM, "gone", "leaf2")
    assert (unknown_preemptor.grace, unknown_preemptor.grace_source) == (MinRuntime("2m"), None)


def test_extensions_are_remembered() -> None:
    resolver = Resolver(DESIGN, Config())
    first = resolver.settings(Action.RECLAIM, "leaf1", "leaf3")
    assert resolver.settings(Action.RECLAIM, "leaf1", "leaf3") is first


# -- Kubernetes: the annotations and the Queue fields --------------------------------------------

GANG: dict[str, Any] = {"minMember": 1, "preemptibility": "preemptible"}
"""The spec of the pod group every test here reads (beside its queue, 'team')."""


def read_one(
    annotations: Mapping[str, str], *pods: JSON, strict_times: bool = False
) -> tuple[Job, tuple[str, ...]]:
    snapshot = read_snapshot(
        [queue_object("team"), pod_group(annotations=annotations, **GANG), *pods],
        strict_times=strict_times,
    )
    (found,) = snapshot.jobs
    return found.job, found.warnings


def test_read_queue_reads_the_checkpoint_aware_fields() -> None:
    queue = read_queue(
        queue_object(
            "prod",
            preemptCheckpointGrace="5m",
            reclaimCheckpointGrace="10m",
            maxEvictions=3,
            evictionWindow="1d",
            maxJobMinRuntime="-1",
        )
    )
    assert queue.protections.preempt_checkpoint_grace == MinRuntime("5m")
    assert queue.protections.reclaim_checkpoint_grace == MinRuntime("10m")
    assert queue.protections.max_evictions == 3
    assert queue.protections.eviction_window == MinRuntime("1d")
    assert queue.protections.max_job_min_runtime is MinRuntime.NEVER


def test_read_queue_without_the_fields_has_no_extensions() -> None:
    assert not read_queue(queue_object("prod", reclaimMinRuntime="1h")).protections


def test_read_queue_rejects_a_never_grace_naming_the_queue_and_field() -> None:
    with pytest.raises(InvalidObject) as caught:
        read_queue(queue_object("prod", reclaimCheckpointGrace="never"))
    assert str(caught.value).startswith(
        "Queue/prod spec.reclaimCheckpointGrace: invalid duration 'never'"
    )
    assert caught.value.field == "spec.reclaimCheckpointGrace"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1, "Queue/prod spec.maxEvictions: expected an integer >= 0, got -1"),
        ("3", "Queue/prod spec.maxEvictions: expected an integer, got '3'"),
    ],
)
def test_read_queue_rejects_a_bad_max_evictions(value: object, message: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        read_queue(queue_object("prod", maxEvictions=value))
    assert str(caught.value) == message
    assert caught.value.field == "spec.maxEvictions"


def test_pod_group_annotations_are_read_into_the_job() -> None:
    job, warnings = read_one(
        {
            LAST_CHECKPOINT_ANNOTATION: "2026-11-22T11:40:00Z",
            CHECKPOINT_INTERVAL_ANNOTATION: "30m",
            EVICTIONS_ANNOTATION: "2026-11-22T10:00:00Z, 2026-11-22T09:00:00+01:00",
            REQUESTED_MIN_RUNTIME_ANNOTATION: "2h",
        },
        pod("train-0", node="node-1"),
    )
    assert job.inputs is not None
    assert job.inputs.last_checkpoint == datetime(2026, 11, 22, 11, 40, tzinfo=UTC)
    assert job.inputs.checkpoint_interval == MinRuntime("30m")
    assert job.inputs.evictions == (
        datetime(2026, 11, 22, 8, 0, tzinfo=UTC),
        datetime(2026, 11, 22, 10, 0, tzinfo=UTC),
    )
    assert job.inputs.requested_min_runtime == MinRuntime("2h")
    assert warnings == ()


def test_a_bare_integer_eviction_annotation_is_a_count() -> None:
    job, warnings = read_one({EVICTIONS_ANNOTATION: " 4 "}, pod("train-0", node="node-1"))
    assert job.inputs is not None
    assert job.inputs.evictions == 4
    assert warnings == ()


def test_a_pod_group_without_the_annotations_has_no_inputs() -> None:
    job, _ = read_one({}, pod("train-0", node="node-1"))
    assert job.inputs is None


@pytest.mark.parametrize(
    ("annotations", "field", "fragment"),
    [
        (
            {LAST_CHECKPOINT_ANNOTATION: "yesterday"},
            LAST_CHECKPOINT_ANNOTATION,
            "invalid timestamp 'yesterday'",
        ),
        (
            {CHECKPOINT_INTERVAL_ANNOTATION: "never"},
            CHECKPOINT_INTERVAL_ANNOTATION,
            "invalid duration 'never'",
        ),
        (
            {CHECKPOINT_INTERVAL_ANNOTATION: "0"},
            CHECKPOINT_INTERVAL_ANNOTATION,
            "invalid duration '0': must be positive",
        ),
        (
            {REQUESTED_MIN_RUNTIME_ANNOTATION: "-1"},
            REQUESTED_MIN_RUNTIME_ANNOTATION,
            "invalid duration '-1'",
        ),
        (
            {REQUESTED_MIN_RUNTIME_ANNOTATION: "2 hours"},
            REQUESTED_MIN_RUNTIME_ANNOTATION,
            "invalid duration '2 hours'",
        ),
    ],
)
def test_an_unreadable_annotation_warns_and_is_ignored(
    annotations: Mapping[str, str], field: str, fragment: str
) -> None:
    job, warnings = read_one(annotations, pod("train-0", node="node-1"))
    assert job.inputs is None
    (warning,) = warnings
    assert warning.startswith(f"PodGroup/ml/train metadata.annotations[{field!r}]: ")
    assert fragment in warning
    assert warning.endswith("; ignored")


def test_an_unreadable_annotation_is_an_error_with_strict_times() -> None:
    with pytest.raises(InvalidObject) as caught:
        read_one(
            {LAST_CHECKPOINT_ANNOTATION: "yesterday"},
            pod("train-0", node="node-1"),
            strict_times=True,
        )
    assert str(caught.value).startswith(
        f"PodGroup/ml/train metadata.annotations[{LAST_CHECKPOINT_ANNOTATION!r}]: "
        "invalid timestamp 'yesterday'"
    )
    assert caught.value.field == f"metadata.annotations[{LAST_CHECKPOINT_ANNOTATION!r}]"


def test_an_unreadable_eviction_time_warns_and_the_others_are_kept() -> None:
    job, warnings = read_one(
        {EVICTIONS_ANNOTATION: "2026-11-22T10:00:00Z,soon"}, pod("train-0", node="node-1")
    )
    assert job.inputs is not None
    assert job.inputs.evictions == (datetime(2026, 11, 22, 10, 0, tzinfo=UTC),)
    (warning,) = warnings
    assert warning.startswith(
        f"PodGroup/ml/train metadata.annotations[{EVICTIONS_ANNOTATION!r}]: "
        "invalid timestamp 'soon'"
    )


def test_a_pods_gpus_come_from_its_limits_else_its_requests() -> None:
    job, _ = read_one(
        {},
        pod("by-limits", node="node-1", resources={"limits": {"nvidia.com/gpu": "4"}}),
        pod("by-requests", node="node-1", resources={"requests": {"nvidia.com/gpu": 2}}),
        pod("cpu-only", node="node-1", resources={"limits": {"cpu": "4"}}),
    )
    held = {task.id: task.resources.get("nvidia.com/gpu") for task in job.tasks()}
    assert held == {"by-limits": 4.0, "by-requests": 2.0, "cpu-only": None}
    assert {task.status for task in job.tasks()} == {TaskStatus.RUNNING}
    assert job.preemptibility is Preemptibility.PREEMPTIBLE

"""Start times (docs/spec/start-time.md): the annotation, the stamping rule, formatting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from minruntime import (
    InvalidTimestamp,
    Job,
    PodSet,
    Task,
    TaskStatus,
    format_start_time,
    parse_start_time,
    stamp_start_time,
)
from minruntime.starttime import has_allocated_tasks, parse_rfc3339

T0 = datetime(2026, 11, 22, 11, 50, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-22T11:50:00Z", T0),
        ("2026-11-22T11:50:00z", T0),
        ("2026-11-22t11:50:00Z", T0),
        ("2026-11-22 11:50:00Z", T0),
        ("2026-11-22T13:50:00+02:00", T0),
        ("2026-11-22T06:50:00-05:00", T0),
        ("2026-11-22T11:50:00.25Z", T0 + timedelta(microseconds=250_000)),
        ("2026-11-22T11:50:00.123456789Z", T0 + timedelta(microseconds=123_456)),
    ],
)
def test_rfc3339_with_zone_parses_to_utc(text: str, expected: datetime) -> None:
    parsed = parse_rfc3339(text)
    assert parsed == expected
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-22T11:50:00",  # no zone
        "2026-11-22",  # no time
        "2026-11-22T11:50Z",  # no seconds
        "20261122T115000Z",  # basic ISO form
        "yesterday",
        "",
        "2026-13-22T11:50:00Z",  # month 13
        " 2026-11-22T11:50:00Z",
    ],
)
def test_non_rfc3339_text_is_an_invalid_timestamp_naming_value_and_origin(text: str) -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        parse_rfc3339(text, origin="PodGroup ns/job annotation")
    assert repr(text) in str(caught.value)
    assert "PodGroup ns/job annotation" in str(caught.value)
    assert caught.value.value == text


def test_missing_or_empty_annotation_is_no_start_time_without_warning() -> None:
    assert parse_start_time(None).value is None
    assert parse_start_time(None).warnings == ()
    assert parse_start_time("").value is None
    assert parse_start_time("").warnings == ()


def test_unparseable_annotation_fails_open_with_a_warning() -> None:
    parsed = parse_start_time("2026-11-22 noon", origin="PodGroup/ns/a")
    assert parsed.value is None
    assert parsed.warnings == (
        "invalid timestamp '2026-11-22 noon' in PodGroup/ns/a (expected RFC 3339 with a zone, "
        "e.g. '2026-11-22T11:50:00Z'); treated as no start time",
    )


def test_unparseable_annotation_raises_when_strict() -> None:
    with pytest.raises(InvalidTimestamp, match="'noon'"):
        parse_start_time("noon", strict=True)


def test_valid_annotation_parses_in_both_modes() -> None:
    assert parse_start_time("2026-11-22T11:50:00Z").value == T0
    assert parse_start_time("2026-11-22T11:50:00Z", strict=True).value == T0


def test_format_is_rfc3339_utc_with_second_precision() -> None:
    moment = datetime(2026, 11, 22, 13, 50, 7, 999_999, tzinfo=timezone(timedelta(hours=2)))
    assert format_start_time(moment) == "2026-11-22T11:50:07Z"
    assert format_start_time(0) == "1970-01-01T00:00:00Z"
    assert format_start_time(1.5) == "1970-01-01T00:00:01Z"


def test_format_then_parse_round_trips_whole_seconds() -> None:
    assert parse_rfc3339(format_start_time(T0)) == T0


def test_format_rejects_a_naive_datetime() -> None:
    with pytest.raises(InvalidTimestamp, match="naive"):
        format_start_time(datetime(2026, 1, 1))


def _job(*statuses: str, start: datetime | None = None) -> Job:
    tasks = [Task(f"t{i}", status) for i, status in enumerate(statuses)]
    return Job("j", "q", start_time=start, pod_sets=[PodSet(min_available=1, tasks=tasks)])


NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_first_allocation_stamps_now() -> None:
    assert stamp_start_time(_job("Pending", "Pending"), now=NOW, pipelined=False) == NOW


def test_pipelined_allocation_keeps_the_old_start_time() -> None:
    assert stamp_start_time(_job("Pending", start=T0), now=NOW, pipelined=True) == T0
    assert stamp_start_time(_job("Pending"), now=NOW, pipelined=True) is None


def test_scaling_up_a_running_job_keeps_its_start_time() -> None:
    assert stamp_start_time(_job("Running", "Pending", start=T0), now=NOW, pipelined=False) == T0


def test_a_job_evicted_to_zero_gets_a_new_start_time() -> None:
    job = _job("Releasing", "Succeeded", "Pending", start=T0)
    assert stamp_start_time(job, now=NOW, pipelined=False) == NOW


@pytest.mark.parametrize(
    ("status", "allocated"),
    [
        (TaskStatus.ALLOCATED, True),
        (TaskStatus.BINDING, True),
        (TaskStatus.BOUND, True),
        (TaskStatus.RUNNING, True),
        (TaskStatus.PIPELINED, False),
        (TaskStatus.RELEASING, False),
        (TaskStatus.STUCK_IN_RELEASING, False),
        (TaskStatus.PENDING, False),
        (TaskStatus.GATED, False),
        (TaskStatus.SUCCEEDED, False),
        (TaskStatus.FAILED, False),
        (TaskStatus.UNKNOWN, False),
        (TaskStatus.DELETED, False),
    ],
)
def test_only_allocated_statuses_count_as_started(status: TaskStatus, allocated: bool) -> None:
    job = _job(status.value, start=T0)
    assert has_allocated_tasks(job) is allocated
    expected = T0 if allocated else NOW
    assert stamp_start_time(job, now=NOW, pipelined=False) == expected


def test_stamping_accepts_posix_seconds_for_now() -> None:
    assert stamp_start_time(_job("Pending"), now=60, pipelined=False) == datetime(
        1970, 1, 1, 0, 1, tzinfo=UTC
    )

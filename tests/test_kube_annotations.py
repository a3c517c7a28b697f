"""PodGroup annotations (``minruntime.kube._annotations``): the start time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from tests.world import (
    JSON,
    LEGACY_50_WARNING,
    START_FIELD,
    STARTED,
    TEAM,
    pod_group,
    read_one,
)

from minruntime.errors import InvalidObject
from minruntime.kube import (
    read_snapshot,
)
from minruntime.starttime import START_TIME_ANNOTATION


def test_pod_group_start_time_comes_from_the_annotation() -> None:
    job = read_one(pod_group(annotations={START_TIME_ANNOTATION: "2026-11-22T13:50:00.5+02:00"}))
    assert job.job.start_time == datetime(2026, 11, 22, 11, 50, 0, 500000, tzinfo=UTC)
    assert not any("timestamp" in warning for warning in job.warnings)


@pytest.mark.parametrize("annotations", [None, {}, {START_TIME_ANNOTATION: ""}])
def test_pod_group_without_a_start_time_annotation_has_no_start_time(
    annotations: JSON | None,
) -> None:
    job = read_one(pod_group(annotations=annotations))
    assert job.job.start_time is None
    assert job.warnings == (f"PodGroup/ml/train: {LEGACY_50_WARNING}",)


def test_an_unparseable_start_time_is_no_start_time_with_a_warning() -> None:
    job = read_one(pod_group(annotations={START_TIME_ANNOTATION: "yesterday"}))
    assert job.job.start_time is None
    assert job.warnings == (
        f"PodGroup/ml/train: {LEGACY_50_WARNING}",
        "invalid timestamp 'yesterday' in PodGroup/ml/train "
        "metadata.annotations['kai.scheduler/last-start-timestamp'] (expected RFC 3339 with a "
        "zone, e.g. '2026-11-22T11:50:00Z'); treated as no start time",
    )


@pytest.mark.parametrize("text", ["yesterday", "2026-11-22T11:50:00", "2026-11-22"])
def test_an_unparseable_start_time_is_an_error_with_strict_times(text: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        read_snapshot(
            [TEAM, pod_group(annotations={START_TIME_ANNOTATION: text})], strict_times=True
        )
    assert str(caught.value) == (
        f"invalid timestamp {text!r} in PodGroup/ml/train "
        "metadata.annotations['kai.scheduler/last-start-timestamp'] (expected RFC 3339 with a "
        "zone, e.g. '2026-11-22T11:50:00Z')"
    )
    assert caught.value.object == "PodGroup/ml/train"
    assert caught.value.field == START_FIELD


def test_a_valid_start_time_is_read_with_strict_times() -> None:
    job = read_one(pod_group(annotations={START_TIME_ANNOTATION: STARTED}), strict_times=True)
    assert job.job.start_time == datetime(2026, 11, 22, 11, 50, tzinfo=UTC)

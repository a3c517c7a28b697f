"""Priority classes (``minruntime.kube._priority``): a PriorityClass's name, value and flags, and a job's priority from it."""

from __future__ import annotations

import pytest
from tests.world import (
    DATA,
    LEGACY_50_WARNING,
    TEAM,
    only_job,
    pod_group,
    priority_class,
    read_one,
)

from minruntime.errors import InvalidObject
from minruntime.kube import (
    load_objects,
    read_priority_class,
    read_snapshot,
)
from minruntime.preemptibility import PRIORITY_CLASSES


def test_the_default_priority_classes_read_to_the_known_values() -> None:
    objects = load_objects(
        (DATA / "priority-classes.yaml").read_text(encoding="utf-8"), origin="priority-classes"
    )
    assert [read_priority_class(obj) for obj in objects] == [
        (name, PRIORITY_CLASSES[name], False)
        for name in ("train", "build-preemptible", "build", "inference")
    ]


def test_read_priority_class_reads_name_value_and_global_default() -> None:
    assert read_priority_class(priority_class("inference", 125, global_default=True)) == (
        "inference",
        125,
        True,
    )


def test_read_priority_class_is_not_the_global_default_when_the_field_is_absent() -> None:
    assert read_priority_class(priority_class("train", 50)) == ("train", 50, False)
    assert read_priority_class(priority_class("neg", -10, global_default=False)) == (
        "neg",
        -10,
        False,
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "PriorityClass/p value: missing (required)"),
        ("50", "PriorityClass/p value: expected an integer, got '50'"),
        (True, "PriorityClass/p value: expected an integer, got True"),
        (50.5, "PriorityClass/p value: expected an integer, got 50.5"),
    ],
)
def test_read_priority_class_with_a_bad_value_is_rejected(value: object, message: str) -> None:
    obj = priority_class("p", 0)
    if value is None:
        del obj["value"]
    else:
        obj["value"] = value
    with pytest.raises(InvalidObject) as caught:
        read_priority_class(obj)
    assert str(caught.value) == message
    assert (caught.value.object, caught.value.field) == ("PriorityClass/p", "value")


def test_read_priority_class_with_a_non_boolean_global_default_is_rejected() -> None:
    obj = priority_class("p", 1)
    obj["globalDefault"] = "yes"
    with pytest.raises(InvalidObject) as caught:
        read_priority_class(obj)
    assert str(caught.value).startswith("PriorityClass/p globalDefault: expected ")
    assert str(caught.value).endswith(", got 'yes'")
    assert (caught.value.object, caught.value.field) == ("PriorityClass/p", "globalDefault")


def test_pod_group_priority_comes_from_its_priority_class() -> None:
    snapshot = read_snapshot(
        [
            TEAM,
            priority_class("inference", 125),
            priority_class("fallback", 7, global_default=True),
            pod_group(priorityClassName="inference"),
        ]
    )
    job = only_job(snapshot)
    assert (job.job.priority, job.priority_class) == (125, "inference")
    assert job.warnings == (
        "PodGroup/ml/train: no preemptibility set; legacy rule: priority 125 >= 100 "
        "gives non-preemptible",
    )
    assert snapshot.priority_classes == {"inference": 125, "fallback": 7}
    assert snapshot.global_default_priority == 7


def test_a_missing_priority_class_falls_back_to_the_global_default_with_a_warning() -> None:
    job = read_one(
        priority_class("default", 75, global_default=True), pod_group(priorityClassName="gone")
    )
    assert (job.job.priority, job.priority_class) == (75, "gone")
    assert job.warnings[0] == (
        "PodGroup/ml/train: PriorityClass 'gone' is not in the snapshot; using the global default"
    )


def test_a_missing_priority_class_without_a_global_default_falls_back_to_50() -> None:
    job = read_one(priority_class("build", 100), pod_group(priorityClassName="gone"))
    assert (job.job.priority, job.priority_class) == (50, "gone")
    assert job.warnings == (
        "PodGroup/ml/train: PriorityClass 'gone' is not in the snapshot; using the fallback 50",
        f"PodGroup/ml/train: {LEGACY_50_WARNING}",
    )


def test_a_pod_group_naming_no_class_takes_the_global_default_silently() -> None:
    job = read_one(priority_class("build", 100, global_default=True), pod_group())
    assert (job.job.priority, job.priority_class) == (100, None)
    assert not any("PriorityClass" in warning for warning in job.warnings)


def test_a_pod_group_naming_no_class_without_a_global_default_has_priority_50() -> None:
    snapshot = read_snapshot([TEAM, pod_group()])
    job = only_job(snapshot)
    assert (job.job.priority, job.priority_class) == (50, None)
    assert job.warnings == (f"PodGroup/ml/train: {LEGACY_50_WARNING}",)
    assert (snapshot.priority_classes, snapshot.global_default_priority) == ({}, None)

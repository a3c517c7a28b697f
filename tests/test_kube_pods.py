"""Pods (``minruntime.kube._pods``): a Pod as a task of its pod group, its status, its group and the canonical order."""

from __future__ import annotations

import pytest
from tests.world import (
    JSON,
    NO_CONFIG_WARNING,
    TEAM,
    only_job,
    pod,
    pod_group,
    read_one,
    the_problem_of,
)

from minruntime import (
    Task,
    TaskStatus,
)
from minruntime.errors import InvalidObject
from minruntime.kube import (
    POD_GROUP_ANNOTATION,
    SUBGROUP_LABEL,
    ProblemKind,
    pod_task_status,
    read_snapshot,
)


def test_a_pod_label_that_is_not_a_string_is_ignored() -> None:
    snapshot = read_snapshot([TEAM, pod_group(), pod("p-0", labels={SUBGROUP_LABEL: 3})])
    (job,) = snapshot.jobs
    assert [task.id for task in job.job.tasks()] == ["p-0"]
    problem = the_problem_of(snapshot, ProblemKind.IGNORED)
    assert str(problem) == (
        "Pod/ml/p-0 metadata.labels['kai.scheduler/subgroup-name']: expected a string, got 3; "
        "ignored"
    )
    assert str(problem.object) == "Pod/ml/p-0"


def test_pods_are_grouped_by_annotation_within_their_namespace() -> None:
    snapshot = read_snapshot(
        [
            TEAM,
            pod_group("train", "ml"),
            pod_group("train", "research"),
            pod("a", "train", "ml"),
            pod("b", "train", "research", phase="Pending"),
            pod("c", "train", "ml", phase="Succeeded"),
        ]
    )
    by_id = {job.id: job for job in snapshot.jobs}
    assert by_id["ml/train"].job.tasks() == (Task("a"), Task("c", "Succeeded"))
    assert by_id["research/train"].job.tasks() == (Task("b", "Pending"),)


def test_a_pod_of_another_namespace_with_the_same_group_name_is_not_a_member() -> None:
    snapshot = read_snapshot([TEAM, pod_group("train", "ml"), pod("x", "train", "other")])
    assert only_job(snapshot).job.tasks() == ()
    assert snapshot.warnings == (
        NO_CONFIG_WARNING,
        "Pod/other/x: pod group 'train' is not in the snapshot; pod ignored",
    )


def test_a_pod_naming_a_missing_pod_group_is_ignored_with_a_warning() -> None:
    snapshot = read_snapshot([TEAM, pod_group("train"), pod("a"), pod("z", "gone")])
    assert only_job(snapshot).job.tasks() == (Task("a"),)
    assert snapshot.warnings == (
        NO_CONFIG_WARNING,
        "Pod/ml/z: pod group 'gone' is not in the snapshot; pod ignored",
    )


@pytest.mark.parametrize("annotations", [None, {"other": "x"}, {POD_GROUP_ANNOTATION: ""}])
def test_a_pod_without_the_group_annotation_is_ignored_silently(
    annotations: JSON | None,
) -> None:
    loose = pod("loose", group=None, annotations=annotations)
    snapshot = read_snapshot([TEAM, pod_group(), loose])
    assert only_job(snapshot).job.tasks() == ()
    assert snapshot.warnings == (NO_CONFIG_WARNING,)


@pytest.mark.parametrize(
    ("pod_object", "status"),
    [
        (pod("p", phase="Pending"), TaskStatus.PENDING),
        (pod("p", phase="Pending", gates=[{"name": "wait"}]), TaskStatus.GATED),
        (pod("p", phase="Pending", gates=[]), TaskStatus.PENDING),
        (pod("p", phase="Pending", node="node-1"), TaskStatus.BOUND),
        (pod("p", phase="Pending", node="node-1", deleting=True), TaskStatus.RELEASING),
        (pod("p", phase="Pending", deleting=True), TaskStatus.PENDING),
        (pod("p", phase="Running", node="node-1"), TaskStatus.RUNNING),
        (pod("p", phase="Running", node="node-1", deleting=True), TaskStatus.RELEASING),
        (pod("p", phase="Succeeded", node="node-1"), TaskStatus.SUCCEEDED),
        (pod("p", phase="Succeeded", node="node-1", deleting=True), TaskStatus.SUCCEEDED),
        (pod("p", phase="Failed"), TaskStatus.FAILED),
        (pod("p", phase="Unknown", node="node-1"), TaskStatus.UNKNOWN),
        (pod("p", phase=None), TaskStatus.PENDING),
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, TaskStatus.PENDING),
        (
            {"kind": "Pod", "metadata": {"name": "p"}, "status": {"conditions": []}},
            TaskStatus.PENDING,
        ),
    ],
    ids=[
        "pending",
        "pending+gates",
        "pending+empty-gates",
        "pending+node",
        "pending+node+deleting",
        "pending+deleting",
        "running",
        "running+deleting",
        "succeeded",
        "succeeded+deleting",
        "failed",
        "unknown",
        "no-phase",
        "no-status",
        "status-without-phase",
    ],
)
def test_pod_task_status_maps_phase_and_flags(pod_object: JSON, status: TaskStatus) -> None:
    assert pod_task_status(pod_object) is status


@pytest.mark.parametrize("phase", ["Evicted", "running", "Terminating"])
def test_pod_task_status_rejects_an_unknown_phase_naming_the_field(phase: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        pod_task_status(pod("p-0", phase=phase))
    assert str(caught.value) == (
        f"Pod/ml/p-0 status.phase: unknown phase {phase!r} (expected Pending, Running, "
        "Succeeded, Failed or Unknown)"
    )
    assert (caught.value.object, caught.value.field) == ("Pod/ml/p-0", "status.phase")


def test_pod_task_status_rejects_a_non_string_phase() -> None:
    obj = pod("p-0")
    obj["status"]["phase"] = 3
    with pytest.raises(InvalidObject) as caught:
        pod_task_status(obj)
    assert str(caught.value) == "Pod/ml/p-0 status.phase: expected a string, got 3"
    assert caught.value.field == "status.phase"


def test_a_pod_of_an_unknown_phase_is_left_out() -> None:
    snapshot = read_snapshot([TEAM, pod_group(), pod("p-0", phase="Lost"), pod("p-1")])
    assert [task.id for task in snapshot.jobs[0].job.tasks()] == ["p-1"]
    problem = the_problem_of(snapshot, ProblemKind.LEFT_OUT)
    assert str(problem) == (
        "Pod/ml/p-0 status.phase: unknown phase 'Lost' (expected Pending, Running, Succeeded, "
        "Failed or Unknown); left out"
    )
    assert str(problem.object) == "Pod/ml/p-0"


def test_pods_are_ordered_by_creation_time_then_name_whatever_the_listing() -> None:
    pods = [pod(f"w-{i}") for i in range(4)]
    pods[3]["metadata"]["creationTimestamp"] = "2026-11-22T09:00:00Z"
    pods[1]["metadata"]["creationTimestamp"] = "2026-11-22T10:00:00Z"
    for order in (pods, pods[::-1], [pods[2], pods[0], pods[3], pods[1]]):
        job = read_one(pod_group(), *order)
        names = [task.id for pod_set in job.job.pod_sets for task in pod_set.tasks]
        assert names == ["w-3", "w-1", "w-0", "w-2"]

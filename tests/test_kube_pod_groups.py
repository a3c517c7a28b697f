"""Pod groups (``minruntime.kube._pod_groups``): a PodGroup and its pods as a job, its preemptibility, and its sub-group tree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from tests.world import (
    JSON,
    TEAM,
    owner_object,
    owner_reference,
    pod,
    pod_group,
    priority_class,
    queue_object,
    read_one,
    the_problem,
    the_problem_of,
)

from minruntime import (
    PodSet,
    Preemptibility,
    PreemptibilitySource,
    SubGroup,
    Task,
    TaskStatus,
)
from minruntime.kube import (
    SUBGROUP_LABEL,
    Problem,
    ProblemKind,
    read_snapshot,
)
from minruntime.preemptibility import PREEMPTIBILITY_KEY


def test_pod_group_reads_into_a_job_with_id_queue_and_default_pod_set() -> None:
    job = read_one(pod_group(minMember=2), pod("train-0"), pod("train-1", phase="Pending"))
    assert job.job.id == "ml/train"
    assert job.job.queue == "team"
    assert (job.namespace, job.name) == ("ml", "train")
    assert job.job.pod_sets == (
        PodSet("default", 2, (Task("train-0", TaskStatus.RUNNING), Task("train-1", "Pending"))),
    )


def test_pod_group_without_a_queue_is_left_out_naming_the_field() -> None:
    problem = the_problem([TEAM, pod_group(queue=None)], ProblemKind.LEFT_OUT)
    assert str(problem) == "PodGroup/ml/train spec.queue: missing (required); left out"
    assert (str(problem.object), problem.field) == ("PodGroup/ml/train", "spec.queue")


def test_pod_group_with_a_non_string_queue_is_left_out() -> None:
    problem = the_problem([TEAM, pod_group(queue=["team"])], ProblemKind.LEFT_OUT)  # type: ignore[arg-type]
    assert str(problem) == (
        "PodGroup/ml/train spec.queue: expected a string, got ['team']; left out"
    )
    assert problem.field == "spec.queue"


def test_pod_group_without_a_name_is_left_out_with_its_pods() -> None:
    group = pod_group()
    del group["metadata"]["name"]
    snapshot = read_snapshot([TEAM, group, pod("train-0")])
    assert snapshot.jobs == ()
    assert [str(p) for p in snapshot.problems if p.kind is ProblemKind.LEFT_OUT] == [
        "Pod/ml/train-0: pod group 'train' is not in the snapshot; pod ignored",
        "PodGroup/ml/<unnamed> metadata.name: missing (required); left out",
    ]


@pytest.mark.parametrize(("min_member", "expected"), [(None, 1), (0, 0), (1, 1), (8, 8)])
def test_pod_group_min_member_defaults_to_one(min_member: int | None, expected: int) -> None:
    group = pod_group() if min_member is None else pod_group(minMember=min_member)
    (pod_set,) = read_one(group).job.pod_sets
    assert (pod_set.name, pod_set.min_available, pod_set.tasks) == ("default", expected, ())


@pytest.mark.parametrize(
    ("min_member", "message"),
    [
        (-1, "PodGroup/ml/train spec.minMember: must be >= 0, got -1"),
        (1.5, "PodGroup/ml/train spec.minMember: expected an integer, got 1.5"),
        ("2", "PodGroup/ml/train spec.minMember: expected an integer, got '2'"),
        (True, "PodGroup/ml/train spec.minMember: expected an integer, got True"),
    ],
)
def test_pod_group_with_a_bad_min_member_is_left_out(min_member: object, message: str) -> None:
    problem = the_problem([TEAM, pod_group(minMember=min_member)], ProblemKind.LEFT_OUT)
    assert str(problem) == f"{message}; left out"
    assert (str(problem.object), problem.field) == ("PodGroup/ml/train", "spec.minMember")


SUB_GROUPS = [
    {"name": "root", "minSubGroup": 2},
    {"name": "workers", "parent": "root", "minMember": 3},
    {"name": "ps", "parent": "root"},
    {"name": "evaluator", "minMember": 0},
]


def test_only_leaf_sub_groups_become_pod_sets_in_listing_order() -> None:
    job = read_one(
        pod_group(subGroups=SUB_GROUPS, minMember=99),
        pod("w-0", labels={SUBGROUP_LABEL: "workers"}),
        pod("ps-0", labels={SUBGROUP_LABEL: "ps"}, phase="Pending"),
        pod("w-1", labels={SUBGROUP_LABEL: "workers"}),
    )
    assert job.job.pod_sets == (
        PodSet("workers", 3, (Task("w-0"), Task("w-1")), parent="root"),
        PodSet("ps", 1, (Task("ps-0", "Pending"),), parent="root"),
        PodSet("evaluator", 0, ()),
    )
    assert (job.job.sub_groups, job.job.min_sub_group) == ((SubGroup("root", None, 2),), None)


def test_a_pod_labelled_with_a_parent_sub_group_is_left_out_of_its_job() -> None:
    snapshot = read_snapshot(
        [
            TEAM,
            pod_group(subGroups=SUB_GROUPS),
            pod("r-0", labels={SUBGROUP_LABEL: "root"}),
            pod("w-0", labels={SUBGROUP_LABEL: "workers"}),
        ]
    )
    (job,) = snapshot.jobs
    assert (job.left_out, [task.id for task in job.job.tasks()]) == (("r-0",), ["w-0"])
    problem = next(p for p in job.problems if p.kind is ProblemKind.LEFT_OUT)
    assert str(problem) == (
        "Pod/ml/r-0 metadata.labels['kai.scheduler/subgroup-name']: sub-group 'root' of "
        "PodGroup/ml/train holds sub-groups, not pods (its pod sets: 'workers', 'ps', "
        "'evaluator'); left out of its job"
    )
    assert str(problem.object) == "Pod/ml/r-0"
    assert problem.field == "metadata.labels['kai.scheduler/subgroup-name']"
    marked = next(p for p in job.problems if p.kind is ProblemKind.INCOMPLETE)
    assert str(marked) == (
        "PodGroup/ml/train: read without 1 of its pods (r-0), left out: its answers are for "
        "the pods that are read"
    )


def test_a_pod_labelled_with_an_unknown_sub_group_is_left_out_of_its_job() -> None:
    (job,) = read_snapshot(
        [TEAM, pod_group(), pod("p-0", labels={SUBGROUP_LABEL: "nope"}), pod("p-1")]
    ).jobs
    assert (job.left_out, job.task_count) == (("p-0",), 1)
    problem = next(p for p in job.problems if p.kind is ProblemKind.LEFT_OUT)
    assert str(problem) == (
        "Pod/ml/p-0 metadata.labels['kai.scheduler/subgroup-name']: sub-group 'nope' is not a "
        "sub-group of PodGroup/ml/train (its pod sets: 'default'); left out of its job"
    )
    assert problem.field == f"metadata.labels[{SUBGROUP_LABEL!r}]"


def test_an_unlabelled_pod_of_a_pod_group_with_sub_groups_is_left_out_of_its_job() -> None:
    """Without the label a pod is in the 'default' pod set, which sub-groups replace."""
    (job,) = read_snapshot([TEAM, pod_group(subGroups=[{"name": "workers"}]), pod("w-0")]).jobs
    problem = next(p for p in job.problems if p.kind is ProblemKind.LEFT_OUT)
    assert str(problem) == (
        "Pod/ml/w-0 metadata.labels['kai.scheduler/subgroup-name']: missing, but "
        "PodGroup/ml/train has sub-groups ('workers'): the pod must name one; left out of its job"
    )
    assert (str(problem.object), job.left_out) == ("Pod/ml/w-0", ("w-0",))


@pytest.mark.parametrize(
    ("sub_group", "field", "message"),
    [
        (
            {"name": "w", "minMember": -2},
            "spec.subGroups[0].minMember",
            "expected an integer >= 0, got -2",
        ),
        (
            {"name": "w", "minMember": "3"},
            "spec.subGroups[0].minMember",
            "expected an integer >= 0, got '3'",
        ),
        (
            {"name": "w", "minMember": False},
            "spec.subGroups[0].minMember",
            "expected an integer >= 0, got False",
        ),
        ({"name": ""}, "spec.subGroups[0].name", "expected a non-empty string, got ''"),
        ({"minMember": 1}, "spec.subGroups[0].name", "expected a non-empty string, got None"),
        ("workers", "spec.subGroups[0]", "expected an object"),
    ],
)
def test_a_bad_sub_group_leaves_the_pod_group_out_naming_its_index(
    sub_group: object, field: str, message: str
) -> None:
    snapshot = read_snapshot([TEAM, pod_group(subGroups=[sub_group]), pod("train-0")])
    assert snapshot.jobs == ()
    problem = the_problem_of(snapshot, ProblemKind.LEFT_OUT)
    assert str(problem) == (
        f"PodGroup/ml/train {field}: {message}; left out; its 1 pods are left out with it"
    )
    assert (str(problem.object), problem.field) == ("PodGroup/ml/train", field)


@pytest.mark.parametrize(
    ("where", "value", "field"),
    [
        ("labels", 1, "metadata.labels['team']"),
        ("labels", True, "metadata.labels['team']"),
        ("annotations", None, "metadata.annotations['team']"),
        ("annotations", ["a"], "metadata.annotations['team']"),
    ],
)
def test_pod_group_labels_and_annotations_that_are_not_strings_are_ignored(
    where: str, value: object, field: str
) -> None:
    group = pod_group()
    group["metadata"][where] = {"ok": "fine", "team": value}
    (job,) = read_snapshot([TEAM, group]).jobs
    problem = next(p for p in job.problems if p.kind is ProblemKind.IGNORED)
    assert str(problem) == f"PodGroup/ml/train {field}: expected a string, got {value!r}; ignored"
    assert (str(problem.object), problem.field) == ("PodGroup/ml/train", field)


def test_pod_group_labels_that_are_not_an_object_are_ignored() -> None:
    group = pod_group()
    group["metadata"]["labels"] = ["team"]
    (job,) = read_snapshot([TEAM, group]).jobs
    problem = next(p for p in job.problems if p.kind is ProblemKind.IGNORED)
    assert str(problem) == (
        "PodGroup/ml/train metadata.labels: expected an object, got ['team']; ignored"
    )
    assert problem.field == "metadata.labels"


def test_pod_groups_of_another_api_group_and_unknown_kinds_are_ignored() -> None:
    volcano = pod_group("vc")
    volcano["apiVersion"] = "scheduling.volcano.sh/v1beta1"
    other_queue = queue_object("vc-queue")
    other_queue["apiVersion"] = "scheduling.volcano.sh/v1beta1"
    snapshot = read_snapshot(
        [TEAM, volcano, other_queue, owner_object("Deployment", "web"), pod_group("train")]
    )
    assert [job.id for job in snapshot.jobs] == ["ml/train"]
    assert list(snapshot.tree) == ["team"]


def test_snapshot_job_id_counts_and_task_count() -> None:
    job = read_one(
        pod_group(subGroups=[{"name": "a"}, {"name": "b"}]),
        pod("a-0", labels={SUBGROUP_LABEL: "a"}, node="n1"),
        pod("a-1", labels={SUBGROUP_LABEL: "a"}, phase="Pending"),
        pod("b-0", labels={SUBGROUP_LABEL: "b"}, phase="Pending", gates=[{"name": "g"}]),
        pod("b-1", labels={SUBGROUP_LABEL: "b"}, node="n1", deleting=True),
        pod("b-2", labels={SUBGROUP_LABEL: "b"}, phase="Failed"),
    )
    assert job.id == "ml/train"
    assert job.task_count == 5
    assert job.count(TaskStatus.RUNNING) == 1
    assert job.count(TaskStatus.PENDING, TaskStatus.GATED) == 2
    assert job.count(TaskStatus.RELEASING, TaskStatus.FAILED, TaskStatus.RUNNING) == 3
    assert job.count(TaskStatus.SUCCEEDED) == 0
    assert job.count() == 0
    # active: running and releasing (a pod being deleted that still holds its node)
    assert job.active_count == 2
    assert [pod_set.active_count for pod_set in job.job.pod_sets] == [1, 1]


def test_snapshot_job_of_a_pod_group_without_pods_has_no_tasks() -> None:
    job = read_one(pod_group())
    assert (job.task_count, job.count(TaskStatus.RUNNING), job.active_count) == (0, 0, 0)


def owner_chain(
    *,
    replica_set: Mapping[str, str] | None = None,
    replica_set_annotations: Mapping[str, str] | None = None,
    deployment: Mapping[str, str] | None = None,
    deployment_annotations: Mapping[str, str] | None = None,
) -> list[JSON]:
    """A pod owned by a ReplicaSet owned by a Deployment (all in the snapshot)."""
    return [
        pod("train-0", owners=[owner_reference("ReplicaSet", "rs")]),
        owner_object(
            "ReplicaSet",
            "rs",
            labels=replica_set,
            annotations=replica_set_annotations,
            owners=[owner_reference("Deployment", "dep")],
        ),
        owner_object("Deployment", "dep", labels=deployment, annotations=deployment_annotations),
    ]


def test_preemptibility_from_the_spec_field_wins_over_every_label() -> None:
    job = read_one(
        pod_group(
            preemptibility="Non-Preemptible",
            labels={PREEMPTIBILITY_KEY: "preemptible"},
        ),
        *owner_chain(replica_set={PREEMPTIBILITY_KEY: "semi-preemptible"}),
    )
    result = job.preemptibility
    assert (result.value, result.source, result.detail, result.warnings) == (
        Preemptibility.NON_PREEMPTIBLE,
        PreemptibilitySource.EXPLICIT,
        "the explicit field",
        (),
    )
    assert job.job.preemptibility is Preemptibility.NON_PREEMPTIBLE
    assert job.warnings == ()


def test_preemptibility_from_the_nearest_owner_label() -> None:
    job = read_one(
        pod_group(labels={PREEMPTIBILITY_KEY: "non-preemptible"}),
        *owner_chain(
            replica_set={PREEMPTIBILITY_KEY: "Semi-Preemptible"},
            deployment={PREEMPTIBILITY_KEY: "non-preemptible"},
        ),
    )
    result = job.preemptibility
    assert (result.value, result.source, result.detail) == (
        Preemptibility.SEMI_PREEMPTIBLE,
        PreemptibilitySource.OWNER,
        "label on ReplicaSet/rs",
    )
    assert job.job.preemptibility is Preemptibility.SEMI_PREEMPTIBLE


def test_preemptibility_follows_controller_references_up_the_owner_chain() -> None:
    job = read_one(
        pod_group(), *owner_chain(deployment_annotations={PREEMPTIBILITY_KEY: "preemptible"})
    )
    result = job.preemptibility
    assert (result.value, result.source, result.detail, result.warnings) == (
        Preemptibility.PREEMPTIBLE,
        PreemptibilitySource.OWNER,
        "annotation on Deployment/dep",
        (),
    )


def test_preemptibility_follows_the_controller_reference_before_other_owners() -> None:
    bystander = owner_object(
        "ConfigMap", "bystander", api_version="v1", labels={PREEMPTIBILITY_KEY: "non-preemptible"}
    )
    controlled = pod(
        "train-0",
        owners=[
            owner_reference("ConfigMap", "bystander", controller=False),
            owner_reference("ReplicaSet", "rs"),
        ],
    )
    replica_set = owner_object("ReplicaSet", "rs", labels={PREEMPTIBILITY_KEY: "preemptible"})
    job = read_one(pod_group(), controlled, replica_set, bystander)
    assert (job.preemptibility.value, job.preemptibility.detail) == (
        Preemptibility.PREEMPTIBLE,
        "label on ReplicaSet/rs",
    )


def test_preemptibility_takes_the_first_owner_reference_when_none_is_a_controller() -> None:
    first = owner_object("Workflow", "wf", labels={PREEMPTIBILITY_KEY: "non-preemptible"})
    second = owner_object("ReplicaSet", "rs", labels={PREEMPTIBILITY_KEY: "preemptible"})
    owned = pod(
        "train-0",
        owners=[
            owner_reference("Workflow", "wf", controller=False),
            owner_reference("ReplicaSet", "rs", controller=False),
        ],
    )
    job = read_one(pod_group(), owned, first, second)
    assert job.preemptibility.detail == "label on Workflow/wf"


def test_an_invalid_value_on_the_nearest_owner_falls_through_with_a_warning() -> None:
    job = read_one(
        pod_group(),
        *owner_chain(
            replica_set={PREEMPTIBILITY_KEY: "soon"},
            deployment_annotations={PREEMPTIBILITY_KEY: "Non-Preemptible"},
        ),
    )
    result = job.preemptibility
    assert (result.value, result.source, result.detail, result.warnings) == (
        Preemptibility.NON_PREEMPTIBLE,
        PreemptibilitySource.OWNER,
        "annotation on Deployment/dep",
        ("skipped invalid preemptibility 'soon' in label on ReplicaSet/rs",),
    )
    assert job.warnings == (
        "PodGroup/ml/train: skipped invalid preemptibility 'soon' in label on ReplicaSet/rs",
    )


def test_an_empty_preemptibility_label_counts_as_absent() -> None:
    job = read_one(
        pod_group(annotations={PREEMPTIBILITY_KEY: "semi-preemptible"}),
        *owner_chain(replica_set={PREEMPTIBILITY_KEY: ""}),
    )
    result = job.preemptibility
    assert (result.value, result.detail, result.warnings) == (
        Preemptibility.SEMI_PREEMPTIBLE,
        "annotation on PodGroup/train",
        (),
    )


def test_an_owner_missing_from_the_snapshot_ends_the_chain() -> None:
    orphan = pod("train-0", owners=[owner_reference("ReplicaSet", "not-here")])
    job = read_one(pod_group(labels={PREEMPTIBILITY_KEY: "non-preemptible"}), orphan)
    assert (job.preemptibility.value, job.preemptibility.detail) == (
        Preemptibility.NON_PREEMPTIBLE,
        "label on PodGroup/train",
    )


def test_a_cycle_of_owner_references_ends_without_looping() -> None:
    a = owner_object("Thing", "a", owners=[owner_reference("Thing", "b")])
    b = owner_object("Thing", "b", owners=[owner_reference("Thing", "a")])
    owned = pod("train-0", owners=[owner_reference("Thing", "a")])
    job = read_one(pod_group(), owned, a, b, kind_defaults={"PodGroup": "semi-preemptible"})
    assert (job.preemptibility.source, job.preemptibility.detail) == (
        PreemptibilitySource.KIND_DEFAULT,
        "the default for kind 'PodGroup'",
    )


def test_the_semi_preemptible_label_on_the_pod_group_is_read() -> None:
    job = read_one(pod_group(labels={PREEMPTIBILITY_KEY: "semi-preemptible"}), pod("train-0"))
    result = job.preemptibility
    assert (result.value, result.source, result.detail, result.warnings) == (
        Preemptibility.SEMI_PREEMPTIBLE,
        PreemptibilitySource.OWNER,
        "label on PodGroup/train",
        (),
    )
    assert job.job.preemptibility is Preemptibility.SEMI_PREEMPTIBLE
    assert job.warnings == ()


def test_the_semi_preemptible_annotation_on_the_pod_group_is_read() -> None:
    job = read_one(pod_group(annotations={PREEMPTIBILITY_KEY: "semi-preemptible"}))
    result = job.preemptibility
    assert (result.value, result.source, result.detail) == (
        Preemptibility.SEMI_PREEMPTIBLE,
        PreemptibilitySource.OWNER,
        "annotation on PodGroup/train",
    )


def test_the_owners_come_before_the_pod_group_label() -> None:
    job = read_one(
        pod_group(labels={PREEMPTIBILITY_KEY: "semi-preemptible"}),
        *owner_chain(deployment={PREEMPTIBILITY_KEY: "preemptible"}),
    )
    assert job.preemptibility.detail == "label on Deployment/dep"


def test_the_pod_group_label_comes_before_the_pod_label() -> None:
    job = read_one(
        pod_group(labels={PREEMPTIBILITY_KEY: "semi-preemptible"}),
        pod("train-0", labels={PREEMPTIBILITY_KEY: "non-preemptible"}),
    )
    assert (job.preemptibility.value, job.preemptibility.detail) == (
        Preemptibility.SEMI_PREEMPTIBLE,
        "label on PodGroup/train",
    )


@pytest.mark.parametrize(
    ("where", "detail"), [("labels", "label on the pod"), ("annotations", "annotation on the pod")]
)
def test_preemptibility_from_the_pod_itself(where: str, detail: str) -> None:
    member = pod("train-0")
    member["metadata"].setdefault(where, {})[PREEMPTIBILITY_KEY] = "non-preemptible"
    job = read_one(pod_group(), member)
    result = job.preemptibility
    assert (result.value, result.source, result.detail, result.warnings) == (
        Preemptibility.NON_PREEMPTIBLE,
        PreemptibilitySource.POD,
        detail,
        (),
    )


def test_preemptibility_falls_back_to_the_legacy_rule_with_a_warning() -> None:
    job = read_one(priority_class("inference", 125), pod_group(priorityClassName="inference"))
    result = job.preemptibility
    assert (result.value, result.source, result.detail) == (
        Preemptibility.NON_PREEMPTIBLE,
        PreemptibilitySource.LEGACY_PRIORITY,
        "legacy rule: priority 125 >= 100",
    )
    assert result.warnings == (
        "no preemptibility set; legacy rule: priority 125 >= 100 gives non-preemptible",
    )


def test_legacy_priority_threshold_argument_moves_the_legacy_boundary() -> None:
    job = read_one(pod_group(), legacy_priority_threshold=50)
    result = job.preemptibility
    assert (result.value, result.source, result.detail) == (
        Preemptibility.NON_PREEMPTIBLE,
        PreemptibilitySource.LEGACY_PRIORITY,
        "legacy rule: priority 50 >= 50",
    )
    below = read_one(pod_group(), legacy_priority_threshold=51).preemptibility
    assert (below.value, below.detail) == (
        Preemptibility.PREEMPTIBLE,
        "legacy rule: priority 50 < 51",
    )


def test_kind_defaults_prefer_kind_dot_group_and_the_nearest_owner() -> None:
    job = read_one(
        pod_group(),
        *owner_chain(),
        kind_defaults={
            "ReplicaSet": "preemptible",
            "ReplicaSet.apps": "semi-preemptible",
            "Deployment.apps": "non-preemptible",
        },
    )
    result = job.preemptibility
    assert (result.value, result.source, result.detail) == (
        Preemptibility.SEMI_PREEMPTIBLE,
        PreemptibilitySource.KIND_DEFAULT,
        "the default for kind 'ReplicaSet.apps'",
    )


def test_an_invalid_kind_default_is_skipped_with_a_warning() -> None:
    job = read_one(
        pod_group(),
        *owner_chain(),
        kind_defaults={"ReplicaSet": "bad", "Deployment": "non-preemptible"},
    )
    result = job.preemptibility
    assert (result.value, result.source, result.detail, result.warnings) == (
        Preemptibility.NON_PREEMPTIBLE,
        PreemptibilitySource.KIND_DEFAULT,
        "the default for kind 'Deployment'",
        ("skipped invalid preemptibility 'bad' in the default for kind 'ReplicaSet'",),
    )


def test_labels_come_before_kind_defaults() -> None:
    job = read_one(
        pod_group(),
        pod("train-0", labels={PREEMPTIBILITY_KEY: "preemptible"}),
        kind_defaults={"PodGroup": "non-preemptible"},
    )
    assert job.preemptibility.source is PreemptibilitySource.POD


def test_owner_labels_that_are_not_strings_are_ignored() -> None:
    objects = owner_chain()
    objects[1]["metadata"]["labels"] = {PREEMPTIBILITY_KEY: 1}
    (job,) = read_snapshot([TEAM, pod_group(), *objects]).jobs
    problem = next(p for p in job.problems if p.kind is ProblemKind.IGNORED)
    assert str(problem) == (
        "ReplicaSet/ml/rs metadata.labels['kai.scheduler/preemptibility']: expected a string, "
        "got 1; ignored"
    )
    assert str(problem.object) == "ReplicaSet/ml/rs"


def label(value: str) -> dict[str, str]:
    return {"kai.scheduler/preemptibility": value}


def test_pods_that_disagree_on_preemptibility_warn_and_the_first_by_creation_decides() -> None:
    older = dict(pod("b-older", labels=label("non-preemptible")))
    older["metadata"]["creationTimestamp"] = "2026-11-22T10:00:00Z"
    newer = dict(pod("a-newer", labels=label("preemptible")))
    newer["metadata"]["creationTimestamp"] = "2026-11-22T11:00:00Z"
    for order in ([newer, older], [older, newer]):
        job = read_one(pod_group(), *order)
        assert str(job.preemptibility.value) == "non-preemptible"
        assert job.warnings[0] == (
            "PodGroup/ml/train: its pods disagree on kai.scheduler/preemptibility "
            "('non-preemptible' on b-older; 'preemptible' on a-newer); the first pod (by "
            "creation time, then name) decides"
        )


LEGACY_WARNING = (
    "PodGroup/ml/train: no preemptibility set; legacy rule: priority 50 < 100 gives preemptible"
)


LEADER_WORKERS = [  # the reference design's 2-level example, sets listed before their leaves
    {"name": "decode", "minSubGroup": 2},
    {"name": "prefill", "minSubGroup": 1},
    {"name": "prefill-workers", "parent": "prefill", "minMember": 4},
    {"name": "decode-leaders", "parent": "decode", "minMember": 1},
    {"name": "decode-workers", "parent": "decode", "minMember": 4},
    {"name": "prefill-leaders", "parent": "prefill", "minMember": 1},
]


def test_a_pod_group_tree_becomes_the_jobs_sets_and_pod_sets_in_spec_walk_order() -> None:
    job = read_one(
        pod_group(subGroups=LEADER_WORKERS, minSubGroup=2),
        pod("dl-0", labels={SUBGROUP_LABEL: "decode-leaders"}),
        pod("pw-0", labels={SUBGROUP_LABEL: "prefill-workers"}),
    )
    assert job.warnings == (LEGACY_WARNING,)
    assert job.job.sub_groups == (SubGroup("decode", None, 2), SubGroup("prefill", None, 1))
    assert job.job.min_sub_group == 2
    assert [
        (p.name, p.min_available, p.parent, [t.id for t in p.tasks]) for p in job.job.pod_sets
    ] == [
        ("decode-leaders", 1, "decode", ["dl-0"]),
        ("decode-workers", 4, "decode", []),
        ("prefill-workers", 4, "prefill", ["pw-0"]),
        ("prefill-leaders", 1, "prefill", []),
    ]


def bad_tree(sub_groups: list[JSON], **spec: Any) -> Problem:
    snapshot = read_snapshot([TEAM, pod_group(subGroups=sub_groups, **spec), pod("other", "x")])
    assert snapshot.jobs == ()
    return the_problem_of(snapshot, ProblemKind.LEFT_OUT, skip="other")


@pytest.mark.parametrize(
    ("sub_groups", "spec", "field", "message"),
    [
        (
            [
                {"name": "a", "parent": "b"},
                {"name": "b", "parent": "a"},
                {"name": "l", "parent": "a"},
            ],
            {},
            "spec.subGroups[0]",
            "sub-group 'a': its parents form a cycle",
        ),
        (
            [{"name": "l", "parent": "ghost"}],
            {},
            "spec.subGroups[0]",
            "sub-group 'l': its parent 'ghost' is not a sub-group set of the job",
        ),
    ],
)
def test_a_malformed_tree_leaves_the_pod_group_out_naming_it_and_the_sub_group(
    sub_groups: list[JSON], spec: dict[str, Any], field: str, message: str
) -> None:
    problem = bad_tree(sub_groups, **spec)
    assert str(problem) == f"PodGroup/ml/train {field}: {message}; left out"
    assert (str(problem.object), problem.field) == ("PodGroup/ml/train", field)


@pytest.mark.parametrize(
    ("sub_groups", "spec", "field", "message"),
    [
        (
            [{"name": "s", "minSubGroup": 3}, {"name": "l", "parent": "s"}],
            {},
            "spec.subGroups[0].minSubGroup",
            "sub-group 's' needs 3 satisfied sub-groups, but has 1 sub-group(s) under it",
        ),
        (
            [{"name": "a"}, {"name": "b"}],
            {"minSubGroup": 3},
            "spec.minSubGroup",
            "the job needs 3 satisfied sub-groups, but has 2 top-level sub-group(s)",
        ),
    ],
)
def test_a_min_sub_group_above_the_children_is_read_as_given_with_a_warning(
    sub_groups: list[JSON], spec: dict[str, Any], field: str, message: str
) -> None:
    """The reference admits it with a warning (three of its own validation cases): the set can
    never be satisfied, and the job is kept."""
    group = pod_group("train", subGroups=sub_groups, **spec)
    leaf = sub_groups[-1]["name"]
    snapshot = read_snapshot(
        [queue_object("team"), group, pod("train-0", labels={SUBGROUP_LABEL: leaf})]
    )
    (entry,) = snapshot.jobs
    assert entry.id == "ml/train"
    (problem,) = [p for p in snapshot.every_problem() if p.field == field]
    assert str(problem) == (
        f"PodGroup/ml/train {field}: {message}; read as given: it can never be satisfied, so "
        "the job is short there"
    )
    assert problem.kind is ProblemKind.SUSPECT


@pytest.mark.parametrize(
    ("sub_groups", "spec", "field", "message"),
    [
        (
            [{"name": "s", "minMember": 2, "minSubGroup": 1}, {"name": "l", "parent": "s"}],
            {},
            "spec.subGroups[0].minSubGroup",
            "spec.subGroups[0]: sub-group 's' sets both minMember and minSubGroup (a leaf holds "
            "pods and needs minMember of them; a set holds sub-groups and needs minSubGroup of "
            "them)",
        ),
        (
            [{"name": "l", "minSubGroup": 1}],
            {},
            "spec.subGroups[0].minSubGroup",
            "spec.subGroups[0].minSubGroup: sub-group 'l' has no sub-groups under it (a leaf "
            "holds pods: give it minMember)",
        ),
        (
            [{"name": "a"}, {"name": "a"}],
            {},
            "spec.subGroups[1].name",
            "spec.subGroups[1].name: sub-group 'a' is listed twice (also at spec.subGroups[0])",
        ),
        (
            [{"name": "a"}],
            {"minSubGroup": 1, "minMember": 4},
            "spec.minSubGroup",
            "spec.minSubGroup: set together with spec.minMember 4 (they exclude each other: the "
            "job needs minSubGroup of its sub-groups, or minMember pods)",
        ),
        (
            [{"name": "s", "minSubGroup": "2"}, {"name": "l", "parent": "s"}],
            {},
            "spec.subGroups[0].minSubGroup",
            "spec.subGroups[0].minSubGroup: expected an integer >= 0, got '2'",
        ),
        (
            [{"name": "s", "minSubGroup": -1}, {"name": "l", "parent": "s"}],
            {},
            "spec.subGroups[0].minSubGroup",
            "spec.subGroups[0].minSubGroup: expected an integer >= 0, got -1",
        ),
        (
            [{"name": "s", "minSubGroup": True}, {"name": "l", "parent": "s"}],
            {},
            "spec.subGroups[0].minSubGroup",
            "spec.subGroups[0].minSubGroup: expected an integer >= 0, got True",
        ),
        (
            [{"name": "s", "minSubGroup": 2**31}, {"name": "l", "parent": "s"}],
            {},
            "spec.subGroups[0].minSubGroup",
            "spec.subGroups[0].minSubGroup: 2147483648 is out of range (expected a 32-bit "
            "integer, -2147483648 to 2147483647)",
        ),
        (
            [{"name": "l", "parent": 5}],
            {},
            "spec.subGroups[0].parent",
            "spec.subGroups[0].parent: expected a sub-group name, got 5",
        ),
        (
            [{"name": "a"}],
            {"minSubGroup": -2},
            "spec.minSubGroup",
            "spec.minSubGroup: must be >= 0, got -2",
        ),
        (
            [{"name": "a"}],
            {"minSubGroup": 1.5},
            "spec.minSubGroup",
            "spec.minSubGroup: expected an integer, got 1.5",
        ),
    ],
)
def test_a_bad_sub_group_field_leaves_the_pod_group_out_naming_the_field(
    sub_groups: list[JSON], spec: dict[str, Any], field: str, message: str
) -> None:
    problem = bad_tree(sub_groups, **spec)
    assert str(problem) == f"PodGroup/ml/train {message}; left out"
    assert (str(problem.object), problem.field) == ("PodGroup/ml/train", field)


def test_a_set_with_min_member_and_a_min_sub_group_without_sub_groups_are_warned_about() -> None:
    job = read_one(
        pod_group(subGroups=[{"name": "s", "minMember": 8}, {"name": "l", "parent": "s"}])
    )
    assert job.warnings == (
        "PodGroup/ml/train spec.subGroups[0].minMember: sub-group 's' holds sub-groups, so its "
        "minMember 8 is not used (minSubGroup says how many of them it needs; unset, all)",
        LEGACY_WARNING,
    )
    assert job.job.sub_groups == (SubGroup("s"),)
    flat = read_one(pod_group(minSubGroup=1))
    assert flat.warnings == (
        "PodGroup/ml/train: spec.minSubGroup applies only with spec.subGroups; ignored",
        LEGACY_WARNING,
    )
    assert (flat.job.sub_groups, flat.job.min_sub_group) == ((), None)

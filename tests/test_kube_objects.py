"""Which objects the reader looks at (``minruntime.kube._objects``): kinds, API versions, duplicates; and the test world's fixtures against the reference's CRD schemas."""

from __future__ import annotations

import jsonschema
import pytest
from tests.world import (
    JSON,
    NO_CONFIG_WARNING,
    TEAM,
    crd,
    only_job,
    pod,
    pod_group,
    priority_class,
    queue_object,
    shard,
    the_problem,
    the_problem_of,
)

from minruntime import (
    InvalidQueueTree,
    MinRuntime,
)
from minruntime.kube import (
    ProblemKind,
    read_snapshot,
)


@pytest.mark.parametrize(
    "obj",
    [
        queue_object("team", parentQueue="org", preemptMinRuntime="10m", reclaimMinRuntime="-1"),
        pod_group(
            priorityClassName="train",
            minMember=2,
            preemptibility="non-preemptible",
            subGroups=[{"name": "root"}, {"name": "workers", "parent": "root", "minMember": 3}],
        ),
        shard(
            minRuntime={"preemptMinRuntime": "5m", "reclaimMinRuntime": "1h"},
            plugins={"minruntime": {"arguments": {"reclaimResolveMethod": "queue"}}},
        ),
    ],
    ids=["Queue", "PodGroup", "SchedulingShard"],
)
def test_fixtures_are_valid_against_the_reference_crd_schemas(obj: JSON) -> None:
    validator = jsonschema.Draft4Validator(crd(obj["kind"]).schema)
    assert [error.message for error in validator.iter_errors(obj)] == []
    assert obj["apiVersion"].split("/")[0] in {"scheduling.run.ai", "kai.scheduler"}


def test_crd_schema_rejects_a_fixture_of_the_wrong_shape() -> None:
    """The schema check above has teeth: a string minMember is refused."""
    validator = jsonschema.Draft4Validator(crd("PodGroup").schema)
    errors = [error.message for error in validator.iter_errors(pod_group(minMember="2"))]
    assert errors == ["'2' is not of type 'integer'"]


def without(obj: JSON, key: str) -> JSON:
    return {k: v for k, v in obj.items() if k != key}


def test_a_queue_without_api_version_is_read_with_a_warning() -> None:
    snapshot = read_snapshot([without(queue_object("team", reclaimMinRuntime="7m"), "apiVersion")])
    assert snapshot.tree["team"].reclaim_min_runtime == MinRuntime("7m")
    assert snapshot.warnings[0] == "Queue/team: no apiVersion; read as scheduling.run.ai/v2"


def test_a_pod_group_without_api_version_is_read_with_a_warning() -> None:
    snapshot = read_snapshot([TEAM, without(pod_group(), "apiVersion"), pod("train-0")])
    assert [job.id for job in snapshot.jobs] == ["ml/train"]
    assert snapshot.warnings[0] == (
        "PodGroup/ml/train: no apiVersion; read as scheduling.run.ai/v2alpha2"
    )


@pytest.mark.parametrize(
    ("api_version", "expected"),
    [
        ("scheduling.run.ai/v1", "scheduling.run.ai/v2"),
        ("scheduling.run.ai", "scheduling.run.ai/v2"),
        ("Scheduling.Run.AI/v2", "scheduling.run.ai/v2"),
        ("scheduling.run.ai/v2alpha2", "scheduling.run.ai/v2"),
    ],
)
def test_a_queue_of_an_unknown_scheduler_api_version_is_left_out(
    api_version: str, expected: str
) -> None:
    queue = dict(queue_object("team"), apiVersion=api_version)
    snapshot = read_snapshot([queue, queue_object("other")])
    assert list(snapshot.tree) == ["other"]
    problem = the_problem_of(snapshot, ProblemKind.LEFT_OUT)
    assert str(problem) == (
        f"Queue/team apiVersion: {api_version!r} is not one the library reads "
        f"(expected {expected!r}); left out"
    )
    assert problem.field == "apiVersion"


def test_a_queue_of_another_scheduler_is_ignored_with_a_warning() -> None:
    volcano = dict(queue_object("default"), apiVersion="scheduling.volcano.sh/v1beta1")
    snapshot = read_snapshot([TEAM, volcano])
    assert list(snapshot.tree) == ["team"]
    assert snapshot.warnings[0] == (
        "Queue/default: apiVersion 'scheduling.volcano.sh/v1beta1' is not the scheduler's "
        "(scheduling.run.ai/v2); ignored"
    )


@pytest.mark.parametrize(
    ("obj", "kind", "meant"),
    [
        (dict(queue_object("team"), kind="queue"), "queue", "Queue"),
        (dict(pod_group(), kind="Podgroup"), "Podgroup", "PodGroup"),
        (dict(pod("p"), kind="POD"), "POD", "Pod"),
        (
            without(dict(priority_class("x", 1), kind="priorityClass"), "apiVersion"),
            "priorityClass",
            "PriorityClass",
        ),
    ],
)
def test_a_kind_in_the_wrong_case_is_left_out(obj: JSON, kind: str, meant: str) -> None:
    problem = the_problem([TEAM, obj], ProblemKind.LEFT_OUT)
    assert str(problem).endswith(
        f" kind: {kind!r} is not a kind (kinds are case-sensitive: expected {meant!r}); left out"
    )
    assert problem.field == "kind"


def test_a_lower_case_kind_of_another_api_group_is_not_ours() -> None:
    other = {"apiVersion": "example.com/v1", "kind": "queue", "metadata": {"name": "q"}}
    assert read_snapshot([TEAM, other]).warnings == (NO_CONFIG_WARNING,)


def test_an_object_without_a_kind_is_ignored_with_a_warning() -> None:
    snapshot = read_snapshot([TEAM, without(pod("stray"), "kind")])
    assert snapshot.warnings[0] == "object/ml/stray: an object without a kind; ignored"


def test_an_identical_duplicate_is_read_once_with_a_warning() -> None:
    twin = pod("train-0")
    snapshot = read_snapshot([TEAM, pod_group(), twin, pod("train-1"), twin, twin])
    assert only_job(snapshot).task_count == 2
    assert "Pod/ml/train-0: listed 3 times (identical); read once" in snapshot.warnings


@pytest.mark.parametrize(
    ("first", "second", "name"),
    [
        (pod_group(minMember=1), pod_group(minMember=2), "PodGroup/ml/train"),
        (pod("train-0"), pod("train-0", phase="Pending"), "Pod/ml/train-0"),
        (priority_class("train", 50), priority_class("train", 60), "PriorityClass/train"),
    ],
)
def test_two_different_objects_of_one_name_are_both_left_out(
    first: JSON, second: JSON, name: str
) -> None:
    snapshot = read_snapshot([TEAM, pod_group(), first, second])
    problem = the_problem_of(snapshot, ProblemKind.LEFT_OUT)
    assert str(problem) == (
        f"{name}: the snapshot holds two different objects of this name (a snapshot must hold "
        "one version of each object); both left out"
    )
    assert str(problem.object) == name


def test_conflicting_queue_duplicates_are_reported_with_the_tree() -> None:
    with pytest.raises(InvalidQueueTree) as caught:
        read_snapshot([TEAM, queue_object("team", reclaimMinRuntime="1m")])
    assert caught.value.problems == ("duplicate queue name 'team' (2 queues)",)


def test_conflicting_queue_duplicates_in_a_list_are_reported_with_the_tree() -> None:
    # as outside a List: the kind that decides is the queue's, not the List's
    listed = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [TEAM, queue_object("team", reclaimMinRuntime="1m")],
    }
    with pytest.raises(InvalidQueueTree) as caught:
        read_snapshot([listed])
    assert caught.value.problems == ("duplicate queue name 'team' (2 queues)",)


def test_duplicates_of_every_kind_keep_the_order_they_are_met_in() -> None:
    # pods are checked for duplicates at once, after the rest; when two share a name, the
    # objects are read again, each checked as met: the problems are those of one reading
    twin = pod("train-0")
    objects = [
        TEAM,
        priority_class("a", 1),
        pod_group(),
        without(pod("stray"), "kind"),
        twin,
        priority_class("a", 1),
        pod("train-1"),
        twin,
        pod("train-2"),
        pod("train-2", phase="Pending"),
        priority_class("b", 1),
        priority_class("b", 2),
    ]
    snapshot = read_snapshot(iter(objects))  # any iterable: read twice, so listed once
    both = "the snapshot holds two different objects of this name (a snapshot must hold one "
    assert snapshot.warnings == (
        "object/ml/stray: an object without a kind; ignored",
        f"Pod/ml/train-2: {both}version of each object); both left out",
        f"PriorityClass/b: {both}version of each object); both left out",
        "PriorityClass/a: listed 2 times (identical); read once",
        "Pod/ml/train-0: listed 2 times (identical); read once",
        NO_CONFIG_WARNING,
    )
    assert [task.id for task in only_job(snapshot).job.tasks()] == ["train-0", "train-1"]

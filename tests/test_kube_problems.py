"""One bad object never hides the rest (docs/spec/kubernetes.md, docs/spec/sub-group-trees.md):
the reader leaves out what it cannot read, ignores a bad value, and returns each as a Problem
naming the object; ``strict`` refuses any; stamps after now are named.

The base is the bundled example cluster (real-shaped: ``kubectl get -o json`` objects), with one
bad object of each kind added."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from importlib import resources
from typing import Any
from unittest import mock

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from tests.world import pod, pod_group, queue_object

from minruntime import InvalidSnapshot, UnknownJob
from minruntime.kube import (
    LAST_EVICTION_ANNOTATION,
    SUBGROUP_LABEL,
    ObjectRef,
    Problem,
    ProblemKind,
    _pods,
    read_snapshot,
)
from minruntime.kube._pods import Like, PodRecord, _read_pod_carefully, read_pod
from minruntime.kube._resources import NO_DEVICE_MEMORY
from minruntime.starttime import START_TIME_ANNOTATION

JSON = dict[str, Any]
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
EXAMPLE: list[JSON] = json.loads(
    resources.files("minruntime").joinpath("data/example-cluster.json").read_text(encoding="utf-8")
)["items"]


def example_pod(name: str) -> JSON:
    (found,) = (o for o in EXAMPLE if o["kind"] == "Pod" and o["metadata"]["name"] == name)
    return copy.deepcopy(found)


def bad_objects() -> list[Any]:
    """One bad object of each kind the contract names."""
    ghost = example_pod("llama-sft-workers-3")
    ghost["metadata"]["name"] = "llama-sft-ghost-0"
    ghost["metadata"]["labels"][SUBGROUP_LABEL] = "ghost"  # a sub-group llama-sft lacks
    at_set = example_pod("llm-serve-disagg-router-0")
    at_set["metadata"]["name"] = "llm-serve-disagg-stray-0"
    at_set["metadata"]["labels"][SUBGROUP_LABEL] = "decode"  # a set, not a leaf
    cycle = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "loop", "namespace": "nlp-team"},
        "spec": {
            "queue": "research-nlp",
            "subGroups": [
                {"name": "a", "parent": "b"},
                {"name": "b", "parent": "a"},
                {"name": "leaf", "parent": "a", "minMember": 1},
            ],
        },
    }
    cycle_pod = example_pod("llama-sft-workers-3")
    cycle_pod["metadata"]["name"] = "loop-0"
    cycle_pod["metadata"]["annotations"]["pod-group-name"] = "loop"
    nameless = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {}}
    priority = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "odd"},
        "value": 10,
        "globalDefault": "yes",  # a bad value: ignored
    }
    return [ghost, at_set, cycle, cycle_pod, nameless, "not an object", priority]


def test_one_bad_object_of_each_kind_leaves_everything_else_read() -> None:
    good = read_snapshot(EXAMPLE, now=NOW)
    snapshot = read_snapshot([*EXAMPLE, *bad_objects()], now=NOW)
    assert [job.id for job in snapshot.jobs] == [job.id for job in good.jobs]
    assert [job.job for job in snapshot.jobs] == [job.job for job in good.jobs]
    assert list(snapshot.tree) == list(good.tree)
    assert dict(snapshot.priority_classes) == {**good.priority_classes, "odd": 10}
    assert snapshot.find("nlp-team/llama-sft").left_out == ("llama-sft-ghost-0",)
    assert snapshot.find("nlp-team/llm-serve-disagg").left_out == ("llm-serve-disagg-stray-0",)
    with pytest.raises(UnknownJob):
        snapshot.find("nlp-team/loop")
    new = [p for p in snapshot.every_problem() if p not in set(good.every_problem())]
    assert [(p.kind, str(p.object) if p.object else None, p.field) for p in new] == [
        (ProblemKind.LEFT_OUT, None, None),
        (ProblemKind.LEFT_OUT, "Queue/<unnamed>", "metadata.name"),
        (ProblemKind.IGNORED, "PriorityClass/odd", "globalDefault"),
        (ProblemKind.LEFT_OUT, "PodGroup/nlp-team/loop", "spec.subGroups[0]"),
        (
            ProblemKind.LEFT_OUT,
            "Pod/nlp-team/llama-sft-ghost-0",
            "metadata.labels['kai.scheduler/subgroup-name']",
        ),
        (ProblemKind.INCOMPLETE, "PodGroup/nlp-team/llama-sft", None),
        (
            ProblemKind.LEFT_OUT,
            "Pod/nlp-team/llm-serve-disagg-stray-0",
            "metadata.labels['kai.scheduler/subgroup-name']",
        ),
        (ProblemKind.INCOMPLETE, "PodGroup/nlp-team/llm-serve-disagg", None),
    ]
    assert [p.message for p in new] == [
        "snapshot: expected a Kubernetes object, found str 'not an object'; left out",
        "Queue/<unnamed> metadata.name: missing (required); left out",
        "PriorityClass/odd globalDefault: expected a boolean, got 'yes'; ignored",
        "PodGroup/nlp-team/loop spec.subGroups[0]: sub-group 'a': its parents form a cycle; "
        "left out; its 1 pods are left out with it",
        "Pod/nlp-team/llama-sft-ghost-0 metadata.labels['kai.scheduler/subgroup-name']: "
        "sub-group 'ghost' is not a sub-group of PodGroup/nlp-team/llama-sft (its pod sets: "
        "'launcher', 'workers'); left out of its job",
        "PodGroup/nlp-team/llama-sft: read without 1 of its pods (llama-sft-ghost-0), left "
        "out: its answers are for the pods that are read",
        "Pod/nlp-team/llm-serve-disagg-stray-0 metadata.labels['kai.scheduler/subgroup-name']: "
        "sub-group 'decode' of PodGroup/nlp-team/llm-serve-disagg holds sub-groups, not pods "
        "(its pod sets: 'decode-0', 'decode-1', 'router'); left out of its job",
        "PodGroup/nlp-team/llm-serve-disagg: read without 1 of its pods "
        "(llm-serve-disagg-stray-0), left out: its answers are for the pods that are read",
    ]
    assert snapshot.left_out == 5


def test_strict_reading_refuses_every_problem_at_once() -> None:
    with pytest.raises(InvalidSnapshot) as caught:
        read_snapshot([*EXAMPLE, *bad_objects()], now=NOW, strict=True)
    snapshot = read_snapshot([*EXAMPLE, *bad_objects()], now=NOW)
    lenient = tuple(snapshot.every_problem())
    assert caught.value.problems == tuple(problem.under_strict() for problem in lenient)
    assert len(caught.value.problems) == 26
    assert str(caught.value).startswith("the snapshot has 26 problems (strict reading):\n  - ")
    # each says what strict reading does: the snapshot is refused, nothing "ignored"
    assert [str(problem) for problem in caught.value.problems[:2]] == [
        "snapshot: expected a Kubernetes object, found str 'not an object'; the snapshot is "
        "refused (strict reading)",
        "Queue/<unnamed> metadata.name: missing (required); the snapshot is refused (strict "
        "reading)",
    ]
    assert all(
        problem.message == f"{lenient_problem.detail}; the snapshot is refused (strict reading)"
        for problem, lenient_problem in zip(caught.value.problems, lenient, strict=True)
    )
    assert isinstance(caught.value, ValueError)


def test_strict_reading_of_a_clean_snapshot_is_the_snapshot() -> None:
    objects: list[JSON] = [
        {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "scheduler-config"},
            "data": {"config.yaml": json.dumps({"tiers": [{"plugins": [{"name": "proportion"}]}]})},
        },
    ]
    # a configuration without a minruntime plugin says it used the defaults: a problem
    with pytest.raises(InvalidSnapshot):
        read_snapshot(objects, strict=True)
    objects[1]["data"]["config.yaml"] = json.dumps(
        {"tiers": [{"plugins": [{"name": "minruntime", "arguments": {}}]}]}
    )
    assert list(read_snapshot(objects, strict=True).tree) == ["q"]


def group_with(annotations: JSON) -> list[JSON]:
    return [
        {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
        {
            "apiVersion": "scheduling.run.ai/v2alpha2",
            "kind": "PodGroup",
            "metadata": {"name": "train", "namespace": "ml", "annotations": annotations},
            "spec": {"queue": "q", "preemptibility": "preemptible"},
        },
    ]


@pytest.mark.parametrize(
    ("key", "field"),
    [
        (START_TIME_ANNOTATION, "metadata.annotations['kai.scheduler/last-start-timestamp']"),
        (LAST_EVICTION_ANNOTATION, "metadata.annotations['kai.scheduler/last-eviction-timestamp']"),
    ],
)
def test_a_stamp_after_now_is_used_as_given_with_a_problem_naming_the_object(
    key: str, field: str
) -> None:
    (job,) = read_snapshot(group_with({key: "2026-11-22T12:30:00Z"}), now=NOW).jobs
    (problem,) = job.problems
    assert problem == Problem(
        kind=ProblemKind.SUSPECT,
        object=ObjectRef(kind="PodGroup", namespace="ml", name="train"),
        field=field,
        detail=f"PodGroup/ml/train {field}: 2026-11-22T12:30:00+00:00 is after now "
        "(2026-11-22T12:00:00+00:00)",
        outcome="used as given (a clock skew, or a wrong --now?)",
    )
    moment = datetime(2026, 11, 22, 12, 30, tzinfo=UTC)
    used = job.job.start_time if key == START_TIME_ANNOTATION else job.job.inputs.last_eviction  # type: ignore[union-attr]
    assert used == moment


def test_a_stamp_at_now_or_without_now_is_not_a_problem() -> None:
    stamps = {START_TIME_ANNOTATION: "2026-11-22T12:00:00Z"}
    assert read_snapshot(group_with(stamps), now=NOW).jobs[0].problems == ()
    later = {START_TIME_ANNOTATION: "2026-11-22T12:30:00Z"}
    assert read_snapshot(group_with(later)).jobs[0].problems == ()


def test_core_pods_from_the_status_are_read_onto_the_job() -> None:
    objects = group_with({})
    objects[1]["status"] = {"schedulingState": {"corePods": ["train-1", "train-0"]}}
    (job,) = read_snapshot(objects).jobs
    assert (job.core_pods, job.job.core_pods) == (("train-1", "train-0"), ("train-1", "train-0"))
    objects[1]["status"] = {"schedulingState": {"corePods": "train-0"}}
    (job,) = read_snapshot(objects).jobs
    assert job.core_pods is None
    assert job.warnings == (
        "PodGroup/ml/train status.schedulingState.corePods: expected a list, got 'train-0'; "
        "ignored",
    )
    assert read_snapshot(group_with({})).jobs[0].core_pods is None


def test_min_member_and_min_sub_group_zero_are_accepted() -> None:
    objects = group_with({})
    objects[1]["spec"].update(
        subGroups=[
            {"name": "optional", "minSubGroup": 0},
            {"name": "extra", "parent": "optional", "minMember": 0},
        ]
    )
    (job,) = read_snapshot(objects).jobs
    assert (job.job.sub_groups[0].min_sub_group, job.job.pod_sets[0].min_available) == (0, 0)
    assert job.problems == ()
    flat = group_with({})
    flat[1]["spec"]["minMember"] = 0
    assert read_snapshot(flat).jobs[0].job.pod_sets[0].min_available == 0


def test_a_conflicting_duplicate_pod_leaves_both_out_and_the_job_keeps_the_rest() -> None:
    pod = example_pod("llama-sft-workers-3")
    other = copy.deepcopy(pod)
    other["status"]["phase"] = "Pending"
    snapshot = read_snapshot([*EXAMPLE, other])
    tasks = [task.id for task in snapshot.find("nlp-team/llama-sft").job.tasks()]
    assert "llama-sft-workers-3" not in tasks
    assert len(tasks) == 4
    assert [str(p) for p in snapshot.problems if p.kind is ProblemKind.LEFT_OUT] == [
        "Pod/nlp-team/llama-sft-workers-3: the snapshot holds two different objects of this "
        "name (a snapshot must hold one version of each object); both left out"
    ]


def _member(field: str, value: object) -> JSON:
    """A well-formed pod of ml/train with one field (``where.key``) set to ``value``."""
    obj = pod()
    where, _, key = field.rpartition(".")
    (obj[where] if where else obj)[key] = value
    return obj


@pytest.mark.parametrize(
    ("field", "value", "tasks", "expected"),
    [
        (
            "metadata.annotations",
            [],
            [],
            (
                "IGNORED",
                "Pod/ml/train-0",
                "metadata.annotations",
                "expected an object, got []; ignored",
            ),
        ),
        (
            "metadata.namespace",
            [],
            [],
            (
                "LEFT_OUT",
                "Pod/train-0",
                "metadata.namespace",
                "expected a string, got []; left out",
            ),
        ),
        (
            "metadata.labels",
            [],
            ["train-0"],
            ("IGNORED", "Pod/ml/train-0", "metadata.labels", "expected an object, got []; ignored"),
        ),
        (
            "spec",
            [],
            [],
            ("LEFT_OUT", "Pod/ml/train-0", "spec", "expected an object, got []; left out"),
        ),
        (
            "status",
            [],
            [],
            ("LEFT_OUT", "Pod/ml/train-0", "status", "expected an object, got []; left out"),
        ),
        (
            "status.phase",
            "",
            [],
            (
                "LEFT_OUT",
                "Pod/ml/train-0",
                "status.phase",
                "unknown phase '' (expected Pending, Running, Succeeded, Failed or Unknown); left out",
            ),
        ),
    ],
)
def test_an_empty_or_mistyped_pod_field_is_named_not_read_as_absent(
    field: str, value: object, tasks: list[str], expected: tuple[str, str, str, str]
) -> None:
    """A pod field that is empty or of the wrong type (not absent) is named, as a pod with
    anything else unexpected is: never read as if the field were absent, in silence."""
    group = pod_group(minMember=1, preemptibility="preemptible")
    snapshot = read_snapshot([queue_object("team"), group, _member(field, value)])
    assert [str(t.id) for t in snapshot.jobs[0].job.pod_sets[0].tasks] == tasks
    kind, ref, path, message = expected
    assert [
        (p.kind.name, str(p.object), p.field, p.message)
        for p in snapshot.every_problem()
        if str(p.object).startswith("Pod/")
    ] == [(kind, ref, path, f"{ref} {path}: {message}")]


_ABSENT: Any = object()
_REGULAR: dict[str, list[Any]] = {
    "status.phase": [_ABSENT, None, "Pending", "Running", "Failed"],
    "spec.nodeName": [_ABSENT, None, "node-1", ""],
    "metadata.deletionTimestamp": [_ABSENT, None, "2026-11-22T11:00:00Z"],
    "spec.schedulingGates": [_ABSENT, None, [], [{"name": "gate"}]],
    "metadata.labels": [_ABSENT, None, {}, {"team": "a"}, {SUBGROUP_LABEL: ""}],
    "metadata.namespace": [_ABSENT, None, "ml", ""],
    "spec.containers": [
        _ABSENT,
        [],
        [{}],
        [{"resources": {"limits": {"nvidia.com/gpu": "2"}}}],
        [{"resources": {"requests": {"nvidia.com/gpu": 3}}}, {"resources": None}],
        [{"resources": {"limits": {}, "requests": {"nvidia.com/gpu": "1"}}}],
        [{"resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}, {"resources": {}}],
    ],
}
"""Values of a pod's fields the fast path reads (each alone, on a pod of a group)."""
_IRREGULAR: dict[str, list[Any]] = {
    "status.phase": ["", "running"],
    "spec.nodeName": [5],
    "metadata.deletionTimestamp": [3],
    "spec.schedulingGates": ["gate"],
    "metadata.labels": [{"team": 5}, []],
    "metadata.namespace": [7],
    "spec.containers": [
        [{"resources": {"requests": {"cpu": "lots"}, "limits": {"nvidia.com/gpu": "1"}}}]
    ],
}
"""Values the fast path gives up on: the careful path reads the pod (and names them)."""


def _pod_fields(
    regular: dict[str, list[Any]], irregular: dict[str, list[Any]]
) -> st.SearchStrategy[dict[str, Any]]:
    """Values of a pod's fields: any, in every field (most such pods are irregular somewhere),
    or regular in every field but one, of any value (each irregular value alone). About half
    the pods are read by the fast path, the rest by the careful path."""
    any_value = {path: st.sampled_from([*v, *irregular[path]]) for path, v in regular.items()}
    all_regular = st.fixed_dictionaries({path: st.sampled_from(v) for path, v in regular.items()})

    @st.composite
    def regular_but_one(draw: st.DrawFn) -> dict[str, Any]:
        fields = draw(all_regular)
        path = draw(st.sampled_from(sorted(any_value)))
        return {**fields, path: draw(any_value[path])}

    return st.one_of(st.fixed_dictionaries(any_value), regular_but_one())


class _Annotations(dict[str, Any]):
    """A pod's annotations in a mapping the fast path does not read (not a plain dict)."""


class _GaveUp(Exception):
    """Raised where read_pod would read a pod by its careful path: its fast path gave up."""


def _give_up(*_: object) -> PodRecord | None:
    raise _GaveUp


def _read_fast(obj: JSON, like: Like | None = None) -> PodRecord | None:
    """What read_pod's fast path alone reads ``obj`` as (read_pod with its careful path
    replaced by one that raises :class:`_GaveUp`): it raises _GaveUp where the fast path gives
    up and read_pod would read the pod carefully."""
    with mock.patch.object(_pods, "_read_pod_carefully", _give_up):
        return read_pod(obj, {}, False, [], amounts={}, like=like)


def _fast_path_reads(obj: JSON) -> bool:
    """Whether read_pod's fast path reads ``obj`` (else it gives up: the careful path does)."""
    try:
        _read_fast(obj)
    except _GaveUp:
        return False
    return True


_MARK: Any = object()
"""A group and a holding no pod has: a record that carries it took it from a :class:`Like`."""


def _shortcuts(obj: JSON, like: Like) -> tuple[bool, bool] | None:
    """Which of ``like``'s shortcuts read_pod takes to read ``obj``: ``None`` where its fast
    path gives up (the careful path reads the pod, without ``like``), else whether the pod's
    group was taken from ``like`` (its annotations and labels read alike) and whether its
    holding was (its containers read alike): told by a Like whose group and holding are
    :data:`_MARK`."""
    try:
        record = _read_fast(obj, like._replace(group=_MARK, resources=_MARK))
    except _GaveUp:
        return None
    if record is None:
        return (False, False)
    return (record.group is _MARK, record.resources is _MARK)


@given(_pod_fields(_REGULAR, _IRREGULAR))
def test_a_pod_is_read_alike_by_the_fast_and_the_careful_path(fields: dict[str, Any]) -> None:
    """Law: a pod read by direct look-ups gives the record (its task's status and resources)
    and the problems the careful path gives."""
    pod: JSON = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p-0", "annotations": {"pod-group-name": "g"}},
    }
    for path, value in fields.items():
        if value is not _ABSENT:
            where, key = path.split(".")
            pod.setdefault(where, {})[key] = copy.deepcopy(value)
    own: list[Problem] = []
    careful = _read_pod_carefully(pod, {}, False, NO_DEVICE_MEMORY, own)
    problems: list[Problem] = []
    record = read_pod(pod, {}, False, problems, amounts={})
    event("read" if record is not None else "left out")
    event("named" if own else "no problem")
    fast = _fast_path_reads(pod)
    event("the fast path reads it" if fast else "the fast path gives up: the careful path reads it")
    if careful is None or careful.group == "":
        assert (record, problems) == (None, own)
    else:
        assert (record, problems) == (careful._replace(problems=tuple(own)), [])


_LIKE_REGULAR: dict[str, list[Any]] = {
    **_REGULAR,
    "metadata.annotations": [
        {"pod-group-name": "g"},
        {"pod-group-name": "g", "kai.scheduler/preemptibility": "preemptible"},
    ],
    "spec.initContainers": [_ABSENT, None, [{"resources": {"requests": {"cpu": "2"}}}]],
}
_LIKE_IRREGULAR: dict[str, list[Any]] = {
    **_IRREGULAR,
    "metadata.annotations": [
        {"pod-group-name": "g", "gpu-fraction": "0.5"},  # a share: the careful path reads it
        {"pod-group-name": "g", "x": 5},
    ],
    "spec.initContainers": [
        [{"restartPolicy": "Always", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]
    ],
}


def _pod_with(name: str, fields: dict[str, Any]) -> JSON:
    made: JSON = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}}
    for path, value in fields.items():
        if value is not _ABSENT:
            where, key = path.split(".")
            made.setdefault(where, {})[key] = copy.deepcopy(value)
    return made


_GOOD_FIELDS = {
    "status.phase": st.sampled_from([_ABSENT, None, "Pending", "Running", "Failed"]),
    "spec.nodeName": st.sampled_from([_ABSENT, None, "node-1"]),
    "metadata.deletionTimestamp": st.sampled_from([_ABSENT, None, "2026-11-22T11:00:00Z"]),
    "spec.schedulingGates": st.sampled_from([_ABSENT, None, [], [{"name": "gate"}]]),
    "metadata.labels": st.sampled_from([_ABSENT, None, {}, {"team": "a"}]),
    "metadata.namespace": st.sampled_from([_ABSENT, None, "ml"]),
    "spec.containers": st.sampled_from(
        [
            _ABSENT,
            [],
            [{"resources": {"limits": {"nvidia.com/gpu": "2"}}}],
            [{"resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}, {"resources": {}}],
        ]
    ),
    "metadata.annotations": st.sampled_from(
        [
            *_LIKE_REGULAR["metadata.annotations"],
            {"pod-group-name": "g", "gpu-fraction": "0.5"},
        ]
    ),
    "spec.initContainers": st.sampled_from(
        [*_LIKE_REGULAR["spec.initContainers"], *_LIKE_IRREGULAR["spec.initContainers"]]
    ),
}
"""Values a pod is read with no problem: the pod another is read like."""


_READ_ALIKE = [
    {"metadata.annotations", "metadata.labels"},
    {"spec.containers", "spec.initContainers"},
]
"""The fields a pod is read like another by: its annotations and labels, its containers."""


@settings(max_examples=300)
@given(
    st.fixed_dictionaries(_GOOD_FIELDS),
    _pod_fields(_LIKE_REGULAR, _LIKE_IRREGULAR),
    st.tuples(
        st.sets(st.sampled_from(sorted(_LIKE_REGULAR))), st.sets(st.sampled_from([0, 1]))
    ).map(lambda drawn: drawn[0].union(*(_READ_ALIKE[i] for i in drawn[1]))),
)
def test_a_pod_read_like_another_of_its_group_is_read_as_it_is_alone(
    first: dict[str, Any], second: dict[str, Any], copied: set[str]
) -> None:
    """Law: reading a pod with what reading another pod of its group found (the fields it
    shares with it, ``copied``, are read once) gives the record and the problems reading it
    alone gives."""
    earlier = read_pod(_pod_with("p-0", first), {}, False, [], amounts={})
    if earlier is None or earlier.problems:
        event("no pod to read alike")
        return
    like = Like.of(earlier)
    obj = _pod_with("p-1", {k: first[k] if k in copied else v for k, v in second.items()})
    taken = _shortcuts(obj, like)  # the fields copied are most often one of _READ_ALIKE or both
    event(f"the like= shortcut is taken: {bool(taken and any(taken))}")
    if taken is None:
        event("read like: no (the fast path gives up: the careful path reads it)")
    else:
        by_labels, by_containers = taken
        event(f"read like: annotations and labels {by_labels}, containers {by_containers}")
    alone: list[Problem] = []
    alike: list[Problem] = []
    record = read_pod(obj, {}, False, alone, amounts={})
    assert read_pod(obj, {}, False, alike, amounts={}, like=like) == record
    assert alike == alone


def test_problems_follow_the_input_when_a_conflicting_pair_is_left_out() -> None:
    # the two PriorityClasses named x are both left out: a pod's problems still go where the
    # pod was met among the objects that are read
    snapshot = read_snapshot(
        [
            {"kind": "PriorityClass", "metadata": {"name": "x"}, "value": 1},
            pod("early-bad", group="train", phase="Exploding"),
            {"kind": "PriorityClass", "metadata": {"name": "x"}, "value": 2},
            pod("mid-bad", group="train", phase="Exploding"),
            queue_object("team", preemptMinRuntme="5m"),
            pod("late-bad", group="train", phase="Exploding"),
            pod_group("train"),
        ]
    )
    phase = "unknown phase 'Exploding' (expected Pending, Running, Succeeded, Failed or Unknown)"
    assert [problem.message for problem in snapshot.problems] == [
        "PriorityClass/x: the snapshot holds two different objects of this name (a snapshot "
        "must hold one version of each object); both left out",
        f"Pod/ml/early-bad status.phase: {phase}; left out",
        f"Pod/ml/mid-bad status.phase: {phase}; left out",
        "Queue/team spec.preemptMinRuntme: unknown field (did you mean "
        "spec.preemptMinRuntime?); ignored",
        f"Pod/ml/late-bad status.phase: {phase}; left out",
        "no scheduler config or SchedulingShard in the snapshot; using the defaults",
    ]


def test_problems_follow_the_input_though_pods_are_read_with_their_jobs() -> None:
    # the reader reads a pod when it reads the pod's job (Members); what reading a pod adds to
    # the snapshot's problems still goes where the pod was met, among the other objects'
    snapshot = read_snapshot(
        [
            pod("early-bad", phase="Exploding"),
            queue_object("team", preemptMinRuntme="5m"),
            pod("stray-0", group="nowhere"),
            pod("train-1", labels={SUBGROUP_LABEL: 7}),
            pod("mid-bad", phase="Exploding"),
            {"kind": "PriorityClass", "metadata": {"name": "odd"}, "value": "high"},
            pod("weird", metadata=[]),
            pod_group("train"),
            pod("train-0"),
            pod("late-bad", group="train", phase="Exploding"),
            pod("stray-1", group="elsewhere", labels={"x": 1}),
        ]
    )
    phase = "unknown phase 'Exploding' (expected Pending, Running, Succeeded, Failed or Unknown)"
    assert [problem.message for problem in snapshot.problems] == [
        f"Pod/ml/early-bad status.phase: {phase}; left out",
        "Queue/team spec.preemptMinRuntme: unknown field (did you mean "
        "spec.preemptMinRuntime?); ignored",
        f"Pod/ml/mid-bad status.phase: {phase}; left out",
        "PriorityClass/odd value: expected an integer, got 'high'; left out",
        "Pod metadata: expected an object, got []; ignored",
        f"Pod/ml/late-bad status.phase: {phase}; left out",
        "no scheduler config or SchedulingShard in the snapshot; using the defaults",
        "Pod/ml/stray-0: pod group 'nowhere' is not in the snapshot; pod ignored",
        "Pod/ml/stray-1 metadata.labels['x']: expected a string, got 1; ignored",
        "Pod/ml/stray-1: pod group 'elsewhere' is not in the snapshot; pod ignored",
    ]
    (job,) = snapshot.jobs
    assert [task.id for pod_set in job.job.pod_sets for task in pod_set.tasks] == [
        "train-0",
        "train-1",
    ]
    assert [problem.message for problem in job.problems] == [
        f"Pod/ml/train-1 metadata.labels[{SUBGROUP_LABEL!r}]: expected a string, got 7; ignored",
        "PodGroup/ml/train: no preemptibility set; legacy rule: priority 50 < 100 gives "
        "preemptible",
    ]

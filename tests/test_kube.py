"""Reading Kubernetes objects (docs/spec/configuration.md, docs/spec/preemptibility.md,
docs/spec/start-time.md, docs/spec/kubernetes.md): ``minruntime.kube``.

Fixtures are plain dicts in the shape ``kubectl get -o json`` prints (apiVersion, kind, metadata,
spec, status). The Queue, PodGroup and SchedulingShard fixtures are checked against the reference
scheduler's CRD schemas, and the sample Queue and PriorityClass objects of ``tests/data/`` must
read correctly.
"""

from __future__ import annotations

import importlib
import json
import types
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from tests.world import (
    DATA,
    JSON,
    config_map,
    crd,
    data_documents,
    owner_object,
    owner_reference,
    pod,
    pod_group,
    priority_class,
    queue_object,
    scheduler_document,
    shard,
)

from minruntime import (
    Action,
    Config,
    InvalidQueueTree,
    MinRuntime,
    MinRuntimeError,
    PodSet,
    Preemptibility,
    PreemptibilitySource,
    Queue,
    QueueTree,
    Reason,
    Session,
    SubGroup,
    Task,
    TaskStatus,
)
from minruntime.errors import InvalidObject, UnknownJob
from minruntime.kube import (
    POD_GROUP_ANNOTATION,
    SUBGROUP_LABEL,
    Problem,
    ProblemKind,
    Snapshot,
    SnapshotJob,
    load_objects,
    pod_task_status,
    read_priority_class,
    read_queue,
    read_snapshot,
)
from minruntime.preemptibility import PREEMPTIBILITY_KEY, PRIORITY_CLASSES
from minruntime.starttime import START_TIME_ANNOTATION
from minruntime.testing import duration_strings

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
STARTED = "2026-11-22T11:50:00Z"
EXPECTED_DURATION = "(expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)"
NO_CONFIG_WARNING = "no scheduler config or SchedulingShard in the snapshot; using the defaults"
LEGACY_50_WARNING = "no preemptibility set; legacy rule: priority 50 < 100 gives preemptible"
START_FIELD = f"metadata.annotations[{START_TIME_ANNOTATION!r}]"


TEAM = queue_object("team")


def only_job(snapshot: Snapshot) -> SnapshotJob:
    assert len(snapshot.jobs) == 1
    return snapshot.jobs[0]


def read_one(*objects: JSON, **options: Any) -> SnapshotJob:
    """Read TEAM plus ``objects`` and return the single job."""
    return only_job(read_snapshot([TEAM, *objects], **options))


def the_problem_of(snapshot: Snapshot, kind: ProblemKind, *, skip: str = "") -> Problem:
    """The one problem of ``kind`` a snapshot has (its own or a job's); those about an object
    whose name is ``skip`` are not counted."""
    found = [
        problem
        for problem in snapshot.every_problem()
        if problem.kind is kind and (not skip or getattr(problem.object, "name", "") != skip)
    ]
    assert len(found) == 1, [str(problem) for problem in found]
    return found[0]


def the_problem(objects: list[JSON], kind: ProblemKind, **options: Any) -> Problem:
    """The one problem of ``kind`` reading ``objects`` gives."""
    return the_problem_of(read_snapshot(objects, **options), kind)


# -- the fixtures are of the real shapes ---------------------------------------------------------


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


# -- load_objects --------------------------------------------------------------------------------


def test_load_objects_reads_a_single_json_object() -> None:
    text = json.dumps(queue_object("team", reclaimMinRuntime="30m"))
    assert load_objects(text) == [queue_object("team", reclaimMinRuntime="30m")]


@pytest.mark.parametrize("kind", ["List", "QueueList"])
def test_load_objects_flattens_a_list_object(kind: str) -> None:
    items = [queue_object("org"), queue_object("team", parentQueue="org")]
    text = json.dumps({"apiVersion": "v1", "kind": kind, "items": items, "metadata": {}})
    assert load_objects(text) == items


def test_load_objects_reads_a_json_array() -> None:
    items = [queue_object("org"), pod_group(), pod("train-0")]
    assert load_objects(json.dumps(items)) == items


def test_load_objects_flattens_nested_lists_in_order() -> None:
    a, b, c, d = (queue_object(name) for name in "abcd")
    nested = [
        a,
        {"kind": "List", "items": [b, {"kind": "List", "items": [c]}]},
        [[d]],
    ]
    assert load_objects(json.dumps(nested)) == [a, b, c, d]


def test_load_objects_keeps_an_object_whose_kind_ends_in_list_without_items() -> None:
    odd = {"kind": "PodList", "metadata": {"name": "x"}}
    assert load_objects(json.dumps(odd)) == [odd]


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n"])
def test_load_objects_of_empty_text_is_an_error_naming_the_origin(text: str) -> None:
    """A failed ``kubectl`` upstream writes nothing: that must not look like an empty cluster."""
    with pytest.raises(InvalidObject) as caught:
        load_objects(text, origin="queues.json")
    assert str(caught.value) == (
        "queues.json: empty input (no objects): did the command that wrote it fail?"
    )
    assert caught.value.object == "queues.json"


def test_load_objects_reads_a_yaml_multi_document_stream() -> None:
    text = """\
# a comment before the first document
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: org
spec:
  reclaimMinRuntime: 2d
---
---
apiVersion: v1
kind: List
items:
- apiVersion: scheduling.run.ai/v2
  kind: Queue
  metadata: {name: team}
  spec: {parentQueue: org, preemptMinRuntime: "-1"}
"""
    assert load_objects(text) == [
        {
            "apiVersion": "scheduling.run.ai/v2",
            "kind": "Queue",
            "metadata": {"name": "org"},
            "spec": {"reclaimMinRuntime": "2d"},
        },
        {
            "apiVersion": "scheduling.run.ai/v2",
            "kind": "Queue",
            "metadata": {"name": "team"},
            "spec": {"parentQueue": "org", "preemptMinRuntime": "-1"},
        },
    ]


def test_load_objects_rejects_invalid_json_naming_the_origin() -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects('{"kind": "Queue"', origin="snapshot.json")
    message = str(caught.value)
    assert message.startswith(
        "snapshot.json: not valid JSON (Expecting ',' delimiter: line 1 column 17 (char 16)) "
        "nor YAML: while parsing a flow mapping"
    )
    assert caught.value.object == "snapshot.json"
    assert caught.value.field is None


def test_load_objects_reads_text_that_is_yaml_but_not_json_as_yaml() -> None:
    assert load_objects('{"kind": "Queue", metadata: {name: q}, }') == [
        {"kind": "Queue", "metadata": {"name": "q"}}
    ]


def test_load_objects_rejects_invalid_yaml_naming_the_origin() -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects("kind: Queue\nmetadata: [name", origin="cluster.yaml")
    message = str(caught.value)
    assert message.startswith("cluster.yaml: not valid YAML: while parsing a flow sequence")
    assert "line 2, column 11" in message
    assert caught.value.object == "cluster.yaml"


def without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``importlib.import_module("yaml")`` fail, as when PyYAML is not installed."""
    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> types.ModuleType:
        if name == "yaml":
            raise ImportError("No module named 'yaml'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)


def test_load_objects_without_pyyaml_names_the_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    without_pyyaml(monkeypatch)
    with pytest.raises(InvalidObject) as caught:
        load_objects('{"kind": "Queue"', origin="snapshot.json")
    assert str(caught.value) == (
        "snapshot.json: not valid JSON: Expecting ',' delimiter: line 1 column 17 (char 16)"
    )
    assert caught.value.object == "snapshot.json"


def test_load_objects_without_pyyaml_asks_for_it_for_yaml_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_pyyaml(monkeypatch)
    with pytest.raises(InvalidObject) as caught:
        load_objects("kind: Queue\n", origin="cluster.yaml")
    assert str(caught.value) == (
        "cluster.yaml: not JSON; reading YAML needs PyYAML: pip install PyYAML"
    )
    assert load_objects('[{"kind": "Queue"}]') == [{"kind": "Queue"}]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("42", "<input>: expected Kubernetes objects, found int 42"),
        ('"x"', "<input>: expected Kubernetes objects, found str 'x'"),
        ("just text\n", "<input>: expected Kubernetes objects, found str 'just text'"),
    ],
)
def test_load_objects_rejects_a_document_that_is_not_an_object(text: str, message: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects(text)
    assert str(caught.value) == message
    assert caught.value.object == "<input>"


def test_invalid_object_is_a_value_error_and_a_minruntime_error() -> None:
    error = InvalidObject("Pod/ml/p status.phase: bad", object="Pod/ml/p", field="status.phase")
    assert isinstance(error, ValueError)
    assert isinstance(error, MinRuntimeError)
    assert (str(error), error.object, error.field) == (
        "Pod/ml/p status.phase: bad",
        "Pod/ml/p",
        "status.phase",
    )
    assert (InvalidObject("x").object, InvalidObject("x").field) == (None, None)


objects_strategy = st.lists(
    st.builds(lambda n: {"kind": "Queue", "metadata": {"name": f"q{n}"}}, st.integers(0, 99)),
    max_size=6,
)


SHAPES = st.sampled_from(["array", "List", "ConfigMapList"])


def _nest(draw: st.DrawFn, items: list[JSON]) -> object:
    """Wrap ``items`` in a random arrangement of ``List`` objects and arrays."""
    if not items or draw(st.booleans()):
        shape = draw(SHAPES)
        return items if shape == "array" else {"kind": shape, "items": items}
    cut = draw(st.integers(0, len(items)))
    return [_nest(draw, items[:cut]), _nest(draw, items[cut:])]


@st.composite
def nested_texts(draw: st.DrawFn) -> tuple[list[JSON], str]:
    items = draw(objects_strategy)
    return items, json.dumps(_nest(draw, items))


@given(nested_texts())
def test_load_objects_flattening_keeps_every_object_in_order(case: tuple[list[JSON], str]) -> None:
    """However objects are nested in Lists and arrays, loading gives them back flat, in order."""
    items, text = case
    assert load_objects(text) == items


# -- the sample objects of tests/data ------------------------------------------------------------


def test_the_default_queues_read_into_a_parent_and_a_child() -> None:
    text = (DATA / "default-queues.yaml").read_text(encoding="utf-8")
    documents = data_documents("default-queues.yaml")
    assert load_objects(text, origin="default-queues.yaml") == documents
    assert [read_queue(d) for d in documents] == [
        Queue("default-parent-queue"),
        Queue("default-queue", parent="default-parent-queue"),
    ]
    tree = read_snapshot(documents).tree
    assert list(tree) == ["default-parent-queue", "default-queue"]
    assert tree.parent("default-queue") == "default-parent-queue"
    assert tree.parent("default-parent-queue") is None
    assert tree.path("default-queue") == ("default-parent-queue", "default-queue")
    assert tree["default-queue"].preempt_min_runtime is None
    assert tree["default-queue"].reclaim_min_runtime is None
    assert tree.warnings == ()


def test_the_team_queues_read_with_their_min_runtimes() -> None:
    documents = data_documents("team-queues.yaml")
    assert documents[2]["spec"]["resources"]["gpu"] == {
        "quota": 0.5,
        "limit": 8,
        "overQuotaWeight": 1,
    }
    assert [read_queue(d) for d in documents] == [
        Queue("research", preempt_min_runtime="10m", reclaim_min_runtime="1h"),
        Queue("vision", parent="research", reclaim_min_runtime="never"),
        Queue("speech", parent="research", preempt_min_runtime="90m"),
    ]
    tree = read_snapshot(documents).tree
    assert tree.path("speech") == ("research", "speech")
    assert tree.depth("speech") == 1
    assert tree.lca("speech", "vision") == "research"


def test_both_sample_queue_files_read_together_into_two_top_level_trees() -> None:
    text = "\n---\n".join(
        (DATA / name).read_text(encoding="utf-8")
        for name in ("default-queues.yaml", "team-queues.yaml")
    )
    tree = read_snapshot(load_objects(text)).tree
    assert list(tree) == [
        "default-parent-queue",
        "default-queue",
        "research",
        "vision",
        "speech",
    ]
    assert tree.lca("default-queue", "vision") is None


def test_the_default_priority_classes_read_to_the_known_values() -> None:
    objects = load_objects(
        (DATA / "priority-classes.yaml").read_text(encoding="utf-8"), origin="priority-classes"
    )
    assert [read_priority_class(obj) for obj in objects] == [
        (name, PRIORITY_CLASSES[name], False)
        for name in ("train", "build-preemptible", "build", "inference")
    ]


# -- Queue ---------------------------------------------------------------------------------------


def test_read_queue_reads_name_parent_and_both_go_duration_min_runtimes() -> None:
    obj = queue_object(
        "team", parentQueue="org", preemptMinRuntime="1h30m", reclaimMinRuntime="250ms"
    )
    assert read_queue(obj) == Queue(
        "team", parent="org", preempt_min_runtime="90m", reclaim_min_runtime="0.25s"
    )
    assert read_queue(obj).preempt_min_runtime == MinRuntime.parse(5400)


@pytest.mark.parametrize("never", ["-1", -1, "never", "Never", "NEVER"])
def test_read_queue_reads_every_spelling_of_never(never: object) -> None:
    queue = read_queue(queue_object("vault", preemptMinRuntime=never, reclaimMinRuntime=never))
    assert queue.preempt_min_runtime == MinRuntime.NEVER
    assert queue.reclaim_min_runtime == MinRuntime.NEVER


@pytest.mark.parametrize(
    ("text", "hours"), [("2d", 48), ("1w", 168), ("5w4d12h", 5 * 168 + 4 * 24 + 12)]
)
def test_read_queue_reads_days_and_weeks(text: str, hours: int) -> None:
    queue = read_queue(queue_object("team", reclaimMinRuntime=text))
    assert queue.reclaim_min_runtime == MinRuntime.parse(hours * 3600)
    assert queue.preempt_min_runtime is None


def test_read_queue_reads_zero_as_a_set_value() -> None:
    queue = read_queue(queue_object("team", preemptMinRuntime="0", reclaimMinRuntime="0s"))
    assert queue.preempt_min_runtime == MinRuntime.ZERO
    assert queue.reclaim_min_runtime == MinRuntime.ZERO


def test_read_queue_without_spec_is_top_level_with_both_values_unset() -> None:
    obj = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "org"}}
    assert read_queue(obj) == Queue("org")


def test_read_queue_reads_an_empty_parent_as_top_level() -> None:
    assert read_queue(queue_object("org", parentQueue="")).parent is None


def test_read_queue_ignores_the_fields_it_does_not_use() -> None:
    obj = queue_object(
        "team",
        parentQueue="org",
        reclaimMinRuntime="30m",
        displayName="The Team",
        priority=200,
        resources={"gpu": {"quota": 4, "limit": -1, "overQuotaWeight": 2}},
    )
    obj["metadata"]["labels"] = {"a": "b"}
    obj["status"] = {"childQueues": ["x"], "allocated": {"nvidia.com/gpu": "2"}}
    assert read_queue(obj) == Queue("team", parent="org", reclaim_min_runtime="30m")


def test_read_queue_without_a_name_is_rejected_naming_the_field() -> None:
    obj: JSON = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {}, "spec": {}}
    with pytest.raises(InvalidObject) as caught:
        read_queue(obj)
    message = str(caught.value)
    assert message.startswith("Queue")
    assert message.endswith(" metadata.name: missing (required)")
    assert caught.value.field == "metadata.name"
    assert caught.value.object is not None
    assert caught.value.object.startswith("Queue")


def test_read_queue_with_a_non_string_parent_is_rejected_naming_the_queue_and_field() -> None:
    with pytest.raises(InvalidObject) as caught:
        read_queue(queue_object("team", parentQueue=5))
    assert str(caught.value) == "Queue/team spec.parentQueue: expected a string, got 5"
    assert (caught.value.object, caught.value.field) == ("Queue/team", "spec.parentQueue")


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("reclaimMinRuntime", "1x", "invalid duration '1x': unknown unit 'x'"),
        ("reclaimMinRuntime", "5", "invalid duration '5': a bare number needs a unit"),
        ("preemptMinRuntime", "1h-30m", "invalid duration '1h-30m': a sign may only lead"),
        ("preemptMinRuntime", "-5m", "invalid duration '-5m': negative durations are not allowed"),
        ("preemptMinRuntime", "1h 30m", "invalid duration '1h 30m': whitespace is not allowed"),
        ("reclaimMinRuntime", "", "invalid duration '': empty string"),
        ("reclaimMinRuntime", True, "invalid duration True: a boolean is not a duration"),
    ],
)
def test_read_queue_with_a_bad_duration_is_rejected_naming_the_queue_and_field(
    field: str, value: object, why: str
) -> None:
    with pytest.raises(InvalidObject) as caught:
        read_queue(queue_object("prod", **{field: value}))
    message = str(caught.value)
    assert message.startswith(f"Queue/prod spec.{field}: {why}")
    assert message.endswith(EXPECTED_DURATION)
    assert (caught.value.object, caught.value.field) == ("Queue/prod", f"spec.{field}")


def test_read_queue_with_metadata_that_is_not_an_object_is_rejected() -> None:
    obj = queue_object("team")
    obj["metadata"] = "team"
    with pytest.raises(InvalidObject) as caught:
        read_queue(obj)
    assert str(caught.value) == "Queue metadata: expected an object, got 'team'"
    assert (caught.value.object, caught.value.field) == ("Queue", "metadata")


def test_read_queue_with_a_spec_that_is_not_an_object_is_rejected() -> None:
    obj = queue_object("team")
    obj["spec"] = "reclaimMinRuntime: 1h"
    with pytest.raises(InvalidObject) as caught:
        read_queue(obj)
    assert str(caught.value) == "Queue/team spec: expected an object, got 'reclaimMinRuntime: 1h'"
    assert (caught.value.object, caught.value.field) == ("Queue/team", "spec")


@given(duration_strings())
def test_read_queue_reads_every_duration_as_the_one_parser_does(text: str) -> None:
    """A Queue's min-runtime string reads to exactly ``MinRuntime.parse`` of it (one parser)."""
    queue = read_queue(queue_object("q", preemptMinRuntime=text, reclaimMinRuntime=text))
    assert queue.preempt_min_runtime == MinRuntime.parse(text)
    assert queue.reclaim_min_runtime == MinRuntime.parse(text)


# -- PriorityClass -------------------------------------------------------------------------------


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


# -- PodGroup ------------------------------------------------------------------------------------


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


# -- Pod: grouping and status --------------------------------------------------------------------


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


# -- SnapshotJob ---------------------------------------------------------------------------------


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


# -- preemptibility through the snapshot ---------------------------------------------------------


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


# -- configuration from the snapshot -------------------------------------------------------------


def test_config_from_a_config_map_holding_json_text() -> None:
    document = scheduler_document(
        {"defaultReclaimMinRuntime": "10m", "defaultPreemptMinRuntime": "-1"}
    )
    snapshot = read_snapshot([config_map("kai-config", {"config.json": json.dumps(document)})])
    assert snapshot.config == Config(
        default_preempt_min_runtime="never", default_reclaim_min_runtime="10m"
    )
    assert (snapshot.config.warnings, snapshot.warnings) == ((), ())


def test_config_from_a_config_map_holding_yaml_text_beside_other_entries() -> None:
    document = scheduler_document(
        {"defaultPreemptMinRuntime": "2d", "reclaimResolveMethod": "queue"}
    )
    data = {
        "notes.txt": "not: [a config",
        "extra.yaml": "a: 1",
        "config.yaml": yaml.safe_dump(document),
    }
    snapshot = read_snapshot([config_map("kai-config", data)])
    assert snapshot.config == Config(
        default_preempt_min_runtime="48h", reclaim_resolve_method="queue"
    )
    assert snapshot.warnings == ()


def test_config_from_a_bare_scheduler_config_document() -> None:
    snapshot = read_snapshot([TEAM, scheduler_document({"defaultPreemptMinRuntime": "1h"})])
    assert snapshot.config == Config(default_preempt_min_runtime="1h")
    assert list(snapshot.tree) == ["team"]


def test_config_without_the_minruntime_plugin_is_the_defaults_with_a_warning() -> None:
    document = {"tiers": [{"plugins": [{"name": "proportion"}]}]}
    snapshot = read_snapshot([config_map("kai-config", {"config.yaml": json.dumps(document)})])
    assert snapshot.config == Config()
    assert snapshot.warnings == (
        "no 'minruntime' plugin in ConfigMap/kai-scheduler/kai-config data['config.yaml']; "
        "using the defaults",
    )


def test_config_from_a_scheduling_shard_min_runtime() -> None:
    snapshot = read_snapshot(
        [shard(minRuntime={"preemptMinRuntime": "5m", "reclaimMinRuntime": "-1"})]
    )
    assert snapshot.config == Config(
        default_preempt_min_runtime="5m", default_reclaim_min_runtime="never"
    )
    assert snapshot.warnings == ()


def test_scheduling_shard_plugin_arguments_fully_replace_its_min_runtime() -> None:
    snapshot = read_snapshot(
        [
            shard(
                minRuntime={"preemptMinRuntime": "5m", "reclaimMinRuntime": "-1"},
                plugins={
                    "proportion": {"arguments": {"kValue": "2"}},
                    "minruntime": {"arguments": {"reclaimResolveMethod": "queue"}},
                },
            )
        ]
    )
    assert snapshot.config == Config(reclaim_resolve_method="queue")


def test_scheduling_shard_plugin_override_without_arguments_keeps_its_min_runtime() -> None:
    snapshot = read_snapshot(
        [
            shard(
                minRuntime={"reclaimMinRuntime": "30m"},
                plugins={"minruntime": {"enabled": True}},
            )
        ]
    )
    assert snapshot.config == Config(default_reclaim_min_runtime="30m")


def test_no_config_in_the_snapshot_gives_the_defaults_with_a_warning() -> None:
    snapshot = read_snapshot([TEAM])
    assert snapshot.config == Config()
    assert snapshot.config.warnings == (NO_CONFIG_WARNING,)
    assert snapshot.warnings == (NO_CONFIG_WARNING,)


@pytest.mark.parametrize(
    "data",
    [
        {"ca.crt": "-----BEGIN CERTIFICATE-----"},
        {"settings.json": json.dumps({"actions": "allocate"})},
        {"broken.yaml": "a: [1"},
        {"list.json": "[1, 2]"},
        {"notes.txt": "pricing tiers: gold, silver"},
    ],
    ids=["plain-text", "no-tiers", "broken-yaml", "array", "text-mentioning-tiers"],
)
def test_config_maps_that_are_not_scheduler_configs_are_ignored(data: JSON) -> None:
    snapshot = read_snapshot([config_map("other", data)])
    assert snapshot.config == Config()
    assert snapshot.warnings == (NO_CONFIG_WARNING,)


def test_a_config_map_with_no_data_is_ignored() -> None:
    empty = config_map("empty", {})
    del empty["data"]
    snapshot = read_snapshot([empty, scheduler_document({"defaultPreemptMinRuntime": "3m"})])
    assert snapshot.config == Config(default_preempt_min_runtime="3m")


def test_two_scheduler_configs_are_an_error_naming_both() -> None:
    text = json.dumps(scheduler_document({"defaultReclaimMinRuntime": "10m"}))
    with pytest.raises(InvalidObject) as caught:
        read_snapshot(
            [
                config_map("first", {"config.yaml": text}),
                config_map("second", {"config.yaml": text}),
            ]
        )
    assert str(caught.value) == (
        "more than one scheduler config in the snapshot: "
        "ConfigMap/kai-scheduler/first data['config.yaml'], "
        "ConfigMap/kai-scheduler/second data['config.yaml']"
    )


def test_two_scheduling_shards_are_an_error_naming_both() -> None:
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([shard("a"), shard("b")])
    assert str(caught.value) == (
        "more than one SchedulingShard in the snapshot: SchedulingShard/a, SchedulingShard/b"
    )


def test_a_bad_plugin_argument_in_a_config_map_is_an_invalid_object() -> None:
    text = json.dumps(scheduler_document({"defaultReclaimMinRuntime": "10x"}))
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([config_map("kai-config", {"config.yaml": text})])
    origin = "ConfigMap/kai-scheduler/kai-config data['config.yaml'] tiers[1].plugins[1].arguments"
    assert str(caught.value) == (
        f"invalid configuration in {origin}: defaultReclaimMinRuntime: invalid duration '10x': "
        f"unknown unit 'x' {EXPECTED_DURATION}"
    )
    assert caught.value.object == "ConfigMap/kai-scheduler/kai-config"
    assert caught.value.field == "data['config.yaml'] tiers[1].plugins[1].arguments"


def test_a_bad_plugin_argument_is_a_warning_and_the_default_when_lenient() -> None:
    text = json.dumps(
        scheduler_document({"defaultReclaimMinRuntime": "10x", "defaultPreemptMinRuntime": "5m"})
    )
    snapshot = read_snapshot([config_map("kai-config", {"config.yaml": text})], lenient_config=True)
    assert snapshot.config == Config(default_preempt_min_runtime="5m")
    warning = (
        "defaultReclaimMinRuntime: invalid duration '10x': "
        f"unknown unit 'x' {EXPECTED_DURATION}; using the default 0s"
    )
    assert snapshot.config.warnings == (warning,)
    assert snapshot.warnings == (warning,)


def test_a_bad_scheduling_shard_value_is_an_invalid_object_or_lenient_warning() -> None:
    bad = shard(minRuntime={"preemptMinRuntime": "5x", "reclaimMinRuntime": "1h"})
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([bad])
    assert str(caught.value) == (
        "invalid configuration in SchedulingShard/default spec: defaultPreemptMinRuntime: "
        f"invalid duration '5x': unknown unit 'x' {EXPECTED_DURATION}"
    )
    assert caught.value.object == "SchedulingShard/default"
    assert caught.value.field == "spec"
    lenient = read_snapshot([bad], lenient_config=True)
    assert lenient.config == Config(default_reclaim_min_runtime="1h")
    assert len(lenient.warnings) == 1
    assert lenient.warnings[0].endswith("; using the default 0s")


def test_a_bad_resolve_method_in_a_shard_override_is_an_invalid_object() -> None:
    bad = shard(plugins={"minruntime": {"arguments": {"reclaimResolveMethod": "LCA"}}})
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([bad])
    assert str(caught.value) == (
        "invalid configuration in SchedulingShard/default spec: reclaimResolveMethod: invalid "
        "value 'LCA' (expected 'lca' or 'queue')"
    )


def test_a_shard_min_runtime_that_is_not_a_string_is_rejected_naming_the_field() -> None:
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([shard(minRuntime={"reclaimMinRuntime": 600})])
    assert str(caught.value) == (
        "SchedulingShard/default spec.minRuntime.reclaimMinRuntime: expected a string, got 600"
    )
    assert caught.value.field == "spec.minRuntime.reclaimMinRuntime"


# -- the queue tree ------------------------------------------------------------------------------


def test_snapshot_queues_build_the_tree_with_their_values() -> None:
    snapshot = read_snapshot(
        [
            queue_object("org", reclaimMinRuntime="1w"),
            queue_object("team", parentQueue="org", preemptMinRuntime="never"),
        ]
    )
    assert snapshot.tree.path("team") == ("org", "team")
    assert snapshot.tree["org"] == Queue("org", reclaim_min_runtime="168h")
    assert snapshot.tree["team"] == Queue("team", "org", preempt_min_runtime="never")


def test_tree_problems_propagate_as_invalid_queue_tree() -> None:
    with pytest.raises(InvalidQueueTree) as caught:
        read_snapshot(
            [
                queue_object("a", parentQueue="b"),
                queue_object("b", parentQueue="a"),
                queue_object("lost", parentQueue="gone"),
                queue_object("lost"),
            ]
        )
    assert caught.value.problems == (
        "duplicate queue name 'lost' (2 queues)",
        "queue 'lost' has parent 'gone', which is not in the tree",
        "cycle in parent links: 'a' -> 'b' -> 'a'",
    )


def test_orphans_as_top_level_makes_an_orphan_top_level_with_a_warning() -> None:
    snapshot = read_snapshot(
        [TEAM, queue_object("lost", parentQueue="gone")], orphans_as_top_level=True
    )
    assert snapshot.tree.parent("lost") is None
    assert snapshot.warnings == (
        NO_CONFIG_WARNING,
        "queue 'lost' has parent 'gone', which is not in the tree; treated as top-level",
    )


def test_bad_queue_values_are_ignored_and_the_tree_still_reports_its_problems() -> None:
    objects = [
        TEAM,
        queue_object("prod", reclaimMinRuntime="1x"),
        queue_object("dev", preemptMinRuntime="-5m"),
        queue_object("child", parentQueue="prod"),
    ]
    snapshot = read_snapshot(objects)
    assert (snapshot.tree["prod"].reclaim_min_runtime, snapshot.tree["dev"]) == (
        None,
        Queue("dev"),
    )
    ignored = [p for p in snapshot.problems if p.kind is ProblemKind.IGNORED]
    assert [(str(p.object), p.field) for p in ignored] == [
        ("Queue/prod", "spec.reclaimMinRuntime"),
        ("Queue/dev", "spec.preemptMinRuntime"),
    ]
    assert str(ignored[0]).startswith("Queue/prod spec.reclaimMinRuntime: invalid duration '1x'")
    assert str(ignored[0]).endswith("; ignored")
    with pytest.raises(InvalidQueueTree) as caught:
        read_snapshot([*objects, queue_object("loop", parentQueue="loop")])
    assert caught.value.problems == ("cycle in parent links: 'loop' -> 'loop'",)


# -- read_snapshot as a whole ------------------------------------------------------------------


def test_read_snapshot_flattens_list_objects_and_reads_loaded_text() -> None:
    text = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                TEAM,
                {"kind": "PodGroupList", "items": [pod_group("a"), pod_group("b")]},
                pod("a-0", "a"),
            ],
        }
    )
    from_text = read_snapshot(load_objects(text))
    from_list = read_snapshot([json.loads(text)])
    for snapshot in (from_text, from_list):
        assert [job.id for job in snapshot.jobs] == ["ml/a", "ml/b"]
        assert snapshot.jobs[0].job.tasks() == (Task("a-0"),)


def test_read_snapshot_of_nothing_is_an_error() -> None:
    for objects in ([], [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}]):
        with pytest.raises(InvalidObject) as caught:
            read_snapshot(objects)
        assert str(caught.value) == (
            "the snapshot holds no object of a kind the library reads (Queue, PodGroup, Pod, "
            "PriorityClass, ConfigMap, SchedulingShard, or a scheduler config): is it the right "
            "input?"
        )


def test_read_snapshot_reads_the_module_example() -> None:
    snapshot = read_snapshot(
        [
            queue_object("team", reclaimMinRuntime="30m"),
            pod_group(annotations={START_TIME_ANNOTATION: STARTED}, minMember=1),
            pod("train-0"),
        ]
    )
    job = snapshot.find("ml/train")
    assert (job.job.queue, job.job.priority, job.preemptibility.value) == (
        "team",
        50,
        Preemptibility.PREEMPTIBLE,
    )
    assert job.job.start_time == datetime(2026, 11, 22, 11, 50, tzinfo=UTC)


# -- Snapshot.find -------------------------------------------------------------------------------


FIND_SNAPSHOT = read_snapshot(
    [TEAM, pod_group("train", "ml"), pod_group("train", "research"), pod_group("solo", "ml")]
)


def test_find_by_namespace_and_name() -> None:
    assert FIND_SNAPSHOT.find("research/train").id == "research/train"
    assert FIND_SNAPSHOT.find("ml/train").namespace == "ml"


def test_find_by_a_unique_bare_name() -> None:
    assert FIND_SNAPSHOT.find("solo").id == "ml/solo"


def test_find_an_ambiguous_bare_name_is_an_unknown_job_listing_the_matches() -> None:
    with pytest.raises(UnknownJob) as caught:
        FIND_SNAPSHOT.find("train")
    assert str(caught.value) == (
        "pod group name 'train' is ambiguous: ml/train, research/train; use NAMESPACE/NAME"
    )
    assert (caught.value.reference, caught.value.matches) == (
        "train",
        ("ml/train", "research/train"),
    )
    assert isinstance(caught.value, LookupError)


@pytest.mark.parametrize("reference", ["nope", "research/solo", "ml/", ""])
def test_find_a_missing_job_is_an_unknown_job_naming_the_expected_form(reference: str) -> None:
    with pytest.raises(UnknownJob) as caught:
        FIND_SNAPSHOT.find(reference)
    assert str(caught.value) == (
        f"no pod group {reference!r} in the snapshot (expected NAMESPACE/NAME of a PodGroup, or "
        "its name when unique)"
    )
    assert (caught.value.reference, caught.value.matches) == (reference, ())


# -- end to end: a Session built from a snapshot -------------------------------------------------


def cluster() -> list[JSON]:
    document = scheduler_document({"defaultReclaimMinRuntime": "5m", "reclaimResolveMethod": "lca"})
    return [
        queue_object("org", reclaimMinRuntime="30m"),
        queue_object("research", parentQueue="org"),
        queue_object("prod", parentQueue="org"),
        priority_class("train", 50),
        priority_class("inference", 125),
        config_map("kai-scheduler-config", {"config.yaml": yaml.safe_dump(document)}),
        pod_group(
            "train",
            "research",
            queue="research",
            priorityClassName="train",
            minMember=2,
            annotations={START_TIME_ANNOTATION: STARTED},
        ),
        pod("train-0", "train", "research", node="n1"),
        pod("train-1", "train", "research", node="n2"),
        pod_group("serve", "prod", queue="prod", priorityClassName="inference"),
        pod("serve-0", "serve", "prod", phase="Pending"),
    ]


def test_a_session_from_a_snapshot_refuses_a_reclaim_inside_the_min_runtime() -> None:
    snapshot = read_snapshot(cluster())
    assert snapshot.warnings == ()
    assert snapshot.config == Config(default_reclaim_min_runtime="5m")
    session = Session(snapshot.tree, snapshot.config, NOW)
    preemptor = snapshot.find("prod/serve").job
    victim = snapshot.find("research/train").job
    decision = session.verdict(Action.RECLAIM, preemptor, victim)
    assert (decision.allowed, decision.reason) == (False, Reason.PROTECTED)
    assert (decision.min_runtime, decision.source) == (MinRuntime("30m"), "org")
    assert decision.protected_until == datetime(2026, 11, 22, 12, 20, tzinfo=UTC)
    assert str(decision) == (
        "reclaim of 'research/train' by 'prod/serve': refused: min-runtime 30m from queue "
        "'org': started 2026-11-22T11:50:00Z, protected until 2026-11-22T12:20:00Z"
    )
    later = session.at(datetime(2026, 11, 22, 12, 20, tzinfo=UTC))
    assert later.verdict(Action.RECLAIM, preemptor, victim).reason is Reason.ELIGIBLE
    assert later.verdict(Action.RECLAIM, preemptor, victim).allowed is True


def test_a_session_from_a_snapshot_never_reclaims_a_semi_preemptible_core() -> None:
    objects = cluster()
    objects[6]["metadata"]["labels"] = {PREEMPTIBILITY_KEY: "semi-preemptible"}
    objects[6]["spec"]["minMember"] = 1  # train-0 is the core, train-1 above it
    snapshot = read_snapshot(objects)
    session = Session(snapshot.tree, snapshot.config, datetime(2026, 11, 22, 13, 0, tzinfo=UTC))
    preemptor = snapshot.find("serve").job
    victim = snapshot.find("train").job
    assert victim.preemptibility is Preemptibility.SEMI_PREEMPTIBLE
    decision = session.verdict(Action.RECLAIM, preemptor, victim)
    assert (decision.allowed, decision.reason) == (True, Reason.DEFERRED)
    evictable = session.verdict(Action.RECLAIM, preemptor, victim).tasks
    assert [task.id for task in evictable] == ["train-1"]


def test_snapshot_values_are_frozen() -> None:
    snapshot = read_snapshot([TEAM, pod_group()])
    with pytest.raises(AttributeError):
        snapshot.jobs = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        snapshot.jobs[0].name = "other"  # type: ignore[misc]
    assert isinstance(snapshot.tree, QueueTree)


def test_a_config_map_whose_tiers_is_not_a_list_is_an_error_naming_the_entry() -> None:
    """A scheduler config that cannot be read is not the same as no scheduler config."""
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([config_map("other", {"settings.json": json.dumps({"tiers": "a list?"})})])
    assert str(caught.value) == (
        "invalid configuration in ConfigMap/kai-scheduler/other data['settings.json']: looks "
        "like a scheduler config (it mentions 'tiers') but cannot be read: tiers: expected a "
        "list, got str"
    )
    assert caught.value.object == "ConfigMap/kai-scheduler/other"


def test_an_unparseable_scheduler_config_is_an_error_or_a_warning_when_lenient() -> None:
    broken = config_map("scheduler-config", {"config.yaml": "tiers: [{plugins: [}"})
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([broken])
    assert str(caught.value).startswith(
        "invalid configuration in ConfigMap/kai-scheduler/scheduler-config data['config.yaml']: "
        "looks like a scheduler config (it mentions 'tiers') but cannot be read: while parsing "
        "a flow node expected the node content, but found '}'"
    )
    snapshot = read_snapshot([broken], lenient_config=True)
    assert snapshot.config == Config()
    assert len(snapshot.warnings) == 1
    assert snapshot.warnings[0].endswith("; ignored (lenient config), using the defaults")
    assert NO_CONFIG_WARNING not in snapshot.warnings


# -- nothing dropped in silence (docs/spec/kubernetes.md;
# docs/decisions/nothing-dropped-in-silence.md)


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


@pytest.mark.parametrize("items", [{"kind": "Queue"}, "queues", 3])
def test_a_list_whose_items_is_not_a_list_is_an_error(items: object) -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), origin="f")
    assert str(caught.value) == (
        f"f: List items: expected a list of objects, got {type(items).__name__}"
    )


def test_a_pod_group_naming_no_known_queue_is_a_warning() -> None:
    snapshot = read_snapshot([TEAM, pod_group(queue="teem"), pod("train-0")])
    assert snapshot.warnings[-1] == (
        "PodGroup/ml/train: queue 'teem' is not in the snapshot; its decisions say the "
        "victim's queue is unknown"
    )


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


def test_pods_are_ordered_by_creation_time_then_name_whatever_the_listing() -> None:
    pods = [pod(f"w-{i}") for i in range(4)]
    pods[3]["metadata"]["creationTimestamp"] = "2026-11-22T09:00:00Z"
    pods[1]["metadata"]["creationTimestamp"] = "2026-11-22T10:00:00Z"
    for order in (pods, pods[::-1], [pods[2], pods[0], pods[3], pods[1]]):
        job = read_one(pod_group(), *order)
        names = [task.id for pod_set in job.job.pod_sets for task in pod_set.tasks]
        assert names == ["w-3", "w-1", "w-0", "w-2"]


@pytest.mark.parametrize(
    ("field", "meant"),
    [
        ("reclaimMinRunTime", "reclaimMinRuntime"),
        ("preemptMinRuntimes", "preemptMinRuntime"),
        ("parentqueue", "parentQueue"),
        ("maxEviction", "maxEvictions"),
    ],
)
def test_a_misspelt_queue_field_is_a_warning_naming_the_known_one(field: str, meant: str) -> None:
    snapshot = read_snapshot([queue_object("team", **{field: "5m"})])
    assert snapshot.warnings[0] == (
        f"Queue/team spec.{field}: unknown field (did you mean spec.{meant}?); ignored"
    )


def test_an_unrelated_queue_field_is_not_warned_about() -> None:
    snapshot = read_snapshot([queue_object("team", quota={"gpu": 4}, priority=3)])
    assert snapshot.warnings == (NO_CONFIG_WARNING,)


@pytest.mark.parametrize(("kind", "meant"), [("list", "List"), ("PodLIST", "PodList")])
def test_a_list_kind_in_the_wrong_case_is_an_error(kind: str, meant: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects(json.dumps({"kind": kind, "items": [TEAM]}), origin="f")
    assert str(caught.value) == (
        f"f: {kind} kind: {kind!r} is not a kind (kinds are case-sensitive: expected {meant!r})"
    )


# -- sub-group trees (docs/spec/sub-group-trees.md) ------------------------------------------------

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

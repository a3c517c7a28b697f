"""Queues (``minruntime.kube._queues``): a Queue object as a queue of the tree, and the sample Queues of tests/data."""

from __future__ import annotations

import pytest
from hypothesis import given
from tests.world import (
    DATA,
    EXPECTED_DURATION,
    JSON,
    data_documents,
    queue_object,
)

from minruntime import (
    MinRuntime,
    Queue,
)
from minruntime.errors import InvalidObject
from minruntime.kube import (
    load_objects,
    read_queue,
    read_snapshot,
)
from minruntime.testing import duration_strings


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

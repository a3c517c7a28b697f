"""The snapshot (``minruntime.kube._snapshot``): the configuration, the queue tree, ``read_snapshot`` as a whole, ``Snapshot.find``, and a Session built from a snapshot."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
import yaml
from tests.world import (
    EXPECTED_DURATION,
    JSON,
    NO_CONFIG_WARNING,
    STARTED,
    TEAM,
    config_map,
    pod,
    pod_group,
    priority_class,
    queue_object,
    scheduler_document,
    shard,
)
from tests.world import SNAPSHOT_NOW as NOW

from minruntime import (
    Action,
    Config,
    InvalidQueueTree,
    MinRuntime,
    Preemptibility,
    Queue,
    QueueTree,
    Reason,
    Session,
    Task,
)
from minruntime.errors import InvalidObject, UnknownJob
from minruntime.kube import (
    ProblemKind,
    load_objects,
    read_snapshot,
)
from minruntime.preemptibility import PREEMPTIBILITY_KEY
from minruntime.starttime import START_TIME_ANNOTATION


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


def test_a_pod_group_naming_no_known_queue_is_a_warning() -> None:
    snapshot = read_snapshot([TEAM, pod_group(queue="teem"), pod("train-0")])
    assert snapshot.warnings[-1] == (
        "PodGroup/ml/train: queue 'teem' is not in the snapshot; its decisions say the "
        "victim's queue is unknown"
    )

"""The bundled example cluster snapshot (``minruntime/data/example-cluster.json``).

It must be what ``examples/make_example_cluster.py`` writes, hold objects of the real shapes
(validated against the reference scheduler's CRD schemas and default PriorityClasses in
``tests/data/``), and demonstrate what the generator's comment says it does.
"""

from __future__ import annotations

import copy
import importlib.resources
import json
import runpy
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from tests.world import CRD_FILES, crd, data_documents, pruned_fields

from minruntime import Action, Config, MinRuntime, QueueTree
from minruntime._protection import is_protected
from minruntime._resolution import resolve
from minruntime.preemptibility import (
    PREEMPTIBILITY_KEY,
    Owner,
    Preemptibility,
    PreemptibilitySource,
    determine_preemptibility,
)
from minruntime.starttime import START_TIME_ANNOTATION, parse_start_time

JSON = dict[str, Any]

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "examples" / "make_example_cluster.py"
SNAPSHOT = REPO / "src" / "minruntime" / "data" / "example-cluster.json"

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def load_snapshot() -> JSON:
    data: JSON = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return data


SNAPSHOT_DATA = load_snapshot()
ITEMS: list[JSON] = SNAPSHOT_DATA["items"]


def of_kind(kind: str) -> list[JSON]:
    return [item for item in ITEMS if item["kind"] == kind]


def ref(item: Mapping[str, Any]) -> str:
    metadata = item["metadata"]
    namespace = metadata.get("namespace")
    name = metadata["name"]
    return f"{item['kind']}/{namespace}/{name}" if namespace else f"{item['kind']}/{name}"


POD_GROUPS = {pg["metadata"]["name"]: pg for pg in of_kind("PodGroup")}
PODS = of_kind("Pod")
QUEUE_OBJECTS = of_kind("Queue")
PRIORITIES = {pc["metadata"]["name"]: pc["value"] for pc in of_kind("PriorityClass")}
OWNER_OBJECTS = {
    item["metadata"]["uid"]: item
    for item in ITEMS
    if item["kind"] not in {"Queue", "PodGroup", "Pod", "PriorityClass", "ConfigMap"}
}


def pods_of(pod_group: str) -> list[JSON]:
    namespace = POD_GROUPS[pod_group]["metadata"]["namespace"]
    return [
        pod
        for pod in PODS
        if pod["metadata"]["namespace"] == namespace
        and pod["metadata"]["annotations"]["pod-group-name"] == pod_group
    ]


# -- the committed file is the generator's output ------------------------------------------------


def test_committed_snapshot_is_exactly_what_the_generator_writes() -> None:
    generator = runpy.run_path(str(GENERATOR), run_name="make_example_cluster")
    expected: str = generator["render"]()
    assert SNAPSHOT.read_text(encoding="utf-8") == expected
    assert expected.endswith("}\n")
    assert json.loads(expected) == generator["build"]()


def test_generator_output_does_not_change_between_runs() -> None:
    first = runpy.run_path(str(GENERATOR), run_name="make_example_cluster")["render"]()
    second = runpy.run_path(str(GENERATOR), run_name="make_example_cluster")["render"]()
    assert first == second


def test_snapshot_ships_as_a_package_resource() -> None:
    resource = importlib.resources.files("minruntime") / "data" / "example-cluster.json"
    assert json.loads(resource.read_text(encoding="utf-8")) == SNAPSHOT_DATA


def test_snapshot_is_a_kubectl_list_of_the_expected_kinds() -> None:
    assert {key: SNAPSHOT_DATA[key] for key in ("apiVersion", "kind", "metadata")} == {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
    counts: dict[str, int] = {}
    for item in ITEMS:
        counts[item["kind"]] = counts.get(item["kind"], 0) + 1
    assert counts == {
        "Queue": 9,
        "PodGroup": 22,
        "Pod": 58,
        "PriorityClass": 4,
        "ConfigMap": 1,
        "PyTorchJob": 1,
        "Job": 1,
        "CronJob": 1,
    }
    refs = [ref(item) for item in ITEMS]
    assert len(refs) == len(set(refs))


# -- CRD schemas ---------------------------------------------------------------------------------


CRD_ITEMS = [item for item in ITEMS if item["kind"] in CRD_FILES]


@pytest.mark.parametrize("item", CRD_ITEMS, ids=[ref(item) for item in CRD_ITEMS])
def test_custom_resource_validates_against_its_crd_schema(item: JSON) -> None:
    definition = crd(item["kind"])
    validator = jsonschema.Draft7Validator(definition.schema)
    assert [error.message for error in validator.iter_errors(item)] == []
    assert list(pruned_fields(item, definition.schema)) == []
    assert item["apiVersion"] == definition.api_version
    assert ("namespace" in item["metadata"]) == (definition.scope == "Namespaced")


def test_crd_validation_is_not_vacuous() -> None:
    """The schema really rejects what the example must avoid: semi-preemptible in spec."""
    schema = crd("PodGroup").schema
    bad = copy.deepcopy(POD_GROUPS["sam-finetune"])
    bad["spec"]["preemptibility"] = "semi-preemptible"
    bad["spec"]["minMember"] = -1
    messages = sorted(e.message for e in jsonschema.Draft7Validator(schema).iter_errors(bad))
    assert messages == [
        "'semi-preemptible' is not one of ['preemptible', 'non-preemptible']",
        "-1 is less than the minimum of 0",
    ]
    bad["spec"]["minMembers"] = 2
    assert list(pruned_fields(bad, schema)) == ["spec.minMembers"]


def test_example_holds_a_queue_and_a_pod_group_for_the_crd_checks() -> None:
    assert sorted({item["kind"] for item in CRD_ITEMS}) == ["PodGroup", "Queue"]


# -- priority classes and the scheduler config ---------------------------------------------------


def test_priority_classes_are_the_reference_defaults() -> None:
    assert of_kind("PriorityClass") == data_documents("priority-classes.yaml")
    assert PRIORITIES == {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125}
    assert all("globalDefault" not in pc for pc in of_kind("PriorityClass"))


def test_scheduler_config_map_reads_as_5m_15m_lca() -> None:
    (config_map,) = of_kind("ConfigMap")
    assert config_map["metadata"] == {"name": "scheduler-config", "namespace": "kai-scheduler"}
    config = Config.from_scheduler_config(config_map)
    assert config == Config(
        default_preempt_min_runtime="5m",
        default_reclaim_min_runtime="15m",
        reclaim_resolve_method="lca",
    )
    assert config.warnings == ()
    document = yaml.safe_load(config_map["data"]["config.yaml"])  # JSON is valid YAML
    assert document["actions"] == "allocate, consolidation, reclaim, preempt, stalegangeviction"


# -- queues ---------------------------------------------------------------------------------------


def queue_tree() -> QueueTree:
    field = {"preemptMinRuntime": "preempt_min_runtime", "reclaimMinRuntime": "reclaim_min_runtime"}
    records = []
    for queue in QUEUE_OBJECTS:
        spec = queue["spec"]
        record: dict[str, Any] = {"name": queue["metadata"]["name"]}
        record["parent"] = spec.get("parentQueue")
        record.update({field[key]: spec[key] for key in field if key in spec})
        records.append(record)
    return QueueTree.from_records(records, origin="example-cluster.json")


def test_queues_form_the_documented_three_level_tree() -> None:
    tree = queue_tree()
    settings = {
        queue.name: (
            queue.parent,
            None if queue.preempt_min_runtime is None else str(queue.preempt_min_runtime),
            None if queue.reclaim_min_runtime is None else str(queue.reclaim_min_runtime),
        )
        for queue in (tree[obj["metadata"]["name"]] for obj in QUEUE_OBJECTS)
    }
    assert settings == {
        "company": (None, None, "1h"),
        "research": ("company", "10m", "30m"),
        "research-vision": ("research", None, "2h"),
        "research-nlp": ("research", None, None),
        "production": ("company", "never", None),
        "prod-inference": ("production", None, None),
        "prod-batch": ("production", "5m", None),
        "sandbox": (None, None, "0s"),
        "sandbox-users": ("sandbox", None, None),
    }
    assert tree.ancestors("research-vision") == ("research", "company")


def test_jobs_live_in_leaf_queues_only() -> None:
    tree = queue_tree()
    used = {pg["spec"]["queue"] for pg in POD_GROUPS.values()}
    assert used == {
        "research-vision",
        "research-nlp",
        "prod-inference",
        "prod-batch",
        "sandbox-users",
    }
    assert all(tree.children(name) == () for name in used)


# -- pods, pod groups, owners ---------------------------------------------------------------------


def test_every_pod_belongs_to_a_pod_group_in_its_namespace() -> None:
    for pod in PODS:
        name = pod["metadata"]["annotations"]["pod-group-name"]
        assert POD_GROUPS[name]["metadata"]["namespace"] == pod["metadata"]["namespace"]
        assert pod["spec"]["schedulerName"] == "kai-scheduler"
    assert sum(len(pods_of(name)) for name in POD_GROUPS) == len(PODS)


def test_sub_group_labels_name_declared_sub_groups() -> None:
    for name, pg in POD_GROUPS.items():
        entries = pg["spec"].get("subGroups", [])
        sets = {sg["parent"] for sg in entries if "parent" in sg}
        declared = [sg["name"] for sg in entries if sg["name"] not in sets]  # pods go in leaves
        labels = [
            pod["metadata"]["labels"].get("kai.scheduler/subgroup-name") for pod in pods_of(name)
        ]
        if declared:
            assert sorted(set(labels)) == sorted(declared), name  # pods are listed by name
        else:
            assert set(labels) == {None}, name


def test_pod_counts_phases_and_min_members_per_pod_group() -> None:
    def phases(name: str) -> str:
        marks = {"Running": "R", "Pending": "P", "Succeeded": "S", "Failed": "F"}
        return "".join(
            "D" if pod["metadata"].get("deletionTimestamp") else marks[pod["status"]["phase"]]
            for pod in pods_of(name)
        )

    table = {
        name: (
            pg["spec"].get("minMember", pg["spec"].get("minSubGroup")),
            phases(name),
            pg["spec"].get("subGroups"),
        )
        for name, pg in POD_GROUPS.items()
    }
    assert table == {
        "etl-hourly": (2, "RR", None),
        "feature-backfill": (2, "RR", None),
        "nightly-eval-29921880": (2, "RR", None),
        "video-transcode": (2, "RRD", None),
        "bert-distill": (2, "RR", None),
        "data-dedup": (3, "RRR", None),
        "finetune-7b": (4, "PPPP", None),
        "llama-sft": (
            3,
            "RRRRR",
            [{"name": "launcher", "minMember": 1}, {"name": "workers", "minMember": 2}],
        ),
        "llm-serve-disagg": (  # minSubGroup 2, no minMember: they exclude each other
            2,
            "RRRRR",
            [
                {"name": "decode", "minSubGroup": 1},
                {"name": "router", "minMember": 1},
                {"name": "decode-0", "parent": "decode", "minMember": 2},
                {"name": "decode-1", "parent": "decode", "minMember": 2},
            ],
        ),
        "rlhf-reward-model": (2, "RR", None),
        "tokenizer-ablation": (1, "R", None),
        "chat-api": (2, "PP", None),
        "embeddings-api": (2, "RR", None),
        "reranker-canary": (1, "R", None),
        "sdxl-render": (2, "RR", None),
        "alice-notebook": (1, "R", None),
        "bob-debug": (1, "R", None),
        "carol-hpo-trial-17": (1, "R", None),
        "detr-sweep-lr3e-4": (2, "RR", None),
        "sam-finetune": (2, "RRRR", None),
        "segformer-eval": (1, "RRSF", None),
        "vit-pretrain": (
            5,
            "RRRRRRR",
            [{"name": "master", "minMember": 1}, {"name": "worker", "minMember": 4}],
        ),
    }


def test_pending_pod_groups_are_the_two_preemptors() -> None:
    pending = {
        name: (pg["metadata"]["namespace"], pg["spec"]["queue"], pg["spec"]["priorityClassName"])
        for name, pg in POD_GROUPS.items()
        if all(pod["status"]["phase"] == "Pending" for pod in pods_of(name))
    }
    assert pending == {
        "finetune-7b": ("nlp-team", "research-nlp", "build-preemptible"),
        "chat-api": ("serving", "prod-inference", "inference"),
    }
    for name in pending:
        assert "annotations" not in POD_GROUPS[name]["metadata"]
        assert [pod["spec"].get("nodeName") for pod in pods_of(name)] == [None] * len(pods_of(name))


def test_scheduled_pods_fit_on_their_8_gpu_nodes() -> None:
    used: dict[str, int] = {}
    for pod in PODS:
        holds = pod["status"]["phase"] == "Running"
        assert ("nodeName" in pod["spec"]) == (pod["status"]["phase"] != "Pending")
        if holds:
            gpus = int(pod["spec"]["containers"][0]["resources"]["limits"].get("nvidia.com/gpu", 0))
            used[pod["spec"]["nodeName"]] = used.get(pod["spec"]["nodeName"], 0) + gpus
    assert max(used.values()) == 8
    assert sum(used.values()) == 162  # the CPU-only pods (etl-hourly, data-dedup) hold none


def test_owner_references_resolve_to_owners_in_the_snapshot() -> None:
    chains = {}
    for pod in PODS:
        chain = []
        references = pod["metadata"].get("ownerReferences", [])
        while references:
            (reference,) = references
            owner = OWNER_OBJECTS[reference["uid"]]
            assert (owner["apiVersion"], owner["kind"], owner["metadata"]["name"]) == (
                reference["apiVersion"],
                reference["kind"],
                reference["name"],
            )
            assert owner["metadata"]["namespace"] == pod["metadata"]["namespace"]
            chain.append(f"{owner['kind']}/{owner['metadata']['name']}")
            references = owner["metadata"].get("ownerReferences", [])
        if chain:
            chains[pod["metadata"]["annotations"]["pod-group-name"]] = chain
    assert chains == {
        "nightly-eval-29921880": ["Job/nightly-eval-29921880", "CronJob/nightly-eval"],
        "vit-pretrain": ["PyTorchJob/vit-pretrain"],
    }


# -- what the example demonstrates -----------------------------------------------------------------


def owners_of(pod: Mapping[str, Any]) -> list[Owner]:
    """The pod's owners, nearest first."""
    owners = []
    references = pod["metadata"].get("ownerReferences", [])
    while references:
        owner = OWNER_OBJECTS[references[0]["uid"]]
        group = owner["apiVersion"].rpartition("/")[0]
        owners.append(
            Owner(
                owner["kind"],
                owner["metadata"]["name"],
                group=group,
                labels=owner["metadata"].get("labels", {}),
                annotations=owner["metadata"].get("annotations", {}),
            )
        )
        references = owner["metadata"].get("ownerReferences", [])
    return owners


def preemptibility_of(name: str) -> tuple[str, str, str, tuple[str, ...]]:
    """(value, source, detail, warnings) for a pod group of the example.

    The example marks its semi-preemptible job with the ``kai.scheduler/preemptibility`` label on
    the PodGroup (the CRD's spec enum has no semi-preemptible), read here as the explicit value.
    """
    pg = POD_GROUPS[name]
    first_pod = pods_of(name)[0]
    result = determine_preemptibility(
        priority=PRIORITIES[pg["spec"]["priorityClassName"]],
        explicit=pg["spec"].get("preemptibility")
        or pg["metadata"].get("labels", {}).get(PREEMPTIBILITY_KEY),
        owners=owners_of(first_pod),
        pod_labels=first_pod["metadata"]["labels"],
        pod_annotations=first_pod["metadata"]["annotations"],
    )
    return str(result.value), str(result.source.value), result.detail, result.warnings


def legacy(priority: int, value: str) -> tuple[str, str, str, tuple[str, ...]]:
    sign = "<" if value == "preemptible" else ">="
    detail = f"legacy rule: priority {priority} {sign} 100"
    return value, "legacy-priority", detail, (f"no preemptibility set; {detail} gives {value}",)


EXPLICIT = "the explicit field"


def test_each_pod_group_has_the_documented_preemptibility_and_source() -> None:
    got = {name: preemptibility_of(name) for name in POD_GROUPS}
    assert got == {
        "vit-pretrain": ("preemptible", "owner", "label on PyTorchJob/vit-pretrain", ()),
        "detr-sweep-lr3e-4": legacy(50, "preemptible"),
        "segformer-eval": legacy(50, "preemptible"),
        "sam-finetune": ("semi-preemptible", "explicit", EXPLICIT, ()),
        "finetune-7b": legacy(75, "preemptible"),
        "tokenizer-ablation": legacy(50, "preemptible"),
        "bert-distill": legacy(50, "preemptible"),
        "llama-sft": ("preemptible", "explicit", EXPLICIT, ()),
        "llm-serve-disagg": ("preemptible", "explicit", EXPLICIT, ()),
        "rlhf-reward-model": ("non-preemptible", "explicit", EXPLICIT, ()),
        "data-dedup": legacy(50, "preemptible"),
        "chat-api": legacy(125, "non-preemptible"),
        "embeddings-api": legacy(125, "non-preemptible"),
        "reranker-canary": legacy(75, "preemptible"),
        "sdxl-render": legacy(50, "preemptible"),
        "nightly-eval-29921880": (
            "preemptible",
            "owner",
            "label on CronJob/nightly-eval",
            ("skipped invalid preemptibility 'sometimes' in label on Job/nightly-eval-29921880",),
        ),
        "feature-backfill": legacy(50, "preemptible"),
        "video-transcode": legacy(75, "preemptible"),
        "etl-hourly": legacy(50, "preemptible"),
        "alice-notebook": legacy(100, "non-preemptible"),
        "bob-debug": ("preemptible", "pod", "label on the pod", ()),
        "carol-hpo-trial-17": legacy(50, "preemptible"),
    }
    assert Preemptibility.parse(got["sam-finetune"][0]) is Preemptibility.SEMI_PREEMPTIBLE
    assert PreemptibilitySource(got["bob-debug"][1]) is PreemptibilitySource.POD


def test_start_times_cover_past_future_unparseable_and_missing() -> None:
    parsed = {
        name: parse_start_time(
            pg["metadata"].get("annotations", {}).get(START_TIME_ANNOTATION),
            origin=f"PodGroup/{name}",
        )
        for name, pg in POD_GROUPS.items()
    }
    starts = {name: p.value for name, p in parsed.items()}
    assert starts["reranker-canary"] == datetime(2026, 11, 22, 12, 0, 5, tzinfo=UTC)
    assert starts["carol-hpo-trial-17"] == datetime(2026, 11, 22, 11, 59, 59, tzinfo=UTC)
    assert starts["embeddings-api"] == datetime(2026, 11, 15, 8, 0, tzinfo=UTC)
    assert {name for name, start in starts.items() if start is None} == {
        "finetune-7b",
        "chat-api",
        "etl-hourly",
        "data-dedup",
    }
    assert {name: p.warnings for name, p in parsed.items() if p.warnings} == {
        "data-dedup": (
            "invalid timestamp '2026-11-22 11:00' in PodGroup/data-dedup (expected RFC 3339 "
            "with a zone, e.g. '2026-11-22T11:50:00Z'); treated as no start time",
        )
    }
    assert sum(start is not None and start > NOW for start in starts.values()) == 1
    assert len({start for start in starts.values() if start is not None}) == 18


# (action, preemptor pod group, victim pod group) -> (MR, the queue that set it, protected at NOW)
MR_AT_NOON = [
    (Action.RECLAIM, "finetune-7b", "vit-pretrain", "2h", "research-vision", True),
    (Action.RECLAIM, "chat-api", "vit-pretrain", "30m", "research", False),
    (Action.RECLAIM, "finetune-7b", "detr-sweep-lr3e-4", "2h", "research-vision", True),
    (Action.RECLAIM, "chat-api", "detr-sweep-lr3e-4", "30m", "research", False),
    (Action.RECLAIM, "finetune-7b", "segformer-eval", "2h", "research-vision", False),
    (Action.PREEMPT, "finetune-7b", "tokenizer-ablation", "10m", "research", True),
    (Action.PREEMPT, "finetune-7b", "bert-distill", "10m", "research", False),
    (Action.RECLAIM, "chat-api", "llama-sft", "30m", "research", True),
    (Action.RECLAIM, "chat-api", "data-dedup", "30m", "research", False),
    (Action.PREEMPT, "chat-api", "reranker-canary", "never", "production", True),
    (Action.RECLAIM, "finetune-7b", "reranker-canary", "1h", "company", True),
    (Action.PREEMPT, "chat-api", "sdxl-render", "never", "production", True),
    (Action.RECLAIM, "finetune-7b", "sdxl-render", "1h", "company", False),
    (Action.RECLAIM, "finetune-7b", "nightly-eval-29921880", "1h", "company", False),
    (Action.PREEMPT, "chat-api", "feature-backfill", "5m", "prod-batch", True),
    (Action.RECLAIM, "chat-api", "feature-backfill", "1h", "company", True),
    (Action.PREEMPT, "chat-api", "video-transcode", "5m", "prod-batch", False),
    (Action.RECLAIM, "chat-api", "video-transcode", "1h", "company", True),
    (Action.RECLAIM, "finetune-7b", "etl-hourly", "1h", "company", False),
    (Action.RECLAIM, "finetune-7b", "carol-hpo-trial-17", "0s", "sandbox", False),
    (Action.PREEMPT, "chat-api", "carol-hpo-trial-17", "5m", None, True),
    (Action.RECLAIM, "chat-api", "bob-debug", "0s", "sandbox", False),
]


@pytest.mark.parametrize(
    ("action", "preemptor", "victim", "min_runtime", "source", "protected"),
    MR_AT_NOON,
    ids=[f"{a.value}-{p}-{v}" for a, p, v, *_ in MR_AT_NOON],
)
def test_min_runtime_and_protection_at_noon_are_as_documented(
    action: Action,
    preemptor: str,
    victim: str,
    min_runtime: str,
    source: str | None,
    protected: bool,
) -> None:
    (config_map,) = of_kind("ConfigMap")
    config = Config.from_scheduler_config(config_map)
    victim_group = POD_GROUPS[victim]
    resolution = resolve(
        queue_tree(),
        config,
        action,
        POD_GROUPS[preemptor]["spec"]["queue"],
        victim_group["spec"]["queue"],
    )
    assert (resolution.min_runtime, resolution.source) == (MinRuntime(min_runtime), source)
    start = parse_start_time(
        victim_group["metadata"].get("annotations", {}).get(START_TIME_ANNOTATION)
    ).value
    assert is_protected(resolution.min_runtime, start, NOW) is protected

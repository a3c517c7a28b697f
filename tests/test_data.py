"""The test data in ``tests/data/``: objects of the real shapes, valid against the reference
scheduler's CRD schemas, read as the library should; and the reduced schemas faithful to the
published ones where those are at hand.

The reduced schemas are checked against the reference's published CRD files when the folder
named by ``MINRUNTIME_REFERENCE_CRDS`` holds them (CI sets it where a copy exists); without it
those three checks do not run, and the summary says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tests.world import (
    CRD_FILES,
    DATA,
    Crd,
    crd,
    data_documents,
    load_yaml_documents,
    pruned_fields,
)

from minruntime import Preemptibility, PreemptibilitySource, TaskStatus
from minruntime.kube import read_snapshot

SAMPLES = ["default-queues.yaml", "team-queues.yaml", "priority-classes.yaml", "pod-groups.yaml"]

REFERENCE_CRDS = os.environ.get("MINRUNTIME_REFERENCE_CRDS", "")
"""A folder holding the reference scheduler's published CRD files (the names of ``CRD_FILES``)."""

# Keys of a schema node that say what a value may be: a reduced schema keeps each of them as
# published on every node it keeps (it may leave out nodes, and descriptions, never loosen one).
CONSTRAINTS = (
    "type",
    "format",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "minLength",
    "pattern",
    "required",
    "anyOf",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
)


def sample_objects() -> list[tuple[str, Any]]:
    return [(name, obj) for name in SAMPLES for obj in data_documents(name)]


def object_id(case: tuple[str, Any]) -> str:
    name, obj = case
    metadata = obj["metadata"]
    where = f"{metadata['namespace']}/" if "namespace" in metadata else ""
    return f"{name}:{obj['kind']}/{where}{metadata['name']}"


CUSTOM_RESOURCES = [case for case in sample_objects() if case[1]["kind"] in CRD_FILES]


def test_every_sample_file_holds_objects_of_the_kinds_it_names() -> None:
    kinds = {name: sorted({obj["kind"] for obj in data_documents(name)}) for name in SAMPLES}
    assert kinds == {
        "default-queues.yaml": ["Queue"],
        "team-queues.yaml": ["Queue"],
        "priority-classes.yaml": ["PriorityClass"],
        "pod-groups.yaml": ["Pod", "PodGroup"],
    }
    assert len(CUSTOM_RESOURCES) == 8  # 5 queues, 3 pod groups


@pytest.mark.parametrize("case", CUSTOM_RESOURCES, ids=[object_id(c) for c in CUSTOM_RESOURCES])
def test_every_custom_resource_is_valid_against_its_crd(case: tuple[str, Any]) -> None:
    _, obj = case
    definition = crd(obj["kind"])
    validator = jsonschema.Draft7Validator(definition.schema)
    assert [error.message for error in validator.iter_errors(obj)] == []
    assert list(pruned_fields(obj, definition.schema)) == []
    assert obj["apiVersion"] == definition.api_version
    assert ("namespace" in obj["metadata"]) == (definition.scope == "Namespaced")


def test_the_crds_are_the_three_custom_resources_with_their_versions_and_scopes() -> None:
    assert {kind: (crd(kind).api_version, crd(kind).scope) for kind in CRD_FILES} == {
        "Queue": ("scheduling.run.ai/v2", "Cluster"),
        "PodGroup": ("scheduling.run.ai/v2alpha2", "Namespaced"),
        "SchedulingShard": ("kai.scheduler/v1", "Cluster"),
    }
    assert sorted(path.name for path in (DATA / "crds").iterdir()) == sorted(CRD_FILES.values())


def test_the_queue_crd_refuses_a_number_for_a_min_runtime_and_prunes_an_unknown_field() -> None:
    """The reduced schema has teeth: min-runtimes are strings, and a misspelt field would go."""
    definition: Crd = crd("Queue")
    (research, *_) = data_documents("team-queues.yaml")
    bad = {**research, "spec": {**research["spec"], "reclaimMinRuntime": 3600}}
    messages = [e.message for e in jsonschema.Draft7Validator(definition.schema).iter_errors(bad)]
    assert messages == ["3600 is not of type 'string'"]
    typo = {**research, "spec": {**research["spec"], "preemptMinRunTime": "5m"}}
    assert list(pruned_fields(typo, definition.schema)) == ["spec.preemptMinRunTime"]


def test_the_pod_groups_read_as_three_jobs_of_the_team_queues() -> None:
    objects = [obj for name in SAMPLES[1:] for obj in data_documents(name)]
    snapshot = read_snapshot(objects)
    assert list(snapshot.tree) == ["research", "vision", "speech"]
    summary = {
        entry.id: (
            entry.job.queue,
            entry.priority_class,
            entry.job.priority,
            entry.preemptibility.value,
            entry.preemptibility.source,
            entry.job.start_time,
            [(ps.name, ps.parent, ps.min_available, len(ps.tasks)) for ps in entry.job.pod_sets],
        )
        for entry in snapshot.jobs
    }
    assert summary == {
        "speech/asr-serving": (
            "speech",
            "inference",
            125,
            Preemptibility.NON_PREEMPTIBLE,
            PreemptibilitySource.LEGACY_PRIORITY,
            None,
            [("default", None, 1, 1)],
        ),
        "vision/detector": (
            "vision",
            "train",
            50,
            Preemptibility.PREEMPTIBLE,
            PreemptibilitySource.EXPLICIT,
            datetime(2026, 11, 22, 11, 20, tzinfo=UTC),
            [("default", None, 2, 4)],
        ),
        "vision/vit-sweep": (
            "vision",
            "build-preemptible",
            75,
            Preemptibility.PREEMPTIBLE,
            PreemptibilitySource.LEGACY_PRIORITY,
            datetime(2026, 11, 22, 11, 55, tzinfo=UTC),
            [("trial-a", "root", 1, 1), ("trial-b", "root", 1, 1)],
        ),
    }
    (sweep,) = [entry.job for entry in snapshot.jobs if entry.id == "vision/vit-sweep"]
    assert [task.status for pod_set in sweep.pod_sets for task in pod_set.tasks] == [
        TaskStatus.RUNNING,
        TaskStatus.PENDING,
    ]


# -- the reduced schemas against the published ones ---------------------------------------------


def loosened(ours: Mapping[str, Any], theirs: Mapping[str, Any], path: str) -> Iterator[str]:
    """Where ``ours`` is not a reduction of ``theirs``: a node that the published schema does not
    have, or a constraint on a kept node that differs from the published one."""
    for key in CONSTRAINTS:
        if ours.get(key) != theirs.get(key):
            yield f"{path}: {key} {ours.get(key)!r} != published {theirs.get(key)!r}"
    for name, child in ours.get("properties", {}).items():
        published = theirs.get("properties", {}).get(name)
        if published is None:
            yield f"{path}.{name}: not in the published schema"
        else:
            yield from loosened(child, published, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(ours.get(key), Mapping):
            if not isinstance(theirs.get(key), Mapping):
                yield f"{path}: {key} not in the published schema"
            else:
                yield from loosened(ours[key], theirs[key], f"{path}[{key}]")


def reference_file(kind: str) -> Path:
    if not REFERENCE_CRDS:
        pytest.skip(
            "the reference scheduler's published CRD files are not at hand "
            "(set MINRUNTIME_REFERENCE_CRDS to a folder holding them; see tests/data/README.md)"
        )
    return Path(REFERENCE_CRDS) / CRD_FILES[kind]


@pytest.mark.parametrize("kind", sorted(CRD_FILES))
def test_each_reduced_crd_keeps_the_published_constraints_of_what_it_keeps(kind: str) -> None:
    (published,) = load_yaml_documents(reference_file(kind))
    (ours,) = data_documents(f"crds/{CRD_FILES[kind]}")
    assert ours["metadata"]["name"] == published["metadata"]["name"]
    for key in ("group", "names", "scope"):
        assert ours["spec"][key] == published["spec"][key]
    (version,) = [v for v in published["spec"]["versions"] if v.get("storage")]
    assert crd(kind).api_version == f"{published['spec']['group']}/{version['name']}"
    schema = version["schema"]["openAPIV3Schema"]
    assert list(loosened(crd(kind).schema, schema, kind)) == []


def test_the_reduction_check_finds_a_loosened_constraint_and_an_invented_field() -> None:
    published = {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}}
    reduced = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    assert list(loosened(reduced, published, "Q")) == [
        "Q.a: enum None != published ['x']",
        "Q.b: not in the published schema",
    ]
    assert list(loosened({"type": "object"}, published, "Q")) == []

"""The bundled example of the reference scheduler's own snapshot (``examples/example-snapshot.zip``).

It must be what ``examples/make_example_snapshot.py`` writes, be exactly the shape the
``/get-snapshot`` endpoint returns (one ``snapshot.json``: ``config``, ``schedulerParams``,
``rawObjects`` lists of objects without ``apiVersion``/``kind``), hold objects that validate
against the reference scheduler's CRD schemas, and read as the same cluster as the bundled one.
"""

from __future__ import annotations

import io
import json
import runpy
import zipfile
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from tests.test_example_cluster import SNAPSHOT as CLUSTER
from tests.world import crd

from minruntime.cli import main
from minruntime.kube import load_objects, load_snapshot_archive, read_snapshot

REPO = Path(__file__).resolve().parents[1]
ARCHIVE = REPO / "examples" / "example-snapshot.zip"
GENERATOR = REPO / "examples" / "make_example_snapshot.py"


def document() -> dict[str, Any]:
    with zipfile.ZipFile(ARCHIVE) as archive:
        assert archive.namelist() == ["snapshot.json"]
        data: dict[str, Any] = json.loads(archive.read("snapshot.json"))
    return data


def test_the_archive_is_the_generators_output() -> None:
    generator = runpy.run_path(str(GENERATOR))
    assert generator["archive"](generator["snapshot"]()) == ARCHIVE.read_bytes()


def test_the_archive_has_the_reference_schedulers_shape() -> None:
    data = document()
    assert sorted(data) == ["config", "rawObjects", "schedulerParams"]
    assert sorted(data["rawObjects"]) == [
        "configMaps",
        "nodes",
        "podGroups",
        "pods",
        "priorityClasses",
        "queues",
    ]
    counts = {key: len(objects) for key, objects in data["rawObjects"].items()}
    assert counts == {
        "queues": 9,
        "podGroups": 22,
        "pods": 58,
        "priorityClasses": 4,
        "configMaps": 1,
        "nodes": 2,
    }
    for objects in data["rawObjects"].values():
        for obj in objects:
            assert "apiVersion" not in obj
            assert "kind" not in obj
    plugins = [p["name"] for tier in data["config"]["tiers"] for p in tier["plugins"]]
    assert "minruntime" in plugins


@pytest.mark.parametrize(("key", "kind"), [("queues", "Queue"), ("podGroups", "PodGroup")])
def test_its_custom_resources_validate_against_their_crd_schemas(key: str, kind: str) -> None:
    definition = crd(kind)
    validator = jsonschema.Draft7Validator(definition.schema)
    for obj in document()["rawObjects"][key]:
        typed = {"apiVersion": definition.api_version, "kind": kind, **obj}
        assert [error.message for error in validator.iter_errors(typed)] == []


def test_it_reads_as_the_bundled_cluster() -> None:
    from_archive = read_snapshot(load_snapshot_archive(ARCHIVE.read_bytes(), origin="example"))
    from_cluster = read_snapshot(load_objects(CLUSTER.read_text(encoding="utf-8")))
    assert list(from_archive.tree) == list(from_cluster.tree)
    assert from_archive.config == from_cluster.config
    assert [job.id for job in from_archive.jobs] == [job.id for job in from_cluster.jobs]
    # the owners (a Job, a CronJob, a PyTorchJob) are not in the reference's snapshot: only the
    # preemptibility an owner's label gave can differ, and it falls back on the legacy rule
    differ = []
    for a, b in zip(from_archive.jobs, from_cluster.jobs, strict=True):
        assert attrs.evolve(a.job, preemptibility=b.job.preemptibility) == b.job
        if a.job != b.job:
            sources = (str(b.preemptibility.source), str(a.preemptibility.source))
            assert sources == ("owner", "legacy-priority")
            differ.append(a.id)
    assert differ == ["batch/nightly-eval-29921880", "vision-team/vit-pretrain"]


def test_explain_reads_the_archive_file() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["explain", str(ARCHIVE), "--now", "2026-11-22T12:00:00Z"], stdout=out, stderr=err
    )
    assert status == 0
    assert out.getvalue().splitlines()[0] == (
        f"Snapshot: {ARCHIVE} (9 queues, 22 pod groups, 20 running)"
    )

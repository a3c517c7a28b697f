"""benchmarks/reader_scale.py runs at a small scale (so that it cannot rot): it generates the
cluster it says, the reader reads all of it, and every case it measures runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "reader_scale.py"


def load_benchmark() -> Any:
    spec = importlib.util.spec_from_file_location("reader_scale", BENCHMARK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_cluster_has_the_counts_and_kinds_asked_for() -> None:
    cluster = load_benchmark().make_cluster(40, 30, 250)
    kinds: dict[str, int] = {}
    for item in cluster["items"]:
        kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
    assert kinds == {"Queue": 40, "PriorityClass": 4, "ConfigMap": 1, "PodGroup": 30, "Pod": 250}
    pod = next(item for item in cluster["items"] if item["kind"] == "Pod")
    assert sorted(pod["metadata"]) == [
        "annotations",
        "creationTimestamp",
        "labels",
        "name",
        "namespace",
        "ownerReferences",
    ]


def test_the_lean_cluster_holds_only_the_fields_the_reader_reads() -> None:
    cluster = load_benchmark().make_cluster(40, 30, 250, lean=True)
    pods = [item for item in cluster["items"] if item["kind"] == "Pod"]
    assert len(pods) == 250
    assert {tuple(sorted(pod["metadata"])) for pod in pods} <= {
        ("annotations", "name", "namespace"),
        ("annotations", "labels", "name", "namespace"),  # a sub-group's label
    }
    assert {tuple(sorted(pod)) for pod in pods} == {
        ("apiVersion", "kind", "metadata", "spec", "status")
    }
    groups = [item for item in cluster["items"] if item["kind"] == "PodGroup"]
    assert {tuple(sorted(group)) for group in groups} == {
        ("apiVersion", "kind", "metadata", "spec")
    }
    queue = next(item for item in cluster["items"] if item["kind"] == "Queue")
    assert sorted(queue["metadata"]) == ["name"]


def test_the_benchmark_runs_on_the_lean_cluster_at_a_small_scale() -> None:
    results = load_benchmark().run(0.005, repeat=1, write=False, lean=True)
    assert (results["lean"], results["read"]["jobs"], results["read"]["tasks"]) == (True, 100, 800)


def test_the_benchmark_runs_every_case_at_a_small_scale(capsys: pytest.CaptureFixture[str]) -> None:
    results = load_benchmark().run(0.005, repeat=1, write=False)
    assert results["counts"] == {"queues": 2, "podGroups": 100, "pods": 800}
    # one problem per job: no preemptibility is set, so the legacy rule decides (assumed)
    assert results["read"] == {"jobs": 100, "tasks": 800, "problems": 100}
    assert list(results["cases"]) == [
        "floor",
        "json.load",
        "reader",
        "explain",
        "explain --preemptor --output json",
    ]
    assert results["cases"]["floor"]["time_ratio"] == 1.0
    assert results["cases"]["floor"]["memory_ratio"] == 1.0
    assert all(case["seconds"] > 0 and case["peak_bytes"] > 0 for case in results["cases"].values())
    printed = capsys.readouterr().out
    assert "| `json.load`, the collector off (the floor) |" in printed
    assert "| `explain --preemptor --output json` |" in printed


def test_the_floor_loads_without_the_collector_and_puts_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc
    import json

    path = tmp_path / "cluster.json"
    path.write_text('{"kind": "List", "items": [{"kind": "Queue"}]}', encoding="utf-8")
    enabled: list[bool] = []
    load = json.load

    def watched(handle: Any) -> Any:
        enabled.append(gc.isenabled())
        return load(handle)

    monkeypatch.setattr(json, "load", watched)
    assert gc.isenabled()
    assert load_benchmark()._quiet_load(str(path)) == 2  # "kind" and "items"
    assert enabled == [False]
    assert gc.isenabled()


def test_the_floor_frees_the_document_before_the_collector_is_back(tmp_path: Path) -> None:
    # the command frees what it parsed while the collector is off: a floor that freed it
    # after would pay a collection that walks all of it, and flatter the command
    import gc
    import json

    path = tmp_path / "cluster.json"
    items = [{"kind": "Pod", "metadata": {"name": f"p-{i}"}} for i in range(20_000)]
    path.write_text(json.dumps({"kind": "List", "items": items}), encoding="utf-8")
    collected: list[int] = []

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collected.append(info["generation"])

    benchmark = load_benchmark()
    gc.collect()
    gc.callbacks.append(watch)
    try:
        assert benchmark._quiet_load(str(path)) == 2
        after = len(collected)
        _ = [[] for _ in range(2_000)]  # enough allocations to start a collection
    finally:
        gc.callbacks.remove(watch)
    assert after == 0  # none while the floor ran, though 40,000 mappings were made
    assert collected  # the watch sees collections: the check above could fail


def test_the_stages_add_up_to_the_command_and_the_stage_functions_are_put_back() -> None:
    import minruntime.cli as cli

    before = {
        name: getattr(cli, name) for name in ("read_sources", "read_snapshot", "build_report")
    }
    results = load_benchmark().run(0.005, repeat=1, write=False)
    assert {name: getattr(cli, name) for name in before} == before
    assert list(results["stages"]) == ["explain", "explain --preemptor --output json"]
    for stages in results["stages"].values():
        assert list(stages) == [
            "floor",
            "read_sources",
            "read_snapshot",
            "build_report",
            "output",
            "command",
        ]
        parts = ("read_sources", "read_snapshot", "build_report", "output")
        assert sum(stages[name] for name in parts) == pytest.approx(stages["command"])
        assert all(stages[name] > 0 for name in [*parts, "floor"])

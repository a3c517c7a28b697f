"""The decision-path benchmark runs at a tiny scale, so that it cannot rot: its floors agree
with the library (it stops otherwise) and it writes every row of its table."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _restore_path() -> object:
    saved = list(sys.path)
    yield
    sys.path[:] = saved


def test_the_decision_path_benchmark_runs_at_a_tiny_scale(tmp_path: Path) -> None:
    bench = _load("decision_path")
    output = tmp_path / "decision_path.json"
    assert bench.main(["--scale", "200", "--repeat", "1", "--output", str(output)]) == 0
    results = json.loads(output.read_text(encoding="utf-8"))
    for key in ("objects", "cold", "protocol", "another", "cycle", "naive", "small_cycle"):
        assert results[key]["library_s"] > 0, key
    assert results["scenario"]["victims"] == 500
    assert results["scenario"]["queues"] == 50
    table = output.with_suffix(".md").read_text(encoding="utf-8")
    for label in (
        "building the values (object floor)",
        "first call, new session (cold floor)",
        "first call, own objects (cold floor)",
        "another preemptor (warm floor)",
        "cycle of 100 preemptors (100 warm-floor passes)",
        "small cycle, 32 own jobs (hand loop)",
        "warm call (naive port)",
        "memory per victim",
    ):
        assert label in table


def test_the_scenario_is_the_one_the_issue_defines() -> None:
    """At 1/10 scale: 1,000 queues under 2 top-level ones, no queue deeper than 5, victims in
    queues of depth 3 or more, 8 tasks each, about 10% elastic and 5% never started."""
    bench = _load("decision_path")
    scenario = bench.Scenario(10)
    assert len(scenario.tree) == 1_000
    assert len(scenario.tree.children(None)) == 2
    assert max(scenario.depth.values()) <= 5
    records = scenario.records
    assert len(records) == 10_000
    assert all(scenario.depth[record[1]] >= 3 for record in records)
    assert all(len(record[6]) == 8 for record in records)
    elastic = sum(record[5] < 8 for record in records) / len(records)
    never_started = sum(record[4] is None for record in records) / len(records)
    assert 0.08 < elastic < 0.12
    assert 0.035 < never_started < 0.065

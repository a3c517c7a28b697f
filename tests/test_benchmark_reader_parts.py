"""benchmarks/reader_parts.py runs at a small scale (so that it cannot rot): each part reads
what the whole reader reads, and its table has a row for every part."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark() -> Any:
    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(
            "reader_parts", BENCHMARKS / "reader_parts.py"
        )
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved


def test_each_part_reads_what_the_whole_reader_reads() -> None:
    benchmark = load_benchmark()
    results = benchmark.run(0.005, repeat=1, lean=True, write=False)
    assert results["counts"] == {"queues": 2, "podGroups": 100, "pods": 800}
    assert results["read"] == {
        "podGroups": 100,
        "pods": 800,
        "tasks": 800,
        "reader's tasks": 800,
    }
    assert set(results["seconds"]) == set(benchmark.PARTS)
    assert results["units"]["floor"] == 1.0
    assert all(seconds > 0 for seconds in results["seconds"].values())


def test_the_table_has_a_row_for_every_part() -> None:
    benchmark = load_benchmark()
    results = {
        "scale": 1.0,
        "lean": False,
        "counts": {"queues": 200, "podGroups": 20_000, "pods": 160_000},
        "text_characters": 83_000_000,
        "read": {},
        "seconds": dict.fromkeys(benchmark.PARTS, 0.5),
        "units": dict.fromkeys(benchmark.PARTS, 1.0),
        "repeat": 5,
        "machine": {"python": "3.11.7", "cpus": 2, "load_average": None},
    }
    table = benchmark._table(results)
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 1 + len(benchmark.PARTS)
    assert "| `json.loads` of the text (the floor's parse) | 0.500 | 1.00 |" in rows
    assert "add to 3.00 units, the whole reader 1.00. The checks of the parse add 0.00." in table

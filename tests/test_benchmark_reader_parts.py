"""benchmarks/reader_parts.py runs at a small scale (so that it cannot rot): each part reads
what the whole reader reads, its tables have a row for every part, and the room the targets
leave is the target times the floor less the parse and what follows the reading."""

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
        "bare pods": 800,
        "verdicts": 92,  # one per running job: 92 of the 100 pod groups carry a start stamp
    }
    started = sum(
        1
        for obj in benchmark.make_cluster(2, 100, 800, lean=True)["items"]
        if obj["kind"] == "PodGroup"
        and "kai.scheduler/last-start-timestamp" in obj["metadata"].get("annotations", {})
    )
    assert started == 92
    assert set(results["seconds"]) == set(benchmark.PARTS) | set(benchmark.COMMAND)
    assert results["units"]["floor"] == 1.0
    assert all(seconds > 0 for seconds in results["seconds"].values())
    seconds = results["seconds"]
    assert results["room"] == {
        "explain": {
            "allowed": 3 * seconds["command floor"],
            "parse": seconds["command parse"],
            "after": seconds["report"] + seconds["table"],
            "room": 3 * seconds["command floor"]
            - seconds["command parse"]
            - (seconds["report"] + seconds["table"]),
        },
        "explain --preemptor --output json": {
            "allowed": 3.5 * seconds["command floor"],
            "parse": seconds["command parse"],
            "after": seconds["report with a preemptor"]
            + seconds["JSON data"]
            + seconds["JSON text"],
            "room": 3.5 * seconds["command floor"]
            - seconds["command parse"]
            - (seconds["report with a preemptor"] + seconds["JSON data"] + seconds["JSON text"]),
        },
    }


def test_the_tables_have_a_row_for_every_part() -> None:
    benchmark = load_benchmark()
    seconds = dict.fromkeys([*benchmark.PARTS, *benchmark.COMMAND], 0.5)
    seconds |= {"command floor": 1.0, "command parse": 1.25, "reader": 2.0}
    results = {
        "scale": 1.0,
        "lean": False,
        "counts": {"queues": 200, "podGroups": 20_000, "pods": 160_000},
        "text_characters": 83_000_000,
        "read": {},
        "seconds": seconds,
        "units": dict.fromkeys(benchmark.PARTS, 1.0),
        "room": benchmark.room(seconds),
        "repeat": 5,
        "machine": {"python": "3.11.7", "cpus": 2, "load_average": None},
    }
    table = benchmark._table(results)
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    # a heading and a row for each part, each command part, and the seven rows of the room
    assert len(rows) == 1 + len(benchmark.PARTS) + 1 + len(benchmark.COMMAND) + 1 + 7
    assert "| `json.loads` of the text (the floor's parse) | 0.500 | 1.00 |" in rows
    assert "add to 3.00 units, the whole reader 1.00. The checks of the parse add 0.00." in table
    assert "| the report with a preemptor | 0.500 | 0.50 |" in rows
    # 3 x 1.0 - 1.25 - (0.5 + 0.5) = 0.75; 3.5 x 1.0 - 1.25 - 3 x 0.5 = 0.75
    assert "| **the room for reading the objects** | **0.750** | **0.750** |" in rows
    assert "| the reader today (`read_snapshot`) | 2.000 | 2.000 |" in rows
    assert "| which objects, the pod groups alone and the bare pods | 1.500 | 1.500 |" in rows
    assert "The reader takes 2.00 s where the room is 0.75 s and 0.75 s." in table

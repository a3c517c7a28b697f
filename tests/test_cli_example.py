"""The worked example and the queue tree drawing (``minruntime.cli._example``):
``minruntime example``, and the tree the queues view draws."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tests.world import run

from minruntime.cli import EXAMPLE_NOW, worked_example


def test_example_prints_the_worked_example() -> None:
    result = run(["example"])
    assert result.status == 0
    assert result.err == ""
    assert result.out == worked_example() + "\n"
    lines = result.out.splitlines()
    assert lines[0] == "minruntime worked example, evaluated at 2026-11-22T12:00:00Z"
    section4 = [
        "  leaf1 reclaims from leaf3: 1m from queue 'D'",
        "  leaf1 reclaims from leaf2: 3m from queue 'leaf2'",
        "  leaf3 reclaims from leaf1: 10m from queue 'B'",
        "Preempt min-runtime (walk up from the victim's queue):",
        "  victim in leaf1: 5m from queue 'leaf1'",
        "  victim in leaf2: 10m from queue 'B'",
    ]
    start = lines.index("Reclaim min-runtime by lowest common ancestor (docs/spec/resolution.md):")
    assert lines[start + 1 : start + 1 + len(section4)] == section4


def test_example_ignores_the_injected_clock() -> None:
    assert run(["example"], now=datetime(2030, 1, 1, tzinfo=UTC)) == run(["example"])


def test_example_draws_each_queue_under_its_own_parent() -> None:
    lines = run(["example"]).out.splitlines()
    start = lines.index("Queue tree (preempt / reclaim min-runtime; - = unset, inherited):")
    assert lines[start + 1 : start + 8] == [
        "  A                  preempt -    reclaim -",
        "  `-- B              preempt 10m  reclaim 10m",
        "      |-- C          preempt -    reclaim -",
        "      |   |-- leaf1  preempt 5m   reclaim 0s",
        "      |   `-- leaf2  preempt -    reclaim 3m",
        "      `-- D          preempt -    reclaim 1m",
        "          `-- leaf3  preempt -    reclaim -",
    ]


def test_a_deep_queue_chain_is_drawn_with_its_depth_not_thousands_of_columns() -> None:
    chain = [
        {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": f"q{i}"},
         "spec": {"parentQueue": f"q{i - 1}"} if i else {}}
        for i in range(300)
    ]  # fmt: skip
    lines = run(
        ["explain", "--queues", "-"], stdin=json.dumps(chain), now=EXAMPLE_NOW
    ).out.splitlines()
    rows = [line for line in lines if line.split() and line.split()[-1] == "(<default>)"]
    assert len(rows) == 300
    assert rows[11].split()[:3] == ["[11]", "`--", "q11"]
    assert rows[299].split()[:3] == ["[299]", "`--", "q299"]
    assert max(len(line) for line in lines) <= 110

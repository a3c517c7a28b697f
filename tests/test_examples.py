"""examples/scheduler_loop.py runs as a script and prints the report the tutorial shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "scheduler_loop.py"
TUTORIAL = ROOT / "docs" / "tutorial.md"
COMMAND = "$ python examples/scheduler_loop.py"


def run_script(*arguments: str) -> list[str]:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""
    return completed.stdout.splitlines()


def test_default_cycle_explains_every_candidate_and_sets_the_retry_timer() -> None:
    lines = run_script()
    assert lines[0] == "reclaim cycle at 2026-11-22T12:00:00Z"
    assert lines[1] == "pending job 'vision/detector' in queue 'vision' needs 4 GPUs, 0 free"
    assert (
        "  reclaim of 'vision/labeler' by 'vision/detector': refused: "
        "reclaim only takes victims from other queues"
    ) in lines
    assert (
        "  reclaim of 'nlp/pretrain' by 'vision/detector': allowed: elastic and protected "
        "(min-runtime 2h from queue 'nlp', until 2026-11-22T13:20:00Z): "
        "only tasks above min_available may be evicted"
    ) in lines
    assert (
        "  reclaim of 'nlp/etl' by 'vision/detector': allowed: semi-preemptible: "
        "only tasks above its core may be evicted"
    ) in lines
    assert (
        "  reclaim of 'prod/serving' by 'vision/detector': refused: the victim is non-preemptible"
    ) in lines
    assert (
        "  reclaim of 'prod/eval' by 'vision/detector': refused: min-runtime 1h from queue "
        "'prod': started 2026-11-22T11:40:00Z, protected until 2026-11-22T12:40:00Z"
    ) in lines
    assert lines.count("    evictable: pretrain-3, pretrain-2") == 1
    assert lines.count("    evictable: etl-2") == 1
    tail = lines[lines.index("eligible victims: nlp/pretrain, nlp/etl") :]
    assert tail == [
        "eligible victims: nlp/pretrain, nlp/etl",
        "picked: pretrain-3, pretrain-2, etl-2 (3 GPUs)",
        "scenario: reclaim scenario of 'vision/detector': valid",
        "not enough room: 3 of 4 GPUs can be freed; nothing is evicted",
        "retry at 2026-11-22T12:40:00Z",
        "session: 21 min-runtime lookups, 17 from the cache, 6 jobs",
    ]


def test_enough_room_evicts_the_validated_scenario_and_sets_no_timer() -> None:
    lines = run_script("--gpus", "3")
    assert lines[1] == "pending job 'vision/detector' in queue 'vision' needs 3 GPUs, 0 free"
    assert "picked: pretrain-3, pretrain-2, etl-2 (3 GPUs)" in lines
    assert "scenario: reclaim scenario of 'vision/detector': valid" in lines
    assert "evict 3 tasks: pretrain-3, pretrain-2, etl-2" in lines
    assert not any(line.startswith(("retry at", "not enough room")) for line in lines)


def test_at_the_retry_time_the_protected_gang_is_taken_whole() -> None:
    lines = run_script("--now", "2026-11-22T12:40:00Z")
    assert lines[0] == "reclaim cycle at 2026-11-22T12:40:00Z"
    assert (
        "  reclaim of 'prod/eval' by 'vision/detector': allowed: min-runtime 1h from queue "
        "'prod': started 2026-11-22T11:40:00Z, protection over"
    ) in lines
    assert "    evictable: eval-1, eval-0" in lines
    assert "eligible victims: nlp/pretrain, nlp/etl, prod/eval" in lines
    assert "picked: pretrain-3, pretrain-2, etl-2, eval-1, eval-0 (5 GPUs)" in lines
    assert "evict 5 tasks: pretrain-3, pretrain-2, etl-2, eval-1, eval-0" in lines


def test_one_microsecond_before_the_retry_time_there_is_still_no_room() -> None:
    lines = run_script("--now", "2026-11-22T12:39:59.999999Z")
    assert "not enough room: 3 of 4 GPUs can be freed; nothing is evicted" in lines
    assert "retry at 2026-11-22T12:40:00Z" in lines


def test_a_naive_now_is_refused_with_a_usage_error() -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--now", "2026-11-22T12:40:00"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "'2026-11-22T12:40:00': give a time zone, e.g. 2026-11-22T12:40:00Z" in completed.stderr


def test_tutorial_shows_the_scripts_real_output() -> None:
    text = TUTORIAL.read_text(encoding="utf-8")
    blocks = re.findall(r"^```console\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)
    shown = [block for block in blocks if block.startswith(COMMAND + "\n")]
    assert len(shown) == 1
    assert shown[0].splitlines()[1:] == run_script()


def test_the_script_never_reads_the_clock() -> None:
    """The decision path takes ``now`` as an argument: no clock call anywhere in the script."""
    source = SCRIPT.read_text(encoding="utf-8")
    assert re.findall(r"\.now\(\)|\.utcnow\(\)|\btime\.time\(\)|\.today\(\)", source) == []

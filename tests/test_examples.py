"""examples/scheduler_loop.py runs as a script and prints the report the tutorial shows: one
reclaim cycle that plans and commits for several pending jobs."""

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


DETECTOR_PLAN = (
    "  reclaim plan of 'vision/detector' for nvidia.com/gpu 4: takes 2 tasks of 'nlp/pretrain', "
    "freeing nvidia.com/gpu 4, pods 2 and losing 9600 of unsaved work"
)
TRACKER_SHORT = (
    "  reclaim plan of 'vision/tracker' for nvidia.com/gpu 2: takes 1 task of 'nlp/etl', "
    "freeing nvidia.com/gpu 1, pods 1 and losing 10800 of unsaved work; "
    "still missing nvidia.com/gpu 1; retry at 2026-11-22T12:40:00Z"
)


def test_default_cycle_explains_every_candidate_plans_each_job_and_sets_the_retry_timer() -> None:
    lines = run_script()
    assert lines[:3] == [
        "reclaim cycle at 2026-11-22T12:00:00Z, no GPU free",
        "pending 'vision/detector' needs nvidia.com/gpu 4",
        "pending 'vision/tracker' needs nvidia.com/gpu 2",
    ]
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
    # The first job's plan is committed; the second is not offered its tasks again, takes what
    # is left, falls short, and waits for the first protection that ends.
    assert lines[lines.index("plans:") :] == [
        "plans:",
        DETECTOR_PLAN,
        "    evict pretrain-3, pretrain-2 (lost 2.67 GPU-h)",
        TRACKER_SHORT,
        "    not enough room: nothing is evicted for it",
        "retry at 2026-11-22T12:40:00Z",
        "session: 5 min-runtime lookups, 3 from the cache, 7 jobs",
    ]


def test_a_smaller_first_job_leaves_room_for_the_second_and_sets_no_timer() -> None:
    lines = run_script("--gpus", "2")
    assert lines[1] == "pending 'vision/detector' needs nvidia.com/gpu 2"
    assert lines[lines.index("plans:") :] == [
        "plans:",
        "  reclaim plan of 'vision/detector' for nvidia.com/gpu 2: takes 1 task of "
        "'nlp/pretrain', freeing nvidia.com/gpu 2, pods 1 and losing 4800 of unsaved work",
        "    evict pretrain-3 (lost 1.33 GPU-h)",
        "  reclaim plan of 'vision/tracker' for nvidia.com/gpu 2: takes 1 task of "
        "'nlp/pretrain', freeing nvidia.com/gpu 2, pods 1 and losing 4800 of unsaved work",
        "    evict pretrain-2 (lost 1.33 GPU-h)",
        "session: 3 min-runtime lookups, 1 from the cache, 7 jobs",
    ]


def test_at_the_retry_time_the_gang_goes_first_and_both_jobs_are_placed() -> None:
    lines = run_script("--now", "2026-11-22T12:40:00Z")
    assert lines[0] == "reclaim cycle at 2026-11-22T12:40:00Z, no GPU free"
    assert (
        "  reclaim of 'prod/eval' by 'vision/detector': allowed: min-runtime 1h from queue "
        "'prod': started 2026-11-22T11:40:00Z, protection over"
    ) in lines
    assert "    evictable: eval-1, eval-0" in lines
    # Least unsaved work first: the gang (1 h x 2 GPUs), then etl-2 (3 h 40 m x 1 GPU), then
    # one of pretrain's extra workers (1 h 20 m x 2 GPUs); whole tasks, so 5 GPUs for 4.
    assert "    evict eval-1, eval-0, etl-2, pretrain-3 (lost 8.33 GPU-h)" in lines
    assert "    evict pretrain-2 (lost 2.67 GPU-h)" in lines
    assert not any(line.startswith(("retry at", "    not enough room")) for line in lines)


def test_one_microsecond_before_the_retry_time_there_is_still_no_room() -> None:
    lines = run_script("--now", "2026-11-22T12:39:59.999999Z")
    assert "    not enough room: nothing is evicted for it" in lines
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

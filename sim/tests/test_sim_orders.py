"""The victim order is a choice of the run (``Settings.victim_order``), reported with it.

Hand-computed scenarios in which the orders disagree, so that each order's rule is pinned by
the victim it picks and the work that victim loses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from minruntime import Queue, QueueTree
from minruntime_sim import InvalidSetting, JobSpec, Settings, VictimOrder, Workload, simulate
from minruntime_sim.cli import main
from minruntime_sim.traces import write_csv


def backfill_workload() -> Workload:
    """6 GPUs; queue a deserves 2, queue b 4. a0 (2 GPUs, 30 s) and b0 (2 GPUs, 100 s) start at 0;
    x (4 GPUs, submitted at 1) does not fit, so y (2 GPUs, submitted at 2) starts before it, at
    2; x starts at 100 when b0 ends. At 110 b1 and b2 (2 GPUs each) arrive: b asks for its 4
    deserved GPUs, so a's fair share is 2 and b1 reclaims from a, 4 GPUs over its fair share:
    x was submitted first but started last."""
    return Workload(
        name="backfill",
        tree=QueueTree([Queue("a"), Queue("b")]),
        deserved={"a": 2, "b": 4},
        total_gpus=6,
        jobs=[
            JobSpec(id="a0", queue="a", submit=0, run_time=30, gpus=2),
            JobSpec(id="b0", queue="b", submit=0, run_time=100, gpus=2),
            JobSpec(id="x", queue="a", submit=1, run_time=1000, gpus=4),
            JobSpec(id="y", queue="a", submit=2, run_time=1000, gpus=2),
            JobSpec(id="b1", queue="b", submit=110, run_time=50, gpus=2),
            JobSpec(id="b2", queue="b", submit=110, run_time=50, gpus=2),
        ],
    )


def victims(settings: Settings) -> list[tuple[int, str, int, int]]:
    """(time, job, tasks, lost GPU-seconds) of every eviction of the backfill workload."""
    result = simulate(backfill_workload(), settings)
    return [(e.time, e.job, e.tasks, e.lost_gpu_seconds) for e in result.evictions]


def test_the_default_order_is_the_reference_schedulers() -> None:
    assert Settings().victim_order is VictimOrder.REFERENCE


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        # latest submitted first: y (submitted 2) before x (1); y loses 108 s x 2 GPUs
        ("reference", [(110, "y", 2, 216)]),
        # most recently started first: x (started 100) loses 10 s x 4 GPUs
        ("youngest", [(110, "x", 4, 40)]),
        # longest running first: y (started 2)
        ("oldest", [(110, "y", 2, 216)]),
        # Session.rank_victims: x has 40 unsaved GPU-seconds, y 216
        ("least-unsaved", [(110, "x", 4, 40)]),
    ],
)
def test_each_order_picks_its_victim(order: str, expected: list[tuple[int, str, int, int]]) -> None:
    assert victims(Settings(victim_order=order, restart_overhead=0)) == expected


def test_the_reference_order_takes_a_job_above_its_minimum_before_one_at_it() -> None:
    """4 GPUs, a and b deserve 2 each; a has no over-quota weight, so its fair share stays 2.
    a1 (elastic, 2 GPUs, minimum 1) from 0, a2 (gang of 2) from 5; b1 (1 GPU) reclaims at 10. The reference order takes a1's task above its minimum
    (a partial eviction: nothing lost); youngest first takes a2 whole (5 s x 2 GPUs). a1 runs on
    1 GPU from 10 to 60 (20 + 50 GPU-seconds done), then on 2: 130 / 2 = 65 s, ending at 125."""
    workload = Workload(
        name="elastic",
        tree=QueueTree([Queue("a"), Queue("b")]),
        deserved={"a": 2, "b": 2},
        over_quota_weights={"a": 0},
        total_gpus=4,
        jobs=[
            JobSpec(id="a1", queue="a", submit=0, run_time=100, gpus=2, min_available=1),
            JobSpec(id="a2", queue="a", submit=5, run_time=100, gpus=2),
            JobSpec(id="b1", queue="b", submit=10, run_time=50, gpus=1),
        ],
    )

    reference = simulate(workload, Settings(restart_overhead=0))
    youngest = simulate(workload, Settings(restart_overhead=0, victim_order="youngest"))

    assert [(e.job, e.tasks, e.lost_gpu_seconds) for e in reference.evictions] == [("a1", 1, 0)]
    assert [(job.id, job.finish) for job in reference.jobs] == [
        ("a1", 125),
        ("a2", 105),
        ("b1", 60),
    ]
    assert [(e.job, e.tasks, e.lost_gpu_seconds) for e in youngest.evictions] == [("a2", 2, 10)]


def test_the_random_order_is_seeded_and_reproducible() -> None:
    """Each seed gives one victim, the same every time; over ten seeds both jobs are drawn."""
    picks = {seed: victims(Settings(victim_order="random", seed=seed))[0][1] for seed in range(10)}

    assert picks == {
        seed: victims(Settings(victim_order="random", seed=seed))[0][1] for seed in range(10)
    }
    assert sorted(set(picks.values())) == ["x", "y"]


def test_the_order_is_reported_with_the_result() -> None:
    result = simulate(backfill_workload(), Settings(victim_order="random", seed=3))

    assert result.settings.label == "reclaim=0s preempt=0s checkpoint=drawn order=random seed=3"
    assert (result.settings.to_dict()["victim_order"], result.settings.to_dict()["seed"]) == (
        "random",
        3,
    )
    # the seed only matters to the random order and to drawn checkpoint intervals
    assert Settings(seed=3, checkpoint_interval=600) == Settings(checkpoint_interval=600)
    assert Settings(seed=3) != Settings()


def test_an_unknown_order_is_refused_naming_the_choices() -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings(victim_order="fifo")
    assert str(caught.value) == (
        "victim_order: invalid value 'fifo' (expected one of reference, youngest, oldest, "
        "random, least-unsaved)"
    )


def test_the_command_compares_victim_orders(tmp_path: Path) -> None:
    jobs_file, _ = write_csv(backfill_workload(), tmp_path / "backfill.csv")
    json_path = tmp_path / "out.json"

    status = main(
        [
            str(jobs_file),
            "--victim-order",
            "reference",
            "youngest",
            "--restart-overhead",
            "0",
            "--json",
            str(json_path),
        ]
    )

    assert status == 0
    runs = json.loads(json_path.read_text(encoding="utf-8"))["runs"]
    assert [
        (run["settings"]["victim_order"], run["metrics"]["lost_gpu_seconds"]) for run in runs
    ] == [("reference", 216), ("youngest", 40)]

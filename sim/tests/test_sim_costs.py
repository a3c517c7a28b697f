"""The costs of an eviction: a restart overhead on by default, jobs that save when evicted, and
what checkpoints cost (their duration, their phase after a restore, intervals drawn per job).

The toy workload: 4 GPUs, queues a and b deserve 2 each; a1 (2 GPUs, 100 s) from 0, a2 (2 GPUs,
100 s) from 5; b1 (2 GPUs, 50 s) reclaims at 10 and takes a2 (the latest submitted), which has
done 5 s x 2 GPUs = 10 GPU-seconds. b1 runs 10-60; a2 restarts at 60.
"""

from __future__ import annotations

import math

import attrs
import pytest

from minruntime import Queue, QueueTree
from minruntime_sim import (
    InvalidSetting,
    InvalidTrace,
    JobSpec,
    Settings,
    SimulationResult,
    Workload,
    simulate,
    synthetic_workload,
)
from minruntime_sim.costs import (
    CHECKPOINT_INTERVAL_MEDIAN,
    CHECKPOINT_INTERVAL_RANGE,
    checkpoint_duration,
    draw_checkpoint_interval,
)
from minruntime_sim.model import DEFAULT_RESTART_OVERHEAD
from minruntime_sim.synthetic import toy_workload


def a2(settings: Settings) -> tuple[int, int, int | None]:
    """(lost GPU-seconds, of which restart, finish) of a2."""
    outcome = next(job for job in simulate(toy_workload(), settings).jobs if job.id == "a2")
    return outcome.lost_gpu_seconds, outcome.restart_gpu_seconds, outcome.finish


def test_a_restart_costs_30_seconds_by_default() -> None:
    """30 s x 2 GPUs = 60 GPU-seconds on top of the 10 lost: a2 needs 200 + 60 GPU-seconds from
    60, on 2 GPUs: 130 s, ending at 190."""
    assert Settings().restart_overhead == DEFAULT_RESTART_OVERHEAD == 30
    assert a2(Settings()) == (70, 60, 190)


def test_no_restart_overhead_on_request() -> None:
    """Only the 10 GPU-seconds of progress: a2 ends at 60 + 100 = 160."""
    assert a2(Settings(restart_overhead=0)) == (10, 0, 160)


def test_a_job_that_saves_when_evicted_loses_only_the_save_time() -> None:
    """Saving takes 20 s x 2 GPUs = 40 GPU-seconds and keeps the 10 done: a2 needs 200 - 10 + 40
    = 230 GPU-seconds from 60, 115 s on 2 GPUs, ending at 175 (no restart overhead here)."""
    assert a2(Settings(restart_overhead=0, save_on_preempt=20)) == (40, 0, 175)


def test_saving_and_restarting_add_up() -> None:
    """40 to save, 60 to restart: a2 needs 200 - 10 + 100 = 290 from 60: 145 s, ending at 205."""
    assert a2(Settings(save_on_preempt=20)) == (100, 60, 205)


def test_a_job_that_saves_loses_nothing_under_checkpoint_aware_ranking() -> None:
    """With checkpoints every 100 s and least-unsaved-work ranking the Session counts unsaved work
    since the last checkpoint; a job that saves on eviction loses none of it, and the run does
    not mistake that for a disagreement."""
    settings = Settings(
        policy="checkpoint-aware",
        victim_order="least-unsaved",
        checkpoint_interval=100,
        restart_overhead=0,
        save_on_preempt=0,
    )
    assert a2(settings) == (0, 0, 155)


def test_the_costs_are_reported_with_the_result() -> None:
    settings = Settings(save_on_preempt=20)
    assert settings.label == (
        "reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0 save=20s"
    )
    assert (settings.to_dict()["restart_overhead"], settings.to_dict()["save_on_preempt"]) == (
        30,
        20,
    )


def test_a_negative_save_time_is_refused_naming_it() -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings(save_on_preempt=-1)
    assert str(caught.value) == "save_on_preempt must be None or seconds >= 0, got -1"


# -- checkpoint costs: duration, phase and drawn intervals -----------------------------------

CHECKPOINTER = JobSpec(
    id="x",
    queue="a",
    submit=0,
    run_time=2000,
    gpus=2,
    checkpoint_interval=600,
    checkpoint_duration=30,
    checkpoint_restore=120,
)


def reclaimed(*times: int) -> Workload:
    """A 2-GPU cluster: x (2 GPUs, 2000 s, a checkpoint every 10 m that takes 30 s, a 2 m
    restore after each restart) in queue a, which deserves nothing; one 2-GPU, 100 s job of
    queue b (which deserves both GPUs) arrives at each of ``times`` and reclaims x."""
    return Workload(
        name="costs",
        tree=QueueTree([Queue("a"), Queue("b")]),
        deserved={"a": 0, "b": 2},
        total_gpus=2,
        jobs=[
            CHECKPOINTER,
            *(
                JobSpec(id=f"y{i}", queue="b", submit=t, run_time=100, gpus=2)
                for i, t in enumerate(times)
            ),
        ],
    )


def records(result: SimulationResult) -> list[tuple[int, int, int]]:
    """Per eviction of x: (time, lost GPU-seconds, of which restart)."""
    return [(e.time, e.lost_gpu_seconds, e.restart_gpu_seconds) for e in result.evictions]


def x_outcome(result: SimulationResult) -> tuple[int | None, int, int, int]:
    """x's (finish, lost GPU-seconds, of which restores, checkpoint GPU-seconds)."""
    x = next(job for job in result.jobs if job.id == "x")
    return x.finish, x.lost_gpu_seconds, x.restart_gpu_seconds, x.checkpoint_gpu_seconds


def test_a_restarted_job_checkpoints_an_interval_after_its_restore() -> None:
    """First run from 0 (nothing to restore): x writes its first checkpoint 570-600. Reclaimed
    at 700: 100 s x 2 GPUs = 200 of progress lost, and its restart, 2 m x 2 GPUs = 240: 440.
    It restarts at 800, restores until 920, writes 1490-1520 (an interval after the restore),
    and is reclaimed at 1700: 180 s x 2 = 360 lost + 240 restart = exactly 600 GPU-seconds.

    It has saved 570 x 2 + 570 x 2 = 2280 of its 4000 GPU-seconds; from 1800 it restores until
    1920, computes 570 s, checkpoints 2490-2520, and computes the last 290 s: done at 2810.
    Lost: 200 + 360 of progress and two restores (480): 1040; checkpoints: three of 30 s x 2.
    Busy: 4000 + 1040 + 180 + the two 100 s jobs (400) = 5620."""
    result = simulate(reclaimed(700, 1700))

    assert records(result) == [(700, 440, 240), (1700, 600, 240)]
    assert x_outcome(result) == (2810, 1040, 480, 180)
    assert result.metrics.busy_gpu_seconds == 5620
    assert result.metrics.checkpoint_gpu_seconds == 180


def test_a_checkpoint_cut_short_is_lost_too() -> None:
    """Reclaimed at 1500, 10 s into the checkpoint it began at 1490: the 570 s computed since
    the restore ended at 920 and the 10 s of checkpoint, x 2 GPUs = 1160, + 240 restart."""
    result = simulate(reclaimed(700, 1500))

    assert records(result) == [(700, 440, 240), (1500, 1400, 240)]
    assert x_outcome(result)[1:] == (1840, 480, 180)


def test_a_job_reclaimed_while_it_restores_loses_the_restore_so_far() -> None:
    """Reclaimed at 900, 100 s into its 120 s restore: nothing computed is lost (the record
    charges only the restart to come, 240), but the 100 s x 2 of restore are (x's restores:
    200 + 240)."""
    result = simulate(reclaimed(700, 900))

    assert records(result) == [(700, 440, 240), (900, 240, 240)]
    assert x_outcome(result)[1:3] == (640, 440)


def test_without_checkpoint_costs_checkpoints_are_free_and_follow_the_start() -> None:
    """The earlier model: after the restart at 800 x checkpoints at 1400 (an interval after the
    start, the restore ignored) and at no cost, so at 1700 it loses 300 s x 2 + 240."""
    result = simulate(reclaimed(700, 1700), Settings(checkpoint_costs=False))

    assert records(result) == [(700, 440, 240), (1700, 840, 240)]
    assert x_outcome(result)[3] == 0


def test_the_session_is_told_the_restore_and_waits_for_the_real_checkpoint() -> None:
    """Checkpoint-aware with a 5 m grace: at 1300 x's next checkpoint completes at 1520 (the
    restore ended at 920), within the grace, so y1 waits until then and x loses only its
    restart. Without checkpoint costs the Session and the simulator agree on 1400 instead."""
    aware = Settings(policy="checkpoint-aware", checkpoint_grace="5m")

    assert records(simulate(reclaimed(700, 1300), aware)) == [(700, 440, 240), (1520, 240, 240)]
    free = attrs.evolve(aware, checkpoint_costs=False)
    assert records(simulate(reclaimed(700, 1300), free)) == [(700, 440, 240), (1400, 240, 240)]


def test_drawn_intervals_follow_the_cited_distribution() -> None:
    """Log-uniform on [10 m, 90 m]: the median is 30 m (Check-N-Run's interval), the quartiles
    600 * 9**0.25 = 1039 s and 600 * 9**0.75 = 3118 s. Over n = 10,001 draws a sample quantile
    q lies within q +- 3.29 * sqrt(q (1 - q) / n) of the population's with probability 0.999:
    +-0.0165 for the median, +-0.0143 for the quartiles, so in [1736, 1866], [1007, 1072] and
    [3022, 3217] s. The draws are seeded: the assertion is exact, the bounds say it is sound."""
    draws = sorted(draw_checkpoint_interval(0, f"job-{i}") for i in range(10_001))
    n = len(draws)

    def bounds(q: float) -> tuple[float, float]:
        spread = 3.29 * math.sqrt(q * (1 - q) / n)
        low, high = CHECKPOINT_INTERVAL_RANGE
        ratio = high / low
        return low * ratio ** (q - spread), low * ratio ** (q + spread)

    for q in (0.25, 0.5, 0.75):
        low, high = bounds(q)
        assert low <= draws[int(q * (n - 1))] <= high, q
    assert (round(bounds(0.5)[0]), round(bounds(0.5)[1])) == (1736, 1866)
    assert CHECKPOINT_INTERVAL_MEDIAN == 1800
    assert (draws[0], draws[-1]) == (600, 5400)
    assert [checkpoint_duration(s) for s in (600, 1800, 5400)] == [21, 63, 189]  # 3.5%


def test_drawn_intervals_reproduce_and_belong_to_the_job() -> None:
    """The same seed draws the same intervals, so a run reproduces; another seed draws others.
    The draw depends on the seed and the job's id only, so the seed is kept in the settings."""
    workload = synthetic_workload(seed=3, jobs=40, checkpoints=0.0)

    def lost(settings: Settings) -> dict[str, int]:
        return {job.id: job.lost_gpu_seconds for job in simulate(workload, settings).jobs}

    assert lost(Settings(seed=1)) == lost(Settings(seed=1))
    assert [draw_checkpoint_interval(1, f"j{i}") for i in range(5)] != [
        draw_checkpoint_interval(2, f"j{i}") for i in range(5)
    ]
    assert Settings(seed=1).to_dict()["seed"] == 1


def test_a_checkpoint_longer_than_the_interval_is_refused() -> None:
    with pytest.raises(InvalidTrace) as caught:
        attrs.evolve(CHECKPOINTER, checkpoint_duration=600)
    assert str(caught.value) == (
        "job 'x': checkpoint_duration (600) must be shorter than checkpoint_interval (600)"
    )
    long_save = attrs.evolve(CHECKPOINTER, checkpoint_interval=None, checkpoint_duration=5400)
    with pytest.raises(InvalidSetting, match=r"job 'x': checkpoint_duration \(5400\) must be"):
        simulate(attrs.evolve(reclaimed(), jobs=[long_save]))


def test_checkpoint_costs_must_be_a_boolean() -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings(checkpoint_costs="no")  # type: ignore[arg-type]
    assert str(caught.value) == "checkpoint_costs must be True or False, got 'no'"

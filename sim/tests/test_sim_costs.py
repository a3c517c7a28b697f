"""The costs of an eviction: a restart overhead on by default, and jobs that save when evicted.

The toy workload: 4 GPUs, queues a and b deserve 2 each; a1 (2 GPUs, 100 s) from 0, a2 (2 GPUs,
100 s) from 5; b1 (2 GPUs, 50 s) reclaims at 10 and takes a2 (the latest submitted), which has
done 5 s x 2 GPUs = 10 GPU-seconds. b1 runs 10-60; a2 restarts at 60.
"""

from __future__ import annotations

import pytest

from minruntime_sim import InvalidSetting, Settings, simulate
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
    assert settings.label == "reclaim=0s preempt=0s checkpoint=none order=reference save=20s"
    assert (settings.to_dict()["restart_overhead"], settings.to_dict()["save_on_preempt"]) == (
        30,
        20,
    )


def test_a_negative_save_time_is_refused_naming_it() -> None:
    with pytest.raises(InvalidSetting) as caught:
        Settings(save_on_preempt=-1)
    assert str(caught.value) == "save_on_preempt must be None or seconds >= 0, got -1"

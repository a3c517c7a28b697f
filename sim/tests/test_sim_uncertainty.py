"""Uncertainty over trace slices, seeds and cluster sizes (``minruntime_sim.uncertainty``)."""

from __future__ import annotations

import io
import json
import math
import statistics
from pathlib import Path

import attrs
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from minruntime import MinRuntime, Queue, QueueTree
from minruntime_sim import InvalidSetting, JobSpec, Settings, VictimOrder, Workload, simulate
from minruntime_sim.cli import main
from minruntime_sim.model import POLICIES
from minruntime_sim.sweep import TraceSource, settings_grid
from minruntime_sim.uncertainty import (
    REPORTED,
    Comparison,
    Interval,
    Replicate,
    compare,
    read_results,
    replicates,
    run_replicated,
)

RESULTS = Path(__file__).resolve().parents[1] / "results"


def test_an_interval_is_the_mean_with_its_bootstrap_percentiles() -> None:
    """Three values: a resample is all 10s (or all 14s) with probability 1/27 > 2.5%, so the
    interval is their range. Equal values, or one: the value itself."""
    assert Interval.of([10.0, 12.0, 14.0]) == Interval(mean=12.0, low=10.0, high=14.0, n=3)
    assert Interval.of([5.0]) == Interval(mean=5.0, low=5.0, high=5.0, n=1)
    assert Interval.of([7.0, 7.0]) == Interval(mean=7.0, low=7.0, high=7.0, n=2)
    wide = Interval.of([0.0, 1.0] * 20)
    assert (wide.mean, wide.low, wide.high) == (0.5, 0.35, 0.65)


def test_the_issues_count_interval_no_longer_goes_below_zero() -> None:
    """The issue's ``32.8 [-71.5, 137.0]`` evictions: ``philly --load 4 --slices 4`` (seed 0,
    the full 2,816 GPUs), reclaim 0s, where one quarter of four contends. Its values are in the
    committed results; Student's t gave -71.5 from them, the bootstrap gives 0."""
    results = read_results((RESULTS / "philly-uncertainty.json").read_text(), origin="u")
    plain = results.summaries[0]
    values = [
        float(metrics.evictions)
        for rep, metrics in plain.runs
        if rep.seed == 0 and rep.gpus == 2816
    ]
    assert values == [0.0, 131.0, 0.0, 0.0]
    half = 3.182 * statistics.stdev(values) / math.sqrt(4)  # the old t-interval, for the record
    assert round(statistics.fmean(values) - half, 1) == -71.5

    assert str(Interval.of(values)) == "32.8 [0.0, 98.2]"
    assert Interval.of(values) == Interval(mean=32.75, low=0.0, high=98.25, n=4)


def test_no_committed_interval_goes_below_zero() -> None:
    """Every interval of every committed result, recomputed and as written in the file."""
    checked = 0
    for path in sorted(RESULTS.glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        results = read_results(path.read_text(encoding="utf-8"), origin=path.name)
        for entry, summary in zip(document["settings"], results.summaries, strict=True):
            for metric, _ in REPORTED:
                interval = summary.interval(metric)
                assert attrs.asdict(interval) == entry["intervals"][metric]
                assert 0 <= min(summary.values(metric)) <= interval.low <= interval.mean
                assert interval.mean <= interval.high <= max(summary.values(metric))
                checked += 1
    assert checked == (3 + 11 + 8 + 5 + 5) * len(REPORTED)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=20))
def test_an_interval_stays_within_the_values(counts: list[int]) -> None:
    """Law: low and high lie between the smallest and the largest value, around the mean; so
    counts (never negative) never get an interval below zero. Values that differ, whose
    interval is not a point, are most examples."""
    interval = Interval.of([float(count) for count in counts])
    event("values differ" if len(set(counts)) > 1 else "values equal")
    assert min(counts) <= interval.low <= interval.mean <= interval.high <= max(counts)
    assert interval == Interval.of([float(count) for count in reversed(counts)])


def test_an_interval_of_nothing_is_refused() -> None:
    with pytest.raises(InvalidSetting, match="an interval needs at least one value"):
        Interval.of([])


def test_replicates_are_sizes_then_seeds_then_slices() -> None:
    assert replicates(slices=2, seeds=[7, 8], sizes=[16, None]) == [
        Replicate(0, 2, 7, 16),
        Replicate(1, 2, 7, 16),
        Replicate(0, 2, 8, 16),
        Replicate(1, 2, 8, 16),
        Replicate(0, 2, 7, None),
        Replicate(1, 2, 7, None),
        Replicate(0, 2, 8, None),
        Replicate(1, 2, 8, None),
    ]
    with pytest.raises(InvalidSetting, match="expected at least one slice, seed and size"):
        replicates(slices=0)


@settings(max_examples=30, deadline=None)
@given(
    submits=st.lists(st.integers(0, 10_000), min_size=1, max_size=30),
    count=st.integers(1, 6),
)
def test_the_slices_of_a_trace_partition_its_jobs(submits: list[int], count: int) -> None:
    """Law: every job is in exactly one slice, at the same offset from its slice's start."""
    jobs = [
        JobSpec(id=f"j{i}", queue="a", submit=t, run_time=1, gpus=1) for i, t in enumerate(submits)
    ]
    workload = Workload(
        name="w", jobs=jobs, tree=QueueTree([Queue("a")]), deserved={"a": 1}, total_gpus=1
    )
    slices = [workload.window(i, count) for i in range(count)]
    assert sorted(job.id for part in slices for job in part.jobs) == sorted(j.id for j in jobs)
    # the submissions' range cut into count equal spans: each job in the span of its submission,
    # submitted its offset into that span
    first, span = min(submits), max(submits) - min(submits) + 1
    for i, part in enumerate(slices):
        start, end = first + span * i // count, first + span * (i + 1) // count
        expected = [(job.id, job.submit - start) for job in jobs if start <= job.submit < end]
        assert [(job.id, job.submit) for job in part.jobs] == expected
        assert all(job.submit >= 0 for job in part.jobs)


def test_a_window_out_of_range_is_refused() -> None:
    workload = Workload(
        name="w", jobs=[], tree=QueueTree([Queue("a")]), deserved={"a": 1}, total_gpus=1
    )
    with pytest.raises(InvalidSetting, match="window 2 of 2: expected 0 <= index < count"):
        workload.window(2, 2)


GRID = settings_grid(reclaim=[MinRuntime("0s"), MinRuntime("1h")])
REPS = replicates(slices=2, seeds=[0, 1])


def test_each_replicate_is_the_run_of_its_slice_and_seed() -> None:
    """Cross-check: every (setting, replicate) metric equals a run made by hand."""
    summaries = run_replicated("synthetic", GRID, REPS, limit=80)

    for summary, base in zip(summaries, GRID, strict=True):
        assert [rep for rep, _ in summary.runs] == REPS
        for rep, metrics in summary.runs:
            workload = TraceSource(
                "synthetic", limit=80, seed=rep.seed, window=rep.window, windows=rep.windows
            ).load()
            assert metrics == simulate(workload, attrs.evolve(base, seed=rep.seed)).metrics


def test_a_comparison_counts_the_replicates_each_way() -> None:
    plain, protected = run_replicated("synthetic", GRID, REPS, limit=80)

    assert plain.values("lost_gpu_seconds") == [10673.0, 3823.0, 8322.0, 10734.0]
    assert protected.values("lost_gpu_seconds") == [6537.0, 5166.0, 10624.0, 8929.0]
    assert compare(protected, plain, "lost_gpu_seconds") == Comparison(
        metric="lost_gpu_seconds", lower=2, higher=2, equal=0
    )
    assert not compare(protected, plain, "lost_gpu_seconds").holds
    assert compare(plain, plain, "evictions").holds is False  # equal everywhere: no direction


def test_summaries_of_different_replicates_are_not_compared() -> None:
    one = run_replicated("synthetic", GRID[:1], REPS[:1], limit=20)[0]
    other = run_replicated("synthetic", GRID[:1], REPS[1:2], limit=20)[0]
    with pytest.raises(InvalidSetting, match="run on different replicates"):
        compare(one, other, "evictions")


def test_the_command_reports_intervals_and_writes_every_replicate(tmp_path: Path) -> None:
    path = tmp_path / "u.json"
    out, err = io.StringIO(), io.StringIO()

    status = main(
        ["synthetic", "--limit", "80", "--slices", "2", "--seed", "0", "1",
         "--reclaim-min-runtime", "0", "1h", "--json", str(path)],
        stdout=out,
        stderr=err,
    )  # fmt: skip

    assert (status, err.getvalue()) == (0, "")
    lines = out.getvalue().splitlines()
    assert lines[0] == (
        "synthetic(seed=0, jobs=80): 80 jobs, 4 replicates (slices 2, seeds 0 1, sizes full)"
    )
    assert lines[2:6] == [
        "Every setting: checkpoints drawn per job; victim order reference. Each figure: the mean "
        "over 4",
        "replicates [95% bootstrap interval].",
        "",
        "reclaim      lost GPU-h    evictions  reclaim wait GPU-h  mean wait min",
    ]
    assert max(map(len, lines)) <= 100
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["replicates"] == [
        "slice 1/2 seed 0 full size",
        "slice 2/2 seed 0 full size",
        "slice 1/2 seed 1 full size",
        "slice 2/2 seed 1 full size",
    ]
    first = document["settings"][0]
    assert [r["metrics"]["lost_gpu_seconds"] for r in first["replicates"]] == [
        10673,
        3823,
        8322,
        10734,
    ]
    assert first["intervals"]["lost_gpu_hours"]["n"] == 4


def test_per_run_files_need_a_single_replicate(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["synthetic", "--limit", "20", "--seed", "0", "1", "--csv", str(tmp_path / "x.csv")],
        stdout=out,
        stderr=err,
    )
    assert (status, out.getvalue()) == (2, "")
    assert err.getvalue() == (
        "minruntime-sim: error: --csv applies to a single replicate (give one --gpus, one "
        "--seed and no --slices); --json and --plot take replicates\n"
    )


@pytest.mark.parametrize(
    ("lower", "higher", "equal", "holds", "one_way", "text"),
    [
        (3, 0, 0, True, True, "lower in 3 of 3: holds"),
        (0, 2, 1, False, True, "higher in 2, equal in 1 of 3: never lower"),
        (2, 0, 1, False, True, "lower in 2, equal in 1 of 3: never higher"),
        (1, 1, 1, False, False, "lower in 1, higher in 1, equal in 1 of 3: mixed"),
        (0, 0, 3, False, False, "equal in 3 of 3: no difference"),
    ],
)
def test_a_verdict_says_whether_a_conclusion_held_in_every_replicate(
    lower: int, higher: int, equal: int, holds: bool, one_way: bool, text: str
) -> None:
    comparison = Comparison(metric="evictions", lower=lower, higher=higher, equal=equal)
    assert (comparison.holds, comparison.one_way, str(comparison)) == (holds, one_way, text)


@settings(max_examples=80, deadline=None)
@given(
    policy=st.sampled_from(POLICIES),
    order=st.sampled_from(list(VictimOrder)),
    reclaim=st.sampled_from(["0s", "10m", "1h30m", "never"]),
    preempt=st.sampled_from(["0s", "5m"]),
    interval=st.one_of(st.none(), st.integers(1, 10**6)),
    costs=st.booleans(),
    budget=st.one_of(st.none(), st.integers(0, 5)),
    window=st.sampled_from(["never", "1d"]),
    seed=st.integers(0, 100),
    save=st.one_of(st.none(), st.integers(0, 600)),
    rank=st.booleans(),
    request=st.one_of(st.none(), st.integers(1, 10**5)),
    cap=st.sampled_from(["30m", "2h", "never"]),
)
def test_settings_read_back_as_written(
    policy: str,
    order: VictimOrder,
    reclaim: str,
    preempt: str,
    interval: int | None,
    costs: bool,
    budget: int | None,
    window: str,
    seed: int,
    save: int | None,
    rank: bool,
    request: int | None,
    cap: str,
) -> None:
    """Law: the settings of a results file read back equal to those that ran (through JSON)."""
    written = Settings(
        policy=policy,
        victim_order=order,
        reclaim_min_runtime=reclaim,
        preempt_min_runtime=preempt,
        checkpoint_interval=interval,
        checkpoint_costs=costs,
        max_evictions=budget,
        eviction_window=window,
        seed=seed,
        save_on_preempt=save,
        rank_unsaved=rank,
        job_request=request,
        request_cap=cap,
    )
    event(f"policy {policy}")
    event(f"requests a min-runtime: {written.job_request is not None}")
    assert Settings.from_dict(json.loads(json.dumps(written.to_dict()))) == written

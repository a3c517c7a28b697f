"""Sweeps as a person runs them: output paths checked first, a progress bar, per-eviction and
busy-GPU files, and any ``concurrent.futures.Executor``, a local Dask cluster included."""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from minruntime_sim.cli import main
from minruntime_sim.sweep import RunSummary, TraceSource, run_sweep, settings_grid

ARGS = ["synthetic", "--limit", "40", "--reclaim-min-runtime", "0", "1h"]


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("option", "path", "message"),
    [
        (
            "--json",
            "missing-folder/out.json",
            "--json '{tmp}/missing-folder/out.json': folder '{tmp}/missing-folder' does not exist",
        ),
        ("--usage", "", "--usage '{tmp}' is a folder (expected a file path)"),
    ],
)
def test_an_output_path_that_cannot_be_written_stops_the_run_before_it_starts(
    tmp_path: Path, option: str, path: str, message: str
) -> None:
    status, out, err = run([*ARGS, option, str(tmp_path / path) if path else str(tmp_path)])

    assert status == 2
    assert out == ""  # nothing ran: no table
    assert err == f"minruntime-sim: error: {message.format(tmp=tmp_path)}\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_read_only_folder_is_refused_before_the_run(tmp_path: Path) -> None:  # pragma: no cover
    tmp_path.chmod(0o500)
    try:
        status, out, err = run([*ARGS, "--csv", str(tmp_path / "out.csv")])
    finally:
        tmp_path.chmod(0o700)
    assert (status, out) == (2, "")
    assert "cannot be written (permission denied)" in err


def test_every_eviction_and_the_busy_gpus_over_time_are_written(tmp_path: Path) -> None:
    evictions, usage, json_path = tmp_path / "ev.csv", tmp_path / "use.csv", tmp_path / "r.json"

    status, out, _ = run(
        [*ARGS, "--evictions", str(evictions), "--usage", str(usage), "--json", str(json_path)]
    )

    assert status == 0
    assert out.endswith(f"wrote {json_path}\nwrote {evictions}\nwrote {usage}\n")
    rows = list(csv.DictReader(io.StringIO(evictions.read_text(encoding="utf-8"))))
    labels = sorted({row["run"] for row in rows})
    assert labels == [
        "reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0",
        "reclaim=1h preempt=0s checkpoint=drawn order=reference seed=0",
    ]
    runs = json.loads(json_path.read_text(encoding="utf-8"))["runs"]
    assert [sum(row["run"] == label for row in rows) for label in labels] == [
        run["metrics"]["evictions"] for run in runs
    ]
    steps = list(csv.DictReader(io.StringIO(usage.read_text(encoding="utf-8"))))
    for label, run_metrics in zip(labels, runs, strict=True):
        mine = [(int(row["time"]), int(row["busy_gpus"])) for row in steps if row["run"] == label]
        area = sum(b * (t2 - t1) for (t1, b), (t2, _) in itertools.pairwise(mine))
        assert area == run_metrics["metrics"]["busy_gpu_seconds"]


def test_the_progress_bar_counts_the_runs_on_standard_error() -> None:
    status, _, err = run([*ARGS, "--progress"])

    assert status == 0
    assert "runs: 100%" in err
    assert "2/2" in err


def test_without_a_terminal_there_is_no_progress_bar() -> None:
    status, _, err = run(ARGS)
    assert (status, err) == (0, "")


# -- executors --------------------------------------------------------------------------------


def metrics(summaries: list[RunSummary]) -> list[object]:
    return [summary.metrics for summary in summaries]


SOURCE = TraceSource("synthetic", limit=40, seed=2)
GRID = settings_grid(reclaim=["0s", "30m", "2h"], victim_orders=["reference", "youngest"])  # type: ignore[list-item]


def test_any_executor_gives_the_in_process_results() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = run_sweep(SOURCE, GRID, executor=pool)

    assert metrics(threaded) == metrics(run_sweep(SOURCE, GRID))
    assert len(threaded) == 6


@pytest.fixture(scope="module")
def dask_address() -> Iterator[str]:
    """A local Dask cluster: one in-process worker, no dashboard (the tests' stand-in for a
    cluster of machines)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        yield str(cluster.scheduler_address)


def test_a_sweep_runs_on_a_dask_cluster(dask_address: str) -> None:
    distributed = pytest.importorskip("distributed")

    with distributed.Client(dask_address) as client:
        on_dask = run_sweep(SOURCE, GRID, executor=client.get_executor(), detail=True)

    in_process = run_sweep(SOURCE, GRID, detail=True)
    assert metrics(on_dask) == metrics(in_process)
    assert [s.evictions for s in on_dask] == [s.evictions for s in in_process]


def test_the_command_runs_on_a_dask_cluster(dask_address: str, tmp_path: Path) -> None:
    local, remote = tmp_path / "local.json", tmp_path / "dask.json"

    assert run([*ARGS, "--json", str(local)])[0] == 0
    assert run([*ARGS, "--dask", dask_address, "--json", str(remote)])[0] == 0

    assert remote.read_bytes() == local.read_bytes()

"""``minruntime-sim`` (``minruntime_sim.cli.main``) and the sweep behind it.

The hand-computed workload of ``tests/test_sim_scheduler.py`` (queues a and b, jobs a1, a2,
b1), written as a CSV trace, gives the exact figures of the table below: see that file for the
arithmetic.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs
import pytest

import minruntime_sim.plots as plots_module
from minruntime import MinRuntime, Queue, QueueTree
from minruntime_sim import JobSpec, Workload
from minruntime_sim.cli import main
from minruntime_sim.sweep import (
    LEGEND,
    WIDTH,
    TraceSource,
    format_table,
    run_sweep,
    settings_grid,
    to_csv,
)
from minruntime_sim.synthetic import toy_workload
from minruntime_sim.traces import write_csv

HAND = attrs.evolve(toy_workload(), name="hand")

METRIC_HEADINGS = [
    "evictions",
    "rcl/pre",
    "jobs",
    "lost",
    "wait",
    "p95",
    "rcl",
    "wait",
    "JCT",
    "util",
]
"""The text table's metric headings, split at spaces."""

HAND_TABLE = """\
hand: 3 jobs, 4 GPUs, 2 queues

Every run: policy min-runtime; preempt 0s; no checkpoints; victim order reference.

reclaim  evictions  rcl/pre  jobs  lost  wait    p95  rcl wait    JCT   util
0s               1      1/0     1   0.0   17s    50s       0.0  1m42s  79.7%
1m               1      1/0     1   0.0   32s    50s       0.0  2m15s  75.6%
never            0      0/0     0   0.0   30s  1m30s       0.1  1m53s  83.3%

rcl: reclaim, pre: preempt; jobs: evicted; lost, rcl wait: GPU-h; wait, JCT: means; p95: of wait
"""
"""What the single-run table of the hand workload says: the settings every run shares once,
above the table; a column only for the reclaim min-runtime, the one setting that differs; short
headings, read by the legend under the table."""

HAND_CSV = """\
policy,order,reclaim,preempt,checkpoint,grace,budget,evictions,reclaim_ev,preempt_ev,evicted_jobs,lost_gpu_h,queue_mean,queue_p95,reclaim_wait_gpu_h,jct_mean,util
min-runtime,reference,0s,0s,none,,,1,1,0,1,0.003,16.667,50,0.0,101.667,0.7969
min-runtime,reference,1m,0s,none,,,1,1,0,1,0.033,31.667,50,0.028,135.0,0.7561
min-runtime,reference,never,0s,none,,,0,0,0,0,0.0,30.0,90,0.05,113.333,0.8333
"""


@dataclass(frozen=True)
class Run:
    status: int
    out: str
    err: str


def run(args: list[str]) -> Run:
    out, err = io.StringIO(), io.StringIO()
    status = main(args, stdout=out, stderr=err)
    return Run(status, out.getvalue(), err.getvalue())


@pytest.fixture
def hand_trace(tmp_path: Path) -> Path:
    jobs_file, _ = write_csv(HAND, tmp_path / "hand.csv")
    return jobs_file


def test_simulate_prints_the_comparison_table_and_writes_csv_and_json(
    hand_trace: Path, tmp_path: Path
) -> None:
    json_path, csv_path = tmp_path / "out.json", tmp_path / "out.csv"

    result = run(
        [
            "--restart-overhead",
            "0",
            "--no-checkpoint-costs",
            str(hand_trace),
            "--reclaim-min-runtime",
            "0",
            "1m",
            "never",
            "--json",
            str(json_path),
            "--csv",
            str(csv_path),
        ]
    )

    assert result.status == 0, result.err
    assert result.out == HAND_TABLE + f"wrote {json_path}\nwrote {csv_path}\n"
    assert csv_path.read_text(encoding="utf-8") == HAND_CSV
    document = json.loads(json_path.read_text(encoding="utf-8"))
    assert document["workload"] == {
        "name": "hand",
        "jobs": 3,
        "total_gpus": 4,
        "deserved": {"a": 2, "b": 2},
        "notes": [],
    }
    runs = document["runs"]
    assert [r["settings"]["reclaim_min_runtime"] for r in runs] == ["0s", "1m", "never"]
    assert [r["metrics"]["lost_gpu_seconds"] for r in runs] == [10, 120, 0]
    assert [r["metrics"]["reclaim_waiting_gpu_seconds"] for r in runs] == [0, 100, 180]
    assert runs[1]["metrics"]["per_queue"][1]["queueing_delay"] == {
        "count": 1,
        "mean": 50.0,
        "p50": 50,
        "p95": 50,
        "max": 50,
    }


def test_every_combination_runs_reclaim_outermost(hand_trace: Path, tmp_path: Path) -> None:
    csv_path = tmp_path / "grid.csv"

    result = run(
        [
            str(hand_trace),
            "--reclaim-min-runtime",
            "0",
            "1m",
            "--preempt-min-runtime",
            "0",
            "5m",
            "--checkpoint-interval",
            "none",
            "50s",
            "--restart-overhead",
            "10s",
            "--no-checkpoint-costs",
            "--resolve-method",
            "queue",
            "--csv",
            str(csv_path),
        ]
    )

    assert result.status == 0, result.err
    lines = csv_path.read_text(encoding="utf-8").splitlines()[1:]
    rows = [line.split(",")[2:5] for line in lines]
    expected = [[r, p, c] for r in ("0s", "1m") for p in ("0s", "5m") for c in ("none", "50s/free")]
    assert rows == expected
    lost = [line.split(",")[11] for line in lines]
    # 0s: a2 loses 10 + 20 restart = 30; 1m: a1 loses 120 (no checkpoint) or 20 (checkpoint at
    # 50 s), plus 20 restart: 140 or 40 GPU-seconds
    assert lost == ["0.008"] * 4 + ["0.039", "0.011", "0.039", "0.011"]


CHECKPOINTS = Workload(
    name="ckpt",
    tree=QueueTree([Queue("a"), Queue("b")]),
    deserved={"a": 2, "b": 2},
    total_gpus=4,
    jobs=[
        JobSpec(id="a1", queue="a", submit=0, run_time=1000, gpus=2),
        JobSpec(id="a2", queue="a", submit=150, run_time=1000, gpus=2),
        JobSpec(id="b1", queue="b", submit=190, run_time=50, gpus=2),
    ],
)
"""The scenario of ``tests/test_sim_policies.py`` (reclaim at 190): see there for the numbers."""

POLICIES_CSV = """\
policy,order,reclaim,preempt,checkpoint,grace,budget,evictions,reclaim_ev,preempt_ev,evicted_jobs,lost_gpu_h,queue_mean,queue_p95,reclaim_wait_gpu_h,jct_mean,util
none,reference,0s,0s,1m40s/free,,,1,1,0,1,0.022,16.667,50,0.0,713.333,0.8427
min-runtime,reference,1m,0s,1m40s/free,,,1,1,0,1,0.05,16.667,50,0.0,730.0,0.9304
checkpoint-aware,reference,1m,0s,1m40s/free,30s,off,1,1,0,1,0.0,20.0,50,0.006,703.333,0.8913
"""


def test_three_policies_run_side_by_side(tmp_path: Path) -> None:
    """none: a2 loses 80 GPU-seconds; min-runtime: a1 loses 180; checkpoint-aware waits 10 s
    for a1's checkpoint (20 GPU-seconds of reclaim waiting) and loses nothing."""
    jobs_file, _ = write_csv(CHECKPOINTS, tmp_path / "ckpt.csv")
    csv_path, json_path = tmp_path / "out.csv", tmp_path / "out.json"

    result = run(
        [
            "--restart-overhead",
            "0",
            "--no-checkpoint-costs",
            str(jobs_file),
            "--reclaim-min-runtime",
            "1m",
            "--checkpoint-interval",
            "100s",
            "--policy",
            "none",
            "min-runtime",
            "checkpoint-aware",
            "--checkpoint-grace",
            "30s",
            "--csv",
            str(csv_path),
            "--json",
            str(json_path),
        ]
    )

    assert result.status == 0, result.err
    assert csv_path.read_text(encoding="utf-8") == POLICIES_CSV
    assert result.out.splitlines()[2:10] == [
        "Every run: preempt 0s; checkpoints every 1m40s (free); victim order reference; "
        "checkpoint-aware:",
        "grace 30s, eviction budget off.",
        "",
        "reclaim  policy            evictions  rcl/pre  jobs  lost  wait  p95  rcl wait     JCT"
        "   util",
        "0s       none                      1      1/0     1   0.0   17s  50s       0.0  11m53s"
        "  84.3%",
        "1m       min-runtime               1      1/0     1   0.1   17s  50s       0.0  12m10s"
        "  93.0%",
        "1m       checkpoint-aware          1      1/0     1   0.0   20s  50s       0.0  11m43s"
        "  89.1%",
        "",
    ]
    runs = json.loads(json_path.read_text(encoding="utf-8"))["runs"]
    assert [
        (
            r["settings"]["policy"],
            r["settings"]["checkpoint_grace"],
            r["metrics"]["lost_gpu_seconds"],
        )
        for r in runs
    ] == [("none", "0s", 80), ("min-runtime", "0s", 180), ("checkpoint-aware", "30s", 0)]


def test_the_eviction_budget_reaches_the_checkpoint_aware_runs_only(tmp_path: Path) -> None:
    jobs_file, _ = write_csv(CHECKPOINTS, tmp_path / "ckpt.csv")
    json_path = tmp_path / "out.json"

    result = run(
        [
            str(jobs_file),
            "--policy",
            "min-runtime",
            "checkpoint-aware",
            "--max-evictions",
            "2",
            "--eviction-window",
            "1h",
            "--json",
            str(json_path),
        ]
    )

    assert result.status == 0, result.err
    runs = json.loads(json_path.read_text(encoding="utf-8"))["runs"]
    assert [(r["settings"]["max_evictions"], r["settings"]["eviction_window"]) for r in runs] == [
        (None, "never"),
        (2, "1h"),
    ]
    assert result.out.splitlines()[2:4] == [
        "Every run: reclaim 0s; preempt 0s; checkpoints drawn per job; victim order reference;",
        "checkpoint-aware: grace 10m, eviction budget 2/1h.",
    ]


def test_parallel_runs_give_the_same_bytes_as_one_process(tmp_path: Path) -> None:
    """Law: the report does not depend on how many processes ran it."""
    outputs = []
    for jobs in ("1", "2"):
        path = tmp_path / f"jobs{jobs}.json"
        result = run(
            [
                "synthetic",
                "--limit",
                "40",
                "--seed",
                "3",
                "--reclaim-min-runtime",
                "0",
                "1h",
                "--jobs",
                jobs,
                "--json",
                str(path),
            ]
        )
        assert result.status == 0, result.err
        outputs.append((result.out.replace(str(path), "PATH"), path.read_bytes()))

    assert outputs[0] == outputs[1]
    document = json.loads(outputs[0][1])
    assert document["workload"]["name"] == "synthetic(seed=3, jobs=40)"
    assert len(document["runs"]) == 2


def test_run_sweep_in_processes_equals_in_process() -> None:
    source = TraceSource("synthetic", limit=30, seed=8)
    grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("30m")], checkpoints=[None, 600])

    assert run_sweep(source, grid, jobs=2) == run_sweep(source, grid, jobs=1)


def test_the_cluster_can_be_resized_and_the_trace_cut(hand_trace: Path) -> None:
    result = run([str(hand_trace), "--gpus", "2", "--limit", "2"])

    assert result.status == 0, result.err
    assert result.out.splitlines()[:2] == [
        "hand: 2 jobs, 2 GPUs, 2 queues",
        "  note: cluster resized to 2 GPUs on 1 node, quotas scaled",
    ]


def test_plot_draws_a_row_per_setting_and_a_panel_per_metric(
    hand_trace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reclaim 0 and 1m, three policies: none runs once, so five rows, each named by what
    tells it apart; the file is a PNG. (Whether the figure is readable is tested in
    test_sim_plot.py.)"""
    figures: list[Any] = []
    real = plots_module.plot_figure

    def keep(summaries: Any, *, title: str) -> Any:
        figures.append(real(summaries, title=title))
        return figures[-1]

    monkeypatch.setattr(plots_module, "plot_figure", keep)
    plot_path = tmp_path / "plot.png"

    result = run(
        [
            "--restart-overhead",
            "0",
            "--no-checkpoint-costs",
            str(hand_trace),
            "--reclaim-min-runtime",
            "0",
            "1m",
            "--checkpoint-interval",
            "50s",
            "--policy",
            "none",
            "min-runtime",
            "checkpoint-aware",
            "--checkpoint-grace",
            "20s",
            "--plot",
            str(plot_path),
        ]
    )

    assert result.status == 0, result.err
    assert result.out.endswith(f"wrote {plot_path}\n")
    assert plot_path.read_bytes().startswith(b"\x89PNG")
    (figure,) = figures
    assert [label.get_text() for label in figure.axes[0].get_yticklabels()] == [
        "reclaim 0s, none",
        "reclaim 0s, min-runtime",
        "reclaim 0s, checkpoint-aware",
        "reclaim 1m, min-runtime",
        "reclaim 1m, checkpoint-aware",
    ]
    assert figure.texts[0].get_text() == (
        "hand, 4 GPUs\ncheckpoints every 50s (free); victim order reference; checkpoint-aware: "
        "grace 20s, eviction budget\noff"
    )


def test_plot_without_matplotlib_fails_before_anything_runs(
    hand_trace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue: --plot without matplotlib failed after a three-minute run. Now nothing is
    loaded or run: the trace is never read."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    loaded: list[object] = []
    monkeypatch.setattr(TraceSource, "load", lambda self: loaded.append(self))
    csv_path = tmp_path / "out.csv"

    result = run([str(hand_trace), "--csv", str(csv_path), "--plot", str(tmp_path / "p.png")])

    assert (result.status, result.out, loaded) == (2, "", [])
    assert result.err == (
        "minruntime-sim: error: --plot needs matplotlib, which is not installed: install the "
        "simulator's plot extra, pip install './sim[plot]' from a clone of the repository (or "
        "pip install matplotlib)\n"
    )
    assert not csv_path.exists()
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize(("name", "got"), [("plot.xyz", ".xyz"), ("plot", "none")])
def test_a_plot_name_without_an_image_suffix_is_refused_before_anything_runs(
    name: str, got: str, hand_trace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(TraceSource, "load", lambda self: pytest.fail("a trace was loaded"))
    path = tmp_path / name

    result = run([str(hand_trace), "--plot", str(path)])

    assert (result.status, result.out) == (2, "")
    assert result.err.startswith(
        f"minruntime-sim: error: --plot {str(path)!r}: the name must end in an image format's "
        f"suffix, got {got} (expected .png, .svg, or one of "
    )
    assert ".pdf" in result.err


def test_plot_takes_replicates(tmp_path: Path) -> None:
    """The README's command with --plot: replicated runs are plotted, every replicate a dot."""
    plot_path = tmp_path / "replicated.svg"

    result = run(
        ["synthetic", "--limit", "60", "--slices", "2", "--seed", "0", "1",
         "--reclaim-min-runtime", "0", "30m", "--plot", str(plot_path)]
    )  # fmt: skip

    assert result.status == 0, result.err
    assert result.out.splitlines()[0] == (
        "synthetic(seed=0, jobs=60): 60 jobs, 4 replicates (slices 2, seeds 0 1, sizes full)"
    )
    assert result.out.endswith(f"wrote {plot_path}\n")
    assert plot_path.read_text(encoding="utf-8").count("<svg") == 1


def test_from_json_reports_a_results_file_without_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replicated run's file, read back: the same table as the run printed; Markdown on
    request; rewritten, the same bytes."""
    path = tmp_path / "r.json"
    ran = run(
        ["synthetic", "--limit", "40", "--slices", "2", "--reclaim-min-runtime", "0", "1h",
         "--json", str(path)]
    )  # fmt: skip
    assert ran.status == 0, ran.err
    monkeypatch.setattr(TraceSource, "load", lambda self: pytest.fail("a trace was loaded"))

    again = run(["--from-json", str(path)])
    markdown = run(["--from-json", str(path), "--format", "markdown"])
    copy = tmp_path / "copy.json"
    rewritten = run(["--from-json", str(path), "--json", str(copy)])

    assert again.status == markdown.status == rewritten.status == 0
    table = ran.out.split("\n\n", 1)[1].removesuffix(f"wrote {path}\n")
    assert again.out == (
        f"synthetic(seed=0, jobs=40): 2 replicates (slices 2, seeds 0, sizes full), from {path}"
        f"\n\n{table}"
    )
    assert markdown.out.splitlines()[2:6] == [
        "Every setting: checkpoints drawn per job; victim order reference. Each figure: the "
        "mean over 2 replicates [95% bootstrap interval].",
        "",
        "| reclaim | lost GPU-h | evictions | reclaim wait GPU-h | mean wait min |",
        "| :-- | --: | --: | --: | --: |",
    ]
    assert copy.read_bytes() == path.read_bytes()


def test_from_json_reads_a_file_of_single_runs(hand_trace: Path, tmp_path: Path) -> None:
    path = tmp_path / "single.json"
    args = ["--restart-overhead", "0", "--no-checkpoint-costs", str(hand_trace),
            "--reclaim-min-runtime", "0", "1m", "never"]  # fmt: skip
    assert run([*args, "--json", str(path)]).status == 0

    result = run(["--from-json", str(path), "--format", "markdown"])

    assert result.status == 0, result.err
    assert result.out.splitlines() == [
        f"hand, 4 GPUs, from {path}",
        "",
        "Every run: policy min-runtime; preempt 0s; no checkpoints; victim order reference.",
        "",
        "| reclaim | evictions | (reclaim/preempt) | evicted jobs | lost GPU-h | queueing mean | "
        "queueing p95 | reclaim wait GPU-h | JCT mean | util |",
        "| :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
        "| 0s | 1 | 1/0 | 1 | 0.0 | 17s | 50s | 0.0 | 1m42s | 79.7% |",
        "| 1m | 1 | 1/0 | 1 | 0.0 | 32s | 50s | 0.0 | 2m15s | 75.6% |",
        "| never | 0 | 0/0 | 0 | 0.0 | 30s | 1m30s | 0.1 | 1m53s | 83.3% |",
    ]
    text = run(["--from-json", str(path)])
    assert text.out == HAND_TABLE.replace(
        "hand: 3 jobs, 4 GPUs, 2 queues", f"hand, 4 GPUs, from {path}"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--from-json", "r.json", "synthetic"],
            "give a trace to run, or --from-json with a results file (not both)",
        ),
        ([], "give a trace to run, or --from-json with a results file (not both)"),
        (
            ["--from-json", "r.json", "--csv", "x.csv", "--usage", "u.csv"],
            "--csv and --usage need a run, not --from-json: they are not in a results file",
        ),
        (
            ["--from-json", "missing.json"],
            "--from-json 'missing.json' cannot be read: [Errno 2] No such file or directory: "
            "'missing.json'",
        ),
    ],
)
def test_from_json_usage_errors(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.json").write_text('{"workload": "w", "replicates": [], "settings": []}')

    result = run(args)

    assert (result.status, result.out, result.err) == (2, "", f"minruntime-sim: error: {message}\n")


def test_a_file_that_is_not_results_is_named(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_text('{"workload": {"name": "x"}, "runs": [{"settings": {}}]}', encoding="utf-8")

    result = run(["--from-json", str(path)])

    assert result.status == 2
    assert result.err == (
        f"minruntime-sim: error: {path}: not a results file of minruntime-sim --json (expected "
        '"runs" or "settings" as a list, with "workload"): no \'reclaim_min_runtime\'\n'
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["synthetic", "--reclaim-min-runtime", "5"],
            "argument --reclaim-min-runtime: invalid duration '5' in the command line: "
            "a bare number needs a unit",
        ),
        (
            ["synthetic", "--checkpoint-interval", "0s"],
            "argument --checkpoint-interval: invalid checkpoint interval '0s': use a positive "
            "duration, or 'none'",
        ),
        (
            ["synthetic", "--checkpoint-interval", "never"],
            "argument --checkpoint-interval: invalid duration 'never' in --checkpoint-interval",
        ),
        (
            ["synthetic", "--restart-overhead", "soon"],
            "argument --restart-overhead: invalid duration 'soon' in --restart-overhead",
        ),
        (["synthetic", "--limit", "0"], "argument --limit: expected a whole number >= 1, got '0'"),
        (
            ["synthetic", "--policy", "fifo"],
            "argument --policy: invalid choice: 'fifo' (choose from 'none', 'min-runtime', "
            "'checkpoint-aware')",
        ),
        (
            ["synthetic", "--checkpoint-grace", "never"],
            "argument --checkpoint-grace: invalid duration 'never' in --checkpoint-grace",
        ),
        (
            ["synthetic", "--max-evictions", "-1"],
            "argument --max-evictions: expected a whole number >= 0, got '-1'",
        ),
        (["synthetic", "--eviction-window", "1h"], "--eviction-window needs --max-evictions"),
    ],
)
def test_usage_errors_name_the_argument_and_value(args: list[str], message: str) -> None:
    result = run(args)

    assert result.status == 2
    assert result.err.startswith(f"minruntime-sim: error: {message}")
    assert result.out == ""


def test_an_unreadable_trace_is_a_usage_error() -> None:
    result = run(["helios"])

    assert (result.status, result.out) == (2, "")
    assert result.err == (
        "minruntime-sim: error: unknown trace 'helios' "
        "(expected philly, alibaba, synthetic, or a CSV file's path)\n"
    )


def test_help_prints_usage_and_succeeds() -> None:
    result = run(["--help"])

    assert result.status == 0
    assert result.out.startswith("usage: minruntime-sim [-h]")
    assert "--reclaim-min-runtime MR [MR ...]" in result.out


def test_format_table_and_csv_of_no_runs_are_headers_only() -> None:
    assert format_table([]) == (
        "reclaim  policy  evictions  rcl/pre  jobs  lost  wait  p95  rcl wait  JCT  util\n\n"
        "rcl: reclaim, pre: preempt; jobs: evicted; lost, rcl wait: GPU-h; wait, JCT: means; "
        "p95: of wait"
    )
    assert to_csv([]).count("\n") == 1


def test_long_delays_read_as_days_and_hours(tmp_path: Path) -> None:
    """One GPU, two jobs of 200,000 s submitted together: the second waits 200,000 s (2d07h);
    mean queueing 100,000 s (1d03h), mean completion 300,000 s (3d11h)."""
    path = tmp_path / "long.csv"
    path.write_text(
        "id,queue,submit,run_time,gpus\nj1,a,0,200000,1\nj2,a,0,200000,1\n", encoding="utf-8"
    )

    result = run([str(path), "--gpus", "1", "--no-checkpoint-costs"])

    assert result.status == 0, result.err
    assert result.out.splitlines()[2:8] == [
        "Every run: preempt 0s; no checkpoints; victim order reference.",
        "",
        "reclaim  policy       evictions  rcl/pre  jobs  lost   wait    p95  rcl wait    JCT    util",
        "0s       min-runtime          0      0/0     0   0.0  1d03h  2d07h       0.0  3d11h  100.0%",
        "",
        "rcl: reclaim, pre: preempt; jobs: evicted; lost, rcl wait: GPU-h; wait, JCT: means; "
        "p95: of wait",
    ]


def test_a_single_run_report_fits_100_columns_and_says_shared_settings_once() -> None:
    """Notes, the sentence of what every run shares, the table of two differing settings (the
    widest policy among them) and the legend: no line is wider than WIDTH; what the runs share
    is said once, above the table, not in its rows."""
    result = run(
        ["philly", "--limit", "200", "--reclaim-min-runtime", "0", "30m", "--policy", "none",
         "min-runtime", "checkpoint-aware", "--rank-unsaved", "--job-request", "8"]
    )  # fmt: skip

    assert result.status == 0, result.err
    lines = result.out.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert lines[:9] == [
        "philly: 200 jobs, 2816 GPUs, 15 queues",
        "  note: 82247 jobs from philly.csv; 11 virtual clusters, 352 nodes of 8 GPUs",
        "  note: 4 virtual clusters not in philly-vc-nodes.csv (23dbec, 51b7ef, 795a4c, 925e2b; 18 "
        "jobs)",
        "    deserve 0 GPUs",
        "",
        "Every run: preempt 0s; checkpoints drawn per job; victim order reference; "
        "checkpoint-aware: grace",
        "10m, eviction budget off, victims by least unsaved work, each job requests a min-runtime "
        "of 8",
        "GPU-hours over its GPUs, at most 2h.",
        "",
    ]
    assert lines[9].split() == ["reclaim", "policy", *METRIC_HEADINGS]
    assert [line.split()[:2] for line in lines[10:15]] == [
        ["0s", "none"],
        ["0s", "min-runtime"],
        ["0s", "checkpoint-aware"],
        ["30m", "min-runtime"],
        ["30m", "checkpoint-aware"],
    ]
    assert lines[15:] == ["", LEGEND]


def test_the_load_knob_makes_jobs_arrive_faster(hand_trace: Path) -> None:
    result = run([str(hand_trace), "--load", "2"])

    assert result.status == 0, result.err
    assert result.out.splitlines()[:2] == [
        "hand(load x2): 3 jobs, 4 GPUs, 2 queues",
        "  note: load x2: submission times divided by 2",
    ]


def test_a_load_factor_must_be_positive(hand_trace: Path) -> None:
    result = run([str(hand_trace), "--load", "-1"])

    assert result.status == 2
    assert result.err.endswith(
        "error: argument --load: expected a load factor > 0 (e.g. 2 or 1.5), got '-1'\n"
    )

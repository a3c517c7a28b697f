"""Settings sweeps: run a grid of settings on one workload, in parallel, and report the results.

Each run is independent and deterministic, so runs go to separate processes
(:class:`concurrent.futures.ProcessPoolExecutor`) and the results come back in the grid's order:
the report does not depend on how many processes ran it. Each process loads the workload once
from its :class:`TraceSource`.

>>> from minruntime import MinRuntime
>>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")], checkpoints=[None, 1800])
>>> [settings.label for settings in grid]
['reclaim=0s preempt=0s checkpoint=none', 'reclaim=0s preempt=0s checkpoint=30m', 'reclaim=1h preempt=0s checkpoint=none', 'reclaim=1h preempt=0s checkpoint=30m']
"""

from __future__ import annotations

import csv
import importlib
import io
import itertools
import json
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Final

import attrs

from minruntime.durations import MinRuntime
from minruntime.sim.metrics import Metrics
from minruntime.sim.model import Settings, Workload
from minruntime.sim.scheduler import simulate
from minruntime.sim.traces import load_trace

__all__ = [
    "RunSummary",
    "TraceSource",
    "format_table",
    "plot",
    "run_sweep",
    "settings_grid",
    "to_csv",
    "to_json",
]

_LOADED: dict[TraceSource, Workload] = {}
"""The workload last loaded in this process."""


@attrs.frozen
class TraceSource:
    """Where a workload comes from, so that a worker process can load it itself.

    >>> TraceSource("synthetic", limit=10).load().name
    'synthetic(seed=0, jobs=10)'
    """

    trace: str
    limit: int | None = None
    gpus: int | None = None
    seed: int = 0

    def load(self) -> Workload:
        """The workload (loaded once per process)."""
        workload = _LOADED.get(self)
        if workload is None:
            workload = load_trace(self.trace, limit=self.limit, gpus=self.gpus, seed=self.seed)
            _LOADED.clear()  # keep one: a process works on one workload at a time
            _LOADED[self] = workload
        return workload


@attrs.frozen(kw_only=True)
class RunSummary:
    """The settings of one run and its metrics."""

    settings: Settings
    metrics: Metrics

    def to_dict(self) -> dict[str, object]:
        """As JSON-ready values: the settings, then the metrics."""
        return {"settings": self.settings.to_dict(), "metrics": self.metrics.to_dict()}


def settings_grid(
    *,
    reclaim: Sequence[MinRuntime] = (MinRuntime.ZERO,),
    preempt: Sequence[MinRuntime] = (MinRuntime.ZERO,),
    checkpoints: Sequence[int | None] = (None,),
    restart_overhead: int = 0,
    reclaim_resolve_method: str = "lca",
) -> list[Settings]:
    """Every combination of the values, reclaim outermost, then preempt, then checkpoints."""
    return [
        Settings(
            reclaim_min_runtime=r,
            preempt_min_runtime=p,
            checkpoint_interval=c,
            restart_overhead=restart_overhead,
            reclaim_resolve_method=reclaim_resolve_method,
        )
        for r, p, c in itertools.product(reclaim, preempt, checkpoints)
    ]


def _run_one(source: TraceSource, settings: Settings) -> RunSummary:
    return RunSummary(settings=settings, metrics=simulate(source.load(), settings).metrics)


def run_sweep(source: TraceSource, grid: Sequence[Settings], *, jobs: int = 1) -> list[RunSummary]:
    """Run every setting of ``grid`` on the workload; results in the grid's order.

    Args:
        source: the workload.
        grid: the settings to run.
        jobs: how many processes to use; 1 (or a single setting) runs in this process.
    """
    if jobs <= 1 or len(grid) <= 1:
        return [_run_one(source, settings) for settings in grid]
    # 'spawn': a fresh interpreter per worker, safe whatever threads the caller runs.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, len(grid)), mp_context=context) as pool:
        return list(pool.map(_run_one, [source] * len(grid), grid))


# -- reports ---------------------------------------------------------------------------------

_COLUMNS: Final = (
    "reclaim",
    "preempt",
    "checkpoint",
    "evictions",
    "reclaim_ev",
    "preempt_ev",
    "evicted_jobs",
    "lost_gpu_h",
    "queue_mean",
    "queue_p95",
    "reclaim_wait_gpu_h",
    "jct_mean",
    "util",
)


def _duration(seconds: float) -> str:
    """A compact reading of a number of seconds: 42s, 12m05s, 3h07m, 5d02h."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    if whole < 86_400:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    return f"{whole // 86_400}d{whole % 86_400 // 3600:02d}h"


def _checkpoint(settings: Settings) -> str:
    interval = settings.checkpoint_interval
    return "none" if interval is None else str(MinRuntime(interval))


def _row(summary: RunSummary) -> dict[str, object]:
    """One run as exact values (seconds, GPU-hours), keyed by the table's columns."""
    m = summary.metrics
    s = summary.settings
    return {
        "reclaim": str(s.reclaim_min_runtime),
        "preempt": str(s.preempt_min_runtime),
        "checkpoint": _checkpoint(s),
        "evictions": m.evictions,
        "reclaim_ev": m.reclaim_evictions,
        "preempt_ev": m.preempt_evictions,
        "evicted_jobs": m.evicted_jobs,
        "lost_gpu_h": round(m.lost_gpu_hours, 3),
        "queue_mean": round(m.queueing.mean, 3),
        "queue_p95": m.queueing.p95,
        "reclaim_wait_gpu_h": round(m.reclaim_waiting_gpu_hours, 3),
        "jct_mean": round(m.completion.mean, 3),
        "util": round(m.utilisation, 4),
    }


def format_table(summaries: Sequence[RunSummary]) -> str:
    """A plain-text comparison table, one line per run (delays as durations)."""
    header = (
        "reclaim",
        "preempt",
        "checkpoint",
        "evictions",
        "(reclaim/preempt)",
        "evicted jobs",
        "lost GPU-h",
        "queueing mean",
        "queueing p95",
        "reclaim wait GPU-h",
        "JCT mean",
        "util",
    )
    lines = [header]
    for summary in summaries:
        row = _row(summary)
        lines.append(
            (
                str(row["reclaim"]),
                str(row["preempt"]),
                str(row["checkpoint"]),
                str(row["evictions"]),
                f"{row['reclaim_ev']}/{row['preempt_ev']}",
                str(row["evicted_jobs"]),
                f"{summary.metrics.lost_gpu_hours:.1f}",
                _duration(summary.metrics.queueing.mean),
                _duration(summary.metrics.queueing.p95),
                f"{summary.metrics.reclaim_waiting_gpu_hours:.1f}",
                _duration(summary.metrics.completion.mean),
                f"{summary.metrics.utilisation:.1%}",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(
            cell.rjust(width) if i >= 3 else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    ]
    return "\n".join(text)


def to_json(workload: Workload, summaries: Sequence[RunSummary]) -> str:
    """The runs as a JSON document (fixed key order, so equal runs give equal bytes)."""
    document = {
        "workload": {
            "name": workload.name,
            "jobs": len(workload.jobs),
            "total_gpus": workload.total_gpus,
            "deserved": dict(sorted(workload.deserved.items())),
            "notes": list(workload.notes),
        },
        "runs": [summary.to_dict() for summary in summaries],
    }
    return json.dumps(document, indent=2) + "\n"


def to_csv(summaries: Sequence[RunSummary]) -> str:
    """The runs as CSV: one row per run, the table's columns as exact values."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for summary in summaries:
        writer.writerow(_row(summary))
    return buffer.getvalue()


def plot(summaries: Sequence[RunSummary], path: str | os.PathLike[str], *, title: str) -> None:
    """Lost GPU-hours against reclaim waiting GPU-hours, one labelled point per run.

    Needs matplotlib (``pip install matplotlib``), imported only here.

    Raises:
        ImportError: without matplotlib, saying how to install it.
    """
    try:
        matplotlib: Any = importlib.import_module("matplotlib")
        matplotlib.use("Agg")
        pyplot: Any = importlib.import_module("matplotlib.pyplot")
    except ImportError:
        raise ImportError(
            "--plot needs matplotlib, which is not installed: pip install matplotlib"
        ) from None
    figure, axes = pyplot.subplots(figsize=(7, 5))
    xs = [summary.metrics.reclaim_waiting_gpu_hours for summary in summaries]
    ys = [summary.metrics.lost_gpu_hours for summary in summaries]
    axes.scatter(xs, ys)
    for summary, x, y in zip(summaries, xs, ys, strict=True):
        s = summary.settings
        label = f"reclaim {s.reclaim_min_runtime}"
        if s.preempt_min_runtime:
            label += f", preempt {s.preempt_min_runtime}"
        if s.checkpoint_interval is not None:
            label += f", ckpt {_checkpoint(s)}"
        axes.annotate(label, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    axes.set_xlabel("reclaim waiting caused by protection (GPU-hours)")
    axes.set_ylabel("lost work (GPU-hours)")
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(os.fspath(path))
    pyplot.close(figure)

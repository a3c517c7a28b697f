"""Settings sweeps: run a grid of settings on one workload, in parallel, and report the results.

Each run is independent and deterministic, so runs go to separate processes
(:class:`concurrent.futures.ProcessPoolExecutor`) and the results come back in the grid's order:
the report does not depend on how many processes ran it. Each process loads the workload once
from its :class:`TraceSource`.

>>> from minruntime import MinRuntime
>>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")], checkpoints=[None, 1800])
>>> [settings.label for settings in grid]
['reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0', 'reclaim=0s preempt=0s checkpoint=30m order=reference', 'reclaim=1h preempt=0s checkpoint=drawn order=reference seed=0', 'reclaim=1h preempt=0s checkpoint=30m order=reference']
>>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")], checkpoints=[1800],
...                      policies=["none", "min-runtime", "checkpoint-aware"])
>>> for settings in grid:
...     print(settings.label)
reclaim=0s preempt=0s checkpoint=30m order=reference policy=none
reclaim=0s preempt=0s checkpoint=30m order=reference
reclaim=0s preempt=0s checkpoint=30m order=reference policy=checkpoint-aware grace=10m
reclaim=1h preempt=0s checkpoint=30m order=reference
reclaim=1h preempt=0s checkpoint=30m order=reference policy=checkpoint-aware grace=10m
"""

from __future__ import annotations

import csv
import importlib
import io
import itertools
import json
import math
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from typing import Any, Final, NoReturn

import attrs
from tqdm import tqdm

from minruntime import MinRuntime
from minruntime_sim.metrics import EvictionRecord, Metrics
from minruntime_sim.model import (
    DEFAULT_CHECKPOINT_GRACE,
    DEFAULT_RESTART_OVERHEAD,
    Settings,
    VictimOrder,
    Workload,
)
from minruntime_sim.scheduler import simulate
from minruntime_sim.traces import load_trace

__all__ = [
    "RunSummary",
    "TraceSource",
    "evictions_csv",
    "format_table",
    "plot",
    "plot_figure",
    "run_sweep",
    "settings_grid",
    "to_csv",
    "to_json",
    "usage_csv",
]

_LOADED: dict[TraceSource, Workload] = {}
"""The workload last loaded in this process."""


@attrs.frozen
class TraceSource:
    """Where a workload comes from, so that a worker process can load it itself.

    ``window`` and ``windows`` take a slice of the trace (:meth:`Workload.window`);
    ``load_factor`` makes its jobs arrive that many times as fast (:meth:`Workload.with_load`).

    >>> TraceSource("synthetic", limit=10).load().name
    'synthetic(seed=0, jobs=10)'
    >>> TraceSource("synthetic", limit=10, window=1, windows=2).load().name
    'synthetic(seed=0, jobs=10)[2/2]'
    """

    trace: str
    limit: int | None = None
    gpus: int | None = None
    seed: int = 0
    window: int = 0
    windows: int = 1
    load_factor: float = 1

    def load(self) -> Workload:
        """The workload (loaded once per process)."""
        workload = _LOADED.get(self)
        if workload is None:
            workload = load_trace(
                self.trace,
                limit=self.limit,
                gpus=self.gpus,
                seed=self.seed,
                load_factor=self.load_factor,
            )
            if self.windows > 1:
                workload = workload.window(self.window, self.windows)
            _LOADED.clear()  # keep one: a process works on one workload at a time
            _LOADED[self] = workload
        return workload


@attrs.frozen(kw_only=True)
class RunSummary:
    """The settings of one run and its metrics; with ``detail``, its evictions and its busy
    GPUs over time too (see :func:`run_sweep`)."""

    settings: Settings
    metrics: Metrics
    evictions: tuple[EvictionRecord, ...] = ()
    usage: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, object]:
        """As JSON-ready values: the settings, then the metrics."""
        return {"settings": self.settings.to_dict(), "metrics": self.metrics.to_dict()}


def settings_grid(
    *,
    reclaim: Sequence[MinRuntime] = (MinRuntime.ZERO,),
    preempt: Sequence[MinRuntime] = (MinRuntime.ZERO,),
    checkpoints: Sequence[int | None] = (None,),
    restart_overhead: int = DEFAULT_RESTART_OVERHEAD,
    save_on_preempt: int | None = None,
    reclaim_resolve_method: str = "lca",
    policies: Sequence[str] = ("min-runtime",),
    checkpoint_grace: MinRuntime = DEFAULT_CHECKPOINT_GRACE,
    max_evictions: int | None = None,
    eviction_window: MinRuntime = MinRuntime.NEVER,
    victim_orders: Sequence[VictimOrder] = (VictimOrder.REFERENCE,),
    seed: int = 0,
    checkpoint_costs: bool = True,
) -> list[Settings]:
    """Every combination of the values, reclaim outermost, then preempt, then checkpoints, then
    policies, then victim orders; a combination equal to an earlier one is left out (policy
    ``none`` ignores the min-runtimes, so it runs once per checkpoint interval and order)."""
    grid: list[Settings] = []
    for r, p, c, policy, order in itertools.product(
        reclaim, preempt, checkpoints, policies, victim_orders
    ):
        settings = Settings(
            reclaim_min_runtime=r,
            preempt_min_runtime=p,
            checkpoint_interval=c,
            restart_overhead=restart_overhead,
            save_on_preempt=save_on_preempt,
            reclaim_resolve_method=reclaim_resolve_method,
            policy=policy,
            checkpoint_grace=checkpoint_grace,
            max_evictions=max_evictions,
            eviction_window=eviction_window,
            victim_order=order,
            seed=seed,
            checkpoint_costs=checkpoint_costs,
        )
        if settings not in grid:
            grid.append(settings)
    return grid


def _run_one(source: TraceSource, settings: Settings, detail: bool = False) -> RunSummary:
    result = simulate(source.load(), settings)
    if not detail:
        return RunSummary(settings=settings, metrics=result.metrics)
    return RunSummary(
        settings=settings, metrics=result.metrics, evictions=result.evictions, usage=result.usage
    )


def run_sweep(
    source: TraceSource,
    grid: Sequence[Settings],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    progress: bool = False,
    detail: bool = False,
) -> list[RunSummary]:
    """Run every setting of ``grid`` on the workload; results in the grid's order.

    Args:
        source: the workload (each worker loads it once).
        grid: the settings to run.
        jobs: how many processes to use when no ``executor`` is given; 1 (or a single setting)
            runs in this process.
        executor: any :class:`concurrent.futures.Executor` to run the settings on, for example
            a :class:`~concurrent.futures.ProcessPoolExecutor` or a Dask cluster's
            ``Client.get_executor()``; it is left running.
        progress: show a progress bar on standard error (tqdm), one step per finished run.
        detail: keep each run's evictions and busy GPUs over time in its summary (for
            :func:`evictions_csv` and :func:`usage_csv`).

    The report does not depend on where or in what order the runs finished.

    >>> summaries = run_sweep(TraceSource("synthetic", limit=20), settings_grid())
    >>> [summary.metrics.completed for summary in summaries]
    [20]
    """
    with tqdm(total=len(grid), desc="runs", unit="run", disable=not progress) as bar:
        if executor is None and (jobs <= 1 or len(grid) <= 1):
            summaries = []
            for settings in grid:
                summaries.append(_run_one(source, settings, detail))
                bar.update()
            return summaries
        if executor is not None:
            return _gather(executor, source, grid, bar, detail)
        # 'spawn': a fresh interpreter per worker, safe whatever threads the caller runs.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, len(grid)), mp_context=context) as pool:
            return _gather(pool, source, grid, bar, detail)


def _gather(
    executor: Executor,
    source: TraceSource,
    grid: Sequence[Settings],
    bar: tqdm[NoReturn],
    detail: bool,
) -> list[RunSummary]:
    futures = [executor.submit(_run_one, source, settings, detail) for settings in grid]
    for _ in as_completed(futures):
        bar.update()
    return [future.result() for future in futures]


# -- reports ---------------------------------------------------------------------------------

_COLUMNS: Final = (
    "policy",
    "order",
    "reclaim",
    "preempt",
    "checkpoint",
    "grace",
    "budget",
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
    """The checkpoint interval as tables show it: ``drawn`` (per job), ``none``, or a duration
    (``/free`` when checkpoint costs are off)."""
    interval = settings.checkpoint_interval
    if interval is None:
        return "drawn" if settings.checkpoint_costs else "none"
    return str(MinRuntime(interval)) + ("" if settings.checkpoint_costs else "/free")


def _order(settings: Settings) -> str:
    """The victim order as the table shows it: its name, and its seed when random."""
    if settings.victim_order is VictimOrder.RANDOM:
        return f"random:{settings.seed}"
    return str(settings.victim_order)


def _row(summary: RunSummary) -> dict[str, object]:
    """One run as exact values (seconds, GPU-hours), keyed by the table's columns."""
    m = summary.metrics
    s = summary.settings
    return {
        "policy": s.policy,
        "order": _order(s),
        "reclaim": str(s.reclaim_min_runtime),
        "preempt": str(s.preempt_min_runtime),
        "checkpoint": _checkpoint(s),
        "grace": str(s.checkpoint_grace) if s.checkpoint_aware else "",
        "budget": s.budget if s.checkpoint_aware else "",
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
    """A plain-text comparison table, one line per run (delays as durations).

    The grace and budget columns appear when some run is checkpoint-aware (blank for the others).
    """
    aware = any(summary.settings.checkpoint_aware for summary in summaries)
    settings_columns: tuple[str, ...] = ("policy", "order", "reclaim", "preempt", "checkpoint")
    if aware:
        settings_columns += ("grace", "budget")
    header: tuple[str, ...] = (
        *settings_columns,
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
    lines: list[tuple[str, ...]] = [header]
    for summary in summaries:
        row = _row(summary)
        lines.append(
            (
                *(str(row[column]) for column in settings_columns),
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
            cell.rjust(width) if i >= len(settings_columns) else cell.ljust(width)
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


def evictions_csv(summaries: Sequence[RunSummary]) -> str:
    """Every eviction of every run (kept with ``detail``) as CSV: the run's label, then the
    fields of :class:`~minruntime_sim.EvictionRecord`.

    >>> summaries = run_sweep(TraceSource("synthetic", limit=40), settings_grid(), detail=True)
    >>> evictions_csv(summaries).splitlines()[0]
    'run,time,job,queue,action,preemptor,preemptor_queue,tasks,active_before,min_available,preemptibility,start_time,min_runtime,work_since_start,lost_gpu_seconds,restart_gpu_seconds'
    """
    names = [field.name for field in attrs.fields(EvictionRecord)]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run", *names])
    for summary in summaries:
        for record in summary.evictions:
            writer.writerow([summary.settings.label, *(getattr(record, name) for name in names)])
    return buffer.getvalue()


def usage_csv(summaries: Sequence[RunSummary]) -> str:
    """Busy GPUs over time of every run (kept with ``detail``) as CSV: ``run, time, busy_gpus``,
    one row per change (a step function: the count holds until the run's next row).

    >>> summaries = run_sweep(TraceSource("synthetic", limit=3), settings_grid(), detail=True)
    >>> print(usage_csv(summaries))
    run,time,busy_gpus
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,223,2
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,276,6
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,367,8
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,1538,6
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,6431,4
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,8076,0
    <BLANKLINE>
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run", "time", "busy_gpus"])
    for summary in summaries:
        for time, busy in summary.usage:
            writer.writerow([summary.settings.label, time, busy])
    return buffer.getvalue()


def _series_key(settings: Settings) -> tuple[object, ...]:
    """What a run's series is: every setting but the reclaim min-runtime."""
    return (
        settings.policy,
        settings.victim_order,
        settings.seed,
        settings.preempt_min_runtime,
        settings.checkpoint_interval,
        settings.checkpoint_costs,
        settings.checkpoint_grace,
        settings.budget,
        settings.restart_overhead,
        settings.reclaim_resolve_method,
    )


def _series_label(settings: Settings, summaries: Sequence[RunSummary]) -> str:
    """The policy, and the other settings that tell this series from the others."""
    others = [summary.settings for summary in summaries]
    parts = [settings.policy]
    if any(
        (other.victim_order, other.seed) != (settings.victim_order, settings.seed)
        for other in others
    ):
        parts.append(f"order {_order(settings)}")
    protecting = [other for other in others if other.policy != "none"]
    if settings.policy != "none" and any(
        other.preempt_min_runtime != settings.preempt_min_runtime for other in protecting
    ):
        parts.append(f"preempt {settings.preempt_min_runtime}")
    if any(
        (other.checkpoint_interval, other.checkpoint_costs)
        != (settings.checkpoint_interval, settings.checkpoint_costs)
        for other in others
    ):
        parts.append(f"checkpoint {_checkpoint(settings)}")
    aware = [other for other in others if other.checkpoint_aware]
    if settings.checkpoint_aware and any(
        (other.checkpoint_grace, other.budget) != (settings.checkpoint_grace, settings.budget)
        for other in aware
    ):
        parts.append(f"grace {settings.checkpoint_grace}, budget {settings.budget}")
    if any(other.restart_overhead != settings.restart_overhead for other in others):
        parts.append(f"restart {MinRuntime(settings.restart_overhead)}")
    if any(other.reclaim_resolve_method != settings.reclaim_resolve_method for other in others):
        parts.append(settings.reclaim_resolve_method)
    return ", ".join(parts)


def _common(summaries: Sequence[RunSummary]) -> str:
    """The settings every run shares that the series labels leave out: a second title line."""
    if not summaries:
        return ""
    parts = []
    intervals = {
        (summary.settings.checkpoint_interval, summary.settings.checkpoint_costs)
        for summary in summaries
    }
    if len(intervals) == 1:
        interval, costs = intervals.pop()
        if interval is None:
            parts.append("checkpoints drawn per job" if costs else "no checkpoints")
        else:
            free = "" if costs else " (free)"
            parts.append(f"checkpoints every {MinRuntime(interval)}{free}")
    orders = {_order(summary.settings) for summary in summaries}
    if len(orders) == 1:
        parts.append(f"victim order {orders.pop()}")
    aware = {
        (summary.settings.checkpoint_grace, summary.settings.budget)
        for summary in summaries
        if summary.settings.checkpoint_aware
    }
    if len(aware) == 1:
        grace, budget = aware.pop()
        parts.append(f"checkpoint-aware: grace {grace}, eviction budget {budget}")
    return "\n" + "; ".join(parts) if parts else ""


_MARKERS: Final = ("o", "s", "^", "D", "v", "P", "X", "*")
_DPI: Final = 150
"""The figure's resolution: labels are placed at the resolution the file is written at."""
_LABEL_SIZE: Final = 8
"""Point labels' font size."""
_MARKER_SIZE: Final = 6
"""Markers' size in points."""
_OFFSETS: Final = tuple(
    (round(dx * radius), round(dy * radius))
    for radius in (7, 12, 18, 26, 36, 48)
    for dx, dy in ((1, 0), (-1, 0), (1, 0.8), (1, -0.8), (-1, 0.8), (-1, -0.8), (0, 1), (0, -1))
)
"""Where a point's label may go, tried in turn, as (points right, points up) of the point: beside
it first, then diagonally, then above and below, further out each round."""


def _load_pyplot() -> Any:
    try:
        matplotlib: Any = importlib.import_module("matplotlib")
        matplotlib.use("Agg")
        return importlib.import_module("matplotlib.pyplot")
    except ImportError:
        raise ImportError(
            "--plot needs matplotlib, which is not installed: pip install matplotlib"
        ) from None


_Box = tuple[float, float, float, float]
"""A display-space box: (left, bottom, right, top) in pixels."""


def _box(extent: Any) -> _Box:
    """A rendered artist's extent as a :data:`_Box`, one pixel wider on every side."""
    return (extent.x0 - 1, extent.y0 - 1, extent.x1 + 1, extent.y1 + 1)


def _overlap(a: _Box, b: _Box) -> float:
    """The area two boxes share (0 when they only touch)."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


def _place_labels(
    figure: Any, axes: Any, points: Sequence[tuple[float, float]], texts: Sequence[str], color: str
) -> None:
    """Label each point, at the first of :data:`_OFFSETS` where the label's rendered box stays
    inside the axes and overlaps neither a marker nor a label already placed; where none is
    free, at the place it overlaps least. Boxes come from the Agg renderer in display space,
    so the axes' limits and layout must be final."""
    renderer = figure.canvas.get_renderer()
    extent = axes.get_window_extent(renderer)
    area = (extent.x0, extent.y0, extent.x1, extent.y1)
    radius = _MARKER_SIZE * figure.dpi / 72 / 2 + 1
    pixels = [(float(px), float(py)) for px, py in axes.transData.transform(points)]
    marks = [(px - radius, py - radius, px + radius, py + radius) for px, py in pixels]
    line: list[_Box] = []  # the segments joining the points, every 3 pixels: avoided if possible
    for (ax, ay), (bx, by) in itertools.pairwise(pixels):
        steps = max(1, int(math.hypot(bx - ax, by - ay) // 3))
        for i in range(steps + 1):
            x, y = ax + (bx - ax) * i / steps, ay + (by - ay) * i / steps
            line.append((x - 1, y - 1, x + 1, y + 1))
    taken: list[_Box] = []

    def place(text: str, point: tuple[float, float], dx: int, dy: int) -> Any:
        return axes.annotate(
            text,
            point,
            xytext=(dx, dy),
            textcoords="offset points",
            horizontalalignment="left" if dx > 0 else "right" if dx < 0 else "center",
            verticalalignment="center",
            fontsize=_LABEL_SIZE,
            color=color,
        )

    for point, text in zip(points, texts, strict=True):
        best: tuple[float, tuple[int, int]] | None = None
        for dx, dy in _OFFSETS:
            label = place(text, point, dx, dy)
            box = _box(label.get_window_extent(renderer))
            outside = box[0] < area[0] or box[2] > area[2] or box[1] < area[1] or box[3] > area[3]
            cost = 1000 * sum(_overlap(box, other) for other in (*marks, *taken))
            cost += sum(_overlap(box, other) for other in line) + (1e12 if outside else 0)
            label.remove()
            if best is None or cost < best[0]:
                best = (cost, (dx, dy))
            if cost == 0:
                break
        assert best is not None
        label = place(text, point, *best[1])
        taken.append(_box(label.get_window_extent(renderer)))


def plot_figure(summaries: Sequence[RunSummary], *, title: str) -> Any:
    """The trade-off figure (a matplotlib ``Figure``): lost GPU-hours against reclaim waiting
    GPU-hours, one panel per series (a policy, and any other setting that differs between
    runs), all on the same axes' scales; one point per run, labelled with its reclaim
    min-runtime, a series' points joined in the grid's order. Labels are placed where their
    rendered boxes overlap no other label and no point, and off the lines where they can.

    Needs matplotlib (``pip install matplotlib``), imported only here.

    Raises:
        ImportError: without matplotlib, saying how to install it.

    >>> from minruntime_sim.synthetic import toy_workload
    >>> from minruntime_sim import simulate
    >>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1m")], policies=["none", "min-runtime"])
    >>> runs = [RunSummary(settings=s, metrics=simulate(toy_workload(), s).metrics) for s in grid]
    >>> figure = plot_figure(runs, title="toy")
    >>> [axes.get_title() for axes in figure.axes], [t.get_text() for t in figure.axes[1].texts]
    (['none', 'min-runtime'], ['0s', '1m'])
    """
    pyplot = _load_pyplot()
    series: dict[tuple[object, ...], list[RunSummary]] = {}
    for summary in summaries:
        series.setdefault(_series_key(summary.settings), []).append(summary)
    count = max(1, len(series))
    columns = min(3, count)
    rows = -(-count // columns)
    figure, grid = pyplot.subplots(
        rows,
        columns,
        figsize=(3.9 * columns, 2.9 * rows + 0.9),
        dpi=_DPI,
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    panels = [axes for row in grid for axes in row]
    for axes in panels[len(series) :]:
        axes.set_visible(False)
    xs_all = [run.metrics.reclaim_waiting_gpu_hours for run in summaries] or [0.0]
    ys_all = [run.metrics.lost_gpu_hours for run in summaries] or [0.0]
    x_span = (max(xs_all) - min(xs_all)) or 1.0
    y_span = (max(ys_all) - min(ys_all)) or 1.0
    drawn = []
    for number, (axes, runs) in enumerate(zip(panels, series.values(), strict=False)):
        xs = [run.metrics.reclaim_waiting_gpu_hours for run in runs]
        ys = [run.metrics.lost_gpu_hours for run in runs]
        color = f"C{number % 10}"
        axes.plot(
            xs, ys, marker=_MARKERS[number % len(_MARKERS)], markersize=_MARKER_SIZE, color=color
        )
        axes.set_title(_series_label(runs[0].settings, summaries), fontsize=9, color=color)
        axes.grid(alpha=0.3)
        drawn.append((axes, runs, xs, ys, color))
    # wide margins: the labels of the points at the edges must fit inside the axes
    panels[0].set_xlim(min(xs_all) - 0.22 * x_span, max(xs_all) + 0.22 * x_span)
    panels[0].set_ylim(min(ys_all) - 0.12 * y_span, max(ys_all) + 0.12 * y_span)
    for axes in grid[-1]:
        axes.set_xlabel("reclaim waiting (GPU-h)", fontsize=8)
    for row in grid:
        row[0].set_ylabel("lost work (GPU-h)", fontsize=8)
    figure.suptitle(
        title + _common(summaries) + "\npoints labelled with the reclaim min-runtime", fontsize=10
    )
    figure.tight_layout()
    for axes, runs, xs, ys, color in drawn:
        texts = [str(run.settings.reclaim_min_runtime) for run in runs]
        _place_labels(figure, axes, list(zip(xs, ys, strict=True)), texts, color)
    return figure


def plot(summaries: Sequence[RunSummary], path: str | os.PathLike[str], *, title: str) -> None:
    """Write :func:`plot_figure` to ``path`` (PNG, or any format matplotlib infers from the
    name).

    Raises:
        ImportError: without matplotlib, saying how to install it.
    """
    figure = plot_figure(summaries, title=title)
    figure.savefig(os.fspath(path), dpi=_DPI)
    _load_pyplot().close(figure)

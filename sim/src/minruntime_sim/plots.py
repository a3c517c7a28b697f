"""The figure of a sweep: lost work, evictions and reclaim waiting, per setting, every replicate.

One row per setting (named by what tells it apart from the others), one panel per metric:
lost work (GPU-hours), evictions, and the cost of protection: reclaim waiting (GPU-hours)
and the jobs' mean wait (minutes);
each panel has its own title and axis title. On each row's middle line the mean, a diamond,
with its 95% interval (:class:`~minruntime_sim.uncertainty.Interval`); above and below it a
mark per replicate, its colour and shape the trace's slice, stacked where marks would
overlap, so no replicate hides another. Every kind of mark is in the legend. A single run is
one replicate (its interval is the point). The settings are not a sequence, so nothing joins
them; the axes start at zero, where counts and work do. A figure of up to six settings of
sixteen replicates fits a screen 1,280 pixels wide. Needs matplotlib (the ``plot`` extra: ``pip install "./sim[plot]"``
from a clone), imported only when a figure is drawn: :func:`require_matplotlib` checks it
before a long run.

>>> from minruntime import MinRuntime
>>> from minruntime_sim.sweep import settings_grid
>>> from minruntime_sim.uncertainty import replicates, run_replicated
>>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")])
>>> figure = plot_figure(run_replicated("synthetic", grid, replicates(slices=2), limit=80),
...                      title="synthetic")
>>> [axes.get_xlabel() for axes in figure.axes]
['GPU-hours lost', 'evictions', 'GPU-hours owed', 'minutes pending']
>>> [axes.get_title() for axes in figure.axes]
['Lost work', 'Evictions', 'Reclaim waiting', "Jobs' mean wait"]
>>> [label.get_text() for label in figure.axes[0].get_yticklabels()]
['reclaim 0s', 'reclaim 1h']
"""

from __future__ import annotations

import importlib
import math
import os
import textwrap
from collections.abc import Sequence
from typing import Any, Final

from minruntime_sim.sweep import RunSummary, common_settings, setting_names
from minruntime_sim.uncertainty import ReplicatedSummary

__all__ = ["PANELS", "plot", "plot_figure", "plot_formats", "require_matplotlib"]

PANELS: Final = (
    ("lost_gpu_hours", "GPU-hours lost"),
    ("evictions", "evictions"),
    ("reclaim_waiting_gpu_hours", "GPU-hours owed"),
    ("mean_wait_minutes", "minutes pending"),
)
"""The metrics the figure shows, one panel each, with their axis titles (the unit; the
panel's title says what it measures)."""

_TITLES: Final = ("Lost work", "Evictions", "Reclaim waiting", "Jobs' mean wait")
"""Each panel's title: what it measures (its axis label gives the unit)."""

_INSTALL: Final = (
    "--plot needs matplotlib, which is not installed: install the simulator's plot extra, "
    "pip install './sim[plot]' from a clone of the repository (or pip install matplotlib)"
)
_WIDTH: Final = 8.0
"""The figure's width in inches: about the width of the documentation's text column."""
_DOT: Final = 3.6
"""A replicate's mark, size in points."""
_GAP: Final = 0.5
"""Points between stacked marks."""
_MEAN: Final = 5.5
"""The mean's diamond, in points."""
_PAD: Final = 1.0
"""Points between a row's outermost marks and its boundary."""
_SLICE_COLOURS: Final = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
"""The slices' colours (Okabe and Ito's, told apart with any colour vision)."""
_SLICE_MARKERS: Final = ("o", "s", "^", "v", "P", "X")
"""The slices' shapes, so that they are told apart without colour too."""


def require_matplotlib() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or ``ImportError`` saying what to install.

    The command calls it before any run starts, so that a missing extra costs nothing.
    """
    try:
        matplotlib: Any = importlib.import_module("matplotlib")
        matplotlib.use("Agg")
        return importlib.import_module("matplotlib.pyplot")
    except ImportError:
        raise ImportError(_INSTALL) from None


def plot_formats() -> list[str]:
    """The file formats :func:`plot` can write, by the file name's suffix (matplotlib's Agg
    canvas's), so the command can refuse ``--plot out.xyz`` before a run.

    Raises:
        ImportError: without matplotlib, saying how to install it.

    >>> "svg" in plot_formats() and "png" in plot_formats()
    True
    """
    require_matplotlib()
    backend = importlib.import_module("matplotlib.backends.backend_agg")
    return sorted(backend.FigureCanvasAgg.get_supported_filetypes())


def _stack(xs: Sequence[float], spacing: float) -> list[tuple[int, int]]:
    """Each mark's place beside its row's middle line, which the mean takes: (lane, level).

    The level is 1, -1, 2, -2, ... (above first, never 0); the lane 0 (at its value) or 1
    (``spacing`` to the right of it, a jitter that halves the height of a pile of equal
    values). Each mark takes the first free place: no two marks are closer than ``spacing``
    (the distance between their centres, in the units of ``xs``). Marks are placed left to
    right (ties in the given order), so the same values stack the same way in every row.

    >>> _stack([0.0, 0.0, 0.0, 10.0], 3.0)
    [(0, 1), (1, 1), (0, -1), (0, 1)]
    """
    placed: list[tuple[float, int]] = []  # (x, level) of every mark placed
    places = [(0, 0)] * len(xs)
    for index in sorted(range(len(xs)), key=lambda i: (xs[i], i)):
        for step in range(4 * len(xs) + 4):
            level = (step // 4 + 1) * (1 if step // 2 % 2 == 0 else -1)
            lane = step % 2
            x = xs[index] + lane * spacing
            if all(
                math.hypot(x - other, (level - other_level) * spacing) >= spacing - 1e-9
                for other, other_level in placed
            ):
                break
        placed.append((x, level))
        places[index] = (lane, level)
    return places


def _as_replicated(
    summaries: Sequence[RunSummary | ReplicatedSummary],
) -> list[ReplicatedSummary]:
    return [
        summary if isinstance(summary, ReplicatedSummary) else ReplicatedSummary.single(summary)
        for summary in summaries
    ]


def _colour(window: int, windows: int) -> str:
    return _SLICE_COLOURS[window % len(_SLICE_COLOURS)] if windows > 1 else "#555555"


def _marker(window: int, windows: int) -> str:
    return _SLICE_MARKERS[window % len(_SLICE_MARKERS)] if windows > 1 else "o"


def plot_figure(summaries: Sequence[RunSummary | ReplicatedSummary], *, title: str) -> Any:
    """The figure (a matplotlib ``Figure``) of runs or replicated runs; see the module.

    Args:
        summaries: the settings' results, in the order of the rows (top first): single runs
            (:class:`~minruntime_sim.sweep.RunSummary`) or replicated ones.
        title: the first line of the title (the workload, its size); the replicates and the
            settings every row shares follow it.

    Raises:
        ImportError: without matplotlib, saying how to install it.
    """
    pyplot = require_matplotlib()
    ticker = importlib.import_module("matplotlib.ticker")
    rows = _as_replicated(summaries)
    names = setting_names([row.settings for row in rows])
    runs = max((len(row.runs) for row in rows), default=1)
    windows = max((rep.windows for row in rows for rep, _ in row.runs), default=1)
    spacing = _DOT + _GAP
    # the panels' width in points, a little less than it will be: marks that may touch stack
    panel = (_WIDTH - 2.4) / len(PANELS) * 72 * 0.9
    # each interval once (a bootstrap of its values): it sets the axis, then it is drawn
    intervals = {
        (index, metric): row.interval(metric)
        for index, row in enumerate(rows)
        for metric, _ in PANELS
    }
    highs: list[float] = []
    for metric, _ in PANELS:
        top = max(
            (
                max(intervals[index, metric].high, *row.values(metric))
                for index, row in enumerate(rows)
            ),
            default=0.0,
        )
        highs.append(_nice(top))
    above = below = 0  # the furthest places above and below a row's middle line marks take
    for number, (metric, _) in enumerate(PANELS):
        scale = panel / highs[number]
        for row in rows:
            placed = [
                level
                for _, level in _stack([value * scale for value in row.values(metric)], spacing)
            ]
            above = max(above, *placed)
            below = max(below, *(-place for place in placed))
    reach = max(above, below)  # symmetric: the mean on the row's middle line
    row_height = 2 * (_rise(reach) + _DOT / 2 + _PAD)
    count = max(1, len(rows))
    shared = common_settings([row.settings for row in rows])
    heading = "\n".join(
        textwrap.fill(part, 100, break_on_hyphens=False) for part in (title, shared) if part
    )
    lines = heading.count("\n") + 1
    figure, grid = pyplot.subplots(
        1,
        len(PANELS),
        figsize=(_WIDTH, count * row_height / 72 + 1.25 + 0.17 * lines),
        dpi=100,
        sharey=True,
        layout="constrained",
    )
    figure.get_layout_engine().set(wspace=0.08)  # room between one panel's last tick and
    panels = list(grid)  # the next panel's first
    for number, (axes, (_, label)) in enumerate(zip(panels, PANELS, strict=True)):
        axes.set_xlim(0, highs[number])
        ticks = ticker.MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]).tick_values(0, highs[number])
        axes.set_xticks([tick for tick in ticks if 0 <= tick <= highs[number]])
        axes.xaxis.set_major_formatter(ticker.FuncFormatter(_tick))
        axes.set_ylim(count - 0.5, -0.5)
        axes.set_title(_TITLES[number], fontsize=10.5)
        axes.set_xlabel(label, fontsize=9.5)
        axes.tick_params(labelsize=9)
        axes.tick_params(axis="y", length=0)
        axes.grid(axis="x", alpha=0.3)
        for boundary in range(1, count):
            axes.axhline(boundary - 0.5, color="#bbbbbb", linewidth=0.6)
    panels[0].set_yticks(range(len(rows)), names, fontsize=9.5)
    panels[0].set_ylabel("setting", fontsize=9.5)
    figure.suptitle(heading, fontsize=9.5)
    replicate = "run" if runs == 1 else "replicate"
    handles = [
        pyplot.Line2D(
            [],
            [],
            linestyle="none",
            marker=_marker(w, windows),
            markersize=_DOT + 1,
            markeredgewidth=0,
            color=_colour(w, windows),
        )
        for w in range(windows)
    ]
    labels = (
        [f"{replicate}, slice {w + 1}/{windows}" for w in range(windows)]
        if windows > 1
        else [f"one {replicate}"]
    )
    handles.append(
        pyplot.Line2D(
            [], [], linestyle="none", marker="D", markersize=_MEAN, markeredgewidth=0, color="black"
        )
    )
    labels.append(f"mean of {runs} {replicate}s" if runs > 1 else "the run")
    if runs > 1:
        handles.append(pyplot.Line2D([], [], color="black", linewidth=1))
        labels.append("95% bootstrap interval")
    figure.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=min(len(handles), 4),
        fontsize=9,
        frameon=False,
    )
    figure.canvas.draw()  # the layout is final: rows' heights in pixels are known
    for axes, (metric, _) in zip(panels, PANELS, strict=True):
        top, bottom = (float(y) for _, y in axes.transData.transform([(0, 0), (0, 1)]))
        per_point = figure.dpi / 72 / abs(top - bottom)  # rows per point
        for index, row in enumerate(rows):
            values = row.values(metric)
            xs = [float(axes.transData.transform((value, 0))[0]) for value in values]
            places = _stack([x / figure.dpi * 72 for x in xs], spacing)
            across = spacing * figure.dpi / 72  # a lane, in pixels
            for (rep, _), x, (lane, level) in zip(row.runs, xs, places, strict=True):
                value = float(axes.transData.inverted().transform((x + lane * across, 0))[0])
                axes.plot(
                    [value],
                    [index - math.copysign(_rise(abs(level)), level) * per_point],
                    linestyle="none",
                    marker=_marker(rep.window, rep.windows),
                    markersize=_DOT,
                    markeredgewidth=0,
                    color=_colour(rep.window, rep.windows),
                    clip_on=False,
                )
            interval = intervals[index, metric]
            if interval.high > interval.low:
                axes.hlines(index, interval.low, interval.high, color="black", linewidth=1)
            axes.plot(
                [interval.mean],
                [index],
                linestyle="none",
                marker="D",
                markersize=_MEAN,
                markeredgewidth=0,
                color="black",
                clip_on=False,
            )
    return figure


def _rise(level: int) -> float:
    """How far above (or below) its row's middle line a mark of stacking level ``level``
    (1, 2, ...) sits, in points: clear of the mean's diamond, then a mark's spacing apart."""
    return _MEAN / 2 + _GAP + _DOT / 2 + (level - 1) * (_DOT + _GAP)


def _tick(value: float, _position: object = None) -> str:
    """An axis tick's label, short: 1.5k from 1,000 on, no trailing zeros.

    >>> [_tick(value) for value in (0, 0.25, 40, 1500, 2000)]
    ['0', '0.25', '40', '1.5k', '2k']
    """
    if abs(value) >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def _nice(top: float) -> float:
    """An axis end at or above ``top``: 1, 2, 2.5 or 5 times a power of ten, with room for a
    dot (1 when everything is 0)."""
    if top <= 0:
        return 1.0
    top *= 1.04
    power = 10.0 ** math.floor(math.log10(top))
    return next(step * power for step in (1.0, 2.0, 2.5, 5.0, 10.0) if step * power >= top)


def plot(
    summaries: Sequence[RunSummary | ReplicatedSummary],
    path: str | os.PathLike[str],
    *,
    title: str,
) -> None:
    """Write :func:`plot_figure` to ``path`` (PNG, SVG, or any format matplotlib infers from
    the name). An SVG is the same bytes for the same runs (no date, fixed ids).

    Raises:
        ImportError: without matplotlib, saying how to install it.
    """
    pyplot = require_matplotlib()
    with pyplot.rc_context({"svg.hashsalt": "minruntime-sim"}):
        figure = plot_figure(summaries, title=title)
        metadata = {"Date": None} if os.fspath(path).endswith(".svg") else None
        figure.savefig(os.fspath(path), dpi=150, metadata=metadata)
    pyplot.close(figure)

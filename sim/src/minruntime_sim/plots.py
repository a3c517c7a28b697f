"""The figure of a sweep: lost work, evictions and reclaim waiting, per setting, every replicate.

One row per setting (named by what tells it apart from the others), one panel per metric:
lost work (GPU-hours), evictions, and reclaim waiting (GPU-hours), the cost of protection. In
each row a dot per replicate, coloured by the trace's slice, stacked where dots would
overlap, so every replicate is visible; under them the mean, a diamond, with its 95% interval
(:class:`~minruntime_sim.uncertainty.Interval`). A single run is one replicate (its interval is
the point). The settings are not a sequence, so nothing joins them; the axes start at zero,
where counts and work do. Needs matplotlib (the ``plot`` extra: ``pip install "./sim[plot]"``
from a clone), imported only when a figure is drawn: :func:`require_matplotlib` checks it
before a long run.

>>> from minruntime import MinRuntime
>>> from minruntime_sim.sweep import settings_grid
>>> from minruntime_sim.uncertainty import replicates, run_replicated
>>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")])
>>> figure = plot_figure(run_replicated("synthetic", grid, replicates(slices=2), limit=80),
...                      title="synthetic")
>>> [axes.get_xlabel() for axes in figure.axes]
['lost work (GPU-h)', 'evictions', 'reclaim waiting (GPU-h)']
>>> [label.get_text() for label in figure.axes[0].get_yticklabels()]
['reclaim 0s', 'reclaim 1h']
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Sequence
from typing import Any, Final

from minruntime_sim.sweep import RunSummary, common_settings, setting_names
from minruntime_sim.uncertainty import ReplicatedSummary

__all__ = ["PANELS", "plot", "plot_figure", "plot_formats", "require_matplotlib"]

PANELS: Final = (
    ("lost_gpu_hours", "lost work (GPU-h)"),
    ("evictions", "evictions"),
    ("reclaim_waiting_gpu_hours", "reclaim waiting (GPU-h)"),
)
"""The metrics the figure shows, one panel each, with their axis labels."""

_INSTALL: Final = (
    "--plot needs matplotlib, which is not installed: install the simulator's plot extra, "
    "pip install './sim[plot]' from a clone of the repository (or pip install matplotlib)"
)
_WIDTH: Final = 7.5
"""The figure's width in inches: about the width of the documentation's text column."""
_DOT: Final = 2.6
"""A replicate's dot, diameter in points."""
_GAP: Final = 0.5
"""Points between stacked dots."""
_MEAN: Final = 5.0
"""The mean's diamond, in points."""
_PAD: Final = 3.0
"""Points above a row's dots and below its interval."""
_BAND: Final = 9.0
"""Points of a row taken by the mean and its interval."""
_SLICE_COLOURS: Final = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02")


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


def _stack(xs: Sequence[float], spacing: float) -> list[int]:
    """Each dot's level in its row (0, 1, -1, 2, -2, ...), the lowest free one: two dots on
    one level are at least ``spacing`` apart. Dots are placed left to right (ties in the given
    order), so the same values stack the same way in every row."""
    levels: dict[int, list[float]] = {}
    placed = [0] * len(xs)
    for index in sorted(range(len(xs)), key=lambda i: (xs[i], i)):
        level = 0
        for step in range(2 * len(xs) + 1):
            level = (step + 1) // 2 * (1 if step % 2 else -1)
            if all(abs(xs[index] - other) >= spacing for other in levels.get(level, [])):
                break
        levels.setdefault(level, []).append(xs[index])
        placed[index] = level
    return placed


def _as_replicated(
    summaries: Sequence[RunSummary | ReplicatedSummary],
) -> list[ReplicatedSummary]:
    return [
        summary if isinstance(summary, ReplicatedSummary) else ReplicatedSummary.single(summary)
        for summary in summaries
    ]


def _colour(window: int, windows: int) -> str:
    return _SLICE_COLOURS[window % len(_SLICE_COLOURS)] if windows > 1 else "#555555"


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
    # the panels' width in points, a little less than it will be: dots that may touch stack
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
    reach = 0  # the furthest level from a row's middle a dot takes
    for number, (metric, _) in enumerate(PANELS):
        scale = panel / highs[number]
        for row in rows:
            placed = _stack([value * scale for value in row.values(metric)], spacing)
            reach = max(reach, *map(abs, placed))
    stack = 2 * reach * spacing + _DOT
    row_height = stack + _BAND + 2 * _PAD
    count = max(1, len(rows))
    figure, grid = pyplot.subplots(
        1,
        len(PANELS),
        figsize=(_WIDTH, count * row_height / 72 + 2.0),
        dpi=100,
        sharey=True,
        layout="constrained",
    )
    figure.get_layout_engine().set(wspace=0.08)  # room between one panel's last tick and
    panels = list(grid)  # the next panel's first
    for number, (axes, (_, label)) in enumerate(zip(panels, PANELS, strict=True)):
        axes.set_xlim(0, highs[number])
        ticks = ticker.MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]).tick_values(0, highs[number])
        axes.set_xticks([tick for tick in ticks if 0 <= tick <= highs[number]])
        axes.set_ylim(count - 0.5, -0.5)
        axes.set_xlabel(label, fontsize=9)
        axes.tick_params(labelsize=8)
        axes.tick_params(axis="y", length=0)
        axes.grid(axis="x", alpha=0.3)
        for boundary in range(1, count):
            axes.axhline(boundary - 0.5, color="#dddddd", linewidth=0.6)
    panels[0].set_yticks(range(len(rows)), names, fontsize=8)
    shared = common_settings([row.settings for row in rows])
    replicate_text = (
        "one run per setting"
        if runs == 1
        else f"{runs} replicates per setting (dots; colour: the trace's slice)"
    )
    figure.suptitle(
        "\n".join(
            part
            for part in (
                title,
                shared,
                f"{replicate_text}; diamond: the mean, bar: its 95% bootstrap interval",
            )
            if part
        ),
        fontsize=9,
    )
    handles = [
        pyplot.Line2D(
            [], [], linestyle="none", marker="o", markersize=_DOT, color=_colour(w, windows)
        )
        for w in range(windows)
    ]
    if windows > 1:
        figure.legend(
            handles,
            [f"slice {w + 1}/{windows}" for w in range(windows)],
            loc="outside lower center",
            ncols=min(windows, 6),
            fontsize=8,
            frameon=False,
        )
    figure.canvas.draw()  # the layout is final: rows' heights in pixels are known
    for axes, (metric, _) in zip(panels, PANELS, strict=True):
        top, bottom = (float(y) for _, y in axes.transData.transform([(0, 0), (0, 1)]))
        per_point = figure.dpi / 72 / abs(top - bottom)  # rows per point
        for index, row in enumerate(rows):
            values = row.values(metric)
            xs = [float(axes.transData.transform((value, 0))[0]) for value in values]
            placed = _stack([x / figure.dpi * 72 for x in xs], spacing)
            centre = index - 0.5 + (_PAD + stack / 2) * per_point
            for (rep, _), value, level in zip(row.runs, values, placed, strict=True):
                axes.plot(
                    [value],
                    [centre + level * spacing * per_point],
                    linestyle="none",
                    marker="o",
                    markersize=_DOT,
                    markeredgewidth=0,
                    color=_colour(rep.window, rep.windows),
                    clip_on=False,
                )
            interval = intervals[index, metric]
            band = index + 0.5 - (_PAD + _BAND / 2) * per_point
            if interval.high > interval.low:
                axes.hlines(band, interval.low, interval.high, color="black", linewidth=1)
            axes.plot(
                [interval.mean],
                [band],
                linestyle="none",
                marker="D",
                markersize=_MEAN,
                markeredgewidth=0,
                color="black",
                clip_on=False,
            )
    return figure


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

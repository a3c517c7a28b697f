"""The trade-off plot a person can read: rendered with Agg, no two point labels overlap and no
label covers a point, on the Philly sweep's own numbers (the docs' figure) and on a real sweep.

The boxes are the artists' own, from the renderer in display space: what the file shows.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import attrs
import matplotlib
from matplotlib.transforms import Bbox

from minruntime import MinRuntime
from minruntime_sim import Settings, simulate
from minruntime_sim.sweep import (
    RunSummary,
    TraceSource,
    plot,
    plot_figure,
    run_sweep,
    settings_grid,
)
from minruntime_sim.synthetic import toy_workload

matplotlib.use("Agg")

PHILLY = {
    # (policy, order): (lost GPU-h, reclaim waiting GPU-h) for 0s, 10m, 30m, 1h, 4h: the docs'
    # Philly sweep at 704 GPUs with checkpoints every 30 minutes (docs/howto-choose-min-runtime.md)
    ("none", "youngest"): [(2147.1, 0.0)],
    ("none", "least-unsaved"): [(655.6, 0.0)],
    ("min-runtime", "youngest"): [
        (2147.1, 0.0), (3652.0, 0.0), (2968.5, 0.0), (3026.3, 3.9), (3184.2, 166.7)
    ],
    ("min-runtime", "least-unsaved"): [
        (655.6, 0.0), (1085.0, 0.0), (1001.0, 0.0), (1165.0, 0.2), (1475.0, 204.0)
    ],
    ("checkpoint-aware", "youngest"): [
        (1490.0, 0.0), (2480.0, 0.0), (1780.0, 0.0), (1930.0, 1.0), (1910.0, 137.0)
    ],
    ("checkpoint-aware", "least-unsaved"): [
        (655.6, 0.0), (1038.8, 0.0), (931.4, 0.2), (955.3, 3.4), (1156.1, 149.2)
    ],
}  # fmt: skip
RECLAIMS = ["0s", "10m", "30m", "1h", "4h"]


def philly_summaries() -> list[RunSummary]:
    base = simulate(toy_workload()).metrics
    summaries = []
    for (policy, order), points in PHILLY.items():
        for reclaim, (lost, waiting) in zip(RECLAIMS, points, strict=False):
            settings = Settings(
                policy=policy,
                victim_order=order,
                reclaim_min_runtime=reclaim,
                checkpoint_interval=1800,
                checkpoint_costs=False,
            )
            metrics = attrs.evolve(
                base,
                lost_gpu_seconds=round(lost * 3600),
                reclaim_waiting_gpu_seconds=round(waiting * 3600),
            )
            summaries.append(RunSummary(settings=settings, metrics=metrics))
    return summaries


def overlap(a: Bbox, b: Bbox) -> bool:
    return bool(min(a.x1, b.x1) > max(a.x0, b.x0) and min(a.y1, b.y1) > max(a.y0, b.y0))


def check_readable(figure: Any) -> int:
    """Assert that in every panel no two labels overlap, no label covers a point's marker and
    every label lies inside its panel; the number of labels checked."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    checked = 0
    for axes in figure.axes:
        if not axes.get_visible():
            continue
        area = axes.get_window_extent(renderer)
        labels = [text.get_window_extent(renderer) for text in axes.texts]
        marks = []
        for line in axes.lines:
            radius = line.get_markersize() * figure.dpi / 72 / 2
            for px, py in axes.transData.transform(line.get_xydata()):
                marks.append(Bbox.from_bounds(px - radius, py - radius, 2 * radius, 2 * radius))
        for a, b in itertools.combinations(labels, 2):
            assert not overlap(a, b), (axes.get_title(), a, b)
        for label, mark in itertools.product(labels, marks):
            assert not overlap(label, mark), (axes.get_title(), label, mark)
        for label in labels:
            margins = (
                label.x0 - area.x0,
                label.y0 - area.y0,
                area.x1 - label.x1,
                area.y1 - label.y1,
            )
            assert min(margins) >= 0, (axes.get_title(), label)
        checked += len(labels)
    return checked


def test_the_philly_figure_has_no_overlapping_labels_or_covered_points() -> None:
    figure = plot_figure(philly_summaries(), title="philly, 704 GPUs")

    assert [axes.get_title() for axes in figure.axes] == [
        "none, order youngest",
        "none, order least-unsaved",
        "min-runtime, order youngest",
        "min-runtime, order least-unsaved",
        "checkpoint-aware, order youngest",
        "checkpoint-aware, order least-unsaved",
    ]
    assert check_readable(figure) == 22


def test_a_real_sweep_plots_readably_and_writes_the_file(tmp_path: Path) -> None:
    grid = settings_grid(
        reclaim=[MinRuntime(0), MinRuntime("10m"), MinRuntime("30m"), MinRuntime("1h")],
        policies=["none", "min-runtime", "checkpoint-aware"],
    )
    summaries = run_sweep(TraceSource("synthetic", limit=120), grid)

    assert check_readable(plot_figure(summaries, title="synthetic")) == 9
    path = tmp_path / "plot.png"
    plot(summaries, path, title="synthetic")
    assert path.read_bytes().startswith(b"\x89PNG")

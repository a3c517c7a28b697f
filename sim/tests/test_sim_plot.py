"""The figure a person can read (``minruntime_sim.plots``): rendered with Agg, no text overlaps
another text or a marker, no two markers overlap (every replicate visible, no two settings
merged), nothing joins the settings, and the axes start at zero; on the committed results (the
docs' figures), on a real replicated sweep and on single runs.

The boxes are the artists' own, from the renderer in display space: what the file shows.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from matplotlib.collections import LineCollection
from matplotlib.transforms import Bbox

from minruntime import MinRuntime
from minruntime_sim.plots import PANELS, _stack, plot, plot_figure
from minruntime_sim.sweep import TraceSource, run_sweep, settings_grid
from minruntime_sim.uncertainty import read_results, replicates, run_replicated

matplotlib.use("Agg")

RESULTS = Path(__file__).resolve().parents[1] / "results"


def overlap(a: Bbox, b: Bbox) -> bool:
    return bool(min(a.x1, b.x1) > max(a.x0, b.x0) and min(a.y1, b.y1) > max(a.y0, b.y0))


def marker_boxes(figure: Any) -> list[tuple[int, Bbox]]:
    """Every marker drawn, as (its axes' number, its box), the box of the marker's size."""
    boxes = []
    for number, axes in enumerate(figure.axes):
        for line in axes.lines:
            if line.get_marker() in (None, "None", "none", ""):
                continue
            radius = line.get_markersize() * figure.dpi / 72 / 2
            for px, py in axes.transData.transform(line.get_xydata()):
                boxes.append(
                    (number, Bbox.from_bounds(px - radius, py - radius, 2 * radius, 2 * radius))
                )
    return boxes


def text_boxes(figure: Any) -> list[tuple[str, Bbox]]:
    """Every visible, non-empty text of the figure (titles, tick labels, axis labels, legend)."""
    renderer = figure.canvas.get_renderer()
    return [
        (text.get_text(), text.get_window_extent(renderer))
        for text in figure.findobj(matplotlib.text.Text)
        if text.get_visible() and text.get_text().strip()
    ]


def check_readable(figure: Any) -> tuple[int, int]:
    """Assert that no two texts overlap, no text covers a marker, no two markers overlap, no
    line joins two rows, every panel's x axis starts at 0 and every interval bar starts at 0 or
    above; the numbers of texts and markers checked."""
    figure.canvas.draw()
    texts = text_boxes(figure)
    marks = marker_boxes(figure)
    for (a_text, a), (b_text, b) in itertools.combinations(texts, 2):
        assert not overlap(a, b), (a_text, b_text)
    for (text, box), (_, mark) in itertools.product(texts, marks):
        assert not overlap(box, mark), (text, box, mark)
    for (_, a), (_, b) in itertools.combinations(marks, 2):
        assert not overlap(a, b), (a, b)
    for axes in figure.axes:
        assert axes.get_xlim()[0] == 0
        for line in axes.lines:  # markers, and rows' separators: no line joins two rows
            if line.get_linestyle() not in ("None", "none", ""):
                assert len({float(y) for _, y in line.get_xydata()}) == 1, line
        for collection in axes.collections:
            assert isinstance(collection, LineCollection)
            for segment in collection.get_segments():
                (x0, y0), (x1, y1) = segment
                assert y0 == y1, segment  # within one row
                assert 0 <= x0 <= x1, segment  # from 0 or above
    return len(texts), len(marks)


@pytest.mark.parametrize(
    ("name", "rows", "replicate_count"),
    [
        ("philly-evidence.json", 3, 16),
        ("philly-uncertainty.json", 11, 16),
        ("philly-orders.json", 8, 16),
        ("philly-uncertainty-load5.json", 5, 8),
        ("philly-uncertainty-load6.json", 5, 8),
    ],
)
def test_the_docs_figures_are_readable(name: str, rows: int, replicate_count: int) -> None:
    """Each committed result's figure: a row per setting, every replicate a marker, and the
    mean: markers = rows x panels x (replicates + 1)."""
    results = read_results((RESULTS / name).read_text(encoding="utf-8"), origin=name)
    figure = plot_figure(results.summaries, title=results.workload)

    texts, marks = check_readable(figure)

    assert marks == rows * len(PANELS) * (replicate_count + 1)
    assert texts > rows
    assert len(figure.axes[0].get_yticklabels()) == rows


def test_the_settings_named_on_the_rows_of_the_load_4_figure() -> None:
    results = read_results(
        (RESULTS / "philly-uncertainty.json").read_text(encoding="utf-8"), origin="u"
    )
    figure = plot_figure(results.summaries, title="philly")

    assert [label.get_text() for label in figure.axes[0].get_yticklabels()] == [
        "reclaim 0s, none",
        "reclaim 0s, min-runtime",
        "reclaim 0s, checkpoint-aware",
        "reclaim 10m, min-runtime",
        "reclaim 10m, checkpoint-aware",
        "reclaim 30m, min-runtime",
        "reclaim 30m, checkpoint-aware",
        "reclaim 1h, min-runtime",
        "reclaim 1h, checkpoint-aware",
        "reclaim 4h, min-runtime",
        "reclaim 4h, checkpoint-aware",
    ]
    assert [axes.get_xlabel() for axes in figure.axes] == [
        "GPU-hours lost",
        "evictions",
        "GPU-hours owed",
        "minutes pending",
    ]
    assert [axes.get_title() for axes in figure.axes] == [
        "Lost work",
        "Evictions",
        "Reclaim waiting",
        "Jobs' mean wait",
    ]
    assert figure.axes[0].get_ylabel() == "setting"
    assert figure.texts[0].get_text() == (
        "philly\ncheckpoints drawn per job; victim order reference; checkpoint-aware: grace "
        "10m, eviction budget off"
    )
    legend = figure.legends[0]
    assert [text.get_text() for text in legend.get_texts()] == [
        "replicate, slice 1/4",
        "replicate, slice 2/4",
        "replicate, slice 3/4",
        "replicate, slice 4/4",
        "mean of 16 replicates",
        "95% bootstrap interval",
    ]


def test_every_kind_of_mark_is_in_the_legend_with_its_shape_and_colour() -> None:
    """Each slice's marks have the shape and colour of its legend entry, the mean's diamond and
    the interval's bar theirs: nothing drawn is missing from the legend."""
    results = read_results(
        (RESULTS / "philly-uncertainty-load5.json").read_text(encoding="utf-8"), origin="u"
    )
    figure = plot_figure(results.summaries, title="philly")
    legend = figure.legends[0]
    keys = {
        text.get_text(): (handle.get_marker(), handle.get_color())
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)
    }
    drawn = {
        (line.get_marker(), line.get_color())
        for axes in figure.axes
        for line in axes.lines
        if line.get_marker() not in (None, "None", "none", "")
    }
    assert drawn == {mark for mark in keys.values() if mark[0] not in ("None", None)}
    assert keys["replicate, slice 1/4"] == ("o", "#0072B2")
    assert keys["mean of 8 replicates"] == ("D", "black")
    assert keys["95% bootstrap interval"][0] == "None"
    assert all(collection.get_colors().tolist() == [[0, 0, 0, 1]] for collection in
               figure.axes[0].collections)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "height"),
    [
        ("philly-evidence.json", 3.61),
        ("philly-uncertainty.json", 7.75),
        ("philly-orders.json", 6.07),
        ("philly-uncertainty-load5.json", 3.25),
        ("philly-uncertainty-load6.json", 3.25),
    ],
)
def test_a_figure_fits_one_screen_at_1280_pixels(name: str, height: float) -> None:
    """At 1280 pixels the page's column shows a figure about 760 pixels wide, at 96 pixels an
    inch: the figure is 8 inches wide, and no taller, so it fits a screen with the page's
    heading above it."""
    results = read_results((RESULTS / name).read_text(encoding="utf-8"), origin=name)
    width, tall = plot_figure(results.summaries, title=results.workload).get_size_inches()
    assert (float(width), round(float(tall), 2)) == (8.0, height)
    assert tall <= width


def test_settings_with_near_equal_figures_stay_apart() -> None:
    """The issue's blob: 30m at (162.3, 523.5) and 1h at (164.0, 518.8) merged into one marker
    with their labels on swapped sides. Rows keep them apart whatever their values: here two
    settings whose every metric is equal."""
    grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("30m"), MinRuntime("1h")])
    summaries = run_sweep(TraceSource("synthetic", limit=60), grid)
    near = [summaries[1], summaries[1], summaries[2]]

    figure = plot_figure(near, title="synthetic")

    check_readable(figure)
    means = [
        (round(float(x), 3), float(y))
        for line in figure.axes[0].lines
        if line.get_marker() == "D"
        for x, y in line.get_xydata()
    ]
    assert [x for x, _ in means] == [round(summary.metrics.lost_gpu_hours, 3) for summary in near]
    assert means[0][0] == means[1][0]  # the same figures...
    assert means[0][1] < means[1][1] < means[2][1]  # ...on rows of their own


def test_a_replicated_sweep_plots_readably_and_writes_png_and_svg(tmp_path: Path) -> None:
    grid = settings_grid(
        reclaim=[MinRuntime(0), MinRuntime("10m"), MinRuntime("1h")],
        policies=["none", "min-runtime", "checkpoint-aware"],
    )
    summaries = run_replicated("synthetic", grid, replicates(slices=2, seeds=[0, 1]), limit=80)

    _, marks = check_readable(plot_figure(summaries, title="synthetic"))
    assert marks == 7 * len(PANELS) * (4 + 1)

    png, svg = tmp_path / "plot.png", tmp_path / "plot.svg"
    plot(summaries, png, title="synthetic")
    plot(summaries, svg, title="synthetic")
    assert png.read_bytes().startswith(b"\x89PNG")
    first = svg.read_bytes()
    assert b"<svg" in first
    assert b"<dc:date>" not in first
    plot(summaries, svg, title="synthetic")
    assert svg.read_bytes() == first  # the same runs, the same bytes


def test_single_runs_plot_as_one_replicate_each() -> None:
    grid = settings_grid(
        reclaim=[MinRuntime(0), MinRuntime("10m"), MinRuntime("30m"), MinRuntime("1h")],
        policies=["none", "min-runtime", "checkpoint-aware"],
    )
    summaries = run_sweep(TraceSource("synthetic", limit=120), grid)

    figure = plot_figure(summaries, title="synthetic")

    _, marks = check_readable(figure)
    assert marks == 9 * len(PANELS) * 2  # a dot and its mean per setting and panel
    legend = figure.legends[0]  # one slice: nothing to tell apart by colour
    assert [text.get_text() for text in legend.get_texts()] == ["one run", "the run"]


@pytest.mark.parametrize(
    ("xs", "places"),
    [
        ([0.0, 0.0, 0.0, 0.0, 0.0], [(0, 1), (1, 1), (0, -1), (1, -1), (0, 2)]),
        ([0.0, 10.0, 20.0], [(0, 1), (0, 1), (0, 1)]),
        ([0.0, 2.0, 0.0, 40.0], [(0, 1), (0, -1), (1, 1), (0, 1)]),
    ],
)
def test_marks_too_close_stack_in_two_lanes_above_and_below(
    xs: list[float], places: list[tuple[int, int]]
) -> None:
    """Spacing 3: equal values take level 1 at their value, then 3 to its right, then level -1,
    then 2 ...; values 3 or more apart share a level; ties go in the given order."""
    assert _stack(xs, 3.0) == places

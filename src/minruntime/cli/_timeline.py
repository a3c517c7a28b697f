"""A picture of the running jobs' protection windows: a self-contained SVG (``--timeline``).

One row per running job, sorted by the end of its protection (the next to be free first,
never last, jobs without a start time at the bottom): its name in the left column, a bar from
its start to the end of its protection (the preemptor's decision when there is one, else its
protection from preempt in its own queue), and in the right column when that ends. A bar is
orange while the job is protected, blue once it may go, grey when refused for another reason
(non-preemptible, not lower priority, ...); a notch at an end of the axis says the window goes on
beyond it. A vertical line marks ``now``, a dashed one the retry
time. Text sits in its own column or row, so no two labels can overlap; the picture is 1280
pixels wide and uses only the viewer's own fonts: no script, style sheet or font is fetched.

>>> from minruntime.kube import read_snapshot
>>> from minruntime.cli._report import build_report
>>> one_queue = [{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue",
...               "metadata": {"name": "q"}}]  # empty input is an error: a cluster of one queue
>>> svg = timeline_svg(build_report(read_snapshot(one_queue), datetime(2026, 11, 22, 12, tzinfo=UTC)))
>>> svg.startswith("<svg") and 'width="1280"' in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Final
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

import attrs

from minruntime._time import FOREVER
from minruntime.cli._format import cell, escape, short
from minruntime.cli._report import JobEntry, Report
from minruntime.preemptibility import Preemptibility

__all__ = ["NARROWEST", "WIDTH", "Layout", "Row", "html_page", "rows", "timeline_svg"]

WIDTH: Final = 1280
"""The picture's width in pixels, unless asked otherwise."""
NARROWEST: Final = 640
"""The narrowest picture that still has room for names, an axis and the end times."""
_FONT: Final = 12
_CHAR: Final = 7.3
"""The advance of one character of a 12 px monospace font (0.6 em, with a margin)."""
_RIGHT_COLUMN: Final = 200
"""The column after the axis that says when each protection ends (26 characters)."""
_TOP: Final = 70
"""The first row's top: above it, the title and the rows of the now and retry labels."""
_ROW: Final = 22
_BAR: Final = 12
_STEPS: Final = tuple(
    timedelta(minutes=m)
    for m in (1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080, 20160, 43200)
)
_MIN_STEP_PX: Final = 90
"""Ticks are at least this far apart, so that their labels never touch."""
_COLOURS: Final = {"protected": "#d9822b", "eligible": "#2b6cb0", "refused": "#9aa0a6"}


@attrs.frozen
class Layout:
    """Where things go in a picture ``width`` pixels wide: the name column takes what the axis
    (at least 40% of the width) and the end column leave, 40 characters at most.

    >>> Layout.of(1280)
    Layout(width=1280, label_chars=40, plot_left=312, plot_right=1080)
    """

    width: int
    label_chars: int
    """The longest job name shown whole (a longer one is cut with ``...``)."""
    plot_left: int
    plot_right: int

    @classmethod
    def of(cls, width: int) -> Layout:
        """The layout of a picture ``width`` pixels wide (``NARROWEST`` at least)."""
        room = width - _RIGHT_COLUMN - 0.4 * width - 20
        chars = max(12, min(40, int(room / _CHAR)))
        return cls(width, chars, 10 + math.ceil(chars * _CHAR) + 10, width - _RIGHT_COLUMN)


@attrs.frozen(kw_only=True)
class Row:
    """One job of the picture: its name, its window and how it stands."""

    job: str
    start: datetime | None
    until: datetime | None
    """The end of its protection (``FOREVER`` for never); ``None`` without a start time."""
    state: str
    """``"protected"``, ``"eligible"`` or ``"refused"``."""


def _row(entry: JobEntry) -> Row:
    """A job's row: the preemptor's decision on it when there is one, else its own protection
    from preempt (a non-preemptible job is then shown refused: nothing evicts it)."""
    if entry.verdict is None:
        free = entry.job.preemptibility.value is not Preemptibility.NON_PREEMPTIBLE
        protected, until = entry.own.protected, entry.own.protected_until
    else:
        decision = entry.verdict.decision
        free = decision.allowed
        protected, until = decision.protected_by is not None, decision.protected_until
    state = "eligible" if free else "refused"
    if protected:
        state = "protected"
    return Row(job=entry.job.id, start=entry.job.job.start_time, until=until, state=state)


def rows(report: Report) -> list[Row]:
    """The rows of the picture, in its order: by the end of protection, never after every
    time, no start time last; ties by name."""
    made = [_row(entry) for entry in report.jobs]
    return sorted(
        made,
        key=lambda row: (
            row.start is None or row.until is None,
            row.until == FOREVER,
            row.until if row.until is not None and row.until != FOREVER else report.now,
            row.job,
        ),
    )


def _window(
    made: Sequence[Row], report: Report, layout: Layout
) -> tuple[datetime, datetime, timedelta]:
    """The axis: from the earliest start to the latest end (now and the retry time included),
    at most six hours each side of now, widened to whole ticks."""
    now = report.now
    times = [now]
    if report.retry_at is not None:
        times.append(report.retry_at)
    for row in made:
        if row.start is not None:
            times.append(row.start)
        if row.until is not None and row.until != FOREVER:
            times.append(row.until)
    reach = timedelta(hours=6)
    low = max(min(times), now - reach)
    high = min(max(times), now + reach)
    if high - low < timedelta(minutes=10):
        high = low + timedelta(minutes=10)
    span_px = layout.plot_right - layout.plot_left
    for step in _STEPS:
        first = _floor(low, step)
        last = _floor(high, step) + (step if _floor(high, step) < high else timedelta(0))
        if span_px * step / (last - first) >= _MIN_STEP_PX:
            return first, last, step
    step = _STEPS[-1]
    return _floor(low, step), _floor(high, step) + step, step


def _floor(moment: datetime, step: timedelta) -> datetime:
    epoch = datetime(1970, 1, 1, tzinfo=moment.tzinfo)
    return epoch + step * ((moment - epoch) // step)


def _text(x: float, y: float, text: str, *, anchor: str = "start", css: str = "") -> str:
    klass = f" class={quoteattr(css)}" if css else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{klass}>'
        f"{xml_escape(escape(text))}</text>"
    )


def _anchored(x: float, layout: Layout) -> tuple[float, str]:
    """A label at ``x`` on the axis, turned to stay inside the plot near its edges."""
    if x > layout.plot_right - 80:
        return x - 4, "end"
    return x + 4, "start"


def _tick(moment: datetime, now: datetime) -> str:
    """A tick's label: the minute on ``now``'s day, else the day and the minute."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%H:%M" if utc.date() == now.date() else "%m-%d %H:%M")


def _arrow(x: float, bar_top: float, direction: int) -> str:
    """A small dark triangle on a bar's end at the axis edge: the window goes on beyond it."""
    tip = x + 6 * direction
    points = f"{x:.1f},{bar_top - 2:.1f} {tip:.1f},{bar_top + _BAR / 2:.1f} {x:.1f},{bar_top + _BAR + 2:.1f}"
    return f'<polygon class="beyond" points="{points}" fill="#1a1a1a"/>'


def _ends(row: Row, now: datetime) -> str:
    """The right column: when the protection ends, or ended (at most 26 characters)."""
    assert row.until is not None
    if row.until == FOREVER:
        return "never (protected)"
    if row.state == "protected":
        return f"until {short(row.until, now)}"
    if row.state == "eligible":
        return f"free since {short(row.until, now)}"
    return f"refused; ended {short(row.until, now)}"


def timeline_svg(report: Report, width: int = WIDTH) -> str:
    """The picture as an SVG document ``width`` pixels wide (UTF-8 text, no external
    reference)."""
    layout = Layout.of(width)
    plot_left, plot_right = layout.plot_left, layout.plot_right
    made = rows(report)
    first, last, step = _window(made, report, layout)
    span = (last - first).total_seconds()

    def x(moment: datetime) -> float:
        clipped = min(max(moment, first), last)
        return plot_left + (plot_right - plot_left) * (clipped - first).total_seconds() / span

    height = _TOP + _ROW * max(len(made), 1) + 60
    now = report.now
    pre = report.preemptor
    title = (
        f"Protection windows at {short(now, now)} UTC"
        if pre is None
        else f"Protection windows against {pre.job.id} at {short(now, now)} UTC"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="{_FONT}">',
        "<style>text{fill:#1a1a1a} .tick{fill:#555} .now{fill:#b00020;font-weight:bold}"
        " .retry{fill:#5b2a86;font-weight:bold}</style>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        _text(10, 20, cell(title, int((width - 20) / _CHAR))),
    ]
    axis_y = _TOP + _ROW * max(len(made), 1) + 6
    moment = first
    while moment <= last:
        tick = x(moment)
        parts.append(
            f'<line x1="{tick:.1f}" y1="{_TOP - 4}" x2="{tick:.1f}" y2="{axis_y}" '
            'stroke="#e3e3e3"/>'
        )
        parts.append(_text(tick, axis_y + 16, _tick(moment, now), anchor="middle", css="tick"))
        moment += step
    for index, row in enumerate(made):
        top = _TOP + _ROW * index
        middle = top + _ROW / 2 + 4
        parts.append(_text(10, middle, cell(row.job, layout.label_chars)))
        if row.start is None or row.until is None:
            parts.append(_text(plot_right + 10, middle, "no start time"))
            continue
        begin, end = x(row.start), x(row.until)
        parts.append(
            f"<rect class={quoteattr('bar ' + row.state)} data-job={quoteattr(escape(row.job))} "
            f'x="{begin:.1f}" y="{top + (_ROW - _BAR) / 2:.1f}" width="{max(end - begin, 1):.1f}" '
            f'height="{_BAR}" fill="{_COLOURS[row.state]}"/>'
        )
        bar_top = top + (_ROW - _BAR) / 2
        if row.start < first:  # the window goes on to the left: a notch pointing there
            parts.append(_arrow(plot_left, bar_top, -1))
        if row.until > last:  # and to the right (never included)
            parts.append(_arrow(plot_right, bar_top, 1))
        parts.append(_text(plot_right + 10, middle, _ends(row, now)))
    marks = [(now, "now", f"now {short(now, now)}", _TOP - 28)]
    if report.retry_at is not None:
        marks.append((report.retry_at, "retry", f"retry {short(report.retry_at, now)}", _TOP - 12))
    for moment, css, label, y in marks:
        at = x(moment)
        dash = ' stroke-dasharray="5,3"' if css == "retry" else ""
        colour = "#b00020" if css == "now" else "#5b2a86"
        parts.append(
            f'<line class="{css}" x1="{at:.1f}" y1="{y + 4}" x2="{at:.1f}" y2="{axis_y}" '
            f'stroke="{colour}" stroke-width="2"{dash}/>'
        )
        label_x, anchor = _anchored(at, layout)
        parts.append(_text(label_x, y, label, anchor=anchor, css=css))
    legend_y = axis_y + 40
    legend_x = 10.0
    for state, text in (
        ("protected", "protected"),
        ("eligible", "may go (eligible)"),
        ("refused", "refused for another reason"),
    ):
        parts.append(
            f'<rect x="{legend_x:.1f}" y="{legend_y - 10}" width="14" height="10" '
            f'fill="{_COLOURS[state]}"/>'
        )
        parts.append(_text(legend_x + 20, legend_y, text))
        legend_x += 20 + len(text) * _CHAR + 30
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def html_page(svg: str, title: str) -> str:
    """An HTML page holding ``svg`` inline: nothing else, nothing fetched."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{xml_escape(escape(title))}</title>\n</head>\n<body>\n{svg}</body>\n</html>\n"
    )

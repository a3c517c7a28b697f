"""A picture of the running jobs' protection windows: a self-contained SVG (``--timeline``).

One row per running job, sorted by the end of its protection (the next to be free first,
never last, jobs without a start time at the bottom): its name in the left column, a bar from
its start to the end of its protection (the preemptor's decision when there is one, else its
protection from preempt in its own queue), and in the right column when that ends. A bar is
orange while the job is protected, blue once it may go, grey when refused for another reason
(non-preemptible, not lower priority, ...); a small triangle at an end of the axis says the
window goes on beyond it. A vertical line marks ``now``, a dashed one the retry time. When the
windows span more than three hours, the hour either side of ``now`` takes two thirds of the
axis and the hours beyond it (at most six each side) share the rest, drawn compressed on a
shaded ground. The legend names every mark the picture holds. Text sits in its own column or
row, so no two labels can overlap, and inside the picture; the picture is 1280 pixels wide
and uses only the viewer's own fonts: no script, style sheet or font is fetched.

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

__all__ = ["NARROWEST", "WIDTH", "Layout", "Row", "Scale", "html_page", "rows", "timeline_svg"]

WIDTH: Final = 1280
"""The picture's width in pixels, unless asked otherwise."""
NARROWEST: Final = 640
"""The narrowest picture that still has room for names, an axis and the end times."""
_FONT: Final = 12
_CHAR: Final = 7.3
"""The advance of one character of a 12 px monospace font (0.6 em, with a margin)."""
_RIGHT_COLUMN: Final = 210
"""The column after the axis that says when each protection ends: 26 characters and a 10-pixel
margin each side, so that the longest ends inside the picture."""
_TOP: Final = 70
"""The first row's top: above it, the title and the rows of the now and retry labels."""
_ROW: Final = 22
_BAR: Final = 12
_STEPS: Final = tuple(
    timedelta(minutes=m)
    for m in (1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080, 20160, 43200)
)
_MIN_STEP_PX: Final = 90
"""Ticks of one step are at least this far apart, so that their labels never touch."""
_FOCUS: Final = timedelta(hours=1)
"""Either side of ``now``: the hours that take two thirds of a compressed axis."""
_FOCUS_SHARE: Final = 2 / 3
_LINEAR_SPAN: Final = timedelta(hours=3)
"""The longest window drawn on one linear scale: at 1280 pixels, three hours get the same
room per minute as the two focus hours of a compressed axis."""
_REACH: Final = timedelta(hours=6)
"""The axis reaches at most this far either side of ``now``."""
_QUARTER: Final = timedelta(minutes=15)
_HOUR: Final = timedelta(hours=1)
_COLOURS: Final = {"protected": "#d9822b", "eligible": "#2b6cb0", "refused": "#9aa0a6"}
_SHADE: Final = "#eeeeee"
"""The ground of the compressed hours."""
_NOW: Final = "#b00020"
_RETRY: Final = "#5b2a86"
_INK: Final = "#1a1a1a"
_LEGEND: Final = {
    "protected": "protected",
    "eligible": "may go (eligible)",
    "refused": "refused for another reason",
    "beyond": "goes on beyond the axis",
    "compressed": "hours far from now, compressed",
    "now": "now",
    "retry": "retry time",
}
"""The legend's words for each mark."""
_LEGEND_ROW: Final = 20


@attrs.frozen
class Layout:
    """Where things go in a picture ``width`` pixels wide: the name column takes what the axis
    (at least 40% of the width) and the end column leave, 40 characters at most.

    >>> Layout.of(1280)
    Layout(width=1280, label_chars=40, plot_left=312, plot_right=1070)
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


@attrs.frozen
class Scale:
    """The time axis: pieces of linear scale end to end, and the ticks to label.

    One piece when the window is three hours or less; else the hour either side of ``now``
    (quarter hours widened outwards) takes two thirds of the plot and the hours beyond it share
    the rest at one rate, ``compressed`` (each piece ``(start, end, left x, right x)``).
    """

    pieces: tuple[tuple[datetime, datetime, float, float], ...]
    ticks: tuple[datetime, ...]
    compressed: bool

    @property
    def first(self) -> datetime:
        return self.pieces[0][0]

    @property
    def last(self) -> datetime:
        return self.pieces[-1][1]

    def x(self, moment: datetime) -> float:
        """Where ``moment`` is on the axis (clipped to its ends)."""
        clipped = min(max(moment, self.first), self.last)
        for start, end, left, right in self.pieces:
            if clipped <= end:
                return left + (right - left) * ((clipped - start) / (end - start))
        raise AssertionError("unreachable: the last piece ends at the axis's end")


def _extent(made: Sequence[Row], report: Report) -> tuple[datetime, datetime]:
    """From the earliest start to the latest end (now and the retry time included), at most
    six hours each side of now, ten minutes at least."""
    now = report.now
    times = [now]
    if report.retry_at is not None:
        times.append(report.retry_at)
    for row in made:
        if row.start is not None:
            times.append(row.start)
        if row.until is not None and row.until != FOREVER:
            times.append(row.until)
    low = max(min(times), now - _REACH)
    high = min(max(times), now + _REACH)
    if high - low < timedelta(minutes=10):
        high = low + timedelta(minutes=10)
    return low, high


def _scale(made: Sequence[Row], report: Report, layout: Layout) -> Scale:
    """The axis of the picture: linear over the window widened to whole ticks, or, for a window
    longer than three hours, compressed beyond the hour either side of now."""
    low, high = _extent(made, report)
    left, right = float(layout.plot_left), float(layout.plot_right)
    now = report.now
    focus_low, focus_high = _floor(now - _FOCUS, _QUARTER), _ceil(now + _FOCUS, _QUARTER)
    before, after = low < focus_low, high > focus_high
    start = _floor(low, _HOUR) if before else _floor(low, _QUARTER)
    end = _ceil(high, _HOUR) if after else _ceil(high, _QUARTER)
    focus_low, focus_high = max(focus_low, start), min(focus_high, end)
    outer = (focus_low - start) + (end - focus_high)
    if high - low <= _LINEAR_SPAN or (focus_high - focus_low) / (end - start) >= _FOCUS_SHARE:
        first, last, step = _linear(low, high, right - left)
        return Scale(((first, last, left, right),), _steps(first, last, step), compressed=False)
    rate = (right - left) * (1 - _FOCUS_SHARE) / outer.total_seconds()  # pixels per second
    inner_left = left + rate * (focus_low - start).total_seconds()
    inner_right = right - rate * (end - focus_high).total_seconds()
    pieces = [(focus_low, focus_high, inner_left, inner_right)]
    if before:
        pieces.insert(0, (start, focus_low, left, inner_left))
    if after:
        pieces.append((focus_high, end, inner_right, right))
    ticks = [focus_low, focus_high, start, end]
    for piece_start, piece_end, piece_left, piece_right in pieces:
        per_second = (piece_right - piece_left) / (piece_end - piece_start).total_seconds()
        step = next(
            (step for step in _STEPS if per_second * step.total_seconds() >= _MIN_STEP_PX),
            _STEPS[-1],
        )
        ticks += _steps(_ceil(piece_start, step), piece_end, step)
    axis = Scale(tuple(pieces), (), compressed=True)
    return attrs.evolve(axis, ticks=_spaced(ticks, axis, now))


def _linear(low: datetime, high: datetime, span_px: float) -> tuple[datetime, datetime, timedelta]:
    """One linear axis from ``low`` to ``high`` widened to whole ticks at least
    ``_MIN_STEP_PX`` apart: its ends and its step."""
    for step in _STEPS:
        first, last = _floor(low, step), _ceil(high, step)
        if span_px * step / (last - first) >= _MIN_STEP_PX:
            return first, last, step
    step = _STEPS[-1]
    return _floor(low, step), _ceil(high, step), step


def _steps(first: datetime, last: datetime, step: timedelta) -> tuple[datetime, ...]:
    """``first``, ``first + step``, ... up to ``last``."""
    return tuple(first + step * k for k in range(int((last - first) / step) + 1))


def _spaced(candidates: Sequence[datetime], scale: Scale, now: datetime) -> tuple[datetime, ...]:
    """The ticks whose labels keep 10 pixels from every label kept before them (the focus's
    edges first, then the axis's ends); in time order."""
    kept: list[tuple[float, int]] = []
    chosen: set[datetime] = set()
    for moment in candidates:
        at, chars = scale.x(moment), len(_tick(moment, now))
        if moment in chosen or any(
            abs(at - x) < (chars + other) * _CHAR / 2 + 10 for x, other in kept
        ):
            continue
        kept.append((at, chars))
        chosen.add(moment)
    return tuple(sorted(chosen))


def _floor(moment: datetime, step: timedelta) -> datetime:
    epoch = datetime(1970, 1, 1, tzinfo=moment.tzinfo)
    return epoch + step * ((moment - epoch) // step)


def _ceil(moment: datetime, step: timedelta) -> datetime:
    floor = _floor(moment, step)
    return floor if floor == moment else floor + step


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


def _arrow(x: float, top: float, direction: int, height: float = _BAR) -> str:
    """A small dark triangle on a bar's end at the axis edge: the window goes on beyond it."""
    tip = x + 6 * direction
    points = (
        f"{x:.1f},{top - 2:.1f} {tip:.1f},{top + height / 2:.1f} {x:.1f},{top + height + 2:.1f}"
    )
    return f'<polygon class="beyond" points="{points}" fill="{_INK}"/>'


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


def _legend_places(kinds: Sequence[str], width: int) -> list[tuple[str, float, int]]:
    """Where the legend's entries go: each kind, its left x and its row (from 0), in rows that
    wrap before the picture's right margin."""
    places: list[tuple[str, float, int]] = []
    x, row = 10.0, 0
    for kind in kinds:
        entry = 20 + len(_LEGEND[kind]) * _CHAR
        if x > 10 and x + entry > width - 10:
            x, row = 10.0, row + 1
        places.append((kind, x, row))
        x += entry + 30
    return places


def _legend(places: Sequence[tuple[str, float, int]], top: float) -> list[str]:
    """The legend's swatches and words; ``top`` is its first row's text baseline."""
    parts: list[str] = []
    for kind, x, row in places:
        y = top + _LEGEND_ROW * row
        if kind in _COLOURS or kind == "compressed":
            fill = _COLOURS.get(kind, _SHADE)
            stroke = ' stroke="#bbbbbb"' if kind == "compressed" else ""
            parts.append(
                f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="14" height="10" fill="{fill}"{stroke}/>'
            )
        elif kind == "beyond":
            parts.append(_arrow(x + 4, y - 9, 1, height=8))
        else:
            dash = ' stroke-dasharray="5,3"' if kind == "retry" else ""
            colour = _NOW if kind == "now" else _RETRY
            parts.append(
                f'<line x1="{x + 7:.1f}" y1="{y - 12:.1f}" x2="{x + 7:.1f}" y2="{y + 2:.1f}" '
                f'stroke="{colour}" stroke-width="2"{dash}/>'
            )
        parts.append(_text(x + 20, y, _LEGEND[kind]))
    return parts


def timeline_svg(report: Report, width: int = WIDTH) -> str:
    """The picture as an SVG document ``width`` pixels wide (UTF-8 text, no external
    reference)."""
    layout = Layout.of(width)
    plot_left, plot_right = layout.plot_left, layout.plot_right
    made = rows(report)
    scale = _scale(made, report, layout)
    x = scale.x
    first, last = scale.first, scale.last
    now = report.now
    axis_y = _TOP + _ROW * max(len(made), 1) + 6
    beyond = any(
        row.start is not None and row.until is not None and (row.start < first or row.until > last)
        for row in made
    )
    kinds = [
        "protected",
        "eligible",
        "refused",
        *(["beyond"] if beyond else []),
        *(["compressed"] if scale.compressed else []),
        "now",
        *(["retry"] if report.retry_at is not None else []),
    ]
    places = _legend_places(kinds, width)
    height = axis_y + 54 + _LEGEND_ROW * places[-1][2]
    pre = report.preemptor
    title = (
        f"Protection windows at {short(now, now)} UTC"
        if pre is None
        else f"Protection windows against {pre.job.id} at {short(now, now)} UTC"
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="{_FONT}">',
        f"<style>text{{fill:{_INK}}} .tick{{fill:#555}} .now{{fill:{_NOW};font-weight:bold}}"
        f" .retry{{fill:{_RETRY};font-weight:bold}}</style>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        _text(10, 20, cell(title, int((width - 20) / _CHAR))),
    ]
    if scale.compressed:
        for piece_start, piece_end, left, right in scale.pieces:
            if not piece_start <= now <= piece_end:
                parts.append(
                    f'<rect class="compressed" x="{left:.1f}" y="{_TOP - 4}" '
                    f'width="{right - left:.1f}" height="{axis_y - _TOP + 4}" fill="{_SHADE}"/>'
                )
    for moment in scale.ticks:
        tick = x(moment)
        parts.append(
            f'<line x1="{tick:.1f}" y1="{_TOP - 4}" x2="{tick:.1f}" y2="{axis_y}" '
            'stroke="#dddddd"/>'
        )
        parts.append(_text(tick, axis_y + 16, _tick(moment, now), anchor="middle", css="tick"))
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
        if row.start < first:  # the window goes on to the left: a triangle pointing there
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
        colour = _NOW if css == "now" else _RETRY
        parts.append(
            f'<line class="{css}" x1="{at:.1f}" y1="{y + 4}" x2="{at:.1f}" y2="{axis_y}" '
            f'stroke="{colour}" stroke-width="2"{dash}/>'
        )
        label_x, anchor = _anchored(at, layout)
        parts.append(_text(label_x, y, label, anchor=anchor, css=css))
    parts += _legend(places, axis_y + 40)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def html_page(svg: str, title: str) -> str:
    """An HTML page holding ``svg`` inline, scaled down to a narrower window: nothing else,
    nothing fetched."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{xml_escape(escape(title))}</title>\n"
        "<style>body{margin:0} svg{display:block;max-width:100%;height:auto}</style>\n"
        f"</head>\n<body>\n{svg}</body>\n</html>\n"
    )

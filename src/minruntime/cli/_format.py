"""Text for the terminal: times, cells, aligned tables that fit the width, a safe stream.

>>> short(datetime(2026, 11, 22, 12, 5, tzinfo=UTC), datetime(2026, 11, 22, 12, 0, tzinfo=UTC))
'12:05:00'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final, TextIO

from minruntime._time import FOREVER
from minruntime.durations import MinRuntime
from minruntime.jobs import TaskLike
from minruntime.resources import GPU

__all__ = ["WIDTH", "Terminal", "ago", "cell", "escape", "iso", "short", "table", "work_hours"]

WIDTH: Final = 100
"""The widest line the table view writes."""
_CELL_WIDTH: Final = 48
"""The widest a table cell may be: a longer name is cut (the JSON output holds it in full)."""
_NARROWEST: Final = 12
"""A column the width bound cuts is cut no narrower than this."""


def iso(moment: datetime | None) -> str | None:
    """An instant as RFC 3339 in UTC (``Z``), ``"never"`` for ``FOREVER``, ``None`` for none.

    >>> iso(datetime(2026, 11, 22, 12, 0, tzinfo=UTC)), iso(FOREVER), iso(None)
    ('2026-11-22T12:00:00Z', 'never', None)
    >>> iso(datetime(2026, 11, 22, 12, 0, 0, 5, tzinfo=UTC))
    '2026-11-22T12:00:00.000005Z'
    >>> from datetime import timezone
    >>> iso(datetime(2026, 11, 22, 13, 0, tzinfo=timezone(timedelta(hours=1))))
    '2026-11-22T12:00:00Z'
    """
    if moment is None:
        return None
    if moment == FOREVER:
        return "never"
    if moment.tzinfo is UTC:  # the library's instants: "+00:00" ends the text
        return moment.isoformat()[:-6] + "Z"
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def short(moment: datetime | None, now: datetime) -> str:
    """A time for the table (UTC): the clock time on ``now``'s day, the day and minute in its
    year, else the date; ``-`` for none and ``never`` for ``FOREVER``.

    >>> short(datetime(2026, 11, 21, 9, 30, tzinfo=UTC), datetime(2026, 11, 22, tzinfo=UTC))
    '11-21 09:30'
    """
    if moment is None:
        return "-"
    if moment == FOREVER:
        return "never"
    utc = moment.astimezone(UTC)
    if utc.date() == now.date():
        return f"{utc.hour:02}:{utc.minute:02}:{utc.second:02}"  # strftime costs twice as much
    if utc.year == now.year:
        return f"{utc.month:02}-{utc.day:02} {utc.hour:02}:{utc.minute:02}"
    return utc.date().isoformat()


def ago(delta: timedelta) -> str:
    """A length of time in the duration grammar, whole seconds.

    >>> ago(timedelta(minutes=57))
    '57m'
    """
    return str(MinRuntime(int(abs(delta.total_seconds()))))


def work_hours(seconds: float) -> str:
    """Unsaved work for the table, in hours of its unit (:func:`work_unit`).

    >>> work_hours(5400.0)
    '1.50'
    """
    return f"{seconds / 3600:.2f}"


def work_unit(tasks: Iterable[TaskLike]) -> str:
    """The unit of the unsaved work of ``tasks``: ``"GPU-hours"`` where one of them holds a GPU
    (the work weighs each pod's GPUs), else ``"pod-hours"`` (each pod weighs 1): a CPU job's
    lost work is never called GPU-hours.

    >>> from minruntime import Task
    >>> work_unit([Task("a", resources={"cpu": 8})]), work_unit([Task("b", resources={"nvidia.com/gpu": 1})])
    ('pod-hours', 'GPU-hours')
    """
    for task in tasks:
        if getattr(task, "resources", {}).get(GPU):
            return "GPU-hours"
    return "pod-hours"


def escape(text: str) -> str:
    """Text safe for a terminal: control and format characters (escape sequences, bidi
    overrides, newlines) are shown as Python escapes instead of reaching the terminal.

    >>> print(escape("a\\x1b[2Jb\\u202ec"))
    a\\x1b[2Jb\\u202ec
    """
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def cell(text: str, width: int | None = _CELL_WIDTH) -> str:
    """A table cell: escaped, and cut to ``width`` characters with ``...`` when longer (never
    with ``None``).

    >>> cell("x" * 60, 10), len(cell("x" * 60, None))
    ('xxxxxxx...', 60)
    """
    if text.isprintable() and (width is None or len(text) <= width):
        return text  # most cells: as they are
    return _clipped(escape(text), width)


def _clipped(text: str, width: int | None) -> str:
    return text if width is None or len(text) <= width else text[: width - 3] + "..."


class Terminal:
    """A text stream that never fails on a character its encoding lacks: the line is written
    with that character as a backslash escape (as ``errors="backslashreplace"`` would)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.encoding = getattr(stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except UnicodeEncodeError:
            safe = text.encode(self.encoding, "backslashreplace").decode(self.encoding)
            return self.stream.write(safe)


def _fitted(widths: list[int], limit: int) -> list[int]:
    """Column widths cut so that the row (two spaces between columns) is at most ``limit``:
    the widest column (the leftmost of equally wide ones) gives way first, by as much as the
    row needs but never below ``_NARROWEST``, then the widest of the others, and so on; the
    widths are not evened out (60 and 50 in a row that must lose 20 become 40 and 50)."""
    widths = list(widths)
    while sum(widths) + 2 * (len(widths) - 1) > limit:
        widest = max(range(len(widths)), key=lambda i: (widths[i], -i))
        excess = sum(widths) + 2 * (len(widths) - 1) - limit
        room = widths[widest] - _NARROWEST
        if room <= 0:
            break
        widths[widest] -= min(excess, room)
    return widths


def table(
    rows: Sequence[Sequence[str]], width: int | None = _CELL_WIDTH + 2, *, limit: int | None = WIDTH
) -> list[str]:
    """Rows aligned in columns, each line at most ``limit`` characters; a row of one cell (a
    heading or a note) is written as it is, cut at ``limit``. A cell is cut at ``width``.
    ``None`` for either is no bound (``-o wide``: every name whole, lines as long as they need).

    >>> table([["A", "B"], ["x" * 200], ["aa", "b"]])[:1] + [len(line) for line in
    ...     table([["A", "B"], ["x" * 200], ["aa", "b"]])]
    ['A   B', 5, 100, 5]
    >>> [len(line) for line in table([["A", "B"], ["x" * 200], ["aa", "b"]], None, limit=None)]
    [5, 200, 5]
    """
    cut = [[cell(text, width if len(row) > 1 else limit) for text in row] for row in rows]
    full = [row for row in cut if len(row) > 1]
    if not full:
        return [row[0] for row in cut]
    natural = [max(map(len, column)) for column in zip(*full, strict=True)]
    widths = natural if limit is None else _fitted(natural, limit)
    narrowed = widths != natural
    line = "  ".join(f"{{:<{size}}}" for size in widths).format
    # the cells are escaped already: a narrowed column only clips them
    return [
        (
            line(*(_clipped(text, size) for text, size in zip(row, widths, strict=True)))
            if narrowed
            else line(*row)
        ).rstrip()
        if len(row) > 1
        else row[0]
        for row in cut
    ]

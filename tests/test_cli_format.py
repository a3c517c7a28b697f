"""The table of ``minruntime explain`` (minruntime.cli._format.table), over any cells."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from minruntime.cli._format import _NARROWEST, WIDTH, escape, table

_LETTERS = st.sampled_from("ab é\x1b\u202e-")
_CELLS = st.one_of(st.text(_LETTERS, max_size=8), st.text(_LETTERS, min_size=20, max_size=70))


@st.composite
def rows(draw: st.DrawFn) -> list[list[str]]:
    columns = draw(st.integers(2, 8))
    first = draw(st.lists(_CELLS, min_size=columns, max_size=columns))
    rest = draw(
        st.lists(
            st.one_of(
                st.lists(_CELLS, min_size=columns, max_size=columns),
                st.lists(_CELLS, min_size=1, max_size=1),  # a heading or a note
            ),
            max_size=5,
        )
    )
    return [first, *rest]


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def fitted(natural: list[int]) -> list[int]:
    """The columns' widths by the rule of the table: where the row (its columns two spaces
    apart) would be wider than WIDTH, the widest column gives way first (the leftmost of
    equally wide ones), as far as the row needs but never below _NARROWEST, then the next
    widest, and so on; a column already no wider than _NARROWEST is never cut."""
    widths = list(natural)
    for column in sorted(range(len(widths)), key=lambda i: (-natural[i], i)):
        excess = sum(widths) + 2 * (len(widths) - 1) - WIDTH
        if excess <= 0:
            break
        widths[column] -= max(0, min(excess, widths[column] - _NARROWEST))
    return widths


@given(rows(), st.sampled_from([12, 30, 64]))
def test_the_table_is_its_cells_escaped_cut_and_aligned_within_the_width(
    table_rows: list[list[str]], width: int
) -> None:
    """A row of one cell is the cell, escaped, cut at WIDTH; every other row is its cells,
    escaped and cut at ``width``, each cut again to its column's width (the widest cell of the
    column, narrowed by the rule of :func:`fitted` where the line would exceed WIDTH) and
    left-justified in it, two spaces apart, without trailing spaces. Then no line exceeds WIDTH
    where the columns can narrow enough, and every column starts at the same place on every
    line."""
    lines = table(table_rows, width)
    cells = [[cut(escape(text), width) for text in row] for row in table_rows if len(row) > 1]
    natural = [max(map(len, column)) for column in zip(*cells, strict=True)]
    widths = fitted(natural)
    event("narrowed" if widths != natural else "natural widths" if cells else "notes only")
    expected = [
        "  ".join(
            cut(cut(escape(text), width), size).ljust(size)
            for text, size in zip(row, widths, strict=True)
        ).rstrip()
        if len(row) > 1
        else cut(escape(row[0]), WIDTH)
        for row in table_rows
    ]
    assert lines == expected
    fits = bool(cells) and len(widths) * _NARROWEST + 2 * (len(widths) - 1) <= WIDTH
    event(
        "the columns can narrow to WIDTH: every line within it"
        if fits
        else "too many columns to narrow to WIDTH"
        if cells
        else "notes only: no columns"
    )
    if fits:
        assert all(len(line) <= WIDTH for line in lines)
    assert all(line.isprintable() for line in lines)


@pytest.mark.parametrize(
    ("moment", "shown"),
    [
        (datetime(2026, 11, 22, 9, 5, 7, tzinfo=UTC), "09:05:07"),  # on now's day: the clock
        (datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "01-02 03:04"),  # in now's year
        (datetime(2025, 12, 31, 23, 59, tzinfo=UTC), "2025-12-31"),
        (datetime(99, 1, 2, tzinfo=UTC), "0099-01-02"),  # strftime gave '99-01-02'
    ],
)
def test_a_table_time_is_the_clock_the_day_or_the_date(moment: datetime, shown: str) -> None:
    from minruntime.cli._format import short

    assert short(moment, datetime(2026, 11, 22, 12, 0, tzinfo=UTC)) == shown

"""Values shown in messages, bounded (private).

An error message repeats the value it refuses; a hostile value must not make the message itself
huge, or cost work to print.
"""

from __future__ import annotations

__all__ = ["shown"]


def shown(value: object) -> str:
    """``repr(value)`` for a message, bounded: a long string keeps its start, its length and its
    end; an integer of more than 60 digits is shown by its size (its digits cost work to print).

    >>> shown("1h" * 100)
    "'1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h'...(200 characters)...'1h1h1h1h1h'"
    >>> shown(10**100)
    '<an integer of 101 digits>'
    """
    if isinstance(value, str) and len(value) > 60:
        return f"{value[:40]!r}...({len(value)} characters)...{value[-10:]!r}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**60:
        digits = len(str(abs(value))) if value.bit_length() < 14_000 else None
        return f"<an integer of {digits or 'more than 4000'} digits>"
    return repr(value)

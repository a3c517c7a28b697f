"""Reusable attrs converters and validators for the library's values (private).

One converter or validator per kind of check, so that no value class needs a hand-written
``__init__``. Converters are named, typed functions (so that type checkers see what each field
accepts); a converter that cannot read its value does not raise: it returns an :class:`Unread`
marker, and the one validator :func:`reported` raises the error with the value's class, its name
and the field, e.g. ``invalid duration '1x' in Queue 'prod' reclaim_min_runtime``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

import attrs

from minruntime._time import Instant, from_ns, to_ns
from minruntime.durations import MinRuntime, MinRuntimeInput
from minruntime.errors import InvalidDuration, InvalidJob

__all__ = [
    "Unread",
    "finite_weight",
    "non_negative_int",
    "read_duration",
    "read_min_runtime",
    "read_optional_duration",
    "read_optional_instant",
    "read_optional_min_runtime",
    "read_optional_positive_duration",
    "reported",
    "slot_setters",
    "where",
]


def where(instance: object, field: attrs.Attribute[Any]) -> str:
    """``"Queue 'prod' reclaim_min_runtime"``: the value's class, its name or id, the field."""
    cls = type(instance).__name__
    for key in ("name", "id"):
        own = getattr(instance, key, None)
        if isinstance(own, str):
            return f"{cls} {own!r} {field.name}"
    return f"{cls} {field.name}"


class Unread:
    """A value a converter could not read; :func:`reported` raises its error, naming the field."""

    __slots__ = ("read", "value")

    def __init__(self, value: object, read: Callable[[object, str], object]) -> None:
        self.value = value
        self.read = read


def reported(instance: object, field: attrs.Attribute[Any], value: object) -> None:
    """The validator of every field with a reading converter: an unread value raises its
    error again, now naming the value's class, its name and the field."""
    if value.__class__ is Unread:
        unread: Unread = value
        unread.read(unread.value, where(instance, field))
        raise AssertionError("unreachable: the reader raised")  # pragma: no cover


def _reader(read: Callable[[object, str], Any]) -> Callable[[object], Any]:
    def convert(value: object) -> Any:
        try:
            return read(value, "")
        except (InvalidDuration, ValueError):
            return Unread(value, read)

    return convert


def _optional_min_runtime(value: object, origin: str) -> MinRuntime | None:
    return None if value is None else MinRuntime.parse(value, origin=origin or None)


def _optional_duration(value: object, origin: str) -> MinRuntime | None:
    return (
        None if value is None else MinRuntime.parse(value, origin=origin or None, allow_never=False)
    )


def _optional_positive_duration(value: object, origin: str) -> MinRuntime | None:
    parsed = _optional_duration(value, origin)
    if parsed is not None and not parsed:
        where = f" in {origin}" if origin else ""
        raise InvalidDuration(
            f"invalid duration {value!r}{where}: must be positive (expected e.g. '30m')",
            value=value,
            origin=origin or None,
        )
    return parsed


def _min_runtime(value: object, origin: str) -> MinRuntime:
    return MinRuntime.parse(value, origin=origin or None)


def _duration(value: object, origin: str) -> MinRuntime:
    return MinRuntime.parse(value, origin=origin or None, allow_never=False)


def _optional_instant(value: object, origin: str) -> datetime | None:
    if value is None:
        return None
    return from_ns(to_ns(value, origin or "a time"))


_read_optional_min_runtime = _reader(_optional_min_runtime)
_read_optional_duration = _reader(_optional_duration)
_read_optional_positive_duration = _reader(_optional_positive_duration)
_read_min_runtime = _reader(_min_runtime)
_read_duration = _reader(_duration)
_read_optional_instant = _reader(_optional_instant)


def read_optional_min_runtime(value: MinRuntimeInput | None) -> MinRuntime | None:
    """Converter: unset (``None``), a duration or never."""
    if value is None or value.__class__ is MinRuntime:
        return value
    return _read_optional_min_runtime(value)  # type: ignore[no-any-return]


def read_optional_duration(value: MinRuntimeInput | None) -> MinRuntime | None:
    """Converter: unset (``None``) or a duration (never is an error)."""
    return _read_optional_duration(value)  # type: ignore[no-any-return]


def read_optional_positive_duration(value: MinRuntimeInput | None) -> MinRuntime | None:
    """Converter: unset (``None``) or a positive duration."""
    return _read_optional_positive_duration(value)  # type: ignore[no-any-return]


def read_min_runtime(value: MinRuntimeInput) -> MinRuntime:
    """Converter: a duration or never."""
    if value.__class__ is MinRuntime:
        return value
    return _read_min_runtime(value)  # type: ignore[no-any-return]


def read_duration(value: MinRuntimeInput) -> MinRuntime:
    """Converter: a duration (never is an error)."""
    return _read_duration(value)  # type: ignore[no-any-return]


def read_optional_instant(value: Instant | None) -> datetime | None:
    """Converter: ``None``, an aware datetime (kept as given) or POSIX seconds."""
    if value is None or (value.__class__ is datetime and value.tzinfo is not None):
        return value
    return _read_optional_instant(value)  # type: ignore[no-any-return]


def non_negative_int(
    error: Callable[[str], Exception], *, optional: bool = False
) -> Callable[[object, attrs.Attribute[Any], object], None]:
    """A validator: an integer ``>= 0`` that is not a bool (``None`` too when ``optional``)."""

    def check(instance: object, field: attrs.Attribute[Any], value: object) -> None:
        if optional and value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            expected = "an integer >= 0" + (" or None" if optional else "")
            raise error(f"{where(instance, field)}: expected {expected}, got {value!r:.60}")

    return check


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of a slotted class's fields, for the ``__init__`` of a frozen value built by
    the thousand: a slot's own setter stores a field without the name lookup of
    ``object.__setattr__`` (about half of a frozen value's construction).

    >>> @attrs.frozen(init=False)
    ... class Point:
    ...     x: int
    ...     def __init__(self, x: int) -> None:
    ...         _X(self, x)
    >>> (_X,) = slot_setters(Point, "x")
    >>> Point(3)
    Point(x=3)
    """
    return tuple(cls.__dict__[name].__set__ for name in names)


def finite_weight(value: object, origin: str) -> float:
    """A weight: a finite number ``>= 0`` (not a bool), as a float; ``origin`` names it."""
    if value.__class__ is float and 0.0 <= value < math.inf:
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value) if isinstance(value, float) or value.bit_length() < 1000 else math.inf
        if 0.0 <= number < math.inf:
            return number
    raise InvalidJob(f"{origin}: expected a finite number >= 0, got {value!r:.60}")

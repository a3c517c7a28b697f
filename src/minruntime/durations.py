"""Min-runtime values: a non-negative duration or *never*, and the one parser for every source.

A queue's min-runtime is *unset* (``None``: inherit from the parent), a duration, or never.
:class:`MinRuntime` holds the last two. It stores an exact integer count of nanoseconds, so
``1.5h`` and ``5400s`` are the same value, and prints a canonical form that parses back.

>>> from minruntime import MinRuntime
>>> MinRuntime.parse("1.5h") == MinRuntime.parse(5400) == MinRuntime.parse("90m")
True
>>> str(MinRuntime.parse("2d4h30m"))
'52h30m'
>>> MinRuntime.parse(-1).is_never
True
"""

from __future__ import annotations

import functools
import math
from datetime import timedelta
from fractions import Fraction
from typing import Any, ClassVar, Final, TypeAlias

import attrs

from minruntime._text import shown
from minruntime.errors import InvalidDuration

__all__ = ["MinRuntime", "MinRuntimeInput", "parse_optional_min_runtime"]


def __dir__() -> list[str]:
    return __all__


NANOSECOND: Final = 1
MICROSECOND: Final = 1_000
MILLISECOND: Final = 1_000_000
SECOND: Final = 1_000_000_000
MINUTE: Final = 60 * SECOND
HOUR: Final = 60 * MINUTE
DAY: Final = 24 * HOUR
WEEK: Final = 7 * DAY

_UNITS: Final[dict[str, int]] = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "µs": MICROSECOND,  # U+00B5 micro sign
    "μs": MICROSECOND,  # U+03BC Greek small letter mu
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
    "d": DAY,
    "w": WEEK,
}

# The canonical form uses only units Go's time.ParseDuration also reads, so that a printed
# value can be pasted into a Queue object of the reference scheduler.
_CANONICAL_UNITS: Final = (
    ("h", HOUR),
    ("m", MINUTE),
    ("s", SECOND),
    ("ms", MILLISECOND),
    ("us", MICROSECOND),
    ("ns", NANOSECOND),
)

_EXPECTED: Final = "expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never"
_NEVER_NS: Final = -1
_DIGITS: Final = frozenset("0123456789")

# The longest duration the parser accepts, in seconds (about 31,700 years: longer than any span
# a datetime can hold). Longer values are refused rather than computed: for protection that never
# ends, write -1 or never. See docs/decisions/hostile-input-bounds.md.
_MAX_SECONDS: Final = 10**12
_MAX_NS: Final = _MAX_SECONDS * SECOND
_MAX_DIGITS: Final = 40  # a longer run of digits is refused before it is converted


_TOO_LONG: Final = (
    f"longer than {_MAX_SECONDS}s; write -1 or 'never' for protection that never ends"
)


def _fail(value: object, origin: str | None, why: str) -> InvalidDuration:
    where = f" in {origin}" if origin else ""
    return InvalidDuration(
        f"invalid duration {shown(value)}{where}: {why} ({_EXPECTED})", value=value, origin=origin
    )


def _parse_text(text: str, origin: str | None) -> int:
    """Parse a duration string into nanoseconds, or ``_NEVER_NS`` for never."""
    if text == "":
        raise _fail(text, origin, "empty string")
    if text == "-1" or text.lower() == "never":
        return _NEVER_NS
    if any(ch.isspace() for ch in text):
        raise _fail(text, origin, "whitespace is not allowed")
    body = text[1:] if text[0] == "+" else text
    if text[0] == "-":
        raise _fail(text, origin, "negative durations are not allowed")
    if body == "0":
        return 0
    if body == "":
        raise _fail(text, origin, "no number")
    total = 0
    i, n = 0, len(body)
    while i < n:
        start = i
        while i < n and body[i] in _DIGITS:
            i += 1
        whole = body[start:i]
        if len(whole) > _MAX_DIGITS:
            raise _fail(text, origin, f"a number of more than {_MAX_DIGITS} digits")
        frac = ""
        if i < n and body[i] == ".":
            i += 1
            frac_start = i
            while i < n and body[i] in _DIGITS:
                i += 1
            frac = body[frac_start:i]
            if len(frac) > _MAX_DIGITS:
                raise _fail(text, origin, f"a fraction of more than {_MAX_DIGITS} digits")
        if not whole and not frac:
            if body[start] in "+-":
                raise _fail(text, origin, "a sign may only lead the whole value")
            raise _fail(text, origin, f"expected a number at {shown(body[start:])}")
        unit_start = i
        while i < n and body[i] != "." and body[i] not in _DIGITS:
            i += 1
        unit = body[unit_start:i]
        if not unit:
            if not frac and i == n and start == 0:
                raise _fail(text, origin, "a bare number needs a unit")
            raise _fail(text, origin, "missing unit")
        if "+" in unit or "-" in unit:
            raise _fail(text, origin, "a sign may only lead the whole value")
        scale = _UNITS.get(unit)
        if scale is None:
            raise _fail(text, origin, f"unknown unit {shown(unit)}")
        total += int(whole or "0") * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        if total > _MAX_NS:
            raise _fail(text, origin, _TOO_LONG)
    return total


def _parse_number(value: int | float, origin: str | None) -> int:
    if isinstance(value, float) and not math.isfinite(value):
        raise _fail(value, origin, "not a finite number")
    if value == -1:
        return _NEVER_NS
    if value < 0:
        raise _fail(value, origin, "negative durations are not allowed")
    if value > _MAX_SECONDS:
        raise _fail(value, origin, _TOO_LONG)
    if isinstance(value, int):
        return value * SECOND
    return round(Fraction(value) * SECOND)


def _to_nanoseconds(value: object, origin: str | None) -> int:
    if isinstance(value, MinRuntime):
        return value._ns
    if isinstance(value, bool):
        raise _fail(value, origin, "a boolean is not a duration")
    if isinstance(value, str):
        return _parse_text(value, origin)
    if isinstance(value, int | float):
        return _parse_number(value, origin)
    if isinstance(value, timedelta):
        if value < timedelta(0):
            raise _fail(value, origin, "negative durations are not allowed")
        if value > timedelta(seconds=_MAX_SECONDS):
            raise _fail(value, origin, _TOO_LONG)
        return (value.days * 86_400 + value.seconds) * SECOND + value.microseconds * MICROSECOND
    raise _fail(value, origin, f"unsupported type {type(value).__name__}")


@functools.lru_cache(maxsize=1024)  # a cluster's durations are few; its reports print each often
def _format(ns: int) -> str:
    if ns == _NEVER_NS:
        return "never"
    if ns == 0:
        return "0s"
    parts = []
    for unit, scale in _CANONICAL_UNITS:
        count, ns = divmod(ns, scale)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


@attrs.frozen(init=False, eq=False, order=False, repr=False)
class MinRuntime:
    """A non-negative duration, or never.

    Construct one with :meth:`parse` (or ``MinRuntime(value)``, the same without an origin).
    Every source uses the same grammar:

    - Go duration strings: an optional ``+``, then ``<number><unit>`` pairs, numbers with an
      optional fraction; units ``ns``, ``us``/``µs``, ``ms``, ``s``, ``m``, ``h``, ``d`` (24h),
      ``w`` (168h), case-sensitive. ``"0"`` alone is zero.
    - An int or float is seconds; a :class:`datetime.timedelta` is itself.
    - Never: the number ``-1``, the string ``"-1"``, or ``"never"`` in any case.

    Values compare and hash by duration (never is greater than every duration), zero is falsy,
    and ``str()`` gives the canonical form, which :meth:`parse` reads back.

    >>> MinRuntime("1h30m")
    MinRuntime('1h30m')
    >>> MinRuntime(0.25)
    MinRuntime('250ms')
    >>> MinRuntime("never") > MinRuntime("520w")
    True
    >>> bool(MinRuntime("0"))
    False
    """

    _ns: int

    NEVER: ClassVar[MinRuntime]
    """Never evicted by the action this value is set for."""
    ZERO: ClassVar[MinRuntime]
    """No protection; a set value that stops inheritance."""

    def __init__(self, value: object) -> None:
        object.__setattr__(self, "_ns", _to_nanoseconds(value, None))

    @classmethod
    def parse(
        cls, value: object, *, origin: str | None = None, allow_never: bool = True
    ) -> MinRuntime:
        """Read a min-runtime from any accepted spelling.

        Args:
            value: a duration string, a number of seconds, a ``timedelta``, a ``MinRuntime``,
                or a never spelling (``-1``, ``"-1"``, ``"never"``).
            origin: where the value came from, for error messages (for example
                ``"Queue 'prod' spec.preemptMinRuntime"``).
            allow_never: ``False`` for a setting that must be a plain duration (a checkpoint
                interval, a grace); never is then an error too.

        Raises:
            InvalidDuration: for any other value; the message shows the value, the origin and
                the expected form.

        >>> MinRuntime.parse("5w4d12h").total_seconds()
        3412800.0
        >>> MinRuntime.parse(".5s") == MinRuntime.parse("500ms")
        True
        >>> MinRuntime.parse("NEVER") is MinRuntime.NEVER
        True
        """
        ns = value._ns if isinstance(value, MinRuntime) else _to_nanoseconds(value, origin)
        if ns == _NEVER_NS:
            if not allow_never:
                where = f" in {origin}" if origin else ""
                raise InvalidDuration(
                    f"invalid duration {value!r}{where}: never is not allowed here "
                    "(expected a duration, e.g. '10m' or '1h30m')",
                    value=value,
                    origin=origin,
                )
            return cls.NEVER
        if isinstance(value, MinRuntime):
            return value
        if ns == 0:
            return cls.ZERO
        return cls._from_ns(ns)

    @classmethod
    def from_nanoseconds(cls, nanoseconds: int) -> MinRuntime:
        """Build a duration from an exact count of nanoseconds (``>= 0``).

        >>> MinRuntime.from_nanoseconds(90 * 10**9)
        MinRuntime('1m30s')
        """
        if isinstance(nanoseconds, bool) or not isinstance(nanoseconds, int) or nanoseconds < 0:
            raise _fail(nanoseconds, None, "expected a non-negative integer count of nanoseconds")
        return cls._from_ns(nanoseconds)

    @classmethod
    def _from_ns(cls, ns: int) -> MinRuntime:
        self = object.__new__(cls)
        object.__setattr__(self, "_ns", ns)
        return self

    @property
    def is_never(self) -> bool:
        """True for never.

        >>> MinRuntime.NEVER.is_never, MinRuntime("10m").is_never
        (True, False)
        """
        return self._ns == _NEVER_NS

    @property
    def ns(self) -> int:
        """The exact duration in nanoseconds.

        Raises:
            ValueError: for never, which has no length.

        >>> MinRuntime("1.5s").ns
        1500000000
        """
        ns = self._ns
        if ns == _NEVER_NS:
            raise ValueError("never has no length in nanoseconds")
        return ns

    @property
    def nanoseconds(self) -> int | None:
        """The exact duration in nanoseconds, or ``None`` for never.

        >>> MinRuntime("1.5s").nanoseconds
        1500000000
        """
        return None if self._ns == _NEVER_NS else self._ns

    def total_seconds(self) -> float:
        """The duration in seconds as a float; ``math.inf`` for never.

        >>> MinRuntime("2m").total_seconds()
        120.0
        """
        if self._ns == _NEVER_NS:
            return math.inf
        return self._ns / SECOND

    def to_timedelta(self) -> timedelta:
        """The duration as a ``timedelta``, rounded up to a whole microsecond.

        Raises:
            ValueError: for never, which no ``timedelta`` can hold.

        >>> MinRuntime("1h30m").to_timedelta()
        datetime.timedelta(seconds=5400)
        """
        if self._ns == _NEVER_NS:
            raise ValueError("never has no timedelta")
        try:
            return timedelta(microseconds=-(-self._ns // MICROSECOND))
        except OverflowError:
            raise ValueError(f"{self} is longer than a timedelta can hold") from None

    def __str__(self) -> str:
        return _format(self._ns)

    def __repr__(self) -> str:
        return f"MinRuntime({_format(self._ns)!r})"

    def __bool__(self) -> bool:
        return self._ns != 0

    def __hash__(self) -> int:
        return hash((MinRuntime, self._ns))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MinRuntime):
            return NotImplemented
        return self._ns == other._ns

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, MinRuntime):
            return NotImplemented
        return self._ns != other._ns

    def _key(self) -> float | int:
        return math.inf if self._ns == _NEVER_NS else self._ns

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, MinRuntime):
            return NotImplemented
        return self._key() < other._key()

    def __le__(self, other: object) -> bool:
        if not isinstance(other, MinRuntime):
            return NotImplemented
        return self._key() <= other._key()

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, MinRuntime):
            return NotImplemented
        return self._key() > other._key()

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, MinRuntime):
            return NotImplemented
        return self._key() >= other._key()

    def __reduce__(self) -> tuple[Any, ...]:
        return (MinRuntime, (str(self),))


MinRuntimeInput: TypeAlias = str | int | float | timedelta | MinRuntime
"""What every min-runtime field accepts (see :meth:`MinRuntime.parse`)."""

MinRuntime.NEVER = MinRuntime._from_ns(_NEVER_NS)
MinRuntime.ZERO = MinRuntime._from_ns(0)


def parse_optional_min_runtime(
    value: object, *, origin: str | None = None, allow_never: bool = True
) -> MinRuntime | None:
    """Parse a value that may be unset: ``None`` stays ``None`` (inherit), anything else parses.

    >>> parse_optional_min_runtime(None) is None
    True
    >>> parse_optional_min_runtime("10m")
    MinRuntime('10m')
    """
    if value is None:
        return None
    return MinRuntime.parse(value, origin=origin, allow_never=allow_never)

"""Kubernetes quantities: ``"500m"``, ``"2"``, ``"16Gi"``, ``"512M"``, ``"1e3"`` (private).

The grammar of Kubernetes' ``resource.Quantity``: a decimal number (digits, an optional point
and fraction), then a binary suffix (``Ki``, ``Mi``, ``Gi``, ``Ti``, ``Pi``, ``Ei``), a decimal
suffix (``n``, ``u``, ``m``, ``k``, ``M``, ``G``, ``T``, ``P``, ``E``) or a decimal exponent
(``e3``, ``E-2``), or nothing. ASCII only: ``str.isdigit`` is true of ``'²'`` too.
"""

from __future__ import annotations

import math
import re
from typing import Final

__all__ = ["MAX_QUANTITY", "quantity"]

MAX_QUANTITY: Final = 1e21
"""The largest amount read (about 867 EiB of memory): a larger one is unreadable, so that an
absurd number never reaches a plan."""
_QUANTITY: Final = re.compile(
    r"\+?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:([eE][+-]?[0-9]{1,3})|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?"
)
_SUFFIXES: Final = {
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
    "n": 1e-9,
    "u": 1e-6,
    "m": 1e-3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
}


def quantity(value: object) -> float | None:
    """The amount a Kubernetes quantity stands for, or ``None`` when it cannot be read (not a
    quantity, negative, not finite, or above :data:`MAX_QUANTITY`). A JSON number is read as
    its value.

    >>> [quantity(text) for text in ("500m", "2", "16Gi", "512M", "1e3", "1.5", 4)]
    [0.5, 2.0, 17179869184.0, 512000000.0, 1000.0, 1.5, 4.0]
    >>> [quantity(text) for text in ("-1", "lots", "1.5.2", "", "²", True)]
    [None, None, None, None, None, None]
    """
    if isinstance(value, str):
        if len(value) > 40:
            return None
        match = _QUANTITY.fullmatch(value)
        if match is None:
            return None
        number, exponent, suffix = match.groups()
        amount = float(number)
        if exponent is not None:
            power = int(exponent[1:])
            if power > 30:  # past the bound, unless the number is zero
                return 0.0 if amount == 0 else None
            amount = amount * 10.0**power if power >= -30 else 0.0
        elif suffix is not None:
            amount *= _SUFFIXES[suffix]
    elif isinstance(value, bool) or not isinstance(value, int | float):
        return None
    else:
        amount = float(value) if not isinstance(value, int) or value < 10**300 else math.inf
    return amount if 0 <= amount <= MAX_QUANTITY else None  # NaN fails both comparisons

"""Resources: what a task holds and what a preemptor needs (docs/spec/plans.md).

A :class:`Resources` value maps a resource name (``nvidia.com/gpu``, ``cpu``, ``memory``, or any
name a scheduler uses: TPU chips, a licence) to an amount, a finite number ``>= 0``. A task
holds resources; a need is the same kind of mapping; a plan frees and misses resources.

Every task is one pod: a task holds one ``pods`` unless it names another count of them, so a
task that names no resource at all holds exactly ``{"pods": 1}``, and a plan can count pods
where a preemptor requests nothing else (docs/decisions/every-task-is-a-pod.md).

>>> from minruntime import Resources
>>> need = Resources({"nvidia.com/gpu": 4, "cpu": 32})
>>> need + Resources({"nvidia.com/gpu": 0.5})
Resources({'cpu': 32, 'nvidia.com/gpu': 4.5})
>>> need["nvidia.com/gpu"], need.get("memory", 0)
(4, 0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final, TypeAlias

from minruntime.errors import InvalidResources

__all__ = ["CPU", "GPU", "MEMORY", "ONE_POD", "PODS", "Resources", "ResourcesLike"]


def __dir__() -> list[str]:
    return __all__


GPU: Final = "nvidia.com/gpu"
"""The resource name of whole and fractional GPUs (the Kubernetes device plugin's)."""
CPU: Final = "cpu"
"""The resource name of CPU cores."""
MEMORY: Final = "memory"
"""The resource name of memory, in bytes."""
PODS: Final = "pods"
"""The resource name of pods: every task holds one, unless it names another count."""

Amount: TypeAlias = int | float
ResourcesLike: TypeAlias = "Resources | Mapping[str, Amount]"
"""What the library accepts where it asks for resources: a :class:`Resources` or a plain
mapping from names to amounts."""

TOLERANCE: Final = 1e-9
"""How much of a resource may be left when it counts as covered: amounts are floats, and
``0.1 + 0.2`` GPUs must cover a need of ``0.3``. Relative to the amount needed (at least 1)."""


def _amount(value: object, name: str, origin: str) -> Amount:
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value) if isinstance(value, float) or value.bit_length() < 1000 else math.inf
        if 0.0 <= number < math.inf:
            return value if isinstance(value, int) else number
    raise InvalidResources(f"{origin} {name!r}: expected a finite number >= 0, got {value!r:.60}")


class Resources(Mapping[str, Amount]):
    """An immutable mapping from resource names to amounts (finite numbers ``>= 0``).

    Compares equal to any mapping with the same entries (a name with amount 0 is kept: it is
    what was said), hashes by value, and adds up with ``+``. Its names are sorted, so that its
    ``repr`` and its iteration do not depend on how it was built.

    Args:
        amounts: a mapping, or (name, amount) pairs.
        origin: what the amounts are, for error messages (keyword only).

    Raises:
        InvalidResources: for a name that is not a non-empty string or an amount that is not a
            finite number >= 0 (bools are not numbers here), naming the origin and the value.

    >>> Resources({"cpu": 8, "nvidia.com/gpu": 1})
    Resources({'cpu': 8, 'nvidia.com/gpu': 1})
    >>> Resources({"cpu": -1}, origin="need")
    Traceback (most recent call last):
    ...
    minruntime.errors.InvalidResources: need 'cpu': expected a finite number >= 0, got -1
    """

    __slots__ = ("_amounts", "_hash")

    def __init__(
        self,
        amounts: Mapping[str, Amount] | Iterable[tuple[str, Amount]] = (),
        *,
        origin: str = "resources",
    ) -> None:
        if isinstance(amounts, Resources):
            self._amounts: dict[str, Amount] = amounts._amounts
            self._hash: int | None = amounts._hash
            return
        try:
            pairs = amounts.items() if isinstance(amounts, Mapping) else iter(amounts)
        except TypeError:
            raise InvalidResources(
                f"{origin}: expected a mapping from resource names to amounts, got {amounts!r:.60}"
            ) from None
        found: dict[str, Amount] = {}
        for pair in pairs:
            try:
                name, value = pair
            except (TypeError, ValueError):
                raise InvalidResources(
                    f"{origin}: expected (name, amount) pairs, got {pair!r:.60}"
                ) from None
            if name.__class__ is not str or not name:
                raise InvalidResources(
                    f"{origin}: a resource name must be a non-empty string, got {name!r:.60}"
                )
            found[name] = _amount(value, name, origin)
        self._amounts = dict(sorted(found.items()))
        self._hash = None

    def __getitem__(self, name: str) -> Amount:
        return self._amounts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._amounts)

    def __len__(self) -> int:
        return len(self._amounts)

    def __contains__(self, name: object) -> bool:
        return name in self._amounts

    def get(self, name: str, default: Any = None) -> Any:
        """The amount of ``name``, or ``default``."""
        return self._amounts.get(name, default)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Resources):
            return self._amounts == other._amounts
        if isinstance(other, Mapping):
            return self._amounts == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        known = self._hash
        if known is None:
            known = self._hash = hash(tuple(self._amounts.items()))
        return known

    def __repr__(self) -> str:
        return f"Resources({self._amounts!r})"

    def __str__(self) -> str:
        """``name amount, ...``, amounts in their shortest form.

        >>> str(Resources({"nvidia.com/gpu": 2.5, "pods": 3}))
        'nvidia.com/gpu 2.5, pods 3'
        """
        if not self._amounts:
            return "nothing"
        return ", ".join(f"{name} {amount:g}" for name, amount in self._amounts.items())

    def __add__(self, other: object) -> Resources:
        """The two added up, name by name.

        >>> Resources({"cpu": 1}) + Resources({"cpu": 2, "pods": 1})
        Resources({'cpu': 3, 'pods': 1})
        """
        if not isinstance(other, Mapping):
            return NotImplemented
        total = dict(self._amounts)
        for name, amount in Resources(other).items():
            total[name] = total.get(name, 0) + amount
        return _made(total)

    __radd__ = __add__

    def __reduce__(self) -> tuple[Any, ...]:
        return (Resources, (self._amounts,))


def _made(amounts: dict[str, Amount]) -> Resources:
    """A :class:`Resources` of amounts already checked (no check again)."""
    made = Resources.__new__(Resources)
    made._amounts = dict(sorted(amounts.items()))
    made._hash = None
    return made


ONE_POD: Final = _made({PODS: 1})
"""What a task that names no resource holds: one pod."""


def task_resources(value: object, origin: str) -> Resources:
    """What a task holds, from what it says: its resources, with one pod unless it names
    another count of pods; nothing said: :data:`ONE_POD`.

    Raises:
        InvalidResources: as :class:`Resources`.

    >>> task_resources({"nvidia.com/gpu": 1}, "task 'a' resources")
    Resources({'nvidia.com/gpu': 1, 'pods': 1})
    >>> task_resources(None, "task 'a' resources") is ONE_POD
    True
    """
    if value is None or value is ONE_POD:
        return ONE_POD
    # a Resources is immutable and already checked: used as it is
    given = (
        value if isinstance(value, Resources) else Resources(value, origin=origin)  # type: ignore[arg-type]
    )
    if PODS in given._amounts:
        return given
    amounts = dict(given._amounts)
    amounts[PODS] = 1
    return _made(amounts)


def covered(amount: float, needed: float) -> bool:
    """Whether ``amount`` covers ``needed``, up to :data:`TOLERANCE`.

    >>> covered(0.1 + 0.2, 0.3), covered(0.29, 0.3)
    (True, False)
    """
    return amount >= needed - TOLERANCE * max(1.0, needed)

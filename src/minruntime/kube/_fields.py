"""Object fields: reading a field of a Kubernetes object, checked (private).

The careful path of the reader: :func:`get` walks a dotted path and checks the value's type,
raising :class:`~minruntime.InvalidObject` naming the object and the field; :func:`lenient`
turns that error into a :class:`~minruntime.kube.Problem` (the field is ignored) where the
contract says a bad value is ignored with a warning (``docs/spec/kubernetes.md``). The fast
paths of the pod and pod-group readers read a well-formed object's fields directly and come
here only when something is off.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from minruntime._text import shown
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidDuration, InvalidObject
from minruntime.kube._problems import ObjectRef, Problem, ProblemKind, _clipped, _problem

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "Object",
    "duration",
    "get",
    "lenient",
    "misspelt_fields",
    "object_name",
    "string_entries",
    "string_map",
]

Object = Mapping[str, Any]

INT32_MIN: Final = -(2**31)
INT32_MAX: Final = 2**31 - 1

_TYPE_NAMES: Final = {
    str: "a string",
    int: "an integer",
    bool: "a boolean",
    list: "a list",
    Mapping: "an object",
}


def object_name(obj: object) -> str:
    """``Kind/namespace/name`` of an object, for messages (parts clipped to 80 characters)."""
    return str(ObjectRef.of(obj))


def get(
    obj: Object, path: str, expected: type, *, required: bool = False, default: Any = None
) -> Any:
    """The value at a dotted field path, checked against ``expected``; ``default`` if absent.

    Raises:
        InvalidObject: naming the object and the field, for a value of another type, an
            integer out of the 32-bit range, or a missing required field.
    """
    current: Any = obj
    walked: list[str] = []
    for key in path.split("."):
        if not isinstance(current, Mapping):
            raise InvalidObject(
                f"{object_name(obj)} {'.'.join(walked)}: expected an object, got "
                f"{shown(current)[:60]}",
                object=object_name(obj),
                field=".".join(walked),
            )
        walked.append(key)
        current = current.get(key)
        if current is None:
            if required:
                raise InvalidObject(
                    f"{object_name(obj)} {path}: missing (required)",
                    object=object_name(obj),
                    field=path,
                )
            return default
    wrong = not isinstance(current, expected) or (expected is int and isinstance(current, bool))
    if not wrong and expected is int and not INT32_MIN <= current <= INT32_MAX:
        raise InvalidObject(
            f"{object_name(obj)} {path}: {shown(current)} is out of range (expected a 32-bit "
            f"integer, {INT32_MIN} to {INT32_MAX})",
            object=object_name(obj),
            field=path,
        )
    if wrong:
        raise InvalidObject(
            f"{object_name(obj)} {path}: expected {_TYPE_NAMES.get(expected, expected.__name__)}, "
            f"got {shown(current)[:60]}",
            object=object_name(obj),
            field=path,
        )
    return current


def lenient(
    problems: list[Problem] | None, obj: Object, path: str, expected: type, default: Any = None
) -> Any:
    """:func:`get`, with a bad value ignored (a problem recorded, ``default`` returned); with
    ``problems`` ``None``, the error is raised."""
    try:
        return get(obj, path, expected, default=default)
    except InvalidObject as error:
        if problems is None:
            raise
        problems.append(_problem(ProblemKind.IGNORED, obj, error.field, str(error), "ignored"))
        return default


def string_map(obj: Object, path: str) -> dict[str, str]:
    """A mapping of strings (labels, annotations); any other value is an error."""
    mapping = get(obj, path, Mapping, default={})
    bad = [key for key, value in mapping.items() if not isinstance(value, str)]
    if bad:
        raise InvalidObject(
            f"{object_name(obj)} {path}[{bad[0]!r}]: expected a string, got "
            f"{shown(mapping[bad[0]])[:60]}",
            object=object_name(obj),
            field=f"{path}[{bad[0]!r}]",
        )
    return dict(mapping)


def string_entries(obj: Object, path: str, problems: list[Problem] | None) -> dict[str, str]:
    """A mapping of strings, its entries that are not strings ignored (each a problem); with
    ``problems`` ``None``, an error."""
    if problems is None:
        return string_map(obj, path)
    mapping = lenient(problems, obj, path, Mapping, {})
    kept: dict[str, str] = {}
    for key, value in mapping.items():
        if isinstance(value, str) and isinstance(key, str):
            kept[key] = value
            continue
        field = f"{path}[{shown(key)[:60]}]"
        problems.append(
            _problem(
                ProblemKind.IGNORED,
                obj,
                field,
                f"{object_name(obj)} {field}: expected a string, got {shown(value)[:60]}",
                "ignored",
            )
        )
    return kept


def duration(obj: Object, path: str, *, allow_never: bool = True) -> MinRuntime | None:
    """A duration field (every spelling :meth:`MinRuntime.parse` reads), or ``None``."""
    raw = get(obj, path, object)
    if raw is None:
        return None
    try:
        return MinRuntime.parse(raw, allow_never=allow_never)
    except InvalidDuration as error:
        message = str(error).replace(
            "invalid duration", f"{object_name(obj)} {path}: invalid duration", 1
        )
        raise InvalidObject(message, object=object_name(obj), field=path) from None


_MAX_EDITS: Final = 2
"""How many edits (a letter inserted, deleted, replaced, or two swapped) from a known field an
unknown one may be to be taken for a misspelling of it."""


def _edits(a: str, b: str, bound: int = _MAX_EDITS) -> int:
    """The edit distance between ``a`` and ``b`` (insertions, deletions, replacements and swaps
    of neighbours), or ``bound + 1`` when it is above ``bound`` (computed no further)."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(current[j - 1] + 1, row[j] + 1, row[j - 1] + cost)
            if (
                before is not None
                and j > 1
                and a[i - 1] == b[j - 2]
                and a[i - 2] == b[j - 1]
                and cost
            ):
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > bound:
            return bound + 1
        before, row = row, current
    return min(row[-1], bound + 1)


def misspelt_fields(obj: Object, path: str, value: object, known: frozenset[str]) -> list[Problem]:
    """The one rule for misspelt fields (``docs/spec/kubernetes.md``): each key of ``value``
    (the mapping at ``path`` of ``obj``: a Queue's or a PodGroup's ``spec``, a sub-group entry)
    that is not in ``known`` but within two edits of a known field, case aside, is a problem
    naming the object, the field and the known field it resembles. Other unknown keys (another
    program's fields) are not. Keys are looked at in sorted order; a known field closer to the
    key wins, then the first in sorted order.

    >>> [str(p) for p in misspelt_fields({"kind": "PodGroup", "metadata": {"name": "train"}},
    ...     "spec", {"minMemeber": 4, "queue": "q", "color": "red"},
    ...     frozenset({"minMember", "queue"}))]
    ['PodGroup/train spec.minMemeber: unknown field (did you mean spec.minMember?); ignored']
    """
    if type(value) is not dict or value.keys() <= known:  # the common case: every key known
        return []
    found = []
    for key in sorted(k for k in value if isinstance(k, str) and k not in known):
        if len(key) > 100:  # a misspelling is short; bounds the work on hostile input
            continue
        lowered = key.lower()
        scored = sorted((_edits(lowered, field.lower()), field) for field in known)
        distance, meant = scored[0] if scored else (_MAX_EDITS + 1, "")
        if distance > _MAX_EDITS:
            continue
        field = f"{path}.{_clipped(key)}"
        found.append(
            _problem(
                ProblemKind.SUSPECT,
                obj,
                field,
                f"{object_name(obj)} {field}: unknown field (did you mean {path}.{meant}?)",
                "ignored",
            )
        )
    return found

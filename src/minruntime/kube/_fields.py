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
from minruntime.kube._problems import ObjectRef, Problem, ProblemKind, _problem

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "Object",
    "duration",
    "get",
    "lenient",
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

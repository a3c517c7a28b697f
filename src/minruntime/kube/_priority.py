"""Priority classes: a ``PriorityClass`` object's name, value and flags (private; re-exported by
the package)."""

from __future__ import annotations

from typing import NamedTuple

from minruntime.errors import InvalidObject
from minruntime.kube._fields import Object, get
from minruntime.kube._problems import Problem, ProblemKind, _problem

__all__ = ["PriorityClass", "read_priority_class", "read_priority_class_fields"]


class PriorityClass(NamedTuple):
    """A PriorityClass as read: its name, value, whether it is the global default, and whether
    its ``preemptionPolicy`` is ``Never``."""

    name: str
    value: int
    global_default: bool
    never: bool


def read_priority_class(obj: Object) -> tuple[str, int, bool]:
    """A PriorityClass as ``(name, value, global_default)``.

    Raises:
        InvalidObject: naming the class and the field it cannot read.

    >>> read_priority_class({"kind": "PriorityClass", "metadata": {"name": "train"}, "value": 50})
    ('train', 50, False)
    """
    name = get(obj, "metadata.name", str, required=True)
    value = get(obj, "value", int, required=True)
    global_default = get(obj, "globalDefault", bool, default=False)
    return name, value, global_default


def read_priority_class_fields(obj: Object, problems: list[Problem]) -> PriorityClass | None:
    """A PriorityClass, or ``None`` (left out, with a problem) when its name or value cannot
    be read: a job naming it then falls back as for a missing class. A bad ``globalDefault``
    or ``preemptionPolicy`` is ignored with a problem."""
    try:
        name = get(obj, "metadata.name", str, required=True)
        value = get(obj, "value", int, required=True)
    except InvalidObject as error:
        problems.append(_problem(ProblemKind.LEFT_OUT, obj, error.field, str(error), "left out"))
        return None
    global_default = False
    never = False
    try:
        global_default = get(obj, "globalDefault", bool, default=False)
    except InvalidObject as error:
        problems.append(_problem(ProblemKind.IGNORED, obj, error.field, str(error), "ignored"))
    try:
        never = get(obj, "preemptionPolicy", str) == "Never"
    except InvalidObject as error:
        problems.append(_problem(ProblemKind.IGNORED, obj, error.field, str(error), "ignored"))
    return PriorityClass(name, value, global_default, never)

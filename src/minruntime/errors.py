"""The errors minruntime raises.

Every error derives from :class:`MinRuntimeError` and also from the builtin exception it
means, so ``except ValueError`` or ``except LookupError`` in a caller's code keeps working.
Every message names the offending value and where it came from.

>>> from minruntime import MinRuntime, InvalidDuration
>>> try:
...     MinRuntime.parse("1x", origin="Queue 'prod' spec.reclaimMinRuntime")
... except InvalidDuration as error:
...     print(error)
invalid duration '1x' in Queue 'prod' spec.reclaimMinRuntime: unknown unit 'x' (expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "InvalidConfiguration",
    "InvalidDuration",
    "InvalidJob",
    "InvalidObject",
    "InvalidPreemptibility",
    "InvalidQueueTree",
    "InvalidResources",
    "InvalidScenario",
    "InvalidSnapshot",
    "InvalidTimestamp",
    "MinRuntimeError",
    "PlanConflict",
    "UnknownJob",
    "UnknownQueue",
]


def __dir__() -> list[str]:
    return __all__


class MinRuntimeError(Exception):
    """Base class of every error minruntime raises.

    >>> from minruntime import MinRuntimeError, MinRuntime
    >>> try:
    ...     MinRuntime.parse("soon")
    ... except MinRuntimeError as error:
    ...     type(error).__name__
    'InvalidDuration'
    """

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuild from the message and attributes, not by calling __init__ with the message:
        # errors must survive pickling (multiprocessing, executors) and copying unchanged.
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


def _rebuild(
    cls: type[MinRuntimeError], args: tuple[Any, ...], state: dict[str, Any]
) -> MinRuntimeError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InvalidDuration(MinRuntimeError, ValueError):
    """A min-runtime value that is not a duration, ``-1`` or ``"never"``.

    Attributes:
        value: the rejected value, as it was given.
        origin: where it came from (for example ``"Queue 'prod' spec.reclaimMinRuntime"``), or
            ``None``.

    >>> from minruntime import MinRuntime, InvalidDuration
    >>> try:
    ...     MinRuntime.parse(-5)
    ... except InvalidDuration as error:
    ...     error.value
    -5
    """

    def __init__(self, message: str, *, value: object = None, origin: str | None = None) -> None:
        super().__init__(message)
        self.value = value
        self.origin = origin


class InvalidPreemptibility(MinRuntimeError, ValueError):
    """A preemptibility value that is none of the accepted spellings."""

    def __init__(self, message: str, *, value: object = None, origin: str | None = None) -> None:
        super().__init__(message)
        self.value = value
        self.origin = origin


class InvalidTimestamp(MinRuntimeError, ValueError):
    """A time that cannot be used: naive, unparseable, or of the wrong type.

    >>> from minruntime import Session, QueueTree, Config, InvalidTimestamp
    >>> from datetime import datetime
    >>> try:
    ...     Session(QueueTree([]), Config(), now=datetime(2026, 1, 1))
    ... except InvalidTimestamp as error:
    ...     print(error)
    naive datetime 2026-01-01 00:00:00 for the session's now: give a timezone-aware datetime (for example with tzinfo=timezone.utc) or POSIX seconds
    """

    def __init__(self, message: str, *, value: object = None, origin: str | None = None) -> None:
        super().__init__(message)
        self.value = value
        self.origin = origin


class InvalidQueueTree(MinRuntimeError, ValueError):
    """A queue tree that cannot be built; ``problems`` lists every problem found.

    >>> from minruntime import Queue, QueueTree, InvalidQueueTree
    >>> try:
    ...     QueueTree([Queue("a", parent="b"), Queue("b", parent="a"), Queue("c", parent="x")])
    ... except InvalidQueueTree as error:
    ...     for problem in error.problems:
    ...         print(problem)
    queue 'c' has parent 'x', which is not in the tree
    cycle in parent links: 'a' -> 'b' -> 'a'
    """

    def __init__(self, problems: Iterable[str], *, origin: str | None = None) -> None:
        self.problems = tuple(problems)
        self.origin = origin
        where = f" ({origin})" if origin else ""
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        lines = "".join(f"\n  - {problem}" for problem in self.problems)
        super().__init__(f"invalid queue tree{where}: {count} {noun}:{lines}")


class UnknownQueue(MinRuntimeError, LookupError):
    """A queue name that is not in the tree, asked of a tree query.

    >>> from minruntime import Queue, QueueTree, UnknownQueue
    >>> try:
    ...     QueueTree([Queue("a")]).depth("b")
    ... except UnknownQueue as error:
    ...     print(error.args[0])
    queue 'b' is not in the tree
    """

    def __init__(self, name: object) -> None:
        super().__init__(f"queue {name!r} is not in the tree")
        self.name = name


class InvalidConfiguration(MinRuntimeError, ValueError):
    """A plugin argument or configuration document that cannot be used.

    ``problems`` lists every problem found, each naming the key and the value.

    >>> from minruntime import Config, InvalidConfiguration
    >>> try:
    ...     Config.from_plugin_arguments({"reclaimResolveMethod": "LCA"})
    ... except InvalidConfiguration as error:
    ...     print(error.problems[0])
    reclaimResolveMethod: invalid value 'LCA' (expected 'lca' or 'queue')
    """

    def __init__(self, problems: Iterable[str], *, origin: str | None = None) -> None:
        self.problems = tuple(problems)
        self.origin = origin
        where = f" in {origin}" if origin else ""
        if len(self.problems) == 1:
            message = f"invalid configuration{where}: {self.problems[0]}"
        else:
            lines = "".join(f"\n  - {problem}" for problem in self.problems)
            message = f"invalid configuration{where}: {len(self.problems)} problems:{lines}"
        super().__init__(message)


class InvalidScenario(MinRuntimeError, ValueError):
    """A scenario that names something the victim job does not have."""


class InvalidResources(MinRuntimeError, ValueError):
    """Resources (a task's, or a need) that are not a mapping from names to finite amounts
    ``>= 0``; the message names where they came from and the value.

    >>> from minruntime import InvalidResources, Task
    >>> try:
    ...     Task("w-0", resources={"nvidia.com/gpu": "two"})
    ... except InvalidResources as error:
    ...     print(error)
    Task 'w-0' resources 'nvidia.com/gpu': expected a finite number >= 0, got 'two'
    """


class PlanConflict(MinRuntimeError, ValueError):
    """A plan that cannot be committed: some of its tasks were committed since it was made (by
    another plan of the cycle, perhaps from another thread), or it would leave a victim in a
    shape its scenario validator refuses. ``tasks`` names the tasks already taken, as
    (victim id, task id) pairs.

    >>> from minruntime import PlanConflict
    >>> str(PlanConflict("task 'w-1' of job 'train' was committed by another plan", tasks=[("train", "w-1")]))
    "task 'w-1' of job 'train' was committed by another plan"
    """

    def __init__(self, message: str, *, tasks: Iterable[tuple[Any, Any]] = ()) -> None:
        super().__init__(message)
        self.tasks = tuple(tasks)


class InvalidJob(MinRuntimeError, ValueError):
    """A job, pod set or task value that cannot be built; the message names the field.

    >>> from minruntime import InvalidJob, PodSet
    >>> try:
    ...     PodSet("workers", min_available=-1)
    ... except InvalidJob as error:
    ...     print(error)
    PodSet 'workers' min_available: expected an integer >= 0, got -1
    """


class InvalidObject(MinRuntimeError, ValueError):
    """A Kubernetes object (or a snapshot file) that cannot be read.

    The message names the object as ``Kind/namespace/name`` (or ``Kind/name`` for a
    cluster-scoped object) and the field path.

    Attributes:
        object: the object's ``Kind/namespace/name``, or the file, or ``None``.
        field: the field path, for example ``"spec.minMember"``, or ``None``.

    >>> from minruntime.kube import read_queue
    >>> try:
    ...     read_queue({"kind": "Queue", "metadata": {"name": "prod"},
    ...                 "spec": {"reclaimMinRuntime": "1x"}})
    ... except InvalidObject as error:
    ...     print(error)
    Queue/prod spec.reclaimMinRuntime: invalid duration '1x': unknown unit 'x' (expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)
    """

    def __init__(
        self, message: str, *, object: str | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.object = object
        self.field = field


class InvalidSnapshot(MinRuntimeError, ValueError):
    """A snapshot read strictly that has problems: ``problems`` lists every one of them.

    Raised by ``minruntime.kube.read_snapshot(..., strict=True)`` (the command's ``--strict``):
    each problem is a ``minruntime.kube.Problem`` naming the object, the field and the value, and
    saying that the snapshot is refused; the message lists them all.

    >>> from minruntime import InvalidSnapshot
    >>> from minruntime.kube import read_snapshot
    >>> try:
    ...     read_snapshot([{"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"namespace": "ml"}, "spec": {"queue": "q"}}],
    ...                   strict=True)
    ... except InvalidSnapshot as error:
    ...     print(error)
    the snapshot has 2 problems (strict reading):
      - no scheduler config or SchedulingShard in the snapshot; the snapshot is refused (strict reading)
      - PodGroup/ml/<unnamed> metadata.name: missing (required); the snapshot is refused (strict reading)
    """

    def __init__(self, problems: Iterable[Any], *, origin: str | None = None) -> None:
        self.problems = tuple(problems)
        self.origin = origin
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        lines = "".join(f"\n  - {problem}" for problem in self.problems)
        super().__init__(f"{origin or 'the snapshot'} has {count} {noun} (strict reading):{lines}")


class UnknownJob(MinRuntimeError, LookupError):
    """A pod group reference that names no job of a snapshot, or more than one.

    Attributes:
        reference: the reference as given (``NAMESPACE/NAME``, or a bare name).
        matches: the ids of the jobs a bare name matches (empty when none does).

    >>> from minruntime import UnknownJob
    >>> from minruntime.kube import read_snapshot
    >>> snapshot = read_snapshot([{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue",
    ...                            "metadata": {"name": "q"}}])
    >>> try:
    ...     snapshot.find("ml/train")
    ... except UnknownJob as error:
    ...     print(error.args[0])
    no pod group 'ml/train' in the snapshot (expected NAMESPACE/NAME of a PodGroup, or its name when unique)
    """

    def __init__(self, message: str, *, reference: str, matches: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.reference = reference
        self.matches = tuple(matches)

"""Queues and the queue tree: validation, ancestors, paths, depth and lowest common ancestors.

Top-level queues hang under an implicit virtual root, written ``None`` wherever a query can
answer "the virtual root" (for example :meth:`QueueTree.lca` of queues in two different
top-level trees).

>>> from minruntime import Queue, QueueTree
>>> tree = QueueTree([
...     Queue("A"), Queue("B", parent="A", reclaim_min_runtime="600s"),
...     Queue("C", parent="B"), Queue("leaf1", parent="C"),
... ])
>>> tree.path("leaf1")
('A', 'B', 'C', 'leaf1')
>>> tree.lca("leaf1", "B")
'B'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, KeysView, Mapping
from operator import attrgetter
from typing import Any, Final

import attrs

from minruntime._fields import (
    non_negative_int,
    read_optional_duration,
    read_optional_min_runtime,
    reported,
)
from minruntime.durations import MinRuntime, parse_optional_min_runtime
from minruntime.errors import InvalidConfiguration, InvalidDuration, InvalidQueueTree, UnknownQueue

__all__ = ["ProtectionSettings", "Queue", "QueueTree"]


def __dir__() -> list[str]:
    return __all__


def _budget_error(message: str) -> Exception:
    return InvalidConfiguration([message])


@attrs.frozen(kw_only=True)
class ProtectionSettings:
    """The protections beyond min-runtime (docs/spec/beyond-min-runtime.md), as one value.

    On a :class:`Queue` every field is optional (``None``: inherit from the parent, like a
    min-runtime); on a :class:`~minruntime.Config` they are the node-pool defaults (``None``:
    the built-in default, which turns the protection off). They resolve like the min-runtimes:
    the grace of an action like that action's min-runtime, the others by walking up from the
    victim's queue.

    Args:
        preempt_checkpoint_grace, reclaim_checkpoint_grace: how long a victim whose next
            checkpoint is near may hold a preemptor back; a duration (built-in default zero: off).
        max_evictions: a job evicted this many times within ``eviction_window`` is protected
            until the oldest of those leaves the window (built-in default: unlimited).
        eviction_window: the budget's window; never means ever (the built-in default).
        max_job_min_runtime: the most min-runtime a job may request for itself (built-in default
            zero: requests are ignored; never: no cap).

    Raises:
        InvalidDuration: for a bad duration, naming the field.
        InvalidConfiguration: for a ``max_evictions`` that is not an integer >= 0.

    >>> ProtectionSettings(max_evictions=3, eviction_window="1h")
    ProtectionSettings(preempt_checkpoint_grace=None, reclaim_checkpoint_grace=None, max_evictions=3, eviction_window=MinRuntime('1h'), max_job_min_runtime=None)
    >>> bool(ProtectionSettings())
    False
    """

    preempt_checkpoint_grace: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_duration, validator=reported
    )
    reclaim_checkpoint_grace: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_duration, validator=reported
    )
    max_evictions: int | None = attrs.field(
        default=None, validator=non_negative_int(_budget_error, optional=True)
    )
    eviction_window: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_min_runtime, validator=reported
    )
    max_job_min_runtime: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_min_runtime, validator=reported
    )

    def __bool__(self) -> bool:
        """True when any field is set."""
        return any(value is not None for value in attrs.astuple(self, recurse=False))


NO_PROTECTIONS: Final = ProtectionSettings()


def _check_name(instance: object, field: attrs.Attribute[Any], name: object) -> None:
    if not isinstance(name, str) or not name:
        raise InvalidQueueTree([f"a queue name must be a non-empty string, got {name!r}"])


def _to_parent(parent: object) -> object:
    return None if parent == "" else parent


def _check_parent(instance: Queue, field: attrs.Attribute[Any], parent: object) -> None:
    if parent is not None and not isinstance(parent, str):
        raise InvalidQueueTree(
            [f"queue {instance.name!r} has parent {parent!r}: expected a queue name or None"]
        )


def _to_protections(value: ProtectionSettings | None) -> ProtectionSettings:
    if value is None:
        return NO_PROTECTIONS
    if not isinstance(value, ProtectionSettings):
        raise InvalidQueueTree(
            [f"queue protections: expected a ProtectionSettings, got {type(value).__name__}"]
        )
    return value


@attrs.frozen
class Queue:
    """One queue: a name, an optional parent and its optional settings.

    Args:
        name: the queue's unique name (a Kubernetes Queue's ``metadata.name``).
        parent: the parent queue's name; ``None`` or ``""`` for a top-level queue.
        preempt_min_runtime: protection from preemption inside the queue; ``None`` inherits.
        reclaim_min_runtime: protection from reclaim by other queues; ``None`` inherits.
        protections: the protections beyond min-runtime (docs/spec/beyond-min-runtime.md):
            checkpoint grace, eviction budget, cap on a job's own request; unset fields inherit.

    The min-runtime fields accept every spelling of :class:`~minruntime.MinRuntime`.

    Raises:
        InvalidDuration: for a bad min-runtime value, naming the queue and the field.
        InvalidQueueTree: for a name that is not a non-empty string or a parent of another type.

    >>> Queue("prod", reclaim_min_runtime="1h30m")
    Queue(name='prod', parent=None, preempt_min_runtime=None, reclaim_min_runtime=MinRuntime('1h30m'), protections=ProtectionSettings(preempt_checkpoint_grace=None, reclaim_checkpoint_grace=None, max_evictions=None, eviction_window=None, max_job_min_runtime=None))
    >>> Queue("dev", parent="", preempt_min_runtime=-1).preempt_min_runtime
    MinRuntime('never')
    """

    name: str = attrs.field(validator=_check_name)
    parent: str | None = attrs.field(default=None, converter=_to_parent, validator=_check_parent)
    preempt_min_runtime: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_min_runtime, validator=reported
    )
    reclaim_min_runtime: MinRuntime | None = attrs.field(
        default=None, converter=read_optional_min_runtime, validator=reported
    )
    protections: ProtectionSettings = attrs.field(
        default=NO_PROTECTIONS, kw_only=True, converter=_to_protections
    )


_MIN_RUNTIME_FIELDS = ("preempt_min_runtime", "reclaim_min_runtime")
_PROTECTION_FIELDS: Final = tuple(field.name for field in attrs.fields(ProtectionSettings))


def _protections_record(
    name: str, record: object, problems: list[str]
) -> ProtectionSettings | None:
    """A queue record's ``protections`` (a mapping or a value); problems are collected."""
    if record is None or isinstance(record, ProtectionSettings):
        return record
    if not isinstance(record, Mapping):
        problems.append(
            f"queue {name!r} protections: expected a mapping, got {type(record).__name__}"
        )
        return None
    unknown = sorted(set(record) - set(_PROTECTION_FIELDS), key=str)
    if unknown:
        problems.append(f"queue {name!r} protections: unknown keys {unknown}")
    try:
        return ProtectionSettings(
            **{key: record[key] for key in _PROTECTION_FIELDS if key in record}
        )
    except (InvalidDuration, InvalidConfiguration) as error:
        problems.append(f"queue {name!r} protections: {error}")
        return None


def _rotate(cycle: list[str]) -> list[str]:
    """Start a cycle at its smallest name, so that its message does not depend on input order."""
    first = cycle.index(min(cycle))
    return cycle[first:] + cycle[:first]


class QueueTree:
    """An immutable, validated tree of queues under an implicit virtual root.

    Building rejects, with one :class:`~minruntime.InvalidQueueTree` listing every problem,
    duplicate names, unknown parents and cycles. With ``orphans_as_top_level=True`` a queue
    whose parent is not in the tree becomes top-level instead (the reference scheduler's
    behaviour for a snapshot whose parent queue was deleted), and the tree's ``warnings`` say so.

    Queries take queue names and raise :class:`~minruntime.UnknownQueue` for a name that is not
    in the tree. Paths are computed once per queue and kept, so repeated queries are cheap.

    Args:
        queues: the queues, in any order.
        orphans_as_top_level: treat an unknown parent as "no parent".

    >>> tree = QueueTree([Queue("org"), Queue("team", parent="org"), Queue("gone", parent="x")],
    ...                  orphans_as_top_level=True)
    >>> tree.parent("gone") is None, tree.depth("team")
    (True, 1)
    >>> tree.warnings
    ("queue 'gone' has parent 'x', which is not in the tree; treated as top-level",)
    """

    __slots__ = (
        "_children",
        "_depth",
        "_index",
        "_inherited",
        "_names",
        "_parent",
        "_paths",
        "_preorder",
        "_protections",
        "_queues",
        "warnings",
    )

    def __init__(self, queues: Iterable[Queue], *, orphans_as_top_level: bool = False) -> None:
        self._build(list(queues), orphans_as_top_level, ())

    @classmethod
    def from_records(
        cls,
        records: Iterable[Mapping[str, Any]],
        *,
        orphans_as_top_level: bool = False,
        origin: str | None = None,
    ) -> QueueTree:
        """Build a tree from plain mappings, reporting bad values together with tree problems.

        Each record has the keys of :class:`Queue` (``name``, and optionally ``parent``,
        ``preempt_min_runtime``, ``reclaim_min_runtime``). Unlike building :class:`Queue`
        objects one by one, a bad duration here does not stop at the first one: every problem
        of every record is reported in one :class:`~minruntime.InvalidQueueTree`.

        >>> tree = QueueTree.from_records([
        ...     {"name": "org", "reclaim_min_runtime": "1h"},
        ...     {"name": "team", "parent": "org"},
        ... ])
        >>> tree["org"].reclaim_min_runtime
        MinRuntime('1h')
        >>> QueueTree.from_records([{"name": "a", "preempt_min_runtime": "5"}])
        Traceback (most recent call last):
            ...
        minruntime.errors.InvalidQueueTree: invalid queue tree: 1 problem:
          - invalid duration '5' in Queue 'a' preempt_min_runtime: a bare number needs a unit (expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)
        """
        problems: list[str] = []
        queues: list[Queue] = []
        for number, record in enumerate(records):
            if not isinstance(record, Mapping):
                problems.append(
                    f"record {number}: expected a mapping, got {type(record).__name__} {record!r:.60}"
                )
                continue
            fields = dict(record)
            name = fields.get("name")
            if not isinstance(name, str) or not name:
                problems.append(
                    f"record {number}: a queue name must be a non-empty string, got {name!r}"
                )
                continue
            unknown = sorted(set(fields) - {"name", "parent", "protections", *_MIN_RUNTIME_FIELDS})
            if unknown:
                problems.append(f"queue {name!r}: unknown keys {unknown}")
            for key in _MIN_RUNTIME_FIELDS:
                try:
                    fields[key] = parse_optional_min_runtime(
                        fields.get(key), origin=f"Queue {name!r} {key}"
                    )
                except InvalidDuration as error:
                    # Keep the queue (with the field unset) so that its place in the tree is
                    # still checked and no child is reported as an orphan because of it.
                    problems.append(str(error))
                    fields[key] = None
            protections = _protections_record(name, fields.get("protections"), problems)
            try:
                queues.append(
                    Queue(
                        name,
                        fields.get("parent"),
                        preempt_min_runtime=fields["preempt_min_runtime"],
                        reclaim_min_runtime=fields["reclaim_min_runtime"],
                        protections=protections,
                    )
                )
            except InvalidQueueTree as error:
                problems.extend(error.problems)
        tree = cls.__new__(cls)
        tree._build(queues, orphans_as_top_level, problems, origin=origin)
        return tree

    def _build(
        self,
        queues: list[Queue],
        orphans_as_top_level: bool,
        problems: Iterable[str],
        origin: str | None = None,
    ) -> None:
        problems = list(problems)
        warnings: list[str] = []
        index: dict[str, int] = {}
        names: list[str] = []
        ordered: list[Queue] = []
        duplicates: dict[str, int] = {}
        for queue in queues:
            if not isinstance(queue, Queue):
                problems.append(f"expected a Queue, got {type(queue).__name__} {queue!r}")
                continue
            name = queue.name
            if name in index:
                duplicates[name] = duplicates.get(name, 1) + 1
                continue
            index[name] = len(names)
            names.append(name)
            ordered.append(queue)
        for name, count in duplicates.items():
            problems.append(f"duplicate queue name {name!r} ({count} queues)")

        parent = [-1] * len(names)
        for i, queue in enumerate(ordered):
            if queue.parent is None:
                continue
            p = index.get(queue.parent)
            if p is None:
                message = (
                    f"queue {queue.name!r} has parent {queue.parent!r}, which is not in the tree"
                )
                if orphans_as_top_level:
                    warnings.append(message + "; treated as top-level")
                else:
                    problems.append(message)
            else:
                parent[i] = p

        depth = [-1] * len(names)  # -1: not yet known; -2: on the path being followed
        for start in range(len(names)):
            if depth[start] >= 0:
                continue
            trail: list[int] = []
            node = start
            while node != -1 and depth[node] == -1:
                depth[node] = -2
                trail.append(node)
                node = parent[node]
            if node != -1 and depth[node] == -2:
                cycle = trail[trail.index(node) :]
                cycle_names = _rotate([names[i] for i in cycle])
                arrow = " -> ".join(repr(n) for n in [*cycle_names, cycle_names[0]])
                problems.append(f"cycle in parent links: {arrow}")
                for i in trail:
                    depth[i] = 0  # reported: the tree is rejected, depths no longer matter
                continue
            base = -1 if node == -1 else depth[node]
            for i in reversed(trail):
                base += 1
                depth[i] = base

        if problems:
            raise InvalidQueueTree(problems, origin=origin)
        self._queues = {queue.name: queue for queue in ordered}
        self._index = index
        self._names = names
        self._parent = parent
        self._depth = depth
        self._paths: dict[str, tuple[str, ...]] = {}
        self._inherited: dict[str, dict[str, tuple[Any, str]]] = {}
        self._children: dict[str | None, tuple[str, ...]] | None = None
        self._protections: bool | None = None
        self._preorder: dict[str, tuple[int, int]] | None = None
        self.warnings: tuple[str, ...] = tuple(warnings)

    # -- container protocol -------------------------------------------------------------------

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[str]:
        """Queue names, in the order they were given."""
        return iter(self._names)

    def __getitem__(self, name: str) -> Queue:
        try:
            return self._queues[name]
        except KeyError:
            raise UnknownQueue(name) from None

    def names(self) -> KeysView[str]:
        """The queue names, as a view that answers ``name in ...`` in one dict lookup.

        >>> "a" in QueueTree([Queue("a")]).names()
        True
        """
        return self._queues.keys()

    def get(self, name: str) -> Queue | None:
        """The queue called ``name``, or ``None``.

        >>> QueueTree([Queue("a")]).get("b") is None
        True
        """
        return self._queues.get(name)

    def __repr__(self) -> str:
        return f"<QueueTree of {len(self._names)} queues>"

    # -- queries ------------------------------------------------------------------------------

    def _i(self, name: str) -> int:
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise UnknownQueue(name) from None

    def parent(self, name: str) -> str | None:
        """The parent's name, or ``None`` for a top-level queue (orphans included).

        >>> QueueTree([Queue("a"), Queue("b", parent="a")]).parent("b")
        'a'
        """
        p = self._parent[self._i(name)]
        return None if p == -1 else self._names[p]

    def depth(self, name: str) -> int:
        """How many ancestors the queue has: 0 for a top-level queue.

        >>> QueueTree([Queue("a"), Queue("b", parent="a")]).depth("b")
        1
        """
        return self._depth[self._i(name)]

    def path(self, name: str) -> tuple[str, ...]:
        """Names from the top-level queue down to ``name`` itself (root-to-leaf).

        Each queue's path is computed once, the first time it is asked for, and kept: a later
        query is one dictionary lookup.

        >>> QueueTree([Queue("a"), Queue("b", parent="a")]).path("b")
        ('a', 'b')
        """
        try:
            return self._paths[name]
        except (KeyError, TypeError):
            return self._path(self._i(name))

    def _path(self, i: int) -> tuple[str, ...]:
        # Walk up to the nearest queue whose path is known, then build downwards. Each entry is
        # stored whole once built, so that threads asking at once only ever read complete paths.
        paths = self._paths
        names = self._names
        trail = []
        node = i
        while node != -1 and names[node] not in paths:
            trail.append(node)
            node = self._parent[node]
        prefix = () if node == -1 else paths[names[node]]
        for j in reversed(trail):
            prefix = (*prefix, names[j])
            paths[names[j]] = prefix
        return prefix

    def ancestors(self, name: str) -> tuple[str, ...]:
        """Proper ancestors, nearest first (leaf to root), without ``name`` itself.

        >>> QueueTree([Queue("a"), Queue("b", parent="a"), Queue("c", parent="b")]).ancestors("c")
        ('b', 'a')
        """
        return self.path(name)[-2::-1]

    def lca(self, first: str, second: str) -> str | None:
        """The lowest common ancestor of two queues (a queue is its own ancestor).

        Returns ``None`` when the queues are in different top-level trees: their common
        ancestor is then the virtual root.

        >>> tree = QueueTree([Queue("a"), Queue("b", parent="a"), Queue("c", parent="a"),
        ...                   Queue("z")])
        >>> tree.lca("b", "c"), tree.lca("a", "b"), tree.lca("b", "z")
        ('a', 'a', None)
        """
        shared = _common_prefix_length(self.path(first), self.path(second))
        return None if shared == 0 else self.path(first)[shared - 1]

    def child_towards(self, ancestor: str | None, descendant: str) -> str:
        """The child of ``ancestor`` on the way down to ``descendant``.

        ``ancestor`` must be a proper ancestor of ``descendant``, or ``None`` for the virtual
        root (then the answer is ``descendant``'s top-level queue).

        Raises:
            UnknownQueue: for a name that is not in the tree.
            ValueError: if ``ancestor`` is not a proper ancestor of ``descendant``.

        >>> tree = QueueTree([Queue("a"), Queue("b", parent="a"), Queue("c", parent="b")])
        >>> tree.child_towards("a", "c"), tree.child_towards(None, "c")
        ('b', 'a')
        """
        path = self.path(descendant)
        if ancestor is None:
            return path[0]
        level = self.depth(ancestor)
        if level + 1 >= len(path) or path[level] != ancestor:
            raise ValueError(f"queue {ancestor!r} is not a proper ancestor of {descendant!r}")
        return path[level + 1]

    @property
    def has_protections(self) -> bool:
        """Whether any queue sets a protection beyond min-runtime (docs/spec/beyond-min-runtime.md).

        >>> QueueTree([Queue("a"), Queue("b", protections=ProtectionSettings(max_evictions=3))]).has_protections
        True
        """
        if self._protections is None:
            self._protections = any(queue.protections for queue in self._queues.values())
        return self._protections

    def preorder(self) -> Mapping[str, tuple[int, int]]:
        """Each queue's place in a depth-first walk of the tree: ``(first, end)``, so that the
        queues of a subtree are exactly those whose ``first`` is in its ``[first, end)``.

        >>> QueueTree([Queue("a"), Queue("b", parent="a"), Queue("c")]).preorder()["a"]
        (0, 2)
        """
        if self._preorder is None:
            spans: dict[str, tuple[int, int]] = {}
            counter = 0
            stack: list[tuple[str, bool]] = [
                (name, False) for name in reversed(self.children(None))
            ]
            opened: dict[str, int] = {}
            while stack:
                name, done = stack.pop()
                if done:
                    spans[name] = (opened[name], counter)
                    continue
                opened[name] = counter
                counter += 1
                stack.append((name, True))
                stack.extend((child, False) for child in reversed(self.children(name)))
            self._preorder = spans
        return self._preorder

    def shared_depth(self, first: str, second: str) -> int:
        """How many queues the two root-to-leaf paths share: the depth of the lowest common
        ancestor plus one, 0 for queues in different top-level trees.

        >>> QueueTree([Queue("a"), Queue("b", parent="a"), Queue("c", parent="a")]).shared_depth("b", "c")
        1
        """
        first_path, second_path = self.path(first), self.path(second)
        if first_path[0] != second_path[0]:
            return 0  # in two top-level trees: the common case on a wide tree, one comparison
        return _common_prefix_length(first_path, second_path)

    def inherited(self, setting: str) -> Mapping[str, tuple[Any, str]]:
        """What each queue inherits of a setting: for every queue at or below a queue that sets
        it, the value of the nearest such queue walking up (the queue itself first) and that
        queue's name. A queue with no such queue on its path is absent (it gets the node-pool
        default, which the tree does not know).

        The table is computed once per tree and setting, the first time it is asked for, and
        shared by everyone who asks after (a tree is immutable): resolution then costs one
        lookup per start queue. It is built whole before it is kept, so that threads asking at
        once each get a complete table. Zero and never are set values: they stop the walk.

        Args:
            setting: ``"preempt_min_runtime"``, ``"reclaim_min_runtime"``, or a field of
                :class:`ProtectionSettings` (``"max_evictions"``, ...).

        Raises:
            ValueError: for another name.

        >>> tree = QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b", parent="a"),
        ...                   Queue("c", parent="b", reclaim_min_runtime=0), Queue("z")])
        >>> table = tree.inherited("reclaim_min_runtime")
        >>> table["b"], table["c"], "z" in table
        ((MinRuntime('1h'), 'a'), (MinRuntime('0s'), 'c'), False)
        """
        table = self._inherited.get(setting)
        if table is None:
            read: Callable[[Queue], Any]
            if setting in _MIN_RUNTIME_FIELDS:
                read = attrgetter(setting)
            elif setting in _PROTECTION_FIELDS:
                read = attrgetter(f"protections.{setting}")
            else:
                expected = ", ".join(repr(n) for n in (*_MIN_RUNTIME_FIELDS, *_PROTECTION_FIELDS))
                raise ValueError(f"no queue setting {setting!r} (expected one of {expected})")
            table = {}
            names, parents, queues = self._names, self._parent, self._queues
            for i in sorted(range(len(names)), key=self._depth.__getitem__):  # parents first
                name = names[i]
                value = read(queues[name])
                if value is not None:
                    table[name] = (value, name)
                elif parents[i] != -1:
                    found = table.get(names[parents[i]])
                    if found is not None:
                        table[name] = found
            self._inherited[setting] = table  # published whole
        return table

    def children(self, name: str | None) -> tuple[str, ...]:
        """The direct children of a queue, or of the virtual root for ``None``, in input order.

        >>> QueueTree([Queue("a"), Queue("b", parent="a"), Queue("c")]).children(None)
        ('a', 'c')
        """
        if name is not None:
            self._i(name)
        if self._children is None:
            grouped: dict[str | None, list[str]] = {}
            for i, n in enumerate(self._names):
                p = self._parent[i]
                grouped.setdefault(None if p == -1 else self._names[p], []).append(n)
            self._children = {key: tuple(value) for key, value in grouped.items()}
        return self._children.get(name, ())


def _common_prefix_length(first: tuple[str, ...], second: tuple[str, ...]) -> int:
    """How many leading names two root-to-leaf paths share (binary search: paths are prefixes).

    >>> _common_prefix_length(("a", "b", "c"), ("a", "b", "d"))
    2
    """
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[middle - 1] == second[middle - 1]:
            low = middle
        else:
            high = middle - 1
    return low

"""Sub-group trees (docs/spec/sub-group-trees.md): a job's shape, what it needs to stay whole, what
may go, and what an eviction breaks (private).

A job's pod sets are the leaves of a tree whose inner nodes are its sub-group sets
(:class:`~minruntime.SubGroup`). A leaf needs ``min_available`` active tasks; a set needs
``min_sub_group`` satisfied children (all when unset); the root is the job itself, with the
job's ``min_sub_group``. The *listing order* is the order of the job's pod sets: a set comes
where its first pod set comes (docs/decisions/sub-group-listing-order.md).

A job without sets is the degenerate tree (the root needs all of its pod sets), and every rule
here then reduces to sections 7-10:

- **keep** (the core): at a leaf its first ``min_available`` active tasks (listing order); at a
  set, its first ``min_sub_group`` children ordered satisfied first, then *by name* (not by
  listing order, so that the core is the same from one cycle to the next), each keeping its own
  core. At a *short* set (fewer satisfied children than it needs) that still holds for a
  semi-preemptible job (its core is exactly ``min_sub_group`` children: the satisfied ones,
  then unsatisfied ones by name); any other job keeps every child of a short set, each keeping
  its own core: a job already short keeps what it has (docs/decisions/sub-group-core.md). Children outside the core are *optional*: they go whole.
  Where the scheduler names the core (a semi-preemptible job's ``core_pods``), the named
  active tasks are the core instead, and a child with none of them below it is optional
  (docs/decisions/core-pods.md).
- **breaks** (scenario validation): a leaf is *lost* by an eviction when it loses tasks and
  ends below ``min_available``. The eviction keeps the job's shape iff every lost leaf has an
  ancestor (a set, or the job itself) that is satisfied after it: some set above it can do
  without it (docs/decisions/sub-group-validation.md).
- the shape's **elasticity**: some set needs fewer children than it has.

Every rule reads the :class:`Shape` a job's facts build once, over :func:`link`'s tree.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

TaskLike: TypeAlias = Any
"""A task of the job (a :class:`~minruntime.jobs.TaskLike`): opaque here, so that this module,
which ``minruntime.jobs`` uses to check a tree, imports nothing of the library."""

__all__ = ["LeafFacts", "Node", "Shape", "TreeError", "link", "short_sets"]

L = TypeVar("L")


class TreeError(ValueError):
    """A malformed tree; ``sub_group`` names the sub-group (set or pod set) at fault."""

    def __init__(self, message: str, sub_group: str) -> None:
        super().__init__(message)
        self.sub_group = sub_group


class Node(Generic[L]):
    """One node of a shape: a leaf (``leaf`` is its payload) or a set (``leaf`` is ``None``).

    ``need`` is what satisfies it: active tasks for a leaf, satisfied children for a set. A
    node knows its children, not its parent: a tree without reference cycles is freed the
    moment it is no longer used (a session's jobs each have one), without the collector.
    """

    __slots__ = ("children", "leaf", "name", "need")

    def __init__(self, name: str | None, need: int, leaf: L | None) -> None:
        self.name = name
        self.need = need
        self.leaf = leaf
        self.children: list[Node[L]] = []

    def __repr__(self) -> str:
        kind = "leaf" if self.leaf is not None else "set"
        return f"<{kind} {self.name!r} need={self.need} children={len(self.children)}>"


def link(
    given_leaves: Sequence[tuple[object, object, object, L]],
    given_sets: Iterable[tuple[object, object, object]],
    root_need: object,
) -> Node[L]:
    """Link pod sets (``name, parent, min_available, payload``, in listing order) and sets
    (``name, parent, min_sub_group``) into a tree; return its root (the job, name ``None``).

    Raises:
        TreeError: for two sub-groups of one name, a parent that is no set of the job, a cycle
            of parents, or a set with no children. (A ``min_sub_group`` above the number of
            children is kept: that set is never satisfied; :func:`short_sets` lists them.)
    """
    leaves = [(*_checked(entry[:3], "pod set"), entry[3]) for entry in given_leaves]
    sets = [_checked(entry, "sub-group set") for entry in given_sets]
    if root_need is not None and not _count(root_need):
        raise TreeError(
            f"min_sub_group: expected an integer >= 0 or None, got {root_need!r:.60}", ""
        )
    root_wanted = root_need if isinstance(root_need, int) else None
    nodes: dict[str, Node[L]] = {}
    parents: dict[str, str | None] = {}
    for name, parent, minimum, payload in leaves:
        if name in nodes:
            raise TreeError(f"two pod sets are named {name!r}", name)
        nodes[name] = Node(name, minimum, payload)
        parents[name] = parent
    set_needs: dict[str, int | None] = {}
    for name, parent, min_sub_group in sets:
        if name in nodes:
            what = "pod set" if nodes[name].leaf is not None else "sub-group set"
            raise TreeError(f"sub-group {name!r} has the name of a {what}", name)
        nodes[name] = Node(name, 0, None)
        parents[name] = parent
        set_needs[name] = min_sub_group
    root: Node[L] = Node(None, 0, None)
    up: dict[str, Node[L]] = {}  # each node's parent, by name (the root has none)
    for name, parent in parents.items():
        if parent is None:
            up[name] = root
            continue
        above = nodes.get(parent)
        if above is None or above.leaf is not None:
            what = (
                "is a pod set, which holds tasks, not sub-groups"
                if above
                else "is not a sub-group set of the job"
            )
            raise TreeError(f"sub-group {name!r}: its parent {parent!r} {what}", name)
        up[name] = above
    for name in set_needs:  # a parent chain that never reaches the root is a cycle
        seen = {name}
        above = up[name]
        while above is not root:
            assert above.name is not None
            if above.name in seen:
                raise TreeError(f"sub-group {name!r}: its parents form a cycle", name)
            seen.add(above.name)
            above = up[above.name]
    # children in listing order: a set comes where its first pod set comes
    for name, _, _, _ in leaves:
        node = nodes[name]
        while node is not root:
            above = up[node.name or ""]
            if node in above.children:
                break
            above.children.append(node)
            node = above
    for name, wanted in set_needs.items():
        node = nodes[name]
        if not node.children:
            raise TreeError(
                f"sub-group {name!r} has no pod set below it (a set needs children; a leaf "
                "holding tasks is a pod set)",
                name,
            )
        node.need = _need(wanted, len(node.children))
    root.need = _need(root_wanted, len(root.children))
    return root


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _checked(entry: tuple[object, object, object], what: str) -> tuple[str, str | None, Any]:
    """A (name, parent, count) of a scheduler's own objects, checked: a non-empty name, a
    parent name or ``None``, a count >= 0 (``None`` too for a set)."""
    name, parent, count = entry
    if not isinstance(name, str) or not name:
        raise TreeError(f"a {what} name: expected a non-empty string, got {name!r:.60}", "")
    if parent is not None and (not isinstance(parent, str) or not parent):
        raise TreeError(
            f"{what} {name!r} parent: expected a name or None, got {parent!r:.60}", name
        )
    if not (_count(count) or (count is None and what != "pod set")):
        field = "min_available" if what == "pod set" else "min_sub_group"
        raise TreeError(
            f"{what} {name!r} {field}: expected an integer >= 0, got {count!r:.60}", name
        )
    return name, parent, count


def _need(wanted: int | None, children: int) -> int:
    """A set's need: ``min_sub_group``, all its children when unset. A need above the number of
    children is kept as given: such a set can never be satisfied (the reference admits it with
    a warning, which is the reader's to give; docs/decisions/sub-group-reading.md)."""
    return children if wanted is None else wanted


def short_sets(root: Node[Any]) -> list[tuple[str | None, int, int]]:
    """The sets (the job itself: name ``None``) that need more satisfied children than they
    have: ``(name, need, children)``, in listing order. Such a set is never satisfied.

    >>> root = link([("a", "s", 1, None), ("b", None, 1, None)], [("s", None, 2)], None)
    >>> short_sets(root)
    [('s', 2, 1)]
    """
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        # a set has children (link refuses one without); a leaf has none, whatever its payload
        if node.children and node.need > len(node.children):
            found.append((node.name, node.need, len(node.children)))
        stack.extend(reversed(node.children))
    return found


def _name(node: Node[Any]) -> str:
    """A child's sort key in the core: its name (every node but the root has one)."""
    return node.name or ""


class LeafFacts(Protocol):
    """What a shape reads of a leaf's payload (a pod set's facts): its active tasks, in
    listing order."""

    @property
    def active(self) -> tuple[TaskLike, ...]: ...


F = TypeVar("F", bound=LeafFacts)


class Shape(Generic[F]):
    """A job's tree over its pod sets' facts, with its nodes in listing order (pre-order).

    Attributes:
        root: the job itself.
        nodes: every node, the root first, in listing order.
        pod_sets: the leaves' payloads, in listing order.
        flat: the job has no sets and needs every pod set (docs/spec/preemptibility.md to
            docs/spec/evictable-tasks.md apply as written).
        named: the task ids the scheduler names as the core (a semi-preemptible job's
            ``core_pods``), or ``None``: the core is computed.
        semi: the job is semi-preemptible: a short set's core is exactly its first
            ``min_sub_group`` children, not all of them.
    """

    __slots__ = (
        "_by_name",
        "_ranked",
        "_split",
        "_up",
        "flat",
        "named",
        "nodes",
        "pod_sets",
        "root",
        "semi",
    )

    def __init__(
        self, root: Node[F], named: Iterable[Hashable] | None = None, *, semi: bool = False
    ) -> None:
        self.root = root
        self.semi = semi
        self.named = None if named is None else frozenset(named)
        order: list[Node[F]] = []
        stack = [root]
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(reversed(node.children))
        self.nodes = order
        self.pod_sets = tuple(node.leaf for node in order if node.leaf is not None)
        self.flat = all(child.leaf is not None for child in root.children) and root.need == len(
            root.children
        )
        self._split: tuple[list[TaskLike], list[Node[F]], list[TaskLike]] | None = None
        self._up: dict[int, Node[F]] | None = None  # id(node) -> its parent, once validated
        self._by_name = False
        self._ranked: tuple[object, tuple[list[TaskLike], list[Node[F]], list[TaskLike]]] | None = (
            None
        )

    # -- satisfaction ---------------------------------------------------------------------------

    def satisfied(self, evicted: dict[str, int] | None = None) -> dict[int, bool]:
        """``id(node)`` -> satisfied, with ``evicted`` tasks per leaf name taken away first."""
        result: dict[int, bool] = {}
        for node in reversed(self.nodes):
            if node.leaf is not None:
                left = len(node.leaf.active)
                if evicted:
                    left -= evicted.get(node.name or "", 0)
                result[id(node)] = left >= node.need
            else:
                count = sum(result[id(child)] for child in node.children)
                result[id(node)] = count >= node.need
        return result

    def elastic_sets(self) -> bool:
        """Some set (the job itself included) needs fewer children than it has."""
        return any(node.leaf is None and node.need < len(node.children) for node in self.nodes)

    # -- the core ---------------------------------------------------------------------------

    def split(self) -> tuple[list[TaskLike], list[Node[F]], list[TaskLike]]:
        """The core tasks, the optional nodes (whole, listing order) and the surplus tasks (the
        active tasks of core leaves beyond their ``min_available``), each in listing order.
        Computed once per shape (a job's facts keep their shape for the session).

        The core is the named one where :attr:`named` names at least one active task of the
        job (:meth:`_named_core`), else the computed one (:meth:`_core`)."""
        if self._split is None:
            found = None if self.named is None else self._named_core(self.named)
            self._by_name = found is not None
            self._split = self._core() if found is None else found
        return self._split

    def _named_core(
        self, named: frozenset[Hashable]
    ) -> tuple[list[TaskLike], list[Node[F]], list[TaskLike]] | None:
        """The core a scheduler named: its active tasks whose ids are ``named``; a child of a
        set with none of them below it is optional; at a leaf that holds some, the others are
        surplus. ``None`` when no active task of the job is named: the list says nothing about
        what runs now (docs/decisions/core-pods.md)."""
        core: list[TaskLike] = []
        optional: list[Node[F]] = []
        surplus: list[TaskLike] = []
        holds: dict[int, bool] = {}
        for node in reversed(self.nodes):  # children before their parents
            if node.leaf is not None:
                holds[id(node)] = any(task.id in named for task in node.leaf.active)
            else:
                holds[id(node)] = any(holds[id(child)] for child in node.children)
        if not holds[id(self.root)]:
            return None

        def walk(node: Node[F]) -> None:
            for child in node.children:
                if not holds[id(child)]:
                    optional.append(child)
                elif child.leaf is not None:
                    for task in child.leaf.active:
                        (core if task.id in named else surplus).append(task)
                else:
                    walk(child)

        walk(self.root)
        return core, optional, surplus

    def split_by(
        self, order: Callable[[TaskLike], Any] | None
    ) -> tuple[list[TaskLike], list[Node[F]], list[TaskLike]]:
        """:meth:`split` where each kept pod set keeps its first ``min_available`` active tasks
        by ``order`` (a key that sorts tasks most important first), not by listing order: the
        minimum an elastic job keeps is its most important tasks, and its surplus the least
        (docs/decisions/surplus-first-order.md). Which sub-groups are optional does not depend
        on the key. Without a key, or with a core the scheduler named, :meth:`split` itself.
        A semi-preemptible job's core is fixed (its quota counts it): it reads :meth:`split`.
        """
        found = self.split()
        if order is None or self._by_name:
            return found
        if self._ranked is None or self._ranked[0] is not order:
            self._ranked = (order, self._core(order))
        return self._ranked[1]

    def _core(
        self, order: Callable[[TaskLike], Any] | None = None
    ) -> tuple[list[TaskLike], list[Node[F]], list[TaskLike]]:
        core: list[TaskLike] = []
        optional: list[Node[F]] = []
        surplus: list[TaskLike] = []

        def keep(leaf: Node[F]) -> None:  # a core leaf: its first min_available active tasks
            assert leaf.leaf is not None
            active = leaf.leaf.active
            if order is not None:
                active = tuple(sorted(active, key=order))
            core.extend(active[: leaf.need])
            surplus.extend(active[leaf.need :])

        if self.flat:  # the job needs each pod set: each keeps its own core, nothing is optional
            for leaf in self.nodes[1:]:
                keep(leaf)
            return core, optional, surplus
        satisfied = self.satisfied()
        # from the root, in listing order: each node is kept (a leaf keeps its own core, a set
        # chooses which children it keeps) or optional (whole); a loop, not a recursive
        # closure, so that nothing here is a reference cycle left for the collector
        stack: list[tuple[Node[F], bool]] = [(self.root, True)]
        while stack:
            node, is_kept = stack.pop()
            if not is_kept:
                optional.append(node)
            elif node.leaf is not None:
                keep(node)
            else:
                kept = node.children
                if self.semi or satisfied[id(node)]:
                    # the first min_sub_group children, satisfied first, then by name (a
                    # satisfied set has enough satisfied ones; a short set of a job that is not
                    # semi-preemptible keeps them all)
                    ranked = sorted(
                        node.children, key=lambda child: (not satisfied[id(child)], _name(child))
                    )
                    kept = ranked[: node.need]
                stack.extend((child, child in kept) for child in reversed(node.children))
        return core, optional, surplus

    def computed_core(self) -> list[TaskLike]:
        """The core the rules compute (listing order), whatever :attr:`named` says."""
        found = self.split()
        return self._core()[0] if self._by_name else found[0]

    def named_core(self) -> frozenset[Hashable] | None:
        """The ids of the core tasks where the scheduler named the core and the name counts
        (:meth:`split`), else ``None`` (the computed core applies)."""
        core = self.split()[0]
        return frozenset(task.id for task in core) if self._by_name else None

    def tasks_below(self, node: Node[F]) -> list[TaskLike]:
        """The active tasks of every leaf below ``node``, in listing order."""
        found: list[TaskLike] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if current.leaf is not None:
                found.extend(current.leaf.active)
            stack.extend(reversed(current.children))
        return found

    def outside_core(self) -> bool:
        """Some active task is outside the core (an optional sub-group's, or above a core
        leaf's minimum)."""
        _, optional, surplus = self.split()
        return bool(surplus) or any(self.tasks_below(node) for node in optional)

    # -- validation -------------------------------------------------------------------------

    def breaks(self, evicted: dict[str, int]) -> list[tuple[Node[F], Node[F], int]]:
        """What evicting ``evicted`` tasks per leaf breaks: for each lost leaf (one that loses
        tasks and ends below its ``min_available``) with no ancestor satisfied after the
        eviction, ``(leaf, the set to blame, its satisfied children after)``. The set to blame
        is the highest ancestor that was satisfied and no longer is, else the leaf's parent;
        the root (name ``None``) is the job itself. Empty: the job keeps its shape.
        """
        before = self.satisfied()
        after = self.satisfied(evicted)
        up = self._up
        if up is None:  # the nodes point down only (no cycle): their parents, once per shape
            up = self._up = {id(child): node for node in self.nodes for child in node.children}
        found: list[tuple[Node[F], Node[F], int]] = []
        for leaf in self.nodes:
            if leaf.leaf is None or not evicted.get(leaf.name or "") or after[id(leaf)]:
                continue
            above = up.get(id(leaf))
            blamed = above
            while above is not None and not after[id(above)]:
                if before[id(above)]:
                    blamed = above
                above = up.get(id(above))
            if above is None:  # no set above it can do without it, the job included
                assert blamed is not None
                kept = sum(after[id(child)] for child in blamed.children)
                found.append((leaf, blamed, kept))
        return found

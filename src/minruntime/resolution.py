"""Resolving the min-runtime (MR) of one (action, preemptor queue, victim queue).

Every rule resolves to the first queue-level value that is *set* (zero and never are set values
that stop the walk); if none is set, the node-pool default from :class:`~minruntime.Config`.

- **preempt**: walk up from the victim's queue on ``preempt_min_runtime``.
- **reclaim, method "queue"**: the same walk on ``reclaim_min_runtime``.
- **reclaim, method "lca"**: find the lowest common ancestor of the two queues, step one level
  down towards the victim (unless the victim's queue *is* that ancestor), and walk up from there.

The ``resolve_*`` functions are pure and walk the tree on every call: they are the rule as
written. :class:`Resolver` gives the same answers and remembers them; a
:class:`~minruntime.Session` uses one.

>>> from minruntime import Config, Queue, QueueTree
>>> tree = QueueTree([Queue("A"), Queue("B", "A", reclaim_min_runtime="600s"),
...     Queue("C", "B"), Queue("D", "B", reclaim_min_runtime="60s"),
...     Queue("leaf1", "C", reclaim_min_runtime=0), Queue("leaf2", "C", reclaim_min_runtime="180s"),
...     Queue("leaf3", "D")])
>>> print(resolve_reclaim_lca(tree, Config(), "leaf3", "leaf1"))
10m from queue 'B'
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Final

import attrs

from minruntime.checkpoints import Extensions
from minruntime.config import Config
from minruntime.durations import MinRuntime
from minruntime.queues import QueueTree, common_prefix_length

__all__ = [
    "RECLAIM_RESOLVERS",
    "Action",
    "MinRuntimeTable",
    "Resolution",
    "Resolver",
    "resolve",
    "resolve_preempt",
    "resolve_reclaim_lca",
    "resolve_reclaim_queue",
]


class Action(enum.Enum):
    """What the preemptor does to the victim.

    ``PREEMPT``: both jobs are in the same leaf queue. ``RECLAIM``: they are in different
    queues. ``Action("reclaim")`` reads the lower-case name.

    >>> Action("preempt") is Action.PREEMPT
    True
    """

    PREEMPT = "preempt"
    RECLAIM = "reclaim"

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class Resolution:
    """A resolved min-runtime and where it came from.

    Attributes:
        min_runtime: the MR.
        source: the name of the queue whose setting produced it, or ``None`` for the node-pool
            default.
        unknown_queues: queue names that are not in the tree and so forced the default.

    >>> from minruntime import MinRuntime
    >>> print(Resolution(MinRuntime("10m"), "team-a"))
    10m from queue 'team-a'
    >>> print(Resolution(MinRuntime(0), None, unknown_queues=("ghost",)))
    0s (node-pool default; queue 'ghost' is not in the tree)
    """

    min_runtime: MinRuntime
    source: str | None
    unknown_queues: tuple[str, ...] = ()

    @property
    def from_default(self) -> bool:
        """True when no queue setting applied and the node-pool default was used."""
        return self.source is None

    def __str__(self) -> str:
        if self.source is not None:
            return f"{self.min_runtime} from queue {self.source!r}"
        if self.unknown_queues:
            names = " and ".join(repr(name) for name in self.unknown_queues)
            verb = "is" if len(self.unknown_queues) == 1 else "are"
            return f"{self.min_runtime} (node-pool default; queue {names} {verb} not in the tree)"
        return f"{self.min_runtime} (node-pool default)"


_PREEMPT_FIELD: Final = "preempt_min_runtime"
_RECLAIM_FIELD: Final = "reclaim_min_runtime"


def _walk_up(tree: QueueTree, start: str, field: str, default: MinRuntime) -> Resolution:
    for name in (start, *tree.ancestors(start)):
        value: MinRuntime | None = getattr(tree[name], field)
        if value is not None:
            return Resolution(value, name)
    return Resolution(default, None)


def _unknown(tree: QueueTree, *names: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for name in names if name not in tree))


def resolve_preempt(tree: QueueTree, config: Config, victim_queue: str) -> Resolution:
    """Preempt MR: walk up from the victim's queue; the preemptor does not matter.

    >>> from minruntime import Queue, QueueTree, Config
    >>> tree = QueueTree([Queue("B", preempt_min_runtime="600s"), Queue("C", "B"),
    ...     Queue("leaf1", "C", preempt_min_runtime="300s"), Queue("leaf2", "C")])
    >>> str(resolve_preempt(tree, Config(), "leaf1")), str(resolve_preempt(tree, Config(), "leaf2"))
    ("5m from queue 'leaf1'", "10m from queue 'B'")
    """
    unknown = _unknown(tree, victim_queue)
    if unknown:
        return Resolution(config.default_preempt_min_runtime, None, unknown)
    return _walk_up(tree, victim_queue, _PREEMPT_FIELD, config.default_preempt_min_runtime)


def resolve_reclaim_queue(
    tree: QueueTree, config: Config, preemptor_queue: str, victim_queue: str
) -> Resolution:
    """Reclaim MR, method ``"queue"``: walk up from the victim's queue.

    The preemptor's queue only has to be in the tree; otherwise the default applies.

    >>> from minruntime import Queue, QueueTree, Config
    >>> tree = QueueTree([Queue("org", reclaim_min_runtime="1h"), Queue("a", "org"), Queue("b")])
    >>> print(resolve_reclaim_queue(tree, Config(), "b", "a"))
    1h from queue 'org'
    """
    unknown = _unknown(tree, preemptor_queue, victim_queue)
    if unknown:
        return Resolution(config.default_reclaim_min_runtime, None, unknown)
    return _walk_up(tree, victim_queue, _RECLAIM_FIELD, config.default_reclaim_min_runtime)


def lca_step(tree: QueueTree, preemptor_queue: str, victim_queue: str) -> str:
    """The queue the LCA rule starts its walk from.

    That is the child of the lowest common ancestor on the way to the victim, or the victim's
    queue itself when it is that ancestor (same queue, or an ancestor of the preemptor's).
    Queues in different top-level trees share the virtual root, so the step lands on the
    victim's top-level queue.

    >>> from minruntime import Queue, QueueTree
    >>> tree = QueueTree([Queue("B"), Queue("C", "B"), Queue("D", "B"), Queue("leaf3", "D")])
    >>> lca_step(tree, "C", "leaf3"), lca_step(tree, "leaf3", "B")
    ('D', 'B')
    """
    victim_path = tree.path(victim_queue)
    shared = common_prefix_length(tree.path(preemptor_queue), victim_path)
    return victim_path[shared] if shared < len(victim_path) else victim_queue


def resolve_reclaim_lca(
    tree: QueueTree, config: Config, preemptor_queue: str, victim_queue: str
) -> Resolution:
    """Reclaim MR, method ``"lca"`` (the default): step below the LCA, then walk up.

    A value set on a queue thus protects its jobs from reclaimers among its siblings' subtrees;
    reclaimers further away see the value of the ancestor just below their common ancestor.

    >>> from minruntime import Queue, QueueTree, Config
    >>> tree = QueueTree([Queue("A"), Queue("B", "A", reclaim_min_runtime="600s"),
    ...     Queue("C", "B"), Queue("D", "B", reclaim_min_runtime="60s"),
    ...     Queue("leaf1", "C", reclaim_min_runtime=0),
    ...     Queue("leaf2", "C", reclaim_min_runtime="180s"), Queue("leaf3", "D")])
    >>> [str(resolve_reclaim_lca(tree, Config(), p, v).min_runtime)
    ...  for p, v in [("leaf1", "leaf3"), ("leaf1", "leaf2"), ("leaf3", "leaf1")]]
    ['1m', '3m', '10m']
    """
    unknown = _unknown(tree, preemptor_queue, victim_queue)
    if unknown:
        return Resolution(config.default_reclaim_min_runtime, None, unknown)
    start = lca_step(tree, preemptor_queue, victim_queue)
    return _walk_up(tree, start, _RECLAIM_FIELD, config.default_reclaim_min_runtime)


ReclaimResolver = Callable[[QueueTree, Config, str, str], Resolution]

RECLAIM_RESOLVERS: Final[dict[str, ReclaimResolver]] = {
    "lca": resolve_reclaim_lca,
    "queue": resolve_reclaim_queue,
}
"""The reclaim resolution rules, by the name ``Config.reclaim_resolve_method`` uses."""


def resolve(
    tree: QueueTree,
    config: Config,
    action: Action | str,
    preemptor_queue: str,
    victim_queue: str,
) -> Resolution:
    """Resolve the MR of one action with the configured reclaim method (uncached).

    >>> from minruntime import Queue, QueueTree, Config
    >>> tree = QueueTree([Queue("a", preempt_min_runtime="1m", reclaim_min_runtime="2m")])
    >>> str(resolve(tree, Config(), Action.RECLAIM, "a", "a").min_runtime)
    '2m'
    """
    if Action(action) is Action.PREEMPT:
        return resolve_preempt(tree, config, victim_queue)
    method = RECLAIM_RESOLVERS[config.reclaim_resolve_method]
    return method(tree, config, preemptor_queue, victim_queue)


class MinRuntimeTable(dict[tuple[str, str], MinRuntime]):
    """(preemptor queue, victim queue) -> min-runtime for one action; fills itself on first use.

    A plain ``dict`` underneath, so a lookup of a pair seen before costs exactly a dict lookup.
    Get one from :meth:`Session.min_runtime_table <minruntime.Session.min_runtime_table>`.

    >>> from minruntime import Config, Queue, QueueTree
    >>> table = Resolver(QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b")]),
    ...                  Config()).table(Action.RECLAIM)
    >>> table[("b", "a")], len(table)
    (MinRuntime('1h'), 1)
    """

    __slots__ = ("_resolve",)

    def __init__(self, resolve: Callable[[str, str], Resolution]) -> None:
        super().__init__()
        self._resolve = resolve

    def __missing__(self, key: tuple[str, str]) -> MinRuntime:
        value = self[key] = self._resolve(*key).min_runtime
        return value


class Resolver:
    """The resolution rules with memory: the answers of ``resolve``, each computed once.

    It remembers, per queue, the result of the walk up on each field (so a walk stops at the
    first queue already walked from) and, per (preemptor queue, victim queue), the reclaim
    result. A :class:`~minruntime.Session` owns one; it lives as long as its tree and config.

    >>> from minruntime import Queue, QueueTree, Config
    >>> resolver = Resolver(QueueTree([Queue("a", reclaim_min_runtime="2m"), Queue("b", "a")]),
    ...                     Config())
    >>> print(resolver.reclaim("a", "b"))
    2m from queue 'a'
    >>> resolver.reclaim("a", "b") is resolver.reclaim("a", "b"), resolver.misses
    (True, 1)
    """

    __slots__ = (
        "_config",
        "_extensions",
        "_pairs",
        "_preempt",
        "_reclaim_walk",
        "_settings",
        "_tree",
        "known_reclaim",
        "misses",
    )

    def __init__(self, tree: QueueTree, config: Config) -> None:
        self._tree = tree
        self._config = config
        self._preempt: dict[str, Resolution] = {}
        self._reclaim_walk: dict[str, Resolution] = {}
        self._pairs: dict[tuple[str, str], Resolution] = {}
        self.known_reclaim: Callable[[tuple[str, str]], Resolution | None] = self._pairs.get
        """The reclaim resolution of a (preemptor queue, victim queue) pair already resolved,
        else ``None``: a plain dict lookup, for callers on a hot path."""
        self._settings: dict[str, dict[str, tuple[object, str | None]]] = {}
        self._extensions: dict[tuple[Action, str, str], Extensions] = {}
        self.misses = 0
        """How many results were computed rather than remembered."""

    def _walk(
        self, memo: dict[str, Resolution], start: str, field: str, default: MinRuntime
    ) -> Resolution:
        known = memo.get(start)
        if known is None:
            value, source = self.setting(field, start, default)
            known = memo[start] = Resolution(value, source)  # type: ignore[arg-type]
        return known

    def preempt(self, victim_queue: str) -> Resolution:
        """The preempt MR of a victim in ``victim_queue``."""
        known = self._preempt.get(victim_queue)
        if known is not None:
            return known
        self.misses += 1
        default = self._config.default_preempt_min_runtime
        if victim_queue not in self._tree:
            result = Resolution(default, None, (victim_queue,))
            self._preempt[victim_queue] = result
            return result
        return self._walk(self._preempt, victim_queue, _PREEMPT_FIELD, default)

    def reclaim(self, preemptor_queue: str, victim_queue: str) -> Resolution:
        """The reclaim MR for a preemptor in ``preemptor_queue`` and a victim in ``victim_queue``."""
        key = (preemptor_queue, victim_queue)
        known = self._pairs.get(key)
        if known is not None:
            return known
        self.misses += 1
        tree = self._tree
        config = self._config
        if preemptor_queue in tree and victim_queue in tree:
            if config.reclaim_resolve_method == "lca":
                start = lca_step(tree, preemptor_queue, victim_queue)
            else:
                start = victim_queue
            result = self._reclaim_walk.get(start)
            if result is None:
                result = self._walk(
                    self._reclaim_walk, start, _RECLAIM_FIELD, config.default_reclaim_min_runtime
                )
        else:
            unknown = _unknown(tree, preemptor_queue, victim_queue)
            result = Resolution(config.default_reclaim_min_runtime, None, unknown)
        self._pairs[key] = result
        return result

    def setting(self, field: str, start: str, default: object) -> tuple[object, str | None]:
        """Walk up from ``start`` for the first queue that sets ``field``: (value, queue).

        ``(default, None)`` when no queue on the way sets it. Remembered per field and queue.
        """
        memo = self._settings.setdefault(field, {})
        known = memo.get(start)
        if known is not None:
            return known
        tree = self._tree
        trail: list[str] = []
        node: str | None = start
        found: tuple[object, str | None] = (default, None)
        while node is not None:
            if node in memo:
                found = memo[node]
                break
            value = getattr(tree[node], field)
            if value is not None:
                found = (value, node)
                break
            trail.append(node)
            node = tree.parent(node)
        for name in trail:
            memo[name] = found
        return found

    def extensions(self, action: Action, preemptor_queue: str, victim_queue: str) -> Extensions:
        """The checkpoint-aware settings (BEHAVIOR.md section 16) for one victim queue.

        The grace is resolved exactly like the min-runtime of ``action`` (for reclaim, by the
        configured method); the eviction budget and the request cap walk up from the victim's
        queue. A queue not in the tree gets the node-pool defaults.

        >>> from minruntime import Config, Queue, QueueTree
        >>> resolver = Resolver(QueueTree([Queue("org", max_evictions=2), Queue("a", "org")]),
        ...                     Config(default_reclaim_checkpoint_grace="5m"))
        >>> settings = resolver.extensions(Action.RECLAIM, "org", "a")
        >>> settings.max_evictions, settings.budget_source, str(settings.grace)
        (2, 'org', '5m')
        """
        key = (action, "" if action is Action.PREEMPT else preemptor_queue, victim_queue)
        known = self._extensions.get(key)
        if known is not None:
            return known
        config = self._config
        tree = self._tree
        if victim_queue not in tree:
            if action is Action.PREEMPT:
                grace = config.default_preempt_checkpoint_grace
            else:
                grace = config.default_reclaim_checkpoint_grace
            result = Extensions(
                grace=grace,
                max_evictions=config.default_max_evictions,
                eviction_window=config.default_eviction_window,
                max_job_min_runtime=config.default_max_job_min_runtime,
            )
        else:
            if action is Action.PREEMPT:
                grace_value, grace_source = self.setting(
                    "preempt_checkpoint_grace",
                    victim_queue,
                    config.default_preempt_checkpoint_grace,
                )
            elif preemptor_queue not in tree:
                grace_value, grace_source = config.default_reclaim_checkpoint_grace, None
            else:
                start = (
                    lca_step(tree, preemptor_queue, victim_queue)
                    if config.reclaim_resolve_method == "lca"
                    else victim_queue
                )
                grace_value, grace_source = self.setting(
                    "reclaim_checkpoint_grace", start, config.default_reclaim_checkpoint_grace
                )
            budget, budget_source = self.setting(
                "max_evictions", victim_queue, config.default_max_evictions
            )
            window, _ = self.setting(
                "eviction_window", victim_queue, config.default_eviction_window
            )
            cap, cap_source = self.setting(
                "max_job_min_runtime", victim_queue, config.default_max_job_min_runtime
            )
            result = Extensions(
                grace=grace_value,  # type: ignore[arg-type]
                max_evictions=budget,  # type: ignore[arg-type]
                eviction_window=window,  # type: ignore[arg-type]
                max_job_min_runtime=cap,  # type: ignore[arg-type]
                grace_source=grace_source,
                budget_source=budget_source,
                cap_source=cap_source,
            )
        self._extensions[key] = result
        return result

    def table(self, action: Action | str) -> MinRuntimeTable:
        """A self-filling ``dict`` of (preemptor queue, victim queue) -> MR for ``action``."""
        if Action(action) is Action.PREEMPT:
            return MinRuntimeTable(lambda preemptor_queue, victim_queue: self.preempt(victim_queue))
        return MinRuntimeTable(self.reclaim)

    def resolve(self, action: Action | str, preemptor_queue: str, victim_queue: str) -> Resolution:
        """The MR of ``action``, as :func:`resolve` gives it, remembered."""
        if Action(action) is Action.PREEMPT:
            return self.preempt(victim_queue)
        return self.reclaim(preemptor_queue, victim_queue)

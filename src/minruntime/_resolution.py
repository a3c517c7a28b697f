"""Resolution: which queue setting applies to a victim (docs/spec/resolution.md, and
docs/spec/beyond-min-runtime.md).

One walker for every per-queue setting. A setting resolves to the first queue, walking up from
a *start queue*, on which it is set (zero and never are set values that stop the walk); if none
is set, the node-pool default. The start queue is the only thing the rules differ in:

- **preempt**: the victim's queue (the preemptor does not matter);
- **reclaim, method "queue"**: the victim's queue;
- **reclaim, method "lca"** (default): the child of the lowest common ancestor of the two queues
  on the way to the victim, or the victim's queue itself when it is that ancestor. Queues in two
  top-level trees share the virtual root: the start is the victim's top-level queue.

The min-runtime of an action and its checkpoint grace start where the action's rule says; the
eviction budget and the cap on a job's request always walk up from the victim's queue. A queue
that is not in the tree gets the node-pool default, and the resolution names it.

>>> from minruntime import Config, Queue, QueueTree, Action
>>> tree = QueueTree([Queue("A"), Queue("B", "A", reclaim_min_runtime="600s"),
...     Queue("C", "B"), Queue("D", "B", reclaim_min_runtime="60s"),
...     Queue("leaf1", "C", reclaim_min_runtime=0), Queue("leaf2", "C", reclaim_min_runtime="180s"),
...     Queue("leaf3", "D")])
>>> resolver = Resolver(tree, Config())
>>> [str(resolver.resolve(Action.RECLAIM, p, v).min_runtime)
...  for p, v in [("leaf1", "leaf3"), ("leaf1", "leaf2"), ("leaf3", "leaf1")]]
['1m', '3m', '10m']
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any, Final

from minruntime._protection import Settings
from minruntime.config import Config
from minruntime.decisions import Action, Resolution
from minruntime.durations import MinRuntime
from minruntime.queues import QueueTree

__all__ = ["START_QUEUE", "Resolver", "Setting", "below_shared", "lca_step", "resolve"]


class Setting(enum.Enum):
    """A per-queue setting that resolves by walking up the tree."""

    PREEMPT_MIN_RUNTIME = "preempt_min_runtime"
    RECLAIM_MIN_RUNTIME = "reclaim_min_runtime"
    PREEMPT_CHECKPOINT_GRACE = "preempt_checkpoint_grace"
    RECLAIM_CHECKPOINT_GRACE = "reclaim_checkpoint_grace"
    MAX_EVICTIONS = "max_evictions"
    EVICTION_WINDOW = "eviction_window"
    MAX_JOB_MIN_RUNTIME = "max_job_min_runtime"


def _default(config: Config, setting: Setting) -> object:
    if setting is Setting.PREEMPT_MIN_RUNTIME:
        return config.default_preempt_min_runtime
    if setting is Setting.RECLAIM_MIN_RUNTIME:
        return config.default_reclaim_min_runtime
    return config.protection_default(setting.value)


_MIN_RUNTIME: Final = {
    Action.PREEMPT: Setting.PREEMPT_MIN_RUNTIME,
    Action.RECLAIM: Setting.RECLAIM_MIN_RUNTIME,
}
_GRACE: Final = {
    Action.PREEMPT: Setting.PREEMPT_CHECKPOINT_GRACE,
    Action.RECLAIM: Setting.RECLAIM_CHECKPOINT_GRACE,
}


def lca_step(tree: QueueTree, preemptor_queue: str, victim_queue: str) -> str:
    """The start queue of the LCA rule: the child of the lowest common ancestor on the way to
    the victim, or the victim's queue itself when it is that ancestor.

    >>> from minruntime import Queue, QueueTree
    >>> tree = QueueTree([Queue("B"), Queue("C", "B"), Queue("D", "B"), Queue("leaf3", "D")])
    >>> lca_step(tree, "C", "leaf3"), lca_step(tree, "leaf3", "B"), lca_step(tree, "C", "C")
    ('D', 'B', 'C')
    """
    victim_path = tree.path(victim_queue)
    if victim_path[0] != tree.path(preemptor_queue)[0]:
        return victim_path[0]  # the common ancestor is the virtual root: one comparison
    return below_shared(victim_path, tree.shared_depth(preemptor_queue, victim_queue))


def below_shared(victim_path: tuple[str, ...], shared: int) -> str:
    """The LCA rule's start queue from the victim's path and the depth it shares with the
    preemptor's: the queue just below the shared part, or the victim's queue when its whole path
    is shared (the victim's queue is the common ancestor).

    >>> below_shared(("B", "D", "leaf3"), 1), below_shared(("B",), 1)
    ('D', 'B')
    """
    return victim_path[shared] if shared < len(victim_path) else victim_path[-1]


def _victim_queue(tree: QueueTree, preemptor_queue: str, victim_queue: str) -> str:
    """The start queue of the "queue" method: the victim's queue.

    >>> from minruntime import Queue, QueueTree
    >>> _victim_queue(QueueTree([Queue("a"), Queue("b")]), "a", "b")
    'b'
    """
    return victim_queue


START_QUEUE: Final[dict[str, Callable[[QueueTree, str, str], str]]] = {
    "lca": lca_step,
    "queue": _victim_queue,
}
"""The reclaim resolve methods by the name ``Config.reclaim_resolve_method`` uses: each is the
rule that picks the queue the walk up starts from. A new method is one function here."""


class Resolver:
    """The resolution rules for one tree and config, each answer computed once.

    What does not depend on the pair is the tree's: each queue's path, and per setting what each
    queue inherits (:meth:`QueueTree.inherited <minruntime.QueueTree.inherited>`), computed once
    per tree and shared by every resolver on it. A pair then resolves in a few reads: its start
    queue (for the LCA rule, two paths compared), the setting inherited there, or the node-pool
    default. The resolver remembers per (action, preemptor queue, victim queue) the
    resolution, and keeps one :class:`~minruntime.Resolution` per start queue. A
    :class:`~minruntime.Session` owns one; :meth:`Session.at <minruntime.Session.at>` shares it.

    Threads may share a resolver: what it remembers is computed whole and then stored, so that
    a thread reads either nothing or a complete answer (two threads may both compute one; the
    answers are equal). It counts nothing itself: :meth:`lookup` says whether it computed an
    answer, and the caller adds that to its own counts.

    >>> from minruntime import Queue, QueueTree, Config, Action
    >>> resolver = Resolver(QueueTree([Queue("a", reclaim_min_runtime="2m"), Queue("b", "a")]),
    ...                     Config())
    >>> print(resolver.resolve(Action.RECLAIM, "a", "b"))
    2m from queue 'a'
    >>> resolver.resolve(Action.RECLAIM, "a", "b") is resolver.resolve(Action.RECLAIM, "a", "b")
    True
    """

    __slots__ = (
        "_by_start",
        "_defaults",
        "_names",
        "_pairs",
        "_protections",
        "_settings",
        "_start",
        "_tables",
        "config",
        "tree",
    )

    def __init__(self, tree: QueueTree, config: Config) -> None:
        self.tree = tree
        self.config = config
        self._tables: dict[Setting, Mapping[str, tuple[Any, str]]] = {}
        self._defaults: dict[Setting, tuple[Any, None]] = {}
        self._start = START_QUEUE[config.reclaim_resolve_method]
        self._pairs: dict[tuple[Action, str, str], Resolution] = {}
        self._by_start: dict[Action, dict[str, Resolution]] = {
            Action.PREEMPT: {},
            Action.RECLAIM: {},
        }
        self._names = tree.names()
        self._settings: dict[tuple[Action, str, str], Settings] = {}
        self._protections: bool | None = None

    @property
    def has_protections(self) -> bool:
        """Whether any queue or the node-pool defaults turn a section 16 protection on."""
        found = self._protections
        if found is None:
            found = self._protections = self.tree.has_protections or self.config.has_protections
        return found

    def _default_of(self, setting: Setting) -> tuple[Any, None]:
        """``(the node-pool default of setting, None)``, read from the config once."""
        found = self._defaults.get(setting)
        if found is None:
            found = self._defaults[setting] = (_default(self.config, setting), None)
        return found

    # -- the walker -----------------------------------------------------------------------------

    def walk(self, setting: Setting, start: str) -> tuple[Any, str | None]:
        """Walk up from ``start`` to the first queue that sets ``setting``: (value, queue).

        ``(default, None)`` when no queue on the way sets it. ``start`` must be in the tree.
        One lookup in the tree's table of what each queue inherits.
        """
        table = self._tables.get(setting)
        if table is None:
            table = self._tables[setting] = self.tree.inherited(setting.value)
        found = table.get(start)
        return self._default_of(setting) if found is None else found

    def start_queue(self, action: Action, preemptor_queue: str, victim_queue: str) -> str:
        """Where the min-runtime (and the grace) of ``action`` starts its walk; both queues are
        in the tree."""
        if action is Action.PREEMPT:
            return victim_queue
        return self._start(self.tree, preemptor_queue, victim_queue)

    def unknown(self, action: Action, preemptor_queue: str, victim_queue: str) -> tuple[str, ...]:
        """The queues of the two that are not in the tree (preempt looks at the victim's only)."""
        tree = self.tree
        names = (victim_queue,) if action is Action.PREEMPT else (preemptor_queue, victim_queue)
        return tuple(dict.fromkeys(name for name in names if name not in tree))

    # -- min-runtime ----------------------------------------------------------------------------

    def resolve(self, action: Action, preemptor_queue: str, victim_queue: str) -> Resolution:
        """The MR of ``action`` for a victim in ``victim_queue``, and where it came from."""
        key = (action, "" if action is Action.PREEMPT else preemptor_queue, victim_queue)
        known = self._pairs.get(key)
        return self._compute(key) if known is None else known

    def lookup(
        self, action: Action, preemptor_queue: str, victim_queue: str
    ) -> tuple[Resolution, bool]:
        """:meth:`resolve`, and whether this call computed the answer rather than remembered it
        (what a session's statistics count as a cache miss).

        >>> from minruntime import Queue, QueueTree, Config, Action
        >>> resolver = Resolver(QueueTree([Queue("a")]), Config())
        >>> [resolver.lookup(Action.PREEMPT, "a", "a")[1] for _ in range(2)]
        [True, False]
        """
        key = (action, "" if action is Action.PREEMPT else preemptor_queue, victim_queue)
        known = self._pairs.get(key)
        return (self._compute(key), True) if known is None else (known, False)

    def _compute(self, key: tuple[Action, str, str]) -> Resolution:
        """Resolve a pair the resolver has not remembered, and remember it."""
        action, preemptor_queue, victim_queue = key
        names = self._names
        if victim_queue in names and (action is Action.PREEMPT or preemptor_queue in names):
            start = (
                victim_queue
                if action is Action.PREEMPT
                else self._start(self.tree, preemptor_queue, victim_queue)
            )
            # one value per start queue: the pairs that share a start share it
            by_start = self._by_start[action]
            result = by_start.get(start)
            if result is None:
                result = by_start[start] = Resolution(*self.walk(_MIN_RUNTIME[action], start))
        else:
            unknown = self.unknown(action, preemptor_queue, victim_queue)
            result = Resolution(self._default_of(_MIN_RUNTIME[action])[0], None, unknown)
        self._pairs[key] = result
        return result

    def from_start(self, action: Action, start: str) -> MinRuntime:
        """The MR of ``action`` whose walk starts at ``start`` (a queue in the tree): the value a
        whole group of victims shares, whatever their own queues below it."""
        value: MinRuntime = self.walk(_MIN_RUNTIME[action], start)[0]
        return value

    # -- section 16 -----------------------------------------------------------------------------

    def settings(self, action: Action, preemptor_queue: str, victim_queue: str) -> Settings:
        """The section 16 settings for a victim in ``victim_queue``.

        The grace starts where the min-runtime of ``action`` starts; the eviction budget and the
        cap on a job's request walk up from the victim's queue. A queue not in the tree gets the
        node-pool defaults.
        """
        key = (action, "" if action is Action.PREEMPT else preemptor_queue, victim_queue)
        known = self._settings.get(key)
        if known is not None:
            return known
        config = self.config
        grace_setting = _GRACE[action]
        if victim_queue not in self.tree:
            result = Settings(
                grace=_default(config, grace_setting),  # type: ignore[arg-type]
                max_evictions=_default(config, Setting.MAX_EVICTIONS),  # type: ignore[arg-type]
                eviction_window=_default(config, Setting.EVICTION_WINDOW),  # type: ignore[arg-type]
                max_job_min_runtime=_default(config, Setting.MAX_JOB_MIN_RUNTIME),  # type: ignore[arg-type]
            )
        else:
            grace: Any
            if self.unknown(action, preemptor_queue, victim_queue):
                grace, grace_source = _default(config, grace_setting), None
            else:
                start = self.start_queue(action, preemptor_queue, victim_queue)
                grace, grace_source = self.walk(grace_setting, start)
            budget, budget_source = self.walk(Setting.MAX_EVICTIONS, victim_queue)
            window, _ = self.walk(Setting.EVICTION_WINDOW, victim_queue)
            cap, cap_source = self.walk(Setting.MAX_JOB_MIN_RUNTIME, victim_queue)
            result = Settings(
                grace=grace,
                max_evictions=budget,
                eviction_window=window,
                max_job_min_runtime=cap,
                grace_source=grace_source,
                budget_source=budget_source,
                cap_source=cap_source,
            )
        self._settings[key] = result
        return result


def resolve(
    tree: QueueTree, config: Config, action: Action | str, preemptor_queue: str, victim_queue: str
) -> Resolution:
    """One resolution with a fresh :class:`Resolver` (a convenience for tests and tools).

    >>> from minruntime import Queue, QueueTree, Config
    >>> tree = QueueTree([Queue("a", preempt_min_runtime="1m", reclaim_min_runtime="2m")])
    >>> str(resolve(tree, Config(), "reclaim", "a", "a").min_runtime)
    '2m'
    """
    return Resolver(tree, config).resolve(Action(action), preemptor_queue, victim_queue)

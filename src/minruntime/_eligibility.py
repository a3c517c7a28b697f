"""Eligibility (docs/spec/filters.md): may this victim, or part of it, be evicted at all.

First the preemptor: one within its preemption delay
(docs/spec/preemption-delay.md, :mod:`minruntime._protection`) takes no victim
(``PREEMPTOR_DELAYED``, :func:`preemptor_refusal`). Then the fundamentals, in order, the first that
fails names the reason: not the preemptor itself (``SAME_JOB``); then what depends on the two queues
alone (:func:`queue_refusal`): a queue in the tree (``UNKNOWN_VICTIM_QUEUE``), for preempt the
preemptor's queue (``DIFFERENT_QUEUE``), for reclaim another queue (``SAME_QUEUE``); for preempt
strictly lower priority (``NOT_LOWER_PRIORITY``); then what depends on the victim alone (its
``barrier``: non-preemptible, no active task, semi-preemptible with nothing above its core). Then
the protection rule of :mod:`minruntime._protection`: ``NEVER`` for a never MR; ``DEFERRED`` for a
semi-preemptible victim, and for an elastic one that is protected (only tasks above its minimum may
go, which validation checks); ``PROTECTED``, ``EVICTION_BUDGET`` or ``CHECKPOINT_GRACE`` for any
other protected victim; else ``ELIGIBLE``. The reasons that let a victim go are
:data:`~minruntime.decisions.ALLOWED`.

Victims in one queue share their min-runtime and settings for a given preemptor: a
:class:`Group` holds them and the protection rule's threshold, evaluated once per victim queue.
Where a section 16 protection is on for a queue, its victims are judged one by one by the full
rule (:func:`protection_of`).

The engine receives what it needs (the facts, a resolver, ``now`` in nanoseconds) and returns
its answers with what it counted (:class:`Judgement`); it never calls back into the facade.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Final, NamedTuple, Protocol

from minruntime._facts import ELASTIC, SEMI, FactsTable, JobFacts
from minruntime._protection import (
    FOREVER_NS,
    NO_INPUTS,
    NO_SETTINGS,
    Protection,
    Settings,
    free_before,
    is_held,
    protection,
)
from minruntime.decisions import ALLOWED, Action, ProtectionKind, Reason, Resolution
from minruntime.durations import MinRuntime

__all__ = [
    "ALLOWED",
    "Group",
    "Groups",
    "Judgement",
    "Resolves",
    "judge",
    "kept_refusal",
    "min_runtime_filter",
    "preemptor_refusal",
    "protection_of",
    "queue_refusal",
]

REASON_OF: Final = {
    ProtectionKind.NEVER: Reason.NEVER,
    ProtectionKind.MIN_RUNTIME: Reason.PROTECTED,
    ProtectionKind.JOB_REQUEST: Reason.PROTECTED,
    ProtectionKind.EVICTION_BUDGET: Reason.EVICTION_BUDGET,
    ProtectionKind.CHECKPOINT_GRACE: Reason.CHECKPOINT_GRACE,
}
"""The reason of a victim that is not elastic or semi-preemptible, by what protects it."""


class Resolves(Protocol):
    """What the rule asks of a resolver (:class:`~minruntime._resolution.Resolver`)."""

    @property
    def has_protections(self) -> bool:
        """Whether any section 16 setting is set anywhere (else the settings are all off)."""

    def resolve(self, action: Action, preemptor_queue: str, victim_queue: str) -> Resolution:
        """The MR of ``action`` for a victim in ``victim_queue``."""

    def lookup(
        self, action: Action, preemptor_queue: str, victim_queue: str
    ) -> tuple[Resolution, bool]:
        """:meth:`resolve`, and whether this call computed the answer."""

    def settings(self, action: Action, preemptor_queue: str, victim_queue: str) -> Settings:
        """The section 16 settings for a victim in ``victim_queue``."""


def preemptor_refusal(preemptor: JobFacts, now_ns: int) -> Reason | None:
    """The preemptor's own rule: ``PREEMPTOR_DELAYED`` while it is within its preemption delay
    (:func:`~minruntime._protection.is_held`), else ``None``."""
    return Reason.PREEMPTOR_DELAYED if is_held(preemptor.held_until_ns(), now_ns) else None


def queue_refusal(
    action: Action, preemptor_queue: str, victim_queue: str, known: object
) -> Reason | None:
    """The fundamentals that depend on the two queues alone, in order, or ``None``.

    A victim queue not in the tree (``known``, where ``in`` says whether a queue is known);
    for preempt, another queue than the preemptor's; for reclaim, the preemptor's queue.

    >>> queue_refusal(Action.RECLAIM, "a", "a", {"a"}), queue_refusal(Action.PREEMPT, "a", "a", {"a"})
    (<Reason.SAME_QUEUE: 'same-queue'>, None)
    """
    if victim_queue not in known:  # type: ignore[operator]
        return Reason.UNKNOWN_VICTIM_QUEUE
    if action is Action.PREEMPT:
        return None if victim_queue == preemptor_queue else Reason.DIFFERENT_QUEUE
    return Reason.SAME_QUEUE if victim_queue == preemptor_queue else None


def protection_of(
    victim: JobFacts, min_runtime: MinRuntime, settings: Settings, now_ns: int
) -> Protection:
    """The protection rule for one victim: its start and, where ``settings`` turn a section 16
    protection on, its inputs (read only then)."""
    inputs = NO_INPUTS if settings is NO_SETTINGS else victim.inputs()
    return protection(min_runtime, victim.start_ns, inputs, settings, now_ns)


class Group:
    """What one victim queue shares for one (action, preemptor queue): its min-runtime, the
    section 16 settings, and the rule evaluated once: ``threshold`` (the latest start that is
    free, see :func:`~minruntime._protection.free_before`), ``never``, or ``by_victim`` when a
    section 16 protection is on and each victim needs the whole rule."""

    __slots__ = ("by_victim", "min_runtime", "never", "plain", "settings", "threshold")

    def __init__(self, min_runtime: MinRuntime, settings: Settings, now_ns: int) -> None:
        self.min_runtime = min_runtime
        self.settings = settings
        self.never = min_runtime.is_never
        self.by_victim = not self.never and not settings.off
        self.plain = not self.never and not self.by_victim
        """The threshold decides (not never, no section 16 protection on)."""
        threshold = free_before(min_runtime, now_ns)
        self.threshold: int = -FOREVER_NS if threshold is None else threshold


class Groups:
    """The :class:`Group` of each (action, preemptor queue, victim queue), kept for a session's
    life: one per distinct (min-runtime, settings), which every victim queue that resolves to
    them shares. Filled on use; each entry is built whole and then published, so that threads
    may share it."""

    __slots__ = ("_made", "_now_ns", "_shared", "resolver")

    def __init__(self, resolver: Resolves, now_ns: int) -> None:
        self.resolver = resolver
        self._now_ns = now_ns
        self._shared: dict[tuple[Action, str, str], Group] = {}
        self._made: dict[tuple[MinRuntime, Settings], Group] = {}

    def settings(self, action: Action, preemptor_queue: str, victim_queue: str) -> Settings:
        """The section 16 settings of a victim queue (:data:`NO_SETTINGS` when nothing in the
        tree or the configuration turns one on)."""
        resolver = self.resolver
        if not resolver.has_protections:
            return NO_SETTINGS
        return resolver.settings(action, preemptor_queue, victim_queue)

    def of(self, min_runtime: MinRuntime, settings: Settings) -> Group:
        """The one group of a (min-runtime, settings)."""
        key = (min_runtime, settings)
        group = self._made.get(key)
        if group is None:
            group = self._made.setdefault(key, Group(min_runtime, settings, self._now_ns))
        return group

    def get(self, action: Action, preemptor_queue: str, victim_queue: str) -> tuple[Group, bool]:
        """The group of a victim queue, and whether the resolver computed its resolution for
        this call (what the statistics count as a miss). The resolver is asked only the first
        time; it would remember the answer too, so the count is the same."""
        key = (action, "" if action is Action.PREEMPT else preemptor_queue, victim_queue)
        group = self._shared.get(key)
        if group is not None:
            return group, False
        resolution, computed = self.resolver.lookup(action, preemptor_queue, victim_queue)
        group = self.of(
            resolution.min_runtime, self.settings(action, preemptor_queue, victim_queue)
        )
        self._shared[key] = group
        return group, computed


class Judgement(NamedTuple):
    """The reason of each victim, in input order, and what judging them counted."""

    reasons: list[Reason]
    """One reason per victim."""
    lookups: int
    """Resolutions asked (one per victim queue the rule reached)."""
    misses: int
    """Of those, how many the resolver computed rather than remembered."""
    protections: dict[ProtectionKind, int]
    """Decisions a section 16 protection made, by kind (a job's own request, a budget, a
    grace), elastic victims they held to their minimum included."""


_OPEN: Final = object()


def judge(
    action: Action,
    preemptor: JobFacts,
    table: FactsTable,
    rows: Iterable[int],
    groups: Groups,
    known_queues: object,
    now_ns: int,
    *,
    ignore_delay: bool = False,
) -> Judgement:
    """The reason of each victim's decision, in input order: the one rule of eligibility.

    Args:
        action: preempt or reclaim.
        preemptor: the preemptor's facts.
        table: the victims' facts.
        rows: the victims' rows of ``table``.
        groups: the session's groups (and its resolver).
        known_queues: the queue tree (``in`` says whether a queue is known).
        now_ns: the instant, in nanoseconds.
        ignore_delay: judge as if the preemptor were not within its preemption delay (for the
            retry timer, which needs both).
    """
    if not ignore_delay and (held := preemptor_refusal(preemptor, now_ns)) is not None:
        return Judgement([held for _ in rows], 0, 0, {})
    reasons: list[Reason] = []
    append = reasons.append
    # per victim queue: its refusal (a Reason), _OPEN until a victim reaches the protection
    # rule, then its Group
    seen: dict[str, Reason | Group | object] = {}
    protections: dict[ProtectionKind, int] = {}
    lookups = misses = 0
    pre_id = preemptor.id
    pre_queue = preemptor.queue
    pre_priority = preemptor.priority
    preempt = action is Action.PREEMPT
    open_, reason_class, semi, elastic = _OPEN, Reason, SEMI, ELASTIC
    same_job, lower, never = Reason.SAME_JOB, Reason.NOT_LOWER_PRIORITY, Reason.NEVER
    eligible, deferred, protected = Reason.ELIGIBLE, Reason.DEFERRED, Reason.PROTECTED
    ids, queues, priorities = table.ids, table.queues, table.priorities
    starts, barriers, all_flags = table.starts, table.barriers, table.flags
    for row in rows:
        queue = queues[row]
        entry = seen.get(queue)
        if entry is None:
            refusal = queue_refusal(action, pre_queue, queue, known_queues)
            entry = seen[queue] = open_ if refusal is None else refusal
        if ids[row] == pre_id:
            append(same_job)
        elif entry.__class__ is reason_class:  # the queue's refusal
            append(entry)
        elif preempt and priorities[row] >= pre_priority:
            append(lower)
        elif (barrier := barriers[row]) is not None:
            append(barrier)
        else:
            if entry is open_:
                entry, computed = groups.get(action, pre_queue, queue)
                seen[queue] = entry
                lookups += 1
                misses += computed
            group: Group = entry  # type: ignore[assignment]
            flags = all_flags[row]
            if group.plain:
                if flags & semi:  # its core is kept whatever protects it
                    append(deferred)
                # the protection rule, evaluated once for the group: free iff start <= threshold
                elif (start := starts[row]) is not None and start > group.threshold:
                    append(deferred if flags & elastic else protected)
                else:
                    append(eligible)
            elif group.never:
                append(never)
            elif flags & semi:
                append(deferred)
            else:  # by victim: a section 16 protection is on for the group
                kind = protection_of(
                    table.view(row), group.min_runtime, group.settings, now_ns
                ).kind
                if kind is None:
                    append(eligible)
                else:
                    if kind is not ProtectionKind.MIN_RUNTIME:
                        protections[kind] = protections.get(kind, 0) + 1
                    append(deferred if flags & elastic else REASON_OF[kind])
    return Judgement(reasons, lookups, misses, protections)


_AFTER_BARRIER: Final = frozenset(
    {
        Reason.NEVER,
        Reason.PROTECTED,
        Reason.EVICTION_BUDGET,
        Reason.CHECKPOINT_GRACE,
        Reason.DEFERRED,
        Reason.ELIGIBLE,
    }
)
"""The reasons the rule reaches only past the victim's barrier (its own fundamentals)."""


def kept_refusal(reason: Reason, victim: JobFacts, claimed: frozenset[Hashable]) -> Reason | None:
    """The victim's barrier judged on what it keeps once ``claimed`` tasks (ids) are gone, where
    the rule reached the barrier (``reason`` past it): ``NO_ACTIVE_TASK`` when every active task
    is claimed, ``NON_PREEMPTIBLE`` for a semi-preemptible victim with nothing left outside its
    core; else ``None`` (the reason stands)."""
    if reason not in _AFTER_BARRIER:
        return None
    active = victim.active_tasks()
    if all(task.id in claimed for task in active):
        return Reason.NO_ACTIVE_TASK
    if victim.semi:
        core = {id(task) for task in victim.core_tasks()}
        if all(task.id in claimed for task in active if id(task) not in core):
            return Reason.NON_PREEMPTIBLE
    return None


def min_runtime_filter(
    victim: JobFacts, min_runtime: MinRuntime, settings: Settings, now_ns: int
) -> bool:
    """The reference plugin's hook: may the victim be considered, as far as its protection goes?

    False for a never MR (elastic or not); true for elastic and semi-preemptible victims (left
    to the scenario validator); otherwise true iff nothing protects it: the one protection rule
    (:func:`protection_of`), with every protection of docs/spec/beyond-min-runtime.md that
    ``settings`` turn on (a job's own request, the eviction budget, the checkpoint grace), as
    :func:`judge` uses it.
    """
    if min_runtime.is_never:
        return False
    return victim.flexible or protection_of(victim, min_runtime, settings, now_ns).kind is None

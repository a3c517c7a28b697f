"""Eligibility (docs/spec/filters.md): may this victim, or part of it, be evicted at all.

First the preemptor: one within its preemption delay
(docs/spec/preemption-delay.md, :mod:`minruntime._delay`) takes no victim (``PREEMPTOR_DELAYED``).
Then the fundamentals, in order, the first that fails names the reason: not the preemptor itself
(``SAME_JOB``); a queue in the tree (``UNKNOWN_VICTIM_QUEUE``); for preempt the preemptor's queue
(``DIFFERENT_QUEUE``) and strictly lower priority (``NOT_LOWER_PRIORITY``), for reclaim another
queue (``SAME_QUEUE``); then what depends on the victim alone (its ``barrier``: non-preemptible,
no active task, semi-preemptible with nothing above its core). Then the protection rule of
:mod:`minruntime._protection`: ``NEVER`` for a never MR; ``DEFERRED`` for a semi-preemptible
victim, and for an elastic one that is protected (only tasks above its minimum may go, which
validation checks); ``PROTECTED``, ``EVICTION_BUDGET`` or ``CHECKPOINT_GRACE`` for any other
protected victim; else ``ELIGIBLE``.

Victims in one queue share their min-runtime and settings for a given preemptor: :class:`Groups`
resolves them, and the protection rule's threshold, once per victim queue. Where a section 16
protection is on for a queue, its victims are judged one by one by the full rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Final

from minruntime._delay import is_held
from minruntime._facts import ELASTIC, SEMI, FactsTable, JobFacts
from minruntime._protection import Settings, free_before_time, is_protected_ns, protection
from minruntime._time import EARLIEST
from minruntime.decisions import Action, ProtectionKind, Reason, Resolution
from minruntime.durations import MinRuntime

__all__ = ["ALLOWED", "Group", "Groups", "judge", "min_runtime_filter"]

ALLOWED: Final = frozenset({Reason.ELIGIBLE, Reason.DEFERRED})
"""The reasons that let a victim (or part of it) be evicted."""

REASON_OF: Final = {
    ProtectionKind.NEVER: Reason.NEVER,
    ProtectionKind.MIN_RUNTIME: Reason.PROTECTED,
    ProtectionKind.JOB_REQUEST: Reason.PROTECTED,
    ProtectionKind.EVICTION_BUDGET: Reason.EVICTION_BUDGET,
    ProtectionKind.CHECKPOINT_GRACE: Reason.CHECKPOINT_GRACE,
}
"""The reason of a victim that is not elastic or semi-preemptible, by what protects it."""


class Group:
    """What one victim queue shares for one (action, preemptor queue): its min-runtime, the
    section 16 settings, and the rule evaluated once: ``threshold`` (the latest start that is
    free, see :func:`~minruntime._protection.free_before`), ``None`` for never, or ``by_victim``
    when a section 16 protection is on and each victim needs the whole rule."""

    __slots__ = ("by_victim", "min_runtime", "never", "settings", "threshold")

    def __init__(self, min_runtime: MinRuntime, settings: Settings, now_ns: int) -> None:
        self.min_runtime = min_runtime
        self.settings = settings
        self.never = min_runtime.is_never
        self.by_victim = not self.never and not settings.off
        threshold = free_before_time(min_runtime, now_ns)
        self.threshold: datetime = EARLIEST if threshold is None else threshold


class Groups:
    """The :class:`Group` of each victim queue for one (action, preemptor queue), filled on use.

    ``resolve`` and ``settings`` are the session's (so that its statistics count one lookup per
    victim queue a call reaches); ``shared`` keeps the groups for the session's life, so that a
    later call for the same preemptor queue builds none of them again; ``made`` keeps one group
    per (min-runtime, settings), which every victim queue that resolves to them shares.
    """

    __slots__ = (
        "_action",
        "_made",
        "_now_ns",
        "_pre_queue",
        "_resolve",
        "_settings",
        "_shared",
        "known",
    )

    def __init__(
        self,
        resolve: Callable[[Action, str, str], Resolution],
        settings: Callable[[Action, str, str], Settings],
        action: Action,
        preemptor_queue: str,
        now_ns: int,
        shared: dict[str, Group] | None = None,
        made: dict[tuple[MinRuntime, Settings], Group] | None = None,
    ) -> None:
        self._resolve = resolve
        self._settings = settings
        self._action = action
        self._pre_queue = preemptor_queue
        self._now_ns = now_ns
        self._shared: dict[str, Group] = {} if shared is None else shared
        self._made: dict[tuple[MinRuntime, Settings], Group] = {} if made is None else made
        self.known: dict[str, Group] = {}
        """The groups this call has reached, by victim queue."""

    def __getitem__(self, queue: str) -> Group:
        group = self.known.get(queue)
        if group is None:
            action, pre_queue = self._action, self._pre_queue
            mr = self._resolve(action, pre_queue, queue).min_runtime
            group = self._shared.get(queue)
            if group is None:
                key = (mr, self._settings(action, pre_queue, queue))
                group = self._made.get(key)
                if group is None:
                    group = self._made[key] = Group(*key, self._now_ns)
                self._shared[queue] = group
            self.known[queue] = group
        return group


def judge(
    action: Action,
    preemptor: JobFacts,
    table: FactsTable,
    rows: Iterable[int],
    groups: Groups,
    known_queues: object,
    now_ns: int,
    influence: Counter[ProtectionKind] | None = None,
    *,
    ignore_delay: bool = False,
) -> list[Reason]:
    """The reason of each victim's decision, in input order: the one rule of eligibility.

    Args:
        action: preempt or reclaim.
        preemptor: the preemptor's facts.
        table: the victims' facts.
        rows: the victims' rows of ``table``.
        groups: the groups of ``action`` and the preemptor's queue.
        known_queues: the queue tree (``in`` says whether a queue is known).
        now_ns: the instant, in nanoseconds.
        influence: counts the decisions a section 16 protection made, by kind (a job's own
            request, a budget, a grace), elastic victims they held to their minimum included.
        ignore_delay: judge as if the preemptor were not within its preemption delay (for the
            retry timer, which needs both).
    """
    if is_held(preemptor.held_until_ns(), now_ns) and not ignore_delay:
        return [Reason.PREEMPTOR_DELAYED for _ in rows]
    reasons: list[Reason] = []
    append = reasons.append
    made = groups.known.get
    make = groups.__getitem__
    pre_id = preemptor.id
    pre_queue = preemptor.queue
    pre_priority = preemptor.priority
    preempt = action is Action.PREEMPT
    ids, queues, priorities = table.ids, table.queues, table.priorities
    starts, barriers, all_flags = table.starts, table.barriers, table.flags
    eligible, deferred, protected = Reason.ELIGIBLE, Reason.DEFERRED, Reason.PROTECTED
    for row in rows:
        queue = queues[row]
        if ids[row] == pre_id:
            append(Reason.SAME_JOB)
        elif queue not in known_queues:  # type: ignore[operator]
            append(Reason.UNKNOWN_VICTIM_QUEUE)
        elif preempt and queue != pre_queue:
            append(Reason.DIFFERENT_QUEUE)
        elif preempt and priorities[row] >= pre_priority:
            append(Reason.NOT_LOWER_PRIORITY)
        elif not preempt and queue == pre_queue:
            append(Reason.SAME_QUEUE)
        elif (barrier := barriers[row]) is not None:
            append(barrier)
        else:
            group = made(queue) or make(queue)
            flags = all_flags[row]
            if group.never:
                append(Reason.NEVER)
            elif flags & SEMI:  # its core is kept whatever protects it
                append(deferred)
            elif group.by_victim:
                victim = table.view(row)
                kind = protection(
                    group.min_runtime, victim.start_ns, victim.inputs(), group.settings, now_ns
                ).kind
                if kind is None:
                    append(eligible)
                else:
                    if influence is not None and kind is not ProtectionKind.MIN_RUNTIME:
                        influence[kind] += 1
                    append(deferred if flags & ELASTIC else REASON_OF[kind])
            # the protection rule, evaluated once for the group: free iff start <= threshold
            elif (start := starts[row]) is not None and start > group.threshold:
                append(deferred if flags & ELASTIC else protected)
            else:
                append(eligible)
    return reasons


def min_runtime_filter(victim: JobFacts, min_runtime: MinRuntime, now_ns: int) -> bool:
    """The reference plugin's hook: may the victim be considered, as far as min-runtime goes?

    False for a never MR (elastic or not); true for elastic and semi-preemptible victims (left
    to the scenario validator); otherwise true iff not protected.
    """
    if min_runtime.is_never:
        return False
    return victim.flexible or not is_protected_ns(min_runtime, victim.start_ns, now_ns)

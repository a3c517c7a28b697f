"""The verdict: one (action, preemptor, victim) judged once, and everything a caller may ask of it
(private; the public :class:`~minruntime.Verdict` is its rendering).

A verdict starts from the victim's reason (:func:`minruntime._eligibility.judge`, for a whole
batch at once) and derives the rest on first use, each from the one rule that owns it:

- its **protection**: what protects it, until when, under which min-runtime and from which queue
  (:mod:`minruntime._protection`, through the session's resolver and settings);
- its **evictable tasks** in sacrifice order (:mod:`minruntime._evictable`);
- the **unsaved work** they hold and its **rank key** (:mod:`minruntime._ranking`);
- the end of its protection, ended or not, and whether it **waits** for the retry
  (:mod:`minruntime._retry`);
- the **notes** an explanation adds (which defaults applied, which protection decided).

Inside a cycle some of the victim's tasks may be *claimed*: committed to an earlier plan
(docs/spec/plans.md). The victim is judged on what it keeps: with every active task claimed it
has none; a semi-preemptible victim with nothing left outside its core has nothing to give; its
evictable tasks leave out what is claimed and what its scenario validator would refuse beside
the claims (:mod:`minruntime._validation`, the claims counted as evicted).

The facade asks verdicts and reads them; it computes no rule itself.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Final

from minruntime._eligibility import Groups, kept_refusal, protection_of
from minruntime._evictable import TaskOrder, evictable_tasks
from minruntime._facts import SEMI, FactsTable, JobFacts
from minruntime._protection import (
    NO_INPUTS,
    NO_SETTINGS,
    Protection,
    Settings,
    effective_min_runtime,
    evictions_in_window,
    protection_end_ns,
)
from minruntime._ranking import RankKey, rank_key, unsaved_work
from minruntime._retry import earliest, free_now, waits
from minruntime._time import from_ns
from minruntime._validation import validate_victim
from minruntime.decisions import Action, ProtectionKind, Reason, Resolution
from minruntime.decisions import Verdict as Rendered
from minruntime.durations import MinRuntime
from minruntime.jobs import TaskLike
from minruntime.preemptibility import PreemptibilitySource

__all__ = ["NO_CLAIMS", "Context", "Verdict", "retry_ns", "retry_of"]

NO_CLAIMS: Final[frozenset[Hashable]] = frozenset()
"""The claims of a victim none of whose tasks is committed."""


class Context:
    """What every verdict of a session reads: its groups (and resolver), the known queues,
    ``now``, the task order, the cost resource and the legacy priority threshold."""

    __slots__ = ("_now", "cost", "groups", "kept", "keys", "known", "now_ns", "order", "threshold")

    def __init__(
        self,
        groups: Groups,
        known: object,
        now_ns: int,
        order: TaskOrder | None,
        cost: str,
        threshold: int,
    ) -> None:
        self.groups = groups
        self.known = known
        self.now_ns = now_ns
        self._now: datetime | None = None
        self.order = order
        self.cost = cost
        self.threshold = threshold
        self.kept: dict[tuple[int, Reason, bool], tuple[tuple[TaskLike, ...], float]] = {}
        """(row, reason, a protected semi-preemptible tree) -> the evictable tasks of a victim
        none of whose tasks is claimed, and the work they hold: the same whatever the
        preemptor, so worked out once per session (the verdicts of the next preemptor, and of
        a cycle's next plan, read them)."""
        self.keys: dict[tuple[int, Reason], RankKey] = {}
        """(row, reason) -> the rank key of an allowed victim none of whose tasks is claimed,
        where no section 16 setting is on (no eviction window of a queue to count in)."""

    @property
    def now(self) -> datetime:
        """``now`` as a datetime, as every rendered verdict says it: made once, when a verdict
        is first rendered (a session that renders none makes none)."""
        now = self._now
        if now is None:
            now = self._now = from_ns(self.now_ns)
        return now


class Verdict:
    """One victim judged for one (action, preemptor); each part computed on first use, once.

    Args:
        action: preempt or reclaim.
        preemptor: the preemptor's facts.
        victim: the victim's facts.
        reason: its reason, as :func:`~minruntime._eligibility.judge` gave it (before claims).
        context: the session's.
        claimed: the ids of its tasks that are committed (inside a cycle), else empty.
    """

    __slots__ = (
        "_key",
        "_protection",
        "_tasks",
        "_unsaved",
        "action",
        "claimed",
        "context",
        "facts",
        "preemptor",
        "reason",
    )

    def __init__(
        self,
        action: Action,
        preemptor: JobFacts,
        victim: JobFacts,
        reason: Reason,
        context: Context,
        claimed: frozenset[Hashable] = NO_CLAIMS,
    ) -> None:
        self.action = action
        self.preemptor = preemptor
        self.facts = victim
        self.context = context
        self.claimed = claimed
        if claimed:
            reason = kept_refusal(reason, victim, claimed) or reason
        self.reason = reason
        self._protection: tuple[Protection, Resolution, Settings] | None = None
        self._tasks: tuple[TaskLike, ...] | None = None
        self._unsaved: float | None = None
        self._key: RankKey | None = None

    @property
    def allowed(self) -> bool:
        """Whether the victim, or part of it, may be evicted."""
        return self.reason.allowed

    # -- protection -----------------------------------------------------------------------------

    def protection(self) -> tuple[Protection, Resolution, Settings]:
        """What protects the victim now and until when, its min-runtime's resolution, and its
        section 16 settings: the protection rule, evaluated once."""
        found = self._protection
        if found is None:
            groups, facts = self.context.groups, self.facts
            pre_queue, queue = self.preemptor.queue, facts.queue
            resolution = groups.resolver.resolve(self.action, pre_queue, queue)
            settings = groups.settings(self.action, pre_queue, queue)
            kept = protection_of(facts, resolution.min_runtime, settings, self.context.now_ns)
            found = self._protection = (kept, resolution, settings)
        return found

    def end_ns(self) -> int | None:
        """When its protection ends; for a victim that is not protected, when its effective
        min-runtime ended (``None`` without a start time)."""
        found, resolution, settings = self.protection()
        facts = self.facts
        inputs = facts.inputs() if settings is not NO_SETTINGS else NO_INPUTS
        return protection_end_ns(found, resolution.min_runtime, facts.start_ns, inputs, settings)

    def retry_end_ns(self, delayed: bool) -> int | None:
        """This victim's part in the retry time (:mod:`minruntime._retry`): the end of its
        protection if it waits for it, ``now`` if it is free and only the preemptor's delay
        holds, else ``None``. ``delayed``: the reason was judged as if the preemptor were not
        delayed, and it is."""
        if waits(self.reason, self.facts.semi):
            return self.protection()[0].until_ns
        if free_now(self.reason, delayed):
            return self.context.now_ns
        return None

    # -- what may go ----------------------------------------------------------------------------

    def _unclaimed(self) -> tuple[tuple[TaskLike, ...], float]:
        """The evictable tasks and the work they hold as if nothing were claimed (kept in the
        context: they depend on the victim and its reason only)."""
        facts, reason = self.facts, self.reason
        protected = False
        if facts.semi and reason.allowed and not facts.flat:
            protected = self.protection()[0].kind is not None
        key = (facts.row, reason, protected)
        kept = self.context.kept
        found = kept.get(key)
        if found is None:
            context = self.context
            tasks = evictable_tasks(reason, facts, context.order, protected=protected)
            work = unsaved_work(facts, tasks, context.now_ns, context.cost) if tasks else 0.0
            found = kept.setdefault(key, (tasks, work))
        return found

    @property
    def tasks(self) -> tuple[TaskLike, ...]:
        """Its evictable tasks in sacrifice order, claimed ones and any the validator would
        refuse beside the claims left out."""
        found = self._tasks
        if found is None:
            found = self._unclaimed()[0]
            if self.claimed and found:
                found = self._beside_claims(found)
            self._tasks = found
        return found

    def _beside_claims(self, tasks: tuple[TaskLike, ...]) -> tuple[TaskLike, ...]:
        """``tasks`` without the claimed ones, each kept only where the victim's validator
        accepts it beside the claims and the tasks kept before it (sacrifice order)."""
        claimed = self.claimed
        found, resolution, _ = self.protection()
        taken: list[Hashable] = list(claimed)
        kept: list[TaskLike] = []
        for task in tasks:
            if task.id in claimed:
                continue
            trial = [*taken, task.id]
            if not validate_victim(self.facts, trial, resolution.min_runtime, found):
                taken.append(task.id)
                kept.append(task)
        return tuple(kept)

    @property
    def unsaved(self) -> float:
        """The work evicting its evictable tasks now would lose (weighted seconds); for a
        refused victim, what evicting all its active tasks would lose."""
        found = self._unsaved
        if found is None:
            if not self.reason.allowed:
                found = self.unsaved_of(self.facts.active_tasks())
            elif self.claimed:
                found = self.unsaved_of(self.tasks)
            else:
                found = self._unclaimed()[1]
            self._unsaved = found
        return found

    def unsaved_of(self, tasks: Sequence[TaskLike]) -> float:
        """The work evicting ``tasks`` of the victim now would lose (weighted seconds)."""
        context = self.context
        return unsaved_work(self.facts, tasks, context.now_ns, context.cost)

    @property
    def rank_key(self) -> RankKey:
        """Its place in the ranking, cheapest first (:func:`~minruntime._ranking.rank_key`)."""
        found = self._key
        if found is None:
            context = self.context
            if context.groups.resolver.has_protections:  # the eviction window is the queue's
                found = rank_key(self.facts, self.unsaved, self.protection()[2], context.now_ns)
            elif (
                self.claimed or not self.reason.allowed or (self.facts.semi and not self.facts.flat)
            ):
                # claims, or a semi-preemptible tree whose protection changes what may go
                found = rank_key(self.facts, self.unsaved, NO_SETTINGS, context.now_ns)
            else:  # the same for every preemptor: worked out once per session
                facts = self.facts
                key = (facts.row, self.reason)
                found = context.keys.get(key)
                if found is None:
                    made = rank_key(facts, self.unsaved, NO_SETTINGS, context.now_ns)
                    found = context.keys.setdefault(key, made)
            self._key = found
        return found

    # -- rendering ------------------------------------------------------------------------------

    def notes(self) -> list[str]:
        """What an explanation adds: defaults used for unknown queues, the legacy priority
        rule, and the section 16 settings that shaped the protection."""
        facts, reason = self.facts, self.reason
        found, resolution, settings = self.protection()
        notes = [
            f"queue {name!r} is not in the tree: the node-pool default applies"
            for name in resolution.unknown_queues
            if reason is not Reason.UNKNOWN_VICTIM_QUEUE or name != facts.queue
        ]
        if facts.preemptibility_source is PreemptibilitySource.LEGACY_PRIORITY and reason not in (
            Reason.SAME_JOB,
            Reason.UNKNOWN_VICTIM_QUEUE,
        ):
            comparison = "<" if facts.preemptibility.value == "preemptible" else ">="
            notes.append(
                f"{facts.preemptibility} by the legacy priority rule "
                f"({facts.priority} {comparison} {self.context.threshold})"
            )
        if settings is not NO_SETTINGS:
            notes.extend(_protection_notes(facts, resolution, settings, found, self.context))
        if self.claimed:
            count = len(self.claimed)
            notes.append(
                f"{count} of its tasks {'is' if count == 1 else 'are'} committed to a plan"
            )
        return notes

    def optional_sub_groups(self) -> tuple[str, ...]:
        """For a victim with a sub-group tree that may lose tasks, its sub-groups outside its
        core (they go whole, first, the last listed first)."""
        facts = self.facts
        if facts.flat or not self.reason.allowed:
            return ()
        return tuple(str(node.name) for node in reversed(facts.shape.split()[1]))

    def render(self) -> Rendered:
        """The public value of this verdict (:class:`minruntime.Verdict`)."""
        facts, pre, reason = self.facts, self.preemptor, self.reason
        found, resolution, settings = self.protection()
        delayed = reason is Reason.PREEMPTOR_DELAYED
        held = pre.held_until_ns() if delayed else None
        end = self.end_ns()
        return Rendered(
            action=self.action,
            preemptor=pre.id,
            victim=facts.id,
            allowed=reason.allowed,
            reason=reason,
            min_runtime=resolution.min_runtime,
            source=resolution.source,
            preemptibility=facts.preemptibility,
            start_time=None if facts.start_ns is None else from_ns(facts.start_ns),
            protected_until=None if end is None else from_ns(end),
            now=self.context.now,
            notes=tuple(self.notes()),
            protected_by=found.kind,
            tasks=self.tasks,
            unsaved_work=self.unsaved,
            rank_key=self.rank_key,
            min_runtime_filter=not resolution.min_runtime.is_never
            and (facts.flexible or found.kind is None),
            checkpoint_aware=settings is not NO_SETTINGS,
            elastic=facts.elastic,
            sub_group_tree=not facts.flat,
            optional_sub_groups=self.optional_sub_groups(),
            preemption_delay=pre.inputs().delay if delayed else None,
            delayed_until=from_ns(held) if held is not None else None,
        )


def retry_of(verdicts: Iterable[Verdict], held: int | None, delayed: bool) -> int | None:
    """The retry instant over victims judged already (:func:`minruntime._retry.earliest` of
    their parts, :meth:`Verdict.retry_end_ns`)."""
    return earliest((verdict.retry_end_ns(delayed) for verdict in verdicts), held, delayed)


def retry_ns(
    action: Action,
    preemptor: JobFacts,
    table: FactsTable,
    rows: Sequence[int],
    reasons: Sequence[Reason],
    context: Context,
    claims: Mapping[int, frozenset[Hashable]],
    held: int | None,
    delayed: bool,
) -> int | None:
    """The retry instant over the victims ``rows`` (their ``reasons`` judged as if the preemptor
    were not delayed when ``delayed``): :func:`minruntime._retry.earliest` of the ends of the
    protections the victims wait for. Only a victim whose reason may wait (or, delayed, is
    free) is judged further, each on what it keeps."""
    flags = table.flags

    def ends() -> Iterator[int | None]:
        for row, reason in zip(rows, reasons, strict=True):
            if waits(reason, bool(flags[row] & SEMI)) or free_now(reason, delayed):
                claimed = claims.get(row, NO_CLAIMS) if claims else NO_CLAIMS
                judged = Verdict(action, preemptor, table.view(row), reason, context, claimed)
                yield judged.retry_end_ns(delayed)

    return earliest(ends(), held, delayed)


def _protection_notes(
    victim: JobFacts,
    resolution: Resolution,
    settings: Settings,
    found: Protection,
    context: Context,
) -> list[str]:
    inputs = victim.inputs()
    notes = []
    mr = resolution.min_runtime
    if inputs.requested_ns is not None and not mr.is_never:
        effective = effective_min_runtime(mr, inputs.requested_ns, settings.max_job_min_runtime)
        requested = MinRuntime.from_nanoseconds(inputs.requested_ns)
        cap = settings.max_job_min_runtime
        where = f"queue {settings.cap_source!r}" if settings.cap_source else "the default"
        effect = f"effective min-runtime {effective}" if effective != mr else "no effect"
        notes.append(f"the job requested {requested}: {effect} (cap {cap} from {where})")
    if found.kind is ProtectionKind.EVICTION_BUDGET:
        where = f"queue {settings.budget_source!r}" if settings.budget_source else "the default"
        window = settings.eviction_window
        span = "ever" if window.is_never else f"per {window}"
        recent = evictions_in_window(inputs, window, context.now_ns)
        history = (
            f"evicted {inputs.eviction_count} time(s), times unknown"
            if recent is None
            else f"evicted {len(recent)} time(s) in the window"
        )
        notes.append(f"eviction budget {settings.max_evictions} {span} from {where}; {history}")
    elif found.kind is ProtectionKind.CHECKPOINT_GRACE:
        where = f"queue {settings.grace_source!r}" if settings.grace_source else "the default"
        notes.append(f"checkpoint grace {settings.grace} from {where}")
    return notes

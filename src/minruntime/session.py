"""The Session: the facade a scheduling loop builds once per cycle and asks about victims.

A session holds the queue tree, the configuration and ``now``. It resolves each min-runtime
once per distinct (action, preemptor queue, victim queue), computes each job's derived facts
once, and answers every question at the same instant ``now``, which it never reads from a clock.

>>> from datetime import datetime, timezone
>>> from minruntime import Action, Config, Job, PodSet, Queue, QueueTree, Session, Task
>>> tree = QueueTree([Queue("org", reclaim_min_runtime="30m"), Queue("a", "org"), Queue("b", "org")])
>>> now = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
>>> session = Session(tree, Config(), now)
>>> pending = Job("pending", "b", priority=100)
>>> young = Job("young", "a", preemptibility="preemptible", start_time=datetime(2026, 11, 22, 11, 50, tzinfo=timezone.utc),
...             pod_sets=[PodSet(tasks=[Task("young-0")])])
>>> session.is_eligible(Action.RECLAIM, pending, young)
False
>>> print(session.explain(Action.RECLAIM, pending, young))
reclaim of 'young' by 'pending': refused: min-runtime 30m from queue 'org': started 2026-11-22T11:50:00Z, protected until 2026-11-22T12:20:00Z
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Final, TypeVar

import attrs

from minruntime._time import Instant, from_ns, to_ns
from minruntime.checkpoints import (
    CHECKPOINT_GRACE,
    EVICTION_BUDGET,
    FOREVER_NS,
    MIN_RUNTIME,
    Extensions,
    JobInputs,
    effective_min_runtime_ns,
    protection,
    unsaved_work,
)
from minruntime.config import Config
from minruntime.decisions import Decision, Reason
from minruntime.durations import MinRuntime
from minruntime.jobs import JobFacts, JobLike, TaskLike
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    Preemptibility,
    PreemptibilitySource,
)
from minruntime.queues import QueueTree
from minruntime.resolution import Action, MinRuntimeTable, Resolution, Resolver
from minruntime.validation import Failure, ScenarioResult, validate_victim
from minruntime.victims import (
    ALLOWED,
    TaskOrder,
    evictable_tasks,
    judge,
    min_runtime_filter,
)

__all__ = ["Session", "SessionStats"]

_SEMI: Final = Preemptibility.SEMI_PREEMPTIBLE
_NO_SETTINGS: Final = Extensions()
_NO_INPUTS: Final = JobInputs()
_PROTECTED_REASONS: Final = frozenset(
    {Reason.PROTECTED, Reason.EVICTION_BUDGET, Reason.CHECKPOINT_GRACE}
)

J = TypeVar("J", bound=JobLike)

Evictions = Mapping[J, Iterable[object]] | Iterable[tuple[J, Iterable[object]]]
"""A scenario's evictions: victim job -> the tasks (or task ids) it would lose."""


@attrs.frozen(kw_only=True)
class SessionStats:
    """What a session did: decisions by reason, and how well its caches served.

    Attributes:
        decisions: how many victim decisions ended with each reason (reason value -> count).
        resolutions: how many min-runtime lookups were made.
        cache_hits: how many of them were answered from the cache.
        jobs: how many distinct jobs had their facts computed.
        protections: how many decisions a checkpoint-aware protection (BEHAVIOR.md section 16)
            decided, by kind: ``"eviction-budget"``, ``"checkpoint-grace"``, and
            ``"job-request"`` (protected only because a job's own request lengthened its MR),
            elastic victims they held to their minimum included. Empty when unused.
    """

    decisions: Mapping[str, int]
    resolutions: int
    cache_hits: int
    jobs: int
    protections: Mapping[str, int] = attrs.field(factory=dict)

    @property
    def cache_misses(self) -> int:
        """Lookups that had to be computed."""
        return self.resolutions - self.cache_hits


def _action(action: Action | str) -> Action:
    return action if action.__class__ is Action else Action(action)


class Session:
    """One scheduling cycle's view of min-runtime and preemptibility.

    Args:
        tree: the queue tree.
        config: the node-pool configuration.
        now: the instant of every decision: an aware datetime or POSIX seconds.
        legacy_priority_threshold: for jobs with no explicit preemptibility, a priority below
            this is preemptible (default 100).
        task_order: a key that sorts a job's tasks most important first; the sacrifice order
            of :meth:`evictable_tasks` is its reverse. Default: the job's listing order.

    Raises:
        InvalidTimestamp: if ``now`` is naive or not a time.

    A job's facts (effective preemptibility, elastic, active tasks, start time) are computed the
    first time the session sees the job object and kept for the session's life: build a new
    session for the next cycle rather than changing jobs under a live one.

    >>> from minruntime import QueueTree, Config, Queue
    >>> Session(QueueTree([Queue("q", preempt_min_runtime="5m")]), Config(), now=0).preempt_min_runtime("q")
    MinRuntime('5m')
    """

    __slots__ = (
        "_counts",
        "_extended",
        "_facts",
        "_influence",
        "_known_pair",
        "_lookups",
        "_misses",
        "_now",
        "_now_ns",
        "_resolver",
        "_tables",
        "_task_order",
        "_threshold",
        "config",
        "tree",
    )

    def __init__(
        self,
        tree: QueueTree,
        config: Config,
        now: Instant,
        *,
        legacy_priority_threshold: int = LEGACY_PRIORITY_THRESHOLD,
        task_order: TaskOrder | None = None,
        _resolver: Resolver | None = None,
    ) -> None:
        self.tree = tree
        self.config = config
        self._now_ns = to_ns(now, "the session's now")
        self._now = from_ns(self._now_ns)
        self._threshold = legacy_priority_threshold
        self._task_order = task_order
        self._resolver = _resolver if _resolver is not None else Resolver(tree, config)
        self._facts: dict[int, JobFacts] = {}
        self._counts: Counter[Reason] = Counter()
        self._lookups = 0
        self._misses = 0
        self._tables: dict[Action, MinRuntimeTable] = {}
        self._extended = tree.has_extensions or config.has_extensions
        self._influence: Counter[str] = Counter()
        self._known_pair = self._resolver.known_reclaim

    @property
    def now(self) -> datetime:
        """The instant of this session's decisions (UTC)."""
        return self._now

    def at(self, now: Instant) -> Session:
        """A session at another instant that shares this one's resolved min-runtimes.

        Resolution depends only on the tree and the configuration, so it carries over; job
        facts and statistics start afresh.

        >>> from minruntime import QueueTree, Config
        >>> Session(QueueTree([]), Config(), now=0).at(60).now.isoformat()
        '1970-01-01T00:01:00+00:00'
        """
        return Session(
            self.tree,
            self.config,
            now,
            legacy_priority_threshold=self._threshold,
            task_order=self._task_order,
            _resolver=self._resolver,
        )

    # -- resolution -----------------------------------------------------------------------------

    def resolve(self, action: Action | str, preemptor_queue: str, victim_queue: str) -> Resolution:
        """The MR for ``action`` between two queues, and the queue whose setting produced it.

        An unknown queue gives the node-pool default, and the resolution says which queue was
        unknown. For preempt the preemptor's queue does not matter.

        >>> from minruntime import QueueTree, Config, Queue
        >>> session = Session(QueueTree([Queue("q", reclaim_min_runtime="1h")]), Config(), 0)
        >>> print(session.resolve("reclaim", "other", "q"))
        0s (node-pool default; queue 'other' is not in the tree)
        """
        return self._resolve(_action(action), preemptor_queue, victim_queue)

    def _resolve(self, action: Action, preemptor_queue: str, victim_queue: str) -> Resolution:
        resolver = self._resolver
        before = resolver.misses
        if action is Action.PREEMPT:
            result = resolver.preempt(victim_queue)
        else:
            result = resolver.reclaim(preemptor_queue, victim_queue)
        self._lookups += 1
        self._misses += resolver.misses - before
        return result

    def preempt_min_runtime(self, victim_queue: str) -> MinRuntime:
        """The preempt MR of a victim in ``victim_queue`` (walk up from it)."""
        return self._resolve(Action.PREEMPT, victim_queue, victim_queue).min_runtime

    def reclaim_min_runtime(self, preemptor_queue: str, victim_queue: str) -> MinRuntime:
        """The reclaim MR between two queues, by the configured method."""
        known = self._known_pair((preemptor_queue, victim_queue))  # the warm path: one lookup
        if known is not None:
            self._lookups += 1
            return known.min_runtime
        return self._resolve(Action.RECLAIM, preemptor_queue, victim_queue).min_runtime

    def min_runtime_table(self, action: Action | str) -> MinRuntimeTable:
        """A ``dict`` of (preemptor queue, victim queue) -> MR for ``action`` that fills itself.

        The fastest way to look up many pairs: a pair seen before costs one dict lookup. It
        shares this session's resolution cache; its lookups are not counted in :meth:`stats`.
        For preempt the preemptor's queue does not matter (the key still has both queues).

        >>> from minruntime import QueueTree, Config, Queue
        >>> session = Session(QueueTree([Queue("q", reclaim_min_runtime="1h"), Queue("p")]),
        ...                   Config(), 0)
        >>> table = session.min_runtime_table("reclaim")
        >>> table["p", "q"], table["p", "q"] is table["p", "q"]
        (MinRuntime('1h'), True)
        """
        act = _action(action)
        table = self._tables.get(act)
        if table is None:
            table = self._tables[act] = self._resolver.table(act)
        return table

    def min_runtime(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> MinRuntime:
        """The MR that applies to ``victim`` when ``preemptor`` wants its resources."""
        return self.resolve(action, preemptor.queue, victim.queue).min_runtime

    # -- jobs -----------------------------------------------------------------------------------

    def facts(self, job: JobLike) -> JobFacts:
        """The derived facts of a job, computed once per session.

        Raises:
            InvalidTimestamp: for a naive or malformed start time.
            InvalidPreemptibility: for an explicit preemptibility that is not a valid value.
        """
        facts = self._facts.get(id(job))
        if facts is None:
            facts = JobFacts.of(job, self._threshold)
            self._facts[id(job)] = facts
        return facts

    # -- protection and filters -----------------------------------------------------------------

    def _settings(
        self, action: Action, preemptor: JobFacts, victim: JobFacts
    ) -> tuple[Extensions, JobInputs]:
        """The section 16 settings and inputs that apply; all off when the session uses none."""
        if not self._extended:
            return _NO_SETTINGS, _NO_INPUTS
        settings = self._resolver.extensions(action, preemptor.queue, victim.queue)
        return settings, victim.inputs()

    def _protection(
        self, action: Action, preemptor: JobFacts, victim: JobFacts
    ) -> tuple[str | None, int | None, Resolution]:
        """(what protects the victim, until when in ns, the MR resolution): one rule for all."""
        resolution = self._resolve(action, preemptor.queue, victim.queue)
        mr = resolution.min_runtime._ns
        if mr < 0:
            return "never", FOREVER_NS, resolution
        settings, inputs = self._settings(action, preemptor, victim)
        kind, until = protection(mr, victim.start_ns, inputs, settings, self._now_ns)
        return kind, until, resolution

    def _effective_ns(
        self, action: Action, preemptor: JobFacts, victim: JobFacts, mr_ns: int
    ) -> int:
        settings, inputs = self._settings(action, preemptor, victim)
        return effective_min_runtime_ns(mr_ns, inputs.requested_ns, settings.max_job_min_runtime)

    def is_protected(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> bool:
        """Whether ``victim`` is protected now, fundamentals aside.

        Never protects whatever the start time; no start time is not protected; otherwise
        ``now < start + MR``. With the checkpoint-aware settings in use (BEHAVIOR.md section
        16), a job's own request, a spent eviction budget and the checkpoint grace protect too.
        """
        kind, _, _ = self._protection(_action(action), self.facts(preemptor), self.facts(victim))
        return kind is not None

    def protected_until(
        self, action: Action | str, preemptor: JobLike, victim: JobLike
    ) -> datetime | None:
        """When ``victim``'s protection ends: ``start + MR``, ``FOREVER`` for never, or ``None``
        without a start time; with section 16 in use, the end of whatever protects it now."""
        act = _action(action)
        pre = self.facts(preemptor)
        facts = self.facts(victim)
        _kind, until, resolution = self._protection(act, pre, facts)
        return self._until(act, pre, facts, until, resolution)

    def _until(
        self,
        action: Action,
        pre: JobFacts,
        facts: JobFacts,
        until: int | None,
        resolution: Resolution,
    ) -> datetime | None:
        """The protection's end, or (unprotected) when the effective MR ended or ends."""
        if until is not None:
            return from_ns(until)
        if facts.start_ns is None:
            return None
        effective = self._effective_ns(action, pre, facts, resolution.min_runtime._ns)
        return from_ns(facts.start_ns + effective)

    def min_runtime_filter(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> bool:
        """The reference plugin's filter hook: min-runtime's say alone, no fundamentals.

        False for a never MR; true for elastic and semi-preemptible victims (the scenario
        validator judges them); otherwise true iff not protected.
        """
        facts = self.facts(victim)
        mr = self.resolve(action, preemptor.queue, facts.queue).min_runtime
        return min_runtime_filter(facts, mr, self._now_ns)

    def _judge(self, action: Action, preemptor: JobFacts, victims: list[JobFacts]) -> list[Reason]:
        """The reasons for many victims (the one implementation: :func:`~minruntime.victims.judge`)."""
        pre_queue = preemptor.queue
        resolve = self._resolve
        if action is Action.PREEMPT:

            def min_runtime_of(queue: str) -> MinRuntime:
                return resolve(Action.PREEMPT, queue, queue).min_runtime

        else:

            def min_runtime_of(queue: str) -> MinRuntime:
                return resolve(Action.RECLAIM, pre_queue, queue).min_runtime

        extensions_of = None
        if self._extended:
            extensions = self._resolver.extensions

            def extensions_of(queue: str) -> Extensions:
                return extensions(action, pre_queue, queue)

        reasons = judge(
            action,
            preemptor,
            victims,
            self.tree,
            min_runtime_of,
            self._now_ns,
            extensions_of,
            self._influence,
        )
        self._counts.update(reasons)
        return reasons

    def _reason(self, action: Action, preemptor: JobFacts, victim: JobFacts) -> Reason:
        return self._judge(action, preemptor, [victim])[0]

    def _facts_of(self, jobs: Iterable[JobLike]) -> list[JobFacts]:
        cache = self._facts
        get = cache.get
        of = JobFacts.of
        threshold = self._threshold
        result: list[JobFacts] = []
        append = result.append
        for job in jobs:
            facts = get(id(job))
            if facts is None:
                facts = cache[id(job)] = of(job, threshold)
            append(facts)
        return result

    def is_eligible(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> bool:
        """Whether ``victim`` (or, if elastic or semi-preemptible, part of it) may be evicted.

        The fundamentals of the action (not itself; preempt: same queue and strictly lower
        priority; reclaim: another queue; not non-preemptible; an active task; a known queue),
        then the min-runtime filter.
        """
        return self._reason(_action(action), self.facts(preemptor), self.facts(victim)).allowed

    def eligible_victims(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[J]
    ) -> list[J]:
        """The eligible victims among ``victims``, in input order.

        Equal to filtering with :meth:`is_eligible` one by one.
        """
        candidates = list(victims)
        reasons = self._judge(_action(action), self.facts(preemptor), self._facts_of(candidates))
        allowed = ALLOWED
        return [
            victim for victim, reason in zip(candidates, reasons, strict=True) if reason in allowed
        ]

    def evictable_tasks(
        self, action: Action | str, preemptor: JobLike, victim: JobLike
    ) -> tuple[TaskLike, ...]:
        """The tasks of ``victim`` that may be evicted, least important first.

        None if the victim is not eligible; all its active tasks if it is eligible and not
        protected; per pod set the active tasks above ``min_available`` if it is protected and
        elastic, or semi-preemptible.
        """
        facts = self.facts(victim)
        reason = self._reason(_action(action), self.facts(preemptor), facts)
        return evictable_tasks(reason, facts, self._task_order)

    def next_expiry(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[JobLike]
    ) -> datetime | None:
        """When the next of ``victims`` stops being protected: the time to retry.

        Among the victims that pass every fundamental but are protected by a finite MR (semi-
        preemptible ones excepted: their protection changes nothing), the earliest
        ``protected_until``; ``None`` if there is none.
        """
        act = _action(action)
        pre = self.facts(preemptor)
        facts = self._facts_of(victims)
        earliest: int | None = None
        for victim, reason in zip(facts, self._judge(act, pre, facts), strict=True):
            if reason in _PROTECTED_REASONS or (
                reason is Reason.DEFERRED and victim.preemptibility is not _SEMI
            ):
                _, until, _ = self._protection(act, pre, victim)
                if (
                    until is not None
                    and until < FOREVER_NS
                    and (earliest is None or until < earliest)
                ):
                    earliest = until
        return None if earliest is None else from_ns(earliest)

    # -- validation -----------------------------------------------------------------------------

    def validate(
        self, action: Action | str, preemptor: JobLike, evictions: Evictions[J]
    ) -> ScenarioResult:
        """Judge a scenario: would evicting these tasks break min-runtime or a semi-preemptible core?

        Args:
            action: preempt or reclaim (which MR applies).
            preemptor: the pending job.
            evictions: victim job -> tasks (or task ids) to evict; a mapping or (job, tasks)
                pairs.

        Returns:
            A :class:`~minruntime.ScenarioResult`, false when invalid, naming every failure.

        Raises:
            InvalidScenario: if a victim does not have a task the scenario evicts.
        """
        act = _action(action)
        pre = self.facts(preemptor)
        pairs = evictions.items() if isinstance(evictions, Mapping) else evictions
        failures: list[Failure] = []
        for victim, tasks in pairs:
            facts = self.facts(victim)
            kind, until, resolution = self._protection(act, pre, facts)
            failures.extend(
                validate_victim(
                    facts,
                    tasks,
                    resolution.min_runtime,
                    self._now_ns,
                    self._until(act, pre, facts, until, resolution),
                    protected=kind is not None,
                    protected_by=None if kind in (None, MIN_RUNTIME, "never") else kind,
                )
            )
        return ScenarioResult(action=act, preemptor=pre.id, failures=tuple(failures))

    # -- explanation ----------------------------------------------------------------------------

    def explain(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> Decision:
        """The full, immutable decision for one victim, with its reason and numbers.

        ``decision.allowed == is_eligible(...)``; ``str(decision)`` is one sentence.
        """
        act = _action(action)
        pre = self.facts(preemptor)
        facts = self.facts(victim)
        reason = self._reason(act, pre, facts)
        kind, until, resolution = self._protection(act, pre, facts)
        notes = [
            f"queue {name!r} is not in the tree: the node-pool default applies"
            for name in resolution.unknown_queues
            if reason is not Reason.UNKNOWN_VICTIM_QUEUE or name != facts.queue
        ]
        if facts.preemptibility_source is PreemptibilitySource.LEGACY_PRIORITY and reason not in (
            Reason.SAME_JOB,
            Reason.UNKNOWN_VICTIM_QUEUE,
        ):
            comparison = "<" if facts.preemptibility is Preemptibility.PREEMPTIBLE else ">="
            notes.append(
                f"{facts.preemptibility} by the legacy priority rule "
                f"({facts.priority} {comparison} {self._threshold})"
            )
        start = facts.start_time
        unsaved = None
        if self._extended:
            notes.extend(self._extension_notes(act, pre, facts, resolution, kind))
            unsaved = self._unsaved(facts, evictable_tasks(reason, facts) or facts.active_tasks())
        return Decision(
            action=act,
            preemptor=pre.id,
            victim=facts.id,
            allowed=reason.allowed,
            reason=reason,
            min_runtime=resolution.min_runtime,
            source=resolution.source,
            preemptibility=facts.preemptibility,
            start_time=start,
            protected_until=self._until(act, pre, facts, until, resolution),
            now=self._now,
            notes=tuple(notes),
            protected_by=None if kind == "never" else kind,
            unsaved_work=unsaved,
        )

    def _extension_notes(
        self,
        action: Action,
        pre: JobFacts,
        victim: JobFacts,
        resolution: Resolution,
        kind: str | None,
    ) -> list[str]:
        settings = self._resolver.extensions(action, pre.queue, victim.queue)
        inputs = victim.inputs()
        notes = []
        mr = resolution.min_runtime._ns
        effective = self._effective_ns(action, pre, victim, mr)
        if inputs.requested_ns is not None and mr >= 0:
            requested = MinRuntime.from_nanoseconds(inputs.requested_ns)
            where = f"queue {settings.cap_source!r}" if settings.cap_source else "the default"
            if effective != mr:
                notes.append(
                    f"the job requested {requested}: effective min-runtime "
                    f"{MinRuntime.from_nanoseconds(effective)} (cap {settings.max_job_min_runtime} "
                    f"from {where})"
                )
            else:
                notes.append(
                    f"the job requested {requested}: no effect (cap {settings.max_job_min_runtime} "
                    f"from {where})"
                )
        if kind == EVICTION_BUDGET:
            where = f"queue {settings.budget_source!r}" if settings.budget_source else "the default"
            window = settings.eviction_window
            span = "ever" if window.is_never else f"per {window}"
            times = inputs.eviction_ns
            if times is None:
                history = f"evicted {inputs.eviction_count} time(s), times unknown"
            else:
                recent = [t for t in times if window.is_never or self._now_ns < t + window._ns]
                history = f"evicted {len(recent)} time(s) in the window"
            notes.append(f"eviction budget {settings.max_evictions} {span} from {where}; {history}")
        elif kind == CHECKPOINT_GRACE:
            where = f"queue {settings.grace_source!r}" if settings.grace_source else "the default"
            notes.append(f"checkpoint grace {settings.grace} from {where}")
        return notes

    # -- unsaved work and ranking ---------------------------------------------------------------

    def _unsaved(self, facts: JobFacts, tasks: Iterable[TaskLike]) -> float:
        weight = sum(float(getattr(task, "weight", 1.0)) for task in tasks)
        return unsaved_work(facts.start_ns, facts.inputs().checkpoint_ns, self._now_ns, weight)

    def unsaved_work(self, victim: JobLike, tasks: Iterable[TaskLike] | None = None) -> float:
        """The work evicting ``tasks`` of ``victim`` now would lose (BEHAVIOR.md section 16).

        ``now - max(start, last_checkpoint)`` in seconds, times the summed weight of the tasks
        (default: all its active tasks; a task's weight defaults to 1). Zero with no start time.

        >>> from minruntime import Config, Job, PodSet, QueueTree, Queue, Task
        >>> job = Job("j", "q", start_time=0, last_checkpoint=600,
        ...           pod_sets=[PodSet(min_available=2, tasks=[Task("a", weight=8), Task("b", weight=8)])])
        >>> Session(QueueTree([Queue("q")]), Config(), now=900).unsaved_work(job)
        4800.0
        """
        facts = self.facts(victim)
        return self._unsaved(facts, facts.active_tasks() if tasks is None else tasks)

    def rank_victims(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[J]
    ) -> list[J]:
        """The eligible victims, cheapest first: least unsaved work, then lower priority, then input order.

        Unsaved work counts only the tasks that would go: for an elastic or semi-preemptible
        victim kept at its minimum, the tasks above it. A scheduler that takes victims from the
        front loses the least work. Equal to :meth:`eligible_victims` reordered.
        """
        act = _action(action)
        pre = self.facts(preemptor)
        candidates = list(victims)
        facts = self._facts_of(candidates)
        reasons = self._judge(act, pre, facts)
        keyed = []
        for index, (job, fact, reason) in enumerate(zip(candidates, facts, reasons, strict=True)):
            if reason in ALLOWED:
                lost = self._unsaved(fact, evictable_tasks(reason, fact))
                keyed.append((lost, fact.priority, index, job))
        keyed.sort(key=lambda item: item[:3])
        return [item[3] for item in keyed]

    # -- statistics -----------------------------------------------------------------------------

    def stats(self) -> SessionStats:
        """Decisions by reason and cache use so far in this session.

        >>> from minruntime import QueueTree, Config, Queue
        >>> session = Session(QueueTree([Queue("q")]), Config(), 0)
        >>> _ = session.preempt_min_runtime("q"), session.preempt_min_runtime("q")
        >>> stats = session.stats()
        >>> stats.resolutions, stats.cache_hits
        (2, 1)
        """
        decisions = {
            reason.value: self._counts[reason] for reason in Reason if self._counts[reason]
        }
        return SessionStats(
            decisions=decisions,
            resolutions=self._lookups,
            cache_hits=self._lookups - self._misses,
            jobs=len(self._facts),
            protections=dict(sorted(self._influence.items())),
        )

"""The Session: the facade a scheduling loop builds once per cycle and asks about victims.

A session holds the queue tree, the configuration and ``now``. It resolves each min-runtime
once per distinct (action, preemptor queue, victim queue), computes each job's derived facts
once, and answers every question at the same instant ``now``, which it never reads from a clock.
Every answer comes from the same rules (minruntime's private engine): eligibility, protection,
validation and evictable tasks are never computed twice in two ways.

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

import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from itertools import compress
from typing import Final, Generic, TypeVar

import attrs

from minruntime._cycle import VictimIndex
from minruntime._eligibility import (
    Groups,
    judge,
    min_runtime_filter,
    protection_of,
)
from minruntime._evictable import TaskOrder, evictable_tasks
from minruntime._facts import SEMI, FactsTable, JobFacts
from minruntime._protection import (
    FOREVER_NS,
    NO_SETTINGS,
    Protection,
    Settings,
    effective_min_runtime,
    evictions_in_window,
    is_held,
)
from minruntime._ranking import Candidate, rank, select, unsaved_work
from minruntime._resolution import Resolver
from minruntime._time import Instant, from_ns, to_ns
from minruntime._validation import validate_victim
from minruntime.config import Config
from minruntime.decisions import (
    ALLOWED,
    Action,
    Decision,
    Failure,
    ProtectionKind,
    ProtectionStatus,
    Reason,
    Resolution,
    ScenarioResult,
    Selection,
)
from minruntime.durations import MinRuntime
from minruntime.jobs import JobLike, TaskLike
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    Preemptibility,
    PreemptibilitySource,
)
from minruntime.queues import QueueTree

__all__ = ["Cycle", "Session", "SessionStats"]


def __dir__() -> list[str]:
    return __all__


_PROTECTED_REASONS: Final = frozenset(
    {Reason.PROTECTED, Reason.EVICTION_BUDGET, Reason.CHECKPOINT_GRACE}
)

J = TypeVar("J", bound=JobLike)

_HELD: Final = 1 << 16
"""How many victims' reasons a session keeps before it adds them up (see ``Session._count``)."""
_CALLS: Final = 256
"""How many calls' reasons it keeps at most (many one-victim questions: a bounded list)."""

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
        protections: how many decisions a protection beyond min-runtime
            (docs/spec/beyond-min-runtime.md) decided, by kind value: ``"eviction-budget"``,
            ``"checkpoint-grace"``, and ``"job-request"`` (protected only because a job's own
            request lengthened its min-runtime), elastic victims they held to their minimum included. Empty
            when unused.

    >>> SessionStats(decisions={}, resolutions=3, cache_hits=2, jobs=1).cache_misses
    1
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
        task_order: a key that sorts a job's tasks most important first: each pod set of an
            elastic job keeps its most important ``min_available`` tasks, and each part of the
            sacrifice order of :meth:`evictable_tasks` is the key's reverse. Default: the job's
            listing order.

    Raises:
        InvalidTimestamp: if ``now`` is naive or not a time.

    A job's facts (effective preemptibility, elastic, active tasks, start time) are computed the
    first time the session sees the job object and kept for the session's life: build a new
    session for the next cycle rather than changing jobs under a live one.

    A session, and a :class:`Cycle` of it, may be shared between threads: each answer is the
    one the same question gets asked alone. What it computes on first use is published whole
    (or added under a lock), and its statistics count every thread's calls. It has no
    process-wide side effect (no clock, no switching of the garbage collector).

    >>> from minruntime import QueueTree, Config, Queue
    >>> Session(QueueTree([Queue("q", preempt_min_runtime="5m")]), Config(), now=0).preempt_min_runtime("q")
    MinRuntime('5m')
    """

    __slots__ = (
        "_counts",
        "_groups",
        "_held",
        "_judged",
        "_known",
        "_lock",
        "_lookups",
        "_misses",
        "_now",
        "_now_ns",
        "_resolver",
        "_table",
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
        self._now: datetime | None = None
        self._threshold = legacy_priority_threshold
        self._task_order = task_order
        self._resolver = _resolver if _resolver is not None else Resolver(tree, config)
        self._table = FactsTable(legacy_priority_threshold)
        self._known = tree.names()
        self._groups = Groups(self._resolver, self._now_ns)
        self._lock = threading.Lock()
        self._counts: Counter[Reason | ProtectionKind] = Counter()
        self._judged: list[Sequence[Reason]] = []
        self._held = 0
        self._lookups = 0
        self._misses = 0

    @property
    def now(self) -> datetime:
        """The instant of this session's decisions (UTC).

        >>> from minruntime import QueueTree, Config
        >>> Session(QueueTree([]), Config(), now=0).now.isoformat()
        '1970-01-01T00:00:00+00:00'
        """
        now = self._now  # made once, when first asked: the decisions need only the integer
        if now is None:
            now = self._now = from_ns(self._now_ns)  # equal whichever thread makes it
        return now

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
        """The min-runtime for ``action`` between two queues, and the queue whose setting produced
        it.

        An unknown queue gives the node-pool default, and the resolution says which queue was
        unknown. For preempt the preemptor's queue does not matter.

        >>> from minruntime import QueueTree, Config, Queue
        >>> session = Session(QueueTree([Queue("q", reclaim_min_runtime="1h")]), Config(), 0)
        >>> print(session.resolve("reclaim", "other", "q"))
        0s (node-pool default; queue 'other' is not in the tree)
        """
        return self._resolve(_action(action), preemptor_queue, victim_queue)

    def _resolve(self, action: Action, preemptor_queue: str, victim_queue: str) -> Resolution:
        result, computed = self._resolver.lookup(action, preemptor_queue, victim_queue)
        with self._lock:
            self._lookups += 1
            self._misses += computed
        return result

    def preempt_min_runtime(self, victim_queue: str) -> MinRuntime:
        """The preempt min-runtime of a victim in ``victim_queue`` (walk up from it).

        >>> from minruntime import QueueTree, Config, Queue
        >>> Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), 0).preempt_min_runtime("q")
        MinRuntime('1h')
        """
        return self._resolve(Action.PREEMPT, victim_queue, victim_queue).min_runtime

    def reclaim_min_runtime(self, preemptor_queue: str, victim_queue: str) -> MinRuntime:
        """The reclaim min-runtime between two queues, by the configured method.

        >>> from minruntime import QueueTree, Config, Queue
        >>> tree = QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b")])
        >>> Session(tree, Config(), 0).reclaim_min_runtime("b", "a")
        MinRuntime('1h')
        """
        return self._resolve(Action.RECLAIM, preemptor_queue, victim_queue).min_runtime

    def min_runtime_table(self, action: Action | str) -> Mapping[tuple[str, str], MinRuntime]:
        """A mapping (preemptor queue, victim queue) -> min-runtime for ``action`` that fills
        itself.

        The fastest way to look up many pairs: a pair seen before costs one dict lookup. It
        shares this session's resolution cache; its lookups are not counted in :meth:`stats`.

        >>> from minruntime import QueueTree, Config, Queue
        >>> session = Session(QueueTree([Queue("q", reclaim_min_runtime="1h"), Queue("p")]),
        ...                   Config(), 0)
        >>> table = session.min_runtime_table("reclaim")
        >>> table["p", "q"], table["p", "q"] is table["p", "q"]
        (MinRuntime('1h'), True)
        """
        return _Table(self._resolver, _action(action))

    def min_runtime(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> MinRuntime:
        """The min-runtime that applies to ``victim`` when ``preemptor`` wants its resources.

        >>> from minruntime import QueueTree, Config, Queue, Job
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), 0)
        >>> session.min_runtime("preempt", Job("p", "q"), Job("v", "q"))
        MinRuntime('1h')
        """
        return self.resolve(action, preemptor.queue, victim.queue).min_runtime

    # -- jobs -----------------------------------------------------------------------------------

    def _fact(self, job: JobLike) -> JobFacts:
        return self._table.facts(job)

    def core_tasks(self, job: JobLike, *, computed: bool = False) -> tuple[TaskLike, ...]:
        """The tasks of ``job`` that preempt and reclaim never take back, so that they must fit
        in its queue's quota (docs/spec/preemptibility.md): every active task of a
        non-preemptible job, a semi-preemptible job's core, nothing of a preemptible job.

        A semi-preemptible job's core is the one its scheduler names (``core_pods``) where that
        names one of its active tasks (docs/decisions/core-pods.md), else the computed one: the
        first ``min_available`` active tasks of each pod set, in listing order; with a sub-group
        tree, of the sub-groups each set keeps, satisfied first, then by name
        (docs/spec/sub-group-trees.md). ``computed=True`` gives the computed core whatever
        ``core_pods`` says: compare the two to find a scheduler that disagrees.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=0)
        >>> etl = Job("etl", "q", preemptibility="semi-preemptible", pod_sets=[
        ...     PodSet(min_available=1, tasks=[Task("a", "Pending"), Task("b"), Task("c")])],
        ...     core_pods=["c"])
        >>> [task.id for task in session.core_tasks(etl)]
        ['c']
        >>> [task.id for task in session.core_tasks(etl, computed=True)]
        ['b']
        """
        facts = self._fact(job)
        if facts.semi:
            return facts.core_tasks(computed)
        if facts.preemptibility is Preemptibility.NON_PREEMPTIBLE:
            return facts.active_tasks()
        return ()

    # -- the rules ------------------------------------------------------------------------------

    def _settings(self, action: Action, preemptor_queue: str, victim_queue: str) -> Settings:
        return self._groups.settings(action, preemptor_queue, victim_queue)

    def _count(
        self,
        reasons: Sequence[Reason],
        lookups: int,
        misses: int,
        protections: Mapping[ProtectionKind, int],
    ) -> None:
        """Add what the engine counted for one call to the statistics (one step, under the
        lock, so that threads' calls all count). The reasons are kept as the engine returned
        them and added up when :meth:`stats` asks, or when many are kept (at most 65,536
        victims' or 256 calls')."""
        with self._lock:
            self._judged.append(reasons)
            self._held += len(reasons)
            if self._held > _HELD or len(self._judged) > _CALLS:
                self._add_up()
            self._lookups += lookups
            self._misses += misses
            if protections:
                self._counts.update(protections)

    def _add_up(self) -> None:
        """Count the reasons kept so far (the lock held)."""
        counts = self._counts
        for reasons in self._judged:
            counts.update(reasons)
        self._judged = []
        self._held = 0

    def _judge(
        self,
        action: Action,
        preemptor: JobFacts,
        rows: Sequence[int],
        *,
        ignore_delay: bool = False,
    ) -> list[Reason]:
        found = judge(
            action,
            preemptor,
            self._table,
            rows,
            self._groups,
            self._known,
            self._now_ns,
            ignore_delay=ignore_delay,
        )
        self._count(found.reasons, found.lookups, found.misses, found.protections)
        return found.reasons

    def _reason(self, action: Action, preemptor: JobFacts, victim: JobFacts) -> Reason:
        return self._judge(action, preemptor, [victim.row])[0]

    def _protection(
        self, action: Action, preemptor: JobFacts, victim: JobFacts
    ) -> tuple[Protection, Resolution, Settings]:
        """What protects the victim, its MR resolution and its settings: the one rule."""
        resolution = self._resolve(action, preemptor.queue, victim.queue)
        settings = self._settings(action, preemptor.queue, victim.queue)
        found = protection_of(victim, resolution.min_runtime, settings, self._now_ns)
        return found, resolution, settings

    def _until(
        self, victim: JobFacts, found: Protection, resolution: Resolution, settings: Settings
    ) -> datetime | None:
        """The protection's end; unprotected, when the effective MR ended or ends."""
        if found.until_ns is not None:
            return from_ns(found.until_ns)
        if victim.start_ns is None:
            return None
        effective = effective_min_runtime(
            resolution.min_runtime, victim.inputs().requested_ns, settings.max_job_min_runtime
        )
        return from_ns(victim.start_ns + effective.ns)

    # -- protection and filters -----------------------------------------------------------------

    def is_protected(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> bool:
        """Whether ``victim`` is protected now, fundamentals aside.

        Never protects whatever the start time; no start time is not protected; otherwise
        ``now < start + min_runtime``. With the protections beyond min-runtime in use
        (docs/spec/beyond-min-runtime.md), a job's own request, a spent eviction budget and the
        checkpoint grace protect too.

        >>> from minruntime import QueueTree, Config, Queue, Job
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=600)
        >>> session.is_protected("preempt", Job("p", "q"), Job("v", "q", start_time=0))
        True
        """
        found, _, _ = self._protection(_action(action), self._fact(preemptor), self._fact(victim))
        return found.kind is not None

    def protected_until(
        self, action: Action | str, preemptor: JobLike, victim: JobLike
    ) -> datetime | None:
        """When ``victim``'s protection ends: ``start + min_runtime``, ``FOREVER`` for never, or ``None``
        without a start time; with section 16 in use, the end of whatever protects it now.

        >>> from minruntime import QueueTree, Config, Queue, Job
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=600)
        >>> session.protected_until("preempt", Job("p", "q"), Job("v", "q", start_time=0)).isoformat()
        '1970-01-01T01:00:00+00:00'
        """
        return self.protection(action, preemptor, victim).protected_until

    def protection(
        self, action: Action | str, preemptor: JobLike, victim: JobLike
    ) -> ProtectionStatus:
        """Whether ``victim`` is protected now, by what, until when, under which min-runtime: the
        answers of :meth:`is_protected`, :meth:`protected_until` and :meth:`resolve` (between
        the two jobs' queues), from one evaluation of the rule. For a program that shows a
        protection rather than acts on it: :meth:`is_protected` alone is cheaper.

        >>> from minruntime import QueueTree, Config, Queue, Job
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=600)
        >>> status = session.protection("preempt", Job("p", "q"), Job("v", "q", start_time=0))
        >>> status.protected, str(status.protected_by), status.protected_until.isoformat()
        (True, 'min-runtime', '1970-01-01T01:00:00+00:00')
        >>> print(status.resolution)
        1h from queue 'q'
        """
        victim_facts = self._fact(victim)
        found, resolution, settings = self._protection(
            _action(action), self._fact(preemptor), victim_facts
        )
        return ProtectionStatus(
            resolution=resolution,
            protected_until=self._until(victim_facts, found, resolution, settings),
            protected_by=found.kind,
        )

    def min_runtime_filter(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> bool:
        """The reference plugin's filter hook: min-runtime's say alone, no fundamentals.

        False for a never min-runtime; true for elastic and semi-preemptible victims (the scenario
        validator judges them); otherwise true iff not protected, by every protection
        :meth:`is_protected` names: min-runtime and, where settings turn them on, a job's own
        request, the eviction budget and the checkpoint grace (docs/spec/beyond-min-runtime.md).

        >>> from minruntime import QueueTree, Config, Queue, Job
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime=-1)]), Config(), now=0)
        >>> session.min_runtime_filter("preempt", Job("p", "q"), Job("v", "q"))
        False
        """
        act = _action(action)
        facts = self._fact(victim)
        resolution = self._resolve(act, preemptor.queue, facts.queue)
        settings = self._settings(act, preemptor.queue, facts.queue)
        return min_runtime_filter(facts, resolution.min_runtime, settings, self._now_ns)

    def is_eligible(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> bool:
        """Whether ``victim`` (or, if elastic or semi-preemptible, part of it) may be evicted.

        The fundamentals of the action (not itself; preempt: same queue and strictly lower
        priority; reclaim: another queue; not non-preemptible; an active task; a known queue),
        then the protection rule.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=0)
        >>> victim = Job("v", "q", pod_sets=[PodSet(tasks=[Task("v-0")])])
        >>> session.is_eligible("preempt", Job("p", "q", priority=100), victim)
        True
        """
        return self._reason(_action(action), self._fact(preemptor), self._fact(victim)).allowed

    def eligible_victims(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[J]
    ) -> list[J]:
        """The eligible victims among ``victims``, in input order.

        Equal to filtering with :meth:`is_eligible` one by one. For many preemptors over the
        same running jobs, :meth:`cycle` answers each with less work.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=0)
        >>> victims = [Job(f"v{i}", "q", priority=50 * i, pod_sets=[PodSet(tasks=[Task("t")])])
        ...            for i in range(3)]
        >>> [v.id for v in session.eligible_victims("preempt", Job("p", "q", priority=60), victims)]
        ['v0', 'v1']
        """
        candidates = victims if isinstance(victims, list | tuple) else list(victims)
        reasons = self._judge(_action(action), self._fact(preemptor), self._table.rows(candidates))
        return list(compress(candidates, map(ALLOWED.__contains__, reasons)))

    def evictable_tasks(
        self, action: Action | str, preemptor: JobLike, victim: JobLike
    ) -> tuple[TaskLike, ...]:
        """The tasks of ``victim`` that may be evicted, in sacrifice order, surplus first.

        Nothing (an empty tuple) if the victim is not eligible; all its active tasks if it is
        eligible and not protected; per pod set the active tasks above ``min_available`` if it
        is protected and elastic, or semi-preemptible. The order (docs/spec/evictable-tasks.md,
        docs/decisions/surplus-first-order.md): with a sub-group tree, the sub-groups outside
        its core first, whole, the last listed first; then every pod set's tasks above its
        minimum, before any pod set loses a task it needs; then, for a victim that is not
        protected, the rest. Within each part, least important first (``task_order`` reversed;
        by default the reverse of the listing order).

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=60)
        >>> elastic = Job("v", "q", start_time=0,
        ...               pod_sets=[PodSet(min_available=1, tasks=[Task("a"), Task("b")])])
        >>> [t.id for t in session.evictable_tasks("preempt", Job("p", "q", priority=100), elastic)]
        ['b']
        >>> two = Job("w", "q", start_time=0, pod_sets=[PodSet("x", 1, [Task("x0"), Task("x1")]),
        ...                                             PodSet("y", 1, [Task("y0"), Task("y1")])])
        >>> [t.id for t in session.at(3600).evictable_tasks("preempt", Job("p", "q", priority=100), two)]
        ['y1', 'x1', 'y0', 'x0']
        """
        facts = self._fact(victim)
        reason = self._reason(_action(action), self._fact(preemptor), facts)
        return evictable_tasks(reason, facts, self._task_order)

    def next_expiry(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[JobLike]
    ) -> datetime | None:
        """When the next of ``victims`` stops being protected: the time to retry.

        Among the victims that pass every fundamental but are protected by a finite min-runtime (semi-
        preemptible ones excepted: their protection changes nothing), the earliest
        ``protected_until``; ``None`` if there is none.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=60)
        >>> victim = Job("v", "q", start_time=0, pod_sets=[PodSet(tasks=[Task("a")])])
        >>> session.next_expiry("preempt", Job("p", "q", priority=100), [victim]).isoformat()
        '1970-01-01T01:00:00+00:00'
        """
        act = _action(action)
        pre = self._fact(preemptor)
        table = self._table
        rows = table.rows(victims)
        held = pre.held_until_ns()
        delayed = is_held(held, self._now_ns)
        earliest: int | None = None
        for row, reason in zip(
            rows, self._judge(act, pre, rows, ignore_delay=delayed), strict=True
        ):
            if reason in _PROTECTED_REASONS or (
                reason is Reason.DEFERRED and not table.flags[row] & SEMI
            ):
                until = self._protection(act, pre, table.view(row))[0].until_ns
            elif delayed and reason in ALLOWED:
                until = self._now_ns  # free already: only the delay holds the preemptor back
            else:
                continue
            if until is not None and until < FOREVER_NS and (earliest is None or until < earliest):
                earliest = until
        if delayed:
            # the end of the delay, or the earliest moment a victim is free after it
            assert held is not None
            earliest = held if earliest is None else max(held, earliest)
            if earliest >= FOREVER_NS:
                return None
        return None if earliest is None else from_ns(earliest)

    # -- validation -----------------------------------------------------------------------------

    def validate(
        self, action: Action | str, preemptor: JobLike, evictions: Evictions[J]
    ) -> ScenarioResult:
        """Judge a scenario: would evicting these tasks break a protection or a semi-preemptible
        core?

        Args:
            action: preempt or reclaim (which min-runtime applies).
            preemptor: the pending job.
            evictions: victim job -> tasks (or task ids) to evict; a mapping or (job, tasks)
                pairs.

        Returns:
            A :class:`~minruntime.ScenarioResult`, false when invalid, naming every failure.

        Raises:
            InvalidScenario: if a victim does not have a task the scenario evicts.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=60)
        >>> elastic = Job("v", "q", start_time=0,
        ...               pod_sets=[PodSet(min_available=1, tasks=[Task("a"), Task("b")])])
        >>> print(session.validate("preempt", Job("p", "q"), {elastic: ["a", "b"]}))
        preempt scenario of 'p': invalid: job 'v' pod set 'default': 2 active - 2 evicted = 0 < min_available 1 (protected by min-runtime 1h until 1970-01-01T01:00:00Z)
        """
        act = _action(action)
        pre = self._fact(preemptor)
        pairs = evictions.items() if isinstance(evictions, Mapping) else evictions
        failures: list[Failure] = []
        for victim, tasks in pairs:
            facts = self._fact(victim)
            found, resolution, settings = self._protection(act, pre, facts)
            failures.extend(
                validate_victim(
                    facts,
                    tasks,
                    resolution.min_runtime,
                    found,
                    self._until(facts, found, resolution, settings),
                )
            )
        return ScenarioResult(action=act, preemptor=pre.id, failures=tuple(failures))

    # -- explanation ----------------------------------------------------------------------------

    def explain(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> Decision:
        """The full, immutable decision for one victim, with its reason and numbers.

        ``decision.allowed == is_eligible(...)``; ``str(decision)`` is one sentence.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime=-1)]), Config(), now=60)
        >>> victim = Job("v", "q", preemptibility="preemptible", start_time=0,
        ...              pod_sets=[PodSet(tasks=[Task("a")])])
        >>> print(session.explain("preempt", Job("p", "q", priority=100), victim))
        preempt of 'v' by 'p': refused: min-runtime never from queue 'q': never evicted by preempt
        """
        act = _action(action)
        pre = self._fact(preemptor)
        facts = self._fact(victim)
        reason = self._reason(act, pre, facts)
        held = pre.held_until_ns()
        delayed = reason is Reason.PREEMPTOR_DELAYED
        found, resolution, settings = self._protection(act, pre, facts)
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
                f"({facts.priority} {comparison} {self._threshold})"
            )
        flat = facts.flat
        optional: tuple[str, ...] = ()
        if not flat and reason.allowed:
            optional = tuple(str(node.name) for node in reversed(facts.shape.split()[1]))
        unsaved = None
        if settings is not NO_SETTINGS:
            notes.extend(self._protection_notes(facts, resolution, settings, found))
            tasks = evictable_tasks(reason, facts, self._task_order) or facts.active_tasks()
            unsaved = unsaved_work(facts, tasks, self._now_ns)
        return Decision(
            action=act,
            preemptor=pre.id,
            victim=facts.id,
            allowed=reason.allowed,
            reason=reason,
            min_runtime=resolution.min_runtime,
            source=resolution.source,
            preemptibility=facts.preemptibility,
            start_time=None if facts.start_ns is None else from_ns(facts.start_ns),
            protected_until=self._until(facts, found, resolution, settings),
            now=self.now,
            notes=tuple(notes),
            protected_by=found.kind,
            unsaved_work=unsaved,
            elastic=facts.elastic,
            sub_group_tree=not flat,
            optional_sub_groups=optional,
            preemption_delay=pre.inputs().delay if delayed else None,
            delayed_until=from_ns(held) if delayed and held is not None else None,
        )

    def _protection_notes(
        self, victim: JobFacts, resolution: Resolution, settings: Settings, found: Protection
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
            recent = evictions_in_window(inputs, window, self._now_ns)
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

    # -- unsaved work, ranking and selection ----------------------------------------------------

    def unsaved_work(self, victim: JobLike, tasks: Iterable[TaskLike] | None = None) -> float:
        """The work evicting ``tasks`` of ``victim`` now would lose
        (docs/spec/beyond-min-runtime.md).

        Seconds since its work was last saved (its last checkpoint of this run, else the end of
        its restore after the start), times the summed weight of the tasks (default: all its
        active tasks; a task's weight defaults to 1). Zero with no start time.

        >>> from minruntime import Config, Job, JobInputs, PodSet, QueueTree, Queue, Task
        >>> job = Job("j", "q", start_time=0, inputs=JobInputs(last_checkpoint=600),
        ...           pod_sets=[PodSet(min_available=2, tasks=[Task("a", weight=8), Task("b", weight=8)])])
        >>> Session(QueueTree([Queue("q")]), Config(), now=900).unsaved_work(job)
        4800.0
        """
        facts = self._fact(victim)
        return unsaved_work(facts, facts.active_tasks() if tasks is None else tasks, self._now_ns)

    def _candidates(
        self, action: Action, preemptor: JobLike, victims: Iterable[J]
    ) -> tuple[list[Candidate[J]], dict[int, JobFacts]]:
        pre = self._fact(preemptor)
        jobs = list(victims)
        table = self._table
        rows = table.rows(jobs)
        reasons = self._judge(action, pre, rows)
        order = self._task_order
        now_ns = self._now_ns
        candidates: list[Candidate[J]] = []
        by_index: dict[int, JobFacts] = {}
        for index, (job, row, reason) in enumerate(zip(jobs, rows, reasons, strict=True)):
            if reason in ALLOWED:
                fact = table.view(row)
                tasks = evictable_tasks(reason, fact, order)
                candidates.append(
                    (unsaved_work(fact, tasks, now_ns), fact.priority, index, job, tasks)
                )
                by_index[index] = fact
        return candidates, by_index

    def rank_victims(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[J]
    ) -> list[J]:
        """The eligible victims, cheapest first: least unsaved work, then lower priority, then
        input order.

        Unsaved work counts only the tasks that would go: for an elastic or semi-preemptible
        victim kept at its minimum, the tasks above it. A scheduler that takes victims from the
        front loses the least work. Equal to :meth:`eligible_victims` reordered.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=600)
        >>> old = Job("old", "q", start_time=0, pod_sets=[PodSet(tasks=[Task("a")])])
        >>> new = Job("new", "q", start_time=500, pod_sets=[PodSet(tasks=[Task("b")])])
        >>> [v.id for v in session.rank_victims("preempt", Job("p", "q", priority=100), [old, new])]
        ['new', 'old']
        """
        candidates, _ = self._candidates(_action(action), preemptor, victims)
        return [item[3] for item in rank(candidates)]

    def select(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[J], needed: float
    ) -> Selection[J]:
        """The cheapest eligible victims, in :meth:`rank_victims` order, whose evictable tasks
        free at least ``needed`` (by task weight; a task weighs 1 unless it says otherwise).

        The shortest such prefix of the ranking; when even every eligible victim is not
        enough, all of them, and the selection's ``shortfall`` says how much is missing.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=600)
        >>> jobs = [Job(f"v{i}", "q", start_time=100 * i, pod_sets=[PodSet(tasks=[Task(f"t{i}", weight=4)])])
        ...         for i in range(3)]
        >>> chosen = session.select("preempt", Job("p", "q", priority=100), jobs, needed=6)
        >>> [v.id for v in chosen.victims], chosen.freed, chosen.shortfall
        (['v2', 'v1'], 8.0, 0.0)
        >>> session.select("preempt", Job("p", "q", priority=100), jobs, needed=20).shortfall
        8.0
        """
        candidates, by_index = self._candidates(_action(action), preemptor, victims)
        ranked = rank(candidates)
        return select(ranked, [by_index[item[2]] for item in ranked], float(needed))

    # -- the cycle form -------------------------------------------------------------------------

    def cycle(self, running: Iterable[J]) -> Cycle[J]:
        """The running jobs of this cycle, indexed once so that each preemptor's question costs
        work that grows with the number of victim queues and the size of the answer, not with
        the number of running jobs.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), now=0)
        >>> running = [Job(f"v{i}", "a", pod_sets=[PodSet(tasks=[Task("t")])]) for i in range(3)]
        >>> cycle = session.cycle(running)
        >>> [v.id for v in cycle.eligible_victims("reclaim", Job("p", "b"))]
        ['v0', 'v1', 'v2']
        """
        return Cycle(self, running)

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
        with self._lock:
            self._add_up()
            counts = dict(self._counts)
            lookups, misses = self._lookups, self._misses
        return SessionStats(
            decisions={reason.value: counts[reason] for reason in Reason if counts.get(reason)},
            resolutions=lookups,
            cache_hits=lookups - misses,
            jobs=len(self._table),
            protections={
                kind.value: counts[kind]
                for kind in sorted(ProtectionKind, key=lambda kind: kind.value)
                if counts.get(kind)
            },
        )


class _Table(dict[tuple[str, str], MinRuntime]):
    """(preemptor queue, victim queue) -> MR for one action; fills itself on first use."""

    __slots__ = ("_action", "_resolver")

    def __init__(self, resolver: Resolver, action: Action) -> None:
        super().__init__()
        self._resolver = resolver
        self._action = action

    def __missing__(self, key: tuple[str, str]) -> MinRuntime:
        value = self[key] = self._resolver.resolve(self._action, *key).min_runtime
        return value


class Cycle(Generic[J]):
    """A session's running jobs, indexed once for the many preemptors of a scheduling cycle.

    Build one with :meth:`Session.cycle`. Each question costs work that grows with the number
    of victim queues and the size of the answer, not with the number of running jobs: the
    min-runtime rule is evaluated once per group of victims that share a resolution, and each
    group is split by a binary search over start times.

    Answers are exactly :meth:`Session.eligible_victims`'s over the running jobs, in the same
    order: the order of ``running`` (docs/decisions/cycle-answer-order.md).

    >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
    >>> tree = QueueTree([Queue("org", reclaim_min_runtime="1h"), Queue("a", "org"), Queue("b", "org")])
    >>> session = Session(tree, Config(), now=7200)
    >>> running = [Job(name, "a", start_time=start, pod_sets=[PodSet(tasks=[Task(f"{name}-0")])])
    ...            for name, start in [("young", 5000), ("old", 0), ("mid", 3600)]]
    >>> cycle = session.cycle(running)
    >>> [job.id for job in cycle.eligible_victims("reclaim", Job("p", "b"))]
    ['old', 'mid']
    """

    __slots__ = ("_index", "_session")

    def __init__(self, session: Session, running: Iterable[J]) -> None:
        self._session = session
        jobs = list(running)
        table = session._table
        self._index: VictimIndex[J] = VictimIndex(
            jobs, table.rows(jobs), table, session.tree, session._resolver
        )

    def __len__(self) -> int:
        """How many running jobs the cycle holds."""
        return len(self._index.jobs)

    def eligible_victims(self, action: Action | str, preemptor: JobLike) -> list[J]:
        """The running jobs ``preemptor`` may take (or, elastic or semi-preemptible, part of).

        The same list as :meth:`Session.eligible_victims` over the running jobs, in their
        order.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=0)
        >>> cycle = session.cycle([Job("v", "q", priority=10, pod_sets=[PodSet(tasks=[Task("t")])])])
        >>> [job.id for job in cycle.eligible_victims("preempt", Job("p", "q", priority=20))]
        ['v']
        """
        session = self._session
        pre = session._fact(preemptor)
        found = self._index.eligible(_action(action), pre, session._groups, session._now_ns)
        session._count(found.decisions, found.lookups, found.misses, found.protections)
        victims: list[J] = found.victims
        return victims

    def select(self, action: Action | str, preemptor: JobLike, needed: float) -> Selection[J]:
        """:meth:`Session.select` over the running jobs: the cheapest eligible victims whose
        evictable tasks free at least ``needed``; work grows with the eligible victims.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), now=600)
        >>> cycle = session.cycle([Job(f"v{i}", "a", start_time=100 * i,
        ...                            pod_sets=[PodSet(tasks=[Task(f"t{i}")])]) for i in range(3)])
        >>> [job.id for job in cycle.select("reclaim", Job("p", "b"), needed=2).victims]
        ['v2', 'v1']
        """
        act = _action(action)
        return self._session.select(act, preemptor, self.eligible_victims(act, preemptor), needed)

    def next_expiry(self, action: Action | str, preemptor: JobLike) -> datetime | None:
        """:meth:`Session.next_expiry` over the running jobs: when to retry.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b")]), Config(), now=0)
        >>> cycle = session.cycle([Job("v", "a", start_time=0, pod_sets=[PodSet(tasks=[Task("t")])])])
        >>> cycle.next_expiry("reclaim", Job("p", "b")).isoformat()
        '1970-01-01T01:00:00+00:00'
        """
        return self._session.next_expiry(action, preemptor, self._index.jobs)

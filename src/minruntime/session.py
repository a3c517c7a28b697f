"""The Session: the facade a scheduling loop builds once per cycle and asks about victims.

A session holds the queue tree, the configuration and ``now``. It resolves each min-runtime
once per distinct (action, preemptor queue, victim queue), computes each job's derived facts
once, and answers every question at the same instant ``now``, which it never reads from a clock.
Every answer about a victim is a view of one verdict (minruntime's private engine): its reason,
protection, evictable tasks, unsaved work and rank key, each from the one rule that owns it.

>>> from datetime import datetime, timezone
>>> from minruntime import Action, Config, Job, PodSet, Queue, QueueTree, Session, Task
>>> tree = QueueTree([Queue("org", reclaim_min_runtime="30m"), Queue("a", "org"), Queue("b", "org")])
>>> now = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
>>> session = Session(tree, Config(), now)
>>> pending = Job("pending", "b", priority=100)
>>> young = Job("young", "a", preemptibility="preemptible", start_time=datetime(2026, 11, 22, 11, 50, tzinfo=timezone.utc),
...             pod_sets=[PodSet(tasks=[Task("young-0")])])
>>> verdict = session.verdict(Action.RECLAIM, pending, young)
>>> verdict.allowed
False
>>> print(verdict)
reclaim of 'young' by 'pending': refused: min-runtime 30m from queue 'org': started 2026-11-22T11:50:00Z, protected until 2026-11-22T12:20:00Z
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from datetime import datetime
from itertools import compress
from typing import Final, Generic, TypeVar

import attrs

from minruntime._cycle import VictimIndex
from minruntime._eligibility import Groups, judge, kept_refusal
from minruntime._evictable import TaskOrder
from minruntime._facts import FactsTable, JobFacts
from minruntime._plan import ranked, take
from minruntime._protection import is_held
from minruntime._ranking import unsaved_work
from minruntime._resolution import Resolver
from minruntime._time import Instant, from_ns, to_ns
from minruntime._validation import validate_victim
from minruntime._verdict import NO_CLAIMS, Context, retry_ns, retry_of
from minruntime._verdict import Verdict as Judged
from minruntime.config import Config
from minruntime.decisions import (
    ALLOWED,
    Action,
    Failure,
    Plan,
    ProtectionKind,
    ProtectionStatus,
    Reason,
    Resolution,
    ScenarioResult,
    Verdict,
)
from minruntime.errors import InvalidScenario, PlanConflict
from minruntime.jobs import JobLike, TaskLike
from minruntime.preemptibility import LEGACY_PRIORITY_THRESHOLD, Preemptibility
from minruntime.queues import QueueTree
from minruntime.resources import Resources, ResourcesLike

__all__ = ["Cycle", "Session", "SessionStats"]


def __dir__() -> list[str]:
    return __all__


J = TypeVar("J", bound=JobLike)

_HELD: Final = 1 << 16
"""How many victims' reasons a session keeps before it adds them up (see ``Session._count``)."""
_CALLS: Final = 256
"""How many calls' reasons it keeps at most (many one-victim questions: a bounded list)."""

Evictions = Mapping[J, Iterable[object]] | Iterable[tuple[J, Iterable[object]]]
"""A scenario's evictions: victim job -> the tasks (or task ids) it would lose; a mapping, or
(job, tasks) pairs where the jobs are not hashable."""

Claims = Mapping[int, frozenset[Hashable]]
"""A cycle's committed tasks: a victim's row -> the ids of its tasks that are committed."""
_NO_CLAIMS: Final[Claims] = {}
_MEMO: Final = 8
"""How many (action, preemptor) pairs' verdicts a session keeps."""


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
            request lengthened its min-runtime), elastic victims they held to their minimum
            included. Empty when unused.

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
            sacrifice order of a verdict's ``tasks`` is the key's reverse. Default: the job's
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
    >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="5m")]), Config(), now=0)
    >>> session.resolve("preempt", "q", "q").min_runtime
    MinRuntime('5m')
    """

    __slots__ = (
        "_context",
        "_counts",
        "_groups",
        "_held",
        "_judged",
        "_known",
        "_lock",
        "_lookups",
        "_memo",
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
    ) -> None:
        self._start(tree, config, now, legacy_priority_threshold, task_order, None)

    def _start(
        self,
        tree: QueueTree,
        config: Config,
        now: Instant,
        threshold: int,
        task_order: TaskOrder | None,
        resolver: Resolver | None,
    ) -> None:
        self.tree = tree
        self.config = config
        self._now_ns = now_ns = to_ns(now, "the session's now")
        self._now: datetime | None = None
        self._threshold = threshold
        self._task_order = task_order
        self._resolver = resolver if resolver is not None else Resolver(tree, config)
        self._table = FactsTable(threshold)
        self._known = known = tree.names()
        self._groups = groups = Groups(self._resolver, now_ns)
        self._context = Context(groups, known, now_ns, task_order, config.cost_resource, threshold)
        self._lock = threading.Lock()
        self._memo: dict[tuple[Action, int, bool, int], tuple[Claims, dict[int, Judged]]] = {}
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
        later = Session.__new__(Session)
        later._start(self.tree, self.config, now, self._threshold, self._task_order, self._resolver)
        return later

    # -- min-runtime ----------------------------------------------------------------------------

    def resolve(self, action: Action | str, preemptor_queue: str, victim_queue: str) -> Resolution:
        """The min-runtime for ``action`` between two queues, and the queue whose setting
        produced it: the one way to ask a min-runtime.

        An unknown queue gives the node-pool default, and the resolution says which queue was
        unknown. For preempt the preemptor's queue does not matter (pass the victim's).

        >>> from minruntime import QueueTree, Config, Queue
        >>> session = Session(QueueTree([Queue("q", reclaim_min_runtime="1h"), Queue("p")]), Config(), 0)
        >>> session.resolve("reclaim", "p", "q").min_runtime
        MinRuntime('1h')
        >>> print(session.resolve("reclaim", "other", "q"))
        0s (node-pool default; queue 'other' is not in the tree)
        """
        result, computed = self._resolver.lookup(_action(action), preemptor_queue, victim_queue)
        with self._lock:
            self._lookups += 1
            self._misses += computed
        return result

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

    def _verdicts(
        self,
        action: Action,
        preemptor: JobFacts,
        rows: Sequence[int],
        claims: Claims = _NO_CLAIMS,
        *,
        ignore_delay: bool = False,
    ) -> list[Judged]:
        """One verdict per victim row, in order: each (action, preemptor, victim) judged once.

        The verdicts of the last few (action, preemptor) pairs are kept, so that the questions
        a caller asks in turn about the same victims (their verdicts, then a plan, then the
        retry time) judge each victim once; the reasons of the rows not yet judged are judged
        as one batch. Claims (a cycle's commits) are part of the key: a commit makes new ones.
        """
        key = (action, preemptor.row, ignore_delay, id(claims))
        memo = self._memo
        entry = memo.get(key)
        if entry is None or entry[0] is not claims:
            entry = (claims, {})
            with self._lock:
                memo[key] = entry
                if len(memo) > _MEMO:
                    del memo[next(iter(memo))]
        known = entry[1]
        missing = [row for row in dict.fromkeys(rows) if row not in known]
        if missing:
            table, context = self._table, self._context
            reasons = self._judge(action, preemptor, missing, ignore_delay=ignore_delay)
            for row, reason in zip(missing, reasons, strict=True):
                claimed = claims.get(row, NO_CLAIMS) if claims else NO_CLAIMS
                made = Judged(action, preemptor, table.view(row), reason, context, claimed)
                known.setdefault(row, made)  # a thread that lost the race uses the first
        return [known[row] for row in rows]

    def _one(
        self, action: Action | str, preemptor: JobLike, victim: JobLike, claims: Claims = _NO_CLAIMS
    ) -> Judged:
        pre = self._fact(preemptor)
        return self._verdicts(_action(action), pre, [self._table.row(victim)], claims)[0]

    # -- one victim -----------------------------------------------------------------------------

    def verdict(self, action: Action | str, preemptor: JobLike, victim: JobLike) -> Verdict:
        """Everything about one victim: whether it may be evicted and why, what protects it and
        until when, which of its tasks may go (sacrifice order), the unsaved work they hold and
        its rank key (a :class:`~minruntime.Verdict`); ``str()`` of it is one sentence.

        The fundamentals of the action (not itself; preempt: same queue and strictly lower
        priority; reclaim: another queue; not non-preemptible; an active task; a known queue),
        then the protection rule (docs/spec/filters.md). Evictable tasks: nothing when refused;
        every active task when eligible and not protected; per pod set the active tasks above
        ``min_available`` when protected and elastic, or semi-preemptible; in sacrifice order,
        surplus first (docs/spec/evictable-tasks.md).

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=60)
        >>> two = Job("w", "q", preemptibility="preemptible", start_time=0,
        ...           pod_sets=[PodSet("x", 1, [Task("x0"), Task("x1")]),
        ...                     PodSet("y", 1, [Task("y0"), Task("y1")])])
        >>> verdict = session.verdict("preempt", Job("p", "q", priority=100), two)
        >>> verdict.allowed, [task.id for task in verdict.tasks]
        (True, ['y1', 'x1'])
        >>> [t.id for t in session.at(3600).verdict("preempt", Job("p", "q", priority=100), two).tasks]
        ['y1', 'x1', 'y0', 'x0']
        >>> never = Session(QueueTree([Queue("q", preempt_min_runtime=-1)]), Config(), now=60)
        >>> print(never.verdict("preempt", Job("p", "q", priority=100), two))
        preempt of 'w' by 'p': refused: min-runtime never from queue 'q': never evicted by preempt
        """
        return self._one(action, preemptor, victim).render()

    def verdicts(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[JobLike]
    ) -> list[Verdict]:
        """:meth:`verdict` of each of ``victims``, in order, judged as one batch.

        A program that shows every victim (a report, a dashboard) asks this once; a plan for
        the same preemptor and victims afterwards reuses the same verdicts.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=0)
        >>> victims = [Job(f"v{i}", "q", priority=50 * i, pod_sets=[PodSet(tasks=[Task("t")])])
        ...            for i in range(3)]
        >>> [str(v.reason) for v in session.verdicts("preempt", Job("p", "q", priority=60), victims)]
        ['eligible', 'eligible', 'not-lower-priority']
        """
        pre = self._fact(preemptor)
        rows = self._table.rows(victims)
        return [judged.render() for judged in self._verdicts(_action(action), pre, rows)]

    def protection(
        self, action: Action | str, preemptor: JobLike, victim: JobLike
    ) -> ProtectionStatus:
        """Whether ``victim`` is protected now, by what, until when and under which min-runtime,
        fundamentals aside: the one way to ask a protection (a view of its verdict).

        Never protects whatever the start time; no start time is not protected; otherwise
        ``now < start + min-runtime``. With the protections beyond min-runtime in use
        (docs/spec/beyond-min-runtime.md), a job's own request, a spent eviction budget and the
        checkpoint grace protect too. ``protected_until`` is when the protection ends (for a
        victim that is not protected, when its min-runtime ended; ``None`` without a start).

        >>> from minruntime import QueueTree, Config, Queue, Job
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=600)
        >>> status = session.protection("preempt", Job("p", "q"), Job("v", "q", start_time=0))
        >>> status.protected, str(status.protected_by), status.protected_until.isoformat()
        (True, 'min-runtime', '1970-01-01T01:00:00+00:00')
        >>> print(status.resolution)
        1h from queue 'q'
        """
        return _status(self._one(action, preemptor, victim))

    def protections(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[JobLike]
    ) -> list[ProtectionStatus]:
        """:meth:`protection` of each of ``victims``, in order, judged as one batch.

        A protection depends on the preemptor only through its queue (the min-runtime resolves
        between the two queues), so a program that shows how long each job of a queue is
        protected from its own queue's preempt asks this once per queue, with any job of that
        queue as the preemptor.

        >>> from minruntime import QueueTree, Config, Queue, Job
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=600)
        >>> jobs = [Job("a", "q", start_time=0), Job("b", "q", start_time=-3600), Job("c", "q")]
        >>> [status.protected for status in session.protections("preempt", jobs[0], jobs)]
        [True, False, False]
        """
        pre = self._fact(preemptor)
        rows = self._table.rows(victims)
        return [_status(judged) for judged in self._verdicts(_action(action), pre, rows)]

    # -- many victims ---------------------------------------------------------------------------

    def eligible_victims(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[J]
    ) -> list[J]:
        """The victims ``preemptor`` may take (or, elastic or semi-preemptible, part of), in
        input order: their verdicts' ``allowed``, judged as one batch.

        For many preemptors over the same running jobs, :meth:`cycle` answers each with less
        work.

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

    def _candidates(
        self,
        action: Action,
        preemptor: JobLike,
        victims: Sequence[J],
        rows: Sequence[int],
        claims: Claims = _NO_CLAIMS,
    ) -> list[tuple[int, J, Judged]]:
        """The eligible victims with their verdicts, cheapest first."""
        pre = self._fact(preemptor)
        verdicts = self._verdicts(action, pre, rows, claims)
        return ranked(zip(range(len(victims)), victims, verdicts, strict=True))

    def rank_victims(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[J]
    ) -> list[J]:
        """The eligible victims, cheapest first: least unsaved work, then lower priority, then
        fewer recent evictions, then the later start, then input order (their verdicts' rank
        keys, docs/spec/beyond-min-runtime.md).

        Unsaved work counts only the tasks that would go: for an elastic or semi-preemptible
        victim kept at its minimum, the tasks above it. A scheduler that takes victims from the
        front loses the least work; ties spread the evictions (docs/decisions/ranking-ties.md).
        Equal to :meth:`eligible_victims` reordered.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=600)
        >>> old = Job("old", "q", start_time=0, pod_sets=[PodSet(tasks=[Task("a")])])
        >>> new = Job("new", "q", start_time=500, pod_sets=[PodSet(tasks=[Task("b")])])
        >>> [v.id for v in session.rank_victims("preempt", Job("p", "q", priority=100), [old, new])]
        ['new', 'old']
        """
        jobs = victims if isinstance(victims, list | tuple) else list(victims)
        found = self._candidates(_action(action), preemptor, jobs, self._table.rows(jobs))
        return [job for _, job, _ in found]

    def _retry_ns(
        self,
        action: Action,
        pre: JobFacts,
        rows: Sequence[int],
        claims: Claims = _NO_CLAIMS,
    ) -> int | None:
        held = pre.held_until_ns()
        delayed = is_held(held, self._now_ns)
        entry = self._memo.get((action, pre.row, delayed, id(claims)))
        if entry is not None and entry[0] is claims and all(row in entry[1] for row in rows):
            # every victim judged already (a report's verdicts, then its plan): read them
            known = entry[1]
            return retry_of([known[row] for row in rows], held, delayed)
        reasons = self._judge(action, pre, rows, ignore_delay=delayed)
        return retry_ns(
            action, pre, self._table, rows, reasons, self._context, claims, held, delayed
        )

    def next_expiry(
        self, action: Action | str, preemptor: JobLike, victims: Iterable[JobLike]
    ) -> datetime | None:
        """When the next of ``victims`` stops being protected: the time to retry.

        Among the victims that pass every fundamental but are protected by a finite min-runtime
        (semi-preemptible ones excepted: their protection changes nothing), the earliest end of
        the protection; ``None`` if there is none. While the preemptor is within its preemption
        delay, the end of the delay, or the first moment both have passed
        (docs/spec/preemption-delay.md).

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=60)
        >>> victim = Job("v", "q", start_time=0, pod_sets=[PodSet(tasks=[Task("a")])])
        >>> session.next_expiry("preempt", Job("p", "q", priority=100), [victim]).isoformat()
        '1970-01-01T01:00:00+00:00'
        """
        end = self._retry_ns(_action(action), self._fact(preemptor), self._table.rows(victims))
        return None if end is None else from_ns(end)

    # -- plans ----------------------------------------------------------------------------------

    def plan(
        self,
        action: Action | str,
        preemptor: JobLike,
        victims: Iterable[J],
        need: ResourcesLike,
    ) -> Plan[J]:
        """What ``preemptor`` takes of ``victims`` for ``need`` (docs/spec/plans.md): victims
        cheapest first (:meth:`rank_victims`), each victim's evictable tasks in sacrifice order,
        one task at a time until every resource of the need is covered, never more; a task
        that frees nothing still missing is passed over. For several preemptors in one cycle,
        use :meth:`Cycle.plan` and :meth:`Cycle.commit`, so that no two take the same task.

        Args:
            action: preempt or reclaim.
            preemptor: the pending job.
            victims: the running jobs it may take from.
            need: what it needs: a mapping from resource names to amounts (``{"pods": 2}``
                counts tasks).

        Raises:
            InvalidResources: for a need that is not such a mapping.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=600)
        >>> gpus = {"nvidia.com/gpu": 1}
        >>> elastic = Job("v", "q", start_time=0, pod_sets=[PodSet(min_available=2, tasks=[
        ...     Task(f"v-{i}", resources=gpus) for i in range(8)])])
        >>> plan = session.plan("preempt", Job("p", "q", priority=100), [elastic], {"nvidia.com/gpu": 4})
        >>> [task.id for task in plan.tasks[0]], plan.freed["nvidia.com/gpu"], bool(plan)
        (['v-7', 'v-6', 'v-5', 'v-4'], 4, True)
        """
        act = _action(action)
        wanted = Resources(need, origin="need")
        jobs = victims if isinstance(victims, list | tuple) else list(victims)
        rows = self._table.rows(jobs)
        order = self._candidates(act, preemptor, jobs, rows)
        pre = self._fact(preemptor)
        return take(act, preemptor, order, wanted, lambda: self._retry_ns(act, pre, rows))

    # -- validation -----------------------------------------------------------------------------

    def _failures(
        self,
        action: Action,
        pre: JobFacts,
        victim: JobLike,
        evicted: Iterable[object],
        claims: Claims,
    ) -> list[Failure]:
        row = self._table.row(victim)
        judged = Judged(action, pre, self._table.view(row), Reason.ELIGIBLE, self._context)
        found, resolution, _ = judged.protection()
        end = judged.end_ns()
        claimed = claims.get(row)
        if claimed:
            evicted = [*claimed, *(getattr(task, "id", task) for task in evicted)]
        return validate_victim(
            judged.facts,
            evicted,
            resolution.min_runtime,
            found,
            None if end is None else from_ns(end),
        )

    def _validate(
        self, action: Action | str, preemptor: JobLike, evictions: Evictions[J], claims: Claims
    ) -> ScenarioResult:
        act = _action(action)
        pre = self._fact(preemptor)
        pairs = evictions.items() if isinstance(evictions, Mapping) else evictions
        failures: list[Failure] = []
        for pair in pairs:
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise InvalidScenario(
                    "evictions: expected (job, tasks) pairs, or a mapping from job to tasks "
                    f"where the jobs are hashable, got {pair!r:.80}"
                )
            victim, tasks = pair
            failures.extend(self._failures(act, pre, victim, tasks, claims))
        return ScenarioResult(action=act, preemptor=pre.id, failures=tuple(failures))

    def validate(
        self, action: Action | str, preemptor: JobLike, evictions: Evictions[J]
    ) -> ScenarioResult:
        """Judge a scenario: would evicting these tasks break a protection or a semi-preemptible
        core?

        Args:
            action: preempt or reclaim (which min-runtime applies).
            preemptor: the pending job.
            evictions: the tasks (or task ids) to evict of each victim: (job, tasks) pairs, or
                a mapping from job to tasks where the jobs are hashable.

        Returns:
            A :class:`~minruntime.ScenarioResult`, false when invalid, naming every failure.

        Raises:
            InvalidScenario: if a victim does not have a task the scenario evicts.

        >>> from minruntime import QueueTree, Config, Queue, Job, PodSet, Task
        >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=60)
        >>> elastic = Job("v", "q", start_time=0,
        ...               pod_sets=[PodSet(min_available=1, tasks=[Task("a"), Task("b")])])
        >>> print(session.validate("preempt", Job("p", "q"), [(elastic, ["a", "b"])]))
        preempt scenario of 'p': invalid: job 'v' pod set 'default': 2 active - 2 evicted = 0 < min_available 1 (protected by min-runtime 1h until 1970-01-01T01:00:00Z)
        """
        return self._validate(action, preemptor, evictions, _NO_CLAIMS)

    # -- unsaved work ------------------------------------------------------------------------

    def unsaved_work(self, victim: JobLike, tasks: Iterable[TaskLike] | None = None) -> float:
        """The work evicting ``tasks`` of ``victim`` now would lose (docs/spec/beyond-min-runtime.md):
        the seconds since its work was last saved times the tasks' summed weight (a task's
        weight: what it holds of the configuration's cost resource, else 1). Default: all its
        active tasks. A verdict's ``unsaved_work`` and a plan's ``lost`` are this, for the tasks
        they name.

        >>> from minruntime import Config, Job, JobInputs, PodSet, QueueTree, Queue, Task
        >>> gpus = {"nvidia.com/gpu": 8}
        >>> job = Job("j", "q", start_time=0, inputs=JobInputs(last_checkpoint=600),
        ...           pod_sets=[PodSet(tasks=[Task("a", resources=gpus), Task("b", resources=gpus)])])
        >>> Session(QueueTree([Queue("q")]), Config(), now=900).unsaved_work(job)
        4800.0
        """
        facts = self._fact(victim)
        chosen = facts.active_tasks() if tasks is None else tasks
        return unsaved_work(facts, chosen, self._now_ns, self.config.cost_resource)

    # -- the cycle form -------------------------------------------------------------------------

    def cycle(self, running: Iterable[J]) -> Cycle[J]:
        """The running jobs of this cycle, indexed once for its many preemptors: each question
        costs work that grows with the number of victim queues and the size of the answer, not
        with the number of running jobs, and plans committed to it are remembered
        (:meth:`Cycle.commit`).

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
        >>> _ = session.resolve("preempt", "q", "q").min_runtime, session.resolve("preempt", "q", "q").min_runtime
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


class Cycle(Generic[J]):
    """A session's running jobs, indexed once for the many preemptors of a scheduling cycle,
    and the plans committed so far (docs/spec/plans.md).

    Build one with :meth:`Session.cycle`. Each preemptor's question costs work that grows with
    the number of victim queues and the size of the answer, not with the number of running
    jobs: the min-runtime rule is evaluated once per group of victims that share a resolution,
    and each group is split by a binary search over start times.

    A cycle remembers what it gave away: :meth:`commit` records a plan's tasks as leaving, and
    no later answer of the cycle (eligibility, verdicts, plans, validation, the retry time)
    offers them again; each victim is judged on what it keeps. Its answers equal those of a
    fresh cycle over the same jobs to which every committed task was committed at once. Answers
    list victims in the order of ``running`` (docs/decisions/cycle-answer-order.md). A cycle may
    be shared between threads: two plans that take the same task cannot both be committed.

    >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
    >>> session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), now=600)
    >>> running = [Job(f"v{i}", "a", start_time=100 * i, pod_sets=[PodSet(min_available=0,
    ...            tasks=[Task(f"v{i}-{k}") for k in range(2)])]) for i in range(2)]
    >>> cycle = session.cycle(running)
    >>> first = cycle.plan("reclaim", Job("p1", "b"), {"pods": 3})
    >>> [[task.id for task in tasks] for tasks in first.tasks]
    [['v1-1', 'v1-0'], ['v0-1']]
    >>> cycle.commit(first)
    >>> second = cycle.plan("reclaim", Job("p2", "b"), {"pods": 3})
    >>> [[task.id for task in tasks] for tasks in second.tasks], dict(second.missing)
    ([['v0-0']], {'pods': 2})
    """

    __slots__ = ("_claims", "_index", "_lock", "_members", "_rows", "_session")

    def __init__(self, session: Session, running: Iterable[J]) -> None:
        self._session = session
        jobs = list(running)
        table = session._table
        self._rows = rows = table.rows(jobs)
        self._index: VictimIndex[J] = VictimIndex(
            jobs, rows, table, session.tree, session._resolver
        )
        self._members: frozenset[int] | None = None
        self._claims: Claims = _NO_CLAIMS
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many running jobs the cycle holds."""
        return len(self._index.jobs)

    def _eligible(self, action: Action, pre: JobFacts, claims: Claims) -> list[int]:
        """The input indices of the running jobs ``pre`` may take, in input order."""
        session = self._session
        found = self._index.eligible(action, pre, session._groups, session._now_ns)
        session._count(found.decisions, found.lookups, found.misses, found.protections)
        indices: list[int] = found.victims
        if claims:  # a victim is judged on what it keeps
            table, rows = session._table, self._rows
            indices = [
                index
                for index in indices
                if (claimed := claims.get(rows[index])) is None
                or kept_refusal(Reason.ELIGIBLE, table.view(rows[index]), claimed) is None
            ]
        return indices

    def eligible_victims(self, action: Action | str, preemptor: JobLike) -> list[J]:
        """The running jobs ``preemptor`` may take (or, elastic or semi-preemptible, part of),
        in their order: :meth:`Session.eligible_victims` over the running jobs, less what the
        committed plans took.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("q")]), Config(), now=0)
        >>> cycle = session.cycle([Job("v", "q", priority=10, pod_sets=[PodSet(tasks=[Task("t")])])])
        >>> [job.id for job in cycle.eligible_victims("preempt", Job("p", "q", priority=20))]
        ['v']
        """
        pre = self._session._fact(preemptor)
        jobs = self._index.jobs
        return [jobs[index] for index in self._eligible(_action(action), pre, self._claims)]

    def verdict(self, action: Action | str, preemptor: JobLike, victim: J) -> Verdict:
        """:meth:`Session.verdict` of a running job, judged on what it keeps after the committed
        plans: their tasks are not among its ``tasks``.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), now=0)
        >>> victim = Job("v", "a", pod_sets=[PodSet(min_available=0, tasks=[Task("t0"), Task("t1")])])
        >>> cycle = session.cycle([victim])
        >>> cycle.commit(cycle.plan("reclaim", Job("p", "b"), {"pods": 1}))
        >>> [task.id for task in cycle.verdict("reclaim", Job("q", "b"), victim).tasks]
        ['t0']
        """
        return self._session._one(action, preemptor, victim, self._claims).render()

    def plan(self, action: Action | str, preemptor: JobLike, need: ResourcesLike) -> Plan[J]:
        """:meth:`Session.plan` over the running jobs, less what the committed plans took: the
        tasks ``preemptor`` would take for ``need``. Nothing changes until :meth:`commit`.

        Raises:
            InvalidResources: for a need that is not a mapping from names to amounts.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), now=0)
        >>> cpu = Job("etl", "a", pod_sets=[PodSet(tasks=[Task("etl-0", resources={"cpu": 16})])])
        >>> gpu = Job("train", "a", pod_sets=[PodSet(tasks=[Task("train-0", resources={"nvidia.com/gpu": 8})])])
        >>> plan = session.cycle([cpu, gpu]).plan("reclaim", Job("p", "b"), {"nvidia.com/gpu": 4})
        >>> [job.id for job in plan.victims], plan.freed["nvidia.com/gpu"]
        (['train'], 8)
        """
        act = _action(action)
        wanted = Resources(need, origin="need")
        session, claims, rows, jobs = self._session, self._claims, self._rows, self._index.jobs
        pre = session._fact(preemptor)
        indices = self._eligible(act, pre, claims)
        chosen = [rows[index] for index in indices]
        verdicts = session._verdicts(act, pre, chosen, claims)
        order = ranked(
            (index, jobs[index], verdict) for index, verdict in zip(indices, verdicts, strict=True)
        )
        return take(
            act, preemptor, order, wanted, lambda: session._retry_ns(act, pre, rows, claims)
        )

    def commit(self, plan: Plan[J]) -> None:
        """Record ``plan``'s tasks as leaving, for the rest of the cycle.

        Raises:
            PlanConflict: if some of its tasks were committed since it was made (another plan
                took them, perhaps from another thread), naming them, or if a victim is not a
                running job of this cycle, or if a victim's committed tasks with the plan's
                would be a scenario its validator refuses. Nothing is recorded then.
            InvalidScenario: if a victim does not have a task the plan names.

        >>> from minruntime import Config, Job, PlanConflict, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("a"), Queue("b")]), Config(), now=0)
        >>> cycle = session.cycle([Job("v", "a", pod_sets=[PodSet(tasks=[Task("t0")])])])
        >>> one, two = (cycle.plan("reclaim", Job(name, "b"), {"pods": 1}) for name in "pq")
        >>> cycle.commit(one)
        >>> try:
        ...     cycle.commit(two)
        ... except PlanConflict as error:
        ...     print(error)
        1 task of this plan was committed since it was made: 't0' of job 'v'
        """
        session = self._session
        table = session._table
        members = self._members
        if members is None:
            members = self._members = frozenset(self._rows)
        wanted: dict[int, list[Hashable]] = {}
        victims: dict[int, J] = {}
        for victim, tasks in zip(plan.victims, plan.tasks, strict=True):
            row = table.row(victim)
            if row not in members:
                raise PlanConflict(
                    f"job {table.ids[row]!r} of the plan is not a running job of this cycle"
                )
            victims[row] = victim
            wanted.setdefault(row, []).extend(task.id for task in tasks)
        pre = session._fact(plan.preemptor)  # type: ignore[arg-type]
        with self._lock:
            claims = self._claims
            taken = [
                (table.ids[row], task)
                for row, ids in wanted.items()
                for task in ids
                if task in claims.get(row, NO_CLAIMS)
            ]
            if taken:
                count = len(taken)
                names = ", ".join(f"{task!r} of job {job!r}" for job, task in taken)
                raise PlanConflict(
                    f"{count} task{'s' * (count != 1)} of this plan "
                    f"{'were' if count != 1 else 'was'} committed since it was made: {names}",
                    tasks=taken,
                )
            for row, ids in wanted.items():
                failures = session._failures(plan.action, pre, victims[row], ids, claims)
                if failures:
                    why = "; ".join(str(failure) for failure in failures)
                    raise PlanConflict(
                        f"the plan would leave job {table.ids[row]!r} in a shape its scenario "
                        f"validator refuses: {why}"
                    )
            updated = dict(claims)
            for row, ids in wanted.items():
                updated[row] = claims.get(row, NO_CLAIMS).union(ids)
            self._claims = updated  # published whole: readers see the old claims or the new

    def validate(
        self, action: Action | str, preemptor: JobLike, evictions: Evictions[J]
    ) -> ScenarioResult:
        """:meth:`Session.validate` with the committed tasks counted as evicted too.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b")]), Config(), now=0)
        >>> victim = Job("v", "a", start_time=0, pod_sets=[PodSet(min_available=1, tasks=[Task("t0"), Task("t1")])])
        >>> cycle = session.cycle([victim])
        >>> cycle.commit(cycle.plan("reclaim", Job("p", "b"), {"pods": 1}))
        >>> bool(cycle.validate("reclaim", Job("q", "b"), [(victim, ["t0"])]))
        False
        """
        return self._session._validate(action, preemptor, evictions, self._claims)

    def next_expiry(self, action: Action | str, preemptor: JobLike) -> datetime | None:
        """:meth:`Session.next_expiry` over the running jobs, judged on what they keep: when to
        retry.

        >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
        >>> session = Session(QueueTree([Queue("a", reclaim_min_runtime="1h"), Queue("b")]), Config(), now=0)
        >>> cycle = session.cycle([Job("v", "a", start_time=0, pod_sets=[PodSet(tasks=[Task("t")])])])
        >>> cycle.next_expiry("reclaim", Job("p", "b")).isoformat()
        '1970-01-01T01:00:00+00:00'
        """
        session = self._session
        end = session._retry_ns(_action(action), session._fact(preemptor), self._rows, self._claims)
        return None if end is None else from_ns(end)


def _status(judged: Judged) -> ProtectionStatus:
    """A verdict's protection, as :meth:`Session.protection` answers it."""
    found, resolution, _ = judged.protection()
    end = judged.end_ns()
    return ProtectionStatus(
        resolution=resolution,
        protected_until=None if end is None else from_ns(end),
        protected_by=found.kind,
    )

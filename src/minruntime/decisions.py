"""What the library answers: actions, reasons, resolutions, decisions and scenario results.

The values a :class:`~minruntime.Session` returns. Each explains itself: ``str()`` of a
:class:`Verdict`, a :class:`Resolution`, a :class:`ScenarioResult` or a :class:`Plan` is a
sentence an operator can read, and the fields carry the numbers.

- :class:`Action`: preempt (same leaf queue) or reclaim (another queue).
- :class:`Reason`: why a victim is, or is not, eligible.
- :class:`ProtectionKind`: what protects a victim (never, min-runtime, a job's own request, an
  eviction budget, a checkpoint grace).
- :class:`Resolution`: a resolved min-runtime and the queue it came from.
- :class:`ProtectionStatus`: whether a victim is protected now, by what, until when, and its
  resolved min-runtime (:meth:`Session.protection <minruntime.Session.protection>`).
- :class:`Verdict`: the whole answer for one victim (:meth:`Session.verdict
  <minruntime.Session.verdict>`).
- :class:`ScenarioResult` and :class:`Failure`: the answer of scenario validation.
- :class:`Plan`: the tasks to take, cheapest victims first, for what a preemptor needs
  (:meth:`Session.plan <minruntime.Session.plan>`, :meth:`Cycle.plan <minruntime.Cycle.plan>`).

>>> from minruntime import Action, Reason
>>> Action("reclaim"), Reason.DEFERRED.allowed
(<Action.RECLAIM: 'reclaim'>, True)
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from datetime import datetime
from typing import TYPE_CHECKING, Final, Generic, TypeVar

import attrs

from minruntime._time import FOREVER
from minruntime.durations import MinRuntime
from minruntime.preemptibility import Preemptibility
from minruntime.resources import Resources

if TYPE_CHECKING:
    from minruntime.jobs import TaskLike

__all__ = [
    "ALLOWED",
    "Action",
    "Failure",
    "FailureKind",
    "Plan",
    "ProtectionKind",
    "ProtectionStatus",
    "Reason",
    "Resolution",
    "ScenarioResult",
    "Verdict",
]


def __dir__() -> list[str]:
    return __all__


class Action(enum.Enum):
    """What the preemptor does to the victim.

    ``PREEMPT``: both jobs are in the same leaf queue. ``RECLAIM``: they are in different
    queues. ``Action("reclaim")`` reads the lower-case name.

    >>> Action("preempt") is Action.PREEMPT
    True
    """

    __hash__ = object.__hash__  # identity: Enum's own __hash__ is slow Python code

    PREEMPT = "preempt"
    RECLAIM = "reclaim"

    def __str__(self) -> str:
        return self.value


class ProtectionKind(enum.Enum):
    """What protects a victim (docs/spec/protection.md and docs/spec/beyond-min-runtime.md).

    >>> str(ProtectionKind.CHECKPOINT_GRACE)
    'checkpoint-grace'
    """

    __hash__ = object.__hash__

    NEVER = "never"
    """The resolved min-runtime is never."""
    MIN_RUNTIME = "min-runtime"
    """It started less than its min-runtime ago."""
    JOB_REQUEST = "job-request"
    """Only its own min-runtime request (capped by its queue) still protects it."""
    EVICTION_BUDGET = "eviction-budget"
    """It was evicted as often as its queue allows within the window."""
    CHECKPOINT_GRACE = "checkpoint-grace"
    """Its next checkpoint is due within the checkpoint grace."""

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class Resolution:
    """A resolved min-runtime and where it came from.

    Attributes:
        min_runtime: the min-runtime.
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
        """True when no queue setting applied and the node-pool default was used.

        >>> Resolution(MinRuntime(0), None).from_default
        True
        """
        return self.source is None

    def __str__(self) -> str:
        if self.source is not None:
            return f"{self.min_runtime} from queue {self.source!r}"
        if self.unknown_queues:
            names = " and ".join(repr(name) for name in self.unknown_queues)
            verb = "is" if len(self.unknown_queues) == 1 else "are"
            return f"{self.min_runtime} (node-pool default; queue {names} {verb} not in the tree)"
        return f"{self.min_runtime} (node-pool default)"


@attrs.frozen(kw_only=True)
class ProtectionStatus:
    """Whether a victim is protected now, by what, until when, under which min-runtime: the
    answers of :meth:`Session.is_protected <minruntime.Session.is_protected>`,
    :meth:`~minruntime.Session.protected_until` and :meth:`~minruntime.Session.resolve`, from
    one evaluation of the protection rule (:meth:`Session.protection
    <minruntime.Session.protection>`).

    Attributes:
        resolution: the resolved min-runtime and the queue whose setting it is.
        protected_until: when its protection ends (``FOREVER`` for never, ``None`` without a
            start time); unprotected, when its effective min-runtime ended.
        protected_by: what protects it now, or ``None`` (then :attr:`protected` is false).

    >>> from minruntime import MinRuntime
    >>> status = ProtectionStatus(resolution=Resolution(MinRuntime("1h"), "team"),
    ...                           protected_until=None)
    >>> status.min_runtime, status.source, status.protected
    (MinRuntime('1h'), 'team', False)
    """

    resolution: Resolution
    protected_until: datetime | None
    protected_by: ProtectionKind | None = None

    @property
    def protected(self) -> bool:
        """Whether the victim is protected now, fundamentals aside: something protects it.

        >>> from minruntime import MinRuntime
        >>> ProtectionStatus(resolution=Resolution(MinRuntime("1h"), None), protected_until=None,
        ...                  protected_by=ProtectionKind.MIN_RUNTIME).protected
        True
        """
        return self.protected_by is not None

    @property
    def min_runtime(self) -> MinRuntime:
        """The resolved min-runtime.

        >>> from minruntime import MinRuntime
        >>> ProtectionStatus(resolution=Resolution(MinRuntime(0), None),
        ...                  protected_until=None).min_runtime
        MinRuntime('0s')
        """
        return self.resolution.min_runtime

    @property
    def source(self) -> str | None:
        """The queue whose setting the min-runtime is, ``None`` for the node-pool default.

        >>> from minruntime import MinRuntime
        >>> print(ProtectionStatus(resolution=Resolution(MinRuntime(0), None),
        ...                        protected_until=None).source)
        None
        """
        return self.resolution.source


class Reason(enum.Enum):
    """Why a victim is, or is not, eligible. ``reason.allowed`` says which.

    >>> Reason.PROTECTED.allowed, Reason.DEFERRED.allowed
    (False, True)
    """

    __hash__ = object.__hash__  # identity: Enum's own __hash__ is slow Python code

    PREEMPTOR_DELAYED = "preemptor-delayed"
    """The preemptor is within its preemption delay: it may not trigger evictions yet
    (docs/spec/preemption-delay.md)."""
    SAME_JOB = "same-job"
    """The victim is the preemptor itself."""
    UNKNOWN_VICTIM_QUEUE = "unknown-victim-queue"
    """The victim's queue is not in the tree: nothing can be reasoned about it."""
    DIFFERENT_QUEUE = "different-queue"
    """Preempt only takes victims from the preemptor's own queue."""
    SAME_QUEUE = "same-queue"
    """Reclaim only takes victims from other queues."""
    NOT_LOWER_PRIORITY = "not-lower-priority"
    """Preempt only takes victims of strictly lower priority."""
    NON_PREEMPTIBLE = "non-preemptible"
    """Non-preemptible, or semi-preemptible with no task above its core."""
    NO_ACTIVE_TASK = "no-active-task"
    """The victim holds no resources."""
    NEVER = "never"
    """The resolved min-runtime is never."""
    PROTECTED = "protected"
    """Started less than the min-runtime ago."""
    EVICTION_BUDGET = "eviction-budget"
    """Already evicted as often as its queue allows within the window
    (docs/spec/beyond-min-runtime.md)."""
    CHECKPOINT_GRACE = "checkpoint-grace"
    """Its next checkpoint is due within the checkpoint grace (docs/spec/beyond-min-runtime.md)."""
    DEFERRED = "deferred"
    """Elastic and protected, or semi-preemptible: only tasks above ``min_available`` may go,
    which the scenario validator checks."""
    ELIGIBLE = "eligible"
    """May be evicted whole."""

    def __str__(self) -> str:
        return self.value

    @property
    def allowed(self) -> bool:
        """True for the reasons that let the victim (or part of it) be evicted: :data:`ALLOWED`."""
        return self in ALLOWED


ALLOWED: Final = frozenset({Reason.ELIGIBLE, Reason.DEFERRED})
"""The reasons that let a victim (or, for ``DEFERRED``, part of it) be evicted: the one
definition every decision reads.

>>> sorted(reason.value for reason in ALLOWED)
['deferred', 'eligible']
"""


_BY_MIN_RUNTIME = (None, ProtectionKind.MIN_RUNTIME, ProtectionKind.JOB_REQUEST)


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "never started"
    if moment == FOREVER:
        return "forever"
    return moment.isoformat().replace("+00:00", "Z")


@attrs.frozen(kw_only=True)
class Verdict:
    """Everything the library says about one (action, preemptor, victim) at the session's
    ``now``: one evaluation of every rule, read by every other question (``allowed`` is
    eligibility, ``tasks`` the evictable tasks, ``protected_by`` and ``protected_until`` the
    protection, ``rank_key`` the ranking). ``str()`` of it is one sentence.

    Attributes:
        action: preempt or reclaim.
        preemptor: the preemptor's id. victim: the victim's id.
        allowed: whether the victim (or, for ``DEFERRED``, part of it) may be evicted.
        reason: why.
        min_runtime: the resolved min-runtime.
        source: the queue whose setting produced it, or ``None`` for the node-pool default.
        preemptibility: the victim's effective preemptibility.
        start_time: the victim's start time, or ``None``.
        protected_until: when its protection ends (``FOREVER`` for never, ``None`` without a
            start time); for a victim that is not protected, when its min-runtime ended.
        now: the instant of the verdict.
        notes: extra facts (for example "queue 'x' is not in the tree: the node-pool default
            applies").
        protected_by: what protects it now (a :class:`ProtectionKind`), or ``None``.
        tasks: its evictable tasks in sacrifice order, least important first (empty when it is
            refused; docs/spec/evictable-tasks.md).
        unsaved_work: the work evicting those tasks now would lose (seconds times task weight,
            docs/spec/beyond-min-runtime.md); for a refused victim, what evicting all its
            active tasks would lose.
        rank_key: its place among eligible victims, cheapest first: (unsaved work, priority,
            recent evictions, minus the start in nanoseconds); the input order breaks what ties
            remain (:meth:`Session.rank_victims <minruntime.Session.rank_victims>`).
        min_runtime_filter: the reference plugin's filter hook's answer, min-runtime's say
            alone: false for a never min-runtime, true for an elastic or semi-preemptible
            victim (its scenario is validated instead), else true iff nothing protects it.
        checkpoint_aware: the protections beyond min-runtime are in use for it
            (docs/spec/beyond-min-runtime.md): its sentence names its unsaved work.
        elastic: the victim has a pod set with ``min_available`` below its number of tasks (it
            can run with fewer pods, so part of it may go).
        sub_group_tree: the victim has a sub-group tree (docs/spec/sub-group-trees.md).
        optional_sub_groups: for a victim with a tree, its sub-groups outside its core (they go
            whole, first, in this order: the last listed first).
        preemption_delay: the preemptor's preemption delay, when it holds the preemptor back.
        delayed_until: while the preemptor is within its delay, when it may trigger evictions
            (``FOREVER`` for a delay of never); else ``None``.

    >>> from datetime import datetime, timezone
    >>> from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
    >>> session = Session(QueueTree([Queue("q", preempt_min_runtime="1h")]), Config(), now=60)
    >>> verdict = session.verdict("preempt", Job("p", "q", priority=100),
    ...     Job("v", "q", start_time=0, pod_sets=[PodSet(min_available=1, tasks=[Task("a"), Task("b")])]))
    >>> verdict.allowed, str(verdict.reason), [task.id for task in verdict.tasks]
    (True, 'deferred', ['b'])
    """

    action: Action
    preemptor: Hashable
    victim: Hashable
    allowed: bool
    reason: Reason
    min_runtime: MinRuntime
    source: str | None
    preemptibility: Preemptibility
    start_time: datetime | None
    protected_until: datetime | None
    now: datetime
    notes: tuple[str, ...] = ()
    protected_by: ProtectionKind | None = None
    tasks: tuple[TaskLike, ...] = ()
    unsaved_work: float = 0.0
    rank_key: tuple[float, int, int, int] = (0.0, 0, 0, 0)
    min_runtime_filter: bool = False
    checkpoint_aware: bool = False
    elastic: bool = False
    sub_group_tree: bool = False
    optional_sub_groups: tuple[str, ...] = ()
    preemption_delay: MinRuntime | None = None
    delayed_until: datetime | None = None

    def __bool__(self) -> bool:
        return self.allowed

    def _optional(self, verb: str) -> str:
        """The clause naming the optional sub-groups (``verb``: what they do), or nothing."""
        if not self.optional_sub_groups:
            return ""
        names = ", ".join(map(repr, self.optional_sub_groups))
        return f"; its optional sub-groups {names} {verb}"

    def __str__(self) -> str:
        subject = f"{self.action} of {self.victim!r} by {self.preemptor!r}"
        verdict = "allowed" if self.allowed else "refused"
        where = f"queue {self.source!r}" if self.source is not None else "the node-pool default"
        mr = f"min-runtime {self.min_runtime} from {where}"
        reason = self.reason
        if reason is Reason.PREEMPTOR_DELAYED:
            # the reference scheduler's condition: PreemptionDelayNotElapsed
            why = (
                f"{self.preemptor!r} is within its preemption delay window "
                f"({self.preemption_delay}) and may not trigger evictions before "
                f"{_when(self.delayed_until)}"
            )
        elif reason is Reason.SAME_JOB:
            why = "a job cannot evict itself"
        elif reason is Reason.UNKNOWN_VICTIM_QUEUE:
            why = "the victim's queue is not in the queue tree"
        elif reason is Reason.DIFFERENT_QUEUE:
            why = "preempt only takes victims from the preemptor's own queue"
        elif reason is Reason.SAME_QUEUE:
            why = "reclaim only takes victims from other queues"
        elif reason is Reason.NOT_LOWER_PRIORITY:
            why = "the victim's priority is not lower than the preemptor's"
        elif reason is Reason.NON_PREEMPTIBLE:
            if self.preemptibility is Preemptibility.SEMI_PREEMPTIBLE:
                why = "the victim is semi-preemptible and has no task above its core"
            else:
                why = "the victim is non-preemptible"
        elif reason is Reason.NO_ACTIVE_TASK:
            why = "the victim has no active task"
        elif reason is Reason.NEVER:
            why = f"{mr}: never evicted by {self.action}"
        elif reason is Reason.PROTECTED:
            why = (
                f"{mr}: started {_when(self.start_time)}, "
                f"protected until {_when(self.protected_until)}"
            )
        elif reason is Reason.EVICTION_BUDGET:
            why = f"its eviction budget is spent: protected until {_when(self.protected_until)}"
        elif reason is Reason.CHECKPOINT_GRACE:
            why = (
                f"{mr} is over, but its next checkpoint is due within the checkpoint grace: "
                f"protected until {_when(self.protected_until)}"
            )
        elif reason is Reason.DEFERRED:
            optional = self._optional("may go whole")
            semi = self.preemptibility is Preemptibility.SEMI_PREEMPTIBLE
            by = mr if self.protected_by in _BY_MIN_RUNTIME else str(self.protected_by)
            if semi and self.sub_group_tree:
                why = (
                    "semi-preemptible: its core (the sub-groups each set needs, each pod set "
                    f"at min_available) is never evicted{optional or '; nothing else runs'}"
                )
            elif semi:
                why = "semi-preemptible: only tasks above its core may be evicted"
            elif self.sub_group_tree:
                why = (
                    f"elastic and protected ({by}): it keeps the sub-groups it needs, each pod "
                    f"set at min_available, until {_when(self.protected_until)}"
                    f"{optional or '; only tasks above min_available may be evicted'}"
                )
            else:
                why = (
                    f"elastic and protected ({by}, until {_when(self.protected_until)}): "
                    "only tasks above min_available may be evicted"
                )
        else:
            why = f"{mr}: started {_when(self.start_time)}, protection over"
            if self.start_time is None:
                why = f"{mr}: never started, so not protected"
            why += self._optional("go first")
        if self.checkpoint_aware and self.allowed:
            why += f"; unsaved work {self.unsaved_work:g}"
        notes = "".join(f"; {note}" for note in self.notes)
        return f"{subject}: {verdict}: {why}{notes}"


class FailureKind(enum.Enum):
    """Why a victim fails a scenario."""

    NEVER = "never"
    """Its min-runtime is never: no task of it may be evicted."""
    CORE = "core"
    """It is semi-preemptible and a pod set would drop below its core."""
    PROTECTED = "protected"
    """It is protected and a pod set would drop below ``min_available``."""

    def __str__(self) -> str:
        return self.value


@attrs.frozen(kw_only=True)
class Failure:
    """One victim pod set (or, for never, the whole victim) that a scenario would break.

    ``pod_set`` is ``None`` for a never failure; ``active``, ``evicted`` and ``min_available``
    are that pod set's numbers (for never, ``evicted`` is the whole count). For a job with a
    sub-group tree (docs/spec/sub-group-trees.md), a pod set may drop below its minimum where its
    set can do without it; ``needed`` is then set, and ``sub_group`` names the set that could not
    (``None``: the job itself), which would keep ``satisfied`` of the ``needed`` satisfied
    children it needs.

    >>> from minruntime import MinRuntime
    >>> failure = Failure(victim="serve", kind=FailureKind.CORE, pod_set="decode-0", active=2,
    ...                   evicted=2, min_available=2, min_runtime=MinRuntime("1h"),
    ...                   sub_group="decode", satisfied=0, needed=1)
    >>> print(failure)
    job 'serve' pod set 'decode-0': 2 active - 2 evicted = 0 < min_available 2, and sub-group 'decode' would keep 0 of the 1 satisfied sub-group(s) it needs (semi-preemptible core)

    Where the scheduler named a semi-preemptible victim's core (``Job.core_pods``), ``core``
    counts the evicted tasks in it:

    >>> print(Failure(victim="serve", kind=FailureKind.CORE, pod_set="decode-0", active=3,
    ...               evicted=2, min_available=2, min_runtime=MinRuntime("1h"), core=1))
    job 'serve' pod set 'decode-0': 1 of the 2 evicted task(s) in the core its scheduler named (semi-preemptible core)
    """

    victim: Hashable
    kind: FailureKind
    pod_set: str | None
    active: int
    evicted: int
    min_available: int
    min_runtime: MinRuntime
    protected_until: datetime | None = None
    protected_by: ProtectionKind | None = None
    """What protects the victim (for a ``PROTECTED`` failure)."""
    sub_group: str | None = None
    """For a job with a sub-group tree: the set that would no longer be satisfied (``None``:
    the job itself)."""
    satisfied: int | None = None
    """For a job with a sub-group tree: how many of that set's children would be satisfied."""
    needed: int | None = None
    """For a job with a sub-group tree: how many satisfied children that set needs."""
    core: int | None = None
    """For a semi-preemptible victim whose scheduler named its core (``Job.core_pods``): how
    many of this pod set's evicted tasks are in that core (the counts above are then not the
    rule)."""

    def _by(self) -> str:
        if self.protected_by in _BY_MIN_RUNTIME:
            return f"min-runtime {self.min_runtime}"
        return f"its {str(self.protected_by).replace('-', ' ')}"

    def __str__(self) -> str:
        if self.kind is FailureKind.NEVER:
            return (
                f"job {self.victim!r}: min-runtime is never, but {self.evicted} task(s) "
                "would be evicted"
            )
        if self.core is not None:
            return (
                f"job {self.victim!r} pod set {self.pod_set!r}: {self.core} of the "
                f"{self.evicted} evicted task(s) in the core its scheduler named "
                "(semi-preemptible core)"
            )
        left = self.active - self.evicted
        numbers = (
            f"{self.active} active - {self.evicted} evicted = {left} < "
            f"min_available {self.min_available}"
        )
        if self.needed is not None:
            where = "the job" if self.sub_group is None else f"sub-group {self.sub_group!r}"
            numbers += (
                f", and {where} would keep {self.satisfied} of the {self.needed} satisfied "
                "sub-group(s) it needs"
            )
        if self.kind is FailureKind.CORE:
            return (
                f"job {self.victim!r} pod set {self.pod_set!r}: {numbers} (semi-preemptible core)"
            )
        return (
            f"job {self.victim!r} pod set {self.pod_set!r}: {numbers} "
            f"(protected by {self._by()} until {_when(self.protected_until)})"
        )


@attrs.frozen(kw_only=True)
class ScenarioResult:
    """The validator's answer: true when valid; when false, ``failures`` names every problem.

    >>> result = ScenarioResult(action=Action.RECLAIM, preemptor="p", failures=())
    >>> bool(result), str(result)
    (True, "reclaim scenario of 'p': valid")
    """

    action: Action
    preemptor: Hashable
    failures: tuple[Failure, ...] = ()

    @property
    def valid(self) -> bool:
        """True when no victim fails."""
        return not self.failures

    def __bool__(self) -> bool:
        return not self.failures

    @property
    def failing_victims(self) -> tuple[Hashable, ...]:
        """The ids of the victims that fail, in scenario order, each once."""
        return tuple(dict.fromkeys(failure.victim for failure in self.failures))

    def __str__(self) -> str:
        head = f"{self.action} scenario of {self.preemptor!r}"
        if not self.failures:
            return f"{head}: valid"
        return f"{head}: invalid: " + "; ".join(str(failure) for failure in self.failures)


J = TypeVar("J")


def _when_short(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@attrs.frozen(kw_only=True, eq=False)
class Plan(Generic[J]):
    """What a preemptor takes for what it needs (docs/spec/plans.md): victims cheapest first,
    each victim's tasks in sacrifice order, one task at a time until every resource of the need
    is covered, never more.

    Attributes:
        action: preempt or reclaim.
        preemptor: the pending job (the caller's object).
        need: what it needs (:class:`~minruntime.Resources`).
        victims: the victims it takes tasks of, cheapest first (the caller's objects).
        tasks: for each victim, the tasks it takes of it, in sacrifice order (a list parallel
            to ``victims``: a scheduler's job objects need not be hashable).
        freed: what those tasks hold, per resource.
        missing: what the need still lacks, per resource (only what is short; empty when the
            plan covers the need).
        lost: the unsaved work those tasks hold (seconds times task weight,
            docs/spec/beyond-min-runtime.md).
        losses: the unsaved work of each victim's tasks, parallel to ``victims`` (they add up
            to ``lost``).
        retry: when something is missing, the earliest time a protection ends that could free
            more (docs/spec/session.md, ``next_expiry``); ``None`` when nothing is missing or
            nothing could free more.

    A plan is true when it covers the need. Plans compare by identity (they hold the caller's
    objects).

    >>> from minruntime import Action, Resources
    >>> plan = Plan(action=Action.RECLAIM, preemptor="p", need=Resources({"pods": 2}), victims=(),
    ...             tasks=(), freed=Resources(), missing=Resources({"pods": 2}), lost=0.0,
    ...             losses=(), retry=None)
    >>> bool(plan), str(plan)
    (False, "reclaim plan of 'p' for pods 2: takes nothing; still missing pods 2")
    """

    action: Action
    preemptor: object
    need: Resources
    victims: tuple[J, ...]
    tasks: tuple[tuple[TaskLike, ...], ...]
    freed: Resources
    missing: Resources
    lost: float
    losses: tuple[float, ...]
    retry: datetime | None

    @property
    def covered(self) -> bool:
        """Whether the plan covers the need (nothing is missing)."""
        return not self.missing

    def __bool__(self) -> bool:
        return not self.missing

    def __len__(self) -> int:
        return len(self.victims)

    def __str__(self) -> str:
        who = getattr(self.preemptor, "id", self.preemptor)
        head = f"{self.action} plan of {who!r} for {self.need}"
        if self.victims:
            parts = [
                f"{len(tasks)} task{'s' * (len(tasks) != 1)} of {getattr(victim, 'id', victim)!r}"
                for victim, tasks in zip(self.victims, self.tasks, strict=True)
            ]
            taken = f"takes {', '.join(parts)}, freeing {self.freed}"
            if self.lost:
                taken += f" and losing {self.lost:g} of unsaved work"
        else:
            taken = "takes nothing"
        if not self.missing:
            return f"{head}: {taken}"
        retry = "" if self.retry is None else f"; retry at {_when_short(self.retry)}"
        return f"{head}: {taken}; still missing {self.missing}{retry}"

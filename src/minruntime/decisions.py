"""What the library answers: actions, reasons, resolutions, decisions and scenario results.

The values a :class:`~minruntime.Session` returns. Each explains itself: ``str()`` of a
:class:`Decision`, a :class:`Resolution` or a :class:`ScenarioResult` is a sentence an operator
can read, and the fields carry the numbers.

- :class:`Action`: preempt (same leaf queue) or reclaim (another queue).
- :class:`Reason`: why a victim is, or is not, eligible.
- :class:`ProtectionKind`: what protects a victim (never, min-runtime, a job's own request, an
  eviction budget, a checkpoint grace).
- :class:`Resolution`: a resolved min-runtime and the queue it came from.
- :class:`ProtectionStatus`: whether a victim is protected now, by what, until when, and its
  resolved min-runtime (:meth:`Session.protection <minruntime.Session.protection>`).
- :class:`Decision`: the whole answer for one victim (:meth:`Session.explain
  <minruntime.Session.explain>`).
- :class:`ScenarioResult` and :class:`Failure`: the answer of scenario validation.
- :class:`Selection`: the cheapest eligible victims that free enough (:meth:`Session.select
  <minruntime.Session.select>`).

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

if TYPE_CHECKING:
    from minruntime.jobs import TaskLike

__all__ = [
    "ALLOWED",
    "Action",
    "Decision",
    "Failure",
    "FailureKind",
    "ProtectionKind",
    "ProtectionStatus",
    "Reason",
    "Resolution",
    "ScenarioResult",
    "Selection",
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
class Decision:
    """The explained answer for one (action, preemptor, victim) at the session's ``now``.

    Attributes:
        action: preempt or reclaim.
        preemptor: the preemptor's id. victim: the victim's id.
        allowed: whether the victim (or, for ``DEFERRED``, part of it) may be evicted.
        reason: why.
        min_runtime: the resolved min-runtime.
        source: the queue whose setting produced the min-runtime, or ``None`` for the node-pool default.
        notes: extra facts (for example "queue 'x' is not in the tree: default used").
        preemptibility: the victim's effective preemptibility.
        start_time: the victim's start time, or ``None``.
        protected_until: when its protection ends (``FOREVER`` for never, ``None`` without a
            start time).
        now: the instant of the decision.
        protected_by: what protects it now (a :class:`ProtectionKind`), or ``None``.
        unsaved_work: the work an eviction would lose now (seconds times task weight), when
            the session uses the checkpoint-aware settings.
        elastic: the victim has a pod set with ``min_available`` below its number of tasks (it
            can run with fewer pods, so part of it may go).
        preemption_delay: the preemptor's preemption delay, when it has one.
        delayed_until: while the preemptor is within its delay, when it may trigger evictions
            (``FOREVER`` for a delay of never); else ``None``.
        sub_group_tree: the victim has a sub-group tree (docs/spec/sub-group-trees.md).
        optional_sub_groups: for a victim with a tree, its sub-groups outside its core (they go
            whole, first, in this order: the last listed first).
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
    unsaved_work: float | None = None
    elastic: bool = False
    preemption_delay: MinRuntime | None = None
    delayed_until: datetime | None = None
    sub_group_tree: bool = False
    optional_sub_groups: tuple[str, ...] = ()

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
        if self.unsaved_work is not None and self.allowed:
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


@attrs.frozen(kw_only=True)
class Selection(Generic[J]):
    """The cheapest eligible victims that free at least what a preemptor needs.

    Attributes:
        victims: the chosen victims, cheapest first (the order of :meth:`Session.rank_victims
            <minruntime.Session.rank_victims>`).
        tasks: for each chosen victim, the tasks that would go (its evictable tasks, least
            important first), in the same order.
        freed: the summed weight of those tasks.
        needed: the amount asked for.
        unsaved_work: the work the eviction would lose (weighted seconds).

    ``shortfall`` is what is still missing when even every eligible victim is not enough
    (zero otherwise); a selection is true when it frees enough.

    >>> empty = Selection(victims=(), tasks=(), freed=0.0, needed=2.0, unsaved_work=0.0)
    >>> bool(empty), empty.shortfall
    (False, 2.0)
    """

    victims: tuple[J, ...]
    tasks: tuple[tuple[TaskLike, ...], ...]
    freed: float
    needed: float
    unsaved_work: float

    @property
    def shortfall(self) -> float:
        """How much of ``needed`` the eligible victims cannot free (zero when enough)."""
        return max(0.0, self.needed - self.freed)

    def __bool__(self) -> bool:
        return self.freed >= self.needed

    def __len__(self) -> int:
        return len(self.victims)

"""Decisions and their reasons: why a victim may, or may not, be evicted.

:class:`Reason` names every outcome of the victim filters; :class:`Decision` is the immutable
answer of :meth:`Session.explain <minruntime.Session.explain>`, whose ``str()`` is one sentence
an operator can read.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from datetime import datetime

import attrs

from minruntime._time import FOREVER
from minruntime.durations import MinRuntime
from minruntime.preemptibility import Preemptibility
from minruntime.resolution import Action

__all__ = ["Decision", "Reason"]


class Reason(enum.Enum):
    """Why a victim is, or is not, eligible. ``reason.allowed`` says which.

    >>> Reason.PROTECTED.allowed, Reason.DEFERRED.allowed
    (False, True)
    """

    __hash__ = object.__hash__  # identity: Enum's own __hash__ is slow Python code

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
    """Already evicted as often as its queue allows within the window (BEHAVIOR.md 16)."""
    CHECKPOINT_GRACE = "checkpoint-grace"
    """Its next checkpoint is due within the checkpoint grace (BEHAVIOR.md 16)."""
    DEFERRED = "deferred"
    """Elastic and protected, or semi-preemptible: only tasks above ``min_available`` may go,
    which the scenario validator checks."""
    ELIGIBLE = "eligible"
    """May be evicted whole."""

    def __str__(self) -> str:
        return self.value

    @property
    def allowed(self) -> bool:
        """True for the reasons that let the victim (or part of it) be evicted."""
        return self is Reason.ELIGIBLE or self is Reason.DEFERRED


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
        min_runtime: the resolved MR.
        source: the queue whose setting produced the MR, or ``None`` for the node-pool default.
        notes: extra facts (for example "queue 'x' is not in the tree: default used").
        preemptibility: the victim's effective preemptibility.
        start_time: the victim's start time, or ``None``.
        protected_until: when its protection ends (``FOREVER`` for never, ``None`` without a
            start time).
        now: the instant of the decision.
        protected_by: what protects it now: ``"min-runtime"``, ``"eviction-budget"``,
            ``"checkpoint-grace"``, or ``None``.
        unsaved_work: the work an eviction would lose now (seconds times task weight), when
            the session uses the checkpoint-aware settings.
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
    protected_by: str | None = None
    unsaved_work: float | None = None

    def __bool__(self) -> bool:
        return self.allowed

    def __str__(self) -> str:
        subject = f"{self.action} of {self.victim!r} by {self.preemptor!r}"
        verdict = "allowed" if self.allowed else "refused"
        where = f"queue {self.source!r}" if self.source is not None else "the node-pool default"
        mr = f"min-runtime {self.min_runtime} from {where}"
        reason = self.reason
        if reason is Reason.SAME_JOB:
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
            if self.preemptibility is Preemptibility.SEMI_PREEMPTIBLE:
                why = "semi-preemptible: only tasks above its core may be evicted"
            else:
                by = mr if self.protected_by in (None, "min-runtime") else self.protected_by
                why = (
                    f"elastic and protected ({by}, until {_when(self.protected_until)}): "
                    "only tasks above min_available may be evicted"
                )
        else:
            why = f"{mr}: started {_when(self.start_time)}, protection over"
            if self.start_time is None:
                why = f"{mr}: never started, so not protected"
        if self.unsaved_work is not None and self.allowed:
            why += f"; unsaved work {self.unsaved_work:g}"
        notes = "".join(f"; {note}" for note in self.notes)
        return f"{subject}: {verdict}: {why}{notes}"

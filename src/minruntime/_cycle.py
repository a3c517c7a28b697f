"""The cycle form: one session's running jobs, indexed once, asked by many preemptors (private).

A scheduling cycle asks about the same running jobs for every pending preemptor. The index
groups the jobs by victim queue (queues in tree pre-order, so that a subtree is a run of
consecutive groups) and, in each group, orders them by the key of the min-runtime rule: jobs
whose protection cannot depend on time (elastic, semi-preemptible, never started) first, then by
start time, oldest first. Jobs that no preemptor could take (their queue is unknown, or a
fundamental that depends on them alone fails) are left out once.

For one preemptor, the min-runtime rule is then evaluated once per *walk start* (the queue a
resolution starts from is shared by every victim queue below it), as the threshold of
:func:`~minruntime._protection.free_before`; each group is split by one binary search, and the
answer is built from slices. Where the threshold cannot decide (a section 16 protection is on
for the group, a preempt, an unknown preemptor queue), the group goes through the batch rule of
:mod:`minruntime._eligibility`, so nothing is decided twice in two ways.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Final, Generic, TypeVar

from minruntime._delay import is_held
from minruntime._facts import ELASTIC, SEMI
from minruntime._protection import free_before_time
from minruntime._resolution import START_QUEUE, Setting, below_shared, lca_step
from minruntime._time import EARLIEST
from minruntime.decisions import Action
from minruntime.jobs import JobLike

if TYPE_CHECKING:
    from minruntime.session import Session

__all__ = ["VictimIndex"]

J = TypeVar("J", bound=JobLike)

_ALWAYS: Final = EARLIEST
"""The key of a job whose protection cannot depend on time: before every start time."""


class _Group(Generic[J]):
    """The running jobs of one victim queue, in key order."""

    __slots__ = ("jobs", "keys", "path", "protections", "queue")

    def __init__(
        self, queue: str, path: tuple[str, ...], members: list[tuple[datetime, int, J]]
    ) -> None:
        members.sort(key=lambda item: item[:2])
        self.queue = queue
        self.path = path
        self.keys = [key for key, _, _ in members]
        self.jobs = [job for _, _, job in members]
        self.protections = False


class VictimIndex(Generic[J]):
    """A session's running jobs, indexed for many preemptors (behind
    :class:`~minruntime.Cycle`)."""

    __slots__ = ("_all", "_groups", "_order", "_position", "_session", "_starts")

    def __init__(self, session: Session, running: Iterable[J]) -> None:
        self._session = session
        jobs = list(running)
        table = session._table
        rows = table.rows(jobs)
        tree = session.tree
        self._all = jobs
        queues, barriers, starts, all_flags = (
            table.queues,
            table.barriers,
            table.starts,
            table.flags,
        )
        by_queue: dict[str, list[tuple[datetime, int, J]]] = {}
        for index, (job, row) in enumerate(zip(jobs, rows, strict=True)):
            queue = queues[row]
            if barriers[row] is not None or queue not in tree:
                continue  # no preemptor could take it: the same answer for every preemptor
            start = starts[row]
            key = _ALWAYS if all_flags[row] & (ELASTIC | SEMI) or start is None else start
            by_queue.setdefault(queue, []).append((key, index, job))
        position = tree.preorder()
        groups = [_Group(queue, tree.path(queue), members) for queue, members in by_queue.items()]
        groups.sort(key=lambda group: position[group.queue][0])
        resolver = session._resolver
        if resolver.has_protections:
            for group in groups:
                budget, _ = resolver.walk(Setting.MAX_EVICTIONS, group.queue)
                cap, _ = resolver.walk(Setting.MAX_JOB_MIN_RUNTIME, group.queue)
                group.protections = budget is not None or bool(cap)
        self._groups = groups
        self._starts = [position[group.queue][0] for group in groups]
        self._position = position
        self._order = {queue: i for i, queue in enumerate(group.queue for group in groups)}

    def __len__(self) -> int:
        """How many running jobs the cycle holds."""
        return len(self._all)

    def _span(self, queue: str) -> tuple[int, int]:
        """The groups of ``queue``'s subtree: a range of indices into ``_groups``."""
        first, last = self._position[queue]
        return bisect_left(self._starts, first), bisect_left(self._starts, last)

    def eligible_victims(self, act: Action, preemptor: JobLike) -> list[J]:
        """The running jobs ``preemptor`` may take, in the index's order."""
        session = self._session
        pre = session._fact(preemptor)
        tree = session.tree
        if is_held(pre.held_until_ns(), session._now_ns):
            return []  # a preemptor within its preemption delay takes no victim
        if act is Action.PREEMPT:
            index = self._order.get(pre.queue)
            if index is None:
                return []
            return session.eligible_victims(act, preemptor, self._groups[index].jobs)
        if pre.queue not in tree:  # every victim gets the node-pool default: the batch rule
            return session.eligible_victims(
                act, preemptor, [job for group in self._groups for job in group.jobs]
            )
        answer: list[J] = []
        groups = self._groups
        resolver = session._resolver
        now_ns = session._now_ns
        # the LCA rule's start depends on the depth shared with the preemptor, kept incrementally
        # below; any other registered rule is asked once per group
        lca = START_QUEUE[session.config.reclaim_resolve_method] is lca_step
        grace_on = resolver.has_protections
        # Walk the groups in tree order. A group's walk start is its queue's ancestor at the
        # depth just below the lowest common ancestor with the preemptor's queue (LCA method), or
        # its own queue (queue method); every group below one start shares the threshold. The
        # depth shared with the preemptor's path changes only where one of its ancestors'
        # subtrees begins or ends.
        marks: dict[int, int] = {}
        if lca:
            for ancestor in tree.path(pre.queue):
                first, last = self._span(ancestor)
                marks[first] = marks.get(first, 0) + 1
                marks[last] = marks.get(last, 0) - 1
        shared = 0
        cached_start: str | None = None
        threshold = _ALWAYS
        never = False
        by_rule = False
        for index, group in enumerate(groups):
            step = marks.get(index)
            if step:
                shared += step
            queue = group.queue
            if queue == pre.queue:
                continue  # reclaim takes from other queues only
            if lca:  # the LCA rule with the shared depth kept as the walk goes
                start = below_shared(group.path, shared)
            else:
                start = resolver.start_queue(act, pre.queue, queue)
            if start != cached_start:
                cached_start = start
                mr = resolver.from_start(act, start)
                free = free_before_time(mr, now_ns)
                never = free is None
                threshold = _ALWAYS if free is None else free
                by_rule = grace_on and bool(
                    resolver.walk(Setting.RECLAIM_CHECKPOINT_GRACE, start)[0]
                )
            if never:
                continue
            if by_rule or group.protections:
                answer += session.eligible_victims(act, preemptor, group.jobs)
                continue
            keys = group.keys
            count = bisect_right(keys, threshold)
            if count == len(keys):
                answer += group.jobs
            elif count:
                answer += group.jobs[:count]
        return answer

    @property
    def jobs(self) -> list[J]:
        """The running jobs, as given."""
        return self._all

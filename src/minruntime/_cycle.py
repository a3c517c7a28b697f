"""The cycle form: one session's running jobs, indexed once, asked by many preemptors (private).

A scheduling cycle asks about the same running jobs for every pending preemptor. The index
groups the jobs by victim queue (queues in tree pre-order, so that a subtree is a run of
consecutive groups; queues not in the tree last) and, in each group, orders them by the key of
the min-runtime rule: jobs whose protection cannot depend on time (elastic, semi-preemptible,
never started) first, then by start time, oldest first. Jobs that a fundamental depending on
them alone refuses (their ``barrier``, a fact of :mod:`minruntime._facts`) are left out once.

For one preemptor the answer is built from the rules of :mod:`minruntime._eligibility`, the
same functions as the batch form's: the preemptor's own rule (:func:`preemptor_refusal`), the
fundamentals of the two queues (:func:`queue_refusal`), then the :class:`Group` of each victim
queue (its min-runtime, its section 16 settings, its threshold). Only the min-runtime of a group
is found faster: every victim queue below one *walk start* (the queue a resolution starts from)
shares it, so it is asked once per walk start; where no section 16 protection is on, the
groups of a walk start off the preemptor's path are one unit under that one threshold: its
victims, sorted by key once (on first use) and kept for the cycle, give their free prefix by one
binary search (:func:`queue_refusal` still asked once per victim queue). A group split by its threshold costs one binary
search; a group the threshold cannot decide (a section 16 protection on, or a preempt, whose
priorities differ by victim) goes through :func:`judge`, so nothing is decided twice in two ways.
The answer lists the victims in the order of the running jobs given.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import partial
from itertools import chain, compress, islice, repeat
from typing import Final, Generic, NamedTuple, TypeVar

from minruntime._eligibility import (
    ALLOWED,
    Group,
    Groups,
    judge,
    preemptor_refusal,
    queue_refusal,
)
from minruntime._facts import ELASTIC, SEMI, FactsTable, JobFacts
from minruntime._protection import FOREVER_NS, NO_SETTINGS
from minruntime._resolution import START_QUEUE, Resolver, below_shared, lca_step
from minruntime.decisions import Action, ProtectionKind, Reason
from minruntime.jobs import JobLike
from minruntime.queues import QueueTree

__all__ = ["Answer", "VictimIndex"]

J = TypeVar("J", bound=JobLike)

_ALWAYS: Final = -FOREVER_NS
"""The key of a job whose protection cannot depend on time: before every start time."""


class _Queue:
    """The running jobs of one victim queue: their input indices and rows in input order, and
    their keys sorted with the input indices in that order (one binary search gives the free
    prefix)."""

    __slots__ = ("by_key", "indices", "path", "queue", "rows", "sorted_keys")

    def __init__(
        self,
        queue: str,
        path: tuple[str, ...],
        indices: list[int],
        rows: Sequence[int],
        keys: list[int],
    ) -> None:
        self.queue = queue
        self.path = path
        self.indices = indices
        self.rows = list(map(rows.__getitem__, indices))
        self.by_key = sorted(indices, key=keys.__getitem__)
        self.sorted_keys = list(map(keys.__getitem__, self.by_key))


class _Unit:
    """The running jobs of one walk start's subtree (consecutive groups): their input indices
    sorted by key, and those keys (one binary search gives the free prefix). Built on first
    use, then shared."""

    __slots__ = ("by_key", "sorted_keys")

    def __init__(self, groups: Sequence[_Queue], keys: list[int]) -> None:
        self.by_key = sorted(
            chain.from_iterable(group.by_key for group in groups), key=keys.__getitem__
        )
        self.sorted_keys = list(map(keys.__getitem__, self.by_key))


class Answer(NamedTuple):
    """The input indices of the eligible running jobs (in input order), and what judging the
    groups the threshold could not decide counted (see
    :class:`~minruntime._eligibility.Judgement`)."""

    victims: list[int]
    decisions: list[Reason]
    lookups: int
    misses: int
    protections: dict[ProtectionKind, int]


class VictimIndex(Generic[J]):
    """A session's running jobs, indexed for many preemptors (behind
    :class:`~minruntime.Cycle`).

    Args:
        jobs: the running jobs, in the caller's order.
        rows: their rows of ``table``.
        table: their facts.
        tree: the queue tree.
        resolver: the session's resolver.
    """

    __slots__ = (
        "_keys",
        "_names",
        "_order",
        "_position",
        "_queues",
        "_resolver",
        "_starts",
        "_table",
        "_tree",
        "_units",
        "jobs",
    )

    def __init__(
        self,
        jobs: list[J],
        rows: Sequence[int],
        table: FactsTable,
        tree: QueueTree,
        resolver: Resolver,
    ) -> None:
        self.jobs = jobs
        self._table = table
        self._tree = tree
        self._resolver = resolver
        queues, barriers, starts, all_flags = (
            table.queues,
            table.barriers,
            table.starts,
            table.flags,
        )
        by_queue: dict[str, list[int]] = {}
        self._keys = keys = [0] * len(jobs)
        for index, row in enumerate(rows):
            if barriers[row] is not None:
                continue  # refused whatever the preemptor: the same answer for every preemptor
            start = starts[row]
            keys[index] = _ALWAYS if all_flags[row] & (ELASTIC | SEMI) or start is None else start
            by_queue.setdefault(queues[row], []).append(index)
        position = tree.preorder()
        last = (len(position), len(position))
        groups = [
            _Queue(queue, tree.path(queue) if queue in position else (), indices, rows, keys)
            for queue, indices in by_queue.items()
        ]
        groups.sort(key=lambda group: position.get(group.queue, last)[0])
        self._queues = groups
        self._names = [group.queue for group in groups]
        self._units: dict[str, _Unit] = {}
        self._order = {group.queue: number for number, group in enumerate(groups)}
        self._starts = [position.get(group.queue, last)[0] for group in groups]
        self._position = position

    def __len__(self) -> int:
        """How many running jobs the cycle holds."""
        return len(self.jobs)

    def _span(self, queue: str) -> tuple[int, int]:
        """The groups of ``queue``'s subtree: a range of indices into ``_queues``."""
        first, last = self._position[queue]
        return bisect_left(self._starts, first), bisect_left(self._starts, last)

    def _unit(self, start: str, first: int, last: int) -> _Unit:
        """The unit of a walk start whose groups are ``[first, last)`` (built whole, then
        published: threads may share it)."""
        unit = self._units.get(start)
        if unit is None:
            built = _Unit(self._queues[first:last], self._keys)
            unit = self._units.setdefault(start, built)
        return unit

    def eligible(self, act: Action, pre: JobFacts, groups: Groups, now_ns: int) -> Answer:
        """The running jobs ``pre`` may take, in input order."""
        if preemptor_refusal(pre, now_ns) is not None:
            return Answer([], [], 0, 0, {})  # a preemptor within its delay takes no victim
        tree, resolver, table = self._tree, self._resolver, self._table
        known, pre_queue = tree.names(), pre.queue
        protections_on = resolver.has_protections
        answer: list[int] = []
        judged: list[Reason] = []
        lookups = misses = 0
        protections: dict[ProtectionKind, int] = {}
        # A reclaim from a queue in the tree: every victim queue below one walk start shares
        # the min-runtime, asked once per walk start. By the LCA rule the start is the victim
        # queue's ancestor just below the lowest common ancestor with the preemptor's queue, and
        # the depth shared with the preemptor's path changes only where one of its ancestors'
        # subtrees begins or ends (kept as the walk goes); any other registered rule is asked
        # per group. Otherwise (a preempt, an unknown preemptor queue) each victim queue's group
        # is asked of the session's groups.
        walk = act is Action.RECLAIM and pre_queue in known
        lca = START_QUEUE[resolver.config.reclaim_resolve_method] is lca_step
        marks: dict[int, int] = {}
        if walk and lca:
            for ancestor in tree.path(pre_queue):
                first, last = self._span(ancestor)
                marks[first] = marks.get(first, 0) + 1
                marks[last] = marks.get(last, 0) - 1
        # Where no section 16 protection is on, a walk start that is not on the preemptor's
        # path is one unit: the groups of its subtree, consecutive, share one threshold.
        units = walk and lca and not protections_on
        on_path = frozenset(tree.path(pre_queue)) if units else frozenset()
        refusal = partial(queue_refusal, act, pre_queue)
        all_queues, names = self._queues, self._names
        candidates: Sequence[int] = range(len(all_queues))
        if act is Action.PREEMPT:  # queue_refusal refuses every queue but the preemptor's
            own = self._order.get(pre_queue)
            candidates = () if own is None else (own,)
        shared = 0
        walked_from: str | None = None
        min_runtime = None
        walked = None
        place = 0
        while place < len(candidates):
            number = candidates[place]
            place += 1
            members = all_queues[number]
            step = marks.get(number)
            if step:
                shared += step
            queue = members.queue
            if queue_refusal(act, pre_queue, queue, known) is not None:
                continue
            if units and (start := below_shared(members.path, shared)) not in on_path:
                first, last = self._span(start)
                # queue_refusal once per victim queue of the unit (a reason is truthy); the
                # shared depth does not change inside the unit (no ancestor's subtree of the
                # preemptor begins or ends there)
                if first == number and not any(
                    map(refusal, islice(names, first, last), repeat(known))
                ):
                    place = last
                    shares = groups.of(resolver.from_start(act, start), NO_SETTINGS)
                    if shares.never:
                        continue
                    unit = self._unit(start, first, last)
                    answer += unit.by_key[: bisect_right(unit.sorted_keys, shares.threshold)]
                    continue
            group: Group
            if walk:
                start = (
                    below_shared(members.path, shared)
                    if lca
                    else resolver.start_queue(act, pre_queue, queue)
                )
                if start != walked_from:
                    walked_from = start
                    min_runtime = resolver.from_start(act, start)
                    walked = groups.of(min_runtime, NO_SETTINGS)
                assert min_runtime is not None
                assert walked is not None
                group = (
                    groups.of(min_runtime, groups.settings(act, pre_queue, queue))
                    if protections_on
                    else walked
                )
            else:
                group, computed = groups.get(act, pre_queue, queue)
                lookups += 1
                misses += computed
            if group.never:
                continue
            if group.by_victim or act is Action.PREEMPT:
                found = judge(act, pre, table, members.rows, groups, known, now_ns)
                judged += found.reasons
                lookups += found.lookups
                misses += found.misses
                for kind, count in found.protections.items():
                    protections[kind] = protections.get(kind, 0) + count
                answer += [
                    index
                    for index, reason in zip(members.indices, found.reasons, strict=True)
                    if reason in ALLOWED
                ]
                continue
            # the protection rule, evaluated once for the group: free iff key <= threshold; one
            # binary search says whether all, none or some are free
            threshold = group.threshold
            count = bisect_right(members.sorted_keys, threshold)
            if count == len(members.by_key):
                answer += members.by_key
            elif count:
                answer += members.by_key[:count]
        return Answer(self._in_input_order(answer), judged, lookups, misses, protections)

    def _in_input_order(self, answer: list[int]) -> list[int]:
        """The input indices ``answer`` (in any order) in input order: a few sorted, many (an
        eighth of the jobs or more) marked and read off in one pass, cheaper than a sort."""
        count = len(self.jobs)
        if len(answer) * 8 < count:
            answer.sort()
            return answer
        chosen = bytearray(count)
        for index in answer:
            chosen[index] = 1
        return list(compress(range(count), chosen))

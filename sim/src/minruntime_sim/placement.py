"""Nodes and gang placement: on which nodes a job's GPUs go.

A cluster is an inventory of nodes, each with its GPUs. Where a job's GPUs go follows one
deterministic rule (the reasons: ``docs/decisions/simulator-placement.md``):

1. **One node when one node can hold it**: the node with the *fewest* free GPUs that still
   holds them all (best fit), the lowest-numbered on a tie.
2. **Otherwise whole nodes**: wholly free nodes, the largest first (lowest-numbered on a tie),
   each taken entirely, until the rest fits on one node, which is chosen by rule 1.

A gang that no such placement holds does not start, however many GPUs are free in all: two
8-GPU nodes with 6 free each cannot take a 12-GPU job. An elastic job places its minimum as a
gang and each further GPU on its own (:meth:`Nodes.place_one`).

>>> nodes = Nodes((8, 8))
>>> nodes.place(2), nodes.place(8), nodes.place(12)
([(0, 2)], [(1, 8)], None)
>>> nodes.release(1, 6)
>>> nodes.free, nodes.fits(12)
([6, 6], False)
>>> nodes.release(1, 2)
>>> nodes.place(12), nodes.free
([(1, 8), (0, 4)], [2, 0])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from minruntime_sim.errors import SimulationError

__all__ = ["Nodes"]


class Nodes:
    """The free GPUs of each node, indexed so that placing a job costs little.

    Args:
        capacity: each node's GPUs (every one >= 1).

    Every change is checked: a node never has more GPUs in use than it holds, nor fewer than
    none (:class:`~minruntime_sim.SimulationError`).

    >>> nodes = Nodes((4, 2))
    >>> nodes.place(3), nodes.place_one(()), nodes.place_one(()), nodes.place_one(())
    ([(0, 3)], 0, 1, 1)
    >>> nodes.release(1, 2); nodes.free
    [0, 2]
    """

    __slots__ = ("buckets", "capacity", "free", "free_gpus", "top", "whole")

    def __init__(self, capacity: Sequence[int]) -> None:
        self.capacity = tuple(capacity)
        self.free = list(self.capacity)
        self.free_gpus = sum(self.capacity)
        self.top = max(self.capacity, default=0)
        self.buckets: list[set[int]] = [set() for _ in range(self.top + 1)]
        """``buckets[f]``: the nodes with exactly ``f`` free GPUs (``f`` >= 1)."""
        self.whole: dict[int, set[int]] = {}
        """``whole[c]``: the wholly free nodes of ``c`` GPUs."""
        for index, count in enumerate(self.capacity):
            self.buckets[count].add(index)
            self.whole.setdefault(count, set()).add(index)

    # -- questions ---------------------------------------------------------------------------

    def _counts(self) -> tuple[list[int], dict[int, int]]:
        return [len(bucket) for bucket in self.buckets], {
            size: len(members) for size, members in self.whole.items()
        }

    @staticmethod
    def _fits_counts(counts: list[int], whole: dict[int, int], gpus: int) -> bool:
        """The rule on counts alone: ``counts[f]`` nodes with ``f`` free, ``whole[c]`` wholly
        free nodes of ``c`` GPUs (both are changed)."""
        rest = gpus
        top = len(counts) - 1
        while True:
            while top > 0 and counts[top] == 0:
                top -= 1
            if rest <= top:
                return True
            size = max((size for size, count in whole.items() if count), default=0)
            if not size:
                return False
            whole[size] -= 1
            counts[size] -= 1
            rest -= size

    def fits(self, gpus: int) -> bool:
        """Whether the rule places ``gpus`` GPUs now."""
        if gpus <= 0:
            return True
        if gpus > self.free_gpus:
            return False
        counts, whole = self._counts()
        return self._fits_counts(counts, whole, gpus)

    def fits_after(self, gpus: int, freed: Mapping[int, int]) -> bool:
        """Whether the rule would place ``gpus`` GPUs once ``freed[node]`` more GPUs are free
        on each node (an eviction plan, before it is carried out)."""
        if gpus > self.free_gpus + sum(freed.values()):
            return False
        counts, whole = self._counts()
        for node, more in freed.items():
            if more <= 0:
                continue
            before = self.free[node]
            after = before + more
            capacity = self.capacity[node]
            if after > capacity:
                raise SimulationError(
                    f"node {node}: {more} GPUs freed with {before} of {capacity} free already"
                )
            if before:
                counts[before] -= 1
            counts[after] += 1
            if after == capacity:
                whole[capacity] += 1
        return self._fits_counts(counts, whole, gpus)

    def least_to_free(self, gpus: int) -> int:
        """A lower bound on the GPUs that must be freed before the rule places ``gpus``: 0 when
        it places them now; on nodes of one size ``s``, a gang that fits on one node needs the
        emptiest node that can hold it, a larger one at least ``gpus // s`` wholly free nodes;
        otherwise what the free GPUs lack in all.

        >>> nodes = Nodes((8, 8, 8))
        >>> [nodes.place(5) for _ in range(3)] and nodes.least_to_free(16), nodes.least_to_free(4)
        (10, 1)
        """
        if self.fits(gpus):
            return 0
        short = max(0, gpus - self.free_gpus)
        sizes = set(self.capacity)
        if len(sizes) != 1:
            return short
        size = sizes.pop()
        used = sorted(size - free for free in self.free)
        if gpus <= size:
            return max(short, gpus - (size - used[0]))
        return max(short, sum(used[: gpus // size]))

    # -- changes -----------------------------------------------------------------------------

    def _set(self, node: int, free: int) -> None:
        before = self.free[node]
        capacity = self.capacity[node]
        if not 0 <= free <= capacity:
            raise SimulationError(
                f"node {node}: {capacity - free} GPUs in use, it has {capacity} "
                f"({capacity - before} in use before)"
            )
        if before:
            self.buckets[before].discard(node)
        if before == capacity:
            self.whole[capacity].discard(node)
        if free:
            self.buckets[free].add(node)
        if free == capacity:
            self.whole[capacity].add(node)
        self.free[node] = free
        self.free_gpus += free - before

    def _best_fit(self, gpus: int) -> int | None:
        for count in range(max(gpus, 1), self.top + 1):
            bucket = self.buckets[count]
            if bucket:
                return min(bucket)
        return None

    def place(self, gpus: int) -> list[tuple[int, int]] | None:
        """Take ``gpus`` GPUs by the rule: ``(node, count)`` pairs in the order taken, or
        ``None`` (and nothing taken) when the rule cannot place them."""
        if not self.fits(gpus):
            return None
        placed: list[tuple[int, int]] = []
        rest = gpus
        while rest > 0:
            node = self._best_fit(rest)
            if node is not None:
                self._set(node, self.free[node] - rest)
                placed.append((node, rest))
                break
            size = max(size for size, members in self.whole.items() if members)
            node = min(self.whole[size])
            self._set(node, 0)
            placed.append((node, size))
            rest -= size
        return placed

    def would_place(self, gpus: int, freed: Mapping[int, int]) -> set[int] | None:
        """The nodes the rule would place ``gpus`` GPUs on once ``freed[node]`` more GPUs are
        free on each node, or ``None``; nothing changes.

        >>> nodes = Nodes((4, 4))
        >>> nodes.place(4), nodes.place(3), nodes.would_place(4, {1: 3})
        ([(0, 4)], [(1, 3)], {1})
        """
        for node, more in freed.items():
            self._set(node, self.free[node] + more)
        placed = self.place(gpus)
        for node, count in placed or ():
            self._set(node, self.free[node] + count)
        for node, more in freed.items():
            self._set(node, self.free[node] - more)
        return None if placed is None else {node for node, _ in placed}

    def place_one(self, preferred: Iterable[int]) -> int:
        """Take one GPU: on the first of ``preferred`` nodes with one free (a job's own), else
        by best fit. Raises :class:`~minruntime_sim.SimulationError` when none is free."""
        for node in preferred:
            if self.free[node]:
                self._set(node, self.free[node] - 1)
                return node
        best = self._best_fit(1)
        if best is None:
            raise SimulationError("one GPU asked for, none free on any node")
        self._set(best, self.free[best] - 1)
        return best

    def release(self, node: int, count: int) -> None:
        """Give back ``count`` GPUs of ``node``."""
        self._set(node, self.free[node] + count)

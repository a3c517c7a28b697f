"""Queue quotas as the reference scheduler divides them: deserved, over-quota weight, limit.

KAI-Scheduler's proportion plugin gives every queue a **fair share** of the cluster at each
scheduling cycle, level by level down the queue tree (``pkg/scheduler/plugins/proportion/
resource_division/resource_division.go``; the reasons and what differs:
``docs/decisions/simulator-queues.md``):

1. the cluster's GPUs go to the top-level queues, a parent's fair share to its children;
2. among siblings, each first gets its **deserved** quota, but no more than it asks for
   (``min(deserved, requested)``);
3. what is left is split among the siblings that still ask for more, in proportion to their
   **over-quota weight**, in rounds: a queue gets the whole GPUs of its portion, or what it asks
   for if that is less, and the rounds repeat while a satisfied queue left some over; the GPUs
   left by rounding then go one at a time to the queues with the largest fraction owed (ties
   by name);
4. a queue never asks for more than its **limit**.

A queue asks for the GPUs of its jobs that have arrived and not finished (running or pending);
a parent asks for what its children ask for, up to its own limit. Queue priorities and the
usage-based adjustment (``kValue`` with historical usage) are not modelled.

>>> from minruntime import Queue, QueueTree
>>> tree = QueueTree([Queue("a"), Queue("b")])
>>> fair_shares(tree, 10, deserved={"a": 2, "b": 2}, demand={"a": 10, "b": 10})
{'a': 5, 'b': 5}
>>> fair_shares(tree, 10, deserved={"a": 2, "b": 2}, weights={"a": 3}, demand={"a": 10, "b": 10})
{'a': 7, 'b': 3}
>>> fair_shares(tree, 10, deserved={"a": 2, "b": 2}, limits={"a": 4}, demand={"a": 10, "b": 10})
{'a': 4, 'b': 6}
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from minruntime import QueueTree

__all__ = ["fair_shares"]


def fair_shares(
    tree: QueueTree,
    total: int,
    *,
    deserved: Mapping[str, int],
    demand: Mapping[str, int],
    weights: Mapping[str, float] | None = None,
    limits: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Every queue's fair share of ``total`` GPUs, as whole GPUs (see the module).

    Args:
        tree: the queue tree.
        total: the cluster's GPUs.
        deserved: each queue's deserved quota (any level; missing: 0).
        demand: the GPUs each leaf queue asks for (missing: 0).
        weights: each queue's over-quota weight (missing: 1).
        limits: each queue's limit (missing: none).

    Returns:
        Each queue's fair share, every queue of the tree, in the tree's order.

    Children share their parent's fair share:

    >>> from minruntime import Queue, QueueTree
    >>> tree = QueueTree([Queue("p"), Queue("x", "p"), Queue("y", "p"), Queue("z")])
    >>> fair_shares(tree, 8, deserved={"p": 4, "x": 1, "z": 4}, demand={"x": 8, "y": 8, "z": 8})
    {'p': 4, 'x': 3, 'y': 1, 'z': 4}
    """
    limits = limits or {}
    given_weights = weights or {}
    names = list(tree)
    weight: dict[str, int] | dict[str, Fraction]
    if all(float(given_weights.get(name, 1)).is_integer() for name in names):
        weight = {name: int(given_weights.get(name, 1)) for name in names}
    else:  # exact arithmetic either way: whole numbers, else fractions
        weight = {name: Fraction(given_weights.get(name, 1)) for name in names}
    children: dict[str | None, list[str]] = {}
    for name in names:
        children.setdefault(tree.parent(name), []).append(name)
    asks: dict[str, int] = {}

    def ask(name: str) -> int:
        below = children.get(name)
        wanted = sum(ask(child) for child in below) if below else demand.get(name, 0)
        limit = limits.get(name)
        asks[name] = wanted if limit is None else min(wanted, limit)
        return asks[name]

    for top in children.get(None, ()):
        ask(top)
    shares: dict[str, int] = {}

    def divide(amount: int, members: list[str]) -> None:
        share = {name: min(deserved.get(name, 0), asks[name]) for name in members}
        rest = amount - sum(share.values())
        owed: dict[str, int | Fraction] = {}
        """The fraction of a GPU each queue was owed in the last round, times the round's
        total weight (the same for all)."""
        ordered = sorted(members)
        while rest > 0:
            hungry = [name for name in ordered if share[name] < asks[name] and weight[name] > 0]
            if not hungry:
                break
            total_weight = sum(weight[name] for name in hungry)
            round_amount = rest
            given = 0
            for name in hungry:
                portion = round_amount * weight[name]  # a portion of total_weight
                wanted = asks[name] - share[name]
                if wanted * total_weight <= portion:
                    give = wanted
                    owed.pop(name, None)
                else:
                    give = int(portion // total_weight)
                    owed[name] = portion - give * total_weight
                give = min(give, rest)
                share[name] += give
                rest -= give
                given += give
            if not given:
                break
        for name in sorted(owed, key=lambda name: (-owed[name], name)):
            if rest <= 0:
                break
            if share[name] < asks[name]:
                share[name] += 1
                rest -= 1
        for name in members:
            shares[name] = share[name]
            if name in children:
                divide(share[name], children[name])

    divide(total, children.get(None, []))
    return {name: shares[name] for name in tree}

"""The worked example of ``minruntime example``, and the queue tree drawn in ASCII.

>>> print(worked_example().splitlines()[2])
Queue tree (preempt / reclaim min-runtime; - = unset, inherited):
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

from minruntime.cli._format import cell, iso
from minruntime.config import Config
from minruntime.decisions import Action
from minruntime.durations import MinRuntime
from minruntime.jobs import Job, PodSet, Task, TaskStatus
from minruntime.queues import Queue, QueueTree
from minruntime.session import Session

__all__ = ["EXAMPLE_NOW", "tree_drawing", "worked_example"]

EXAMPLE_NOW: Final = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""The instant the bundled example cluster was captured at, and is evaluated at by default."""


def _example_tree() -> QueueTree:
    return QueueTree(
        [
            Queue("A"),
            Queue("B", "A", preempt_min_runtime="600s", reclaim_min_runtime="600s"),
            Queue("C", "B"),
            Queue("D", "B", reclaim_min_runtime="60s"),
            Queue("leaf1", "C", preempt_min_runtime="300s", reclaim_min_runtime="0s"),
            Queue("leaf2", "C", reclaim_min_runtime="180s"),
            Queue("leaf3", "D"),
        ]
    )


def _example_jobs(now: datetime) -> tuple[Job, list[Job]]:
    def started(minutes: float) -> datetime:
        return now - timedelta(minutes=minutes)

    def tasks(prefix: str, count: int, pending: int = 0) -> list[Task]:
        return [Task(f"{prefix}-{i}") for i in range(count)] + [
            Task(f"{prefix}-{count + i}", TaskStatus.PENDING) for i in range(pending)
        ]

    pending = Job("urgent", "leaf1", priority=100, pod_sets=[PodSet(tasks=tasks("urgent", 0, 4))])
    running = [
        Job("etl", "leaf3", preemptibility="preemptible", start_time=started(0.5),
            pod_sets=[PodSet(min_available=2, tasks=tasks("etl", 2))]),
        Job("sweep", "leaf3", preemptibility="preemptible", start_time=started(0.5),
            pod_sets=[PodSet(min_available=2, tasks=tasks("sweep", 6))]),
        Job("llm-serve", "leaf2", preemptibility="semi-preemptible", start_time=started(120),
            pod_sets=[PodSet(min_available=2, tasks=tasks("llm-serve", 4))]),
        Job("db-build", "leaf2", priority=100, start_time=started(300),
            pod_sets=[PodSet(tasks=tasks("db-build", 1))]),
        Job("notebook", "leaf2", priority=50, start_time=started(1),
            pod_sets=[PodSet(tasks=tasks("notebook", 1))]),
        Job("old-train", "leaf3", priority=50, start_time=started(90),
            pod_sets=[PodSet(min_available=2, tasks=tasks("old-train", 2))]),
    ]  # fmt: skip
    return pending, running


def tree_drawing(tree: QueueTree) -> list[tuple[str, str]]:
    """Each queue of the tree, depth first and by name, as ``(branch, name)``: the branch draws
    the queue under its own parent (``|--`` and ``` `-- ```), in ASCII so that every terminal
    shows it. Below depth 10 the branch stops growing and gives the depth instead (``[12]``).

    >>> tree = QueueTree([Queue("a"), Queue("b", "a"), Queue("c"), Queue("d", "a")])
    >>> for branch, _ in tree_drawing(tree):
    ...     print(branch)
    a
    |-- b
    `-- d
    c
    """
    drawn: list[tuple[str, str]] = []
    stack: list[tuple[str, str, bool, int]] = [
        (name, "", True, 0) for name in sorted(tree.children(None), reverse=True)
    ]
    while stack:  # iterative: a deep tree must not reach the recursion limit
        name, prefix, last, depth = stack.pop()
        connector = "`-- " if last else "|-- "
        if depth == 0:
            branch = cell(name)
        elif depth <= 10:
            branch = f"{prefix}{connector}{cell(name)}"
        else:  # a chain of thousands of queues must not draw thousands of columns
            branch = f"[{depth}] {connector}{cell(name)}"
        drawn.append((branch, name))
        below = prefix if depth == 0 else prefix + ("    " if last else "|   ")
        children = sorted(tree.children(name))  # by name: the input's order must not matter
        for i, child in reversed(list(enumerate(children))):
            stack.append((child, below if depth < 10 else "", i == len(children) - 1, depth + 1))
    return drawn


def _show(value: MinRuntime | None) -> str:
    return "-" if value is None else str(value)


def worked_example(now: datetime = EXAMPLE_NOW) -> str:
    """The worked example's report, evaluated at ``now``.

    >>> print(worked_example().splitlines()[0])
    minruntime worked example, evaluated at 2026-11-22T12:00:00Z
    """
    tree = _example_tree()
    session = Session(tree, Config(), now)
    lines = [f"minruntime worked example, evaluated at {iso(now)}", ""]
    lines.append("Queue tree (preempt / reclaim min-runtime; - = unset, inherited):")
    drawn = tree_drawing(tree)
    width = max(len(branch) for branch, _ in drawn)
    for branch, name in drawn:
        queue = tree[name]
        preempt = _show(queue.preempt_min_runtime)
        lines.append(
            f"  {branch:<{width}}  preempt {preempt:<4} reclaim {_show(queue.reclaim_min_runtime)}"
        )
    lines.append("")
    lines.append("Reclaim min-runtime by lowest common ancestor (docs/spec/resolution.md):")
    for preemptor, victim in [("leaf1", "leaf3"), ("leaf1", "leaf2"), ("leaf3", "leaf1")]:
        resolution = session.resolve(Action.RECLAIM, preemptor, victim)
        lines.append(f"  {preemptor} reclaims from {victim}: {resolution}")
    lines.append("Preempt min-runtime (walk up from the victim's queue):")
    for victim in ("leaf1", "leaf2"):
        lines.append(f"  victim in {victim}: {session.resolve(Action.PREEMPT, victim, victim)}")
    lines.append("")
    pending, running = _example_jobs(now)
    lines.append(
        f"Pending job {pending.id!r} in queue {pending.queue!r} wants room; it may reclaim:"
    )
    for job in running:
        verdict = session.verdict(Action.RECLAIM, pending, job)
        lines.append(f"  - {verdict}")
        evictable = verdict.tasks
        if evictable:
            names = ", ".join(str(task.id) for task in evictable)
            lines.append(f"      evictable, first to go first: {names}")
    retry = session.next_expiry(Action.RECLAIM, pending, running)
    if retry is not None:
        lines.append(f"Retry at {iso(retry)}, when the next protection ends.")
    return "\n".join(lines)

"""The ``minruntime`` command line.

``minruntime`` (or ``python -m minruntime``) prints a worked example: the design's queue tree,
the min-runtime each (preemptor, victim) pair resolves to, and the decisions a Session makes
about a handful of running jobs, all computed live.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from minruntime.config import Config
from minruntime.durations import MinRuntime
from minruntime.jobs import Job, PodSet, Task, TaskStatus
from minruntime.queues import Queue, QueueTree
from minruntime.resolution import Action
from minruntime.session import Session

__all__ = ["main", "worked_example"]

EXAMPLE_NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""The instant the worked example is evaluated at (fixed, so that its output is reproducible)."""


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

    pending = Job("urgent", "leaf1", priority=100, pod_sets=[PodSet(tasks=tasks("urgent", 4, 4))])
    running = [
        Job(
            "etl",
            "leaf3",
            preemptibility="preemptible",
            start_time=started(0.5),
            pod_sets=[PodSet(min_available=2, tasks=tasks("etl", 2))],
        ),
        Job(
            "sweep",
            "leaf3",
            preemptibility="preemptible",
            start_time=started(0.5),
            pod_sets=[PodSet(min_available=2, tasks=tasks("sweep", 6))],
        ),
        Job(
            "llm-serve",
            "leaf2",
            preemptibility="semi-preemptible",
            start_time=started(120),
            pod_sets=[PodSet(min_available=2, tasks=tasks("llm-serve", 4))],
        ),
        Job(
            "db-build",
            "leaf2",
            priority=100,
            start_time=started(300),
            pod_sets=[PodSet(tasks=tasks("db-build", 1))],
        ),
        Job(
            "notebook",
            "leaf2",
            priority=50,
            start_time=started(1),
            pod_sets=[PodSet(tasks=tasks("notebook", 1))],
        ),
        Job(
            "old-train",
            "leaf3",
            priority=50,
            start_time=started(90),
            pod_sets=[PodSet(min_available=2, tasks=tasks("old-train", 2))],
        ),
    ]
    return pending, running


def _show(value: MinRuntime | None) -> str:
    return "-" if value is None else str(value)


def worked_example(now: datetime = EXAMPLE_NOW) -> str:
    """The worked example's report, evaluated at ``now``.

    >>> print(worked_example().splitlines()[0])
    minruntime worked example, evaluated at 2026-11-22T12:00:00Z
    """
    tree = _example_tree()
    session = Session(tree, Config(), now)
    lines = [f"minruntime worked example, evaluated at {now.isoformat().replace('+00:00', 'Z')}"]
    lines.append("")
    lines.append("Queue tree (preempt / reclaim min-runtime; - = unset, inherited):")
    for name in tree:
        queue = tree[name]
        indent = "  " * (tree.depth(name) + 1)
        preempt = _show(queue.preempt_min_runtime)
        reclaim = _show(queue.reclaim_min_runtime)
        lines.append(f"{indent}{name:<8} preempt {preempt:<4} reclaim {reclaim}")
    lines.append("")
    lines.append("Reclaim min-runtime by lowest common ancestor (BEHAVIOR.md section 4):")
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
        decision = session.explain(Action.RECLAIM, pending, job)
        lines.append(f"  - {decision}")
        evictable = session.evictable_tasks(Action.RECLAIM, pending, job)
        if evictable:
            lines.append(
                f"      evictable, first to go first: {', '.join(str(t.id) for t in evictable)}"
            )
    retry = session.next_expiry(Action.RECLAIM, pending, running)
    if retry is not None:
        lines.append(
            f"Retry at {retry.isoformat().replace('+00:00', 'Z')}, when the next protection ends."
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="minruntime",
        description="Minimum-runtime protection and preemptibility policy for cluster schedulers.",
    )
    parser.add_argument(
        "command",
        nargs="?",
        default="example",
        choices=["example"],
        help="what to do (default: print the worked example)",
    )
    parser.parse_args(argv)
    sys.stdout.write(worked_example() + "\n")
    return 0

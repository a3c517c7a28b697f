"""One scheduling cycle's victim selection, with minruntime deciding who may be evicted.

A pending job in queue ``vision`` needs GPUs and none are free, so the cycle runs the reclaim
action: it asks the session which running jobs are eligible victims, explains every candidate,
takes evictable tasks until the GPUs needed are covered, and validates that scenario. When there
is not enough room it evicts nothing and prints when to try again (``Session.next_expiry``).

Run it from the repository root::

    python examples/scheduler_loop.py                  # 4 GPUs needed: not enough room yet
    python examples/scheduler_loop.py --gpus 3         # 3 GPUs: the scenario is evicted
    python examples/scheduler_loop.py --now 2026-11-22T12:40:00Z   # the retry time

``now`` is a fixed instant (or the one given): the decision path never reads a clock.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from minruntime import (
    Action,
    Config,
    Job,
    JobLike,
    PodSet,
    Queue,
    QueueTree,
    Session,
    Task,
    TaskLike,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""The instant of the cycle: a real scheduler reads its clock once per cycle and passes it in."""

GPUS_PER_TASK = 1
FREE_GPUS = 0


def build_tree() -> QueueTree:
    """Two departments; ``nlp`` protects its jobs from its sibling ``vision`` for 2 hours."""
    return QueueTree(
        [
            Queue("research", reclaim_min_runtime="30m"),
            Queue("vision", parent="research"),
            Queue("nlp", parent="research", reclaim_min_runtime="2h"),
            Queue("prod", reclaim_min_runtime="1h"),
            Queue("inference", parent="prod"),
            Queue("batch", parent="prod"),
        ]
    )


def build_config() -> Config:
    """The arguments of the scheduler config's ``minruntime`` plugin entry."""
    return Config.from_plugin_arguments(
        {
            "defaultPreemptMinRuntime": "5m",
            "defaultReclaimMinRuntime": "15m",
            "reclaimResolveMethod": "lca",
        }
    )


def _tasks(name: str, count: int) -> list[Task]:
    return [Task(f"{name}-{i}") for i in range(count)]


def build_running_jobs() -> list[Job]:
    """The running jobs; their start times are facts about the cluster, fixed here."""
    return [
        # Same queue as the pending job: reclaim never takes from its own queue.
        Job(
            "vision/labeler",
            "vision",
            preemptibility="preemptible",
            start_time=NOW - timedelta(hours=1),
            pod_sets=[PodSet(min_available=1, tasks=_tasks("labeler", 1))],
        ),
        # Elastic: needs 2 workers, runs 4. Protected, so only the 2 extra ones may go.
        Job(
            "nlp/pretrain",
            "nlp",
            preemptibility="preemptible",
            start_time=NOW - timedelta(minutes=40),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("pretrain", 4))],
        ),
        # Semi-preemptible: its first 2 tasks are a core that is never evicted.
        Job(
            "nlp/etl",
            "nlp",
            preemptibility="semi-preemptible",
            start_time=NOW - timedelta(hours=3),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("etl", 3))],
        ),
        # Non-preemptible: never a victim.
        Job(
            "prod/serving",
            "inference",
            priority=125,
            preemptibility="non-preemptible",
            start_time=NOW - timedelta(days=2),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("serving", 2))],
        ),
        # A gang protected until 12:40 by prod's reclaim min-runtime (1h).
        Job(
            "prod/eval",
            "batch",
            preemptibility="preemptible",
            start_time=NOW - timedelta(minutes=20),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("eval", 2))],
        ),
    ]


def _when(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def run_cycle(now: datetime, gpus_needed: int) -> list[str]:
    """One reclaim cycle for the pending job at ``now``; returns the report's lines."""
    tree = build_tree()
    config = build_config()
    running = build_running_jobs()
    pending = Job(
        "vision/detector",
        "vision",
        priority=100,
        preemptibility="preemptible",
        pod_sets=[PodSet(min_available=gpus_needed, tasks=_tasks("detector", gpus_needed))],
    )
    session = Session(tree, config, now)
    action = Action.RECLAIM
    report = [
        f"{action} cycle at {_when(session.now)}",
        f"pending job {pending.id!r} in queue {pending.queue!r} needs {gpus_needed} GPUs, "
        f"{FREE_GPUS} free",
        "",
        "candidates:",
    ]
    decisions = {}
    for job in running:
        decisions[job.id] = decision = session.explain(action, pending, job)
        report.append(f"  {decision}")
        tasks = session.evictable_tasks(action, pending, job)
        if tasks:
            report.append(f"    evictable: {', '.join(str(task.id) for task in tasks)}")

    eligible = session.eligible_victims(action, pending, running)
    report += ["", f"eligible victims: {', '.join(str(victim.id) for victim in eligible)}"]

    # Take tasks until the GPUs are covered, victims in the order given, each victim's tasks in
    # sacrifice order. A gang (a job that is not elastic) cannot run with fewer pods, so it is
    # taken whole; an elastic job (semi-preemptible ones included) gives tasks one at a time.
    needed = gpus_needed - FREE_GPUS
    picked: dict[JobLike, list[TaskLike]] = {}
    freed = 0
    for victim in eligible:
        if freed >= needed:
            break
        tasks = session.evictable_tasks(action, pending, victim)
        if decisions[victim.id].elastic:
            chosen = list(tasks[: -(-(needed - freed) // GPUS_PER_TASK)])
        else:
            chosen = list(tasks)
        if chosen:
            picked[victim] = chosen
            freed += len(chosen) * GPUS_PER_TASK

    names = [str(task.id) for tasks in picked.values() for task in tasks]
    report.append(f"picked: {', '.join(names) or 'nothing'} ({freed} GPUs)")
    result = session.validate(action, pending, picked)
    report.append(f"scenario: {result}")

    if freed >= needed and result:
        report.append(f"evict {len(names)} tasks: {', '.join(names)}")
    else:
        report.append(
            f"not enough room: {freed} of {needed} GPUs can be freed; nothing is evicted"
            if freed < needed
            else "the scenario is invalid; nothing is evicted"
        )
        retry = session.next_expiry(action, pending, running)
        if retry is None:
            report.append("no protection will run out: wait for resources to be released")
        else:
            report.append(f"retry at {_when(retry)}")

    stats = session.stats()
    report.append(
        f"session: {stats.resolutions} min-runtime lookups, {stats.cache_hits} from the cache, "
        f"{stats.jobs} jobs"
    )
    return report


def _instant(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r}: give a time zone, e.g. 2026-11-22T12:40:00Z")
    return moment


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--gpus", type=int, default=4, help="GPUs the pending job needs")
    parser.add_argument("--now", type=_instant, default=NOW, help="the cycle's instant (UTC)")
    arguments = parser.parse_args(argv)
    print("\n".join(run_cycle(arguments.now, arguments.gpus)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

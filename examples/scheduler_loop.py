"""One scheduling cycle with several pending jobs, with minruntime deciding what each may take.

Two pending jobs in queue ``vision`` need GPUs and none are free, so the cycle runs the reclaim
action for each in turn. It explains every candidate victim once (``Session.verdicts``), then
opens a ``Cycle`` over the running jobs and, for each pending job, asks for a plan in GPUs
(``Cycle.plan``). A plan that covers the need is committed (``Cycle.commit``) and its tasks are
evicted: no later plan of the cycle offers them again. A plan that does not is left alone
(nothing is evicted for that job), and the earliest of those plans' retry times is when the
cycle should run again.

Run it from the repository root::

    python examples/scheduler_loop.py                  # the second job waits for 12:40
    python examples/scheduler_loop.py --gpus 2         # a smaller first job: both are placed
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
    Cycle,
    Job,
    Plan,
    PodSet,
    Queue,
    QueueTree,
    Resources,
    Session,
    Task,
)
from minruntime.resources import GPU

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""The instant of the cycle: a real scheduler reads its clock once per cycle and passes it in."""


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


def _tasks(name: str, count: int, gpus: int, status: str = "Running") -> list[Task]:
    """``count`` tasks of ``gpus`` GPUs each (and one pod each, as every task)."""
    return [Task(f"{name}-{i}", status, resources={GPU: gpus}) for i in range(count)]


def build_running_jobs() -> list[Job]:
    """The running jobs; their start times are facts about the cluster, fixed here."""
    return [
        # Same queue as the pending jobs: reclaim never takes from its own queue.
        Job(
            "vision/labeler",
            "vision",
            preemptibility="preemptible",
            start_time=NOW - timedelta(hours=1),
            pod_sets=[PodSet(min_available=1, tasks=_tasks("labeler", 1, gpus=1))],
        ),
        # Elastic: needs 2 workers of 2 GPUs, runs 4. Protected, so only the 2 extra ones may go.
        Job(
            "nlp/pretrain",
            "nlp",
            preemptibility="preemptible",
            start_time=NOW - timedelta(minutes=40),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("pretrain", 4, gpus=2))],
        ),
        # Semi-preemptible: its first 2 tasks are a core that is never evicted.
        Job(
            "nlp/etl",
            "nlp",
            preemptibility="semi-preemptible",
            start_time=NOW - timedelta(hours=3),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("etl", 3, gpus=1))],
        ),
        # Non-preemptible: never a victim.
        Job(
            "prod/serving",
            "inference",
            priority=125,
            preemptibility="non-preemptible",
            start_time=NOW - timedelta(days=2),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("serving", 2, gpus=1))],
        ),
        # A gang protected until 12:40 by prod's reclaim min-runtime (1h).
        Job(
            "prod/eval",
            "batch",
            preemptibility="preemptible",
            start_time=NOW - timedelta(minutes=20),
            pod_sets=[PodSet(min_available=2, tasks=_tasks("eval", 2, gpus=1))],
        ),
    ]


def build_pending_jobs(detector_gpus: int) -> list[Job]:
    """The pending jobs, in the order the scheduler tries them (highest priority first)."""
    return [
        Job(
            f"vision/{name}",
            "vision",
            priority=priority,
            preemptibility="preemptible",
            pod_sets=[PodSet(min_available=size, tasks=_tasks(name, size, 1, "Pending"))],
        )
        for name, size, priority in [("detector", detector_gpus, 120), ("tracker", 2, 100)]
    ]


def gpus_needed(job: Job) -> Resources:
    """What a pending job needs: the GPUs its pending tasks request."""
    return Resources({GPU: sum(task.resources.get(GPU, 0) for task in job.tasks())})


def _when(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def place(cycle: Cycle[Job], action: Action, pending: Job) -> tuple[list[str], Plan[Job]]:
    """Plan ``pending``'s need and commit the plan if it covers it; the report's lines, and
    the plan."""
    plan = cycle.plan(action, pending, gpus_needed(pending))
    lines = [f"  {plan}"]
    if not plan:  # nothing is evicted for a job that would still not fit
        lines.append("    not enough room: nothing is evicted for it")
        return lines, plan
    cycle.commit(plan)  # no later plan of this cycle offers these tasks again
    names = [str(task.id) for tasks in plan.tasks for task in tasks]
    lines.append(f"    evict {', '.join(names)} (lost {plan.lost / 3600:.2f} GPU-h)")
    return lines, plan


def run_cycle(now: datetime, detector_gpus: int) -> list[str]:
    """One reclaim cycle for the pending jobs at ``now``; returns the report's lines."""
    session = Session(build_tree(), build_config(), now)
    running = build_running_jobs()
    pending = build_pending_jobs(detector_gpus)
    action = Action.RECLAIM
    report = [f"{action} cycle at {_when(session.now)}, no GPU free"]
    report += [f"pending {job.id!r} needs {gpus_needed(job)}" for job in pending]

    first = pending[0]
    report += ["", f"candidates for {first.id!r}:"]
    for verdict in session.verdicts(action, first, running):
        report.append(f"  {verdict}")
        if verdict.tasks:
            report.append(f"    evictable: {', '.join(str(task.id) for task in verdict.tasks)}")

    report += ["", "plans:"]
    cycle = session.cycle(running)
    waiting = []
    for job in pending:
        lines, plan = place(cycle, action, job)
        report += lines
        if not plan:
            waiting.append(plan)

    # The cycle runs again when the first protection that holds back a waiting job runs out.
    retries = [plan.retry for plan in waiting if plan.retry is not None]
    if retries:
        report.append(f"retry at {_when(min(retries))}")
    elif waiting:
        report.append("no protection will run out: wait for resources to be released")

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
    parser.add_argument("--gpus", type=int, default=4, help="GPUs the first pending job needs")
    parser.add_argument("--now", type=_instant, default=NOW, help="the cycle's instant (UTC)")
    arguments = parser.parse_args(argv)
    print("\n".join(run_cycle(arguments.now, arguments.gpus)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

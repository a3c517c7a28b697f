"""Seeded synthetic workloads, for tests and quick experiments.

The same arguments always give the same workload: the only randomness is a
:class:`random.Random` seeded with ``seed``.

>>> workload = synthetic_workload(seed=7, jobs=5, queues=3, total_gpus=12)
>>> [job.id for job in workload.jobs]
['s7-0000', 's7-0001', 's7-0002', 's7-0003', 's7-0004']
>>> sorted(workload.deserved.items())
[('q0', 4), ('q1', 4), ('q2', 4)]
>>> workload.jobs == synthetic_workload(seed=7, jobs=5, queues=3, total_gpus=12).jobs
True
"""

from __future__ import annotations

import random

from minruntime import Preemptibility, Queue, QueueTree
from minruntime_sim.model import JobSpec, Workload, scale_shares

__all__ = ["synthetic_workload", "toy_workload"]


def synthetic_workload(
    *,
    seed: int,
    jobs: int = 50,
    queues: int = 2,
    total_gpus: int = 16,
    max_gpus: int = 4,
    mean_run_time: int = 1800,
    mean_gap: int = 120,
    elastic: float = 0.2,
    semi_preemptible: float = 0.1,
    non_preemptible: float = 0.1,
    checkpoints: float = 0.2,
) -> Workload:
    """A random workload: ``queues`` leaf queues ``q0``, ``q1``... under a root, equal shares.

    Args:
        seed: the random seed.
        jobs: how many jobs.
        queues: how many leaf queues (at least 1).
        total_gpus: the cluster's GPUs.
        max_gpus: the largest job (1, 2, 4 ... up to this, smaller ones more often).
        mean_run_time: mean run time in seconds (exponential, at least 60 s).
        mean_gap: mean time between submissions in seconds (exponential).
        elastic: the fraction of multi-GPU jobs that are elastic (preemptible, with a minimum
            below their size).
        semi_preemptible: the fraction of multi-GPU jobs that are semi-preemptible (a core of
            half their tasks).
        non_preemptible: the fraction of jobs with priority 125 (non-preemptible by the legacy
            rule); the others have priority 50 or 75 with no explicit preemptibility.
        checkpoints: the fraction of jobs that checkpoint (every 10 or 30 minutes).

    >>> workload = synthetic_workload(seed=1, jobs=5)
    >>> workload.name, len(workload.jobs), workload.total_gpus, dict(workload.deserved)
    ('synthetic(seed=1, jobs=5)', 5, 16, {'q0': 8, 'q1': 8})
    """
    rng = random.Random(seed)
    names = [f"q{i}" for i in range(max(1, queues))]
    tree = QueueTree([Queue("root"), *(Queue(name, "root") for name in names)])
    sizes = [size for size in (1, 2, 4, 8, 16, 32) if size <= max(1, max_gpus)]
    weights = [2.0**-i for i in range(len(sizes))]
    specs = []
    submit = 0
    for i in range(jobs):
        submit += int(rng.expovariate(1 / mean_gap)) if mean_gap > 0 else 0
        gpus = rng.choices(sizes, weights)[0]
        priority = 125 if rng.random() < non_preemptible else rng.choice((50, 75))
        preemptibility: Preemptibility | None = None
        min_available: int | None = None
        kind = rng.random()
        if gpus > 1 and priority < 125:
            if kind < elastic:
                preemptibility = Preemptibility.PREEMPTIBLE
                min_available = rng.randint(1, gpus - 1)
            elif kind < elastic + semi_preemptible:
                preemptibility = Preemptibility.SEMI_PREEMPTIBLE
                min_available = gpus // 2
        interval = rng.choice((600, 1800)) if rng.random() < checkpoints else None
        specs.append(
            JobSpec(
                id=f"s{seed}-{i:04d}",
                queue=rng.choice(names),
                submit=submit,
                run_time=60 + int(rng.expovariate(1 / max(1, mean_run_time - 60))),
                gpus=gpus,
                priority=priority,
                preemptibility=preemptibility,
                min_available=min_available,
                checkpoint_interval=interval,
            )
        )
    return Workload(
        name=f"synthetic(seed={seed}, jobs={jobs})",
        jobs=specs,
        tree=tree,
        deserved=scale_shares(dict.fromkeys(names, 1), total_gpus),
        total_gpus=total_gpus,
    )


def toy_workload() -> Workload:
    """The three-job workload of the examples: 4 GPUs; queues ``a`` and ``b`` deserve 2 each;
    ``a1`` and ``a2`` (2 GPUs, 100 s each) are submitted to ``a`` at 0 and 5, and ``b1`` (2 GPUs,
    50 s) to ``b`` at 10, when it must reclaim from ``a``.

    >>> [(job.id, job.queue, job.submit) for job in toy_workload().jobs]
    [('a1', 'a', 0), ('a2', 'a', 5), ('b1', 'b', 10)]
    """
    return Workload(
        name="toy",
        tree=QueueTree([Queue("a"), Queue("b")]),
        deserved={"a": 2, "b": 2},
        total_gpus=4,
        jobs=[
            JobSpec(id="a1", queue="a", submit=0, run_time=100, gpus=2),
            JobSpec(id="a2", queue="a", submit=5, run_time=100, gpus=2),
            JobSpec(id="b1", queue="b", submit=10, run_time=50, gpus=2),
        ],
    )

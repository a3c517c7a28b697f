"""minruntime benchmarks: run ``python benchmarks/run.py`` (``--quick`` for a smaller run).

Generates realistic inputs with a fixed seed, prints a table and writes ``benchmarks/results.json``
with the figures and the machine they ran on. Timings are the best of several repeats
(``time.perf_counter``); compare ratios measured in one run, not figures across machines.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from minruntime import Action, Config, Job, PodSet, Queue, QueueTree, Session, Task, TaskStatus

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
VALUES = ["0s", "1m", "5m", "10m", "30m", "1h", "4h", "never"]


def make_queues(count: int, max_depth: int, rng: random.Random) -> list[Queue]:
    """A random tree: ~1% top-level queues, depth up to ``max_depth``, ~20% of values set."""
    queues: list[Queue] = []
    depth: list[int] = []
    deep: list[int] = []  # indices of queues that may still take children
    for i in range(count):
        if not deep or rng.random() < 0.01:
            parent = None
            level = 0
        else:
            # prefer recent queues so that deep chains form, as in real org trees
            p = deep[-1 - min(len(deep) - 1, int(rng.expovariate(0.05)))]
            parent = f"q{p}"
            level = depth[p] + 1
        preempt = rng.choice(VALUES) if rng.random() < 0.2 else None
        reclaim = rng.choice(VALUES) if rng.random() < 0.2 else None
        queues.append(
            Queue(f"q{i}", parent, preempt_min_runtime=preempt, reclaim_min_runtime=reclaim)
        )
        depth.append(level)
        if level < max_depth:
            deep.append(i)
    return queues


def make_jobs(
    count: int, queues: list[str], rng: random.Random, *, elastic: float = 0.1
) -> list[Job]:
    """``count`` running jobs with 8 tasks each, ``elastic`` of them elastic."""
    jobs = []
    for i in range(count):
        is_elastic = rng.random() < elastic
        tasks = [Task(f"j{i}-{t}", TaskStatus.RUNNING) for t in range(8)]
        jobs.append(
            Job(
                f"j{i}",
                rng.choice(queues),
                priority=rng.choice([25, 50, 75]),
                preemptibility=rng.choice(["preemptible", "preemptible", "preemptible", None]),
                start_time=NOW - timedelta(seconds=rng.randint(0, 4 * 3600)),
                pod_sets=[PodSet(min_available=4 if is_elastic else 8, tasks=tasks)],
            )
        )
    return jobs


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--output", default=str(Path(__file__).with_name("results.json")))
    args = parser.parse_args()
    rng = random.Random(20261122)
    scale = 10 if args.quick else 1
    results: dict[str, Any] = {}
    rows: list[tuple[str, str]] = []

    # -- tree build ----------------------------------------------------------------------------
    for count in (1_000, 10_000, 100_000):
        count //= scale
        queues = make_queues(count, 50, rng)
        seconds = best(lambda queues=queues: QueueTree(queues), 3)
        results[f"tree_build_{count}"] = seconds
        rows.append((f"tree build, {count:,} queues (depth <= 50)", f"{seconds * 1e3:.1f} ms"))
    tree = QueueTree(queues)
    results["tree_max_depth"] = max(tree.depth(name) for name in tree)

    # -- resolution of 10^6 random pairs -------------------------------------------------------
    names = list(tree)
    pair_count = 1_000_000 // scale
    pairs = [(rng.choice(names), rng.choice(names)) for _ in range(pair_count)]
    for method in ("lca", "queue"):
        config = Config(reclaim_resolve_method=method)
        session = Session(tree, config, NOW)
        reclaim = session.reclaim_min_runtime

        def resolve_all(reclaim: Callable[[str, str], Any] = reclaim) -> None:
            for p, v in pairs:
                reclaim(p, v)

        cold = best(resolve_all, 1)
        warm = best(resolve_all, 3)
        plain: dict[tuple[str, str], Any] = dict.fromkeys(pairs)

        def dict_lookup(plain: dict[tuple[str, str], Any] = plain) -> None:
            for p, v in pairs:
                plain[(p, v)]

        floor = best(dict_lookup, 3)
        results[f"resolve_{method}_cold_{pair_count}"] = cold
        results[f"resolve_{method}_warm_{pair_count}"] = warm
        results[f"dict_lookup_{pair_count}"] = floor
        rows.append((f"reclaim MR ({method}), {pair_count:,} random pairs, cold", f"{cold:.2f} s"))
        rows.append((f"reclaim MR ({method}), {pair_count:,} random pairs, warm", f"{warm:.2f} s"))
        rows.append(("  plain dict lookup of the same pairs", f"{floor:.2f} s"))

    # -- eligible_victims over 10^5 victims ----------------------------------------------------
    victim_count = 100_000 // scale
    leaves = [name for name in names if not tree.children(name)][:200]
    victims = make_jobs(victim_count, leaves, rng)
    for action in (Action.PREEMPT, Action.RECLAIM):
        preemptor = Job("pending", leaves[0], priority=100)

        def select(action: Action = action, preemptor: Job = preemptor) -> int:
            session = Session(tree, Config(), NOW)
            return len(session.eligible_victims(action, preemptor, victims))

        seconds = best(select, 3)
        results[f"eligible_victims_{action}_{victim_count}"] = seconds
        rows.append(
            (
                f"eligible_victims ({action}), {victim_count:,} victims, new session",
                f"{seconds * 1e3:.0f} ms = {seconds / victim_count * 1e9:.0f} ns/victim",
            )
        )
        session = Session(tree, Config(), NOW)
        session.eligible_victims(action, preemptor, victims)
        warm = best(lambda s=session, a=action, p=preemptor: s.eligible_victims(a, p, victims), 3)
        results[f"eligible_victims_{action}_{victim_count}_warm"] = warm
        rows.append(
            (
                f"eligible_victims ({action}), {victim_count:,} victims, warm session",
                f"{warm * 1e3:.0f} ms = {warm / victim_count * 1e9:.0f} ns/victim",
            )
        )

    machine = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "quick": args.quick,
    }
    width = max(len(label) for label, _ in rows)
    print(
        f"minruntime benchmarks ({machine['python']}, {machine['platform']}, {machine['cpus']} cpus)"
    )
    for label, value in rows:
        print(f"  {label:<{width}}  {value}")
    Path(args.output).write_text(
        json.dumps({"machine": machine, "seconds": results}, indent=2) + "\n"
    )
    print(f"written to {args.output}")


if __name__ == "__main__":
    main()

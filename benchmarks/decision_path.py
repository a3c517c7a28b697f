"""The decision path against hand-written floors: ``python benchmarks/decision_path.py``.

The scenario and the floors are the ones issue 11 defines, measured in one run so that the
ratios mean something on a shared machine:

- 100,000 victims of 8 tasks (10% elastic, statuses mostly Running), 10,000 queues of depth at
  most 6 with values unset / 0 / 10m / 1h / never, reclaim LCA, fresh job objects per repetition;
- **object floor**: building plain slotted objects with the same fields as the library's values;
- **cold floor**: one loop over the job objects that reads their fields directly and computes
  the same eligible list, with the MR cached per victim queue;
- **warm floor**: the same loop over one precomputed tuple per job (queue, non-preemptible,
  active count, elastic, start seconds; and the priority, which a preempt needs).

Every answer of the library is checked against the floor's before a figure is recorded. The
figures are printed and written to ``benchmarks/decision_path.json``. ``--scale 10`` divides
every count by ten (a smoke run); ``--profile`` adds a cProfile of the first call.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import compress, pairwise
from pathlib import Path
from typing import Any

from minruntime import (
    Action,
    Config,
    Job,
    PodSet,
    Preemptibility,
    Queue,
    QueueTree,
    Session,
    Task,
    TaskStatus,
)
from minruntime._eligibility import ALLOWED  # the profile's parts only

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
VALUES = [None, None, None, "0s", "10m", "1h", "never"]
PREEMPTIBLE = Preemptibility.PREEMPTIBLE
NON = Preemptibility.NON_PREEMPTIBLE
ACTIVE = frozenset(status for status in TaskStatus if status.is_active)
RESULTS: dict[str, Any] = {}


def best(fn: Callable[[], Any], repeat: int = 3, setup: Callable[[], Any] | None = None) -> float:
    """The best of ``repeat`` timings of ``fn`` (``setup`` runs untimed before each)."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


# -- the scenario -------------------------------------------------------------------------------


def make_tree(count: int, rng: random.Random) -> tuple[QueueTree, list[str]]:
    """``count`` queues, depth at most 6, values unset / 0 / 10m / 1h / never; the leaves."""
    queues: list[Queue] = []
    depth: dict[str, int] = {}
    names: list[str] = []
    for i in range(count):
        name = f"q{i}"
        candidates = [n for n in names[-50:] if depth[n] < 6]
        parent = rng.choice(candidates) if candidates and rng.random() > 0.02 else None
        depth[name] = 0 if parent is None else depth[parent] + 1
        queues.append(
            Queue(
                name,
                parent,
                preempt_min_runtime=rng.choice(VALUES),
                reclaim_min_runtime=rng.choice(VALUES),
            )
        )
        names.append(name)
    tree = QueueTree(queues)
    leaves = [name for name in tree if not tree.children(name)]
    return tree, leaves


Record = tuple[str, str, int, Any, datetime, list[tuple[str, int, list[tuple[str, TaskStatus]]]]]


def make_records(count: int, leaves: list[str], rng: random.Random) -> list[Record]:
    """A scheduler's own records of its running jobs: 8 tasks, 10% elastic, mostly Running."""
    records: list[Record] = []
    for i in range(count):
        elastic = rng.random() < 0.1
        tasks = [
            (f"j{i}-{t}", TaskStatus.RUNNING if rng.random() < 0.95 else TaskStatus.PENDING)
            for t in range(8)
        ]
        records.append(
            (
                f"j{i}",
                rng.choice(leaves),
                rng.choice([25, 50, 75, 100]),
                rng.choice([PREEMPTIBLE, PREEMPTIBLE, NON, None]),
                NOW - timedelta(seconds=rng.randint(0, 4 * 3600)),
                [("default", 4 if elastic else 8, tasks)],
            )
        )
    return records


def build_jobs(records: list[Record]) -> list[Job]:
    """The library's values, built afresh as a scheduler would each cycle."""
    return [
        Job(
            job_id,
            queue,
            priority,
            preemptibility,
            start,
            [
                PodSet(name, minimum, [Task(task_id, status) for task_id, status in tasks])
                for name, minimum, tasks in pod_sets
            ],
        )
        for job_id, queue, priority, preemptibility, start, pod_sets in records
    ]


class PlainTask:
    __slots__ = ("id", "status", "weight")

    def __init__(self, id: str, status: TaskStatus, weight: float = 1.0) -> None:
        self.id = id
        self.status = status
        self.weight = weight


class PlainPodSet:
    __slots__ = ("min_available", "name", "tasks")

    def __init__(self, name: str, min_available: int, tasks: list[PlainTask]) -> None:
        self.name = name
        self.min_available = min_available
        self.tasks = tasks


class PlainJob:
    """A scheduler's own job object: plain slotted, the fields of the library's ``Job``."""

    __slots__ = ("id", "inputs", "pod_sets", "preemptibility", "priority", "queue", "start_time")

    def __init__(
        self,
        id: str,
        queue: str,
        priority: int,
        preemptibility: Any,
        start_time: datetime | None,
        pod_sets: list[PlainPodSet],
        inputs: Any = None,
    ) -> None:
        self.id = id
        self.queue = queue
        self.priority = priority
        self.preemptibility = preemptibility
        self.start_time = start_time
        self.pod_sets = pod_sets
        self.inputs = inputs


def build_plain(records: list[Record]) -> list[PlainJob]:
    """The object floor: the same objects, plain slotted classes with the same fields."""
    return [
        PlainJob(
            job_id,
            queue,
            priority,
            preemptibility,
            start,
            [
                PlainPodSet(
                    name, minimum, [PlainTask(task_id, status) for task_id, status in tasks]
                )
                for name, minimum, tasks in pod_sets
            ],
        )
        for job_id, queue, priority, preemptibility, start, pod_sets in records
    ]


# -- the floors ---------------------------------------------------------------------------------


def mr_delta(session: Session, action: Action, pre_queue: str, queue: str) -> timedelta | None:
    """The floor's MR of a victim queue as a timedelta (``None`` for never), from the library's
    resolution: the floors measure the decision loop, not resolution."""
    mr = session.resolve(action, pre_queue, queue).min_runtime
    return None if mr.is_never else timedelta(microseconds=mr.ns // 1000)


def cold_floor(
    jobs: list[Any],
    action: Action,
    pre_queue: str,
    pre_priority: int,
    tree: QueueTree,
    mr_session: Session,
) -> list[Any]:
    """One loop over the job objects, reading their fields, with the MR cached per queue."""
    out: list[Any] = []
    append = out.append
    cache: dict[str, timedelta | None] = {}
    preempt = action is Action.PREEMPT
    now = NOW
    for job in jobs:
        queue = job.queue
        if queue not in tree:
            continue
        if preempt:
            if queue != pre_queue or job.priority >= pre_priority:
                continue
        elif queue == pre_queue:
            continue
        preemptibility = job.preemptibility
        if preemptibility is None:
            preemptibility = PREEMPTIBLE if job.priority < 100 else NON
        if preemptibility is NON:
            continue
        active = 0
        elastic = False
        for pod_set in job.pod_sets:
            tasks = pod_set.tasks
            for task in tasks:
                if task.status in ACTIVE:
                    active += 1
            if pod_set.min_available < len(tasks):
                elastic = True
        if not active:
            continue
        if queue in cache:
            mr = cache[queue]
        else:
            mr = cache[queue] = mr_delta(mr_session, action, pre_queue, queue)
        if mr is None:
            continue
        start = job.start_time
        if elastic or start is None or start + mr <= now:
            append(job)
    return out


Fact = tuple[str, bool, int, bool, float | None, int]


def precompute(jobs: list[Any]) -> list[Fact]:
    """One tuple per job for the warm floor: (queue, non-preemptible, active, elastic, start s,
    priority)."""
    facts: list[Fact] = []
    for job in jobs:
        preemptibility = job.preemptibility
        if preemptibility is None:
            preemptibility = PREEMPTIBLE if job.priority < 100 else NON
        active = sum(1 for p in job.pod_sets for t in p.tasks if t.status in ACTIVE)
        elastic = any(p.min_available < len(p.tasks) for p in job.pod_sets)
        start = None if job.start_time is None else job.start_time.timestamp()
        facts.append((job.queue, preemptibility is NON, active, elastic, start, job.priority))
    return facts


def warm_floor(
    jobs: list[Any],
    facts: list[Fact],
    action: Action,
    pre_queue: str,
    pre_priority: int,
    tree: QueueTree,
    mr_session: Session,
) -> list[Any]:
    """The same loop over the precomputed tuples."""
    out: list[Any] = []
    append = out.append
    cache: dict[str, float | None] = {}
    preempt = action is Action.PREEMPT
    now = NOW.timestamp()
    for job, (queue, non, active, elastic, start, priority) in zip(jobs, facts, strict=True):
        if queue not in tree:
            continue
        if preempt:
            if queue != pre_queue or priority >= pre_priority:
                continue
        elif queue == pre_queue:
            continue
        if non or not active:
            continue
        if queue in cache:
            mr = cache[queue]
        else:
            delta = mr_delta(mr_session, action, pre_queue, queue)
            mr = cache[queue] = None if delta is None else delta.total_seconds()
        if mr is None:
            continue
        if elastic or start is None or start + mr <= now:
            append(job)
    return out


def same(ours: list[Any], floor: list[Any], what: str) -> None:
    if sorted(job.id for job in ours) != sorted(job.id for job in floor):
        raise SystemExit(f"{what}: the library and the floor disagree")


# -- the measurements ---------------------------------------------------------------------------


def run(scale: int, profile: bool) -> None:
    rng = random.Random(11)
    victims = 100_000 // scale
    tree, leaves = make_tree(10_000 // scale, rng)
    records = make_records(victims, leaves, rng)
    config = Config()  # reclaim LCA
    resolved = Session(tree, config, NOW)  # the floors' resolution, shared and warm
    preemptors = [
        (rng.choice([Action.PREEMPT, Action.RECLAIM]), Job(f"p{i}", rng.choice(leaves), 100))
        for i in range(100)
    ]
    first_action, first = Action.RECLAIM, Job("first", rng.choice(leaves), 100)
    second_action, second = Action.RECLAIM, Job("second", rng.choice(leaves), 100)
    RESULTS["scenario"] = {
        "victims": victims,
        "queues": len(tree),
        "leaves": len(leaves),
        "max_depth": max(tree.depth(name) for name in tree),
        "tasks_per_victim": 8,
    }

    # 1. building the objects
    build = best(lambda: build_jobs(records))
    build_floor = best(lambda: build_plain(records))
    RESULTS["build"] = {
        "library_s": build,
        "object_floor_s": build_floor,
        "ratio": build / build_floor,
        "target": 2.0,
    }

    # 2. new session, first eligible_victims on fresh objects, vs the cold floor
    def first_question(
        build: Callable[[list[Record]], list[Any]], session: Callable[[], Session]
    ) -> tuple[float, float]:
        """(library, cold floor) for the first question on freshly built objects."""
        fresh: dict[str, Any] = {}

        def fresh_jobs() -> None:
            fresh["jobs"] = build(records)

        def ask() -> None:
            fresh["answer"] = session().eligible_victims(first_action, first, fresh["jobs"])

        ours = best(ask, setup=fresh_jobs)
        objects = build(records)
        floor = best(lambda: cold_floor(objects, first_action, first.queue, 100, tree, resolved))
        expected = cold_floor(fresh["jobs"], first_action, first.queue, 100, tree, resolved)
        same(fresh["answer"], expected, "first call")
        return ours, floor

    previous = Session(tree, config, NOW)
    previous.eligible_victims(first_action, first, build_jobs(records))
    cases: list[tuple[str, Callable[[list[Record]], list[Any]], Callable[[], Session]]] = [
        ("first_call", build_jobs, lambda: Session(tree, config, NOW)),
        # the tree and the config did not change: the next cycle's session is session.at(now)
        ("next_cycle_first_call", build_jobs, lambda: previous.at(NOW)),
        # a scheduler's own objects, read through the protocol
        ("protocol_first_call", build_plain, lambda: Session(tree, config, NOW)),
    ]
    for key, builder, session_of in cases:
        ours, floor = first_question(builder, session_of)
        RESULTS[key] = {
            "library_s": ours,
            "cold_floor_s": floor,
            "ratio": ours / floor,
            "target": 2.0,
        }

    # 3. another preemptor in the same session, vs the warm floor
    jobs = build_jobs(records)
    session = Session(tree, config, NOW)
    session.eligible_victims(first_action, first, jobs)
    facts = precompute(jobs)
    another = best(lambda: session.eligible_victims(second_action, second, jobs))
    warm = best(lambda: warm_floor(jobs, facts, second_action, second.queue, 100, tree, resolved))
    same(
        session.eligible_victims(second_action, second, jobs),
        warm_floor(jobs, facts, second_action, second.queue, 100, tree, resolved),
        "another preemptor",
    )
    RESULTS["another_preemptor"] = {
        "library_s": another,
        "warm_floor_s": warm,
        "ratio": another / warm,
        "target": 2.0,
    }

    # 4. a cycle of 100 preemptors, preempt and reclaim, vs 100 passes of the warm floor
    def cycle_run() -> list[list[Job]]:
        cycle = session.cycle(jobs)
        return [cycle.eligible_victims(action, pre) for action, pre in preemptors]

    def floor_run() -> list[list[Any]]:
        return [
            warm_floor(jobs, facts, action, pre.queue, pre.priority, tree, resolved)
            for action, pre in preemptors
        ]

    for (action, pre), answer, theirs in zip(preemptors, cycle_run(), floor_run(), strict=True):
        same(answer, theirs, f"cycle {action} {pre.queue}")
    cycle_time = best(cycle_run)
    floor_time = best(floor_run, repeat=1)
    build_index = best(lambda: session.cycle(jobs))
    RESULTS["cycle"] = {
        "preemptors": len(preemptors),
        "library_s": cycle_time,
        "index_build_s": build_index,
        "warm_floor_100_passes_s": floor_time,
        "speedup": floor_time / cycle_time,
        "target_speedup": 4.0,
        "answers": sum(len(a) for a in cycle_run()),
    }

    # 6. memory: bytes per victim, with 1 and with 20 preemptors, batch and cycle
    memory: dict[str, float] = {}
    for count in (victims // 10, victims):
        sample = build_jobs(records[:count])
        for preemptor_count in (1, 20):
            gc.collect()
            tracemalloc.start()
            s = Session(tree, config, NOW)
            c = s.cycle(sample)
            for action, pre in preemptors[:preemptor_count]:
                c.eligible_victims(action, pre)
                s.eligible_victims(action, pre, sample)
            used = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            memory[f"{count}_victims_{preemptor_count}_preemptors"] = used / count
            del s, c
    RESULTS["memory_bytes_per_victim"] = memory

    if profile:
        RESULTS["first_call_parts_ms"] = first_call_parts(
            tree, config, first_action, first, build_jobs(records)
        )
        jobs_for_profile = build_jobs(records)
        profiler = cProfile.Profile()
        profiler.enable()
        Session(tree, config, NOW).eligible_victims(first_action, first, jobs_for_profile)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(8)
        RESULTS["profile_first_call"] = out.getvalue()
        profiler = cProfile.Profile()
        profiler.enable()
        build_jobs(records)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(8)
        RESULTS["profile_build"] = out.getvalue()


def first_call_parts(
    tree: QueueTree, config: Config, action: Action, preemptor: Job, jobs: list[Job]
) -> dict[str, float]:
    """Where one first call's time goes, in ms, without a profiler's overhead (best of three of
    each): the whole call and the collector's passes during it (public API), then its parts on
    another new session (the engine's private steps: the facts of the batch, the rule with the
    victim queues' groups built, the rule again with them kept, the answer's list)."""
    collector = [0.0]
    started: list[float] = []

    def clock(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        else:
            collector[0] += time.perf_counter() - started.pop()

    best_of: dict[str, float] = {}
    for _ in range(3):
        collector[0] = 0.0
        gc.collect()
        gc.callbacks.append(clock)
        try:
            start = time.perf_counter()
            Session(tree, config, NOW).eligible_victims(action, preemptor, jobs)
            whole = time.perf_counter() - start
        finally:
            gc.callbacks.remove(clock)
        gc.collect()
        session = Session(tree, config, NOW)
        pre = session._fact(preemptor)
        marks = [time.perf_counter()]
        rows = session._table.rows(jobs)
        marks.append(time.perf_counter())
        reasons = session._judge(action, pre, rows)
        marks.append(time.perf_counter())
        session._judge(action, pre, rows)
        marks.append(time.perf_counter())
        list(compress(jobs, map(ALLOWED.__contains__, reasons)))
        marks.append(time.perf_counter())
        steps = [b - a for a, b in pairwise(marks)]
        names = ["facts of the batch", "rule, groups built", "rule, groups kept", "answer list"]
        figures = {"whole call": whole, "collector during it": collector[0]}
        figures.update(zip(names, steps, strict=True))
        for name, seconds in figures.items():
            best_of[name] = min(best_of.get(name, seconds), seconds)
        del session
    return {name: seconds * 1e3 for name, seconds in best_of.items()}


def report() -> str:
    rows = [
        ("building Job/PodSet/Task values", "build", "object_floor_s", "ratio", "<= 2.0x"),
        ("new Session, first eligible_victims", "first_call", "cold_floor_s", "ratio", "<= 2.0x"),
        (
            "next cycle's session (at), first call",
            "next_cycle_first_call",
            "cold_floor_s",
            "ratio",
            "<= 2.0x",
        ),
        (
            "another preemptor, same session",
            "another_preemptor",
            "warm_floor_s",
            "ratio",
            "<= 2.0x",
        ),
        (
            "own objects (protocol), first call",
            "protocol_first_call",
            "cold_floor_s",
            "ratio",
            "<= 2.0x",
        ),
    ]
    lines = [
        "| measurement | library | floor | ratio | target |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label, key, floor, ratio, target in rows:
        r = RESULTS[key]
        lines.append(
            f"| {label} | {r['library_s'] * 1e3:.0f} ms | {r[floor] * 1e3:.0f} ms | "
            f"{r[ratio]:.2f}x | {target} |"
        )
    c = RESULTS["cycle"]
    lines.append(
        f"| cycle of {c['preemptors']} preemptors (vs 100 warm-floor passes) | "
        f"{c['library_s'] * 1e3:.0f} ms | {c['warm_floor_100_passes_s'] * 1e3:.0f} ms | "
        f"{c['speedup']:.1f}x faster | >= 4x faster |"
    )
    memory = ", ".join(f"{k}: {v:.0f} B" for k, v in RESULTS["memory_bytes_per_victim"].items())
    text = "\n".join(lines) + f"\n\nmemory per victim: {memory}\n"
    if "first_call_parts_ms" in RESULTS:
        parts = ", ".join(f"{k} {v:.0f} ms" for k, v in RESULTS["first_call_parts_ms"].items())
        text += f"\nfirst call, by part: {parts}\n"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1, help="divide every count by this")
    parser.add_argument("--profile", action="store_true", help="add a cProfile of the first call")
    parser.add_argument(
        "--output", type=Path, default=Path(__file__).with_name("decision_path.json")
    )
    args = parser.parse_args()
    RESULTS["machine"] = {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    started = time.perf_counter()
    run(args.scale, args.profile)
    RESULTS["suite_s"] = time.perf_counter() - started
    text = report()
    print(text)
    for key in ("profile_build", "profile_first_call"):
        if key in RESULTS:
            print(RESULTS[key])
    args.output.write_text(json.dumps(RESULTS, indent=2, default=str) + "\n", encoding="utf-8")
    machine = RESULTS["machine"]
    table = args.output.with_suffix(".md")
    table.write_text(
        text + f"\nPython {machine['python']} on {machine['platform']}, {machine['cpus']} CPUs, "
        f"{machine['date']}; scale 1/{args.scale}; suite {RESULTS['suite_s']:.0f} s.\n",
        encoding="utf-8",
    )
    print(f"written to {args.output} and {table}")


if __name__ == "__main__":
    main()

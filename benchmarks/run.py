"""minruntime benchmarks: ``python benchmarks/run.py`` (``--quick`` for a smoke run).

Generates inputs with a fixed seed, checks that the library and two baselines give identical
answers, prints a table and writes ``benchmarks/results.json`` (figures, ratios and the machine).

Every figure is the best of a few repeats (``time.perf_counter``) and comes with ratios against
baselines measured in the same run, because absolute times on a shared machine are noisy:

- **floor**: a hand-written loop with no abstraction computing the same answers
  (``baselines.inline_eligible``, a plain ``dict`` lookup, ...);
- **naive**: a straightforward port that walks the tree on every call with no caching
  (``baselines.naive_eligible``, ...).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines import _mr, _ns, inline_eligible, naive_eligible, tree_tables
from snapshot import make_snapshot

from minruntime import (
    Action,
    Config,
    Job,
    PodSet,
    Queue,
    QueueTree,
    Session,
    Task,
    TaskStatus,
)
from minruntime.cli import main as cli_main
from minruntime.kube import read_snapshot

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@dataclass
class OwnJob:
    """A scheduler's own job class: not minruntime's, read through the JobLike protocol."""

    id: str
    queue: str
    priority: int
    preemptibility: Any
    start_time: Any
    pod_sets: Any


VALUES = ["0s", "1m", "5m", "10m", "30m", "1h", "4h", "never"]
RESULTS: dict[str, Any] = {}
ROWS: list[tuple[str, str]] = []


def best(fn: Callable[[], Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def record(key: str, label: str, seconds: float, per: int = 1, **ratios: float) -> None:
    RESULTS[key] = {"seconds": seconds, "per_item_ns": seconds / per * 1e9, **ratios}
    shown = f"{seconds * 1e3:9.1f} ms"
    if per > 1:
        shown += f"  {seconds / per * 1e9:8.0f} ns each"
    for name, value in ratios.items():
        shown += f"  {name} {value:.2f}x"
    ROWS.append((label, shown))


# -- inputs -------------------------------------------------------------------------------------


def make_queues(count: int, max_depth: int, rng: random.Random) -> list[Queue]:
    """A random tree: ~1% top-level queues, chains up to ``max_depth`` deep, ~20% values set."""
    queues: list[Queue] = []
    depth: list[int] = []
    open_: list[int] = []
    for i in range(count):
        if not open_ or rng.random() < 0.01:
            parent, level = None, 0
        else:
            p = open_[-1 - min(len(open_) - 1, int(rng.expovariate(0.05)))]
            parent, level = f"q{p}", depth[p] + 1
        preempt = rng.choice(VALUES) if rng.random() < 0.2 else None
        reclaim = rng.choice(VALUES) if rng.random() < 0.2 else None
        queues.append(
            Queue(f"q{i}", parent, preempt_min_runtime=preempt, reclaim_min_runtime=reclaim)
        )
        depth.append(level)
        if level < max_depth:
            open_.append(i)
    return queues


def chain_tree(depth: int, width: int) -> QueueTree:
    """``width`` chains of ``depth`` queues under one root; values set on a few levels."""
    queues = [Queue("root", reclaim_min_runtime="1h")]
    for w in range(width):
        parent = "root"
        for d in range(depth):
            name = f"c{w}-{d}"
            value = "10m" if d == depth // 2 else None
            queues.append(Queue(name, parent, reclaim_min_runtime=value))
            parent = name
    return QueueTree(queues)


def make_victims(
    count: int, queues: list[str], rng: random.Random, *, elastic: float = 0.1
) -> list[Job]:
    """Running jobs with 8 tasks each, ``elastic`` of them elastic, started in the last 4 hours."""
    jobs = []
    for i in range(count):
        is_elastic = rng.random() < elastic
        tasks = [Task(f"j{i}-{t}", TaskStatus.RUNNING) for t in range(8)]
        jobs.append(
            Job(
                f"j{i}",
                rng.choice(queues),
                priority=rng.choice([25, 50, 75, 100]),
                preemptibility=rng.choice(["preemptible", "preemptible", "non-preemptible", None]),
                start_time=NOW - timedelta(seconds=rng.randint(0, 4 * 3600)),
                pod_sets=[PodSet(min_available=4 if is_elastic else 8, tasks=tasks)],
            )
        )
    return jobs


# -- sections -----------------------------------------------------------------------------------


def bench_tree(scale: int, rng: random.Random) -> QueueTree:
    tree = None
    for count in (1_000, 10_000, 100_000):
        count //= scale
        queues = make_queues(count, 50, rng)
        ours = best(lambda queues=queues: QueueTree(queues))
        floor = best(lambda queues=queues: {q.name: q.parent for q in queues})
        record(
            f"tree_build_{count}",
            f"tree build, {count:,} queues (depth <= 50)",
            ours,
            count,
            vs_dict_of_parents=ours / floor,
        )
        tree = QueueTree(queues)
    assert tree is not None
    RESULTS["tree_max_depth"] = max(tree.depth(name) for name in tree)
    return tree


def bench_resolution(tree: QueueTree, scale: int, rng: random.Random) -> None:
    names = list(tree)
    count = 1_000_000 // scale
    pairs = [(rng.choice(names), rng.choice(names)) for _ in range(count)]
    tables = tree_tables(tree)
    for method in ("lca", "queue"):
        config = Config(reclaim_resolve_method=method)
        session = Session(tree, config, NOW)
        method_call = session.reclaim_min_runtime
        cold = best(lambda: [method_call(p, v) for p, v in pairs], 1)
        warm_call = best(lambda: [method_call(p, v) for p, v in pairs])
        table = Session(tree, config, NOW).min_runtime_table(Action.RECLAIM)
        cold_table = best(lambda: [table[p, v] for p, v in pairs], 1)
        warm_table = best(lambda: [table[p, v] for p, v in pairs])
        plain = dict.fromkeys(pairs, 0)
        floor = best(lambda: [plain[p, v] for p, v in pairs])
        sample = pairs[: count // 10]
        naive = (
            best(lambda: [_mr(*tables, config, Action.RECLAIM, p, v) for p, v in sample], 1) * 10
        )
        # identical answers
        for p, v in pairs[:20_000]:
            expected = _mr(*tables, config, Action.RECLAIM, p, v)
            got = table[p, v]
            assert (got.nanoseconds if not got.is_never else -1) == expected, (p, v)
        record(
            f"mr_{method}_cold_table",
            f"reclaim MR ({method}), {count:,} random pairs, cold, table",
            cold_table,
            count,
            vs_naive=naive / cold_table,
        )
        record(
            f"mr_{method}_warm_table",
            f"reclaim MR ({method}), {count:,} pairs, warm, table",
            warm_table,
            count,
            vs_dict=warm_table / floor,
        )
        record(
            f"mr_{method}_cold_call",
            f"reclaim MR ({method}), {count:,} pairs, cold, method call",
            cold,
            count,
            vs_naive=naive / cold,
        )
        record(
            f"mr_{method}_warm_call",
            f"reclaim MR ({method}), {count:,} pairs, warm, method call",
            warm_call,
            count,
            vs_dict=warm_call / floor,
        )
        record(f"mr_{method}_dict", "  plain dict lookup of the same pairs (floor)", floor, count)
        record(
            f"mr_{method}_naive",
            "  naive: walk the tree per pair (from 1/10 of the pairs)",
            naive,
            count,
        )


def bench_eligible(tree: QueueTree, scale: int, rng: random.Random) -> None:
    names = list(tree)
    leaves = [name for name in names if not tree.children(name)]
    tables = tree_tables(tree)
    config = Config()
    for action in (Action.PREEMPT, Action.RECLAIM):
        for count in (1_000, 10_000, 100_000):
            count //= scale
            home = leaves[0]
            # preempt takes victims from the preemptor's own queue; reclaim from everywhere
            queues = (
                [home] if action is Action.PREEMPT else rng.sample(leaves, min(200, len(leaves)))
            )
            victims = make_victims(count, queues, rng)
            preemptor = Job("pending", home, priority=100 if action is Action.PREEMPT else 50)

            def fresh(
                action: Action = action, victims: list[Job] = victims, preemptor: Job = preemptor
            ) -> list[Job]:
                return Session(tree, config, NOW).eligible_victims(action, preemptor, victims)

            warm_session = Session(tree, config, NOW)
            warm_session.eligible_victims(action, preemptor, victims)

            def warm(
                action: Action = action, victims: list[Job] = victims, preemptor: Job = preemptor
            ) -> list[Job]:
                return warm_session.eligible_victims(action, preemptor, victims)

            def floor(
                action: Action = action, victims: list[Job] = victims, preemptor: Job = preemptor
            ) -> list[Job]:
                return inline_eligible(tables, config, NOW, action, preemptor, victims)

            def naive(
                action: Action = action, victims: list[Job] = victims, preemptor: Job = preemptor
            ) -> list[Job]:
                return naive_eligible(tables, config, NOW, action, preemptor, victims)

            own = [
                OwnJob(j.id, j.queue, j.priority, j.preemptibility, j.start_time, j.pod_sets)
                for j in victims
            ]

            def fresh_own(
                action: Action = action, own: list[OwnJob] = own, preemptor: Job = preemptor
            ) -> list[OwnJob]:
                return Session(tree, config, NOW).eligible_victims(action, preemptor, own)

            def floor_own(
                action: Action = action, own: list[OwnJob] = own, preemptor: Job = preemptor
            ) -> list[Job]:
                return inline_eligible(tables, config, NOW, action, preemptor, own)  # type: ignore[arg-type]

            answer = [job.id for job in fresh()]
            assert answer == [job.id for job in fresh_own()]
            assert answer == [job.id for job in floor()] == [job.id for job in naive()], action
            assert answer == [job.id for job in warm()]
            gc.collect()
            t_fresh, t_warm, t_floor = best(fresh), best(warm), best(floor)
            t_naive = best(naive, 1)
            label = f"eligible_victims ({action}), {count:,} victims"
            record(
                f"eligible_{action}_{count}_fresh",
                f"{label}, new session",
                t_fresh,
                count,
                vs_floor=t_fresh / t_floor,
                naive_over_ours=t_naive / t_fresh,
            )
            record(
                f"eligible_{action}_{count}_warm",
                f"{label}, warm session",
                t_warm,
                count,
                vs_floor=t_warm / t_floor,
                naive_over_ours=t_naive / t_warm,
            )
            t_own, t_floor_own = best(fresh_own), best(floor_own)
            record(
                f"eligible_{action}_{count}_own",
                f"{label}, scheduler's own job objects, new session",
                t_own,
                count,
                vs_floor=t_own / t_floor_own,
                naive_over_ours=t_naive / t_own,
            )
            record(
                f"eligible_{action}_{count}_floor", "  hand-inlined loop (floor)", t_floor, count
            )
            record(f"eligible_{action}_{count}_naive", "  naive port", t_naive, count)
            RESULTS[f"eligible_{action}_{count}_answers"] = len(answer)


def inline_validate(session_tables: Any, config: Config, scenarios: list[Any]) -> list[bool]:
    """Floor for validation: per scenario, counts and the MR (memoised per queue pair)."""
    tables = session_tables
    memo: dict[tuple[str, str], int] = {}
    now_ns = _ns(NOW)
    results = []
    active_statuses = {TaskStatus.RUNNING}
    for preemptor, evictions in scenarios:
        ok = True
        for victim, evicted in evictions:
            key = (preemptor.queue, victim.queue)
            mr = memo.get(key)
            if mr is None:
                mr = memo[key] = _mr(*tables, config, Action.RECLAIM, *key)
            if not evicted:
                continue
            if mr < 0:
                ok = False
                break
            start = victim.start_time
            if start is None or now_ns >= _ns(start) + mr:
                continue
            ids = set(evicted)
            for pod_set in victim.pod_sets:
                count = sum(1 for task in pod_set.tasks if task.id in ids)
                if count:
                    active = sum(1 for task in pod_set.tasks if task.status in active_statuses)
                    if active - count < pod_set.min_available:
                        ok = False
            if not ok:
                break
        results.append(ok)
    return results


def bench_validation(tree: QueueTree, scale: int, rng: random.Random) -> None:
    leaves = [name for name in tree if not tree.children(name)]
    config = Config()
    count = 10_000 // scale
    victims = make_victims(2_000, rng.sample(leaves, 100), rng, elastic=0.5)
    scenarios = []
    for _ in range(count):
        preemptor = Job("pending", rng.choice(leaves), priority=50)
        chosen = rng.sample(victims, rng.randint(1, 4))
        scenarios.append(
            (
                preemptor,
                [
                    (victim, [task.id for task in victim.pod_sets[0].tasks[: rng.randint(1, 6)]])
                    for victim in chosen
                ],
            )
        )
    tables = tree_tables(tree)

    def ours() -> list[bool]:
        session = Session(tree, config, NOW)
        return [
            bool(session.validate(Action.RECLAIM, pre, evictions)) for pre, evictions in scenarios
        ]

    expected = inline_validate(tables, config, scenarios)
    assert ours() == expected
    t_ours, t_floor = best(ours), best(lambda: inline_validate(tables, config, scenarios))
    record(
        "validate",
        f"validate, {count:,} scenarios (1-4 victims each)",
        t_ours,
        count,
        vs_floor=t_ours / t_floor,
    )
    record("validate_floor", "  hand-inlined validator (floor)", t_floor, count)
    RESULTS["validate_valid"] = sum(expected)


def bench_explain(scale: int) -> None:
    groups, pods = 5_000 // scale, 40_000 // scale
    text = json.dumps(make_snapshot(groups, pods))
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"minruntime-bench-{groups}.json"
    path.write_text(text)

    def command(*extra: str) -> None:
        out, err = io.StringIO(), io.StringIO()
        status = cli_main(
            ["explain", str(path), "--now", "2026-11-22T12:00:00Z", *extra], stdout=out, stderr=err
        )
        assert status == 0, err.getvalue()

    objects = json.loads(text)["items"]
    t_parse = best(lambda: json.loads(text))
    t_read = best(lambda: read_snapshot(objects))
    t_table = best(lambda: command(), 2)
    t_json = best(lambda: command("--output", "json"), 2)
    # the first pending pod group (a running one is refused as a preemptor): no start stamp
    pending = next(
        f"{obj['metadata']['namespace']}/{obj['metadata']['name']}"
        for obj in objects
        if obj["kind"] == "PodGroup" and not obj["metadata"]["annotations"]
    )
    t_pre = best(lambda: command("--preemptor", pending), 2)
    label = f"explain, {groups:,} pod groups / {pods:,} pods"
    record(
        "explain_read_snapshot",
        f"read_snapshot, {groups:,} pod groups / {pods:,} pods",
        t_read,
        groups,
    )
    record("explain_table", f"{label}, table", t_table, groups, vs_json_parse=t_table / t_parse)
    record(
        "explain_json", f"{label}, --output json", t_json, groups, vs_json_parse=t_json / t_parse
    )
    record(
        "explain_preemptor", f"{label}, --preemptor", t_pre, groups, vs_json_parse=t_pre / t_parse
    )
    record("explain_json_parse", "  json.loads of the snapshot (floor)", t_parse, groups)
    path.unlink()


def bench_scaling(scale: int, rng: random.Random) -> None:
    """How time grows with victims, queues and depth; none of it may be quadratic."""
    scaling: dict[str, list[dict[str, float]]] = {"victims": [], "queues": [], "depth": []}
    tree = QueueTree(make_queues(10_000 // scale, 50, rng))
    leaves = [name for name in tree if not tree.children(name)]
    for count in (1_000, 4_000, 16_000, 64_000):
        count //= scale
        victims = make_victims(count, rng.sample(leaves, min(200, len(leaves))), rng)
        pre = Job("pending", leaves[0], priority=50)
        seconds = best(
            lambda victims=victims, pre=pre: Session(tree, Config(), NOW).eligible_victims(
                Action.RECLAIM, pre, victims
            )
        )
        scaling["victims"].append({"n": count, "ns_per_victim": seconds / count * 1e9})
    for count in (1_000, 10_000, 100_000):
        count //= scale
        queue_tree = QueueTree(make_queues(count, 50, rng))
        names = list(queue_tree)
        pairs = [(rng.choice(names), rng.choice(names)) for _ in range(50_000 // scale)]

        def cold_pairs(
            queue_tree: QueueTree = queue_tree, pairs: list[tuple[str, str]] = pairs
        ) -> None:
            session = Session(queue_tree, Config(), NOW)  # one session: every pair new to it
            for p, v in pairs:
                session.resolve("reclaim", p, v)

        seconds = best(cold_pairs, 1)
        build = best(lambda count=count: QueueTree(make_queues(count, 50, random.Random(1))), 1)
        scaling["queues"].append(
            {
                "n": count,
                "ns_per_cold_pair": seconds / len(pairs) * 1e9,
                "build_ns_per_queue": build / count * 1e9,
            }
        )
    for depth in (5, 10, 25, 50):
        chains = chain_tree(depth, 200)
        ends = [f"c{w}-{depth - 1}" for w in range(200)]
        pairs = [(rng.choice(ends), rng.choice(ends)) for _ in range(20_000 // scale)]

        def cold(chains: QueueTree = chains, pairs: list[tuple[str, str]] = pairs) -> None:
            session = Session(chains, Config(), NOW)
            for p, v in pairs:
                session.resolve("reclaim", p, v)

        seconds = best(cold, 1)
        scaling["depth"].append({"depth": depth, "ns_per_cold_pair": seconds / len(pairs) * 1e9})
    RESULTS["scaling"] = scaling
    for name, rows in scaling.items():
        ROWS.append(
            (
                f"scaling by {name}",
                "  ".join(", ".join(f"{k}={v:.0f}" for k, v in row.items()) + ";" for row in rows),
            )
        )


def bench_memory(scale: int, rng: random.Random) -> None:
    """Session memory: grows with jobs seen and distinct queue pairs, not with pairs of jobs."""
    tree = QueueTree(make_queues(10_000 // scale, 50, rng))
    leaves = [name for name in tree if not tree.children(name)]
    memory: dict[str, float] = {}
    for count in (10_000 // scale, 40_000 // scale):
        victims = make_victims(count, rng.sample(leaves, 50), rng)
        preemptors = [Job(f"p{i}", rng.choice(leaves), priority=50) for i in range(20)]
        gc.collect()
        tracemalloc.start()
        session = Session(tree, Config(), NOW)
        session.eligible_victims(Action.RECLAIM, preemptors[0], victims)
        one, _ = tracemalloc.get_traced_memory()
        for pre in preemptors[1:]:
            session.eligible_victims(Action.RECLAIM, pre, victims)
        many, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        memory[f"bytes_per_victim_{count}_1_preemptor"] = one / count
        memory[f"bytes_per_victim_{count}_20_preemptors"] = many / count
        del session
    RESULTS["memory"] = memory
    ROWS.append(
        (
            "session memory per victim (1 vs 20 preemptors)",
            ", ".join(f"{k.split('_', 3)[3]}: {v:.0f} B" for k, v in memory.items()),
        )
    )


def bench_simulator(scale: int) -> None:
    """The whole Philly trace (82k jobs) per setting; the target is under 60 s per setting."""
    from minruntime_sim import Settings, load_trace, simulate

    limit = None if scale == 1 else 82_247 // scale
    for gpus, label in ((None, "its 2,816 GPUs"), (704, "704 GPUs (contended)")):
        workload = load_trace("philly", limit=limit, gpus=gpus)
        for mr in ("0s", "30m"):
            settings = Settings(reclaim_min_runtime=mr, checkpoint_interval=1800)
            seconds = best(
                lambda workload=workload, settings=settings: simulate(workload, settings), 1
            )
            jobs = len(workload.jobs)
            record(
                f"simulate_philly_{gpus or 'real'}_{mr}",
                f"simulate Philly ({jobs:,} jobs) on {label}, reclaim MR {mr}",
                seconds,
                jobs,
            )


def write_markdown(machine: dict[str, Any], path: Path) -> None:
    """The table, as Markdown, for docs/performance.md to include."""
    lines = [
        f"Measured {machine['date']} on {machine['platform']}, {machine['cpus']} CPUs, "
        f"Python {machine['python']} ({machine['implementation']}); suite {machine['suite_seconds']} s.",
        "",
        "| measurement | time | ratios |",
        "| --- | --- | --- |",
    ]
    for label, value in ROWS:
        parts = value.split("  ")
        parts = [part.strip() for part in parts if part.strip()]
        time_part = " / ".join(p for p in parts if p.endswith(("ms", "each")))
        ratio_part = ", ".join(p for p in parts if "x" in p and not p.endswith(("ms", "each")))
        if not time_part:
            time_part, ratio_part = value.strip(), ""
        lines.append(f"| {label.strip()} | {time_part} | {ratio_part} |")
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="sizes divided by 10, for a smoke run")
    parser.add_argument("--output", default=str(Path(__file__).with_name("results.json")))
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    rng = random.Random(20261122)
    started = time.perf_counter()
    tree = bench_tree(scale, rng)
    bench_resolution(tree, scale, rng)
    bench_eligible(tree, scale, rng)
    bench_validation(tree, scale, rng)
    bench_explain(scale)
    bench_scaling(scale, rng)
    bench_memory(scale, rng)
    bench_simulator(scale)
    machine = {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "quick": args.quick,
        "suite_seconds": round(time.perf_counter() - started, 1),
    }
    width = max(len(label) for label, _ in ROWS)
    print(
        f"minruntime benchmarks: Python {machine['python']}, {machine['platform']}, {machine['cpus']} cpus"
    )
    for label, value in ROWS:
        print(f"  {label:<{width}}  {value}")
    print(f"suite: {machine['suite_seconds']} s")
    Path(args.output).write_text(
        json.dumps({"machine": machine, "results": RESULTS}, indent=2) + "\n"
    )
    markdown = Path(args.output).with_suffix(".md")
    write_markdown(machine, markdown)
    print(f"written to {args.output} and {markdown}")


if __name__ == "__main__":
    main()

"""The decision path against hand-written floors: ``python benchmarks/decision_path.py``.

The scenario and the floors are the ones issue 21 defines, measured in one run so that the
ratios mean something on a shared machine:

- a wide tree of 10,000 queues: 20 top-level queues, each new queue's parent drawn from the
  last 2,000 queues of depth below 5; per action a queue's value is unset (3 in 7), 0, 10m
  (preempt) or 30m (reclaim), 1h (preempt) or 2h (reclaim), or never; node-pool defaults 5m
  (preempt) and 15m (reclaim); reclaim by LCA;
- 100,000 victims of 8 tasks in queues of depth 3 or more: 10% elastic, each task Running with
  probability 6/8, Pending 1/8, Succeeded 1/8; 5% never started; preemptibility unset, unset,
  preemptible or non-preemptible; priority 50, 75, 100 or 125.

The floors, written by hand here:

- **cold floor**: one loop over the job objects that reads their fields and resolves each
  victim queue inline (a parent-pointer walk up from the victim's queue to the preemptor's
  ancestors, then up from the victim-side child of the lowest common ancestor to the first set
  value), with a cache for that call only;
- **warm floor**: the same loop over one precomputed tuple per job, with a fresh per-call cache;
- **object floor**: plain slotted classes with the same fields (20,000 jobs), built with the
  collector in the same state as the library's values (switched off for both);
- **hand loop** (small cycle): a loop over a scheduler's own 32 jobs that counts active tasks
  with a plain ``for`` and compares start seconds with the threshold;
- **naive port**: the first release's straightforward port (``baselines.naive_eligible``): the
  tree walked and the tasks counted again for every victim.

Every answer of the library is checked against the floor's before a figure is recorded. Each
figure is the best of ``--repeat`` runs. The table is printed and written to
``benchmarks/decision_path.md``, every figure with the machine to ``decision_path.json``.
``--quick`` runs a small scale (a smoke run of a few seconds); ``--scale N`` divides every
count by N.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import math
import os
import platform
import pstats
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines import naive_eligible, tree_tables

from minruntime import (
    Action,
    Config,
    Job,
    MinRuntime,
    PodSet,
    Preemptibility,
    Queue,
    QueueTree,
    Session,
    Task,
    TaskStatus,
)

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
NOW_S = NOW.timestamp()
PREEMPT_VALUES = [None, None, None, "0s", "10m", "1h", "never"]
RECLAIM_VALUES = [None, None, None, "0s", "30m", "2h", "never"]
CONFIG = Config(default_preempt_min_runtime="5m", default_reclaim_min_runtime="15m")
PREEMPTIBLE = Preemptibility.PREEMPTIBLE
NON = Preemptibility.NON_PREEMPTIBLE
RUNNING, PENDING, SUCCEEDED = TaskStatus.RUNNING, TaskStatus.PENDING, TaskStatus.SUCCEEDED
ACTIVE = frozenset(status for status in TaskStatus if status.is_active)
ACTIVE_NAMES = frozenset(status.value for status in ACTIVE)
LEGACY_THRESHOLD = 100  # the legacy rule: below it preemptible, else non-preemptible


def best(fn: Callable[[], Any], repeat: int, setup: Callable[[], Any] | None = None) -> float:
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


class Scenario:
    """The tree, the victims' records and the preemptors, from one seed."""

    def __init__(self, scale: int, seed: int = 21) -> None:
        rng = random.Random(seed)
        count = 10_000 // scale
        roots = max(2, 20 // scale)
        window = max(20, 2_000 // scale)
        queues: list[Queue] = []
        depth: dict[str, int] = {}
        shallow: list[str] = []  # queues of depth below 5, in creation order
        for i in range(count):
            name = f"q{i}"
            parent = None if i < roots else rng.choice(shallow[-window:])
            depth[name] = 0 if parent is None else depth[parent] + 1
            if depth[name] < 5:
                shallow.append(name)
            queues.append(
                Queue(
                    name,
                    parent,
                    preempt_min_runtime=rng.choice(PREEMPT_VALUES),
                    reclaim_min_runtime=rng.choice(RECLAIM_VALUES),
                )
            )
        self.tree = QueueTree(queues)
        self.depth = depth
        deep = min(3, max(depth.values()))  # 3 (at a tiny --scale, the deepest there are)
        self.victim_queues = [name for name in self.tree if depth[name] >= deep]
        self.records = [self._record(i, rng) for i in range(100_000 // scale)]
        used = sorted({record[1] for record in self.records}, key=self.tree.path)
        self.first = Job("first", rng.choice(used), 100)
        # another preemptor: in another top-level tree than the first, so that no victim queue
        # resolves as it did for the first
        others = [q for q in used if self.tree.path(q)[0] != self.tree.path(self.first.queue)[0]]
        others = others or [q for q in used if q != self.first.queue] or used
        self.second = Job("second", rng.choice(others), 100)
        self.preemptors = [
            (
                Action.PREEMPT if i % 2 == 0 else Action.RECLAIM,
                Job(f"p{i}", rng.choice(used), rng.choice([60, 90, 125])),
            )
            for i in range(100)
        ]
        self.used = used

    def _record(self, i: int, rng: random.Random) -> tuple[Any, ...]:
        elastic = rng.random() < 0.1
        statuses = [
            RUNNING if draw < 6 else PENDING if draw < 7 else SUCCEEDED
            for draw in (rng.randrange(8) for _ in range(8))
        ]
        start = None if rng.random() < 0.05 else NOW - timedelta(seconds=rng.randint(0, 3 * 3600))
        return (
            f"j{i}",
            rng.choice(self.victim_queues),
            rng.choice([50, 75, 100, 125]),
            rng.choice([None, None, PREEMPTIBLE, NON]),
            start,
            4 if elastic else 8,
            [(f"j{i}-{t}", status) for t, status in enumerate(statuses)],
        )


def build_jobs(records: list[tuple[Any, ...]]) -> list[Job]:
    """The library's values, built as a scheduler would each cycle."""
    return [
        Job(
            job_id,
            queue,
            priority,
            preemptibility,
            start,
            [PodSet("default", minimum, [Task(task_id, status) for task_id, status in tasks])],
        )
        for job_id, queue, priority, preemptibility, start, minimum, tasks in records
    ]


_ONE_POD: dict[str, int] = {"pods": 1}


class PlainTask:
    __slots__ = ("id", "resources", "status")

    def __init__(self, id: str, status: Any, resources: dict[str, int] = _ONE_POD) -> None:
        self.id = id
        self.status = status
        self.resources = resources


class PlainPodSet:
    __slots__ = ("min_available", "name", "parent", "tasks")

    def __init__(
        self, name: str, min_available: int, tasks: list[PlainTask], parent: str | None = None
    ) -> None:
        self.name = name
        self.min_available = min_available
        self.tasks = tasks
        self.parent = parent


class PlainJob:
    """A scheduler's own job object: plain slots, the fields of the library's ``Job``."""

    __slots__ = (
        "id",
        "inputs",
        "min_sub_group",
        "pod_sets",
        "preemptibility",
        "priority",
        "queue",
        "start_time",
        "sub_groups",
    )

    def __init__(
        self,
        id: str,
        queue: str,
        priority: int,
        preemptibility: Any,
        start_time: Any,
        pod_sets: list[PlainPodSet],
        inputs: Any = None,
        sub_groups: Any = (),
        min_sub_group: int | None = None,
    ) -> None:
        self.id = id
        self.queue = queue
        self.priority = priority
        self.preemptibility = preemptibility
        self.start_time = start_time
        self.pod_sets = pod_sets
        self.inputs = inputs
        self.sub_groups = sub_groups
        self.min_sub_group = min_sub_group


def build_plain(records: list[tuple[Any, ...]], *, names: bool = False) -> list[PlainJob]:
    """Plain slotted objects with the same fields (``names``: statuses as plain strings)."""
    return [
        PlainJob(
            job_id,
            queue,
            priority,
            preemptibility,
            start,
            [
                PlainPodSet(
                    "default",
                    minimum,
                    [
                        PlainTask(task_id, status.value if names else status)
                        for task_id, status in tasks
                    ],
                )
            ],
        )
        for job_id, queue, priority, preemptibility, start, minimum, tasks in records
    ]


# -- the floors ---------------------------------------------------------------------------------


class Plain:
    """The tree as plain dicts (parent, and per action each queue's own value in seconds: None
    unset, -1.0 never), read by the floors' inline resolution."""

    def __init__(self, tree: QueueTree, config: Config) -> None:
        self.parent = {name: tree[name].parent for name in tree}

        def seconds(value: MinRuntime | None) -> float | None:
            if value is None:
                return None
            return -1.0 if value.is_never else value.ns / 1e9

        self.values = {
            Action.PREEMPT: {name: seconds(tree[name].preempt_min_runtime) for name in tree},
            Action.RECLAIM: {name: seconds(tree[name].reclaim_min_runtime) for name in tree},
        }
        self.defaults = {
            Action.PREEMPT: seconds(config.default_preempt_min_runtime),
            Action.RECLAIM: seconds(config.default_reclaim_min_runtime),
        }

    def ancestors(self, queue: str) -> set[str]:
        found = set()
        node: str | None = queue
        while node is not None:
            found.add(node)
            node = self.parent[node]
        return found

    def min_runtime(self, action: Action, theirs: set[str], queue: str) -> float | None:
        """The MR in seconds (-1.0 never) of a victim queue: for reclaim, walk up from it to
        the preemptor's ancestors (``theirs``) to find the victim-side child of the LCA; then
        walk up from there (preempt: from the victim's queue) to the first set value."""
        parent = self.parent
        start = queue
        if action is Action.RECLAIM:
            node: str | None = queue
            while node is not None and node not in theirs:
                start = node
                node = parent[node]
        values = self.values[action]
        node = start
        while node is not None:
            value = values[node]
            if value is not None:
                return value
            node = parent[node]
        return self.defaults[action]


def cold_floor(
    jobs: list[Any], plain: Plain, action: Action, pre_queue: str, pre_priority: int
) -> list[Any]:
    """One loop over the job objects, reading their fields, resolving inline with a cache for
    this call only (statuses as the library's or as names: ``active`` holds both)."""
    out: list[Any] = []
    append = out.append
    cache: dict[str, datetime | None] = {}
    theirs = plain.ancestors(pre_queue)
    known = plain.parent
    preempt = action is Action.PREEMPT
    active_statuses = ACTIVE | ACTIVE_NAMES
    for job in jobs:
        queue = job.queue
        if queue not in known:
            continue
        if preempt:
            if queue != pre_queue or job.priority >= pre_priority:
                continue
        elif queue == pre_queue:
            continue
        preemptibility = job.preemptibility
        if preemptibility is None:
            if job.priority >= LEGACY_THRESHOLD:
                continue
        elif preemptibility is NON:
            continue
        active = 0
        elastic = False
        for pod_set in job.pod_sets:
            tasks = pod_set.tasks
            for task in tasks:
                if task.status in active_statuses:
                    active += 1
            if pod_set.min_available < len(tasks):
                elastic = True
        if not active:
            continue
        if queue in cache:
            latest = cache[queue]
        else:
            mr = plain.min_runtime(action, theirs, queue)
            latest = cache[queue] = None if mr == -1.0 else NOW - timedelta(seconds=mr)  # type: ignore[arg-type]
        if latest is None:
            continue
        start = job.start_time
        if elastic or start is None or start <= latest:
            append(job)
    return out


Fact = tuple[str, bool, int, bool, float | None, int]


def precompute(jobs: list[Any]) -> list[Fact]:
    """One tuple per job for the warm floor: (queue, not preemptible, active tasks, elastic,
    start seconds, priority)."""
    facts: list[Fact] = []
    for job in jobs:
        preemptibility = job.preemptibility
        if preemptibility is None:
            preemptibility = PREEMPTIBLE if job.priority < LEGACY_THRESHOLD else NON
        active = sum(1 for p in job.pod_sets for t in p.tasks if t.status in ACTIVE)
        elastic = any(p.min_available < len(p.tasks) for p in job.pod_sets)
        start = None if job.start_time is None else job.start_time.timestamp()
        facts.append((job.queue, preemptibility is NON, active, elastic, start, job.priority))
    return facts


def warm_floor(
    jobs: list[Any],
    facts: list[Fact],
    plain: Plain,
    action: Action,
    pre_queue: str,
    pre_priority: int,
) -> list[Any]:
    """The same loop over the precomputed tuples, resolution inline with a fresh cache."""
    out: list[Any] = []
    append = out.append
    cache: dict[str, float | None] = {}
    theirs = plain.ancestors(pre_queue)
    known = plain.parent
    preempt = action is Action.PREEMPT
    for job, (queue, non, active, elastic, start, priority) in zip(jobs, facts, strict=True):
        if queue not in known:
            continue
        if preempt:
            if queue != pre_queue or priority >= pre_priority:
                continue
        elif queue == pre_queue:
            continue
        if non or not active:
            continue
        if queue in cache:
            latest = cache[queue]
        else:
            mr = plain.min_runtime(action, theirs, queue)
            latest = cache[queue] = None if mr == -1.0 else NOW_S - mr  # type: ignore[operator]
        if latest is None:
            continue
        if elastic or start is None or start <= latest:
            append(job)
    return out


PlanFact = tuple[str, bool, list[str], int, bool, float | None, int]


def plan_facts(jobs: list[Any]) -> list[PlanFact]:
    """One tuple per job for the plan floor: (queue, not preemptible, active task ids in
    listing order, min_available, elastic, start seconds, priority)."""
    facts: list[PlanFact] = []
    for job in jobs:
        preemptibility = job.preemptibility
        if preemptibility is None:
            preemptibility = PREEMPTIBLE if job.priority < LEGACY_THRESHOLD else NON
        (pod_set,) = job.pod_sets
        active = [t.id for t in pod_set.tasks if t.status in ACTIVE]
        elastic = pod_set.min_available < len(pod_set.tasks)
        start = None if job.start_time is None else job.start_time.timestamp()
        facts.append(
            (job.queue, preemptibility is NON, active, pod_set.min_available, elastic, start,
             job.priority)
        )  # fmt: skip
    return facts


def plan_floor(
    facts: list[PlanFact],
    plain: Plain,
    action: Action,
    pre_queue: str,
    pre_priority: int,
    need: int,
    claimed: set[str],
) -> tuple[list[list[str]], float | None]:
    """One preemptor's plan by hand: the eligible jobs (the warm floor's loop), each one's
    tasks that may go less the claimed ones (all active tasks of a free job, last listed first;
    a protected elastic job's tasks above its minimum, as many as its minimum leaves beside what
    is claimed), ranked by unsaved work (age times those tasks), priority, the later start and
    input order; tasks taken until ``need`` pods. Adds what it takes to ``claimed``. Returns
    the tasks per victim and, when ``need`` is not met, the retry time: the earliest end of a
    protection that holds a victim back (``None`` when none does)."""
    cache: dict[str, float | None] = {}
    theirs = plain.ancestors(pre_queue)
    known = plain.parent
    preempt = action is Action.PREEMPT
    candidates = []
    retry: float | None = None
    for index, (queue, non, active, minimum, elastic, start, priority) in enumerate(facts):
        if queue not in known:
            continue
        if preempt:
            if queue != pre_queue or priority >= pre_priority:
                continue
        elif queue == pre_queue:
            continue
        if non or not active:
            continue
        if queue in cache:
            latest = cache[queue]
        else:
            mr = plain.min_runtime(action, theirs, queue)
            latest = cache[queue] = None if mr == -1.0 else NOW_S - mr  # type: ignore[operator]
        if latest is None:
            continue
        left = [task for task in reversed(active) if task not in claimed]
        if not left:
            continue  # judged on what it keeps: nothing
        if start is None or start <= latest:  # free: every active task, the last listed first
            tasks = left
        else:
            end = start - latest + NOW_S  # start + min-runtime: its protection ends then
            if retry is None or end < retry:
                retry = end
            if not elastic:
                continue
            # protected: above its minimum, beside what is claimed
            taken = sum(1 for task in active if task in claimed)
            room = len(active) - minimum - taken
            above = [task for task in reversed(active[minimum:]) if task not in claimed]
            tasks = above[: max(0, room)]
        age = 0.0 if start is None else max(0.0, NOW_S - start)
        later = -math.inf if start is None else -start
        candidates.append((age * len(tasks), priority, later, index, tasks))
    candidates.sort(key=lambda item: item[:4])
    plan: list[list[str]] = []
    for _, _, _, _, tasks in candidates:
        if not need:
            break
        chosen = tasks[:need]
        if chosen:
            plan.append(chosen)
            claimed.update(chosen)
            need -= len(chosen)
    return plan, (retry if need else None)


def same(ours: list[Any], floor: list[Any], what: str, *, ordered: bool = True) -> None:
    mine, theirs = [job.id for job in ours], [job.id for job in floor]
    if not ordered:
        mine, theirs = sorted(mine), sorted(theirs)
    if mine != theirs:
        raise SystemExit(f"{what}: the library and the floor disagree")


# -- the small cycle ----------------------------------------------------------------------------


class OwnTask:
    __slots__ = ("id", "status")

    def __init__(self, id: str, status: str) -> None:
        self.id = id
        self.status = status


class OwnPodSet:
    __slots__ = ("min_available", "name", "tasks")

    def __init__(self, name: str, min_available: int, tasks: list[OwnTask]) -> None:
        self.name = name
        self.min_available = min_available
        self.tasks = tasks


class OwnJob:
    """A scheduler's own running job: statuses as strings, start as POSIX seconds."""

    __slots__ = ("id", "pod_sets", "preemptibility", "priority", "queue", "start_time")

    def __init__(
        self, id: str, queue: str, priority: int, start_time: float, pod_sets: list[OwnPodSet]
    ) -> None:
        self.id = id
        self.queue = queue
        self.priority = priority
        self.preemptibility = None
        self.start_time = start_time
        self.pod_sets = pod_sets


def small_cycle_parts() -> tuple[Callable[[], list[Any]], Callable[[], list[Any]], int]:
    """The small cycle's library call and hand loop (32 running jobs in one queue, a fresh
    session and one preemptor per call), and the number of jobs."""
    rng = random.Random(32)
    tree = QueueTree([Queue("team", preempt_min_runtime="10m")])
    jobs = [
        OwnJob(
            f"run-{i}",
            "team",
            rng.choice([50, 75, 100, 125]),
            NOW_S - rng.uniform(0, 3600),
            [OwnPodSet("default", 4, [OwnTask(f"run-{i}-{t}", "Running") for t in range(4)])],
        )
        for i in range(32)
    ]
    preemptor = Job("urgent", "team", 130)
    mr_seconds = {"team": 600.0}  # the tree's one value, read by the hand loop per call

    def library() -> list[Any]:
        return Session(tree, CONFIG, NOW_S).eligible_victims(Action.PREEMPT, preemptor, jobs)

    def hand() -> list[Any]:
        out = []
        latest = NOW_S - mr_seconds[preemptor.queue]
        for job in jobs:
            if job.queue != preemptor.queue or job.priority >= preemptor.priority:
                continue
            if job.preemptibility is None and job.priority >= LEGACY_THRESHOLD:
                continue
            active = 0
            for pod_set in job.pod_sets:
                for task in pod_set.tasks:
                    if task.status == "Running":
                        active += 1
            if active and job.start_time <= latest:
                out.append(job)
        return out

    return library, hand, len(jobs)


def small_cycle(repeat: int) -> dict[str, Any]:
    """The small cycle against the hand loop (the jobs built once, outside the timing)."""
    library, hand, count = small_cycle_parts()
    same(library(), hand(), "small cycle")
    rounds = 200

    def many(fn: Callable[[], Any]) -> Callable[[], None]:
        def run() -> None:
            for _ in range(rounds):
                fn()

        return run

    ours = best(many(library), repeat) / rounds
    floor = best(many(hand), repeat) / rounds
    return {"library_s": ours, "floor_s": floor, "ratio": ours / floor, "jobs": count}


# -- the measurements ---------------------------------------------------------------------------


def run(scale: int, repeat: int, profile: bool) -> dict[str, Any]:
    """Every measurement; the results as a dict (also what the table is made of)."""
    results: dict[str, Any] = {}
    scenario = Scenario(scale)
    tree, records = scenario.tree, scenario.records
    plain = Plain(tree, CONFIG)
    first, second = scenario.first, scenario.second
    reclaim = Action.RECLAIM
    results["scenario"] = {
        "queues": len(tree),
        "top_level": len(tree.children(None)),
        "victim_queues_used": len(scenario.used),
        "victims": len(records),
        "tasks_per_victim": 8,
        "max_depth": max(scenario.depth.values()),
    }

    # 1. building the values, against plain slotted objects (the collector off for both)
    sample = records[: max(1, 20_000 // scale)]

    def build_off(build: Callable[[], Any]) -> Callable[[], None]:
        def timed() -> None:
            gc.disable()
            try:
                build()
            finally:
                gc.enable()

        return timed

    results["objects"] = {
        "jobs": len(sample),
        "library_s": best(build_off(lambda: build_jobs(sample)), repeat),
        "floor_s": best(build_off(lambda: build_plain(sample)), repeat),
    }

    jobs = build_jobs(records)
    facts = precompute(jobs)

    # 2. a new session's first question, against the cold floor over the same objects
    def first_call(objects: list[Any], key: str) -> None:
        answer: dict[str, list[Any]] = {}

        def ask() -> None:
            answer["it"] = Session(tree, CONFIG, NOW).eligible_victims(reclaim, first, objects)

        ours = best(ask, repeat)
        floor = best(lambda: cold_floor(objects, plain, reclaim, first.queue, 100), repeat)
        same(answer["it"], cold_floor(objects, plain, reclaim, first.queue, 100), key)
        results[key] = {"library_s": ours, "floor_s": floor}

    first_call(jobs, "cold")
    own = build_plain(records, names=True)
    first_call(own, "protocol")
    del own

    # 3. another preemptor, in a queue the session has not met, against the warm floor
    holder: dict[str, Any] = {}

    def warm_session() -> None:
        holder["session"] = session = Session(tree, CONFIG, NOW)
        session.eligible_victims(reclaim, first, jobs)

    def another() -> None:
        holder["answer"] = holder["session"].eligible_victims(reclaim, second, jobs)

    ours = best(another, repeat, setup=warm_session)
    floor = best(lambda: warm_floor(jobs, facts, plain, reclaim, second.queue, 100), repeat)
    same(
        holder["answer"],
        warm_floor(jobs, facts, plain, reclaim, second.queue, 100),
        "another preemptor",
    )
    results["another"] = {"library_s": ours, "floor_s": floor}

    # 4. a cycle of 100 preemptors (building the cycle form counted), against 100 warm passes
    preemptors = scenario.preemptors

    def cycle_run() -> None:
        cycle = holder["session"].cycle(jobs)
        holder["answers"] = [cycle.eligible_victims(action, pre) for action, pre in preemptors]

    def floor_passes() -> None:
        holder["floor"] = [
            warm_floor(jobs, facts, plain, action, pre.queue, pre.priority)
            for action, pre in preemptors
        ]

    ours = best(cycle_run, repeat, setup=warm_session)
    floor = best(floor_passes, max(1, repeat - 1))
    for (action, pre), mine, theirs in zip(
        preemptors, holder["answers"], holder["floor"], strict=True
    ):
        same(mine, theirs, f"cycle {action.value} {pre.queue}", ordered=False)
    results["cycle"] = {
        "preemptors": len(preemptors),
        "library_s": ours,
        "floor_s": floor,
        "answers": sum(len(answer) for answer in holder["answers"]),
    }

    # 5. a cycle of 100 preemptors that each plan and commit, against a hand-written loop that
    # keeps the claimed task ids in a set and takes tasks in the same order
    pfacts = plan_facts(jobs)
    need = 16

    def plans_run() -> None:
        cycle = holder["session"].cycle(jobs)
        taken = []
        for action, pre in preemptors:
            plan = cycle.plan(action, pre, {"pods": need})
            cycle.commit(plan)
            retry = None if plan.retry is None else plan.retry.timestamp()
            taken.append(([[str(task.id) for task in tasks] for tasks in plan.tasks], retry))
        holder["plans"] = taken

    def plans_floor() -> None:
        claimed: set[str] = set()
        holder["floor_plans"] = [
            plan_floor(pfacts, plain, action, pre.queue, pre.priority, need, claimed)
            for action, pre in preemptors
        ]

    ours = best(plans_run, repeat, setup=warm_session)
    floor = best(plans_floor, repeat)
    for (mine, my_retry), (theirs, their_retry) in zip(
        holder["plans"], holder["floor_plans"], strict=True
    ):
        # the same tasks; the same retry time (to the microsecond: the library's is a datetime)
        close = (my_retry is None) == (their_retry is None) and (
            my_retry is None or abs(my_retry - their_retry) < 1e-6
        )
        if mine != theirs or not close:
            raise SystemExit("plans: the library and the floor disagree")
    results["plans"] = {
        "preemptors": len(preemptors),
        "need": need,
        "library_s": ours,
        "floor_s": floor,
        "tasks": sum(len(tasks) for plan, _ in holder["plans"] for tasks in plan),
    }

    # 6. the naive port, against a warm call (the same question asked again of a session)
    warm_session()
    holder["session"].eligible_victims(reclaim, second, jobs)
    warm = best(another, repeat)
    tables = tree_tables(tree)
    naive_answer = naive_eligible(tables, CONFIG, NOW, reclaim, second, jobs)
    same(holder["answer"], naive_answer, "naive port")
    naive = best(
        lambda: naive_eligible(tables, CONFIG, NOW, reclaim, second, jobs), max(1, repeat - 1)
    )
    results["naive"] = {"library_s": warm, "naive_s": naive}

    # 7. the small cycle
    results["small_cycle"] = small_cycle(repeat)

    # 8. memory per victim: a session's facts after its first call, and with a cycle form
    count = min(len(records), 20_000)
    subset = jobs[:count]
    gc.collect()
    tracemalloc.start()
    session = Session(tree, CONFIG, NOW)
    session.eligible_victims(reclaim, first, subset)
    after_first = tracemalloc.get_traced_memory()[0]
    cycle = session.cycle(subset)
    for action, pre in preemptors[:20]:
        cycle.eligible_victims(action, pre)
    after_cycle = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del session, cycle
    results["memory"] = {
        "victims": count,
        "first_call_bytes_per_victim": after_first / count,
        "with_cycle_bytes_per_victim": after_cycle / count,
    }

    if profile:
        results["profile"] = {
            "a first call": profiled(
                lambda: Session(tree, CONFIG, NOW).eligible_victims(reclaim, first, jobs)
            ),
        }
        warm_session()
        results["profile"]["another preemptor"] = profiled(another)
        library = small_cycle_parts()[0]
        results["profile"]["200 small cycles"] = profiled(lambda: [library() for _ in range(200)])
    return results


def profiled(fn: Callable[[], Any], rows: int = 8) -> list[dict[str, Any]]:
    """The functions that take the most time of their own in one call of ``fn``."""
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    stats = pstats.Stats(profiler)
    table = []
    for (filename, line, name), (_, calls, own, total, _) in stats.stats.items():  # type: ignore[attr-defined]
        if filename.startswith("<"):  # code attrs generated: "<attrs generated ... Class>"
            label = f"{filename.rsplit('.', 1)[-1].rstrip('>')}.{name}"
        else:
            label = f"{Path(filename).stem}.{name}" if line else name.strip("<>")
        table.append({"function": label, "calls": calls, "own_s": own, "total_s": total})
    table.sort(key=lambda row: -row["own_s"])
    return table[:rows]


# -- the table ----------------------------------------------------------------------------------

ROWS = [
    ("objects", "building the values (object floor)", 2.0),
    ("cold", "first call, new session (cold floor)", 2.0),
    ("protocol", "first call, own objects (cold floor)", 2.0),
    ("another", "another preemptor (warm floor)", 2.0),
]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f} ms" if seconds < 0.1 else f"{seconds * 1e3:,.0f} ms"


def verdict(met: bool) -> str:
    return "met" if met else "missed"


def report(results: dict[str, Any], scale: int) -> str:
    """The results as Markdown tables narrow enough for a page (no cell needs breaking)."""
    lines = [
        "| measurement (against) | library | floor | ratio | target |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for key, label, target in ROWS:
        r = results[key]
        ratio = r["library_s"] / r["floor_s"]
        lines.append(
            f"| {label} | {ms(r['library_s'])} | {ms(r['floor_s'])} | {ratio:.2f}x"
            f" | at most {target:.0f}x: {verdict(ratio <= target)} |"
        )
    c = results["cycle"]
    speedup = c["floor_s"] / c["library_s"]
    lines.append(
        f"| cycle of {c['preemptors']} preemptors (100 warm-floor passes) | {ms(c['library_s'])}"
        f" | {ms(c['floor_s'])} | {speedup:.1f}x faster | 4x faster: {verdict(speedup >= 4)} |"
    )
    p = results["plans"]
    ratio = p["library_s"] / p["floor_s"]
    lines.append(
        f"| cycle of {p['preemptors']} preemptors that plan {p['need']} pods and commit"
        f" (hand loop with a claimed set) | {ms(p['library_s'])} | {ms(p['floor_s'])}"
        f" | {ratio:.2f}x | at most 2x: {verdict(ratio <= 2)} |"
    )
    s = results["small_cycle"]
    lines.append(
        f"| small cycle, {s['jobs']} own jobs (hand loop) | {s['library_s'] * 1e6:,.0f} us"
        f" | {s['floor_s'] * 1e6:,.1f} us | {s['ratio']:.1f}x"
        f" | at most 5x: {verdict(s['ratio'] <= 5)} |"
    )
    n = results["naive"]
    slower = n["naive_s"] / n["library_s"]
    lines.append(
        f"| warm call (naive port) | {ms(n['library_s'])} | {ms(n['naive_s'])}"
        f" | {slower:.1f}x slower | 10x slower: {verdict(slower >= 10)} |"
    )
    m = results["memory"]
    sc = results["scenario"]
    text = "\n".join(lines)
    text += (
        f"\n\nScenario: {sc['queues']:,} queues ({sc['top_level']} top-level, depth up to"
        f" {sc['max_depth']}), {sc['victims']:,} victims of 8 tasks in"
        f" {sc['victim_queues_used']:,} queues; values built: {results['objects']['jobs']:,}"
        f" jobs; scale 1/{scale}.\n\n"
        "| memory per victim | bytes |\n| --- | ---: |\n"
        f"| facts after a first call ({m['victims']:,} victims)"
        f" | {m['first_call_bytes_per_victim']:,.0f} |\n"
        f"| and a cycle form, 20 preemptors | {m['with_cycle_bytes_per_victim']:,.0f} |\n"
    )
    for name, rows in results.get("profile", {}).items():
        text += (
            f"\nProfile, {name} (cProfile; own time):\n\n"
            "| function | calls | own | total |\n| --- | ---: | ---: | ---: |\n"
        )
        for row in rows:
            text += (
                f"| `{row['function']}` | {row['calls']:,} | {ms(row['own_s'])}"
                f" | {ms(row['total_s'])} |\n"
            )
    return text


def machine() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=int, default=1, help="divide every count by this")
    parser.add_argument("--quick", action="store_true", help="a smoke run: --scale 50, 2 runs")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (the best)")
    parser.add_argument("--profile", action="store_true", help="add cProfile tables")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="the JSON file (the table beside it, .md); default decision_path.json here,"
        " nothing written for --quick",
    )
    args = parser.parse_args(argv)
    scale, repeat = (
        (max(args.scale, 50), min(args.repeat, 2))
        if args.quick
        else (
            args.scale,
            args.repeat,
        )
    )
    before = machine()
    started = time.perf_counter()
    results = run(scale, repeat, args.profile)
    results["suite_s"] = time.perf_counter() - started
    results["machine"] = before
    results["load_average_after"] = machine()["load_average"]
    text = report(results, scale)
    load = ", ".join(f"{x:.1f}" for x in before["load_average"] or ())
    text += (
        f"\nPython {before['python']} on {before['platform']}, {before['cpus']} CPUs, load"
        f" average {load} at the start; {before['date']}; best of {repeat};"
        f" suite {results['suite_s']:.0f} s.\n"
    )
    print(text)
    output = args.output
    if output is None and not args.quick:
        output = Path(__file__).with_name("decision_path.json")
    if output is not None:
        output.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        output.with_suffix(".md").write_text(text, encoding="utf-8")
        print(f"written to {output} and {output.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

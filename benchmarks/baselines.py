"""Two baselines that compute what ``Session.eligible_victims`` computes, for the benchmark.

- :func:`inline_eligible` is the practical floor: one hand-written loop with no abstraction, no
  objects built per victim, the min-runtime of each victim queue worked out once.
- :func:`naive_eligible` is what a straightforward port costs: every call walks the queue tree
  from scratch (no cached paths, no memo) and recounts the victim's tasks.

Both read the same inputs as the library (a QueueTree's queues, a Config, Job objects) and must
give the same answers; ``run.py`` checks that they do.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from minruntime import Action, Config, Job, Preemptibility, QueueTree, TaskStatus

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ACTIVE = frozenset(
    {
        TaskStatus.ALLOCATED,
        TaskStatus.PIPELINED,
        TaskStatus.BINDING,
        TaskStatus.BOUND,
        TaskStatus.RUNNING,
        TaskStatus.RELEASING,
        TaskStatus.STUCK_IN_RELEASING,
    }
)
NON = Preemptibility.NON_PREEMPTIBLE
SEMI = Preemptibility.SEMI_PREEMPTIBLE
PREEMPTIBLE = Preemptibility.PREEMPTIBLE


def _ns(moment: datetime) -> int:
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def _setting_ns(value: object) -> int | None:
    """A queue setting as nanoseconds, -1 for never, None for unset."""
    if value is None:
        return None
    ns = value.nanoseconds  # type: ignore[attr-defined]
    return -1 if ns is None else int(ns)


def _walk_up(
    parents: dict[str, str | None], values: dict[str, int | None], start: str, default: int
) -> int:
    node: str | None = start
    while node is not None:
        value = values[node]
        if value is not None:
            return value
        node = parents[node]
    return default


def _path(parents: dict[str, str | None], queue: str) -> list[str]:
    path = []
    node: str | None = queue
    while node is not None:
        path.append(node)
        node = parents[node]
    path.reverse()
    return path


def _mr(
    parents: dict[str, str | None],
    preempt: dict[str, int | None],
    reclaim: dict[str, int | None],
    config: Config,
    action: Action,
    pre_queue: str,
    victim_queue: str,
) -> int:
    """The MR rule of docs/spec/resolution.md, written out, walking the tree every time."""
    if action is Action.PREEMPT:
        return _walk_up(
            parents, preempt, victim_queue, _setting_ns(config.default_preempt_min_runtime) or 0
        )
    default = _setting_ns(config.default_reclaim_min_runtime) or 0
    if pre_queue not in parents:
        return default
    if config.reclaim_resolve_method == "queue":
        return _walk_up(parents, reclaim, victim_queue, default)
    pre_path = _path(parents, pre_queue)
    victim_path = _path(parents, victim_queue)
    shared = 0
    while shared < min(len(pre_path), len(victim_path)) and pre_path[shared] == victim_path[shared]:
        shared += 1
    start = victim_path[shared] if shared < len(victim_path) else victim_queue
    return _walk_up(parents, reclaim, start, default)


def tree_tables(
    tree: QueueTree,
) -> tuple[dict[str, str | None], dict[str, int | None], dict[str, int | None]]:
    """Plain dicts of the tree: parent, preempt setting, reclaim setting (ns, -1 never)."""
    parents = {name: tree[name].parent for name in tree}
    preempt = {name: _setting_ns(tree[name].preempt_min_runtime) for name in tree}
    reclaim = {name: _setting_ns(tree[name].reclaim_min_runtime) for name in tree}
    return parents, preempt, reclaim


def _preemptibility(job: Job, threshold: int = 100) -> Preemptibility:
    if job.preemptibility is not None:
        return job.preemptibility
    return PREEMPTIBLE if job.priority < threshold else NON


def inline_eligible(
    tables: tuple[dict[str, str | None], dict[str, int | None], dict[str, int | None]],
    config: Config,
    now: datetime,
    action: Action,
    preemptor: Job,
    victims: Sequence[Job],
) -> list[Job]:
    """The floor: one flat loop, MR memoised per victim queue for this call."""
    parents, preempt, reclaim = tables
    now_ns = _ns(now)
    memo: dict[str, int] = {}
    pre_id, pre_queue, pre_priority = preemptor.id, preemptor.queue, preemptor.priority
    is_preempt = action is Action.PREEMPT
    active_statuses = ACTIVE
    eligible = []
    for victim in victims:
        if victim.id == pre_id:
            continue
        queue = victim.queue
        if queue not in parents:
            continue
        if is_preempt:
            if queue != pre_queue or victim.priority >= pre_priority:
                continue
        elif queue == pre_queue:
            continue
        explicit = victim.preemptibility
        kind = explicit if explicit is not None else (PREEMPTIBLE if victim.priority < 100 else NON)
        if kind is NON:
            continue
        active = 0
        elastic = surplus = False
        for pod_set in victim.pod_sets:
            tasks = pod_set.tasks
            count = 0
            for task in tasks:
                if task.status in active_statuses:
                    count += 1
            active += count
            if pod_set.min_available < len(tasks):
                elastic = True
            if count > pod_set.min_available:
                surplus = True
        if not active or (kind is SEMI and not surplus):
            continue
        mr = memo.get(queue)
        if mr is None:
            mr = memo[queue] = _mr(parents, preempt, reclaim, config, action, pre_queue, queue)
        if mr < 0:
            continue
        if kind is SEMI or elastic:
            eligible.append(victim)
            continue
        start = victim.start_time
        if start is None or now_ns >= _ns(start) + mr:
            eligible.append(victim)
    return eligible


def naive_eligible(
    tables: tuple[dict[str, str | None], dict[str, int | None], dict[str, int | None]],
    config: Config,
    now: datetime,
    action: Action,
    preemptor: Job,
    victims: Sequence[Job],
) -> list[Job]:
    """A straightforward port: each victim judged on its own, the tree walked every time."""
    parents, preempt, reclaim = tables
    eligible = []
    for victim in victims:
        if _naive_is_eligible(parents, preempt, reclaim, config, now, action, preemptor, victim):
            eligible.append(victim)
    return eligible


def _naive_is_eligible(
    parents: dict[str, str | None],
    preempt: dict[str, int | None],
    reclaim: dict[str, int | None],
    config: Config,
    now: datetime,
    action: Action,
    preemptor: Job,
    victim: Job,
) -> bool:
    if victim.id == preemptor.id or victim.queue not in parents:
        return False
    if action is Action.PREEMPT:
        if victim.queue != preemptor.queue or victim.priority >= preemptor.priority:
            return False
    elif victim.queue == preemptor.queue:
        return False
    kind = _preemptibility(victim)
    if kind is NON:
        return False
    active = [
        task for pod_set in victim.pod_sets for task in pod_set.tasks if task.status in ACTIVE
    ]
    if not active:
        return False
    surplus = any(
        sum(1 for task in pod_set.tasks if task.status in ACTIVE) > pod_set.min_available
        for pod_set in victim.pod_sets
    )
    if kind is SEMI and not surplus:
        return False
    mr = _mr(parents, preempt, reclaim, config, action, preemptor.queue, victim.queue)
    if mr < 0:
        return False
    elastic = any(pod_set.min_available < len(pod_set.tasks) for pod_set in victim.pod_sets)
    if kind is SEMI or elastic:
        return True
    if victim.start_time is None:
        return True
    return _ns(now) >= _ns(victim.start_time) + mr

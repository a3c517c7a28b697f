"""The report of ``minruntime explain``: typed values built from the Session's own answers.

Every value here is an answer of :class:`~minruntime.Session`, asked once per question: a
job's own protection is :meth:`~minruntime.Session.protection`; with a preemptor, each
victim's :class:`~minruntime.Verdict` comes from one :meth:`~minruntime.Session.verdicts` call
per action (one verdict per victim), the order is :meth:`~minruntime.Session.rank_victims` and
the plan :meth:`~minruntime.Session.plan` over the same verdicts, its retry time the plan's;
the queues' min-runtimes are :meth:`~minruntime.Session.resolve`. The plan counts what the
preemptor's pending pods request: GPUs where they request GPUs, else pods
(docs/spec/kubernetes.md). The renderers (``_table``, ``_json``, ``_timeline``) only format
these values; nothing here or there restates a rule.

>>> from datetime import UTC
>>> from minruntime.kube import read_snapshot
>>> one_queue = [{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue",
...               "metadata": {"name": "q"}}]  # empty input is an error: a cluster of one queue
>>> report = build_report(read_snapshot(one_queue), datetime(2026, 11, 22, 12, 0, tzinfo=UTC))
>>> report.jobs, report.plans, report.retry_at
((), (), None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Final

import attrs

from minruntime.config import Config
from minruntime.decisions import Action, ProtectionStatus, Resolution
from minruntime.decisions import Plan as LibraryPlan
from minruntime.decisions import Verdict as LibraryVerdict
from minruntime.errors import MinRuntimeError
from minruntime.jobs import Job, TaskLike, TaskStatus
from minruntime.kube import Problem, SearchBackoff, Snapshot, SnapshotJob
from minruntime.preemptibility import PreemptibilitySource
from minruntime.queues import Queue, QueueTree
from minruntime.resources import GPU, PODS, Resources
from minruntime.session import Session

__all__ = [
    "ACTIONS",
    "JobEntry",
    "NotPending",
    "Plan",
    "PreemptorEntry",
    "QueueEntry",
    "Report",
    "Verdict",
    "build_report",
    "left_out",
    "preemptor_entry",
    "queue_order",
    "warnings_of",
]

PENDING: Final = frozenset({TaskStatus.PENDING, TaskStatus.GATED})
ACTIONS: Final = (Action.RECLAIM, Action.PREEMPT)
"""The actions in the order the report gives their plans (the reference tries reclaim first)."""


class NotPending(MinRuntimeError, ValueError):
    """A preemptor named on the command line that has no pending pods: nothing to place."""


@attrs.frozen(kw_only=True)
class QueueEntry:
    """One queue's effective min-runtimes, each a :class:`~minruntime.Resolution`."""

    name: str
    parent: str | None
    preempt: Resolution
    reclaim: Resolution
    """Reclaim by a preemptor in a queue beside it (under the same parent)."""
    reclaim_from_another_tree: Resolution
    """Reclaim by a preemptor in another top-level tree."""


@attrs.frozen(kw_only=True)
class PreemptorEntry:
    """The preemptor: a pod group of the snapshot or a hypothetical job."""

    job: Job
    hypothetical: bool
    pending: tuple[TaskLike, ...]
    """Its pending (or gated) pods, in listing order."""

    @property
    def need(self) -> Resources:
        """What its pending pods request, in the plan's unit: their GPUs (whole and
        fractional) where any of them requests a GPU, else their number of pods."""
        gpus = sum(task.resources.get(GPU, 0) for task in self.pending)  # type: ignore[attr-defined]
        if gpus:
            return Resources({GPU: gpus})
        return Resources({PODS: len(self.pending)})

    @property
    def unit(self) -> str:
        """What the plan counts: ``"GPUs"`` or ``"pods"``."""
        return "GPUs" if GPU in self.need else "pods"


@attrs.frozen(kw_only=True)
class Verdict:
    """The preemptor's answer for one running job."""

    decision: LibraryVerdict
    """The library's verdict on it."""
    rank: int | None
    """Its place in :meth:`Session.rank_victims` for its action (1 first), ``None`` refused."""

    @property
    def evictable(self) -> tuple[TaskLike, ...]:
        """Its pods that may go, least important first (the verdict's tasks)."""
        return self.decision.tasks

    @property
    def unsaved_work(self) -> float:
        """The work evicting them would lose (the verdict's)."""
        return self.decision.unsaved_work


@attrs.frozen(kw_only=True)
class JobEntry:
    """One running job: what it is, its own protection, and the preemptor's verdict on it."""

    job: SnapshotJob
    own: ProtectionStatus
    """Its protection from preempt in its own queue (:meth:`Session.protection`, the job
    itself the preemptor)."""
    verdict: Verdict | None = None

    @property
    def action(self) -> Action | None:
        """The preemptor's action on it, when there is a preemptor."""
        return None if self.verdict is None else self.verdict.decision.action


@attrs.frozen(kw_only=True)
class Plan:
    """Which pods would go, by one action, to free what the preemptor's pending pods request:
    :meth:`Session.plan` over the running jobs of that action (its ``retry`` is set only where
    the action leaves something missing)."""

    action: Action
    plan: LibraryPlan[Job]
    backoff: SearchBackoff | None = None
    """The scheduler's failed-search backoff for this action, where its shard sets one: after
    the retry time it may wait up to ``backoff.maximum`` before it searches again."""

    @property
    def retry_at(self) -> datetime | None:
        """When to retry, where this action leaves something missing."""
        return self.plan.retry


@attrs.frozen(kw_only=True)
class Report:
    """Everything ``minruntime explain`` shows."""

    now: datetime
    sources: tuple[str, ...]
    config: Config
    queues: int
    pod_groups: int
    running: int
    """How many pod groups run (the jobs listed, and the preemptor when it runs)."""
    left_out: int
    """Objects the reader left out (counted from its warnings, until it reports them)."""
    queue_tree: tuple[QueueEntry, ...]
    preemptor: PreemptorEntry | None
    jobs: tuple[JobEntry, ...]
    plans: tuple[Plan, ...]
    retry_at: datetime | None
    warnings: tuple[str, ...]
    search_backoff: Mapping[Action, SearchBackoff] | None = None
    """The scheduler's failed-search backoff per action, where its shard sets one."""


def queue_order(tree: QueueTree) -> list[tuple[int, str]]:
    """Each queue of the tree, depth first and by name, as ``(depth, name)``.

    >>> queue_order(QueueTree([Queue("b"), Queue("a"), Queue("c", "b")]))
    [(0, 'a'), (0, 'b'), (1, 'c')]
    """
    order: list[tuple[int, str]] = []
    stack = [(0, name) for name in sorted(tree.children(None), reverse=True)]
    while stack:  # iterative: a deep tree must not reach the recursion limit
        depth, name = stack.pop()
        order.append((depth, name))
        stack.extend((depth + 1, child) for child in sorted(tree.children(name), reverse=True))
    return order


def _unused(tree: QueueTree, name: str) -> str:
    while name in tree:
        name += "'"
    return name


def _queue_entries(snapshot: Snapshot) -> tuple[QueueEntry, ...]:
    """Each queue's min-runtimes, asked of a Session about hypothetical preemptors: one in a
    queue beside it (a new child of its parent) and one in a new top-level queue."""
    tree = snapshot.tree
    if not len(tree):
        return ()
    order = queue_order(tree)
    other = _unused(tree, "(another tree)")
    beside = {
        parent: _unused(tree, f"(beside the children of {parent})")
        for parent in {tree.parent(name) for _, name in order}
        if parent is not None
    }
    extended = QueueTree(
        [
            # as the tree has it (a parent the reader dropped, with --orphans-as-top-level)
            *(attrs.evolve(tree[name], parent=tree.parent(name)) for _, name in order),
            Queue(other),
            *(Queue(name, parent) for parent, name in beside.items()),
        ]
    )
    session = Session(extended, snapshot.config, 0)
    entries = []
    for _, name in order:
        parent = tree.parent(name)
        sibling = other if parent is None else beside[parent]
        entries.append(
            QueueEntry(
                name=name,
                parent=parent,
                preempt=session.resolve(Action.PREEMPT, name, name),
                reclaim=session.resolve(Action.RECLAIM, sibling, name),
                reclaim_from_another_tree=session.resolve(Action.RECLAIM, other, name),
            )
        )
    return tuple(entries)


def core_disagreements(session: Session, snapshot: Snapshot) -> tuple[str, ...]:
    """A warning for each pod group whose ``status.schedulingState.corePods`` differs from the
    core the rules compute (docs/spec/kubernetes.md): the scheduler's list is the core, and the
    operator sees both lists.

    >>> from minruntime.kube import read_snapshot
    >>> from minruntime import Session
    >>> objects = [
    ...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
    ...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"name": "etl", "namespace": "ml"},
    ...      "spec": {"queue": "q", "minMember": 1, "preemptibility": "semi-preemptible"},
    ...      "status": {"schedulingState": {"corePods": ["etl-1"]}}},
    ... ] + [
    ...     {"apiVersion": "v1", "kind": "Pod",
    ...      "metadata": {"name": f"etl-{i}", "namespace": "ml",
    ...                   "annotations": {"pod-group-name": "etl"}},
    ...      "status": {"phase": "Running"}}
    ...     for i in range(2)
    ... ]
    >>> snapshot = read_snapshot(objects)
    >>> core_disagreements(Session(snapshot.tree, snapshot.config, now=0), snapshot)
    ("PodGroup/ml/etl: status.schedulingState.corePods names ['etl-1'], the rules compute ['etl-0']; the scheduler's list is used",)
    """
    found = []
    for entry in snapshot.jobs:
        named = entry.core_pods
        if named is None:
            continue
        computed = sorted(str(task.id) for task in session.core_tasks(entry.job, computed=True))
        if sorted(named) != computed:
            found.append(
                f"PodGroup/{entry.id}: status.schedulingState.corePods names "
                f"{sorted(named)}, the rules compute {computed}; the scheduler's list is used"
            )
    return tuple(found)


def warnings_of(snapshot: Snapshot, *, strict: bool = False) -> tuple[str, ...]:
    """The snapshot's warnings, with the legacy-rule fallbacks summed up in one line; with
    ``strict`` (``--strict``), each says what strict reading does: the snapshot is refused."""

    def said(problem: Problem) -> str:
        return problem.under_strict().message if strict else problem.message

    warnings = [said(problem) for problem in snapshot.problems]
    legacy = 0
    for job in snapshot.jobs:
        if job.preemptibility.source is PreemptibilitySource.LEGACY_PRIORITY:
            legacy += 1
            # the job's own fallback warning is summed up below
            summed = job.preemptibility.warnings[-1:]
            warnings.extend(
                said(p) for p in job.problems if not any(p.message.endswith(x) for x in summed)
            )
        else:
            warnings.extend(said(problem) for problem in job.problems)
    if legacy:
        warnings.append(
            f"{legacy} of {len(snapshot.jobs)} pod groups have no preemptibility set and "
            "fall back on the legacy priority rule (priority < 100 is preemptible); set "
            "spec.preemptibility or the kai.scheduler/preemptibility label to make it explicit"
        )
    return tuple(warnings)


def left_out(snapshot: Snapshot) -> int:
    """How many objects the reader left out (its problems of kind ``LEFT_OUT``).

    >>> from minruntime.kube import read_snapshot
    >>> left_out(read_snapshot([{"metadata": {"name": "stray"}}, {"kind": "PriorityClass",
    ...                          "metadata": {"name": "p"}, "value": 1}]))
    1
    """
    return snapshot.left_out


def preemptor_entry(preemptor: SnapshotJob | Job) -> PreemptorEntry:
    """The preemptor as the report shows it.

    Raises:
        NotPending: for a pod group of the snapshot with no pending pods.
    """
    job = preemptor.job if isinstance(preemptor, SnapshotJob) else preemptor
    pending = tuple(
        task for pod_set in job.pod_sets for task in pod_set.tasks if task.status in PENDING
    )
    hypothetical = not isinstance(preemptor, SnapshotJob)
    if not hypothetical and not pending:
        raise NotPending(
            f"--preemptor: pod group {job.id!r} has no pending pods (expected a pod group with "
            "pods waiting to be placed; --preemptor-queue asks about a hypothetical job)"
        )
    return PreemptorEntry(job=job, hypothetical=hypothetical, pending=pending)


def build_report(
    snapshot: Snapshot,
    now: datetime,
    *,
    preemptor: SnapshotJob | Job | None = None,
    sources: Sequence[str] = (),
) -> Report:
    """The report of ``minruntime explain`` on ``snapshot`` at ``now``.

    Raises:
        NotPending: when ``preemptor`` is a pod group of the snapshot with no pending pods.
    """
    session = Session(snapshot.tree, snapshot.config, now)
    pre = None if preemptor is None else preemptor_entry(preemptor)
    running = [job for job in snapshot.jobs if job.active_count]
    victims = [job for job in running if pre is None or job.job.id != pre.job.id]
    verdicts: dict[str, Verdict] = {}
    plans: list[Plan] = []
    retry_at = None
    if pre is not None:
        pools: dict[Action, list[SnapshotJob]] = {action: [] for action in ACTIONS}
        for entry in victims:
            action = Action.PREEMPT if entry.job.queue == pre.job.queue else Action.RECLAIM
            pools[action].append(entry)
        retries = []
        for action, entries in pools.items():
            pool = [entry.job for entry in entries]
            found = session.verdicts(action, pre.job, pool)
            order = session.rank_victims(action, pre.job, pool)
            places = {id(job): place for place, job in enumerate(order, start=1)}
            for entry, verdict in zip(entries, found, strict=True):
                verdicts[entry.id] = Verdict(decision=verdict, rank=places.get(id(entry.job)))
            if pre.pending:
                plan = session.plan(action, pre.job, pool, pre.need)
                backoff = (
                    None if snapshot.search_backoff is None else snapshot.search_backoff.get(action)
                )
                plans.append(Plan(action=action, plan=plan, backoff=backoff))
                if plan.retry is not None:
                    retries.append(plan.retry)
            else:  # a hypothetical job that asks nothing: when its protections end
                expiry = session.next_expiry(action, pre.job, pool)
                if expiry is not None:
                    retries.append(expiry)
        # the preemptor waits only where no action already frees what it needs
        covered = any(entry.plan for entry in plans)
        retry_at = None if covered else min(retries, default=None)
    # each job's own protection from preempt, one batch per queue: a protection depends on the
    # preemptor only through its queue, so any job of the queue asks for all of them
    by_queue: dict[str, list[SnapshotJob]] = {}
    for entry in victims:
        by_queue.setdefault(entry.job.queue, []).append(entry)
    own: dict[str, ProtectionStatus] = {}
    for entries in by_queue.values():
        pool = [entry.job for entry in entries]
        found_own = session.protections(Action.PREEMPT, pool[0], pool)
        own.update(zip((entry.id for entry in entries), found_own, strict=True))
    jobs = tuple(
        JobEntry(job=entry, own=own[entry.id], verdict=verdicts.get(entry.id)) for entry in victims
    )
    return Report(
        now=session.now,
        sources=tuple(sources),
        config=snapshot.config,
        queues=len(snapshot.tree),
        pod_groups=len(snapshot.jobs),
        left_out=left_out(snapshot),
        queue_tree=_queue_entries(snapshot),
        preemptor=pre,
        jobs=jobs,
        plans=tuple(plans),
        retry_at=retry_at,
        warnings=warnings_of(snapshot) + core_disagreements(session, snapshot),
        search_backoff=snapshot.search_backoff,
        running=len(running),
    )

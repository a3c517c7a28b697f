"""The snapshot: every object read into a queue tree, a configuration and jobs (private;
re-exported by the package; each job is a :class:`~minruntime.kube.SnapshotJob`, which
``_pod_groups`` reads)."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

import attrs

from minruntime._text import shown
from minruntime.config import PLUGIN_NAME, Config, find_scheduler_config
from minruntime.decisions import Action
from minruntime.errors import InvalidConfiguration, InvalidObject, InvalidQueueTree, UnknownJob
from minruntime.kube._backoff import SearchBackoff, read_search_backoff
from minruntime.kube._fields import Object, get, object_name
from minruntime.kube._objects import admitted
from minruntime.kube._pod_groups import JobReading, SnapshotJob, read_job
from minruntime.kube._pods import Members
from minruntime.kube._priority import read_priority_class_fields
from minruntime.kube._problems import Problem, ProblemKind, _from_text, _problem, refuse
from minruntime.kube._quantities import quantity
from minruntime.kube._queues import read_queue_fields
from minruntime.kube._resources import GPU_MEMORY_LABEL, DeviceMemory
from minruntime.preemptibility import LEGACY_PRIORITY_THRESHOLD
from minruntime.queues import Queue, QueueTree

__all__ = ["Snapshot", "read_snapshot"]


@attrs.frozen(kw_only=True)
class Snapshot:
    """A cluster snapshot, read: the tree, the configuration, the jobs and the problems.

    ``problems`` are those of the snapshot as a whole and of objects that are not a job; a
    job's own are on its :attr:`SnapshotJob.problems`; :meth:`every_problem` gives both.
    """

    tree: QueueTree
    config: Config
    jobs: tuple[SnapshotJob, ...]
    priority_classes: Mapping[str, int]
    global_default_priority: int | None = None
    problems: tuple[Problem, ...] = ()
    search_backoff: Mapping[Action, SearchBackoff] | None = None
    """The reference scheduler's failed-search backoff per action (``scenarioSearchBudgets``
    of the scheduler config, else of the SchedulingShard's ``spec``): the actions that have
    one; ``None`` when none has. A retry time is then the earliest the scheduler may place the
    job: it may wait up to the maximum backoff after it before it searches again."""

    @property
    def warnings(self) -> tuple[str, ...]:
        """The snapshot's own problems, as the sentences an operator reads."""
        return tuple(problem.message for problem in self.problems)

    def every_problem(self) -> Iterator[Problem]:
        """The snapshot's problems, then each job's, in the order of the jobs."""
        yield from self.problems
        for job in self.jobs:
            yield from job.problems

    @property
    def left_out(self) -> int:
        """How many objects reading left out (the command's summary line counts them)."""
        return sum(1 for p in self.every_problem() if p.kind is ProblemKind.LEFT_OUT)

    def find(self, reference: str) -> SnapshotJob:
        """The job ``namespace/name``, or ``name`` when that name is unique.

        Raises:
            UnknownJob: (a ``LookupError``) when there is no such job, or a bare name is
                ambiguous; the message names the reference and the expected form.
        """
        matches = [
            job
            for job in self.jobs
            if job.id == reference or ("/" not in reference and job.name == reference)
        ]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise UnknownJob(
                f"no pod group {shown(reference)} in the snapshot (expected NAMESPACE/NAME of a "
                "PodGroup, or its name when unique)",
                reference=reference,
            )
        ids = ", ".join(job.id for job in matches)
        raise UnknownJob(
            f"pod group name {shown(reference)} is ambiguous: {ids}; use NAMESPACE/NAME",
            reference=reference,
            matches=(job.id for job in matches),
        )


def _shard_arguments(obj: Object) -> dict[str, object]:
    arguments: dict[str, object] = {}
    for key, argument in (
        ("preemptMinRuntime", "defaultPreemptMinRuntime"),
        ("reclaimMinRuntime", "defaultReclaimMinRuntime"),
    ):
        value = get(obj, f"spec.minRuntime.{key}", str)
        if value is not None:
            arguments[argument] = value
    plugin = get(obj, f"spec.plugins.{PLUGIN_NAME}", Mapping)
    if plugin is not None and plugin.get("arguments") is not None:
        # An override's arguments fully replace the plugin's default arguments.
        arguments = dict(get(obj, f"spec.plugins.{PLUGIN_NAME}.arguments", Mapping))
    return arguments


def _read_config(
    documents: list[tuple[Object, str, Object]], shards: list[Object], lenient: bool
) -> Config:
    """The configuration: a scheduler config document wins over a SchedulingShard."""
    if len(documents) > 1:
        names = ", ".join(f"{_where(obj)} {field}".strip() for obj, field, _ in documents)
        raise InvalidObject(f"more than one scheduler config in the snapshot: {names}")
    if len(shards) > 1 and not documents:
        names = ", ".join(object_name(shard) for shard in shards)
        raise InvalidObject(f"more than one SchedulingShard in the snapshot: {names}")
    ignored = (
        [f"{object_name(shard)} ignored: the scheduler config takes precedence" for shard in shards]
        if documents
        else []
    )
    try:
        if documents:
            obj, field, document = documents[0]
            origin = f"{_where(obj)} {field}".strip()
            config = Config.from_scheduler_config(document, lenient=lenient, origin=origin)
        elif shards:
            obj = shards[0]
            origin = f"{object_name(obj)} spec"
            config = Config.from_plugin_arguments(
                _shard_arguments(obj), lenient=lenient, origin=origin
            )
        else:
            return Config(
                warnings=[
                    "no scheduler config or SchedulingShard in the snapshot; using the defaults"
                ]
            )
    except InvalidConfiguration as error:
        name = _where(obj)
        where = error.origin or origin
        path = where[len(name) :].strip() if where.startswith(name) else where
        raise InvalidObject(str(error), object=name, field=path or None) from None
    return attrs.evolve(config, warnings=[*ignored, *config.warnings]) if ignored else config


def _search_backoff(
    documents: list[tuple[Object, str, Object]], shards: list[Object], problems: list[Problem]
) -> Mapping[Action, SearchBackoff] | None:
    """The failed-search backoff, from where the configuration is read: the scheduler config
    document, else the one SchedulingShard (``_read_config`` has refused two of either)."""
    if documents:
        obj, field, document = documents[0]
        path = f"{field}.scenarioSearchBudgets" if field else "scenarioSearchBudgets"
        return read_search_backoff(obj, path, document.get("scenarioSearchBudgets"), problems)
    if shards:
        spec = shards[0].get("spec")
        budgets = spec.get("scenarioSearchBudgets") if isinstance(spec, Mapping) else None
        return read_search_backoff(shards[0], "spec.scenarioSearchBudgets", budgets, problems)
    return None


def _device_memory(node: Object, found: dict[str, float], problems: list[Problem]) -> None:
    """A Node's GPU memory (its label ``nvidia.com/gpu.memory``, MiB), when it states one; an
    unreadable one is a problem, and the node's device memory is then not known."""
    metadata = node.get("metadata")
    if type(metadata) is not dict:
        return
    labels = metadata.get("labels")
    name = metadata.get("name")
    value = labels.get(GPU_MEMORY_LABEL) if type(labels) is dict else None
    if value is None or type(name) is not str:
        return
    mebibytes = quantity(value)
    if mebibytes:
        found[name] = mebibytes
        return
    field = f"metadata.labels[{GPU_MEMORY_LABEL!r}]"
    problems.append(
        _problem(
            ProblemKind.IGNORED,
            node,
            field,
            f"{object_name(node)} {field}: invalid device memory {shown(value)[:60]} (expected "
            "MiB, a number above 0)",
            "ignored",
        )
    )


def _where(obj: Object) -> str:
    return "scheduler config document" if not obj.get("kind") else object_name(obj)


def read_snapshot(
    objects: Iterable[Any],
    *,
    lenient_config: bool = False,
    strict_times: bool = False,
    orphans_as_top_level: bool = False,
    kind_defaults: Mapping[str, str] | None = None,
    legacy_priority_threshold: int = LEGACY_PRIORITY_THRESHOLD,
    now: datetime | None = None,
    strict: bool = False,
) -> Snapshot:
    """Read a whole snapshot into a tree, a configuration and jobs.

    Args:
        objects: the objects (``List`` objects are flattened).
        lenient_config: a bad plugin argument becomes a warning and the default.
        strict_times: an unparseable start-time annotation (or weight, or checkpoint input) is
            an error instead of a problem.
        orphans_as_top_level: a queue whose parent is missing becomes top-level (with a warning).
        kind_defaults: per-workload-kind preemptibility defaults (``"<Kind>.<group>"`` or
            ``"<Kind>"`` -> value).
        legacy_priority_threshold: for the legacy preemptibility rule.
        now: when the snapshot is evaluated: a start time or last-eviction stamp after it is
            used as given, with a problem naming the object. ``None``: not checked.
        strict: every problem is an error: :class:`~minruntime.InvalidSnapshot` lists them all.

    Each PodGroup becomes a job with id ``namespace/name``: its pods (annotation
    ``pod-group-name``) grouped by sub-group (label ``kai.scheduler/subgroup-name``), its
    priority from its PriorityClass (else the global default class, else 50), its
    preemptibility determined from ``spec.preemptibility``, the ``kai.scheduler/preemptibility``
    label or annotation on the pod's owners (nearest first), on the PodGroup and on the pod,
    ``kind_defaults``, and last the legacy priority rule; its start time from the annotation
    ``kai.scheduler/last-start-timestamp``.

    One bad object never hides the rest (``docs/spec/kubernetes.md``): an object that cannot
    be read is left out, a field with a bad value is ignored, and each is a :class:`Problem`
    on the snapshot (or on the job it concerns) naming the object, the field and the value.

    Raises:
        InvalidObject: for input that holds no object of a kind the library reads, and for an
            unreadable scheduler config (``lenient_config`` makes that a problem).
        InvalidQueueTree: for a queue tree that cannot be built.
        InvalidSnapshot: with ``strict``, for any problem.

    >>> snapshot = read_snapshot([
    ...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "team"},
    ...      "spec": {"reclaimMinRuntime": "30m"}},
    ...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"name": "train", "namespace": "ml", "annotations": {
    ...          "kai.scheduler/last-start-timestamp": "2026-11-22T11:50:00Z"}},
    ...      "spec": {"queue": "team", "minMember": 1}},
    ...     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml",
    ...      "annotations": {"pod-group-name": "train"}}, "status": {"phase": "Running"}},
    ... ])
    >>> job = snapshot.find("ml/train")
    >>> job.job.queue, job.job.priority, str(job.preemptibility.value)
    ('team', 50, 'preemptible')
    """
    problems: list[Problem] = []
    kept = admitted(objects, problems)
    queues: list[Queue] = []
    groups: list[Object] = []
    starts: list[int] = []  # for each object but pods, how many problems came before it
    times: dict[object, int | None] = {}
    classes: dict[str, int] = {}
    global_default: int | None = None
    never_classes: set[str] = set()
    documents: list[tuple[Object, str, Object]] = []
    shards: list[Object] = []
    by_uid: dict[str, Object] = {}
    device_memory: dict[str, float] = {}  # MiB of each node's GPUs
    queue_problems: list[str] = []
    unreadable_configs: list[str] = []
    for obj in kept.objects:
        starts.append(len(problems))
        kind = obj.get("kind")
        metadata = obj.get("metadata")
        uid = metadata.get("uid") if isinstance(metadata, Mapping) else None
        if isinstance(uid, str):
            by_uid[uid] = obj
        if kind == "Queue" and _group(obj) in ("scheduling.run.ai", ""):
            try:
                queue = read_queue_fields(obj, problems)
            except InvalidObject as error:
                queue_problems.append(str(error))
                continue
            except InvalidQueueTree as error:
                queue_problems.extend(error.problems)
                continue
            if queue is not None:
                queues.append(queue)
        elif kind == "PodGroup" and _group(obj) in ("scheduling.run.ai", ""):
            groups.append(obj)
        elif kind == "PriorityClass":
            read = read_priority_class_fields(obj, problems)
            if read is None:
                continue
            classes[read.name] = read.value
            if read.never:
                never_classes.add(read.name)
            if read.global_default:
                global_default = read.value
        elif kind == "ConfigMap" or not kind:
            try:
                found = find_scheduler_config(obj, origin=_where(obj))
            except InvalidConfiguration as error:
                if not lenient_config:
                    raise InvalidObject(
                        str(error), object=object_name(obj), field=error.origin
                    ) from None
                unreadable_configs.append(str(error))
                continue
            if found is not None:
                documents.append((obj, *found))
        elif kind == "SchedulingShard":
            shards.append(obj)
        elif kind == "Node":
            _device_memory(obj, device_memory, problems)
    starts.append(len(problems))  # for the pods after the last of them
    config = _read_config(documents, shards, lenient_config)
    search_backoff = _search_backoff(documents, shards, problems)
    if unreadable_configs and not documents and not shards:
        config = Config()  # the problems below replace "no scheduler config in the snapshot"
    problems.extend(
        Problem(
            kind=ProblemKind.IGNORED,
            detail=problem,
            outcome="ignored (lenient config), using the defaults",
        )
        for problem in unreadable_configs
    )
    problems.extend(_from_text(ProblemKind.ASSUMED, text) for text in config.warnings)
    try:
        tree = QueueTree(queues, orphans_as_top_level=orphans_as_top_level)
    except InvalidQueueTree as error:
        raise InvalidQueueTree([*queue_problems, *error.problems]) from None
    if queue_problems:
        raise InvalidQueueTree(queue_problems)
    problems.extend(_from_text(ProblemKind.ASSUMED, text) for text in tree.warnings)

    keyed = [(_group_order(group), group) for group in groups]  # each group's key, once
    members = Members(
        [key for key, _ in keyed],
        kept.pods,
        kept.groups,
        [starts[i] for i in kept.after],
        times,
        strict_times,
        DeviceMemory.of(device_memory),
    )
    for record in members.strays:
        problems.extend(record.problems)
        problems.append(
            _problem(
                ProblemKind.LEFT_OUT,
                record.obj,
                None,
                f"{object_name(record.obj)}: pod group {record.group!r} is not in the snapshot",
                "pod ignored",
            )
        )

    reading = JobReading(
        classes=classes,
        global_default=global_default,
        never_classes=frozenset(never_classes),
        by_uid=by_uid,
        strict_times=strict_times,
        kind_defaults=kind_defaults,
        threshold=legacy_priority_threshold,
        now=now,
    )
    jobs: list[SnapshotJob] = []
    for key, group in sorted(keyed, key=_KEY):
        job = read_job(group, members.of(key), reading, problems)
        if job is None:
            continue
        if job.job.queue not in tree:
            problems.append(
                _problem(
                    ProblemKind.ASSUMED,
                    group,
                    "spec.queue",
                    f"PodGroup/{job.job.id}: queue {job.job.queue!r} is not in the snapshot",
                    "its decisions say the victim's queue is unknown",
                )
            )
        jobs.append(job)
    problems = members.placed(problems)
    snapshot = Snapshot(
        tree=tree,
        config=config,
        jobs=tuple(jobs),
        priority_classes=classes,
        global_default_priority=global_default,
        problems=tuple(problems),
        search_backoff=search_backoff,
    )
    if strict:
        refuse(snapshot.every_problem())
    return snapshot


_KEY = operator.itemgetter(0)
"""A keyed pod group's key: the groups are read in (namespace, name) order, stably."""


def _group(obj: Object) -> str:
    api_version = obj.get("apiVersion")
    return api_version.split("/")[0] if isinstance(api_version, str) and "/" in api_version else ""


def _group_order(group: Object) -> tuple[str, str]:
    metadata = group.get("metadata")
    if not isinstance(metadata, Mapping):
        return ("", "")
    namespace = metadata.get("namespace")
    name = metadata.get("name")
    return (
        namespace if isinstance(namespace, str) else "",
        name if isinstance(name, str) else "",
    )

"""Pod groups and their sub-group trees: a PodGroup and its pods as a job (private;
re-exported by the package).

A PodGroup that cannot be read (no name or queue, a sub-group tree with a cycle, an unknown
parent, or a sub-group with both ``minMember`` and ``minSubGroup``) is left out with a problem
naming it and the sub-group. A pod that names a sub-group its PodGroup lacks, or a set instead
of a leaf, is left out of its job with a problem, and the job is marked: its
:attr:`~minruntime.kube.SnapshotJob.left_out` lists the pod (``docs/spec/sub-group-trees.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final, NamedTuple

import attrs

from minruntime._text import shown
from minruntime._tree import TreeError, link, short_sets
from minruntime.errors import InvalidObject, MinRuntimeError
from minruntime.jobs import (
    DEFAULT_POD_SET,
    DEFAULT_PRIORITY,
    Job,
    JobInputs,
    PodSet,
    SubGroup,
    Task,
    TaskStatus,
)
from minruntime.kube._annotations import checkpoint_inputs, delay_inputs, start_time
from minruntime.kube._fields import (
    INT32_MAX,
    INT32_MIN,
    Object,
    get,
    lenient,
    misspelt_fields,
    object_name,
    string_entries,
)
from minruntime.kube._pods import SUBGROUP_LABEL, PodRecord, owners
from minruntime.kube._problems import (
    ObjectRef,
    Problem,
    ProblemKind,
    _clipped,
    _problem,
    _split,
)
from minruntime.preemptibility import (
    PREEMPTIBILITY_KEY,
    Owner,
    PreemptibilityResult,
    PreemptibilitySource,
    determine_preemptibility,
)

__all__ = [
    "POD_GROUP_SPEC_FIELDS",
    "SUB_GROUP_FIELDS",
    "JobReading",
    "SnapshotJob",
    "read_job",
    "sub_group_tree",
]

POD_GROUP_SPEC_FIELDS: Final = frozenset(
    {
        # the reference's PodGroup CRD (scheduling.run.ai/v2alpha2)
        "markUnschedulable",
        "minMember",
        "minSubGroup",
        "preemptibility",
        "preemptionDelay",
        "priorityClassName",
        "queue",
        "schedulingBackoff",
        "stalenessGracePeriod",
        "subGroups",
        "topologyConstraint",
    }
)
"""The fields of a PodGroup's ``spec``; a near miss of one is warned about."""
SUB_GROUP_FIELDS: Final = frozenset(
    {"minMember", "minSubGroup", "name", "parent", "topologyConstraint"}
)
"""The fields of a sub-group entry (``spec.subGroups[i]``); a near miss of one is warned about."""


class Tree(NamedTuple):
    """A PodGroup's sub-group tree as read: its pod sets (name, min_available, parent), in the
    order a walk of ``spec.subGroups`` lists them, its sets, and the job's ``minSubGroup``."""

    pod_sets: list[tuple[str, int, str | None]]
    sets: list[SubGroup]
    min_sub_group: int | None


def _count(group: Object, entry: Mapping[str, Any], field: str, key: str) -> int | None:
    """An optional count of a sub-group (``minMember``, ``minSubGroup``): a 32-bit int >= 0."""
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidObject(
            f"{object_name(group)} {field}.{key}: expected an integer >= 0, got "
            f"{shown(value)[:60]}",
            object=object_name(group),
            field=f"{field}.{key}",
        )
    if value > INT32_MAX:
        raise InvalidObject(
            f"{object_name(group)} {field}.{key}: {shown(value)} is out of range "
            f"(expected a 32-bit integer, {INT32_MIN} to {INT32_MAX})",
            object=object_name(group),
            field=f"{field}.{key}",
        )
    return value


def sub_group_tree(group: Object, problems: list[Problem]) -> Tree:
    """The sub-group tree of a PodGroup (``docs/spec/sub-group-trees.md``): ``spec.subGroups``
    with ``name``, ``parent``, and ``minMember`` (a leaf, default 1) or ``minSubGroup`` (a set);
    the job's own ``spec.minSubGroup``. Without sub-groups, one pod set of ``spec.minMember``.

    Raises:
        InvalidObject: for a tree that cannot be read, naming the PodGroup and the sub-group.
    """
    where = object_name(group)
    entries = get(group, "spec.subGroups", list, default=[])
    min_member = get(group, "spec.minMember", int)
    min_sub_group = get(group, "spec.minSubGroup", int)
    for value, field in ((min_member, "spec.minMember"), (min_sub_group, "spec.minSubGroup")):
        if value is not None and value < 0:
            raise InvalidObject(
                f"{where} {field}: must be >= 0, got {value}", object=where, field=field
            )
    if not entries:
        if min_sub_group is not None:
            problems.append(
                _problem(
                    ProblemKind.IGNORED,
                    group,
                    "spec.minSubGroup",
                    f"{where}: spec.minSubGroup applies only with spec.subGroups",
                    "ignored",
                )
            )
        return Tree([(DEFAULT_POD_SET, 1 if min_member is None else min_member, None)], [], None)
    if min_sub_group is not None and min_member:
        raise InvalidObject(
            f"{where} spec.minSubGroup: set together with spec.minMember {min_member} (they "
            "exclude each other: the job needs minSubGroup of its sub-groups, or minMember pods)",
            object=where,
            field="spec.minSubGroup",
        )
    read: list[tuple[str, str | None, int | None, int | None]] = []
    index: dict[str, int] = {}
    for i, entry in enumerate(entries):
        field = f"spec.subGroups[{i}]"
        if not isinstance(entry, Mapping):
            raise InvalidObject(f"{where} {field}: expected an object", object=where, field=field)
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidObject(
                f"{where} {field}.name: expected a non-empty string, got {shown(name)[:60]}",
                object=where,
                field=f"{field}.name",
            )
        if name in index:
            raise InvalidObject(
                f"{where} {field}.name: sub-group {name!r} is listed twice (also at "
                f"spec.subGroups[{index[name]}])",
                object=where,
                field=f"{field}.name",
            )
        parent = entry.get("parent")
        if parent is not None and (not isinstance(parent, str) or not parent):
            raise InvalidObject(
                f"{where} {field}.parent: expected a sub-group name, got {shown(parent)[:60]}",
                object=where,
                field=f"{field}.parent",
            )
        members = _count(group, entry, field, "minMember")
        wanted = _count(group, entry, field, "minSubGroup")
        if members is not None and wanted is not None:
            raise InvalidObject(
                f"{where} {field}: sub-group {name!r} sets both minMember and minSubGroup (a "
                "leaf holds pods and needs minMember of them; a set holds sub-groups and needs "
                "minSubGroup of them)",
                object=where,
                field=f"{field}.minSubGroup",
            )
        index[name] = i
        read.append((name, parent, members, wanted))
    parents = {parent for _, parent, _, _ in read if parent is not None}
    leaves: list[tuple[str, str | None, int, None]] = []
    sets: list[SubGroup] = []
    for name, parent, members, wanted in read:
        field = f"spec.subGroups[{index[name]}]"
        if name in parents:
            if members is not None:
                problems.append(
                    _problem(
                        ProblemKind.IGNORED,
                        group,
                        f"{field}.minMember",
                        f"{where} {field}.minMember: sub-group {name!r} holds sub-groups, so "
                        f"its minMember {members} is not used (minSubGroup says how many of "
                        "them it needs; unset, all)",
                    )
                )
            sets.append(SubGroup(name, parent, wanted))
        elif wanted is not None:
            raise InvalidObject(
                f"{where} {field}.minSubGroup: sub-group {name!r} has no sub-groups under it "
                "(a leaf holds pods: give it minMember)",
                object=where,
                field=f"{field}.minSubGroup",
            )
        else:
            leaves.append((name, parent, 1 if members is None else members, None))
    try:
        root = link(leaves, [(s.name, s.parent, s.min_sub_group) for s in sets], min_sub_group)
    except TreeError as error:
        at = index.get(error.sub_group)
        field = "spec.minSubGroup" if at is None else f"spec.subGroups[{at}]"
        raise InvalidObject(f"{where} {field}: {error}", object=where, field=field) from None
    for name, need, count in short_sets(root):
        # the reference admits it with a warning: such a set is never satisfied
        at = None if name is None else index.get(name)
        field = "spec.minSubGroup" if at is None else f"spec.subGroups[{at}].minSubGroup"
        what = "the job" if name is None else f"sub-group {name!r}"
        below = "top-level sub-group(s)" if name is None else "sub-group(s) under it"
        problems.append(
            _problem(
                ProblemKind.SUSPECT,
                group,
                field,
                f"{where} {field}: {what} needs {need} satisfied sub-groups, but has {count} "
                f"{below}",
                "read as given: it can never be satisfied, so the job is short there",
            )
        )
    # the pod sets in the order a walk of the spec lists them (children in spec order)
    children: dict[str | None, list[str]] = {}
    for name, parent, _, _ in read:
        children.setdefault(parent, []).append(name)
    minimum = {name: members for name, _, members, _ in leaves}
    ordered: list[tuple[str, int, str | None]] = []
    stack: list[str | None] = [None]
    while stack:
        current = stack.pop()
        if current is not None and current not in parents:
            ordered.append((current, minimum[current], read[index[current]][1]))
        stack.extend(reversed(children.get(current, [])))
    return Tree(ordered, sets, min_sub_group)


class JobReading(NamedTuple):
    """What every pod group of one snapshot is read with."""

    classes: Mapping[str, int]
    global_default: int | None
    never_classes: frozenset[str]
    by_uid: Mapping[str, Object]
    strict_times: bool
    kind_defaults: Mapping[str, str] | None
    threshold: int
    now: datetime | None


@attrs.frozen(kw_only=True)
class SnapshotJob:
    """One PodGroup of a snapshot, read: the job the Session sees and what it was read from.

    Attributes:
        job: the :class:`~minruntime.Job` (its ``preemptibility`` is the determined value).
        namespace, name: the PodGroup's.
        priority_class: the class it names, or ``None``.
        preemptibility: the determination, with its source and warnings.
        problems: what reading it skipped, ignored or assumed (:class:`Problem` values).
        left_out: the names of its pods that could not be read into it (a pod naming a
            sub-group the PodGroup lacks, or a set): a job with any is *marked*, its answers
            are for the pods that were read.
        core_pods: ``status.schedulingState.corePods``, the pods the reference scheduler
            (v0.18) protects in a semi-preemptible group, or ``None`` when absent.

    >>> from minruntime.kube import read_snapshot
    >>> snapshot = read_snapshot([
    ...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"name": "train", "namespace": "ml"},
    ...      "spec": {"queue": "team", "subGroups": [{"name": "workers", "minMember": 1}]}},
    ...     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml",
    ...      "annotations": {"pod-group-name": "train"},
    ...      "labels": {"kai.scheduler/subgroup-name": "chief"}}},
    ... ])
    >>> job = snapshot.find("ml/train")
    >>> job.left_out, job.task_count
    (('train-0',), 0)
    """

    job: Job
    namespace: str
    name: str
    priority_class: str | None
    preemptibility: PreemptibilityResult
    problems: tuple[Problem, ...] = ()
    left_out: tuple[str, ...] = ()
    core_pods: tuple[str, ...] | None = None

    @property
    def id(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def warnings(self) -> tuple[str, ...]:
        """The problems, as the sentences an operator reads."""
        return tuple(problem.message for problem in self.problems)

    @property
    def task_count(self) -> int:
        """Pods of every status."""
        return sum(len(pod_set.tasks) for pod_set in self.job.pod_sets)

    @property
    def active_count(self) -> int:
        """How many of its pods are active (they hold resources), as its pod sets counted
        them when they were built."""
        return sum(pod_set.active_count for pod_set in self.job.pod_sets)

    def count(self, *statuses: TaskStatus) -> int:
        """How many of its pods have one of ``statuses``."""
        return sum(
            1 for pod_set in self.job.pod_sets for task in pod_set.tasks if task.status in statuses
        )


_CORE_PODS: Final = "status.schedulingState.corePods"


def read_job(
    group: Object, members: Sequence[PodRecord], reading: JobReading, problems: list[Problem]
) -> SnapshotJob | None:
    """A PodGroup and its pods (in canonical order) as a job; ``None`` when the PodGroup
    cannot be read (left out, with a problem on ``problems``)."""
    own = _misspelt(group)
    shape = _plain_shape(group)
    try:
        if shape is None:
            shape = (
                get(group, "metadata.namespace", str, default=""),
                get(group, "metadata.name", str, required=True),
                get(group, "spec.queue", str, required=True),
                sub_group_tree(group, own),
            )
    except InvalidObject as error:
        dropped = f"; its {len(members)} pods are left out with it" if members else ""
        problems.extend(problem for problem in own if problem.kind is ProblemKind.SUSPECT)
        problems.append(
            _problem(ProblemKind.LEFT_OUT, group, error.field, str(error), f"left out{dropped}")
        )
        return None
    namespace, name, queue, tree = shape
    ref = ObjectRef.of(group)
    where = str(ref)
    metadata: Any = group["metadata"]
    spec: Any = group.get("spec")
    class_name = spec.get("priorityClassName") if type(spec) is dict else None
    if class_name is not None and type(class_name) is not str:
        class_name = lenient(own, group, "spec.priorityClassName", str)
    if class_name is not None and class_name in reading.classes:
        priority = reading.classes[class_name]
    else:
        if class_name is not None:
            fallback = (
                "global default"
                if reading.global_default is not None
                else f"fallback {DEFAULT_PRIORITY}"
            )
            own.append(
                _problem(
                    ProblemKind.ASSUMED,
                    ref,
                    "spec.priorityClassName",
                    f"{where}: PriorityClass {class_name!r} is not in the snapshot",
                    f"using the {fallback}",
                )
            )
        priority = (
            reading.global_default if reading.global_default is not None else DEFAULT_PRIORITY
        )

    tasks: dict[str, list[Task]] = {pod_set: [] for pod_set, _, _ in tree.pod_sets}
    left_out: list[str] = []
    kept: list[PodRecord] = []
    for pod in members:
        if pod.problems:
            own.extend(pod.problems)
        sub_group = pod.sub_group or DEFAULT_POD_SET
        pod_set = tasks.get(sub_group)
        if pod_set is None:
            field = f"metadata.labels[{SUBGROUP_LABEL!r}]"
            sets = ", ".join(map(repr, tasks))
            if pod.sub_group is None:
                why = f"missing, but {where} has sub-groups ({sets}): the pod must name one"
            elif any(node.name == sub_group for node in tree.sets):
                why = (
                    f"sub-group {sub_group!r} of {where} holds sub-groups, not pods (its pod "
                    f"sets: {sets})"
                )
            else:
                why = f"sub-group {_clipped(sub_group)!r} is not a sub-group of {where} (its pod sets: {sets})"
            own.append(
                _problem(
                    ProblemKind.LEFT_OUT,
                    pod.obj,
                    field,
                    f"{object_name(pod.obj)} {field}: {why}",
                    "left out of its job",
                )
            )
            left_out.append(pod.name)
            continue
        pod_set.append(Task(pod.name, pod.status, resources=pod.resources))
        kept.append(pod)
    if left_out:
        shown_pods = ", ".join(left_out[:5]) + (
            f" and {len(left_out) - 5} more" if len(left_out) > 5 else ""
        )
        own.append(
            _problem(
                ProblemKind.INCOMPLETE,
                ref,
                None,
                f"{where}: read without {len(left_out)} of its pods ({shown_pods}), left out: "
                "its answers are for the pods that are read",
            )
        )

    annotations = _plain_strings(metadata, "annotations")
    if annotations is None:
        annotations = string_entries(group, "metadata.annotations", own)
    labels = _plain_strings(metadata, "labels")
    if labels is None:
        labels = string_entries(group, "metadata.labels", own)
    first = kept[0] if kept else None
    own.extend(_conflicting_preemptibility(group, kept))
    chain = owners(first.obj, reading.by_uid, own) if first is not None else []
    chain.append(
        Owner("PodGroup", name, group="scheduling.run.ai", labels=labels, annotations=annotations)
    )
    determined = determine_preemptibility(
        priority=priority,
        explicit=_explicit(group, spec, own),
        owners=chain,
        pod_labels=first.labels if first is not None else None,
        pod_annotations=first.annotations if first is not None else None,
        kind_defaults=reading.kind_defaults,
        threshold=reading.threshold,
    )
    legacy = determined.source is PreemptibilitySource.LEGACY_PRIORITY  # its last warning says so
    own.extend(
        _problem(
            ProblemKind.ASSUMED
            if legacy and i == len(determined.warnings) - 1
            else ProblemKind.IGNORED,
            ref,
            None,
            *_split(f"{where}: {warning}"),
        )
        for i, warning in enumerate(determined.warnings)
    )
    start = start_time(ref, annotations, strict=reading.strict_times, now=reading.now, problems=own)
    inputs = checkpoint_inputs(ref, annotations, reading.strict_times, own)
    inputs.update(
        delay_inputs(
            group,
            ref,
            annotations,
            chain,
            first.annotations if first is not None else None,
            first.obj if first is not None else None,
            class_name in reading.never_classes,
            reading.strict_times,
            reading.now,
            own,
        )
    )
    core_pods = _core_pods(group, own)
    try:
        job = Job(
            f"{namespace}/{name}" if namespace else name,
            queue,
            priority=priority,
            preemptibility=determined.value,
            start_time=start,
            pod_sets=[
                PodSet(pod_set, min_available=minimum, tasks=tasks[pod_set], parent=parent)
                for pod_set, minimum, parent in tree.pod_sets
            ],
            inputs=JobInputs(**inputs) if inputs else None,
            sub_groups=tree.sets,
            min_sub_group=tree.min_sub_group,
            core_pods=core_pods,
        )
    except MinRuntimeError as error:  # e.g. two pods of one name
        problems.append(_problem(ProblemKind.LEFT_OUT, ref, None, f"{where}: {error}", "left out"))
        return None
    return SnapshotJob(
        job=job,
        namespace=namespace,
        name=name,
        priority_class=class_name,
        preemptibility=determined,
        problems=tuple(own),
        left_out=tuple(left_out),
        core_pods=core_pods,
    )


def _misspelt(group: Object) -> list[Problem]:
    """The misspelt fields of a PodGroup's ``spec`` and of its sub-group entries."""
    spec = group.get("spec")
    if type(spec) is not dict:
        return []
    found = misspelt_fields(group, "spec", spec, POD_GROUP_SPEC_FIELDS)
    entries = spec.get("subGroups")
    if type(entries) is list:
        for i, entry in enumerate(entries):
            found += misspelt_fields(group, f"spec.subGroups[{i}]", entry, SUB_GROUP_FIELDS)
    return found


def _plain_shape(group: Object) -> tuple[str, str, str, Tree] | None:
    """A well-formed PodGroup without sub-groups, read by direct look-ups: (namespace, name,
    queue, its one-pod-set tree); ``None`` for anything else (the careful path reads it)."""
    try:
        metadata = group["metadata"]
        spec = group["spec"]
        name = metadata["name"]
        namespace = metadata.get("namespace", "")
        queue = spec["queue"]
        minimum = spec.get("minMember", 1)
        if (
            type(name) is str
            and name
            and type(namespace) is str
            and type(queue) is str
            and queue
            and type(minimum) is int
            and 0 <= minimum <= INT32_MAX
            and "subGroups" not in spec
            and "minSubGroup" not in spec
        ):
            return namespace, name, queue, Tree([(DEFAULT_POD_SET, minimum, None)], [], None)
    except (KeyError, TypeError, AttributeError):
        pass
    return None


def _plain_strings(metadata: Any, key: str) -> Mapping[str, str] | None:
    """Labels or annotations that are all strings, as they are; ``None`` otherwise."""
    value = metadata.get(key) if type(metadata) is dict else None
    if value is None and type(metadata) is dict:
        return {}
    if type(value) is dict and all(type(k) is str and type(v) is str for k, v in value.items()):
        return value
    return None


def _explicit(group: Object, spec: Any, problems: list[Problem]) -> str | None:
    value = spec.get("preemptibility") if type(spec) is dict else None
    if value is None or type(value) is str:
        return value
    return lenient(problems, group, "spec.preemptibility", str)  # type: ignore[no-any-return]


def _core_pods(group: Object, problems: list[Problem]) -> tuple[str, ...] | None:
    """``status.schedulingState.corePods`` (the reference's v0.18): the pods it protects, or
    ``None`` when absent; a value that is not a list of names is ignored with a problem."""
    status = group.get("status")
    if not status or (type(status) is dict and status.get("schedulingState") is None):
        return None
    value = lenient(problems, group, _CORE_PODS, list)
    if value is None:
        return None
    if not all(isinstance(item, str) for item in value):
        problems.append(
            _problem(
                ProblemKind.IGNORED,
                group,
                _CORE_PODS,
                f"{object_name(group)} {_CORE_PODS}: expected a list of pod names, got "
                f"{shown(value)[:60]}",
                "ignored",
            )
        )
        return None
    return tuple(value)


def _conflicting_preemptibility(group: Object, members: Sequence[PodRecord]) -> list[Problem]:
    """A problem when a group's pods carry different preemptibility labels or annotations: the
    first pod in canonical order decides, and the operator is told which pods disagree."""
    values: dict[str, list[str]] = {}
    for pod in members:
        value = pod.labels.get(PREEMPTIBILITY_KEY) or pod.annotations.get(PREEMPTIBILITY_KEY)
        if value:
            values.setdefault(value, []).append(_clipped(pod.name))
    if len(values) < 2:
        return []
    shown_values = "; ".join(
        f"{shown(value)[:40]} on {', '.join(pods[:3])}{' ...' * (len(pods) > 3)}"
        for value, pods in values.items()
    )
    return [
        _problem(
            ProblemKind.SUSPECT,
            group,
            None,
            f"{object_name(group)}: its pods disagree on {PREEMPTIBILITY_KEY} ({shown_values}); "
            "the first pod (by creation time, then name) decides",
        )
    ]

"""Pods: a Pod as a task of its pod group, and its owners (private; re-exported by the package).

Each pod is read once, into a :class:`PodRecord`. A well-formed pod (the common case, by the
hundred thousand) is read by direct look-ups; a pod with anything unexpected is read again by
the careful path, which names what it cannot use. Both give the same record for a good pod.
:class:`Members` keeps a snapshot's pods by pod group and reads each when its job is read; the
pods of a group are mostly alike, so a pod whose annotations and labels, or containers, equal
those of a pod of its group read before without a problem is read like it (:class:`Like`: the
same rules on the same values, evaluated once per group; a law in the tests holds it to the pod
read alone).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from minruntime._text import shown
from minruntime._time import to_ns
from minruntime.errors import InvalidObject, InvalidTimestamp
from minruntime.jobs import TaskStatus
from minruntime.kube._fields import Object, get, object_name, string_entries
from minruntime.kube._problems import Problem, ProblemKind, _problem
from minruntime.kube._resources import (
    GPU_FRACTION_ANNOTATION,
    GPU_MEMORY_ANNOTATION,
    NO_DEVICE_MEMORY,
    DeviceMemory,
    Irregular,
    fast_resources,
    held_resources,
    pod_resources,
)
from minruntime.preemptibility import Owner
from minruntime.resources import ONE_POD, Resources
from minruntime.starttime import parse_rfc3339

__all__ = [
    "POD_GROUP_ANNOTATION",
    "POD_ORDER",
    "SUBGROUP_LABEL",
    "Members",
    "PodRecord",
    "owners",
    "pod_task_status",
    "read_pod",
]

POD_GROUP_ANNOTATION: Final = "pod-group-name"
"""The pod annotation that names its PodGroup (in the pod's namespace)."""
SUBGROUP_LABEL: Final = "kai.scheduler/subgroup-name"
"""The pod label that names its sub-group (pod set) within the PodGroup."""
_PHASES: Final = {
    "Running": TaskStatus.RUNNING,
    "Succeeded": TaskStatus.SUCCEEDED,
    "Failed": TaskStatus.FAILED,
    "Unknown": TaskStatus.UNKNOWN,
}


class PodRecord(NamedTuple):
    """A pod as its pod group needs it: read once, sorted by :data:`POD_ORDER`."""

    timeless: bool
    """Whether the pod has no (readable) creation time: such pods come last."""
    created: int
    """The creation time in ns (0 without one)."""
    name: str
    namespace: str
    group: str
    sub_group: str | None
    status: TaskStatus
    resources: Resources
    """What its task holds (``docs/spec/kubernetes.md``, "Resources"): GPUs, CPU and memory
    where it holds any, and one pod."""
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    obj: Object
    problems: tuple[Problem, ...] = ()
    """What reading the pod ignored: its job carries them."""


class Like(NamedTuple):
    """What reading a pod found, for reading the other pods of its group: they are often
    alike (:func:`read_pod`)."""

    annotations: Mapping[str, str]
    labels: Mapping[str, str]
    group: str
    sub_group: str | None
    containers: object
    init_containers: object
    resources: Resources

    @classmethod
    def of(cls, record: PodRecord) -> Like:
        """What ``record`` (read without a problem) found."""
        spec = record.obj.get("spec")
        containers = init = _UNSEEN  # equal to nothing: another pod's containers are read
        shares = GPU_FRACTION_ANNOTATION in record.annotations or (
            GPU_MEMORY_ANNOTATION in record.annotations
        )
        if type(spec) is dict and not shares:  # what it holds is its containers' alone
            containers, init = spec.get("containers"), spec.get("initContainers")
        return cls(
            record.annotations,
            record.labels,
            record.group,
            record.sub_group,
            containers,
            init,
            record.resources,
        )


def pod_task_status(obj: Object) -> TaskStatus:
    """The task status of a Pod, from its phase and a few spec and metadata fields.

    ``Pending`` is ``Gated`` with scheduling gates, ``Bound`` once it has a node, else
    ``Pending``; ``Running``, ``Succeeded``, ``Failed`` and ``Unknown`` map to themselves; a pod
    being deleted (``metadata.deletionTimestamp``) that still holds a node is ``Releasing``. A
    pod without a phase is ``Pending``.

    Raises:
        InvalidObject: for a phase that is none of those, naming the pod and the field.

    >>> pod_task_status({"kind": "Pod", "metadata": {"name": "p", "deletionTimestamp": "x"},
    ...                  "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
    <TaskStatus.RELEASING: 'Releasing'>
    """
    phase = get(obj, "status.phase", str, default="Pending")
    node = get(obj, "spec.nodeName", str)
    deleting = get(obj, "metadata.deletionTimestamp", str) is not None
    gated = bool(get(obj, "spec.schedulingGates", list)) if phase == "Pending" else False
    status = _status(phase, node, deleting, gated)
    if status is None:
        raise InvalidObject(
            f"{object_name(obj)} status.phase: unknown phase {shown(phase)} (expected Pending, "
            "Running, Succeeded, Failed or Unknown)",
            object=object_name(obj),
            field="status.phase",
        )
    return status


def _status(phase: str, node: str | None, deleting: bool, gated: bool) -> TaskStatus | None:
    if phase == "Pending":
        if deleting and node:
            return TaskStatus.RELEASING
        if gated:
            return TaskStatus.GATED
        return TaskStatus.BOUND if node else TaskStatus.PENDING
    if phase == "Running" and deleting:
        return TaskStatus.RELEASING
    return _PHASES.get(phase)


def creation_ns(text: object, times: dict[object, int | None]) -> int | None:
    """A creation time in ns (``None`` when absent or unreadable), through a per-read cache:
    pods of one job are often created in the same second."""
    if not isinstance(text, str):
        return None
    try:
        return times[text]
    except KeyError:
        pass
    try:
        value: int | None = to_ns(parse_rfc3339(text), "metadata.creationTimestamp")
    except InvalidTimestamp:
        value = None
    times[text] = value
    return value


def read_pod(
    pod: Object,
    times: dict[object, int | None],
    strict: bool,
    problems: list[Problem],
    *,
    amounts: dict[object, float] | None = None,
    held: dict[tuple[float, float, float], Resources] | None = None,
    devices: DeviceMemory = NO_DEVICE_MEMORY,
    like: Like | None = None,
) -> PodRecord | None:
    """A pod that names a pod group, read once; ``None`` for a pod that names none (not a
    member of any job: ignored in silence) or that cannot be read (left out, with a problem).

    ``times`` and ``amounts`` cache the creation times and quantities of one read (their texts
    repeat), ``held`` what its pods hold (:func:`held_resources`); ``devices``, the nodes' GPU
    memory, counts a ``gpu-memory`` share. ``like``: a pod of the same group read before without
    a problem: where this pod's annotations and labels, or its containers, equal that pod's,
    their reading is that pod's (the same rules on the same values, evaluated once).
    """
    try:  # the fast path: a well-formed pod, read by direct look-ups
        # an absent field is its default; any other value of the wrong type, or empty where
        # the careful path refuses it (a phase of ""), goes to the careful path, which names it
        metadata = pod["metadata"]
        annotations = metadata.get("annotations")
        if annotations is None:
            annotations = {}
        labels = metadata.get("labels")
        if labels is None:
            labels = {}
        if (
            like is not None
            and type(annotations) is dict
            and type(labels) is dict
            and annotations == like.annotations
            and labels == like.labels
        ):  # the annotations and labels of a pod of its group read before: read alike
            group, sub_group = like.group, like.sub_group
        else:
            group = annotations.get(POD_GROUP_ANNOTATION)
            if not group:
                if type(annotations) is dict and group is None:
                    return None
                raise Irregular
            sub_group = labels.get(SUBGROUP_LABEL) or None
            if not (
                type(group) is str
                and type(annotations) is dict
                and type(labels) is dict
                and (sub_group is None or type(sub_group) is str)
            ):
                raise Irregular
            # every key and value a string, else a TypeError sends the pod to the careful path
            "".join([*annotations, *annotations.values(), *labels, *labels.values()])
        name = metadata["name"]
        namespace = metadata.get("namespace")
        if namespace is None:
            namespace = ""
        spec = pod.get("spec")
        if spec is None:
            spec = {}
        status = pod.get("status")
        phase = "Pending" if status is None else status.get("phase")
        if phase is None:
            phase = "Pending"
        node = spec.get("nodeName")
        deleting = metadata.get("deletionTimestamp") is not None
        if not (
            type(name) is str
            and name
            and type(namespace) is str
            and type(spec) is dict
            and type(phase) is str
            and (node is None or type(node) is str)
            and (not deleting or type(metadata["deletionTimestamp"]) is str)
            and GPU_FRACTION_ANNOTATION not in annotations
            and GPU_MEMORY_ANNOTATION not in annotations
        ):
            raise Irregular
        gates = spec.get("schedulingGates")
        state = _status(phase, node, deleting, bool(gates) and type(gates) is list)
        if state is None or (gates is not None and type(gates) is not list):
            raise Irregular
        if not spec:
            holds = ONE_POD
        elif (
            like is not None
            and spec.get("containers") == like.containers
            and spec.get("initContainers") == like.init_containers
        ):  # the containers of a pod of its group read before: they hold alike
            holds = like.resources
        else:
            holds = fast_resources(
                spec, {} if amounts is None else amounts, {} if held is None else held
            )
        created = metadata.get("creationTimestamp")
        ns = times.get(created, _UNSEEN) if type(created) is str else None
        if ns is _UNSEEN:
            ns = creation_ns(created, times)
        return _new_record(  # PodRecord(...) without its Python-level __new__: pods are many
            PodRecord,
            (
                ns is None,
                ns or 0,
                name,
                namespace,
                group,
                sub_group,
                state,
                holds,
                labels,
                annotations,
                pod,
                (),
            ),
        )
    except (Irregular, KeyError, TypeError, AttributeError):
        own: list[Problem] = []
        record = _read_pod_carefully(pod, times, strict, devices, own)
        if record is None or record.group == "":
            problems.extend(own)
            return None
        return record._replace(problems=tuple(own))


_new_record: Final = tuple.__new__
POD_ORDER: Final = operator.attrgetter("timeless", "created", "name")
"""The canonical order of a pod group's pods: by creation time (pods without one last), then
by name."""
_UNSEEN: Any = object()
"""Not yet in the creation-time cache."""


def _read_pod_carefully(
    pod: Object,
    times: dict[object, int | None],
    strict: bool,
    devices: DeviceMemory,
    problems: list[Problem],
) -> PodRecord | None:
    annotations = string_entries(pod, "metadata.annotations", problems)
    group = annotations.get(POD_GROUP_ANNOTATION)
    if not group:
        return None
    try:
        name = get(pod, "metadata.name", str, required=True)
        namespace = get(pod, "metadata.namespace", str, default="")
        status = pod_task_status(pod)
    except InvalidObject as error:
        problems.append(_problem(ProblemKind.LEFT_OUT, pod, error.field, str(error), "left out"))
        return None
    labels = string_entries(pod, "metadata.labels", problems)
    holds = held_resources(pod_resources(pod, annotations, devices, strict, problems))
    metadata = pod.get("metadata")
    created = metadata.get("creationTimestamp") if isinstance(metadata, Mapping) else None
    ns = creation_ns(created, times)
    return PodRecord(
        ns is None,
        ns or 0,
        name,
        namespace,
        group,
        labels.get(SUBGROUP_LABEL) or None,
        status,
        holds,
        labels,
        annotations,
        pod,
    )


class Members:
    """The pods of each pod group of a snapshot, each read when its pod group's job is.

    A pod's record lives only while its job is read: at cluster scale, a record for each of
    hundreds of thousands of pods held at once costs the collector more than reading them
    does. What reading a pod adds to the snapshot's problems goes where reading the pods in the
    order of the input would have put it: :meth:`placed` puts it there.

    Args:
        groups: the key (namespace, name) of each pod group of the snapshot.
        pods: the snapshot's pods, in the order of the input.
        keys: for each pod, (namespace, pod group) where its metadata names them plainly, else
            ``None`` (:attr:`~minruntime.kube._objects.Admitted.groups`).
        marks: for each pod, how many problems the snapshot had when the pod was met.
        times: the creation-time cache of this read.
        strict: an unreadable amount is an error (the reader's ``strict_times``).
        devices: the nodes' GPU memory, for a ``gpu-memory`` share.
    """

    def __init__(
        self,
        groups: Iterable[tuple[str, str]],
        pods: Sequence[Object],
        keys: Sequence[tuple[str, str] | None],
        marks: Sequence[int],
        times: dict[object, int | None],
        strict: bool,
        devices: DeviceMemory = NO_DEVICE_MEMORY,
    ) -> None:
        self._pods, self._marks, self._times, self._strict = pods, marks, times, strict
        self._devices = devices
        self._amounts: dict[object, float] = {}  # the quantities of this read, each read once
        self._held: dict[tuple[float, float, float], Resources] = {}  # each holding made once
        self._late: list[tuple[int, int, list[Problem]]] = []  # (mark, pod, its problems)
        self._early: dict[int, PodRecord] = {}  # the few pods read before their job is
        self._by_group: dict[tuple[str, str], list[int]] = {key: [] for key in groups}
        self.strays: list[PodRecord] = []
        """The pods that name a pod group the snapshot does not hold, in input order."""
        by_group = self._by_group
        for i, key in enumerate(keys):
            if key is None:  # not a plain member: read now, to tell what it is a member of
                record = self._record(i)
                if record is None:
                    continue
                self._early[i] = record
                key = (record.namespace, record.group)
            listed = by_group.get(key)
            if listed is None:
                record = self._early.pop(i, None) or self._record(i)
                if record is not None:
                    self.strays.append(record)
                continue
            listed.append(i)

    def of(self, group: tuple[str, str]) -> list[PodRecord]:
        """The pods of the pod group ``group`` (namespace, name), read, in canonical order
        (:data:`POD_ORDER`: nothing depends on the order of the input)."""
        records = []
        like = None
        for i in self._by_group.get(group, ()):
            record = self._early.pop(i, None) or self._record(i, like)
            if record is not None:
                records.append(record)
                if like is None and not record.problems:
                    like = Like.of(record)
        records.sort(key=POD_ORDER)
        return records

    def placed(self, problems: list[Problem]) -> list[Problem]:
        """``problems`` with what reading the pods added, each where its pod was met."""
        if not self._late:
            return problems
        self._late.sort(key=_MARK_AND_POD)
        placed: list[Problem] = []
        start = 0
        for mark, _, own in self._late:
            placed += problems[start:mark]
            placed += own
            start = mark
        placed += problems[start:]
        return placed

    def _record(self, i: int, like: Like | None = None) -> PodRecord | None:
        own: list[Problem] = []
        record = read_pod(
            self._pods[i],
            self._times,
            self._strict,
            own,
            amounts=self._amounts,
            held=self._held,
            devices=self._devices,
            like=like,
        )
        if own:
            self._late.append((self._marks[i], i, own))
        return record


_MARK_AND_POD: Final = operator.itemgetter(0, 1)


def owners(pod: Object, by_uid: Mapping[str, Object], problems: list[Problem]) -> list[Owner]:
    """The pod's owners present in the snapshot, nearest first, following controller refs."""
    found: list[Owner] = []
    seen: set[str] = set()
    current = pod
    while True:
        metadata = current.get("metadata")
        references = metadata.get("ownerReferences") if isinstance(metadata, Mapping) else None
        candidates = [r for r in references or () if isinstance(r, Mapping)]
        if not isinstance(references, list) or not candidates:
            return found
        controllers = [r for r in candidates if r.get("controller")]
        reference = (controllers or candidates)[0]
        uid = reference.get("uid")
        owner = by_uid.get(uid) if isinstance(uid, str) else None
        if owner is None or uid in seen:
            return found
        seen.add(uid)  # type: ignore[arg-type]
        owner_metadata = owner.get("metadata")
        name = owner_metadata.get("name") if isinstance(owner_metadata, Mapping) else None
        api_version = owner.get("apiVersion")
        found.append(
            Owner(
                str(owner.get("kind", "")),
                name if isinstance(name, str) else "",
                group=api_version.split("/")[0]
                if isinstance(api_version, str) and "/" in api_version
                else "",
                labels=string_entries(owner, "metadata.labels", problems),
                annotations=string_entries(owner, "metadata.annotations", problems),
            )
        )
        current = owner

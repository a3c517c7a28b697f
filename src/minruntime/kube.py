"""Reading Kubernetes objects as ``kubectl get ... -o json`` prints them.

A cluster snapshot is a list of objects: Queues (``scheduling.run.ai``), PodGroups, Pods,
PriorityClasses, the scheduler config (a ConfigMap holding it, or the bare document), a
SchedulingShard, and any owner objects (Jobs, PyTorchJobs ...) whose labels may carry a
preemptibility. :func:`read_snapshot` turns them into what a :class:`~minruntime.Session`
needs: a queue tree, a configuration and jobs.

Fields the library does not use are ignored. A field it needs and cannot read is an
:class:`~minruntime.InvalidObject` naming the object (``Kind/namespace/name``) and the field.
Nothing is dropped in silence: an object that looks like one the library reads but cannot be
(a missing or unknown ``apiVersion``, a kind in the wrong case, a duplicate, a queue that does
not exist, a misspelt Queue field ...) is an error or a warning, chosen per case in
``docs/decisions/nothing-dropped-in-silence.md``. A group's pods are read in a canonical order
(creation time, then name), so that no answer depends on the order of the input.

>>> snapshot = read_snapshot([
...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "team"},
...      "spec": {"reclaimMinRuntime": "30m"}},
...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
...      "metadata": {"name": "train", "namespace": "ml",
...                   "annotations": {"kai.scheduler/last-start-timestamp": "2026-11-22T11:50:00Z"}},
...      "spec": {"queue": "team", "minMember": 1}},
...     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml",
...      "annotations": {"pod-group-name": "train"}}, "status": {"phase": "Running"}},
... ])
>>> job = snapshot.find("ml/train")
>>> job.job.queue, job.job.priority, str(job.preemptibility.value), job.job.start_time.isoformat()
('team', 50, 'preemptible', '2026-11-22T11:50:00+00:00')
"""

from __future__ import annotations

import contextlib
import difflib
import io
import math
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, NamedTuple

import attrs

from minruntime._load import DocumentError, NoYAML, OutOfBounds, load_json, load_yaml
from minruntime._text import shown
from minruntime._time import to_ns
from minruntime._tree import TreeError, link
from minruntime.config import PLUGIN_NAME, Config
from minruntime.durations import MinRuntime
from minruntime.errors import (
    InvalidConfiguration,
    InvalidDuration,
    InvalidObject,
    InvalidQueueTree,
    InvalidTimestamp,
)
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
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    PREEMPTIBILITY_KEY,
    Owner,
    PreemptibilityResult,
    determine_preemptibility,
)
from minruntime.queues import ProtectionSettings, Queue, QueueTree
from minruntime.starttime import START_TIME_ANNOTATION, parse_rfc3339, parse_start_time

__all__ = [
    "CHECKPOINT_INTERVAL_ANNOTATION",
    "CHECKPOINT_RESTORE_ANNOTATION",
    "EVICTIONS_ANNOTATION",
    "LAST_CHECKPOINT_ANNOTATION",
    "LAST_EVICTION_ANNOTATION",
    "POD_GROUP_ANNOTATION",
    "PREEMPTION_DELAY_ANNOTATION",
    "REQUESTED_MIN_RUNTIME_ANNOTATION",
    "SUBGROUP_LABEL",
    "TASK_WEIGHT_ANNOTATION",
    "Snapshot",
    "SnapshotJob",
    "load_objects",
    "load_snapshot_archive",
    "pod_task_status",
    "read_priority_class",
    "read_queue",
    "read_snapshot",
]

LAST_CHECKPOINT_ANNOTATION: Final = "minruntime/last-checkpoint-timestamp"
"""PodGroup annotation: when the job last completed a checkpoint (RFC 3339)."""
CHECKPOINT_INTERVAL_ANNOTATION: Final = "minruntime/checkpoint-interval"
"""PodGroup annotation: how often the job checkpoints (a duration)."""
CHECKPOINT_RESTORE_ANNOTATION: Final = "minruntime/checkpoint-restore"
"""PodGroup annotation: how long the job restores after a start before it computes (a duration):
its first checkpoint of a run falls an interval after the restore."""
EVICTIONS_ANNOTATION: Final = "minruntime/eviction-timestamps"
"""PodGroup annotation: past evictions, comma-separated RFC 3339 times, or a bare count."""
REQUESTED_MIN_RUNTIME_ANNOTATION: Final = "minruntime/min-runtime"
"""PodGroup annotation: the job's own min-runtime request (a duration)."""
TASK_WEIGHT_ANNOTATION: Final = "minruntime/task-weight"
"""Pod annotation: the task's weight; without it, the pod's ``nvidia.com/gpu``, else 1."""
GPU_RESOURCE: Final = "nvidia.com/gpu"

PREEMPTION_DELAY_ANNOTATION: Final = "kai.scheduler/preemption-delay"
"""PodGroup, owner or pod annotation: the job's preemption delay (a duration), where the
PodGroup's ``spec.preemptionDelay`` does not give one."""
LAST_EVICTION_ANNOTATION: Final = "kai.scheduler/last-eviction-timestamp"
"""PodGroup annotation: when the scheduler last evicted the job (RFC 3339)."""

POD_GROUP_ANNOTATION: Final = "pod-group-name"
"""The pod annotation that names its PodGroup (in the pod's namespace)."""

SUBGROUP_LABEL: Final = "kai.scheduler/subgroup-name"
"""The pod label that names its sub-group (pod set) within the PodGroup."""

Object = Mapping[str, Any]


# -- loading ------------------------------------------------------------------------------------


def _flatten(value: object, origin: str) -> Iterator[Object]:
    if value is None:
        return
    if isinstance(value, list):
        for item in value:
            yield from _flatten(item, origin)
        return
    if not isinstance(value, Mapping):
        raise InvalidObject(
            f"{origin}: expected Kubernetes objects, found {type(value).__name__} {value!r:.60}",
            object=origin,
        )
    kind = value.get("kind")
    kind_text = kind if isinstance(kind, str) else ""
    if kind_text.lower().endswith("list") and not kind_text.endswith("List") and "items" in value:
        raise InvalidObject(
            f"{origin}: {_name(value)} kind: {shown(kind)[:60]} is not a kind (kinds are "
            f"case-sensitive: expected {kind_text[:-4] + 'List'!r})",
            object=_name(value),
            field="kind",
        )
    if isinstance(kind, str) and kind.endswith("List") and "items" in value:
        items = value["items"]
        if items is not None and not isinstance(items, list):
            raise InvalidObject(
                f"{origin}: {_name(value)} items: expected a list of objects, got "
                f"{type(items).__name__}",
                object=_name(value),
                field="items",
            )
        yield from _flatten(items, origin)
        return
    yield value


def load_objects(text: str, *, origin: str = "<input>") -> list[Object]:
    """Parse a snapshot's text: JSON (one object, a ``List``, or an array), or a YAML stream.

    YAML needs PyYAML (``pip install PyYAML``). ``List`` objects are flattened.
    Hostile text costs bounded work: nesting, alias expansion and the size of numbers are
    bounded, and non-finite numbers are refused (see :mod:`minruntime._load`).

    Raises:
        InvalidObject: for text that is neither, or out of those bounds, naming ``origin``.

    >>> [o["kind"] for o in load_objects('{"kind": "List", "items": [{"kind": "Queue"}]}')]
    ['Queue']
    """
    stripped = text.lstrip()
    if not stripped:
        return []
    json_error: DocumentError | None = None
    if stripped[0] in "[{":
        try:
            return list(_flatten(load_json(text), origin))
        except OutOfBounds as error:  # YAML would refuse it too: say why once
            raise InvalidObject(f"{origin}: {error}", object=origin) from None
        except DocumentError as error:
            json_error = error
    try:
        documents = load_yaml(text)
    except NoYAML:
        if json_error is not None:
            raise InvalidObject(f"{origin}: not valid JSON: {json_error}", object=origin) from None
        raise InvalidObject(
            f"{origin}: not JSON; reading YAML needs PyYAML: pip install PyYAML",
            object=origin,
        ) from None
    except OutOfBounds as error:
        raise InvalidObject(f"{origin}: {error}", object=origin) from None
    except DocumentError as error:
        detail = f"not valid JSON ({json_error}) nor YAML" if json_error else "not valid YAML"
        raise InvalidObject(f"{origin}: {detail}: {error}", object=origin) from None
    return list(_flatten(documents, origin))


_ARCHIVE_KINDS: Final = {
    "queues": ("scheduling.run.ai/v2", "Queue"),
    "podGroups": ("scheduling.run.ai/v2alpha2", "PodGroup"),
    "pods": ("v1", "Pod"),
    "priorityClasses": ("scheduling.k8s.io/v1", "PriorityClass"),
    "configMaps": ("v1", "ConfigMap"),
}
_MAX_ARCHIVE_MEMBER: Final = 1 << 30


def load_snapshot_archive(data: bytes, *, origin: str = "<input>") -> list[Object]:
    """The objects of the reference scheduler's own snapshot: the ZIP file its ``/get-snapshot``
    endpoint returns, holding one ``snapshot.json``.

    ``rawObjects`` holds lists keyed by what they are (``queues``, ``podGroups``, ``pods``,
    ``priorityClasses``, ``configMaps``; other keys, such as ``nodes``, are not read); an object
    in them that lacks ``apiVersion`` or ``kind`` gets the list's. ``config``, the scheduler's
    configuration, is read as the scheduler config, and then the ConfigMaps are not searched
    for another. The member is read up to 2^30 bytes, so that a ZIP bomb is an error too.

    Raises:
        InvalidObject: for data that is not such an archive, naming ``origin``.

    >>> import io, json, zipfile
    >>> buffer = io.BytesIO()
    >>> with zipfile.ZipFile(buffer, "w") as archive:
    ...     archive.writestr("snapshot.json", json.dumps({"rawObjects": {
    ...         "queues": [{"metadata": {"name": "team"}}], "nodes": [{"metadata": {"name": "n1"}}]}}))
    >>> [(o["kind"], o["metadata"]["name"]) for o in load_snapshot_archive(buffer.getvalue())]
    [('Queue', 'team')]
    """

    def fail(why: str) -> InvalidObject:
        return InvalidObject(f"{origin}: {why}", object=origin)

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [
                m for m in archive.infolist() if m.filename.rsplit("/", 1)[-1] == "snapshot.json"
            ]
            if len(members) != 1:
                raise fail(f"expected one snapshot.json in the archive, found {len(members)}")
            with archive.open(members[0]) as member:
                raw = member.read(_MAX_ARCHIVE_MEMBER + 1)
    except InvalidObject:
        raise
    # A damaged archive fails in the zipfile module (BadZipFile, EOFError, OSError), in zlib (a
    # corrupt deflate stream), or in decoding a member's name (ValueError).
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
    ) as error:
        raise fail(f"not a readable ZIP archive ({error})") from None
    except RuntimeError as error:  # an encrypted member
        raise fail(f"cannot read the archive ({error})") from None
    if len(raw) > _MAX_ARCHIVE_MEMBER:
        raise fail(f"snapshot.json is larger than {_MAX_ARCHIVE_MEMBER} bytes")
    try:
        document = load_json(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise fail(
            f"snapshot.json: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    except DocumentError as error:
        raise fail(f"snapshot.json: {error}") from None
    raw_objects = document.get("rawObjects") if isinstance(document, Mapping) else None
    if not isinstance(raw_objects, Mapping):
        raise fail("snapshot.json: expected an object with rawObjects (the reference's snapshot)")
    config = document.get("config")
    objects: list[Object] = []
    for key, (api_version, kind) in _ARCHIVE_KINDS.items():
        if key == "configMaps" and _is_scheduler_config(config):
            continue  # the scheduler's own configuration is in the snapshot: that one counts
        listed = raw_objects.get(key)
        if listed is None:
            continue
        if not isinstance(listed, list):
            raise fail(
                f"snapshot.json rawObjects.{key}: expected a list, got {type(listed).__name__}"
            )
        for obj in listed:
            if isinstance(obj, Mapping):
                obj = {"apiVersion": api_version, "kind": kind, **obj}
            objects.extend(_flatten(obj, origin))
    if _is_scheduler_config(config):
        objects.append(config)
    return objects


# -- field access -------------------------------------------------------------------------------


def _name(obj: Object) -> str:
    kind = obj.get("kind") or "object"
    metadata = obj.get("metadata")
    if not isinstance(metadata, Mapping):
        return _clipped(kind)
    namespace = metadata.get("namespace")
    name = metadata.get("name")
    parts = [kind] + ([namespace] if namespace else []) + [name or "<unnamed>"]
    return "/".join(_clipped(part) for part in parts)


def _clipped(part: object) -> str:
    """A part of an object's name for a message: text, at most 80 characters."""
    text = part if isinstance(part, str) else shown(part)
    return text if len(text) <= 80 else f"{text[:60]}...({len(text)} characters)"


_TYPE_NAMES: Final = {
    str: "a string",
    int: "an integer",
    bool: "a boolean",
    list: "a list",
    Mapping: "an object",
}


_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1


def _get(
    obj: Object, path: str, expected: type, *, required: bool = False, default: Any = None
) -> Any:
    """The value at a dotted field path, checked against ``expected``; ``default`` if absent."""
    current: Any = obj
    walked: list[str] = []
    for key in path.split("."):
        if not isinstance(current, Mapping):
            raise InvalidObject(
                f"{_name(obj)} {'.'.join(walked)}: expected an object, got {current!r:.60}",
                object=_name(obj),
                field=".".join(walked),
            )
        walked.append(key)
        current = current.get(key)
        if current is None:
            if required:
                raise InvalidObject(
                    f"{_name(obj)} {path}: missing (required)", object=_name(obj), field=path
                )
            return default
    wrong = not isinstance(current, expected) or (expected is int and isinstance(current, bool))
    if not wrong and expected is int and not _INT32_MIN <= current <= _INT32_MAX:
        raise InvalidObject(
            f"{_name(obj)} {path}: {shown(current)} is out of range (expected a 32-bit integer, "
            f"{_INT32_MIN} to {_INT32_MAX})",
            object=_name(obj),
            field=path,
        )
    if wrong:
        raise InvalidObject(
            f"{_name(obj)} {path}: expected {_TYPE_NAMES.get(expected, expected.__name__)}, "
            f"got {shown(current)[:60]}",
            object=_name(obj),
            field=path,
        )
    return current


def _string_map(obj: Object, path: str) -> dict[str, str]:
    mapping = _get(obj, path, Mapping, default={})
    bad = [key for key, value in mapping.items() if not isinstance(value, str)]
    if bad:
        raise InvalidObject(
            f"{_name(obj)} {path}[{bad[0]!r}]: expected a string, got {mapping[bad[0]]!r:.60}",
            object=_name(obj),
            field=f"{path}[{bad[0]!r}]",
        )
    return dict(mapping)


def _duration(obj: Object, path: str, *, allow_never: bool = True) -> MinRuntime | None:
    raw = _get(obj, path, object)
    if raw is None:
        return None
    try:
        return MinRuntime.parse(raw, allow_never=allow_never)
    except InvalidDuration as error:
        message = str(error).replace(
            "invalid duration", f"{_name(obj)} {path}: invalid duration", 1
        )
        raise InvalidObject(message, object=_name(obj), field=path) from None


# -- single objects -----------------------------------------------------------------------------


def read_queue(obj: Object) -> Queue:
    """A Queue object (``scheduling.run.ai/v2``) as a :class:`~minruntime.Queue`.

    Reads ``metadata.name``, ``spec.parentQueue``, ``spec.preemptMinRuntime`` and
    ``spec.reclaimMinRuntime`` (every duration spelling; ``-1`` or ``never`` for never), and
    the checkpoint-aware settings of docs/spec/beyond-min-runtime.md when present:
    ``spec.preemptCheckpointGrace``, ``spec.reclaimCheckpointGrace``, ``spec.maxEvictions``,
    ``spec.evictionWindow``, ``spec.maxJobMinRuntime``.

    >>> read_queue({"kind": "Queue", "metadata": {"name": "dev"},
    ...             "spec": {"parentQueue": "org", "preemptMinRuntime": "-1"}})
    Queue(name='dev', parent='org', preempt_min_runtime=MinRuntime('never'), reclaim_min_runtime=None, protections=ProtectionSettings(preempt_checkpoint_grace=None, reclaim_checkpoint_grace=None, max_evictions=None, eviction_window=None, max_job_min_runtime=None))
    """
    name = _get(obj, "metadata.name", str, required=True)
    max_evictions = _get(obj, "spec.maxEvictions", int)
    if max_evictions is not None and max_evictions < 0:
        raise InvalidObject(
            f"{_name(obj)} spec.maxEvictions: expected an integer >= 0, got {max_evictions}",
            object=_name(obj),
            field="spec.maxEvictions",
        )
    return Queue(
        name,
        _get(obj, "spec.parentQueue", str),
        preempt_min_runtime=_duration(obj, "spec.preemptMinRuntime"),
        reclaim_min_runtime=_duration(obj, "spec.reclaimMinRuntime"),
        protections=ProtectionSettings(
            preempt_checkpoint_grace=_duration(
                obj, "spec.preemptCheckpointGrace", allow_never=False
            ),
            reclaim_checkpoint_grace=_duration(
                obj, "spec.reclaimCheckpointGrace", allow_never=False
            ),
            max_evictions=max_evictions,
            eviction_window=_duration(obj, "spec.evictionWindow"),
            max_job_min_runtime=_duration(obj, "spec.maxJobMinRuntime"),
        ),
    )


def read_priority_class(obj: Object) -> tuple[str, int, bool]:
    """A PriorityClass as ``(name, value, global_default)``.

    >>> read_priority_class({"kind": "PriorityClass", "metadata": {"name": "train"}, "value": 50})
    ('train', 50, False)
    """
    name = _get(obj, "metadata.name", str, required=True)
    value = _get(obj, "value", int, required=True)
    global_default = _get(obj, "globalDefault", bool, default=False)
    return name, value, global_default


def pod_task_status(obj: Object) -> TaskStatus:
    """The task status of a Pod, from its phase and a few spec and metadata fields.

    ``Pending`` is ``Gated`` with scheduling gates, ``Bound`` once it has a node, else
    ``Pending``; ``Running``, ``Succeeded``, ``Failed`` and ``Unknown`` map to themselves; a pod
    being deleted (``metadata.deletionTimestamp``) that still holds a node is ``Releasing``. A
    pod without a phase is ``Pending``.

    >>> pod_task_status({"kind": "Pod", "metadata": {"name": "p", "deletionTimestamp": "x"},
    ...                  "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
    <TaskStatus.RELEASING: 'Releasing'>
    """
    phase = _get(obj, "status.phase", str, default="Pending")
    node = _get(obj, "spec.nodeName", str)
    deleting = _get(obj, "metadata.deletionTimestamp", str) is not None
    if phase == "Pending":
        if deleting and node:
            return TaskStatus.RELEASING
        if _get(obj, "spec.schedulingGates", list):
            return TaskStatus.GATED
        return TaskStatus.BOUND if node else TaskStatus.PENDING
    if phase == "Running":
        return TaskStatus.RELEASING if deleting else TaskStatus.RUNNING
    if phase in ("Succeeded", "Failed", "Unknown"):
        return TaskStatus(phase)
    raise InvalidObject(
        f"{_name(obj)} status.phase: unknown phase {shown(phase)} (expected Pending, Running, "
        "Succeeded, Failed or Unknown)",
        object=_name(obj),
        field="status.phase",
    )


# -- the snapshot -------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class SnapshotJob:
    """One PodGroup of a snapshot, read: the job the Session sees and what it was read from.

    Attributes:
        job: the :class:`~minruntime.Job` (its ``preemptibility`` is the determined value).
        namespace, name: the PodGroup's.
        priority_class: the class it names, or ``None``.
        preemptibility: the determination, with its source and warnings.
        warnings: what reading it skipped or assumed.
    """

    job: Job
    namespace: str
    name: str
    priority_class: str | None
    preemptibility: PreemptibilityResult
    warnings: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def task_count(self) -> int:
        """Pods of every status."""
        return sum(len(pod_set.tasks) for pod_set in self.job.pod_sets)

    def count(self, *statuses: TaskStatus) -> int:
        """How many of its pods have one of ``statuses``."""
        return sum(
            1 for pod_set in self.job.pod_sets for task in pod_set.tasks if task.status in statuses
        )


@attrs.frozen(kw_only=True)
class Snapshot:
    """A cluster snapshot, read: the tree, the configuration, the jobs and the warnings."""

    tree: QueueTree
    config: Config
    jobs: tuple[SnapshotJob, ...]
    priority_classes: Mapping[str, int]
    global_default_priority: int | None = None
    warnings: tuple[str, ...] = ()

    def find(self, reference: str) -> SnapshotJob:
        """The job ``namespace/name``, or ``name`` when that name is unique.

        Raises:
            LookupError: when there is no such job, or a bare name is ambiguous.
        """
        matches = [
            job
            for job in self.jobs
            if job.id == reference or ("/" not in reference and job.name == reference)
        ]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise LookupError(f"no pod group {shown(reference)} in the snapshot")
        ids = ", ".join(job.id for job in matches)
        raise LookupError(
            f"pod group name {shown(reference)} is ambiguous: {ids}; use namespace/name"
        )


def _group(obj: Object) -> str:
    api_version = obj.get("apiVersion")
    return api_version.split("/")[0] if isinstance(api_version, str) and "/" in api_version else ""


def _is_scheduler_config(document: object) -> bool:
    return isinstance(document, Mapping) and isinstance(document.get("tiers"), list)


def _config_map_document(obj: Object) -> tuple[str, Object] | None:  # (field, document)
    """The scheduler config a ConfigMap holds, if it holds one.

    An entry that mentions ``tiers`` (the key every scheduler config has) but cannot be read as
    one (not JSON or YAML, out of bounds, or ``tiers`` not a list) is an error naming the entry,
    not a ConfigMap that holds no config.
    """
    data = _get(obj, "data", Mapping, default={})
    for key, text in data.items():
        if not isinstance(text, str):
            continue
        field = f"data[{shown(key)}]"
        try:
            document: object = load_json(text)
        except DocumentError as json_error:
            try:
                documents = load_yaml(text)
                document = documents[0] if len(documents) == 1 else None
            except NoYAML:
                document, error = None, json_error
            except DocumentError as yaml_error:
                document, error = None, yaml_error
            else:
                error = DocumentError("not a single JSON or YAML document")
        else:
            error = DocumentError("not a scheduler config")
        if _is_scheduler_config(document):
            return field, document  # type: ignore[return-value]
        if isinstance(document, Mapping) and "tiers" in document:
            error = DocumentError(f"tiers: expected a list, got {type(document['tiers']).__name__}")
        elif document is not None or "tiers" not in text:
            continue  # read, and not a scheduler config; or unreadable and not one either
        raise InvalidObject(
            f"{_name(obj)} {field}: looks like a scheduler config (it mentions 'tiers') but "
            f"cannot be read: {error}",
            object=_name(obj),
            field=field,
        )
    return None


def _shard_arguments(obj: Object) -> dict[str, object]:
    arguments: dict[str, object] = {}
    for key, argument in (
        ("preemptMinRuntime", "defaultPreemptMinRuntime"),
        ("reclaimMinRuntime", "defaultReclaimMinRuntime"),
    ):
        value = _get(obj, f"spec.minRuntime.{key}", str)
        if value is not None:
            arguments[argument] = value
    plugin = _get(obj, f"spec.plugins.{PLUGIN_NAME}", Mapping)
    if plugin is not None and plugin.get("arguments") is not None:
        # An override's arguments fully replace the plugin's default arguments.
        arguments = dict(_get(obj, f"spec.plugins.{PLUGIN_NAME}.arguments", Mapping))
    return arguments


def _read_config(
    documents: list[tuple[Object, str, Object]], shards: list[Object], lenient: bool
) -> Config:
    """The configuration: a scheduler config document wins over a SchedulingShard."""
    if len(documents) > 1:
        names = ", ".join(f"{_name(obj)} {field}".strip() for obj, field, _ in documents)
        raise InvalidObject(f"more than one scheduler config in the snapshot: {names}")
    if len(shards) > 1 and not documents:
        names = ", ".join(_name(shard) for shard in shards)
        raise InvalidObject(f"more than one SchedulingShard in the snapshot: {names}")
    ignored = (
        [f"{_name(shard)} ignored: the scheduler config takes precedence" for shard in shards]
        if documents
        else []
    )
    try:
        if documents:
            obj, field, document = documents[0]
            origin = f"{_name(obj)} {field}".strip()
            config = Config.from_scheduler_config(document, lenient=lenient, origin=origin)
        elif shards:
            obj = shards[0]
            origin = f"{_name(obj)} spec"
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
        name = _name(obj)
        where = error.origin or origin
        path = where[len(name) :].strip() if where.startswith(name) else where
        raise InvalidObject(str(error), object=name, field=path or None) from None
    return attrs.evolve(config, warnings=[*ignored, *config.warnings]) if ignored else config


def _owners(pod: Object, by_uid: Mapping[str, Object]) -> list[Owner]:
    """The pod's owners present in the snapshot, nearest first, following controller refs."""
    owners: list[Owner] = []
    seen: set[str] = set()
    current = pod
    while True:
        references = _get(current, "metadata.ownerReferences", list, default=[])
        candidates = [r for r in references if isinstance(r, Mapping)]
        if not candidates:
            return owners
        controllers = [r for r in candidates if r.get("controller")]
        reference = (controllers or candidates)[0]
        uid = reference.get("uid")
        owner = by_uid.get(uid) if isinstance(uid, str) else None
        if owner is None or uid in seen:
            return owners
        seen.add(uid)  # type: ignore[arg-type]
        owners.append(
            Owner(
                str(owner.get("kind", "")),
                str(_get(owner, "metadata.name", str, default="")),
                group=_group(owner),
                labels=_string_map(owner, "metadata.labels"),
                annotations=_string_map(owner, "metadata.annotations"),
            )
        )
        current = owner


class _Tree(NamedTuple):
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
            f"{_name(group)} {field}.{key}: expected an integer >= 0, got {shown(value)[:60]}",
            object=_name(group),
            field=f"{field}.{key}",
        )
    if value > _INT32_MAX:
        raise InvalidObject(
            f"{_name(group)} {field}.{key}: {shown(value)} is out of range "
            f"(expected a 32-bit integer, {_INT32_MIN} to {_INT32_MAX})",
            object=_name(group),
            field=f"{field}.{key}",
        )
    return value


def _sub_group_tree(group: Object, warnings: list[str]) -> _Tree:
    """The sub-group tree of a PodGroup (docs/spec/sub-group-trees.md): ``spec.subGroups`` with
    ``name``, ``parent``, and ``minMember`` (a leaf, default 1) or ``minSubGroup`` (a set); the
    job's own ``spec.minSubGroup``. Without sub-groups, one pod set of ``spec.minMember``."""
    where = _name(group)
    entries = _get(group, "spec.subGroups", list, default=[])
    min_member = _get(group, "spec.minMember", int)
    min_sub_group = _get(group, "spec.minSubGroup", int)
    if min_member is not None and min_member < 0:
        raise InvalidObject(
            f"{where} spec.minMember: must be >= 0, got {min_member}",
            object=where,
            field="spec.minMember",
        )
    if min_sub_group is not None and min_sub_group < 0:
        raise InvalidObject(
            f"{where} spec.minSubGroup: must be >= 0, got {min_sub_group}",
            object=where,
            field="spec.minSubGroup",
        )
    if not entries:
        if min_sub_group is not None:
            warnings.append(f"{where}: spec.minSubGroup applies only with spec.subGroups; ignored")
        return _Tree([(DEFAULT_POD_SET, 1 if min_member is None else min_member, None)], [], None)
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
                warnings.append(
                    f"{where} {field}.minMember: sub-group {name!r} holds sub-groups, so its "
                    f"minMember {members} is not used (minSubGroup says how many of them it "
                    "needs; unset, all)"
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
        link(leaves, [(s.name, s.parent, s.min_sub_group) for s in sets], min_sub_group)
    except TreeError as error:
        at = index.get(error.sub_group)
        field = "spec.minSubGroup" if at is None else f"spec.subGroups[{at}]"
        raise InvalidObject(f"{where} {field}: {error}", object=where, field=field) from None
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
    return _Tree(ordered, sets, min_sub_group)


_MAX_WEIGHT: Final = 10**6
"""The largest weight (or GPU count) a pod may have; a larger one is refused where it is read."""
_DECIMAL: Final = re.compile(
    r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]{1,3})?|\.[0-9]+([eE][+-]?[0-9]{1,3})?"
)


def _amount(value: object, bound: float = _MAX_WEIGHT) -> float | None:
    """A weight or GPU count: a number or its ASCII decimal text, finite, 0..bound."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        if len(value) > 40 or not _DECIMAL.fullmatch(value):
            return None
        value = float(value)
    if isinstance(value, int):
        value = float(value) if value < 10**300 else math.inf
    if isinstance(value, float) and 0 <= value <= bound and math.isfinite(value):  # not NaN
        return value
    return None


def _pod_weight(pod: Object, strict: bool = True, warnings: list[str] | None = None) -> float:
    """A pod's weight: the annotation ``minruntime/task-weight``, else its GPUs, else 1.

    An unreadable annotation or GPU amount (not a number, or not finite, or above
    ``_MAX_WEIGHT``) is an error when ``strict``, else a warning and the fallback.
    """

    def unreadable(field: str, value: object, fallback: str) -> None:
        too_large = _amount(value, bound=math.inf) is not None
        message = (
            f"{_name(pod)} {field}: invalid {'weight' if fallback else 'GPU count'} "
            f"{shown(value)} (expected a number >= 0{f', at most {_MAX_WEIGHT}' * too_large})"
        )
        if strict or warnings is None:
            raise InvalidObject(message, object=_name(pod), field=field)
        warnings.append(f"{message}; {fallback or 'counted as 0'}")

    annotations = _string_map(pod, "metadata.annotations")
    text = annotations.get(TASK_WEIGHT_ANNOTATION)
    if text is not None:
        weight = _amount(text)
        if weight is not None:
            return weight
        unreadable(f"metadata.annotations[{TASK_WEIGHT_ANNOTATION!r}]", text, "ignored")
    gpus = 0.0
    containers = _get(pod, "spec.containers", list, default=[])
    for i, container in enumerate(containers):
        if not isinstance(container, Mapping):
            continue
        resources = container.get("resources")
        if not isinstance(resources, Mapping):
            continue
        for part in ("limits", "requests"):
            section = resources.get(part)
            amount = section.get(GPU_RESOURCE) if isinstance(section, Mapping) else None
            if amount is None:
                continue
            count = _amount(amount)
            if count is None:
                unreadable(f"spec.containers[{i}].resources.{part}[{GPU_RESOURCE!r}]", amount, "")
            else:
                gpus += count
            break  # the limit, when set, is the amount; else the request
    return gpus if gpus > 0 else 1.0


def _unreadable(group: Object, field: str, message: str, strict: bool, warnings: list[str]) -> None:
    """A PodGroup input that cannot be read: an error naming the object and the field when
    ``strict``, else a warning, and the value is ignored."""
    where = _name(group)
    if strict:
        raise InvalidObject(f"{where} {field}: {message}", object=where, field=field)
    warnings.append(f"{where} {field}: {message}; ignored")


def _checkpoint_inputs(
    group: Object, annotations: Mapping[str, str], strict: bool, warnings: list[str]
) -> dict[str, Any]:
    """The section 16 job inputs from PodGroup annotations; unreadable ones warn (or raise)."""
    inputs: dict[str, Any] = {}

    def unreadable(key: str, message: str) -> None:
        _unreadable(group, f"metadata.annotations[{key!r}]", message, strict, warnings)

    text = annotations.get(LAST_CHECKPOINT_ANNOTATION)
    if text:
        try:
            inputs["last_checkpoint"] = parse_rfc3339(text)
        except InvalidTimestamp as error:
            unreadable(LAST_CHECKPOINT_ANNOTATION, str(error))
    for key, name in (
        (CHECKPOINT_INTERVAL_ANNOTATION, "checkpoint_interval"),
        (CHECKPOINT_RESTORE_ANNOTATION, "checkpoint_restore"),
        (REQUESTED_MIN_RUNTIME_ANNOTATION, "requested_min_runtime"),
    ):
        text = annotations.get(key)
        if text:
            try:
                value = MinRuntime.parse(text, allow_never=False)
                if name == "checkpoint_interval" and not value:
                    raise InvalidDuration(f"invalid duration {shown(text)}: must be positive")
                inputs[name] = value
            except InvalidDuration as error:
                unreadable(key, str(error))
    text = annotations.get(EVICTIONS_ANNOTATION)
    if text:
        count = text.strip()
        if count.isascii() and count.isdigit():  # a bare count, where times are not kept
            if len(count) <= 9:
                inputs["evictions"] = int(count)
            else:
                unreadable(EVICTIONS_ANNOTATION, f"a count of {len(count)} digits (at most 9)")
        else:
            times = []
            for part in text.split(","):
                try:
                    times.append(parse_rfc3339(part.strip()))
                except InvalidTimestamp as error:
                    unreadable(EVICTIONS_ANNOTATION, str(error))
            inputs["evictions"] = tuple(times)
    return inputs


def _delay_inputs(
    group: Object,
    annotations: Mapping[str, str],
    owners: Sequence[Owner],
    pod: Object | None,
    never: bool,
    strict: bool,
    warnings: list[str],
) -> dict[str, Any]:
    """The section 17 inputs: the preemption delay (``spec.preemptionDelay``, else the
    annotation on the PodGroup, its pod's owners nearest first, or the pod; never for a
    PriorityClass with ``preemptionPolicy: Never``), the creation time and the last eviction.
    Unreadable values warn and are ignored (the reference does the same), or raise when strict."""
    inputs: dict[str, Any] = {}

    def unreadable(field: str, message: str) -> None:
        _unreadable(group, field, message, strict, warnings)

    sources: list[tuple[str, object]] = [
        ("spec.preemptionDelay", _get(group, "spec.preemptionDelay", object))
    ]
    key = PREEMPTION_DELAY_ANNOTATION
    sources.append((f"metadata.annotations[{key!r}]", annotations.get(key)))
    sources += [
        (f"annotation on {owner.kind}/{owner.name}", owner.annotations.get(key))
        for owner in owners
        if owner.kind != "PodGroup"
    ]
    if pod is not None:
        sources.append(
            (f"annotation on {_name(pod)}", _string_map(pod, "metadata.annotations").get(key))
        )
    for field, value in sources:
        if value is None or value == "":
            continue
        try:
            inputs["preemption_delay"] = MinRuntime.parse(value)
            break
        except InvalidDuration as error:
            unreadable(field, str(error))
    if never:
        inputs["preemption_delay"] = MinRuntime.NEVER
    for field, name in (
        ("metadata.creationTimestamp", "created"),
        (f"metadata.annotations[{LAST_EVICTION_ANNOTATION!r}]", "last_eviction"),
    ):
        text = (
            _get(group, field, object)
            if name == "created"
            else annotations.get(LAST_EVICTION_ANNOTATION)
        )
        if text is None or text == "":
            continue
        try:
            inputs[name] = parse_rfc3339(text)
        except InvalidTimestamp as error:
            unreadable(field, str(error))
    return inputs


_GROUP: Final = "scheduling.run.ai"
_VERSIONS: Final = {"Queue": "v2", "PodGroup": "v2alpha2"}
_KINDS: Final = {
    kind.lower(): kind
    for kind in ("Queue", "PodGroup", "Pod", "PriorityClass", "ConfigMap", "SchedulingShard")
}
_CORE_KINDS: Final = frozenset({"Pod", "PriorityClass", "ConfigMap"})
_QUEUE_SPEC_FIELDS: Final = frozenset(
    {
        # the reference's Queue CRD (scheduling.run.ai/v2)
        "displayName",
        "parentQueue",
        "preemptMinRuntime",
        "priority",
        "reclaimMinRuntime",
        "resources",
        # docs/spec/beyond-min-runtime.md
        "preemptCheckpointGrace",
        "reclaimCheckpointGrace",
        "maxEvictions",
        "evictionWindow",
        "maxJobMinRuntime",
    }
)
"""The fields of a Queue's ``spec`` the library knows; a near miss of one is warned about."""


def _is_read(obj: Object, warnings: list[str]) -> bool:
    """Whether the snapshot reader should look at ``obj``; what it cannot tell is said.

    The choices, per case, are in docs/decisions/nothing-dropped-in-silence.md: an object that
    is evidently meant as one the library reads but is mis-spelt is an error; one that may be
    another program's object, or lacks what only a hand-written file lacks, is a warning.
    """
    kind = obj.get("kind")
    api_version = obj.get("apiVersion")
    if kind is None or kind == "":
        if _is_scheduler_config(obj):
            return True
        warnings.append(f"{_name(obj)}: an object without a kind; ignored")
        return False
    if not isinstance(kind, str):
        raise InvalidObject(
            f"{_name(obj)} kind: expected a string, got {shown(kind)[:60]}",
            object=_name(obj),
            field="kind",
        )
    if api_version is not None and not isinstance(api_version, str):
        raise InvalidObject(
            f"{_name(obj)} apiVersion: expected a string, got {shown(api_version)[:60]}",
            object=_name(obj),
            field="apiVersion",
        )
    group = (api_version or "").rpartition("/")[0]
    meant = _KINDS.get(kind.lower())
    if meant is not None and meant != kind:
        ours = (
            not api_version
            or group.lower() == _GROUP
            or (meant in _CORE_KINDS and api_version.lower() in ("v1", "scheduling.k8s.io/v1"))
        )
        if ours:
            raise InvalidObject(
                f"{_name(obj)} kind: {kind!r} is not a kind (kinds are case-sensitive: "
                f"expected {meant!r})",
                object=_name(obj),
                field="kind",
            )
        return False
    if kind not in _VERSIONS:
        return True
    expected = f"{_GROUP}/{_VERSIONS[kind]}"
    if not api_version:
        warnings.append(f"{_name(obj)}: no apiVersion; read as {expected}")
        return True
    if api_version == expected:
        return True
    if group.lower() == _GROUP or api_version.lower() == _GROUP:
        raise InvalidObject(
            f"{_name(obj)} apiVersion: {shown(api_version)} is not one the library reads "
            f"(expected {expected!r})",
            object=_name(obj),
            field="apiVersion",
        )
    warnings.append(
        f"{_name(obj)}: apiVersion {shown(api_version)} is not the scheduler's ({expected}); "
        "ignored"
    )
    return False


_DEDUPLICATED_KINDS: Final = frozenset({"Queue", "PodGroup", "Pod", "PriorityClass"})


def _deduplicated(objects: list[Object], warnings: list[str]) -> list[Object]:
    """The objects with exact duplicates dropped (with a warning); a conflicting duplicate
    (two different objects of one kind and name) is an error naming it."""
    seen: dict[tuple[str, str, str], Object] = {}
    kept: list[Object] = []
    conflicts: list[str] = []
    repeated: dict[str, int] = {}
    for obj in objects:
        kind = obj.get("kind")
        metadata = obj.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if kind not in _DEDUPLICATED_KINDS or not isinstance(name, str):
            kept.append(obj)
            continue
        namespace = metadata.get("namespace") if kind in ("PodGroup", "Pod") else ""  # type: ignore[union-attr]
        key = (str(kind), namespace if isinstance(namespace, str) else "", name)
        first = seen.get(key)
        if first is None:
            seen[key] = obj
            kept.append(obj)
        elif first == obj:
            repeated[_name(obj)] = repeated.get(_name(obj), 1) + 1
        elif kind == "Queue":
            kept.append(obj)  # the queue tree reports it, with every other problem of the tree
        else:
            conflicts.append(_name(obj))
    if conflicts:
        names = ", ".join(dict.fromkeys(conflicts))
        raise InvalidObject(
            f"the snapshot holds two different objects with one name: {names} (a snapshot "
            "must hold one version of each object)",
            object=conflicts[0],
        )
    warnings.extend(
        f"{name}: listed {count} times (identical); read once" for name, count in repeated.items()
    )
    return kept


def _misspelt_fields(queue: Object) -> list[str]:
    """Warnings for Queue spec fields that are near misses of known ones."""
    spec = queue.get("spec")
    if not isinstance(spec, Mapping):
        return []
    warnings = []
    for key in sorted((k for k in spec if isinstance(k, str)), key=str):
        if key in _QUEUE_SPEC_FIELDS:
            continue
        near = [f for f in sorted(_QUEUE_SPEC_FIELDS) if f.lower() == key.lower()] or (
            difflib.get_close_matches(key, sorted(_QUEUE_SPEC_FIELDS), n=1, cutoff=0.8)
        )
        if near:
            warnings.append(
                f"{_name(queue)} spec.{_clipped(key)}: unknown field, ignored; did you mean "
                f"spec.{near[0]}?"
            )
    return warnings


def read_snapshot(
    objects: Iterable[Object],
    *,
    lenient_config: bool = False,
    strict_times: bool = False,
    orphans_as_top_level: bool = False,
    kind_defaults: Mapping[str, str] | None = None,
    legacy_priority_threshold: int = LEGACY_PRIORITY_THRESHOLD,
) -> Snapshot:
    """Read a whole snapshot into a tree, a configuration and jobs.

    Args:
        objects: the objects (``List`` objects are flattened).
        lenient_config: a bad plugin argument becomes a warning and the default.
        strict_times: an unparseable start-time annotation is an error instead of a warning.
        orphans_as_top_level: a queue whose parent is missing becomes top-level (with a warning).
        kind_defaults: per-workload-kind preemptibility defaults (``"<Kind>.<group>"`` or
            ``"<Kind>"`` -> value).
        legacy_priority_threshold: for the legacy preemptibility rule.

    Each PodGroup becomes a job with id ``namespace/name``: its pods (annotation
    ``pod-group-name``) grouped by sub-group (label ``kai.scheduler/subgroup-name``), its
    priority from its PriorityClass (else the global default class, else 50), its
    preemptibility determined from ``spec.preemptibility``, the ``kai.scheduler/preemptibility``
    label or annotation on the pod's owners (nearest first), on the PodGroup and on the pod,
    ``kind_defaults``, and last the legacy priority rule; its start time from the annotation
    ``kai.scheduler/last-start-timestamp``.

    Raises:
        InvalidObject: for a field that is needed and cannot be read, naming object and field.
        InvalidQueueTree: for a queue tree that cannot be built.
    """
    warnings: list[str] = []
    flat = _deduplicated(
        [obj for obj in _flatten(list(objects), "snapshot") if _is_read(obj, warnings)], warnings
    )
    queues: list[Queue] = []
    groups: list[Object] = []
    pods: list[Object] = []
    classes: dict[str, int] = {}
    global_default: int | None = None
    never_classes: set[str] = set()
    documents: list[tuple[Object, str, Object]] = []
    shards: list[Object] = []
    by_uid: dict[str, Object] = {}
    queue_problems: list[str] = []
    unreadable_configs: list[str] = []
    for obj in flat:
        kind = obj.get("kind")
        group = _group(obj)
        uid = _get(obj, "metadata.uid", object)
        if isinstance(uid, str):
            by_uid[uid] = obj
        if kind == "Queue" and group in ("scheduling.run.ai", ""):
            warnings.extend(_misspelt_fields(obj))
            try:
                queues.append(read_queue(obj))
            except InvalidObject as error:
                # Report every bad queue together with the tree's own problems; keep the queue
                # in the tree when its name and parent can be read, so that its children and
                # cycles are still checked.
                queue_problems.append(str(error))
                with contextlib.suppress(InvalidObject, InvalidQueueTree):
                    queues.append(
                        Queue(
                            _get(obj, "metadata.name", str, required=True),
                            _get(obj, "spec.parentQueue", str),
                        )
                    )
        elif kind == "PodGroup" and group in ("scheduling.run.ai", ""):
            groups.append(obj)
        elif kind == "Pod":
            pods.append(obj)
        elif kind == "PriorityClass":
            name, value, is_default = read_priority_class(obj)
            classes[name] = value
            if _get(obj, "preemptionPolicy", str) == "Never":
                never_classes.add(name)
            if is_default:
                global_default = value
        elif kind == "ConfigMap":
            try:
                found = _config_map_document(obj)
            except InvalidObject as error:
                if not lenient_config:
                    raise
                unreadable_configs.append(str(error))
                continue
            if found is not None:
                documents.append((obj, *found))
        elif kind == "SchedulingShard":
            shards.append(obj)
        elif kind is None and _is_scheduler_config(obj):
            documents.append(({"kind": "scheduler config document"}, "", obj))
    config = _read_config(documents, shards, lenient_config)
    if unreadable_configs and not documents and not shards:
        config = Config()  # the warnings below replace "no scheduler config in the snapshot"
    warnings.extend(
        f"{problem}; ignored (lenient config), using the defaults" for problem in unreadable_configs
    )
    warnings.extend(config.warnings)
    try:
        tree = QueueTree(queues, orphans_as_top_level=orphans_as_top_level)
    except InvalidQueueTree as error:
        raise InvalidQueueTree([*queue_problems, *error.problems]) from None
    if queue_problems:
        raise InvalidQueueTree(queue_problems)
    warnings.extend(tree.warnings)

    pods_by_group: dict[tuple[str, str], list[Object]] = {}
    group_keys = {
        (
            _get(g, "metadata.namespace", str, default=""),
            _get(g, "metadata.name", str, required=True),
        )
        for g in groups
    }
    for pod in pods:
        group_name = _string_map(pod, "metadata.annotations").get(POD_GROUP_ANNOTATION)
        if not group_name:
            continue
        key = (_get(pod, "metadata.namespace", str, default=""), group_name)
        if key not in group_keys:
            warnings.append(
                f"{_name(pod)}: pod group {group_name!r} is not in the snapshot; pod ignored"
            )
            continue
        pods_by_group.setdefault(key, []).append(pod)
    for members in pods_by_group.values():
        members.sort(key=_pod_order)  # nothing below depends on the order of the input

    jobs = []
    for pod_group in sorted(groups, key=_group_order):
        jobs.append(
            _read_job(
                pod_group,
                pods_by_group,
                classes,
                global_default,
                by_uid,
                never_classes=never_classes,
                strict_times=strict_times,
                kind_defaults=kind_defaults,
                threshold=legacy_priority_threshold,
            )
        )
    for job in jobs:
        if job.job.queue not in tree:
            warnings.append(
                f"PodGroup/{job.id}: queue {job.job.queue!r} is not in the snapshot; its "
                "decisions say the victim's queue is unknown"
            )
    return Snapshot(
        tree=tree,
        config=config,
        jobs=tuple(jobs),
        priority_classes=classes,
        global_default_priority=global_default,
        warnings=tuple(warnings),
    )


def _creation_ns(obj: Object) -> int | None:
    text = _get(obj, "metadata.creationTimestamp", object)
    if not isinstance(text, str):
        return None
    try:
        return to_ns(parse_rfc3339(text), "metadata.creationTimestamp")
    except InvalidTimestamp:
        return None


def _pod_order(pod: Object) -> tuple[bool, int, str]:
    """The canonical order of a group's pods: by creation time (pods without one last), then
    by name."""
    created = _creation_ns(pod)
    name = _get(pod, "metadata.name", object)
    return (created is None, created or 0, name if isinstance(name, str) else "")


def _group_order(group: Object) -> tuple[str, str]:
    namespace = _get(group, "metadata.namespace", object)
    name = _get(group, "metadata.name", object)
    return (
        namespace if isinstance(namespace, str) else "",
        name if isinstance(name, str) else "",
    )


def _conflicting_preemptibility(where: str, members: Sequence[Object]) -> list[str]:
    """A warning when a group's pods carry different preemptibility labels or annotations: the
    first pod in canonical order decides, and the operator is told which pods disagree."""
    values: dict[str, list[str]] = {}
    for pod in members:
        for path in ("metadata.labels", "metadata.annotations"):
            value = _string_map(pod, path).get(PREEMPTIBILITY_KEY)
            if value:
                values.setdefault(value, []).append(_clipped(_get(pod, "metadata.name", object)))
                break
    if len(values) < 2:
        return []
    shown_values = "; ".join(
        f"{shown(value)[:40]} on {', '.join(pods[:3])}{' ...' * (len(pods) > 3)}"
        for value, pods in values.items()
    )
    return [
        f"{where}: its pods disagree on {PREEMPTIBILITY_KEY} ({shown_values}); the first pod "
        "(by creation time, then name) decides"
    ]


def _read_job(
    group: Object,
    pods_by_group: Mapping[tuple[str, str], Sequence[Object]],
    classes: Mapping[str, int],
    global_default: int | None,
    by_uid: Mapping[str, Object],
    *,
    never_classes: frozenset[str] | set[str] = frozenset(),
    strict_times: bool,
    kind_defaults: Mapping[str, str] | None,
    threshold: int,
) -> SnapshotJob:
    where = _name(group)
    namespace = _get(group, "metadata.namespace", str, default="")
    name = _get(group, "metadata.name", str, required=True)
    queue = _get(group, "spec.queue", str, required=True)
    warnings: list[str] = []

    class_name = _get(group, "spec.priorityClassName", str)
    if class_name is not None and class_name in classes:
        priority = classes[class_name]
    else:
        if class_name is not None:
            warnings.append(
                f"{where}: PriorityClass {class_name!r} is not in the snapshot; using the "
                + (
                    "global default"
                    if global_default is not None
                    else f"fallback {DEFAULT_PRIORITY}"
                )
            )
        priority = global_default if global_default is not None else DEFAULT_PRIORITY

    tree = _sub_group_tree(group, warnings)
    tasks: dict[str, list[Task]] = {pod_set: [] for pod_set, _, _ in tree.pod_sets}
    set_names = {node.name for node in tree.sets}
    members = pods_by_group.get((namespace, name), ())
    for pod in members:
        sub_group = _string_map(pod, "metadata.labels").get(SUBGROUP_LABEL) or DEFAULT_POD_SET
        if sub_group not in tasks and sub_group == DEFAULT_POD_SET:
            raise InvalidObject(
                f"{_name(pod)} metadata.labels[{SUBGROUP_LABEL!r}]: missing, but {where} has "
                f"sub-groups ({', '.join(map(repr, tasks))}): the pod must name one",
                object=_name(pod),
                field=f"metadata.labels[{SUBGROUP_LABEL!r}]",
            )
        if sub_group in set_names:
            raise InvalidObject(
                f"{_name(pod)} metadata.labels[{SUBGROUP_LABEL!r}]: sub-group {sub_group!r} of "
                f"{where} holds sub-groups, not pods (its pod sets: "
                f"{', '.join(map(repr, tasks))})",
                object=_name(pod),
                field=f"metadata.labels[{SUBGROUP_LABEL!r}]",
            )
        if sub_group not in tasks:
            raise InvalidObject(
                f"{_name(pod)} metadata.labels[{SUBGROUP_LABEL!r}]: sub-group {sub_group!r} is "
                f"not a leaf sub-group of {where} (its pod sets: {', '.join(map(repr, tasks))})",
                object=_name(pod),
                field=f"metadata.labels[{SUBGROUP_LABEL!r}]",
            )
        tasks[sub_group].append(
            Task(
                _get(pod, "metadata.name", str, required=True),
                pod_task_status(pod),
                weight=_pod_weight(pod, strict_times, warnings),
            )
        )

    annotations = _string_map(group, "metadata.annotations")
    labels = _string_map(group, "metadata.labels")
    first_pod = members[0] if members else None
    warnings.extend(_conflicting_preemptibility(where, members))
    owners = _owners(first_pod, by_uid) if first_pod is not None else []
    owners.append(
        Owner("PodGroup", name, group="scheduling.run.ai", labels=labels, annotations=annotations)
    )
    determined = determine_preemptibility(
        priority=priority,
        explicit=_get(group, "spec.preemptibility", str),
        owners=owners,
        pod_labels=_string_map(first_pod, "metadata.labels") if first_pod is not None else None,
        pod_annotations=_string_map(first_pod, "metadata.annotations")
        if first_pod is not None
        else None,
        kind_defaults=kind_defaults,
        threshold=threshold,
    )
    warnings.extend(f"{where}: {warning}" for warning in determined.warnings)

    origin = f"{where} metadata.annotations[{START_TIME_ANNOTATION!r}]"
    try:
        start = parse_start_time(
            annotations.get(START_TIME_ANNOTATION), strict=strict_times, origin=origin
        )
    except InvalidTimestamp as error:
        raise InvalidObject(
            str(error), object=where, field=f"metadata.annotations[{START_TIME_ANNOTATION!r}]"
        ) from None
    warnings.extend(start.warnings)
    checkpoint_inputs = _checkpoint_inputs(group, annotations, strict_times, warnings)
    checkpoint_inputs.update(
        _delay_inputs(
            group,
            annotations,
            owners,
            first_pod,
            class_name in never_classes,
            strict_times,
            warnings,
        )
    )

    job = Job(
        f"{namespace}/{name}" if namespace else name,
        queue,
        priority=priority,
        preemptibility=determined.value,
        start_time=start.value,
        pod_sets=[
            PodSet(pod_set, min_available=minimum, tasks=tasks[pod_set], parent=parent)
            for pod_set, minimum, parent in tree.pod_sets
        ],
        inputs=JobInputs(**checkpoint_inputs) if checkpoint_inputs else None,
        sub_groups=tree.sets,
        min_sub_group=tree.min_sub_group,
    )
    return SnapshotJob(
        job=job,
        namespace=namespace,
        name=name,
        priority_class=class_name,
        preemptibility=determined,
        warnings=tuple(warnings),
    )

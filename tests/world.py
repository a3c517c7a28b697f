"""The shared test world: the data the tests carry, and the builders several test modules use.

- **Objects of the real shapes** (``tests/data/``, see its README): the reference scheduler's
  CRD schemas reduced to what the tests check (:func:`crd`), sample Queue, PriorityClass,
  PodGroup and Pod objects (:func:`data_documents`), and :func:`pruned_fields`, the fields an
  API server would drop from an object because its CRD does not declare them.
- **One small cluster for the rules** (:data:`TREE`, :data:`PREEMPTOR`, :data:`RECLAIMER`,
  :func:`session`, :func:`job`): a queue tree with a preempt min-runtime, an inherited reclaim
  min-runtime and a never queue, evaluated at :data:`NOW`.
- **The public modules** (:data:`PUBLIC_MODULES`) that the API and docs tests check.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import yaml

from minruntime import Config, Job, PodSet, Queue, QueueTree, Session, Task
from minruntime._evictable import TaskOrder

JSON = dict[str, Any]

# -- objects of the real shapes ------------------------------------------------------------------

DATA = Path(__file__).resolve().parent / "data"
"""The test data folder: CRD schemas under ``crds/``, sample objects beside them."""

CRD_FILES = {
    "Queue": "scheduling.run.ai_queues.yaml",
    "PodGroup": "scheduling.run.ai_podgroups.yaml",
    "SchedulingShard": "kai.scheduler_schedulingshards.yaml",
}
"""The file of each custom resource's CRD under ``tests/data/crds/`` (the reference's names)."""


def load_yaml_documents(path: Path) -> list[Any]:
    """The documents of a YAML file, without empty ones."""
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc is not None]


def data_documents(name: str) -> list[Any]:
    """The documents of ``tests/data/<name>``."""
    return load_yaml_documents(DATA / name)


@attrs.frozen
class Crd:
    """What a test checks an object against: the served ``apiVersion``, the scope and the
    ``openAPIV3Schema`` of the storage version of one custom resource's CRD."""

    kind: str
    api_version: str
    scope: str
    schema: JSON


def crd(kind: str) -> Crd:
    """The CRD of ``kind`` (``Queue``, ``PodGroup`` or ``SchedulingShard``) from the test data."""
    (document,) = data_documents(f"crds/{CRD_FILES[kind]}")
    assert document["spec"]["names"]["kind"] == kind
    (version,) = [v for v in document["spec"]["versions"] if v.get("storage")]
    return Crd(
        kind=kind,
        api_version=f"{document['spec']['group']}/{version['name']}",
        scope=document["spec"]["scope"],
        schema=version["schema"]["openAPIV3Schema"],
    )


def pruned_fields(value: Any, schema: Mapping[str, Any], path: str = "") -> Iterator[str]:
    """Paths the API server would drop: fields a structural schema does not declare.

    ``metadata`` is the API server's own and is not described by the CRD.
    """
    if isinstance(value, Mapping):
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        for key, child in value.items():
            where = f"{path}.{key}" if path else key
            if path == "" and key == "metadata":
                continue
            if properties is not None and key in properties:
                yield from pruned_fields(child, properties[key], where)
            elif isinstance(additional, Mapping):
                yield from pruned_fields(child, additional, where)
            elif not schema.get("x-kubernetes-preserve-unknown-fields"):
                yield where
    elif isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for index, child in enumerate(value):
            yield from pruned_fields(child, schema["items"], f"{path}[{index}]")


# -- one small cluster for the rules -------------------------------------------------------------

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
LONG_AGO = NOW - timedelta(hours=1)  # 2026-01-01T11:00:00Z: past every finite min-runtime below
RECENT = NOW - timedelta(minutes=5)  # 2026-01-01T11:55:00Z: inside the preempt MR of 'a' (10m)

# preempt: 'a' 10m, 'b' inherits nothing (default 0s), 'vault' never.
# reclaim (lca): from 'b' into 'a' steps to 'a' (unset) and walks up to 'org': 30m; 'vault' never.
TREE = QueueTree(
    [
        Queue("org", reclaim_min_runtime="30m"),
        Queue("a", "org", preempt_min_runtime="10m"),
        Queue("b", "org"),
        Queue("vault", "org", preempt_min_runtime="never", reclaim_min_runtime="never"),
    ]
)

PREEMPTOR = Job("pre", "a", priority=100, preemptibility="preemptible")
"""A pending job of queue 'a' that may preempt lower-priority jobs of 'a'."""
RECLAIMER = Job("rec", "b", priority=100, preemptibility="preemptible")
"""A pending job of queue 'b' that may reclaim from the other queues."""


def session(
    now: datetime = NOW, *, config: Config | None = None, task_order: TaskOrder | None = None
) -> Session:
    """A session over :data:`TREE` at ``now`` (default :data:`NOW`)."""
    return Session(TREE, Config() if config is None else config, now, task_order=task_order)


def job(
    job_id: str = "v",
    queue: str = "a",
    *,
    priority: int = 10,
    preemptibility: str | None = "preemptible",
    start: datetime | int | None = LONG_AGO,
    min_available: int = 1,
    statuses: Sequence[str] = ("Running",),
) -> Job:
    """A one-pod-set job whose tasks are ``<id>-0``, ``<id>-1``, ... with the given statuses."""
    tasks = [Task(f"{job_id}-{i}", status) for i, status in enumerate(statuses)]
    return Job(
        job_id,
        queue,
        priority=priority,
        preemptibility=preemptibility,
        start_time=start,
        pod_sets=[PodSet(min_available=min_available, tasks=tasks)],
    )


def ids(items: Sequence[Any]) -> list[Any]:
    """The ``id`` of each task or job, in order."""
    return [item.id for item in items]


# -- the public modules --------------------------------------------------------------------------

PUBLIC_MODULES = (
    "minruntime.config",
    "minruntime.decisions",
    "minruntime.durations",
    "minruntime.errors",
    "minruntime.jobs",
    "minruntime.preemptibility",
    "minruntime.queues",
    "minruntime.session",
    "minruntime.starttime",
    "minruntime.kube",
    "minruntime.testing",
    "minruntime.cli",
)
"""The library's public modules: each has ``__all__`` and ``__dir__``, and the API reference
documents every name of each (the others start with ``_``)."""

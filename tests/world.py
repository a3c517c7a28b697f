"""The shared test world: the data the tests carry, and the builders several test modules use.

- **Objects of the real shapes** (``tests/data/``, see its README): the reference scheduler's
  CRD schemas reduced to what the tests check (:func:`crd`), sample Queue, PriorityClass,
  PodGroup and Pod objects (:func:`data_documents`), and :func:`pruned_fields`, the fields an
  API server would drop from an object because its CRD does not declare them.
- **One small cluster for the rules** (:data:`TREE`, :data:`PREEMPTOR`, :data:`RECLAIMER`,
  :func:`session`, :func:`job`): a queue tree with a preempt min-runtime, an inherited reclaim
  min-runtime and a never queue, evaluated at :data:`NOW`.
- **Kubernetes objects as** ``kubectl get -o json`` **prints them** (:func:`queue_object`,
  :func:`pod_group`, :func:`pod`, :func:`priority_class`, :func:`config_map`, :func:`shard`,
  :func:`owner_object`, :func:`owner_reference`, :func:`scheduler_document`,
  :func:`node_object`, and :func:`containers` for a pod's ``spec``): one builder per
  kind, keyword arguments for what a test varies; :func:`zip_archive`, the reference
  scheduler's snapshot (a ZIP file) holding given members.
- **A cluster with the checkpoint-aware settings** (:data:`CHECKPOINT_TREE`,
  :func:`session_at`, :func:`victim`, :func:`at`, and the strategies :func:`checkpoint_inputs`
  and :func:`near_checkpoints`): times in minutes from :data:`~minruntime.testing.BASE_TIME`.
- **The command, run in-process** (:func:`run`, :class:`Run`, :func:`assert_error`,
  :func:`write_objects`, :func:`decision_of`): ``minruntime.cli.main`` with string streams and
  an injected clock, what it wrote, and the bundled example's names (:data:`FINETUNE`,
  :data:`CHAT_API`, :data:`BUNDLED_WARNINGS`, ...) that the ``test_cli_*`` modules share.
- **Reading snapshots** (:data:`SNAPSHOT_NOW`, :data:`TEAM`, :func:`read_one`,
  :func:`the_problem`, and the warnings the kube tests expect): what the ``test_kube_*``
  files share.
- **The public modules** (:data:`PUBLIC_MODULES`) that the API and docs tests check.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
import yaml
from hypothesis import strategies as st

from minruntime import (
    Config,
    Job,
    JobInputs,
    PodSet,
    ProtectionSettings,
    Queue,
    QueueTree,
    Session,
    Task,
)
from minruntime._evictable import TaskOrder
from minruntime.cli import main
from minruntime.kube import (
    POD_GROUP_ANNOTATION,
    Problem,
    ProblemKind,
    Snapshot,
    SnapshotJob,
    read_snapshot,
)
from minruntime.starttime import START_TIME_ANNOTATION
from minruntime.testing import BASE_TIME, min_runtimes

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


# -- a cluster with the checkpoint-aware settings (docs/spec/beyond-min-runtime.md) ---------------


def at(minutes: float) -> datetime:
    """:data:`~minruntime.testing.BASE_TIME` plus ``minutes``."""
    return BASE_TIME + timedelta(minutes=minutes)


def stamp(minutes: float) -> str:
    """:func:`at` as an RFC 3339 stamp in UTC (``...Z``), as an annotation carries it."""
    return at(minutes).isoformat().replace("+00:00", "Z")


# org: preempt 20m, reclaim 30m, graces 5m (preempt) and 10m (reclaim), a job may ask for up to
# 2h; under it a and b (nothing of their own), budget (2 evictions an hour), spent (no eviction
# at all), nocap (no request honoured), uncapped (any request) and vault (reclaim never)
CHECKPOINT_TREE = QueueTree(
    [
        Queue(
            "org",
            preempt_min_runtime="20m",
            reclaim_min_runtime="30m",
            protections=ProtectionSettings(
                preempt_checkpoint_grace="5m",
                reclaim_checkpoint_grace="10m",
                max_job_min_runtime="2h",
            ),
        ),
        Queue("a", "org"),
        Queue("b", "org"),
        Queue(
            "budget", "org", protections=ProtectionSettings(max_evictions=2, eviction_window="1h")
        ),
        Queue("spent", "org", protections=ProtectionSettings(max_evictions=0)),
        Queue("nocap", "org", protections=ProtectionSettings(max_job_min_runtime=0)),
        Queue("uncapped", "org", protections=ProtectionSettings(max_job_min_runtime="never")),
        Queue("vault", "org", reclaim_min_runtime="never"),
    ]
)


def session_at(
    minutes: float, tree: QueueTree = CHECKPOINT_TREE, config: Config | None = None
) -> Session:
    """A session over ``tree`` (default :data:`CHECKPOINT_TREE`) at :func:`at` ``(minutes)``."""
    return Session(tree, Config() if config is None else config, at(minutes))


def gpus(amount: float) -> dict[str, float]:
    """What a task holding ``amount`` GPUs holds (its weight for unsaved work, when positive)."""
    return {"nvidia.com/gpu": amount}


def victim(
    name: str,
    queue: str = "a",
    *,
    start: float | None = 0,
    weights: Iterable[float] = (1.0,),
    min_available: int | None = None,
    priority: int = 50,
    preemptibility: str = "preemptible",
    **inputs: Any,
) -> Job:
    """A running job: one pod set of running tasks holding these GPUs, each its weight (not
    elastic by default)."""
    tasks = [Task(f"{name}-{i}", resources=gpus(weight)) for i, weight in enumerate(weights)]
    return Job(
        name,
        queue,
        priority=priority,
        preemptibility=preemptibility,
        start_time=None if start is None else at(start),
        pod_sets=[
            PodSet(
                min_available=len(tasks) if min_available is None else min_available, tasks=tasks
            )
        ],
        inputs=JobInputs(**inputs) if inputs else None,
    )


CHECKPOINTING = victim("ckpt", checkpoint_interval="45m")
"""A victim of queue a, started at 0, that checkpoints every 45 minutes."""


@st.composite
def checkpoint_inputs(draw: st.DrawFn, job: Job) -> Job:
    """The job with random section 16 inputs (some absent)."""
    seconds = st.integers(-4 * 3600, 600)
    return attrs.evolve(
        job,
        inputs=attrs.evolve(
            job.inputs or JobInputs(),
            last_checkpoint=draw(st.one_of(st.none(), seconds.map(lambda s: at(s / 60)))),
            checkpoint_interval=draw(st.one_of(st.none(), st.integers(1, 7200))),
            evictions=draw(
                st.one_of(
                    st.just(()),
                    st.integers(0, 4),
                    st.lists(seconds.map(lambda s: at(s / 60)), max_size=4),
                )
            ),
            requested_min_runtime=draw(st.one_of(st.none(), min_runtimes(allow_never=False))),
        ),
    )


@st.composite
def near_checkpoints(draw: st.DrawFn, job: Job, now: datetime) -> Job:
    """The job with a checkpoint interval whose next checkpoint is near ``now`` (either side)."""
    interval = draw(st.integers(60, 3 * 3600))
    base = now + timedelta(seconds=draw(st.integers(-1800, 5400)) - interval)
    if draw(st.booleans()):
        return attrs.evolve(
            job,
            start_time=base,
            inputs=attrs.evolve(job.inputs or JobInputs(), checkpoint_interval=interval),
        )
    start = base - timedelta(seconds=draw(st.integers(0, 3 * 3600)))
    return attrs.evolve(
        job,
        start_time=start,
        inputs=attrs.evolve(
            job.inputs or JobInputs(), last_checkpoint=base, checkpoint_interval=interval
        ),
    )


# -- Kubernetes objects as kubectl prints them ---------------------------------------------------


def queue_object(name: str, **spec: Any) -> JSON:
    """A Queue (``scheduling.run.ai/v2``) with this ``spec`` (``parentQueue=...`` and so on)."""
    return {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": name, "uid": f"uid-queue-{name}"},
        "spec": spec,
    }


def pod_group(
    name: str = "train",
    namespace: str = "ml",
    *,
    queue: str | None = "team",
    labels: Mapping[str, object] | None = None,
    annotations: Mapping[str, object] | None = None,
    created: str | None = None,
    **spec: Any,
) -> JSON:
    """A PodGroup (``scheduling.run.ai/v2alpha2``) of ``queue`` with the other ``spec`` fields
    as given; ``created`` is its ``metadata.creationTimestamp``."""
    metadata: JSON = {"name": name, "namespace": namespace, "uid": f"uid-pg-{namespace}-{name}"}
    if labels is not None:
        metadata["labels"] = dict(labels)
    if annotations is not None:
        metadata["annotations"] = dict(annotations)
    if created is not None:
        metadata["creationTimestamp"] = created
    body: JSON = dict(spec)
    if queue is not None:
        body["queue"] = queue
    return {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": body,
    }


def pod(
    name: str = "train-0",
    group: str | None = "train",
    namespace: str = "ml",
    *,
    phase: str | None = "Running",
    node: str | None = None,
    labels: Mapping[str, object] | None = None,
    annotations: Mapping[str, object] | None = None,
    owners: list[JSON] | None = None,
    deleting: bool = False,
    gates: list[JSON] | None = None,
    resources: Mapping[str, Any] | None = None,
    **sections: Any,
) -> JSON:
    """A Pod of pod group ``group`` (its annotation), one container (with ``resources``), on
    ``node``; ``sections`` replace whole top-level fields (``spec=...``) for malformed input."""
    metadata: JSON = {"name": name, "namespace": namespace, "uid": f"uid-pod-{namespace}-{name}"}
    all_annotations: JSON = dict(annotations or {})
    if group is not None:
        all_annotations[POD_GROUP_ANNOTATION] = group
    if all_annotations:
        metadata["annotations"] = all_annotations
    if labels is not None:
        metadata["labels"] = dict(labels)
    if owners is not None:
        metadata["ownerReferences"] = owners
    if deleting:
        metadata["deletionTimestamp"] = "2026-11-22T11:59:00Z"
    container: JSON = {"name": "main", "image": "busybox"}
    if resources is not None:
        container["resources"] = dict(resources)
    spec: JSON = {"containers": [container]}
    if node is not None:
        spec["nodeName"] = node
    if gates is not None:
        spec["schedulingGates"] = gates
    obj: JSON = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}
    if phase is not None:
        obj["status"] = {"phase": phase}
    obj.update(sections)
    return obj


def containers(*resources: Mapping[str, Any], init: Sequence[Mapping[str, Any]] = ()) -> JSON:
    """A Pod's ``spec`` with one container per ``resources`` (and init containers), for
    ``pod(..., spec=containers(...))``."""
    spec: JSON = {
        "containers": [{"name": f"c{i}", "resources": dict(r)} for i, r in enumerate(resources)]
    }
    if init:
        spec["initContainers"] = [
            {"name": f"init{i}", "resources": dict(r)} for i, r in enumerate(init)
        ]
    return spec


def node_object(name: str, *, gpu_memory: object = None) -> JSON:
    """A Node, with the label ``nvidia.com/gpu.memory`` (MiB of each GPU) when given."""
    metadata: JSON = {"name": name, "uid": f"uid-node-{name}"}
    if gpu_memory is not None:
        metadata["labels"] = {"nvidia.com/gpu.memory": gpu_memory}
    return {"apiVersion": "v1", "kind": "Node", "metadata": metadata}


def owner_reference(kind: str, name: str, *, controller: bool = True) -> JSON:
    """An entry of ``metadata.ownerReferences`` naming an ``apps/v1`` owner."""
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "name": name,
        "uid": f"uid-{name}",
        "controller": controller,
        "blockOwnerDeletion": True,
    }


def owner_object(
    kind: str,
    name: str,
    *,
    api_version: str = "apps/v1",
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    owners: list[JSON] | None = None,
) -> JSON:
    """An owner of pods (a ReplicaSet, a Job, ...) in namespace ``ml``."""
    metadata: JSON = {"name": name, "namespace": "ml", "uid": f"uid-{name}"}
    if labels is not None:
        metadata["labels"] = dict(labels)
    if annotations is not None:
        metadata["annotations"] = dict(annotations)
    if owners is not None:
        metadata["ownerReferences"] = owners
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": {}}


def priority_class(
    name: str,
    value: int,
    *,
    global_default: bool | None = None,
    preemption_policy: str = "PreemptLowerPriority",
) -> JSON:
    """A PriorityClass (``scheduling.k8s.io/v1``)."""
    obj: JSON = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "preemptionPolicy": preemption_policy,
    }
    if global_default is not None:
        obj["globalDefault"] = global_default
    return obj


def scheduler_document(arguments: Mapping[str, str] | None = None) -> JSON:
    """The scheduler's config document, with the minruntime plugin and its ``arguments``."""
    plugin: JSON = {"name": "minruntime"}
    if arguments is not None:
        plugin["arguments"] = dict(arguments)
    return {
        "actions": "allocate, consolidation, reclaim, preempt, stalegangeviction",
        "tiers": [
            {"plugins": [{"name": "predicates"}, {"name": "proportion"}]},
            {"plugins": [{"name": "priority"}, plugin, {"name": "elastic"}]},
        ],
    }


def config_map(name: str, data: Mapping[str, object], namespace: str = "kai-scheduler") -> JSON:
    """A ConfigMap with this ``data``."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-cm-{name}"},
        "data": dict(data),
    }


def shard(name: str = "default", **spec: Any) -> JSON:
    """A SchedulingShard (``kai.scheduler/v1``) with this ``spec``."""
    return {
        "apiVersion": "kai.scheduler/v1",
        "kind": "SchedulingShard",
        "metadata": {"name": name},
        "spec": {"partitionLabelValue": "", **spec},
    }


def zip_archive(members: Mapping[str, object]) -> bytes:
    """A ZIP file (deflated) holding each member: bytes as they are, anything else as JSON
    (``{"snapshot.json": {"rawObjects": {...}}}`` is a reference scheduler's snapshot)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, member in members.items():
            archive.writestr(name, member if isinstance(member, bytes) else json.dumps(member))
    return buffer.getvalue()


# -- reading snapshots: what the kube tests share -----------------------------------------------

SNAPSHOT_NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""When the snapshots of the kube tests are read."""


STARTED = "2026-11-22T11:50:00Z"


EXPECTED_DURATION = "(expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)"


NO_CONFIG_WARNING = "no scheduler config or SchedulingShard in the snapshot; using the defaults"


LEGACY_50_WARNING = "no preemptibility set; legacy rule: priority 50 < 100 gives preemptible"


START_FIELD = f"metadata.annotations[{START_TIME_ANNOTATION!r}]"


TEAM = queue_object("team")


def only_job(snapshot: Snapshot) -> SnapshotJob:
    assert len(snapshot.jobs) == 1
    return snapshot.jobs[0]


def read_one(*objects: JSON, **options: Any) -> SnapshotJob:
    """Read TEAM plus ``objects`` and return the single job."""
    return only_job(read_snapshot([TEAM, *objects], **options))


def the_problem_of(snapshot: Snapshot, kind: ProblemKind, *, skip: str = "") -> Problem:
    """The one problem of ``kind`` a snapshot has (its own or a job's); those about an object
    whose name is ``skip`` are not counted."""
    found = [
        problem
        for problem in snapshot.every_problem()
        if problem.kind is kind and (not skip or getattr(problem.object, "name", "") != skip)
    ]
    assert len(found) == 1, [str(problem) for problem in found]
    return found[0]


def the_problem(objects: list[JSON], kind: ProblemKind, **options: Any) -> Problem:
    """The one problem of ``kind`` reading ``objects`` gives."""
    return the_problem_of(read_snapshot(objects, **options), kind)


def strict_json(text: str) -> Any:
    """json.loads that refuses NaN and the infinities, as every JSON reader but Python's."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the JSON output")

    return json.loads(text, parse_constant=refuse)


# -- the public modules --------------------------------------------------------------------------

SESSION = [
    "at",
    "config",
    "core_tasks",
    "cycle",
    "eligible_victims",
    "next_expiry",
    "now",
    "plan",
    "protection",
    "protections",
    "rank_victims",
    "resolve",
    "stats",
    "tree",
    "unsaved_work",
    "validate",
    "verdict",
    "verdicts",
]
"""The questions a session answers: one way to ask a protection (``protection``, and its batch
form ``protections``), one to ask a min-runtime (``resolve``), one verdict per victim
(``verdict``, ``verdicts``), the batch forms, plans and the cycle form."""

CYCLE = ["commit", "eligible_victims", "next_expiry", "plan", "validate", "verdict"]
"""What a cycle answers, and ``commit``."""


PUBLIC_MODULES = (
    "minruntime.config",
    "minruntime.decisions",
    "minruntime.durations",
    "minruntime.errors",
    "minruntime.jobs",
    "minruntime.preemptibility",
    "minruntime.queues",
    "minruntime.resources",
    "minruntime.session",
    "minruntime.starttime",
    "minruntime.kube",
    "minruntime.testing",
    "minruntime.cli",
)
"""The library's public modules: each has ``__all__`` and ``__dir__``, and the API reference
documents every name of each (the others start with ``_``)."""


# -- the command, run in-process ------------------------------------------------------------------

BUNDLED_TEXT = (
    resources.files("minruntime").joinpath("data/example-cluster.json").read_text(encoding="utf-8")
)


EXAMPLE_INSTANT = "2026-11-22T12:00:00Z"


FINETUNE = "nlp-team/finetune-7b"


CHAT_API = "serving/chat-api"


BUNDLED_WARNINGS = [
    "minruntime: warning: PodGroup/batch/nightly-eval-29921880: skipped invalid preemptibility "
    "'sometimes' in label on Job/nightly-eval-29921880",
    "minruntime: warning: invalid timestamp '2026-11-22 11:00' in PodGroup/nlp-team/data-dedup "
    "metadata.annotations['kai.scheduler/last-start-timestamp'] (expected RFC 3339 with a zone, "
    "e.g. '2026-11-22T11:50:00Z'); treated as no start time",
    "minruntime: warning: PodGroup/serving/reranker-canary "
    "metadata.annotations['kai.scheduler/last-start-timestamp']: 2026-11-22T12:00:05+00:00 is "
    "after now (2026-11-22T12:00:00+00:00); used as given (a clock skew, or a wrong --now?)",
    "minruntime: warning: 15 of 22 pod groups have no preemptibility set and fall back on the "
    "legacy priority rule (priority < 100 is preemptible); set spec.preemptibility or the "
    "kai.scheduler/preemptibility label to make it explicit",
]


@dataclass(frozen=True)
class Run:
    """What one ``main`` call returned and wrote."""

    status: int
    out: str
    err: str

    @property
    def report(self) -> JSON:
        data = json.loads(self.out)
        assert isinstance(data, dict)
        return data

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def run(args: list[str], *, stdin: str = "", now: datetime | None = None) -> Run:
    """Run ``main(args)`` with string streams; ``now`` stands in for the clock."""
    out, err = io.StringIO(), io.StringIO()
    status = main(args, stdin=io.StringIO(stdin), stdout=out, stderr=err, now=now)
    return Run(status, out.getvalue(), err.getvalue())


def decision_of(report: JSON, job_id: str) -> JSON:
    """The decision entry of the running job ``job_id`` in a report."""
    (entry,) = [job for job in report["jobs"] if job["id"] == job_id]
    decision = entry["decision"]
    assert isinstance(decision, dict)
    return decision


def write_objects(path: Path, *objects: JSON) -> str:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}))
    return str(path)


def assert_error(result: Run, status: int, *lines: str) -> None:
    """The run failed with ``status``, printed nothing on stdout and exactly ``lines``."""
    assert result.status == status
    assert result.out == ""
    assert "Traceback" not in result.err
    assert result.err_lines == [f"minruntime: error: {line}" for line in lines]


def long_named_cluster(tmp_path: Path) -> str:
    """A queue and jobs whose names fill their cells (48 characters and more)."""
    long = "a-very-long-queue-name-that-an-operator-chose-" + "x" * 20
    objects: list[JSON] = [queue_object(long, preemptMinRuntime="1h")]
    for i in range(3):
        name = f"training-run-with-a-long-generated-name-{i:04d}-" + "y" * 30
        objects.append(
            pod_group(
                name,
                "namespace-that-is-long-too",
                queue=long,
                annotations={"kai.scheduler/last-start-timestamp": "2026-11-22T11:30:00Z"},
                minMember=1,
            )
        )
        objects.append(
            pod(
                f"{name}-worker-{i}",
                name,
                "namespace-that-is-long-too",
                phase="Running",
                node="node-1",
            )
        )
    objects.append(pod_group("pending", "namespace-that-is-long-too", queue=long, minMember=1))
    objects.append(pod("pending-0", "pending", "namespace-that-is-long-too", phase="Pending"))
    return write_objects(tmp_path / "long.json", *objects)

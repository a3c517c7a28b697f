"""Trace readers: Microsoft Philly, Alibaba GPU 2023 (openb), and a plain CSV format.

Each reader takes a path (a file, or the folder holding the trace's files) and defaults to the
traces shipped inside this package (``minruntime_sim/data``), or to the folder named by the
``MINRUNTIME_SIM_TRACES`` environment variable when it is set. See ``data/README.md`` in the
package for the sources and licences.

Every reader returns a :class:`~minruntime_sim.Workload` whose times start at 0 (the first
submission) and whose ``notes`` say what was dropped or assumed.

The plain CSV format, for a user's own workload (and what :func:`write_csv` writes):

- ``<name>.csv``: columns ``id, queue, submit, run_time, gpus`` (seconds, integers) and
  optionally ``priority, preemptibility, min_available, checkpoint_interval`` (empty = unset);
- ``<name>.queues.csv`` beside it (optional): ``name, parent, deserved`` and optionally
  ``over_quota_weight, limit, preempt_min_runtime, reclaim_min_runtime`` (empty = unset: no
  deserved quota, weight 1, no limit); a quota may be set at any level of the tree. Without
  it, each queue found in the jobs is a top-level queue and ``total_gpus`` is split equally;
- ``<name>.nodes.csv`` beside it (optional): one row per node, column ``gpus``; without it,
  the cluster is one node.
"""

from __future__ import annotations

import csv
import importlib.resources
import os
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import attrs

from minruntime import MinRuntime, Preemptibility, Queue, QueueTree
from minruntime_sim.errors import InvalidTrace
from minruntime_sim.model import JobSpec, Workload, scale_shares
from minruntime_sim.synthetic import synthetic_workload

__all__ = [
    "ALIBABA_QOS",
    "GPUS_PER_PHILLY_NODE",
    "TRACES_VARIABLE",
    "TRACE_NAMES",
    "default_traces_dir",
    "load_trace",
    "read_alibaba",
    "read_csv",
    "read_philly",
    "write_csv",
]

GPUS_PER_PHILLY_NODE: Final = 8
"""GPUs per node of the Philly virtual clusters' node counts (``philly-vc-nodes.csv``): the
Helios artifact those counts come from simulates Philly with 8 GPUs per node
(``--num_gpus_per_node`` 8, ``framework/QSSF Service/simulator.py`` of
S-Lab-System-Group/HeliosArtifact), and the trace's own machine list and per-GPU utilisation
columns (``msr-fiddle/philly-traces``) describe servers of up to 8 GPUs (``gpu0`` to
``gpu7``; its example row is ``m31,8, 24GB``). Philly also had 2-GPU servers, which the VC
node counts do not tell apart: every node is read as an 8-GPU one."""

PRIORITY_INFERENCE: Final = 125
PRIORITY_BUILD: Final = 100
PRIORITY_TRAIN: Final = 50
"""The reference scheduler's priority classes (inference, build, train;
docs/spec/preemptibility.md#preemptibility-priorities)."""

PHILLY_ROOT: Final = "philly"
ALIBABA_QUEUE: Final = "openb"

ALIBABA_QOS: Final[Mapping[str, tuple[int, Preemptibility]]] = {
    "LS": (PRIORITY_INFERENCE, Preemptibility.NON_PREEMPTIBLE),
    "Guaranteed": (PRIORITY_INFERENCE, Preemptibility.NON_PREEMPTIBLE),
    "Burstable": (PRIORITY_BUILD, Preemptibility.SEMI_PREEMPTIBLE),
    "BE": (PRIORITY_TRAIN, Preemptibility.PREEMPTIBLE),
}
"""The Alibaba ``qos`` classes as (priority, preemptibility); see :func:`read_alibaba`."""

TRACE_NAMES: Final = ("philly", "alibaba", "synthetic")
"""The names :func:`load_trace` knows besides a CSV path."""

TRACES_VARIABLE: Final = "MINRUNTIME_SIM_TRACES"
"""The environment variable that names another traces folder than the shipped one."""


def default_traces_dir() -> Path:
    """The folder the readers use by default: ``$MINRUNTIME_SIM_TRACES`` if set and not empty,
    else the traces shipped as package data (``minruntime_sim/data``).

    >>> sorted(path.name for path in default_traces_dir().glob("philly*.csv"))
    ['philly-vc-nodes.csv', 'philly.csv']
    """
    configured = os.environ.get(TRACES_VARIABLE)
    if configured:
        return Path(configured)
    return Path(str(importlib.resources.files("minruntime_sim") / "data"))


def _resolve(path: str | os.PathLike[str] | None, filename: str) -> Path:
    """A trace file: ``path`` itself, ``filename`` inside the folder ``path``, or the default."""
    base = Path(path) if path is not None else default_traces_dir()
    found = base / filename if base.is_dir() else base
    if not found.is_file():
        raise InvalidTrace(
            f"trace file {str(found)!r} not found (give the file or its folder; the default "
            f"folder is ${TRACES_VARIABLE}, else the traces shipped in minruntime_sim/data)"
        )
    return found


def _rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """The rows of a CSV file with their line numbers, after checking its header."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = [name.strip() for name in reader.fieldnames or []]
        missing = [name for name in required if name not in header]
        if missing:
            raise InvalidTrace(
                f"{path.name}: missing columns {missing} (found {header}; expected "
                f"{list(required)})"
            )
        reader.fieldnames = header
        for row in reader:
            yield reader.line_num, {key: (value or "").strip() for key, value in row.items()}


def _integer(value: str, where: str, column: str, *, minimum: int = 0) -> int:
    try:
        number = int(value)
    except ValueError:
        raise InvalidTrace(
            f"{where}: invalid {column} {value!r} (expected an integer >= {minimum})"
        ) from None
    if number < minimum:
        raise InvalidTrace(
            f"{where}: invalid {column} {value!r} (expected an integer >= {minimum})"
        )
    return number


def _seconds(value: str, where: str, column: str) -> int:
    """Seconds as a float or integer text, rounded up to a whole second, at least 1."""
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number >= 0 or number == float("inf"):
        raise InvalidTrace(f"{where}: invalid {column} {value!r} (expected seconds >= 0)")
    return max(1, -int(-number // 1))


# -- Philly ----------------------------------------------------------------------------------


def read_philly(
    path: str | os.PathLike[str] | None = None,
    *,
    nodes_path: str | os.PathLike[str] | None = None,
) -> Workload:
    """Read the Philly trace: each virtual cluster (VC) is a queue under one root.

    Args:
        path: ``philly.csv`` or the folder holding it (default: the traces folder).
        nodes_path: ``philly-vc-nodes.csv`` or its folder (default: beside ``path``).

    Each VC deserves 8 GPUs per node it had (``philly-vc-nodes.csv``) and the cluster has that
    many 8-GPU nodes (352, 2,816 GPUs; :data:`GPUS_PER_PHILLY_NODE`), shared by all VCs: a
    VC's nodes are a quota, not a partition. Jobs of a VC missing from the nodes file (4 small VCs, 18 jobs)
    are kept in a queue that deserves nothing: they run only on idle GPUs. Submission times are
    read as UTC and counted from the first one; durations round up to whole seconds. The trace
    has no priorities: every job gets the train priority (50) and is explicitly preemptible.

    Raises:
        InvalidTrace: for a missing file or column, or a bad value (naming file, line, value).

    >>> philly = read_philly()
    >>> len(philly.jobs), philly.total_gpus, philly.deserved["6214e9"], len(philly.nodes)
    (82247, 2816, 512, 352)
    """
    jobs_file = _resolve(path, "philly.csv")
    nodes_file = _resolve(
        nodes_path if nodes_path is not None else jobs_file.parent, "philly-vc-nodes.csv"
    )
    nodes: dict[str, int] = {}
    for line, row in _rows(nodes_file, ("vc", "node num")):
        where = f"{nodes_file.name} line {line}"
        nodes[row["vc"]] = _integer(row["node num"], where, "node num")
    raw: list[tuple[float, int, int, str]] = []
    for line, row in _rows(jobs_file, ("timestamp", "duration", "num_gpus", "cluster")):
        where = f"{jobs_file.name} line {line}"
        try:
            submitted = datetime.fromisoformat(row["timestamp"]).replace(tzinfo=UTC).timestamp()
        except ValueError:
            raise InvalidTrace(
                f"{where}: invalid timestamp {row['timestamp']!r} "
                "(expected e.g. '2017-10-09 07:01:55')"
            ) from None
        run_time = _seconds(row["duration"], where, "duration")
        gpus = _integer(row["num_gpus"], where, "num_gpus", minimum=1)
        raw.append((submitted, run_time, gpus, row["cluster"]))
    origin = min((row[0] for row in raw), default=0.0)
    jobs = [
        JobSpec(
            id=f"philly-{index:05d}",
            queue=cluster,
            submit=int(submitted - origin),
            run_time=run_time,
            gpus=gpus,
            priority=PRIORITY_TRAIN,
            preemptibility=Preemptibility.PREEMPTIBLE,
        )
        for index, (submitted, run_time, gpus, cluster) in enumerate(raw)
    ]
    unknown = sorted({job.queue for job in jobs} - set(nodes))
    deserved = {vc: count * GPUS_PER_PHILLY_NODE for vc, count in nodes.items()}
    notes = [
        f"{len(jobs)} jobs from {jobs_file.name}; {len(nodes)} virtual clusters, "
        f"{sum(nodes.values())} nodes of {GPUS_PER_PHILLY_NODE} GPUs"
    ]
    if unknown:
        stray = sum(1 for job in jobs if job.queue in unknown)
        notes.append(
            f"{len(unknown)} virtual clusters not in {nodes_file.name} ({', '.join(unknown)}; "
            f"{stray} jobs) deserve 0 GPUs"
        )
        deserved.update(dict.fromkeys(unknown, 0))
    tree = QueueTree([Queue(PHILLY_ROOT), *(Queue(vc, PHILLY_ROOT) for vc in deserved)])
    return Workload(
        name="philly",
        jobs=jobs,
        tree=tree,
        deserved=deserved,
        total_gpus=sum(nodes.values()) * GPUS_PER_PHILLY_NODE,
        nodes=(GPUS_PER_PHILLY_NODE,) * sum(nodes.values()),
        notes=notes,
    )


# -- Alibaba ---------------------------------------------------------------------------------


def read_alibaba(
    path: str | os.PathLike[str] | None = None,
    *,
    nodes_path: str | os.PathLike[str] | None = None,
) -> Workload:
    """Read the Alibaba GPU trace v2023 (openb): one queue, ``qos`` as priority and preemptibility.

    Args:
        path: ``alibaba-openb-pods.csv`` or its folder (default: the traces folder).
        nodes_path: ``alibaba-openb-gpu-nodes.csv`` or its folder (default: beside ``path``).

    The trace names no tenants, so every pod is in one queue, ``openb``, that deserves the whole
    cluster (the sum of the nodes' ``gpu`` column, 6,212, on its 1,213 nodes of 1 to 8 GPUs;
    GPU models are not matched to pods): only preemption happens, and the
    *preempt* min-runtime is the setting that matters. Each ``qos`` class maps to a priority
    and a preemptibility (:data:`ALIBABA_QOS`):

    - ``LS`` (latency-sensitive services) and ``Guaranteed``: priority 125, non-preemptible:
      services that must not be interrupted;
    - ``BE`` (best effort): priority 50, preemptible: the batch work that yields;
    - ``Burstable``: priority 100, **semi-preemptible with a core of one GPU**. A Burstable pod
      is guaranteed its requests and may use more when the node has room; the closest
      preemptibility is a guaranteed core plus an evictable surplus. The trace has no separate
      request and limit for GPUs, so the core is the smallest a pod can keep, one GPU: a
      one-GPU Burstable pod cannot be shrunk (it behaves as non-preemptible), a larger one can
      lose all but one GPU. Treating Burstable as preemptible would make it as cheap to evict as
      best effort, which Kubernetes's own eviction order does not do; treating it as
      non-preemptible would ignore its burst.

    A pod submits at ``creation_time`` and runs for ``deletion_time - scheduled_time``. Dropped:
    pods that ask for no GPU (``num_gpu`` 0) and pods never scheduled (no ``scheduled_time``:
    their run time is unknown). Fractional GPU requests (``gpu_milli`` < 1000) count as whole
    GPUs, so the load is heavier than the real cluster's.

    Raises:
        InvalidTrace: for a missing file or column, an unknown ``qos``, or a bad value.

    >>> alibaba = read_alibaba()
    >>> len(alibaba.jobs), alibaba.total_gpus, sorted(alibaba.deserved), len(alibaba.nodes)
    (6203, 6212, ['openb'], 1213)
    """
    pods_file = _resolve(path, "alibaba-openb-pods.csv")
    nodes_file = _resolve(
        nodes_path if nodes_path is not None else pods_file.parent, "alibaba-openb-gpu-nodes.csv"
    )
    inventory: list[int] = []
    for line, row in _rows(nodes_file, ("sn", "gpu")):
        count = _integer(row["gpu"], f"{nodes_file.name} line {line}", "gpu")
        if count:
            inventory.append(count)
    total = sum(inventory)
    pods: list[tuple[str, int, int, int, str]] = []
    no_gpu = never_scheduled = 0
    for line, row in _rows(
        pods_file, ("name", "num_gpu", "qos", "creation_time", "deletion_time", "scheduled_time")
    ):
        where = f"{pods_file.name} line {line}"
        gpus = _integer(row["num_gpu"], where, "num_gpu")
        qos = row["qos"]
        if qos not in ALIBABA_QOS:
            raise InvalidTrace(
                f"{where}: unknown qos {qos!r} (expected one of {sorted(ALIBABA_QOS)})"
            )
        if gpus == 0:
            no_gpu += 1
            continue
        if not row["scheduled_time"]:
            never_scheduled += 1
            continue
        created = _integer(row["creation_time"], where, "creation_time")
        scheduled = _integer(row["scheduled_time"], where, "scheduled_time")
        deleted = _integer(row["deletion_time"], where, "deletion_time")
        pods.append((row["name"], created, max(1, deleted - scheduled), gpus, qos))
    origin = min((pod[1] for pod in pods), default=0)
    jobs = []
    for name, created, run_time, gpus, qos in pods:
        priority, preemptibility = ALIBABA_QOS[qos]
        semi = preemptibility is Preemptibility.SEMI_PREEMPTIBLE
        jobs.append(
            JobSpec(
                id=name,
                queue=ALIBABA_QUEUE,
                submit=created - origin,
                run_time=run_time,
                gpus=gpus,
                priority=priority,
                preemptibility=preemptibility,
                min_available=1 if semi else None,
            )
        )
    notes = [
        f"{len(jobs)} GPU pods from {pods_file.name}; dropped {no_gpu} pods without GPUs and "
        f"{never_scheduled} never scheduled",
        "fractional GPU requests counted as whole GPUs",
    ]
    return Workload(
        name="alibaba",
        jobs=jobs,
        tree=QueueTree([Queue(ALIBABA_QUEUE)]),
        deserved={ALIBABA_QUEUE: total},
        total_gpus=total,
        nodes=inventory,
        notes=notes,
    )


# -- plain CSV -------------------------------------------------------------------------------

_JOB_COLUMNS: Final = ("id", "queue", "submit", "run_time", "gpus")
_OPTIONAL_COLUMNS: Final = ("priority", "preemptibility", "min_available", "checkpoint_interval")
_QUEUE_COLUMNS: Final = (
    "name",
    "parent",
    "deserved",
    "over_quota_weight",
    "limit",
    "preempt_min_runtime",
    "reclaim_min_runtime",
)


def _queues_file(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".csv") + ".queues.csv")


def _nodes_file(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".csv") + ".nodes.csv")


@attrs.frozen
class _Quotas:
    """A queues file's tree and quotas."""

    tree: QueueTree
    deserved: dict[str, int]
    weights: dict[str, float]
    limits: dict[str, int]

    def cluster(self) -> int:
        """The GPUs the quotas stand for: the deserved quotas of the queues that have one and
        no ancestor with one (a parent's quota holds its children's: never counted twice)."""
        return sum(
            share
            for name, share in self.deserved.items()
            if not any(above in self.deserved for above in self.tree.ancestors(name))
        )


def read_csv(
    path: str | os.PathLike[str],
    *,
    queues_path: str | os.PathLike[str] | None = None,
    total_gpus: int | None = None,
    nodes_path: str | os.PathLike[str] | None = None,
) -> Workload:
    """Read a workload in the plain CSV format (see the module's description).

    Args:
        path: the jobs file.
        queues_path: the queues file; default ``<name>.queues.csv`` beside ``path``, if present.
        total_gpus: the cluster's GPUs; default the nodes' GPUs, else the deserved quotas of the
            queues that have one and no ancestor with one (a parent's quota is shared by its
            children, never added to theirs). Required without a queues or nodes file (the
            queues then share it equally).
        nodes_path: the nodes file; default ``<name>.nodes.csv`` beside ``path``, if present;
            without one, the cluster is one node.

    Raises:
        InvalidTrace: for a missing file or column, a bad value, or a bad queue tree.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "mine.csv").write_text("id,queue,submit,run_time,gpus\\nj1,a,0,60,2\\n")
    >>> mine = read_csv(folder / "mine.csv", total_gpus=4)
    >>> [(job.id, job.queue, job.gpus) for job in mine.jobs], dict(mine.deserved)
    ([('j1', 'a', 2)], {'a': 4})
    """
    jobs_file = Path(path)
    if not jobs_file.is_file():
        raise InvalidTrace(f"trace file {str(jobs_file)!r} not found")
    jobs: list[JobSpec] = []
    for line, row in _rows(jobs_file, _JOB_COLUMNS):
        where = f"{jobs_file.name} line {line}"
        optional = {name: row.get(name, "") for name in _OPTIONAL_COLUMNS}
        try:
            jobs.append(
                JobSpec(
                    id=row["id"],
                    queue=row["queue"],
                    submit=_integer(row["submit"], where, "submit"),
                    run_time=_integer(row["run_time"], where, "run_time", minimum=1),
                    gpus=_integer(row["gpus"], where, "gpus", minimum=1),
                    priority=_integer(optional["priority"], where, "priority", minimum=-(2**31))
                    if optional["priority"]
                    else 50,
                    preemptibility=optional["preemptibility"] or None,
                    min_available=_integer(
                        optional["min_available"], where, "min_available", minimum=1
                    )
                    if optional["min_available"]
                    else None,
                    checkpoint_interval=_integer(
                        optional["checkpoint_interval"], where, "checkpoint_interval", minimum=1
                    )
                    if optional["checkpoint_interval"]
                    else None,
                )
            )
        except InvalidTrace as error:
            if str(error).startswith(where):
                raise
            raise InvalidTrace(f"{where}: {error}") from None
        except ValueError as error:  # an invalid preemptibility
            raise InvalidTrace(f"{where}: {error}") from None
    node_file = Path(nodes_path) if nodes_path is not None else _nodes_file(jobs_file)
    nodes: list[int] = []
    if node_file.is_file():
        for line, row in _rows(node_file, ("gpus",)):
            nodes.append(_integer(row["gpus"], f"{node_file.name} line {line}", "gpus", minimum=1))
    elif nodes_path is not None:
        raise InvalidTrace(f"nodes file {str(node_file)!r} not found")
    given = total_gpus if total_gpus is not None else (sum(nodes) if nodes else None)
    queue_file = Path(queues_path) if queues_path is not None else _queues_file(jobs_file)
    if queue_file.is_file():
        quotas = _read_queues(queue_file)
        return Workload(
            name=jobs_file.stem,
            jobs=jobs,
            tree=quotas.tree,
            deserved=quotas.deserved,
            over_quota_weights=quotas.weights,
            limits=quotas.limits,
            total_gpus=given if given is not None else quotas.cluster(),
            nodes=nodes,
        )
    if queues_path is not None:
        raise InvalidTrace(f"queues file {str(queue_file)!r} not found")
    if given is None:
        raise InvalidTrace(
            f"{jobs_file.name}: no queues file {queue_file.name!r}: give the cluster's GPUs "
            "(total_gpus, or --gpus on the command line)"
        )
    names = sorted({job.queue for job in jobs})
    return Workload(
        name=jobs_file.stem,
        jobs=jobs,
        tree=QueueTree([Queue(name) for name in names]),
        deserved=scale_shares(dict.fromkeys(names, 1), given),
        total_gpus=given,
        nodes=nodes,
    )


def _weight(value: str, where: str) -> float:
    try:
        weight = float(value)
    except ValueError:
        weight = -1.0
    if not 0 <= weight < float("inf"):
        raise InvalidTrace(f"{where}: invalid over_quota_weight {value!r} (expected a number >= 0)")
    return int(weight) if weight.is_integer() else weight


def _read_queues(path: Path) -> _Quotas:
    records: list[dict[str, object]] = []
    deserved: dict[str, int] = {}
    weights: dict[str, float] = {}
    limits: dict[str, int] = {}
    for line, row in _rows(path, ("name",)):
        where = f"{path.name} line {line}"
        records.append(
            {
                "name": row["name"],
                "parent": row.get("parent") or None,
                "preempt_min_runtime": row.get("preempt_min_runtime") or None,
                "reclaim_min_runtime": row.get("reclaim_min_runtime") or None,
            }
        )
        if row.get("deserved"):
            deserved[row["name"]] = _integer(row["deserved"], where, "deserved")
        if row.get("over_quota_weight"):
            weights[row["name"]] = _weight(row["over_quota_weight"], where)
        if row.get("limit"):
            limits[row["name"]] = _integer(row["limit"], where, "limit")
    try:
        tree = QueueTree.from_records(records, origin=path.name)
    except ValueError as error:
        raise InvalidTrace(str(error)) from None
    return _Quotas(tree=tree, deserved=deserved, weights=weights, limits=limits)


def write_csv(workload: Workload, path: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a workload in the plain CSV format: the jobs file and its queues file.

    Returns:
        The two paths written (``path`` and ``<name>.queues.csv`` beside it); a workload with
        nodes also gets ``<name>.nodes.csv``.
    """
    jobs_file = Path(path)
    with jobs_file.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([*_JOB_COLUMNS, *_OPTIONAL_COLUMNS])
        for job in workload.jobs:
            writer.writerow(
                [
                    job.id,
                    job.queue,
                    job.submit,
                    job.run_time,
                    job.gpus,
                    job.priority,
                    "" if job.preemptibility is None else str(job.preemptibility),
                    "" if job.min_available is None else job.min_available,
                    "" if job.checkpoint_interval is None else job.checkpoint_interval,
                ]
            )
    queue_file = _queues_file(jobs_file)
    with queue_file.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(_QUEUE_COLUMNS)
        for name in workload.tree:
            queue = workload.tree[name]
            writer.writerow(
                [
                    name,
                    queue.parent or "",
                    workload.deserved.get(name, ""),
                    workload.over_quota_weights.get(name, ""),
                    workload.limits.get(name, ""),
                    _text(queue.preempt_min_runtime),
                    _text(queue.reclaim_min_runtime),
                ]
            )
    if workload.nodes:
        with _nodes_file(jobs_file).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["gpus"])
            writer.writerows([count] for count in workload.nodes)
    return jobs_file, queue_file


def _text(value: MinRuntime | None) -> str:
    return "" if value is None else str(value)


# -- by name ---------------------------------------------------------------------------------


def load_trace(
    source: str | os.PathLike[str],
    *,
    limit: int | None = None,
    gpus: int | None = None,
    seed: int = 0,
    load_factor: float = 1,
) -> Workload:
    """A workload by name (``philly``, ``alibaba``, ``synthetic``) or a plain CSV path.

    Args:
        source: the trace.
        limit: keep the first ``limit`` jobs by submission time (for ``synthetic``: how many
            jobs to generate, default 200).
        gpus: resize the cluster to this many GPUs (:meth:`Workload.with_gpus`: whole nodes
            kept, quotas scaled in proportion; for a CSV without a queues or nodes file: the
            cluster's size).
        seed: the seed of a synthetic workload.
        load_factor: the load-scaling knob: jobs arrive ``load_factor`` times as fast
            (:meth:`Workload.with_load`, after ``limit``), on the same nodes and quotas.

    Raises:
        InvalidTrace: for an unknown name, a missing file, or a bad value.

    >>> workload = load_trace("philly", limit=1000, gpus=704)
    >>> len(workload.jobs), workload.total_gpus, sum(workload.deserved.values())
    (1000, 704, 704)
    """
    name = os.fspath(source)
    if name == "philly":
        workload = read_philly()
    elif name == "alibaba":
        workload = read_alibaba()
    elif name == "synthetic":
        workload = synthetic_workload(seed=seed, jobs=200 if limit is None else limit)
    elif name.endswith(".csv") or Path(name).is_file():
        sized = _queues_file(Path(name)).is_file() or _nodes_file(Path(name)).is_file()
        workload = read_csv(name) if sized else read_csv(name, total_gpus=gpus)
    else:
        raise InvalidTrace(
            f"unknown trace {name!r} (expected {', '.join(TRACE_NAMES)}, or a CSV file's path)"
        )
    if limit is not None and name != "synthetic":
        workload = workload.head(limit)
    if gpus is not None and gpus != workload.total_gpus:
        workload = workload.with_gpus(gpus)
    return workload.with_load(load_factor)

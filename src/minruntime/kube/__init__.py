"""Reading Kubernetes objects as ``kubectl get ... -o json`` prints them.

A cluster snapshot is a list of objects: Queues (``scheduling.run.ai``), PodGroups, Pods,
PriorityClasses, the scheduler config (a ConfigMap holding it, or the bare document), a
SchedulingShard (with the reference's failed-search backoff, :class:`SearchBackoff`), and any owner objects (Jobs, PyTorchJobs ...) whose labels may carry a
preemptibility. :func:`read_snapshot` turns them into what a :class:`~minruntime.Session`
needs: a queue tree, a configuration and jobs.

One bad object never hides the rest of a cluster (``docs/spec/kubernetes.md``): an object that
cannot be read is left out, a field with a bad value is ignored, and each is a :class:`Problem`
naming the object, the field and the value, which a program can act on
(``read_snapshot(..., strict=True)`` refuses any). The input as a whole (empty, not JSON or
YAML, a mapping with a duplicate key) and the queue tree stop the reading with an error. A
group's pods are read in a canonical order (creation time, then name), so that no answer
depends on the order of the input.

Where the scheduler config is found is :func:`minruntime.config.find_scheduler_config`'s rule.

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

# The package's private modules each hold one concern: loading documents (_loading) and the
# reference scheduler's snapshot archive (_archive), object fields (_fields), which objects are
# read (_objects), queues, priority classes, pods, pod groups and their sub-group trees,
# annotations, problems, and the snapshot that assembles them.

from __future__ import annotations

from minruntime.kube._annotations import (
    CHECKPOINT_INTERVAL_ANNOTATION,
    CHECKPOINT_RESTORE_ANNOTATION,
    EVICTIONS_ANNOTATION,
    LAST_CHECKPOINT_ANNOTATION,
    LAST_EVICTION_ANNOTATION,
    PREEMPTION_DELAY_ANNOTATION,
    REQUESTED_MIN_RUNTIME_ANNOTATION,
)
from minruntime.kube._archive import load_snapshot_archive
from minruntime.kube._backoff import SearchBackoff
from minruntime.kube._loading import load_objects
from minruntime.kube._pod_groups import SnapshotJob
from minruntime.kube._pods import (
    POD_GROUP_ANNOTATION,
    SUBGROUP_LABEL,
    pod_task_status,
)
from minruntime.kube._priority import read_priority_class
from minruntime.kube._problems import ObjectRef, Problem, ProblemKind
from minruntime.kube._queues import read_queue
from minruntime.kube._resources import (
    GPU_FRACTION_ANNOTATION,
    GPU_MEMORY_ANNOTATION,
    GPU_MEMORY_LABEL,
    NUM_DEVICES_ANNOTATION,
)
from minruntime.kube._snapshot import Snapshot, read_snapshot

__all__ = [
    "CHECKPOINT_INTERVAL_ANNOTATION",
    "CHECKPOINT_RESTORE_ANNOTATION",
    "EVICTIONS_ANNOTATION",
    "GPU_FRACTION_ANNOTATION",
    "GPU_MEMORY_ANNOTATION",
    "GPU_MEMORY_LABEL",
    "LAST_CHECKPOINT_ANNOTATION",
    "LAST_EVICTION_ANNOTATION",
    "NUM_DEVICES_ANNOTATION",
    "POD_GROUP_ANNOTATION",
    "PREEMPTION_DELAY_ANNOTATION",
    "REQUESTED_MIN_RUNTIME_ANNOTATION",
    "SUBGROUP_LABEL",
    "ObjectRef",
    "Problem",
    "ProblemKind",
    "SearchBackoff",
    "Snapshot",
    "SnapshotJob",
    "load_objects",
    "load_snapshot_archive",
    "pod_task_status",
    "read_priority_class",
    "read_queue",
    "read_snapshot",
]


def __dir__() -> list[str]:
    return __all__


for _value in (ObjectRef, Problem, ProblemKind, SearchBackoff, Snapshot, SnapshotJob):
    _value.__module__ = __name__
del _value

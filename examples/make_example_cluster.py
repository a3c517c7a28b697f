"""Write the bundled example cluster snapshot, ``src/minruntime/data/example-cluster.json``.

The snapshot is what ``kubectl get queues,podgroups,pods,priorityclasses,configmaps,
pytorchjobs,jobs,cronjobs -A -o json`` would print for a small GPU cluster, evaluated at
2026-11-22T12:00:00Z (``NOW``). The output is deterministic: no clock, no randomness.

    python examples/make_example_cluster.py [OUTPUT]

Config (ConfigMap kai-scheduler/scheduler-config): defaultPreemptMinRuntime 5m,
defaultReclaimMinRuntime 15m, reclaimResolveMethod lca.

Queues (preempt MR / reclaim MR as set; "-" = inherit)::

    company            -      1h
      research         10m    30m
        research-vision  -    2h
        research-nlp     -    -
      production       never  -
        prod-inference   -    -
        prod-batch       5m   -
    sandbox            -      0s
      sandbox-users    -      -

Preemptors (pending): finetune-7b (research-nlp, build-preemptible 75) reclaims with MR 2h
from research-vision, 1h from production, 0s from sandbox; chat-api (prod-inference,
inference 125) reclaims with MR 30m from research, 1h from prod-batch, 0s from sandbox.
Preempt MR: research-* 10m, prod-inference never, prod-batch 5m, sandbox-users 5m (default).

Pod groups (namespace/name: queue, class; what it demonstrates at 12:00):

- vision-team/vit-pretrain: research-vision, build; owner-label preemptible (PyTorchJob label
  beats the legacy non-preemptible of build); elastic sub-groups master 1/1 + worker 4/6;
  started 11:00: reclaim-protected against finetune-7b (2h, until 13:00), not against
  chat-api (30m).
- vision-team/detr-sweep-lr3e-4: research-vision, train; legacy preemptible; gang 2/2;
  started 10:30: protected against finetune-7b (2h, until 12:30), not against chat-api.
- vision-team/segformer-eval: research-vision, train; elastic 1/4 with one Succeeded and one
  Failed pod (2 active); started 09:45: past every MR.
- vision-team/sam-finetune: research-vision, train; semi-preemptible (PodGroup label): core 2,
  surplus 2; started 11:30.
- nlp-team/finetune-7b: research-nlp, build-preemptible; PENDING preemptor, minMember 4.
- nlp-team/tokenizer-ablation: research-nlp, train; gang 1/1; started 11:55: preempt-protected
  (10m, until 12:05).
- nlp-team/bert-distill: research-nlp, train; gang 2/2; started 11:40: preempt MR 10m expired
  at 11:50, so finetune-7b may preempt it.
- nlp-team/llama-sft: research-nlp, build; explicit spec.preemptibility preemptible; elastic
  sub-groups launcher 1/1 (CPU) + workers 2/4; started 11:52; priority 100 is not below 75,
  so finetune-7b cannot preempt it; reclaim-protected against chat-api (30m, until 12:22).
- nlp-team/llm-serve-disagg: research-nlp, build; explicit spec.preemptibility preemptible; a
  sub-group tree: the job needs 2 of router 1/1 and decode, which needs 1 of decode-0 2/2 and
  decode-1 2/2; started 11:56: decode-1 is optional and goes whole, first.
- nlp-team/rlhf-reward-model: research-nlp, train; explicit non-preemptible on a low class;
  started 08:00: never a victim.
- nlp-team/data-dedup: research-nlp, train; gang 3/3 of CPU-only pods (8 CPUs each, no GPU);
  unparseable start time
  "2026-11-22 11:00": no start time (with a warning), not protected.
- serving/chat-api: prod-inference, inference; PENDING preemptor, minMember 2.
- serving/embeddings-api: prod-inference, inference; legacy non-preemptible; started a week ago.
- serving/reranker-canary: prod-inference, build-preemptible; legacy preemptible; started in
  the future (12:00:05, clock skew): preempt never; reclaim-protected against finetune-7b
  (1h, until 13:00:05).
- serving/sdxl-render: prod-inference, train; legacy preemptible; started 06:00: preempt MR
  never (production) still protects it; reclaim MR 1h against finetune-7b has expired.
- batch/nightly-eval-29921880: prod-batch, build; pods owned by Job (invalid label
  "sometimes", skipped with a warning) owned by CronJob nightly-eval (label preemptible, wins);
  gang 2/2; started 02:00: not protected.
- batch/feature-backfill: prod-batch, train; gang 2/2; started 11:57: preempt-protected (5m,
  until 12:02) and reclaim-protected (1h, until 12:57).
- batch/video-transcode: prod-batch, build-preemptible; elastic 2/3 with one Releasing pod;
  started 11:20: preempt MR 5m expired; reclaim-protected (1h, until 12:20).
- batch/etl-hourly: prod-batch, train; gang 2/2 of CPU-only pods (8 CPUs each, no GPU): a
  plan for GPUs passes over it, and its lost work is in pod-hours; running with no start-time
  annotation: not protected.
- users/alice-notebook: sandbox-users, build; legacy non-preemptible; started yesterday.
- users/bob-debug: sandbox-users, build; pod-label preemptible (the pod's own label beats the
  legacy rule); started 10:00.
- users/carol-hpo-trial-17: sandbox-users, train; started 11:59:59: reclaim MR 0s (sandbox)
  does not protect it; preempt MR 5m (default) does, until 12:04:59.
"""

from __future__ import annotations

import hashlib
import json
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["NOW", "OUTPUT", "build", "main", "render"]

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""The instant the example is meant to be evaluated at."""

OUTPUT = (
    Path(__file__).resolve().parents[1] / "src" / "minruntime" / "data" / "example-cluster.json"
)
"""Where ``main`` writes the snapshot by default."""

START_TIME_ANNOTATION = "kai.scheduler/last-start-timestamp"
PREEMPTIBILITY_KEY = "kai.scheduler/preemptibility"
SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
QUEUE_LABEL = "kai.scheduler/queue"
SCHEDULER_NAME = "kai-scheduler"
_UID_NAMESPACE = uuid.UUID("6f1c2a7e-5b0d-4c1e-9a53-2d4f8e7b9c10")

JSON = dict[str, Any]


def at(*, days: int = 0, hours: int = 0, minutes: int = 0, seconds: int = 0) -> str:
    """An RFC 3339 UTC time relative to ``NOW`` (negative offsets are in the past)."""
    moment = NOW + timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def uid(kind: str, namespace: str, name: str) -> str:
    """A stable uid for an object (a name-based UUID)."""
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}"))


def suffix(text: str, length: int = 5) -> str:
    """A stable pod-name suffix like the ones controllers generate."""
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    digest = hashlib.sha256(text.encode()).digest()
    return "".join(alphabet[byte % len(alphabet)] for byte in digest[:length])


# --- queues -------------------------------------------------------------------------------


def queue(
    name: str,
    display_name: str,
    gpu_quota: int,
    *,
    parent: str | None = None,
    preempt: str | None = None,
    reclaim: str | None = None,
) -> JSON:
    """A Queue (cluster-scoped) with its quota and optional min-runtime settings."""
    spec: JSON = {}
    if parent is not None:
        spec["parentQueue"] = parent
    spec["displayName"] = display_name
    if preempt is not None:
        spec["preemptMinRuntime"] = preempt
    if reclaim is not None:
        spec["reclaimMinRuntime"] = reclaim
    spec["resources"] = {
        "gpu": {"quota": gpu_quota, "limit": -1, "overQuotaWeight": 1},
        "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
        "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
    }
    return {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": spec,
    }


QUEUES = [
    queue("company", "Company", 64, reclaim="1h"),
    queue("research", "Research", 32, parent="company", reclaim="30m", preempt="10m"),
    queue("research-vision", "Research / Vision", 16, parent="research", reclaim="2h"),
    queue("research-nlp", "Research / NLP", 16, parent="research"),
    queue("production", "Production", 32, parent="company", preempt="-1"),
    queue("prod-inference", "Production / Inference", 16, parent="production"),
    queue("prod-batch", "Production / Batch", 16, parent="production", preempt="5m"),
    queue("sandbox", "Sandbox", 8, reclaim="0s"),
    queue("sandbox-users", "Sandbox / Users", 8, parent="sandbox"),
]

# --- priority classes and the scheduler config ------------------------------------------------

PRIORITY_CLASSES = [
    {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    for name, value in [
        ("train", 50),
        ("build-preemptible", 75),
        ("build", 100),
        ("inference", 125),
    ]
]

SCHEDULER_CONFIG: JSON = {
    "actions": "allocate, consolidation, reclaim, preempt, stalegangeviction",
    "tiers": [
        {
            "plugins": [
                {"name": "predicates"},
                {"name": "proportion"},
                {"name": "priority"},
                {
                    "name": "minruntime",
                    "arguments": {
                        "defaultPreemptMinRuntime": "5m",
                        "defaultReclaimMinRuntime": "15m",
                        "reclaimResolveMethod": "lca",
                    },
                },
            ]
        }
    ],
}

CONFIG_MAP: JSON = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "scheduler-config", "namespace": "kai-scheduler"},
    "data": {"config.yaml": json.dumps(SCHEDULER_CONFIG)},
}

# --- owners -------------------------------------------------------------------------------


def owner_reference(owner: JSON) -> JSON:
    """The ``ownerReferences`` entry pointing at ``owner``."""
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _container(image: str, resources: JSON, command: list[str] | None = None) -> JSON:
    container: JSON = {"name": "main", "image": image}
    if command:
        container["command"] = command
    container["resources"] = {"limits": resources}
    return container


# A CronJob names each run after its scheduled time in minutes since the epoch (02:00 today).
NIGHTLY_EVAL_RUN = f"nightly-eval-{int((NOW - timedelta(hours=10)).timestamp()) // 60}"

PYTORCH_JOB: JSON = {
    "apiVersion": "kubeflow.org/v1",
    "kind": "PyTorchJob",
    "metadata": {
        "name": "vit-pretrain",
        "namespace": "vision-team",
        "uid": uid("PyTorchJob", "vision-team", "vit-pretrain"),
        "labels": {QUEUE_LABEL: "research-vision", PREEMPTIBILITY_KEY: "preemptible"},
    },
    "spec": {
        "runPolicy": {"schedulingPolicy": {"priorityClass": "build", "minAvailable": 5}},
        "elasticPolicy": {"minReplicas": 4, "maxReplicas": 6},
        "pytorchReplicaSpecs": {
            "Master": {
                "replicas": 1,
                "restartPolicy": "OnFailure",
                "template": {
                    "spec": {
                        "schedulerName": SCHEDULER_NAME,
                        "containers": [
                            _container("nvcr.io/nvidia/pytorch:24.10-py3", {"nvidia.com/gpu": "8"})
                        ],
                    }
                },
            },
            "Worker": {
                "replicas": 6,
                "restartPolicy": "OnFailure",
                "template": {
                    "spec": {
                        "schedulerName": SCHEDULER_NAME,
                        "containers": [
                            _container("nvcr.io/nvidia/pytorch:24.10-py3", {"nvidia.com/gpu": "8"})
                        ],
                    }
                },
            },
        },
    },
}

CRON_JOB: JSON = {
    "apiVersion": "batch/v1",
    "kind": "CronJob",
    "metadata": {
        "name": "nightly-eval",
        "namespace": "batch",
        "uid": uid("CronJob", "batch", "nightly-eval"),
        "labels": {QUEUE_LABEL: "prod-batch", PREEMPTIBILITY_KEY: "preemptible"},
    },
    "spec": {
        "schedule": "0 2 * * *",
        "concurrencyPolicy": "Forbid",
        "jobTemplate": {
            "metadata": {"labels": {PREEMPTIBILITY_KEY: "sometimes"}},
            "spec": {"parallelism": 2, "completions": 2},
        },
    },
}

BATCH_JOB: JSON = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {
        "name": NIGHTLY_EVAL_RUN,
        "namespace": "batch",
        "uid": uid("Job", "batch", NIGHTLY_EVAL_RUN),
        "labels": {PREEMPTIBILITY_KEY: "sometimes"},
        "ownerReferences": [owner_reference(CRON_JOB)],
    },
    "spec": {
        "parallelism": 2,
        "completions": 2,
        "template": {
            "spec": {
                "schedulerName": SCHEDULER_NAME,
                "restartPolicy": "Never",
                "containers": [
                    _container("ghcr.io/acme/eval-harness:2026.11.3", {"nvidia.com/gpu": "4"})
                ],
            }
        },
    },
}

OWNERS = [PYTORCH_JOB, BATCH_JOB, CRON_JOB]

# --- jobs: pod groups and their pods ---------------------------------------------------------

RELEASING = "Releasing"  # a Running pod with metadata.deletionTimestamp set


@dataclass(frozen=True)
class SubGroup:
    """A pod group's leaf sub-group: its name, minMember, the phases of its pods, and the set
    it belongs to (if any)."""

    name: str
    min_member: int
    phases: tuple[str, ...]
    parent: str | None = None


@dataclass(frozen=True)
class SubGroupSet:
    """A sub-group that holds sub-groups: its name, parent and minSubGroup (None: all)."""

    name: str
    parent: str | None = None
    min_sub_group: int | None = None


@dataclass(frozen=True)
class JobSpec:
    """One pod group and its pods.

    ``phases`` lists the pod phases of a job without sub-groups (``RELEASING`` for a pod being
    deleted); ``sub_groups`` replaces it for a job with sub-groups.
    """

    namespace: str
    name: str
    queue: str
    priority_class: str
    min_member: int
    image: str
    gpus: str = "1"
    """Each pod's GPUs; "0": a CPU-only pod (8 CPUs, 32Gi of memory)."""
    phases: tuple[str, ...] = ()
    sub_groups: tuple[SubGroup, ...] = ()
    sets: tuple[SubGroupSet, ...] = ()
    min_sub_group: int | None = None
    start: str | None = None
    preemptibility: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    pod_labels: dict[str, str] = field(default_factory=dict)
    owner: JSON | None = None

    @property
    def pod_count(self) -> int:
        return sum(len(sg.phases) for sg in self.sub_groups) or len(self.phases)


def running(count: int) -> tuple[str, ...]:
    return ("Running",) * count


def pending(count: int) -> tuple[str, ...]:
    return ("Pending",) * count


PYTORCH = "nvcr.io/nvidia/pytorch:24.10-py3"
NEMO = "nvcr.io/nvidia/nemo:24.09"
TRITON = "nvcr.io/nvidia/tritonserver:24.10-py3"
VLLM = "vllm/vllm-openai:v0.6.3"

JOBS = [
    # research-vision
    JobSpec(
        "vision-team",
        "vit-pretrain",
        "research-vision",
        "build",
        5,
        PYTORCH,
        gpus="8",
        sub_groups=(SubGroup("master", 1, running(1)), SubGroup("worker", 4, running(6))),
        start=at(hours=-1),
        owner=PYTORCH_JOB,
    ),
    JobSpec(
        "vision-team",
        "detr-sweep-lr3e-4",
        "research-vision",
        "train",
        2,
        PYTORCH,
        gpus="2",
        phases=running(2),
        start=at(hours=-1, minutes=-30),
    ),
    JobSpec(
        "vision-team",
        "segformer-eval",
        "research-vision",
        "train",
        1,
        PYTORCH,
        phases=("Running", "Running", "Succeeded", "Failed"),
        start=at(hours=-2, minutes=-15),
    ),
    JobSpec(
        "vision-team",
        "sam-finetune",
        "research-vision",
        "train",
        2,
        PYTORCH,
        gpus="4",
        phases=running(4),
        start=at(minutes=-30),
        labels={PREEMPTIBILITY_KEY: "semi-preemptible"},
    ),
    # research-nlp
    JobSpec(
        "nlp-team",
        "finetune-7b",
        "research-nlp",
        "build-preemptible",
        4,
        NEMO,
        gpus="8",
        phases=pending(4),
    ),
    JobSpec(
        "nlp-team",
        "tokenizer-ablation",
        "research-nlp",
        "train",
        1,
        PYTORCH,
        phases=running(1),
        start=at(minutes=-5),
    ),
    JobSpec(
        "nlp-team",
        "bert-distill",
        "research-nlp",
        "train",
        2,
        PYTORCH,
        gpus="2",
        phases=running(2),
        start=at(minutes=-20),
    ),
    JobSpec(
        "nlp-team",
        "llama-sft",
        "research-nlp",
        "build",
        3,
        NEMO,
        gpus="8",
        sub_groups=(SubGroup("launcher", 1, running(1)), SubGroup("workers", 2, running(4))),
        start=at(minutes=-8),
        preemptibility="preemptible",
    ),
    JobSpec(
        "nlp-team",
        "llm-serve-disagg",
        "research-nlp",
        "build",
        0,
        TRITON,
        gpus="2",
        sets=(SubGroupSet("decode", min_sub_group=1),),
        min_sub_group=2,
        sub_groups=(
            SubGroup("router", 1, running(1)),
            SubGroup("decode-0", 2, running(2), parent="decode"),
            SubGroup("decode-1", 2, running(2), parent="decode"),
        ),
        start=at(minutes=-4),
        preemptibility="preemptible",
    ),
    JobSpec(
        "nlp-team",
        "rlhf-reward-model",
        "research-nlp",
        "train",
        2,
        NEMO,
        gpus="8",
        phases=running(2),
        start=at(hours=-4),
        preemptibility="non-preemptible",
    ),
    JobSpec(
        "nlp-team",
        "data-dedup",
        "research-nlp",
        "train",
        3,
        PYTORCH,
        gpus="0",
        phases=running(3),
        start="2026-11-22 11:00",
    ),
    # prod-inference
    JobSpec(
        "serving", "chat-api", "prod-inference", "inference", 2, VLLM, gpus="2", phases=pending(2)
    ),
    JobSpec(
        "serving",
        "embeddings-api",
        "prod-inference",
        "inference",
        2,
        TRITON,
        phases=running(2),
        start=at(days=-7, hours=-4),
    ),
    JobSpec(
        "serving",
        "reranker-canary",
        "prod-inference",
        "build-preemptible",
        1,
        TRITON,
        phases=running(1),
        start=at(seconds=5),
    ),
    JobSpec(
        "serving",
        "sdxl-render",
        "prod-inference",
        "train",
        2,
        TRITON,
        phases=running(2),
        start=at(hours=-6),
    ),
    # prod-batch
    JobSpec(
        "batch",
        NIGHTLY_EVAL_RUN,
        "prod-batch",
        "build",
        2,
        "ghcr.io/acme/eval-harness:2026.11.3",
        gpus="4",
        phases=running(2),
        start=at(hours=-10),
        owner=BATCH_JOB,
    ),
    JobSpec(
        "batch",
        "feature-backfill",
        "prod-batch",
        "train",
        2,
        "ghcr.io/acme/feature-pipeline:1.42.0",
        phases=running(2),
        start=at(minutes=-3),
    ),
    JobSpec(
        "batch",
        "video-transcode",
        "prod-batch",
        "build-preemptible",
        2,
        "ghcr.io/acme/transcoder:3.8.1",
        phases=("Running", "Running", RELEASING),
        start=at(minutes=-40),
    ),
    JobSpec(
        "batch",
        "etl-hourly",
        "prod-batch",
        "train",
        2,
        "ghcr.io/acme/feature-pipeline:1.42.0",
        gpus="0",
        phases=running(2),
    ),
    # sandbox-users
    JobSpec(
        "users",
        "alice-notebook",
        "sandbox-users",
        "build",
        1,
        "jupyter/pytorch-notebook:2024-10-21",
        phases=running(1),
        start=at(hours=-19, minutes=-30),
    ),
    JobSpec(
        "users",
        "bob-debug",
        "sandbox-users",
        "build",
        1,
        PYTORCH,
        phases=running(1),
        start=at(hours=-2),
        pod_labels={PREEMPTIBILITY_KEY: "preemptible"},
    ),
    JobSpec(
        "users",
        "carol-hpo-trial-17",
        "sandbox-users",
        "train",
        1,
        PYTORCH,
        phases=running(1),
        start=at(seconds=-1),
    ),
]

GPU_NODES = [f"dgx-a100-{i:02d}" for i in range(1, 13)] + [
    f"dgx-h100-{i:02d}" for i in range(1, 10)
]
"""Twenty-one 8-GPU nodes: the running pods use 167 of the 168 GPUs, so both preemptors must
evict."""
GPUS_PER_NODE = 8
CPU_NODE = "cpu-node-01"


class NodePool:
    """First-fit placement of pods on the GPU nodes, in the order the jobs are listed."""

    def __init__(self) -> None:
        self.free = dict.fromkeys(GPU_NODES, GPUS_PER_NODE)

    def place(self, gpus: int, *, hold: bool = True) -> str:
        """The first node with ``gpus`` free; ``hold=False`` for a pod that has finished."""
        for node, free in self.free.items():
            if free >= gpus:
                if hold:
                    self.free[node] = free - gpus
                return node
        raise RuntimeError(f"no node has {gpus} free GPUs; make the cluster bigger")


def pod_group(job: JobSpec) -> JSON:
    """The PodGroup of ``job``."""
    metadata: JSON = {"name": job.name, "namespace": job.namespace}
    if job.labels:
        metadata["labels"] = dict(job.labels)
    if job.start is not None:
        metadata["annotations"] = {START_TIME_ANNOTATION: job.start}
    spec: JSON = {"queue": job.queue}
    if job.min_sub_group is None:
        spec["minMember"] = job.min_member
    else:  # the job needs minSubGroup of its sub-groups (it excludes minMember)
        spec["minSubGroup"] = job.min_sub_group
    spec["priorityClassName"] = job.priority_class
    if job.preemptibility is not None:
        spec["preemptibility"] = job.preemptibility
    if job.sub_groups:
        sets = [
            {"name": node.name}
            | ({} if node.parent is None else {"parent": node.parent})
            | ({} if node.min_sub_group is None else {"minSubGroup": node.min_sub_group})
            for node in job.sets
        ]
        spec["subGroups"] = sets + [
            {"name": sg.name}
            | ({} if sg.parent is None else {"parent": sg.parent})
            | {"minMember": sg.min_member}
            for sg in job.sub_groups
        ]
    return {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": spec,
    }


def _pod_names(job: JobSpec) -> list[tuple[str, str | None, int, str]]:
    """(pod name, sub-group or None, index, phase) for each pod of ``job``, in listing order."""
    if job.sub_groups:
        return [
            (f"{job.name}-{sg.name}-{i}", sg.name, i, phase)
            for sg in job.sub_groups
            for i, phase in enumerate(sg.phases)
        ]
    if job.owner is not None and job.owner["kind"] == "Job":  # the Job controller's names
        return [
            (f"{job.name}-{suffix(f'{job.namespace}/{job.name}/{i}')}", None, i, phase)
            for i, phase in enumerate(job.phases)
        ]
    return [(f"{job.name}-{i}", None, i, phase) for i, phase in enumerate(job.phases)]


def _controller_labels(job: JobSpec, sub_group: str | None, index: int) -> dict[str, str]:
    """The labels the owning controller puts on its pods."""
    if job.owner is None:
        return {}
    owner_name = job.owner["metadata"]["name"]
    if job.owner["kind"] == "PyTorchJob":
        return {
            "training.kubeflow.org/job-name": owner_name,
            "training.kubeflow.org/replica-type": sub_group or "worker",
            "training.kubeflow.org/replica-index": str(index),
        }
    return {"batch.kubernetes.io/job-name": owner_name, "job-name": owner_name}


def pods(job: JobSpec, pool: NodePool) -> list[JSON]:
    """The pods of ``job``; scheduled pods take a node from ``pool``."""
    result: list[JSON] = []
    for name, sub_group, index, phase in _pod_names(job):
        labels = {QUEUE_LABEL: job.queue}
        if sub_group is not None:
            labels[SUBGROUP_LABEL] = sub_group
        labels.update(_controller_labels(job, sub_group, index))
        labels.update(job.pod_labels)
        metadata: JSON = {
            "name": name,
            "namespace": job.namespace,
            "labels": labels,
            "annotations": {"pod-group-name": job.name},
        }
        if job.owner is not None:
            metadata["ownerReferences"] = [owner_reference(job.owner)]
        if phase == RELEASING:
            metadata["deletionTimestamp"] = at(seconds=-20)
            metadata["deletionGracePeriodSeconds"] = 30
        launcher = sub_group == "launcher"
        cpu_only = launcher or job.gpus == "0"  # a launcher, or a data pipeline: no GPU
        resources = (
            {"cpu": "2" if launcher else "8", "memory": "4Gi" if launcher else "32Gi"}
            if cpu_only
            else {"nvidia.com/gpu": job.gpus}
        )
        spec: JSON = {
            "schedulerName": SCHEDULER_NAME,
            "priorityClassName": job.priority_class,
            "containers": [_container(job.image, resources)],
        }
        if phase != "Pending":
            finished = phase in ("Succeeded", "Failed")  # ran there, holds nothing now
            spec["nodeName"] = (
                CPU_NODE if cpu_only else pool.place(int(job.gpus), hold=not finished)
            )
        result.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": metadata,
                "spec": spec,
                "status": {"phase": "Running" if phase == RELEASING else phase},
            }
        )
    return result


def _key(item: JSON) -> tuple[str, str]:
    return item["metadata"].get("namespace", ""), item["metadata"]["name"]


def build() -> JSON:
    """The whole snapshot as a ``kubectl get -o json`` List."""
    pool = NodePool()
    pod_groups = sorted((pod_group(job) for job in JOBS), key=_key)
    all_pods = sorted((pod for job in JOBS for pod in pods(job, pool)), key=_key)
    items: list[JSON] = [
        *sorted(QUEUES, key=_key),
        *pod_groups,
        *all_pods,
        *PRIORITY_CLASSES,
        CONFIG_MAP,
        PYTORCH_JOB,
        BATCH_JOB,
        CRON_JOB,
    ]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def render() -> str:
    """The snapshot's file text: JSON with an indent of 2 and a trailing newline."""
    return json.dumps(build(), indent=2) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the snapshot to ``argv[0]``, or to ``OUTPUT`` by default."""
    args = list(sys.argv[1:] if argv is None else argv)
    output = Path(args[0]) if args else OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render(), encoding="utf-8")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

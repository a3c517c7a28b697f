"""A generated cluster snapshot of any size, as ``kubectl get -o json`` prints it (for benchmarks).

``python benchmarks/snapshot.py 5000 40000 > big.json`` writes 5,000 pod groups with 40,000 pods
in a 3-level queue tree; ``minruntime explain big.json`` then explains it.
"""

from __future__ import annotations

import json
import random
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
CLASSES = {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125}
VALUES = [None, None, None, "0s", "5m", "10m", "30m", "1h", "2h", "-1"]


def stamp(moment: datetime) -> str:
    """A time as kubectl prints it (RFC 3339, seconds, ``Z``)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def priority_classes() -> list[dict[str, Any]]:
    """The four PriorityClass objects of :data:`CLASSES`."""
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        for name, value in CLASSES.items()
    ]


def make_snapshot(pod_groups: int, pods: int, *, seed: int = 7) -> dict[str, Any]:
    """A ``List`` of Queues, PriorityClasses, a scheduler ConfigMap, PodGroups and Pods."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    leaves: list[str] = []
    for d in range(5):
        department = f"dept-{d}"
        items.append(_queue(department, None, rng))
        for t in range(8):
            team = f"{department}-team-{t}"
            items.append(_queue(team, department, rng))
            for leaf in range(4):
                name = f"{team}-q{leaf}"
                items.append(_queue(name, team, rng))
                leaves.append(name)
    items.extend(priority_classes())
    config = {
        "tiers": [
            {
                "plugins": [
                    {"name": "proportion"},
                    {
                        "name": "minruntime",
                        "arguments": {
                            "defaultPreemptMinRuntime": "5m",
                            "defaultReclaimMinRuntime": "15m",
                        },
                    },
                ]
            }
        ]
    }
    items.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "scheduler-config", "namespace": "kai-scheduler"},
            "data": {"config.yaml": json.dumps(config)},
        }
    )
    per_group = [1] * pod_groups
    for _ in range(pods - pod_groups):
        per_group[rng.randrange(pod_groups)] += 1
    for g in range(pod_groups):
        namespace = f"ns-{g % 50}"
        name = f"job-{g}"
        size = per_group[g]
        running = rng.random() < 0.9
        elastic = rng.random() < 0.1
        annotations = {}
        if running:
            start = NOW - timedelta(seconds=rng.randint(0, 6 * 3600))
            annotations["kai.scheduler/last-start-timestamp"] = stamp(start)
        spec: dict[str, Any] = {
            "queue": rng.choice(leaves),
            "minMember": max(1, size // 2) if elastic else size,
            "priorityClassName": rng.choice(list(CLASSES)),
        }
        if rng.random() < 0.3:
            spec["preemptibility"] = rng.choice(["preemptible", "non-preemptible"])
        items.append(
            {
                "apiVersion": "scheduling.run.ai/v2alpha2",
                "kind": "PodGroup",
                "metadata": {"name": name, "namespace": namespace, "annotations": annotations},
                "spec": spec,
            }
        )
        for p in range(size):
            pod: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{name}-{p}",
                    "namespace": namespace,
                    "annotations": {"pod-group-name": name},
                },
                "spec": {"schedulerName": "kai-scheduler"},
                "status": {"phase": "Running" if running else "Pending"},
            }
            if running:
                pod["spec"]["nodeName"] = f"node-{rng.randrange(500)}"
            items.append(pod)
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def _queue(name: str, parent: str | None, rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent is not None:
        spec["parentQueue"] = parent
    preempt, reclaim = rng.choice(VALUES), rng.choice(VALUES)
    if preempt is not None:
        spec["preemptMinRuntime"] = preempt
    if reclaim is not None:
        spec["reclaimMinRuntime"] = reclaim
    return {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": spec,
    }


if __name__ == "__main__":
    groups = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    pod_count = int(sys.argv[2]) if len(sys.argv) > 2 else 40000
    json.dump(make_snapshot(groups, pod_count), sys.stdout)

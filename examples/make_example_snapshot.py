"""Build ``examples/example-snapshot.zip``: the bundled example cluster in the shape of the
reference scheduler's own snapshot (the ZIP its ``/get-snapshot`` endpoint returns).

    python examples/make_example_snapshot.py

One ``snapshot.json`` holding ``config`` (the scheduler configuration, with its tiers and plugin
arguments), ``schedulerParams`` and ``rawObjects`` (lists keyed by what they hold). The objects
are those of ``src/minruntime/data/example-cluster.json`` as the scheduler's cache writes them:
without ``apiVersion`` and ``kind`` (the list's key says what they are). The owner objects of the
example (a Job, a CronJob, a PyTorchJob) are not in the reference's snapshot, so neither are
they here. The output is deterministic (fixed member time), so that the file in the repository
can be checked to be this script's output.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "src" / "minruntime" / "data" / "example-cluster.json"
OUTPUT = ROOT / "examples" / "example-snapshot.zip"
KEYS = {
    "Queue": "queues",
    "PodGroup": "podGroups",
    "Pod": "pods",
    "PriorityClass": "priorityClasses",
    "ConfigMap": "configMaps",
}
NODES = [
    {
        "metadata": {"name": f"gpu-node-{i}", "labels": {"nvidia.com/gpu.product": "H100"}},
        "status": {"allocatable": {"nvidia.com/gpu": "8", "cpu": "96", "memory": "1Ti"}},
    }
    for i in range(2)
]


def snapshot() -> dict[str, Any]:
    """The snapshot document built from the example cluster."""
    cluster = json.loads(CLUSTER.read_text(encoding="utf-8"))
    raw: dict[str, list[Any]] = {key: [] for key in KEYS.values()}
    config: Any = None
    for obj in cluster["items"]:
        key = KEYS.get(obj["kind"])
        if key is None:
            continue  # owners are not in the reference scheduler's snapshot
        if obj["kind"] == "ConfigMap":
            (text,) = obj["data"].values()
            config = yaml.safe_load(text)
        raw[key].append(
            {name: value for name, value in obj.items() if name not in ("apiVersion", "kind")}
        )
    raw["nodes"] = NODES
    return {
        "config": config,
        "schedulerParams": {"schedulerName": "kai-scheduler", "partitionParams": {}},
        "rawObjects": raw,
    }


def archive(document: dict[str, Any]) -> bytes:
    """The ZIP the endpoint returns: one deflated ``snapshot.json``, a fixed member time."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        member = zipfile.ZipInfo("snapshot.json", date_time=(2026, 11, 22, 12, 0, 0))
        member.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(member, json.dumps(document, indent=2, sort_keys=True) + "\n")
    return buffer.getvalue()


def main() -> None:
    OUTPUT.write_bytes(archive(snapshot()))
    print(f"written to {OUTPUT}")


if __name__ == "__main__":
    main()

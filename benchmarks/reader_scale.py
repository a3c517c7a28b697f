"""Reading a cluster at scale: ``python benchmarks/reader_scale.py`` (``--scale 0.01`` for a
smoke run).

Generates a cluster of 200 queues, 20,000 pod groups and 160,000 pods as one ``kubectl get -o
json`` List (about 83 MB, written without indentation; the issue's 37 MB cluster had leaner
objects; realistic fields: metadata with labels, annotations, owner references and a creation
time, spec, status), then measures side by side, in
one run:

- ``json.load`` of the file with the collector off: the floor, time and peak memory
  (tracemalloc). A parse builds no reference cycle, so the collector's walks during it find
  nothing: a program that only loads the file need not pay for them, and the command does not
  (docs/decisions/explain-works-without-the-collector.md);
- ``json.load`` as a program calls it by default, the collector on (for comparison);
- the reader: ``load_objects`` + ``read_snapshot`` of the file's text (what the command calls),
  with the collector on (the library leaves it as the process has it);
- the whole ``minruntime explain FILE`` (in-process ``main``, output to a null stream), also with
  ``--preemptor`` and ``--output json``.

Every time is the best of ``--repeat`` runs, the cases interleaved (so that a busy moment of a
shared machine hits each alike); memory is measured in separate runs (tracemalloc slows what it
traces). Then, where the time goes: the floor and each command once more, the command's stages
(read and parse, read the objects, the report, the output) timed in the process. Targets
(issue 32, on this cluster and on the lean one): explain at most 3x the floor's time (3.5x
with ``--preemptor`` and JSON output), memory at most 2x its peak. Prints a table and writes
``benchmarks/reader_scale.json`` and ``benchmarks/reader_scale.md``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import io
import json
import os
import platform
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import minruntime.cli as cli
from minruntime.cli import main as cli_main
from minruntime.kube import SUBGROUP_LABEL, load_objects, read_snapshot
from minruntime.starttime import START_TIME_ANNOTATION

sys.path.insert(0, str(Path(__file__).resolve().parent))

from snapshot import CLASSES, priority_classes, stamp  # the cluster pieces both generators share

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
HERE = Path(__file__).resolve().parent
VALUES = [None, None, "0s", "5m", "10m", "30m", "1h", "2h", "-1"]


def make_cluster(
    queues: int, pod_groups: int, pods: int, *, seed: int = 19, lean: bool = False
) -> dict[str, Any]:
    """A ``List`` as ``kubectl get queues,podgroups,pods,priorityclasses,configmaps -o json``
    prints it: ``queues`` queues in two levels, ``pod_groups`` groups of ``pods`` pods.

    ``lean``: the same objects with only the fields the reader reads (:func:`_leaned`).
    """
    rng = random.Random(seed)
    items: list[dict[str, Any]] = []
    tops = max(1, queues // 20)
    leaves: list[str] = []
    for q in range(queues):
        name, parent = (f"dept-{q}", None) if q < tops else (f"team-{q}", f"dept-{q % tops}")
        spec: dict[str, Any] = {"resources": {"gpu": {"quota": 8, "limit": -1}}}
        if parent is not None:
            spec["parentQueue"] = parent
            leaves.append(name)
        for key in ("preemptMinRuntime", "reclaimMinRuntime"):
            value = rng.choice(VALUES)
            if value is not None:
                spec[key] = value
        items.append(
            {
                "apiVersion": "scheduling.run.ai/v2",
                "kind": "Queue",
                "metadata": {"name": name, "uid": f"q-{q}", "resourceVersion": str(1000 + q)},
                "spec": spec,
            }
        )
    leaves = leaves or [items[0]["metadata"]["name"]]
    items.extend(priority_classes())
    arguments = {"defaultPreemptMinRuntime": "5m", "defaultReclaimMinRuntime": "15m"}
    config = {"tiers": [{"plugins": [{"name": "minruntime", "arguments": arguments}]}]}
    items.append(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "scheduler-config", "namespace": "kai-scheduler"},
            "data": {"config.yaml": json.dumps(config)},
        }
    )
    per_group = [pods // pod_groups] * pod_groups
    for extra in range(pods - sum(per_group)):
        per_group[extra % pod_groups] += 1
    for g in range(pod_groups):
        namespace, name, size = f"ns-{g % 40}", f"job-{g}", per_group[g]
        running = rng.random() < 0.9
        created = NOW - timedelta(seconds=rng.randint(600, 8 * 3600))
        owner = [{"kind": "PyTorchJob", "name": name, "uid": f"o-{g}", "controller": True}]
        annotations = {}
        if running:
            annotations["kai.scheduler/last-start-timestamp"] = stamp(
                created + timedelta(minutes=2)
            )
        group_spec: dict[str, Any] = {
            "queue": rng.choice(leaves),
            "minMember": size,
            "priorityClassName": rng.choice(list(CLASSES)),
        }
        split = size >= 2 and rng.random() < 0.05
        if split:
            group_spec.pop("minMember")
            group_spec["subGroups"] = [
                {"name": "leader", "minMember": 1},
                {"name": "workers", "minMember": size - 1},
            ]
        items.append(
            {
                "apiVersion": "scheduling.run.ai/v2alpha2",
                "kind": "PodGroup",
                "metadata": {
                    "name": name,
                    "namespace": namespace,
                    "uid": f"pg-{g}",
                    "creationTimestamp": stamp(created),
                    "labels": {"app": name},
                    "annotations": annotations,
                    "ownerReferences": owner,
                },
                "spec": group_spec,
                "status": {"phase": "Running" if running else "Pending"},
            }
        )
        for p in range(size):
            labels = {"app": name}
            if split:
                labels["kai.scheduler/subgroup-name"] = "leader" if p == 0 else "workers"
            pod: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{name}-{p}",
                    "namespace": namespace,
                    "creationTimestamp": stamp(created),
                    "labels": labels,
                    "annotations": {"pod-group-name": name},
                    "ownerReferences": owner,
                },
                "spec": {
                    "containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                },
                "status": {"phase": "Running" if running else "Pending"},
            }
            if running:
                pod["spec"]["nodeName"] = f"node-{rng.randrange(2000)}"
            items.append(pod)
    if lean:
        items = [_leaned(item) for item in items]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


_NOT_READ = frozenset({"uid", "resourceVersion", "creationTimestamp", "ownerReferences"})
"""Metadata the reader does not read (for the objects of :func:`make_cluster`)."""


def _leaned(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with only the fields the reader reads (the operators page names them): no uid,
    resource version, creation time or owner references, no label but the sub-group's, no
    empty annotations, no queue resources and no PodGroup status."""
    metadata = {key: value for key, value in item["metadata"].items() if key not in _NOT_READ}
    labels = {k: v for k, v in metadata.pop("labels", {}).items() if k == SUBGROUP_LABEL}
    if labels:
        metadata["labels"] = labels
        metadata["annotations"] = metadata.pop("annotations")  # after the labels, as before
    if metadata.get("annotations") == {}:
        del metadata["annotations"]
    leaned = {**item, "metadata": metadata}
    if item["kind"] == "Queue":
        leaned["spec"] = {key: value for key, value in item["spec"].items() if key != "resources"}
    elif item["kind"] == "PodGroup":
        del leaned["status"]
    return leaned


def first_pending(items: list[dict[str, Any]]) -> str:
    """The preemptor the benchmarks give the command: the first PodGroup of ``items`` (the
    objects of :func:`make_cluster`) that never started, as ``namespace/name``."""
    return next(
        f"{obj['metadata']['namespace']}/{obj['metadata']['name']}"
        for obj in items
        if obj.get("kind") == "PodGroup"
        and START_TIME_ANNOTATION not in obj["metadata"].get("annotations", {})
    )


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _peak(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _load(path: str) -> object:
    """``json.load`` of the file, as a program calls it (the collector as the process has it)."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _quiet_load(path: str) -> int:
    """The floor: :func:`_load` with the collector off, switched off and back as the command
    switches it, and the document freed before the collector is back, as the command frees its
    own; returns how many entries its top level held.

    Freed once the collector is back (as this floor was until this was found), the document is
    still alive at the first allocation after it: the collection that allocation starts walks
    every mapping of it (a million and more were made while the collector was off, and they are
    all in its youngest generation), about a third of a second on the lean cluster, which the
    command never pays (docs/performance.md)."""
    with cli._without_collector():
        document = _load(path)
        entries = len(document) if isinstance(document, dict | list) else 0
        del document
    return entries


def _explain(path: str, *extra: str) -> Callable[[], object]:
    def run() -> int:
        out, err = io.StringIO(), io.StringIO()
        status = cli_main(
            ["explain", path, "--now", NOW.isoformat(), *extra], stdout=out, stderr=err, now=NOW
        )
        if status != 0:
            raise RuntimeError(f"explain failed ({status}): {err.getvalue()[:400]}")
        return status

    return run


_STAGES = ("read_sources", "read_snapshot", "build_report")
"""The command's stages, as ``minruntime.cli`` calls them; what follows the report (the table,
or the JSON data and text) is the rest of the command's time."""


def _stages(path: str, *extra: str) -> dict[str, float]:
    """One run of the floor, then of the command, its stages timed in the process (each stage
    function of ``minruntime.cli`` wrapped for the run): seconds by stage."""
    spent: dict[str, float] = {}

    def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def stage(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

        return stage

    originals = {name: getattr(cli, name) for name in _STAGES}
    gc.collect()
    start = time.perf_counter()
    _quiet_load(path)
    spent["floor"] = time.perf_counter() - start
    gc.collect()
    try:
        for name, function in originals.items():
            setattr(cli, name, timed(name, function))
        start = time.perf_counter()
        _explain(path, *extra)()
        total = time.perf_counter() - start
    finally:
        for name, function in originals.items():
            setattr(cli, name, function)
    spent["output"] = total - sum(spent[name] for name in _STAGES)
    spent["command"] = total
    return spent


def run(
    scale: float = 1.0, *, repeat: int = 2, write: bool = True, lean: bool = False
) -> dict[str, Any]:
    """Generate the cluster at ``scale`` (``lean``: :func:`make_cluster`'s lean objects) and
    measure; returns the figures (and writes them, the lean cluster's beside the others as
    ``reader_scale-lean.json`` and ``.md``)."""
    counts = counts_at(scale)
    at_start = machine()
    cluster = make_cluster(counts["queues"], counts["podGroups"], counts["pods"], lean=lean)
    pending = first_pending(cluster["items"])
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "cluster.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(cluster, handle)
        del cluster
        size = os.path.getsize(path)

        def reader() -> object:
            with open(path, encoding="utf-8") as handle:
                return read_snapshot(load_objects(handle.read(), origin=path), now=NOW)

        snapshot = reader()
        assert isinstance(
            snapshot,
            type(read_snapshot([{"kind": "PriorityClass", "metadata": {"name": "x"}, "value": 1}])),
        )
        read = {
            "jobs": len(snapshot.jobs),
            "tasks": sum(job.task_count for job in snapshot.jobs),
            "problems": sum(1 for _ in snapshot.every_problem()),
        }
        del snapshot
        cases: dict[str, Callable[[], object]] = {
            "floor": functools.partial(_quiet_load, path),
            "json.load": functools.partial(_load, path),
            "reader": reader,
            "explain": _explain(path),
            "explain --preemptor --output json": _explain(
                path, "--preemptor", pending, "--output", "json"
            ),
        }
        seconds = {name: float("inf") for name in cases}
        for _ in range(repeat):  # interleaved, so that a busy moment hits every case alike
            for name, fn in cases.items():
                seconds[name] = min(seconds[name], _best(fn, 1))
        peaks = {name: _peak(fn) for name, fn in cases.items()}
        # where the time goes: of ``repeat`` runs of each command, the one with the lowest ratio
        stages = {}
        for name, extra in (
            ("explain", ()),
            ("explain --preemptor --output json", ("--preemptor", pending, "--output", "json")),
        ):
            runs = [_stages(path, *extra) for _ in range(repeat)]
            stages[name] = min(runs, key=lambda r: r["command"] / r["floor"])
    floor_s, floor_m = seconds["floor"], peaks["floor"]
    results = {
        "scale": scale,
        "lean": lean,
        "counts": counts,
        "file_bytes": size,
        "read": read,
        "preemptor": pending,
        "cases": {
            name: {
                "seconds": seconds[name],
                "peak_bytes": peaks[name],
                "time_ratio": seconds[name] / floor_s,
                "memory_ratio": peaks[name] / floor_m,
            }
            for name in cases
        },
        "stages": stages,
        "targets": TARGETS,
        "machine": at_start,
        "repeat": repeat,
    }
    publish("reader_scale", results, _table(results), lean=lean, write=write)
    return results


def publish(stem: str, results: dict[str, Any], table: str, *, lean: bool, write: bool) -> None:
    """Print ``table``; with ``write``, write ``results`` and ``table`` beside this file as
    ``STEM.json`` and ``STEM.md`` (``STEM-lean`` for the lean cluster)."""
    print(table)
    if write:
        name = f"{stem}-lean" if lean else stem
        (HERE / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n")
        (HERE / f"{name}.md").write_text(table + "\n")


def counts_at(scale: float) -> dict[str, int]:
    """How many queues, pod groups and pods the generated cluster holds at ``scale``."""
    return {
        "queues": max(2, round(200 * scale)),
        "podGroups": max(1, round(20_000 * scale)),
        "pods": max(1, round(160_000 * scale)),
    }


def machine() -> dict[str, Any]:
    """The Python, platform, CPUs and load average of this machine, now (before a run)."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def load_text(machine: dict[str, Any]) -> str:
    """The load average of :func:`machine`, as the tables give it."""
    loads = machine["load_average"]
    return ", ".join(f"{value:.1f}" for value in loads) if loads else "unknown"


TARGETS = {"explain": 3.0, "explain --preemptor --output json": 3.5, "memory": 2.0}
"""Issue 32's bounds, in units of the floor: time for each command, and peak memory."""

_CASES = {
    "floor": "`json.load`, the collector off (the floor)",
    "json.load": "`json.load`, the collector on",
    "reader": "the reader, the collector on",
}
_STAGE_NAMES = {
    "floor": "the floor",
    "read_sources": "read and parse",
    "read_snapshot": "read the objects",
    "build_report": "the report",
    "output": "the output",
    "command": "the whole command",
}


def _table(results: dict[str, Any]) -> str:
    counts = results["counts"]
    load = load_text(results["machine"])
    lines = [
        f"Reading a{' lean' if results.get('lean') else ''} cluster at scale: "
        f"{counts['queues']:,} queues, {counts['podGroups']:,} pod "
        f"groups, {counts['pods']:,} pods ({results['file_bytes'] / 1e6:.1f} MB).",
        "",
        f"`python benchmarks/reader_scale.py --scale {results['scale']} --repeat "
        f"{results['repeat']}{' --lean' if results.get('lean') else ''}`; best of {results['repeat']}; Python "
        f"{results['machine']['python']}, {results['machine']['cpus']} CPUs, load average "
        f"{load} at the start.",
        "",
        "| case | time (s) | x floor | x `json.load`, the collector on | peak memory (MiB) | x floor |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    loaded = results["cases"]["json.load"]["seconds"]
    for name, case in results["cases"].items():
        lines.append(
            f"| {_CASES.get(name, f'`{name}`')} | {case['seconds']:.2f} | "
            f"{case['time_ratio']:.2f} | {case['seconds'] / loaded:.2f} | "
            f"{case['peak_bytes'] / 2**20:.0f} | {case['memory_ratio']:.2f} |"
        )
    targets = results["targets"]
    verdicts = []
    for name in ("explain", "explain --preemptor --output json"):
        ratio = results["cases"][name]["time_ratio"]
        verdicts.append(
            f"`{name}` {ratio:.2f}x the floor's time (at most {targets[name]:g}x: "
            f"{'met' if ratio <= targets[name] else 'missed'})"
        )
    memory = max(
        results["cases"][name]["memory_ratio"]
        for name in ("explain", "explain --preemptor --output json")
    )
    verdicts.append(
        f"the commands' memory at most {memory:.2f}x the floor's peak (at most "
        f"{targets['memory']:g}x: "
        f"{'met' if memory <= targets['memory'] else 'missed'})"
    )
    lines += ["", "Targets: " + "; ".join(verdicts) + "."]
    lines += [
        "",
        "Where the time goes: the command's stages in one run, timed in the process, in units of "
        "the floor timed just before in the same process (of "
        f"{results['repeat']} such runs of each command, the one with the lowest ratio):",
        "",
        "| stage | `explain` (s) | x floor | with `--preemptor`, JSON (s) | x floor |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for stage, label in _STAGE_NAMES.items():
        cells = [label]
        for stages in results["stages"].values():
            cells += [f"{stages[stage]:.2f}", f"{stages[stage] / stages['floor']:.2f}"]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


def options(doc: str | None, repeat: int) -> argparse.Namespace:
    """The command line of the reader benchmarks (this one and ``reader_parts.py``)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full cluster")
    parser.add_argument(
        "--repeat", type=int, default=repeat, help="runs per timing (the best counts)"
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument(
        "--lean", action="store_true", help="objects with only the fields the reader reads"
    )
    return parser.parse_args()


def main() -> None:
    given = options(__doc__, repeat=2)
    run(given.scale, repeat=given.repeat, write=not given.no_write, lean=given.lean)


if __name__ == "__main__":
    main()

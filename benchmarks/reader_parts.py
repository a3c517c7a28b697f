"""The parts of reading a cluster, each alone: ``python benchmarks/reader_parts.py [--lean]``
(``--scale 0.01`` for a smoke run).

``benchmarks/reader_scale.py`` times the whole command and its stages against the floor; this
times the reader's own parts one at a time, on the same generated cluster, to say how far each
is from the room the targets leave (docs/performance.md, "What the targets would take"). In one
process, the collector off, the file's text in memory, each the best of ``--repeat`` runs:

- ``json.loads`` of the text: the floor's parse (each part's result is freed after its timing);
- ``load_objects``: the parse with the contract's checks (the key count, the depth);
- which objects are read (``admitted``): kinds, versions, duplicates, each pod's pod group;
- the pods: each read (by direct look-ups, or like a pod of its group read before), grouped
  and put in canonical order (``Members``);
- the pod groups alone: each PodGroup read as a job with no pods (its preemptibility, start
  time, inputs, sub-groups and problems), in the reader's order, by namespace and name;
- the pod groups with their pods: as above, each with its pods' tasks;
- ``read_snapshot``: the whole reader, for comparison with the sum of its parts.

Every time is also given in units of the floor's parse. Prints a table and writes
``benchmarks/reader_parts.json`` and ``.md`` (``reader_parts-lean`` with ``--lean``).
"""

from __future__ import annotations

import json
import operator
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import minruntime.cli as cli
from minruntime.kube import load_objects, read_snapshot
from minruntime.kube._objects import admitted
from minruntime.kube._pod_groups import JobReading, read_job
from minruntime.kube._pods import Members
from minruntime.kube._snapshot import _group_order
from minruntime.preemptibility import LEGACY_PRIORITY_THRESHOLD

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reader_scale import (  # the same cluster, targets, command line and machine
    NOW,
    TARGETS,
    counts_at,
    load_text,
    machine,
    make_cluster,
    options,
    publish,
)

PARTS = {
    "floor": "`json.loads` of the text (the floor's parse)",
    "parse": "the parse with the contract's checks (`load_objects`)",
    "admitted": "which objects are read, each pod's pod group (`admitted`)",
    "pods": "the pods read, grouped and ordered (`Members`)",
    "groups alone": "each PodGroup read as a job, without its pods",
    "groups": "each PodGroup read as a job, with its pods' tasks",
    "reader": "the whole reader (`read_snapshot`)",
}


def parts(text: str, repeat: int) -> tuple[dict[str, float], dict[str, int]]:
    """Seconds of each part of reading ``text`` (:data:`PARTS`), the best of ``repeat`` runs
    of each, the collector off, and what the parts read (pod groups, pods, the tasks of the
    jobs read with their pods, the reader's tasks); the parts are timed one after another, each
    on what the earlier ones built."""
    with cli._without_collector():  # as the command reads, and the floor parses
        spent: dict[str, float] = {}

        def timed(name: str, fn: Callable[[], Any]) -> Any:
            best, result = float("inf"), None
            for _ in range(repeat):
                result = None  # the last run's result freed before the next, outside the timing
                start = time.perf_counter()
                result = fn()
                best = min(best, time.perf_counter() - start)
            spent[name] = best
            return result

        timed("floor", lambda: json.loads(text))
        objects = timed("parse", lambda: load_objects(text))
        kept = timed("admitted", lambda: admitted(objects, []))
        # the pod groups in the order the reader reads them: by (namespace, name)
        keyed = sorted(
            ((_group_order(obj), obj) for obj in kept.objects if obj.get("kind") == "PodGroup"),
            key=operator.itemgetter(0),
        )
        keys = [key for key, _ in keyed]
        groups = [group for _, group in keyed]

        def pods() -> list[Any]:
            members = Members(keys, kept.pods, kept.groups, [0] * len(kept.pods), {}, False)
            return [members.of(key) for key in keys]

        records = timed("pods", pods)
        snapshot = read_snapshot(objects, now=NOW)
        reading = JobReading(
            classes=snapshot.priority_classes,
            global_default=snapshot.global_default_priority,
            never_classes=frozenset(),
            by_uid={},
            strict_times=False,
            kind_defaults=None,
            threshold=LEGACY_PRIORITY_THRESHOLD,
            now=NOW,
        )
        del snapshot
        timed("groups alone", lambda: [read_job(group, [], reading, []) for group in groups])
        jobs = timed(
            "groups",
            lambda: [
                read_job(group, members, reading, [])
                for group, members in zip(groups, records, strict=True)
            ],
        )
        whole = timed("reader", lambda: read_snapshot(objects, now=NOW))
        read = {
            "podGroups": len(groups),
            "pods": sum(map(len, records)),
            "tasks": sum(job.task_count for job in jobs if job is not None),
            "reader's tasks": sum(job.task_count for job in whole.jobs),
        }
        return spent, read


def run(
    scale: float = 1.0, *, repeat: int = 5, lean: bool = False, write: bool = True
) -> dict[str, Any]:
    """Generate the cluster at ``scale`` (``lean``: the lean one) and time the parts."""
    counts = counts_at(scale)
    at_start = machine()
    text = json.dumps(
        make_cluster(counts["queues"], counts["podGroups"], counts["pods"], lean=lean)
    )
    spent, read = parts(text, repeat)
    results = {
        "scale": scale,
        "lean": lean,
        "counts": counts,
        "text_characters": len(text),
        "read": read,
        "seconds": spent,
        "units": {name: seconds / spent["floor"] for name, seconds in spent.items()},
        "repeat": repeat,
        "machine": at_start,
    }
    publish("reader_parts", results, _table(results), lean=lean, write=write)
    return results


def _table(results: dict[str, Any]) -> str:
    counts, seconds, units = results["counts"], results["seconds"], results["units"]
    load = load_text(results["machine"])
    lean = " --lean" if results["lean"] else ""
    lines = [
        f"The parts of reading a{' lean' if results['lean'] else ''} cluster, each alone: "
        f"{counts['queues']:,} queues, {counts['podGroups']:,} pod groups, "
        f"{counts['pods']:,} pods ({results['text_characters'] / 1e6:.1f} million characters).",
        "",
        f"`python benchmarks/reader_parts.py --scale {results['scale']} --repeat "
        f"{results['repeat']}{lean}`; best of {results['repeat']}, the collector off; Python "
        f"{results['machine']['python']}, {results['machine']['cpus']} CPUs, load average "
        f"{load} at the start.",
        "",
        "| part | seconds | units of the floor's parse |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {PARTS[name]} | {seconds[name]:.3f} | {units[name]:.2f} |" for name in PARTS]
    pods_tasks = units["groups"] - units["groups alone"]
    parts_sum = units["admitted"] + units["pods"] + units["groups"]
    lines += [
        "",
        f"The pods' tasks within the pod groups: {pods_tasks:.2f} units; the reader's parts "
        f"(which objects, the pods, the pod groups with their tasks) add to {parts_sum:.2f} "
        f"units, the whole reader {units['reader']:.2f}. The checks of the parse add "
        f"{units['parse'] - 1:.2f}. Issue 32's targets are {TARGETS['explain']:g}x and "
        f"{TARGETS['explain --preemptor --output json']:g}x the floor for the whole command "
        "(docs/performance.md).",
    ]
    return "\n".join(lines)


def main() -> None:
    given = options(__doc__, repeat=5)
    run(given.scale, repeat=given.repeat, lean=given.lean, write=not given.no_write)


if __name__ == "__main__":
    main()

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
- ``read_snapshot``: the whole reader, for comparison with the sum of its parts;
- the bare pods: each pod's namespace, pod group, name, creation time, phase and node taken
  with no check at all and grouped, as fast as plain Python takes them (no reader of this kind
  reads its pods faster: it takes these fields and checks them).

Every time is also given in units of the floor's parse. A second table measures the room the
targets leave for reading the objects: ``reader_scale.py``'s floor (the file read, parsed
and freed, the collector off), the command's parse of the same file, and what the command does
after reading, each alone (the report, the table; with a preemptor, the report, the JSON data
and the JSON text). The room for reading is the target times the floor, less the parse and
what follows the reading; freeing what the command built is left out, which gives the reader
more room than it has. Prints both tables and writes ``benchmarks/reader_parts.json`` and
``.md`` (``reader_parts-lean`` with ``--lean``).
"""

from __future__ import annotations

import io
import json
import operator
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import minruntime.cli as cli
from minruntime.cli._json import json_text, report_data
from minruntime.cli._lookup import find_preemptor
from minruntime.cli._report import build_report
from minruntime.cli._sources import read_sources
from minruntime.cli._table import render_table
from minruntime.kube import POD_GROUP_ANNOTATION, load_objects, read_snapshot
from minruntime.kube._objects import admitted
from minruntime.kube._pod_groups import JobReading, read_job
from minruntime.kube._pods import Members
from minruntime.kube._snapshot import _group_order
from minruntime.preemptibility import LEGACY_PRIORITY_THRESHOLD

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reader_scale import (  # the same cluster, targets, command line and machine
    NOW,
    TARGETS,
    _quiet_load,
    counts_at,
    first_pending,
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
    "bare pods": "the bare pods: six fields each, no check, grouped",
}
COMMAND = {
    "command floor": "`reader_scale.py`'s floor: the file read, parsed, freed",
    "command parse": "the command's parse: the file read, `load_objects`, freed",
    "report": "the report (`explain`)",
    "table": "the table",
    "report with a preemptor": "the report with a preemptor",
    "JSON data": "its JSON data",
    "JSON text": "its JSON text",
}
"""What the command does besides reading the objects, each alone."""


def parts(text: str, repeat: int) -> tuple[dict[str, float], dict[str, int]]:
    """Seconds of each part of :data:`PARTS` and :data:`COMMAND` on ``text``, the best of
    ``repeat`` runs of each, the collector off, and what the parts read (pod groups, pods, the
    tasks of the jobs read with their pods, the reader's tasks, the bare pods, the jobs with a
    verdict in the report with a preemptor); the parts are timed one after another, each on
    what the earlier ones built."""
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
        bare = timed("bare pods", lambda: bare_pods(objects))
        read = {
            "podGroups": len(groups),
            "pods": sum(map(len, records)),
            "tasks": sum(job.task_count for job in jobs if job is not None),
            "reader's tasks": sum(job.task_count for job in whole.jobs),
            "bare pods": sum(map(len, bare.values())),
        }
        read["verdicts"] = _command_parts(text, objects, whole, timed)
        return spent, read


def bare_pods(objects: list[Any]) -> dict[tuple[Any, Any], list[tuple[Any, ...]]]:
    """Each pod's namespace and pod group (its key), and its creation time, name, phase and
    node, taken with no check at all, grouped by key: the least a reader of pods does."""
    grouped: dict[tuple[Any, Any], list[tuple[Any, ...]]] = {}
    for obj in objects:
        if obj.get("kind") != "Pod":
            continue
        metadata = obj["metadata"]
        annotations = metadata.get("annotations") or {}
        status = obj.get("status") or {}
        key = (metadata.get("namespace", ""), annotations.get(POD_GROUP_ANNOTATION))
        pod = (
            metadata.get("creationTimestamp"),
            metadata["name"],
            status.get("phase"),
            (obj.get("spec") or {}).get("nodeName"),
        )
        listed = grouped.get(key)
        if listed is None:
            grouped[key] = [pod]
        else:
            listed.append(pod)
    return grouped


def _command_parts(
    text: str, objects: list[Any], snapshot: Any, timed: Callable[[str, Callable[[], Any]], Any]
) -> int:
    """Time what the command does besides reading the objects (:data:`COMMAND`), each alone,
    with ``timed``; returns how many jobs have a verdict in the report with a preemptor."""
    preemptor = find_preemptor(snapshot, first_pending(objects)).job
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "cluster.json")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)

        def parse() -> int:
            parsed, _, _ = read_sources([path], io.StringIO())
            count = len(parsed)
            del parsed  # freed within the timing, as the floor frees its document
            return count

        timed("command floor", lambda: _quiet_load(path))
        timed("command parse", parse)
    report = timed("report", lambda: build_report(snapshot, NOW, sources=[path]))

    def table() -> str:
        out = io.StringIO()
        render_table(report, out, tree=snapshot.tree)
        return out.getvalue()

    timed("table", table)
    del report
    report = timed(
        "report with a preemptor",
        lambda: build_report(snapshot, NOW, preemptor=preemptor, sources=[path]),
    )
    data = timed("JSON data", lambda: report_data(report))
    timed("JSON text", lambda: json_text(data))
    return sum(1 for job in data["jobs"] if job["decision"] is not None)


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
        "room": room(spent),
        "repeat": repeat,
        "machine": at_start,
    }
    publish("reader_parts", results, _table(results), lean=lean, write=write)
    return results


FOLLOWING = {
    "explain": ("report", "table"),
    "explain --preemptor --output json": ("report with a preemptor", "JSON data", "JSON text"),
}
"""What each command does after reading the objects (:data:`COMMAND`)."""
LEAST = ("admitted", "groups alone", "bare pods")
"""The parts that a reader of this kind could not do without, each as fast as it is today
(the pods as bare as they come): what they add to is set against the room."""


def room(seconds: dict[str, float]) -> dict[str, dict[str, float]]:
    """For each command of :data:`FOLLOWING`: its target times the floor, its parse, what
    follows the reading, and the room left for reading the objects (seconds)."""
    rooms = {}
    for command, following in FOLLOWING.items():
        allowed = TARGETS[command] * seconds["command floor"]
        after = sum(seconds[name] for name in following)
        rooms[command] = {
            "allowed": allowed,
            "parse": seconds["command parse"],
            "after": after,
            "room": allowed - seconds["command parse"] - after,
        }
    return rooms


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
        "",
        "The room the targets leave for reading the objects, in seconds and in units of "
        "`reader_scale.py`'s floor (each part alone, as above):",
        "",
        "| part | seconds | units of the floor |",
        "| --- | ---: | ---: |",
    ]
    floor = seconds["command floor"]
    lines += [
        f"| {COMMAND[name]} | {seconds[name]:.3f} | {seconds[name] / floor:.2f} |"
        for name in COMMAND
    ]
    least = sum(seconds[name] for name in LEAST)
    lines += [
        "",
        "| | `explain` | `--preemptor`, JSON |",
        "| --- | ---: | ---: |",
    ]
    rooms = results["room"]
    commands = list(FOLLOWING)
    rows = [
        ("the target, in units of the floor", [f"{TARGETS[c]:g}" for c in commands]),
        ("the target, in seconds", [f"{rooms[c]['allowed']:.3f}" for c in commands]),
        ("less the command's parse", [f"{rooms[c]['parse']:.3f}" for c in commands]),
        ("less what follows the reading", [f"{rooms[c]['after']:.3f}" for c in commands]),
        ("**the room for reading the objects**", [f"**{rooms[c]['room']:.3f}**" for c in commands]),
        ("the reader today (`read_snapshot`)", [f"{seconds['reader']:.3f}"] * 2),
        ("which objects, the pod groups alone and the bare pods", [f"{least:.3f}"] * 2),
    ]
    lines += [f"| {label} | {' | '.join(cells)} |" for label, cells in rows]
    lines += [
        "",
        f"The reader takes {seconds['reader']:.2f} s where the room is "
        f"{rooms[commands[0]]['room']:.2f} s and {rooms[commands[1]]['room']:.2f} s. Choosing "
        "the objects and the pod groups without their pods, as fast as they are today, with "
        f"the pods as bare as they come (no check, no task), take {least:.2f} s. Freeing what "
        "the command built is not counted, which gives the reader more room than it has.",
    ]
    return "\n".join(lines)


def main() -> None:
    given = options(__doc__, repeat=5)
    run(given.scale, repeat=given.repeat, lean=given.lean, write=not given.no_write)


if __name__ == "__main__":
    main()

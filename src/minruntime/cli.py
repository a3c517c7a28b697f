"""The ``minruntime`` command: explain who may be evicted from a cluster, why, and until when.

``minruntime explain [SNAPSHOT ...]`` reads objects as ``kubectl get ... -o json`` prints them
(``-`` reads standard input) and shows, per running job, its queue, priority, preemptibility
and where that came from, its start time, its preempt min-runtime and where that came from, and
whether it is protected now. With ``--preemptor POD_GROUP`` (or ``--preemptor-queue QUEUE``) it
shows, per running job, whether that preemptor may preempt or reclaim it, why, until when it is
protected, which pods could go, and when to retry. ``--queues`` shows each queue's effective
min-runtimes and where they come from instead. Without a snapshot it explains a bundled
example cluster. ``minruntime example`` prints a worked example of the resolution rules.
``minruntime simulate`` runs ``minruntime-sim``, the trace-driven simulator, which is a
separate distribution (``pip install ./sim`` from a clone); without it, the command says so.

Errors in the input go to standard error, one line each (naming the file, when the snapshot
comes from several), and the exit status is 1 (2 for bad arguments). Hostile input is one of
these errors, never a traceback; the terminal never receives a raw control character.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import re
import sys
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from importlib import resources
from typing import Any, Final, NoReturn, TextIO

import attrs

from minruntime._text import shown
from minruntime._time import FOREVER, checked_from_ns, to_ns
from minruntime.config import Config
from minruntime.decisions import Action, Decision, Resolution
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidDuration, InvalidObject, InvalidTimestamp, MinRuntimeError
from minruntime.jobs import ACTIVE_STATUSES, Job, PodSet, Task, TaskStatus
from minruntime.kube import (
    Snapshot,
    SnapshotJob,
    load_objects,
    load_snapshot_archive,
    read_snapshot,
)
from minruntime.kube import _name as object_name
from minruntime.preemptibility import Preemptibility, PreemptibilitySource
from minruntime.queues import Queue, QueueTree
from minruntime.session import Session
from minruntime.starttime import parse_rfc3339

__all__ = ["EXAMPLE_NOW", "JSON_SCHEMA_ID", "explain_report", "main", "worked_example"]

EXAMPLE_NOW: Final = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""The instant the bundled example cluster was captured at, and is evaluated at by default."""

JSON_SCHEMA_ID: Final = "minruntime.explain/v2"
"""The ``schema`` field of ``minruntime explain --output json``; it changes only with the format."""

_EXAMPLE_RESOURCE: Final = "data/example-cluster.json"
_MAX_INPUT_CHARACTERS: Final = 1 << 30
"""The most a snapshot file (or standard input) may hold: reading stops there, so that pointing
the command at ``/dev/zero`` or an endless pipe is an error, not a hang."""
_PENDING: Final = frozenset({TaskStatus.PENDING, TaskStatus.GATED})


class _UsageError(Exception):
    """A bad command-line value: reported like argparse's own errors (exit status 2)."""


# -- formatting ---------------------------------------------------------------------------------


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    if moment == FOREVER:
        return "never"
    text = moment.astimezone(UTC).isoformat()
    return text.replace("+00:00", "Z")


def _short(moment: datetime | None, now: datetime) -> str:
    """A time for the table (UTC): the clock time on ``now``'s day, the day and minute in its
    year, else the date."""
    if moment is None:
        return "-"
    if moment == FOREVER:
        return "never"
    utc = moment.astimezone(UTC)
    if utc.date() == now.date():
        return utc.strftime("%H:%M:%S")
    return utc.strftime("%m-%d %H:%M") if utc.year == now.year else utc.strftime("%Y-%m-%d")


def _ago(delta: timedelta) -> str:
    return str(MinRuntime(int(abs(delta.total_seconds()))))


def _parse_iso(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _until(value: str | None, now: datetime) -> str:
    """A protected-until cell: '-' without one, 'never', the time, or 'ended' when past."""
    if value is None or value == "never":
        return value or "-"
    moment = _parse_iso(value)
    return _short(moment, now) if moment > now else "ended"


def _work(seconds: float) -> str:
    """Unsaved work for the table, in GPU-hours (weight-hours when pods carry a weight)."""
    return f"{seconds / 3600:.2f}"


_WIDTH: Final = 100
"""The width the table's notes are wrapped to (the rows fit it unless names are long)."""
_CELL_WIDTH: Final = 48
"""The widest a table cell may be: a longer name is cut (the JSON output holds it in full)."""


def _escape(text: str) -> str:
    """Text safe for a terminal: control and format characters (escape sequences, bidi
    overrides, newlines) are shown as Python escapes instead of reaching the terminal.

    >>> print(_escape("a\\x1b[2Jb\\u202ec"))
    a\\x1b[2Jb\\u202ec
    """
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )


def _cell(text: str, width: int = _CELL_WIDTH) -> str:
    """A table cell: escaped, and cut to ``width`` characters with ``...`` when longer.

    >>> _cell("x" * 60, 10)
    'xxxxxxx...'
    """
    escaped = _escape(text)
    return escaped if len(escaped) <= width else escaped[: width - 3] + "..."


class _Terminal:
    """A text stream that never fails on a character its encoding lacks: the line is written
    with that character as a backslash escape (as ``errors="backslashreplace"`` would)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.encoding = getattr(stream, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except UnicodeEncodeError:
            safe = text.encode(self.encoding, "backslashreplace").decode(self.encoding)
            return self.stream.write(safe)


def _table(rows: list[list[str]], width: int = _CELL_WIDTH + 2) -> list[str]:
    """Rows aligned in columns; a row of one cell (a heading or a note) is written as it is."""
    rows = [[_cell(cell, width if len(row) > 1 else 100) for cell in row] for row in rows]
    full = [row for row in rows if len(row) > 1]
    widths = [max(len(row[i]) for row in full) for i in range(len(full[0]))]
    return [
        "  ".join(cell.ljust(size) for cell, size in zip(row, widths, strict=True)).rstrip()
        if len(row) > 1
        else row[0]
        for row in rows
    ]


# -- the report ---------------------------------------------------------------------------------


def _running(snapshot: Snapshot) -> list[SnapshotJob]:
    return [job for job in snapshot.jobs if job.count(*ACTIVE_STATUSES)]


def _protection_status(session: Session, job: SnapshotJob) -> tuple[dict[str, Any], str]:
    queue = job.job.queue
    resolution = session.resolve(Action.PREEMPT, queue, queue)
    until = session.protected_until(Action.PREEMPT, job.job, job.job)
    protected = until is not None and until > session.now  # protected until a later instant
    data = {
        "minRuntime": str(resolution.min_runtime),
        "source": resolution.source,
        "protectedUntil": _iso(until),
        "protected": protected,
    }
    preemptibility = job.preemptibility.value
    if preemptibility is Preemptibility.NON_PREEMPTIBLE:
        text = "never evicted (non-preemptible)"
    elif resolution.min_runtime.is_never:
        text = "never preempted"
    elif until is None:
        text = "not protected (never started)"
    elif protected:
        text = f"protected until {_short(until, session.now)} ({_ago(until - session.now)} left)"
    else:
        text = "not protected"
    if preemptibility is Preemptibility.SEMI_PREEMPTIBLE:
        text += "; core kept (semi-preemptible)"
    return data, text


def _job_data(job: SnapshotJob) -> dict[str, Any]:
    return {
        "id": job.id,
        "queue": job.job.queue,
        "priority": job.job.priority,
        "priorityClass": job.priority_class,
        "preemptibility": str(job.preemptibility.value),
        "preemptibilitySource": str(job.preemptibility.source),
        "preemptibilityDetail": job.preemptibility.detail,
        "startTime": _iso(job.job.start_time),
        "pods": {"total": job.task_count, "active": job.count(*ACTIVE_STATUSES)},
        "subGroupTree": _tree_data(job.job),
    }


def _tree_data(job: Job) -> dict[str, Any] | None:
    """A job's sub-group tree (docs/spec/sub-group-trees.md) as read, or ``None`` without one."""
    if not job.sub_groups and job.min_sub_group is None:
        return None
    return {
        "minSubGroup": job.min_sub_group,
        "sets": [
            {"name": node.name, "parent": node.parent, "minSubGroup": node.min_sub_group}
            for node in job.sub_groups
        ],
        "podSets": [
            {"name": pod_set.name, "parent": pod_set.parent, "minAvailable": pod_set.min_available}
            for pod_set in job.pod_sets
        ],
    }


def _decision_data(decision: Decision, evictable: Sequence[object]) -> dict[str, Any]:
    return {
        "action": str(decision.action),
        "allowed": decision.allowed,
        "reason": str(decision.reason),
        "minRuntime": str(decision.min_runtime),
        "source": decision.source,
        "protectedUntil": _iso(decision.protected_until),
        "protectedBy": None if decision.protected_by is None else str(decision.protected_by),
        # the preemptor's side (docs/spec/preemption-delay.md): set while it is within its
        # preemption delay
        "delayedUntil": _iso(decision.delayed_until),
        # a victim with a sub-group tree (docs/spec/sub-group-trees.md): the sub-groups outside its
        # core, which go whole and first
        "optionalSubGroups": list(decision.optional_sub_groups),
        "evictable": [str(task) for task in evictable],
        "notes": list(decision.notes),
        "explanation": str(decision),
    }


def _warnings(snapshot: Snapshot) -> list[str]:
    """The snapshot's warnings, with the legacy-rule fallbacks summed up in one line."""
    warnings = list(snapshot.warnings)
    legacy = 0
    for job in snapshot.jobs:
        if job.preemptibility.source is PreemptibilitySource.LEGACY_PRIORITY:
            legacy += 1
            # the job's own fallback warning is summed up below
            summed = job.preemptibility.warnings[-1:]
            warnings.extend(w for w in job.warnings if not any(w.endswith(x) for x in summed))
        else:
            warnings.extend(job.warnings)
    if legacy:
        warnings.append(
            f"{legacy} of {len(snapshot.jobs)} pod groups have no preemptibility set and "
            "fall back on the legacy priority rule (priority < 100 is preemptible); set "
            "spec.preemptibility or the kai.scheduler/preemptibility label to make it explicit"
        )
    return warnings


def _queue_tree_data(snapshot: Snapshot) -> list[dict[str, Any]]:
    """Each queue, depth first, with its effective min-runtimes and the queue each comes from.

    One :class:`~minruntime.session.Session` (the "queue" method's walk) answers every queue: it
    remembers each walk up, and parents come before their children, so a deep tree costs one
    step per queue.
    """
    tree, config = snapshot.tree, snapshot.config
    # the walk up from a queue itself is the "queue" method's walk, whatever the configured one
    walk = Session(tree, attrs.evolve(config, reclaim_resolve_method="queue"), 0)

    def value(resolution: Resolution) -> dict[str, Any]:
        return {"minRuntime": str(resolution.min_runtime), "source": resolution.source}

    entries = []
    tops: dict[str, str] = {}  # each queue's top-level ancestor (parents come first)
    for _, name in _tree_drawing(tree):
        parent = tree.parent(name)
        tops[name] = name if parent is None else tops[parent]
        # a preemptor in another top-level tree: the lca walk starts at the top-level queue,
        # which is what reclaiming from that queue by a preemptor in it gives
        top = tops[name] if config.reclaim_resolve_method == "lca" else name
        entries.append(
            {
                "name": name,
                "parent": parent,
                "preempt": value(walk.resolve(Action.PREEMPT, name, name)),
                # the walk up from the queue itself (method "queue", or lca from a sibling)
                "reclaim": value(walk.resolve(Action.RECLAIM, name, name)),
                "reclaimFromAnotherTree": value(walk.resolve(Action.RECLAIM, name, top)),
            }
        )
    return entries


def explain_report(
    snapshot: Snapshot,
    now: datetime,
    *,
    preemptor: SnapshotJob | Job | None = None,
    sources: Sequence[str] = (),
) -> dict[str, Any]:
    """The data of ``minruntime explain``: what the JSON output prints and the table shows.

    >>> from minruntime.kube import read_snapshot
    >>> report = explain_report(read_snapshot([]), EXAMPLE_NOW)
    >>> report["schema"], report["jobs"], report["retryAt"]
    ('minruntime.explain/v2', [], None)
    """
    session = Session(snapshot.tree, snapshot.config, now)
    config = snapshot.config
    running = _running(snapshot)
    report: dict[str, Any] = {
        "schema": JSON_SCHEMA_ID,
        "now": _iso(session.now),
        "sources": list(sources),
        "config": {
            "defaultPreemptMinRuntime": str(config.default_preempt_min_runtime),
            "defaultReclaimMinRuntime": str(config.default_reclaim_min_runtime),
            "reclaimResolveMethod": config.reclaim_resolve_method,
        },
        "queues": len(snapshot.tree),
        "podGroups": len(snapshot.jobs),
        "running": len(running),
        "queueTree": _queue_tree_data(snapshot),
        "preemptor": None,
        "jobs": [],
        "retryAt": None,
        "warnings": _warnings(snapshot),
    }
    pre_job = preemptor.job if isinstance(preemptor, SnapshotJob) else preemptor
    if pre_job is not None:
        report["preemptor"] = {
            "id": str(pre_job.id),
            "queue": pre_job.queue,
            "priority": pre_job.priority,
            "hypothetical": not isinstance(preemptor, SnapshotJob),
            "pendingPods": sum(
                1
                for pod_set in pre_job.pod_sets
                for task in pod_set.tasks
                if task.status in _PENDING
            ),
        }
    expiries = []
    ranking: list[tuple[float, int, int, dict[str, Any]]] = []
    for job in running:
        if pre_job is not None and job.job.id == pre_job.id:
            continue
        entry = _job_data(job)
        entry["preempt"], entry["protection"] = _protection_status(session, job)
        entry["decision"] = None
        if pre_job is not None:
            action = Action.PREEMPT if job.job.queue == pre_job.queue else Action.RECLAIM
            decision = session.explain(action, pre_job, job.job)
            tasks = session.evictable_tasks(action, pre_job, job.job)
            entry["decision"] = _decision_data(decision, [task.id for task in tasks])
            # what evicting it would lose: the tasks that would go (all active ones if none may)
            lost = session.unsaved_work(job.job, tasks or None)
            entry["decision"]["unsavedWork"] = round(lost, 3)
            entry["decision"]["rank"] = None
            if decision.allowed:
                ranking.append((lost, job.job.priority, len(report["jobs"]), entry))
            expiry = session.next_expiry(action, pre_job, [job.job])
            if expiry is not None:
                expiries.append(expiry)
        report["jobs"].append(entry)
    # the order Session.rank_victims gives: least unsaved work, then lower priority, then listing
    ranking.sort(key=lambda item: item[:3])
    for rank, (*_, ranked) in enumerate(ranking, start=1):
        ranked["decision"]["rank"] = rank
    if expiries:
        report["retryAt"] = _iso(min(expiries))
    return report


_PREEMPTIBLE: Final = {"preemptible": "yes", "non-preemptible": "no", "semi-preemptible": "semi"}
_LEGACY: Final = str(PreemptibilitySource.LEGACY_PRIORITY)


def _protection_cell(job: dict[str, Any], now: datetime) -> str:
    """The default view's protection cell: how long the job is still protected from preempt."""
    preempt = job["preempt"]
    if job["preemptibility"] == "non-preemptible" or preempt["protectedUntil"] == "never":
        return "never"
    if preempt["protectedUntil"] is None:
        return "not started"
    if not preempt["protected"]:
        return "-"
    until = _parse_iso(preempt["protectedUntil"])
    return f"{_short(until, now)} ({_ago(until - now)})"


def _by_queue(report: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The report's jobs grouped by queue, queues in tree order (unknown queues last)."""
    order = {entry["name"]: i for i, entry in enumerate(report["queueTree"])}
    groups: dict[str, list[dict[str, Any]]] = {}
    for job in report["jobs"]:
        groups.setdefault(job["queue"], []).append(job)
    return sorted(groups.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def _sources_text(sources: list[str]) -> str:
    names = ["standard input" if source == "-" else source for source in sources]
    return ", ".join(names) or "-"


def _render_table(
    report: dict[str, Any], out: TextIO, *, tree: QueueTree, queues_view: bool = False
) -> None:
    now = _parse_iso(report["now"])
    config = report["config"]
    out.write(
        f"Snapshot: {_escape(_sources_text(report['sources']))} ({report['queues']} queues, "
        f"{report['podGroups']} pod groups, {report['running']} running)\n"
        f"Evaluated at {report['now']}; the times below are UTC\n"
        f"Defaults: preempt min-runtime {config['defaultPreemptMinRuntime']}, reclaim "
        f"min-runtime {config['defaultReclaimMinRuntime']}, reclaim resolve method "
        f"{config['reclaimResolveMethod']}\n\n"
    )
    if queues_view:
        _render_queues(report, out, tree)
        return
    pre = report["preemptor"]
    notes: list[str] = []
    if pre is None:
        rows: list[list[str]] = [
            ["JOB", "PRIO", "PREEMPTIBLE", "PODS", "STARTED", "PREEMPT MR (FROM)", "PROTECTED"]
        ]
        for queue, jobs in _by_queue(report):
            rows.append([f"queue {queue}"])
            for job in jobs:
                legacy = job["preemptibilitySource"] == _LEGACY
                start = job["startTime"]
                rows.append(
                    [
                        "  " + _cell(job["id"]),
                        str(job["priority"]),
                        _PREEMPTIBLE.get(job["preemptibility"], job["preemptibility"])
                        + "*" * legacy,
                        f"{job['pods']['active']}/{job['pods']['total']}",
                        _short(_parse_iso(start), now) if start else "-",
                        f"{job['preempt']['minRuntime']} ({job['preempt']['source'] or 'default'})",
                        _protection_cell(job, now),
                    ]
                )
        if not report["jobs"]:
            rows.append(["(no running pod groups: minruntime explain --queues shows the queues)"])
        if any(job["preemptibilitySource"] == _LEGACY for job in report["jobs"]):
            notes.append("* preemptibility from the legacy priority rule (priority < 100)")
        out.write("\n".join(_table(rows)) + "\n")
    else:
        kind = "hypothetical job" if pre["hypothetical"] else "pending job"
        out.write(
            f"Preemptor: {kind} {_cell(pre['id'])} in queue {_cell(pre['queue'])}, priority "
            f"{pre['priority']}, {pre['pendingPods']} pending pods\n\n"
        )
        rows = [["JOB", "OK", "REASON", "MR (FROM)", "UNTIL", "GPU-H", "RANK"]]
        for queue, jobs in _by_queue(report):
            action = jobs[0]["decision"]["action"]
            rows.append([f"queue {queue} ({action})"])
            for job in jobs:
                decision = job["decision"]
                rows.append(
                    [
                        "  " + _cell(job["id"]),
                        "yes" if decision["allowed"] else "no",
                        decision["reason"],
                        f"{decision['minRuntime']} ({decision['source'] or 'default'})",
                        _until(decision["protectedUntil"], now),
                        _work(decision["unsavedWork"]),
                        "-" if decision["rank"] is None else str(decision["rank"]),
                    ]
                )
                optional = decision["optionalSubGroups"]
                if optional:
                    names = ", ".join(_cell(name) for name in optional[:4])
                    more = f", and {len(optional) - 4} more" if len(optional) > 4 else ""
                    rows.append([f"      sub-groups that go whole: {names}{more}"])
                evictable = decision["evictable"]
                if evictable and decision["allowed"]:
                    shown = ", ".join(_cell(pod) for pod in evictable[:4])
                    more = f", and {len(evictable) - 4} more" if len(evictable) > 4 else ""
                    rows.append([f"      evictable: {shown}{more}"])
        out.write("\n".join(_table(rows)) + "\n")
        notes.append(
            "GPU-H: the GPU-hours of work an eviction would lose (since the last checkpoint, else "
            "the start); RANK: the order victims are taken in"
        )
        retry = report["retryAt"]
        notes.append(
            f"Retry at {retry}: the next protection that would free a victim ends then."
            if retry
            else "No protection ends that would free another victim: no retry time."
        )
    if notes:
        out.write("\n" + "\n".join(textwrap.fill(note, _WIDTH) for note in notes) + "\n")


def _render_queues(report: dict[str, Any], out: TextIO, tree: QueueTree) -> None:
    drawn = {name: branch for branch, name in _tree_drawing(tree)}
    lca = report["config"]["reclaimResolveMethod"] == "lca"
    header = ["QUEUE", "PREEMPT MR (FROM)", "RECLAIM MR (FROM)"]
    if lca:
        header = ["QUEUE", "PREEMPT MR (FROM)", "RECLAIM: SIBLING", "RECLAIM: OTHER TREE"]
    rows = [header]

    def cell(value: dict[str, Any]) -> str:
        return f"{value['minRuntime']} ({value['source'] or 'default'})"

    for entry in report["queueTree"]:
        row = [drawn[entry["name"]], cell(entry["preempt"]), cell(entry["reclaim"])]
        if lca:
            row.append(cell(entry["reclaimFromAnotherTree"]))
        rows.append(row)
    if len(rows) == 1:
        rows.append(["(no queues in the snapshot)"])
    out.write("\n".join(_table(rows, width=64)) + "\n")
    out.write(
        "\n"
        + textwrap.fill(
            "A value (FROM) is the queue whose setting gives it, or the default. "
            + (
                "Reclaim by lca: from a preemptor under the same parent (SIBLING), or in another "
                "top-level tree (OTHER TREE); in between, the setting of the queue below the lowest "
                "common ancestor."
                if lca
                else "Reclaim by queue: the victim's own queue decides, whoever the preemptor."
            ),
            _WIDTH,
        )
        + "\n"
    )


# -- the command --------------------------------------------------------------------------------


def _read_sources(
    paths: Sequence[str], stdin: TextIO
) -> tuple[list[Any], list[str], dict[int, str]]:
    """The objects of every source, the sources' names, and each object's source (by id)."""
    if not paths:
        text = resources.files("minruntime").joinpath(_EXAMPLE_RESOURCE).read_text(encoding="utf-8")
        return load_objects(text, origin="the bundled example"), ["the bundled example"], {}
    objects: list[Any] = []
    origins: dict[int, str] = {}
    for path in paths:
        origin = "<stdin>" if path == "-" else path
        try:
            if path == "-":
                text = stdin.read(_MAX_INPUT_CHARACTERS + 1)
            else:
                with open(path, "rb") as handle:
                    data = handle.read(_MAX_INPUT_CHARACTERS + 1)
                if len(data) > _MAX_INPUT_CHARACTERS:
                    raise InvalidObject(
                        f"{origin}: larger than {_MAX_INPUT_CHARACTERS} bytes (a snapshot of a "
                        "large cluster is a few hundred megabytes at most; is it the right file?)",
                        object=origin,
                    )
                if data.startswith(b"PK\x03\x04"):  # the reference scheduler's snapshot (a ZIP)
                    loaded = load_snapshot_archive(data, origin=origin)
                    origins.update((id(obj), origin) for obj in loaded)
                    objects.extend(loaded)
                    continue
                text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidObject(
                f"{origin}: not UTF-8 text ({error.reason} at byte {error.start})", object=origin
            ) from None
        if len(text) > _MAX_INPUT_CHARACTERS:
            raise InvalidObject(
                f"{origin}: larger than {_MAX_INPUT_CHARACTERS} characters (a snapshot of a large "
                "cluster is a few hundred megabytes at most; is it the right file?)",
                object=origin,
            )
        loaded = load_objects(text, origin=origin)
        origins.update((id(obj), origin) for obj in loaded)
        objects.extend(loaded)
    return objects, ["-" if path == "-" else path for path in paths], origins


_POSIX_SECONDS: Final = re.compile(r"(-1|[0-9]{1,12})(\.[0-9]{1,9})?")


def _parse_now(value: str | None, default: datetime) -> datetime:
    if value is None:
        return default
    try:
        return _parse_now_value(value, default)
    except InvalidTimestamp as error:  # a well-formed time out of range
        raise _UsageError(
            f"--now: {shown(value)} is out of range (expected an instant between "
            "0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z)"
        ) from error


def _parse_now_value(value: str, default: datetime) -> datetime:
    if value.startswith(("+", "-")) and value != "-1":
        sign = -1 if value[0] == "-" else 1
        try:
            offset = MinRuntime.parse("+" + value[1:])
        except InvalidDuration:
            offset = MinRuntime.NEVER
        if offset.is_never:
            raise _UsageError(
                f"--now: invalid offset {shown(value)} (expected e.g. +15m or -1h30m; "
                "write a negative offset as --now=-15m)"
            )
        return checked_from_ns(to_ns(default, "--now") + sign * offset.ns, "--now")
    try:
        return parse_rfc3339(value, origin="--now")
    except InvalidTimestamp as error:
        if "out of range" in str(error):
            raise
    if _POSIX_SECONDS.fullmatch(value):
        return checked_from_ns(round(Fraction(value) * 10**9), "--now")
    raise _UsageError(
        f"--now: invalid time {shown(value)} (expected RFC 3339 like 2026-11-22T12:00:00Z, POSIX "
        "seconds, or an offset like +15m)"
    )


def _in_its_file(
    error: InvalidObject, objects: list[Any], origins: dict[int, str]
) -> InvalidObject:
    """The error, its message prefixed with the file that holds the object it names (when the
    snapshot comes from several files and exactly one of them holds such an object)."""
    files = sorted(
        {
            origins[id(obj)]
            for obj in objects
            if id(obj) in origins and object_name(obj) == error.object
        }
    )
    if len(files) != 1:
        return error
    return InvalidObject(f"{files[0]}: {error}", object=error.object, field=error.field)


def _priority(text: str) -> int:
    """A priority on the command line: a 32-bit integer in ASCII digits, as Kubernetes has."""
    if not re.fullmatch(r"-?[0-9]{1,10}", text) or not -(2**31) <= int(text) < 2**31:
        raise argparse.ArgumentTypeError(
            f"invalid priority {shown(text)} (expected an integer from -2147483648 to 2147483647)"
        )
    return int(text)


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors raised (so that ``main`` reports them to its own stderr)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see {self.prog} --help)")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="minruntime",
        description="Minimum-runtime protection and preemptibility policy for cluster schedulers.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    explain = commands.add_parser(
        "explain",
        help="explain which running jobs may be evicted, why, and until when",
        description=(
            "Explain a cluster snapshot (kubectl get queues,podgroups,pods,priorityclasses,"
            "configmaps -A -o json). Without SNAPSHOT, explain a bundled example cluster."
        ),
    )
    explain.add_argument(
        "snapshots",
        nargs="*",
        metavar="SNAPSHOT",
        help="JSON or YAML files, or the scheduler's own snapshot (a ZIP); - for stdin",
    )
    who = explain.add_mutually_exclusive_group()
    who.add_argument(
        "--preemptor",
        metavar="POD_GROUP",
        help="a pod group of the snapshot (namespace/name or a unique name)",
    )
    who.add_argument(
        "--preemptor-queue", metavar="QUEUE", help="a hypothetical pending job in QUEUE"
    )
    explain.add_argument(
        "--priority",
        type=_priority,
        default=None,
        help="the hypothetical preemptor's priority (default: above every job's)",
    )
    explain.add_argument(
        "--now",
        metavar="TIME",
        help="evaluate at TIME: RFC 3339, POSIX seconds, or an offset like +15m (default: the "
        "current time; for the bundled example, the instant it was captured)",
    )
    explain.add_argument("--output", choices=["table", "json"], default="table")
    explain.add_argument(
        "--queues",
        action="store_true",
        help="show each queue's effective preempt and reclaim min-runtimes and the queue (or "
        "default) each comes from, instead of the jobs (the default view when the snapshot has "
        "queues and no pod groups); the JSON output always has them under queueTree",
    )
    explain.add_argument(
        "--strict-times", action="store_true", help="an unreadable start time is an error"
    )
    explain.add_argument(
        "--lenient-config", action="store_true", help="a bad plugin argument is a warning"
    )
    explain.add_argument(
        "--orphans-as-top-level",
        action="store_true",
        help="a queue whose parent is missing becomes top-level instead of an error",
    )
    commands.add_parser("example", help="print a worked example of the resolution rules")
    commands.add_parser(
        "simulate",
        help="replay a GPU-cluster trace under min-runtime settings (needs minruntime-sim)",
        add_help=False,
    )
    return parser


def _explain(
    args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO, clock_now: datetime
) -> int:
    if args.priority is not None and args.preemptor_queue is None:
        raise _UsageError("--priority only applies with --preemptor-queue")
    now = _parse_now(args.now, EXAMPLE_NOW if not args.snapshots else clock_now)
    objects, sources, origins = _read_sources(args.snapshots, stdin)
    try:
        snapshot = read_snapshot(
            objects,
            lenient_config=args.lenient_config,
            strict_times=args.strict_times,
            orphans_as_top_level=args.orphans_as_top_level,
        )
    except InvalidObject as error:
        if len(sources) < 2:
            raise
        raise _in_its_file(error, objects, origins) from None
    preemptor: SnapshotJob | Job | None = None
    if args.preemptor is not None:
        preemptor = snapshot.find(args.preemptor)
    elif args.preemptor_queue is not None:
        if args.preemptor_queue not in snapshot.tree:
            raise LookupError(
                f"--preemptor-queue: queue {shown(args.preemptor_queue)} is not in the snapshot"
            )
        priority = args.priority
        if priority is None:
            priority = max((job.job.priority for job in snapshot.jobs), default=0) + 1
        preemptor = Job("(hypothetical)", args.preemptor_queue, priority=priority)
    report = explain_report(snapshot, now, preemptor=preemptor, sources=sources)
    if args.output == "json":
        # allow_nan=False: a non-finite number is refused where it is read; this is the guard
        out.write(json.dumps(report, indent=2, allow_nan=False) + "\n")
    else:
        queues_view = args.queues or (not snapshot.jobs and len(snapshot.tree) > 0)
        _render_table(report, out, tree=snapshot.tree, queues_view=queues_view)
        for warning in report["warnings"]:
            err.write(f"minruntime: warning: {_escape(warning)}\n")
    return 0


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    now: datetime | None = None,
) -> int:
    """Run the command line and return its exit status.

    ``now`` is the current time for ``--now``'s default; the command reads the clock once,
    here, when it is not given. When the reader of the output goes away (``minruntime explain
    | head``), the command stops quietly with status 141, as a program killed by SIGPIPE would.
    """
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        return _main(argv, stdin, out, err, now)
    except BrokenPipeError:
        if out is sys.stdout:  # nothing more can be written; keep the exit flush quiet too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


_SIMULATOR: Final = "minruntime_sim.cli"
"""The module of the separate ``minruntime-sim`` distribution that ``simulate`` runs."""


def _simulate(arguments: list[str], out: TextIO, err: TextIO) -> int:
    """``minruntime simulate``: hand over to ``minruntime-sim`` when it is installed."""
    try:
        simulator = importlib.import_module(_SIMULATOR)
    except ModuleNotFoundError as error:
        if error.name is None or not _SIMULATOR.startswith(error.name):
            raise
        err.write(
            "minruntime: error: simulate needs the minruntime-sim distribution, which is not "
            'installed: from a clone of this repository, pip install "./sim"\n'
        )
        return 2
    status: int = simulator.main(arguments, stdout=out, stderr=err)
    return status


def _main(
    argv: Sequence[str] | None,
    stdin: TextIO,
    out: TextIO,
    err: TextIO,
    now: datetime | None,
) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] == "simulate":
        return _simulate(arguments[1:], out, err)
    if not arguments or arguments[0] not in ("explain", "example", "-h", "--help"):
        arguments = ["explain", *arguments]  # explain is the default command
    raw_out, raw_err = out, err
    out, err = _Terminal(out), _Terminal(err)  # type: ignore[assignment]
    try:
        with contextlib.redirect_stdout(raw_out), contextlib.redirect_stderr(raw_err):
            args = _build_parser().parse_args(arguments)  # --help prints and exits 0
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else 0
    except _UsageError as error:
        err.write(f"minruntime: error: {_escape(str(error))}\n")
        return 2
    try:
        if args.command == "example":
            out.write(worked_example() + "\n")
            return 0
        clock_now = now if now is not None else datetime.now(UTC)
        return _explain(args, stdin, out, err, clock_now)
    except _UsageError as error:
        err.write(f"minruntime: error: {_escape(str(error))}\n")
        return 2
    except BrokenPipeError:
        raise
    except (MinRuntimeError, LookupError, OSError) as error:
        for line in _error_lines(error):
            err.write(f"minruntime: error: {_escape(line)}\n")
        return 1


def _error_lines(error: BaseException) -> list[str]:
    problems = getattr(error, "problems", None)
    if problems:
        # "invalid queue tree: 2 problems: ..." becomes one line per problem
        kind = str(error).split(":", 1)[0]
        return [f"{kind}: {' '.join(str(problem).split())}" for problem in problems]
    if isinstance(error, OSError) and error.filename is not None:
        return [f"{error.filename}: {error.strerror}"]
    text = error.args[0] if isinstance(error, LookupError) and error.args else str(error)
    return [" ".join(str(text).split())]


# -- the worked example -------------------------------------------------------------------------


def _example_tree() -> QueueTree:
    return QueueTree(
        [
            Queue("A"),
            Queue("B", "A", preempt_min_runtime="600s", reclaim_min_runtime="600s"),
            Queue("C", "B"),
            Queue("D", "B", reclaim_min_runtime="60s"),
            Queue("leaf1", "C", preempt_min_runtime="300s", reclaim_min_runtime="0s"),
            Queue("leaf2", "C", reclaim_min_runtime="180s"),
            Queue("leaf3", "D"),
        ]
    )


def _example_jobs(now: datetime) -> tuple[Job, list[Job]]:
    def started(minutes: float) -> datetime:
        return now - timedelta(minutes=minutes)

    def tasks(prefix: str, count: int, pending: int = 0) -> list[Task]:
        return [Task(f"{prefix}-{i}") for i in range(count)] + [
            Task(f"{prefix}-{count + i}", TaskStatus.PENDING) for i in range(pending)
        ]

    pending = Job("urgent", "leaf1", priority=100, pod_sets=[PodSet(tasks=tasks("urgent", 0, 4))])
    running = [
        Job("etl", "leaf3", preemptibility="preemptible", start_time=started(0.5),
            pod_sets=[PodSet(min_available=2, tasks=tasks("etl", 2))]),
        Job("sweep", "leaf3", preemptibility="preemptible", start_time=started(0.5),
            pod_sets=[PodSet(min_available=2, tasks=tasks("sweep", 6))]),
        Job("llm-serve", "leaf2", preemptibility="semi-preemptible", start_time=started(120),
            pod_sets=[PodSet(min_available=2, tasks=tasks("llm-serve", 4))]),
        Job("db-build", "leaf2", priority=100, start_time=started(300),
            pod_sets=[PodSet(tasks=tasks("db-build", 1))]),
        Job("notebook", "leaf2", priority=50, start_time=started(1),
            pod_sets=[PodSet(tasks=tasks("notebook", 1))]),
        Job("old-train", "leaf3", priority=50, start_time=started(90),
            pod_sets=[PodSet(min_available=2, tasks=tasks("old-train", 2))]),
    ]  # fmt: skip
    return pending, running


def _tree_drawing(tree: QueueTree) -> list[tuple[str, str]]:
    """Each queue of the tree, depth first and by name, as ``(branch, name)``: the branch draws
    the queue under its own parent (``|--`` and ``` `-- ```), in ASCII so that every terminal
    shows it. Below depth 10 the branch stops growing and gives the depth instead (``[12]``).

    >>> tree = QueueTree([Queue("a"), Queue("b", "a"), Queue("c"), Queue("d", "a")])
    >>> for branch, _ in _tree_drawing(tree):
    ...     print(branch)
    a
    |-- b
    `-- d
    c
    """
    drawn: list[tuple[str, str]] = []
    stack: list[tuple[str, str, bool, int]] = [
        (name, "", True, 0) for name in sorted(tree.children(None), reverse=True)
    ]
    while stack:  # iterative: a deep tree must not reach the recursion limit
        name, prefix, last, depth = stack.pop()
        connector = "`-- " if last else "|-- "
        if depth == 0:
            branch = _cell(name)
        elif depth <= 10:
            branch = f"{prefix}{connector}{_cell(name)}"
        else:  # a chain of thousands of queues must not draw thousands of columns
            branch = f"[{depth}] {connector}{_cell(name)}"
        drawn.append((branch, name))
        below = prefix if depth == 0 else prefix + ("    " if last else "|   ")
        children = sorted(tree.children(name))  # by name: the input's order must not matter
        for i, child in reversed(list(enumerate(children))):
            stack.append((child, below if depth < 10 else "", i == len(children) - 1, depth + 1))
    return drawn


def _show(value: MinRuntime | None) -> str:
    return "-" if value is None else str(value)


def worked_example(now: datetime = EXAMPLE_NOW) -> str:
    """The worked example's report, evaluated at ``now``.

    >>> print(worked_example().splitlines()[0])
    minruntime worked example, evaluated at 2026-11-22T12:00:00Z
    """
    tree = _example_tree()
    session = Session(tree, Config(), now)
    lines = [f"minruntime worked example, evaluated at {_iso(now)}", ""]
    lines.append("Queue tree (preempt / reclaim min-runtime; - = unset, inherited):")
    drawn = _tree_drawing(tree)
    width = max(len(branch) for branch, _ in drawn)
    for branch, name in drawn:
        queue = tree[name]
        preempt = _show(queue.preempt_min_runtime)
        lines.append(
            f"  {branch:<{width}}  preempt {preempt:<4} reclaim {_show(queue.reclaim_min_runtime)}"
        )
    lines.append("")
    lines.append("Reclaim min-runtime by lowest common ancestor (docs/spec/resolution.md):")
    for preemptor, victim in [("leaf1", "leaf3"), ("leaf1", "leaf2"), ("leaf3", "leaf1")]:
        resolution = session.resolve(Action.RECLAIM, preemptor, victim)
        lines.append(f"  {preemptor} reclaims from {victim}: {resolution}")
    lines.append("Preempt min-runtime (walk up from the victim's queue):")
    for victim in ("leaf1", "leaf2"):
        lines.append(f"  victim in {victim}: {session.resolve(Action.PREEMPT, victim, victim)}")
    lines.append("")
    pending, running = _example_jobs(now)
    lines.append(
        f"Pending job {pending.id!r} in queue {pending.queue!r} wants room; it may reclaim:"
    )
    for job in running:
        lines.append(f"  - {session.explain(Action.RECLAIM, pending, job)}")
        evictable = session.evictable_tasks(Action.RECLAIM, pending, job)
        if evictable:
            names = ", ".join(str(task.id) for task in evictable)
            lines.append(f"      evictable, first to go first: {names}")
    retry = session.next_expiry(Action.RECLAIM, pending, running)
    if retry is not None:
        lines.append(f"Retry at {_iso(retry)}, when the next protection ends.")
    return "\n".join(lines)

"""The ``minruntime`` command: explain who may be evicted from a cluster, why, and until when.

``minruntime explain [SNAPSHOT ...]`` reads objects as ``kubectl get ... -o json`` prints them
(``-`` reads standard input) and shows, per running job, its queue, priority, preemptibility
and where that came from, its start time, its preempt min-runtime and where that came from, and
whether it is protected now. With ``--preemptor POD_GROUP`` (or ``--preemptor-queue QUEUE``) it
shows, per running job, whether that preemptor may preempt or reclaim it, why, until when it is
protected, which pods could go, and when to retry. Without a snapshot it explains a bundled
example cluster. ``minruntime example`` prints a worked example of the resolution rules.
``minruntime simulate`` runs ``minruntime-sim``, the trace-driven simulator, which is a
separate distribution (``pip install ./sim`` from a clone); without it, the command says so.

Errors in the input go to standard error, one line each, and the exit status is 1 (2 for bad
arguments).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any, Final, NoReturn, TextIO

from minruntime._time import FOREVER, from_ns, to_ns
from minruntime.config import Config
from minruntime.decisions import Decision
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidDuration, InvalidObject, InvalidTimestamp, MinRuntimeError
from minruntime.jobs import ACTIVE_STATUSES, Job, PodSet, Task, TaskStatus
from minruntime.kube import Snapshot, SnapshotJob, load_objects, read_snapshot
from minruntime.preemptibility import Preemptibility, PreemptibilitySource
from minruntime.queues import Queue, QueueTree
from minruntime.resolution import Action
from minruntime.session import Session
from minruntime.starttime import parse_rfc3339

__all__ = ["EXAMPLE_NOW", "JSON_SCHEMA_ID", "explain_report", "main", "worked_example"]

EXAMPLE_NOW: Final = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
"""The instant the bundled example cluster was captured at, and is evaluated at by default."""

JSON_SCHEMA_ID: Final = "minruntime.explain/v1"
"""The ``schema`` field of ``minruntime explain --output json``; it changes only with the format."""

_EXAMPLE_RESOURCE: Final = "data/example-cluster.json"
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
    """A time for the table: the clock time, and the day when it is not ``now``'s day."""
    if moment is None:
        return "-"
    if moment == FOREVER:
        return "never"
    utc = moment.astimezone(UTC)
    clock = utc.strftime("%H:%M:%SZ")
    return clock if utc.date() == now.date() else utc.strftime("%Y-%m-%d ") + clock


def _ago(delta: timedelta) -> str:
    return str(MinRuntime(int(abs(delta.total_seconds()))))


def _until(value: str | None, now: datetime) -> str:
    """A protected-until cell: '-' without one, 'never', or the time ('ended' when past)."""
    if value is None or value == "never":
        return value or "-"
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return _short(moment, now) if moment > now else f"ended {_short(moment, now)}"


def _work(seconds: float) -> str:
    """Unsaved work for the table, in weight-hours (GPU-hours when weights are GPUs)."""
    return f"{seconds / 3600:.2f}h"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


# -- the report ---------------------------------------------------------------------------------


def _running(snapshot: Snapshot) -> list[SnapshotJob]:
    return [job for job in snapshot.jobs if job.count(*ACTIVE_STATUSES)]


def _protection_status(session: Session, job: SnapshotJob) -> tuple[dict[str, Any], str]:
    facts = session.facts(job.job)
    resolution = session.resolve(Action.PREEMPT, facts.queue, facts.queue)
    until = session.protected_until(Action.PREEMPT, job.job, job.job)
    protected = until is not None and until > session.now  # protected until a later instant
    data = {
        "minRuntime": str(resolution.min_runtime),
        "source": resolution.source,
        "protectedUntil": _iso(until),
        "protected": protected,
    }
    preemptibility = facts.preemptibility
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
    }


def _decision_data(decision: Decision, evictable: Sequence[object]) -> dict[str, Any]:
    return {
        "action": str(decision.action),
        "allowed": decision.allowed,
        "reason": str(decision.reason),
        "minRuntime": str(decision.min_runtime),
        "source": decision.source,
        "protectedUntil": _iso(decision.protected_until),
        "evictable": [str(task) for task in evictable],
        "notes": list(decision.notes),
        "explanation": str(decision),
    }


def _warnings(snapshot: Snapshot) -> list[str]:
    """The snapshot's warnings, with the legacy-rule fallbacks summed up in one line."""
    warnings = list(snapshot.warnings)
    legacy = []
    for job in snapshot.jobs:
        if job.preemptibility.source is PreemptibilitySource.LEGACY_PRIORITY:
            legacy.append(job.id)
        legacy_warning = job.preemptibility.warnings[-1:] if job.id in legacy else ()
        warnings.extend(w for w in job.warnings if not any(w.endswith(x) for x in legacy_warning))
    if legacy:
        warnings.append(
            f"{len(legacy)} of {len(snapshot.jobs)} pod groups have no preemptibility set and "
            "fall back on the legacy priority rule (priority < 100 is preemptible); set "
            "spec.preemptibility or the kai.scheduler/preemptibility label to make it explicit"
        )
    return warnings


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
    ('minruntime.explain/v1', [], None)
    """
    session = Session(snapshot.tree, snapshot.config, now)
    config = snapshot.config
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
    for job in _running(snapshot):
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


def _render_table(report: dict[str, Any], out: TextIO) -> None:
    now = datetime.fromisoformat(report["now"].replace("Z", "+00:00"))
    config = report["config"]
    sources = ", ".join(report["sources"]) or "-"
    out.write(
        f"Snapshot {sources}: {report['queues']} queues, {report['podGroups']} pod groups, "
        f"{len(report['jobs'])} running; evaluated at {report['now']}\n"
    )
    out.write(
        f"Defaults: preempt min-runtime {config['defaultPreemptMinRuntime']}, reclaim min-runtime "
        f"{config['defaultReclaimMinRuntime']}, reclaim resolve method {config['reclaimResolveMethod']}\n\n"
    )
    pre = report["preemptor"]
    if pre is None:
        rows = [
            [
                "JOB",
                "QUEUE",
                "PRIORITY",
                "PREEMPTIBILITY (SOURCE)",
                "STARTED",
                "PODS",
                "PREEMPT MR (FROM)",
                "NOW",
            ]
        ]
        for job in report["jobs"]:
            start = job["startTime"]
            rows.append(
                [
                    job["id"],
                    job["queue"],
                    f"{job['priority']}"
                    + (f" ({job['priorityClass']})" if job["priorityClass"] else ""),
                    f"{job['preemptibility']} ({job['preemptibilitySource']})",
                    _short(datetime.fromisoformat(start.replace("Z", "+00:00")), now)
                    if start
                    else "-",
                    f"{job['pods']['active']}/{job['pods']['total']}",
                    f"{job['preempt']['minRuntime']} ({job['preempt']['source'] or 'default'})",
                    job["protection"],
                ]
            )
        out.write("\n".join(_table(rows)) + "\n")
    else:
        kind = "hypothetical job" if pre["hypothetical"] else "pending job"
        out.write(
            f"Preemptor: {kind} {pre['id']} in queue {pre['queue']}, priority {pre['priority']}, "
            f"{pre['pendingPods']} pending pods\n\n"
        )
        rows = [
            [
                "JOB",
                "QUEUE",
                "ACTION",
                "DECISION",
                "REASON",
                "MR (FROM)",
                "PROTECTED UNTIL",
                "UNSAVED",
                "RANK",
                "EVICTABLE",
            ]
        ]
        for job in report["jobs"]:
            decision = job["decision"]
            evictable = decision["evictable"]
            shown = ", ".join(evictable[:3]) + (
                f", +{len(evictable) - 3}" if len(evictable) > 3 else ""
            )
            until = decision["protectedUntil"]
            rows.append(
                [
                    job["id"],
                    job["queue"],
                    decision["action"],
                    "allowed" if decision["allowed"] else "refused",
                    decision["reason"],
                    f"{decision['minRuntime']} ({decision['source'] or 'default'})",
                    _until(until, now),
                    _work(decision["unsavedWork"]),
                    "-" if decision["rank"] is None else str(decision["rank"]),
                    f"{len(evictable)}: {shown}" if evictable else "-",
                ]
            )
        out.write("\n".join(_table(rows)) + "\n")
        retry = report["retryAt"]
        out.write(
            f"\nRetry at {retry}: the next protection that would free a victim ends then.\n"
            if retry
            else "\nNo protection ends that would free another victim: no retry time.\n"
        )


# -- the command --------------------------------------------------------------------------------


def _read_sources(paths: Sequence[str], stdin: TextIO) -> tuple[list[Any], list[str]]:
    if not paths:
        text = resources.files("minruntime").joinpath(_EXAMPLE_RESOURCE).read_text(encoding="utf-8")
        return load_objects(text, origin="the bundled example"), ["the bundled example"]
    objects: list[Any] = []
    for path in paths:
        if path == "-":
            text, origin = stdin.read(), "<stdin>"
        else:
            try:
                with open(path, encoding="utf-8") as handle:
                    text, origin = handle.read(), path
            except UnicodeDecodeError as error:
                raise InvalidObject(
                    f"{path}: not UTF-8 text ({error.reason} at byte {error.start})", object=path
                ) from None
        objects.extend(load_objects(text, origin=origin))
    return objects, ["-" if path == "-" else path for path in paths]


def _parse_now(value: str | None, default: datetime) -> datetime:
    if value is None:
        return default
    if value.startswith(("+", "-")) and value != "-1":
        sign = -1 if value[0] == "-" else 1
        try:
            offset = MinRuntime.parse("+" + value[1:])
        except InvalidDuration:
            offset = MinRuntime.NEVER
        if offset.is_never:
            raise _UsageError(
                f"--now: invalid offset {value!r} (expected e.g. +15m or -1h30m; "
                "write a negative offset as --now=-15m)"
            )
        return from_ns(to_ns(default, "--now") + sign * offset._ns)
    try:
        return parse_rfc3339(value, origin="--now")
    except InvalidTimestamp:
        pass
    try:
        return from_ns(to_ns(float(value), "--now"))
    except (ValueError, InvalidTimestamp):
        raise _UsageError(
            f"--now: invalid time {value!r} (expected RFC 3339 like 2026-11-22T12:00:00Z, POSIX "
            "seconds, or an offset like +15m)"
        ) from None


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
        "snapshots", nargs="*", metavar="SNAPSHOT", help="JSON or YAML files; - for stdin"
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
        type=int,
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
    objects, sources = _read_sources(args.snapshots, stdin)
    snapshot = read_snapshot(
        objects,
        lenient_config=args.lenient_config,
        strict_times=args.strict_times,
        orphans_as_top_level=args.orphans_as_top_level,
    )
    preemptor: SnapshotJob | Job | None = None
    if args.preemptor is not None:
        preemptor = snapshot.find(args.preemptor)
    elif args.preemptor_queue is not None:
        if args.preemptor_queue not in snapshot.tree:
            raise LookupError(
                f"--preemptor-queue: queue {args.preemptor_queue!r} is not in the snapshot"
            )
        priority = args.priority
        if priority is None:
            priority = max((job.job.priority for job in snapshot.jobs), default=0) + 1
        preemptor = Job("(hypothetical)", args.preemptor_queue, priority=priority)
    report = explain_report(snapshot, now, preemptor=preemptor, sources=sources)
    if args.output == "json":
        out.write(json.dumps(report, indent=2) + "\n")
    else:
        _render_table(report, out)
        for warning in report["warnings"]:
            err.write(f"minruntime: warning: {warning}\n")
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
            'installed: pip install minruntime-sim (from a clone: pip install "./sim")\n'
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
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = _build_parser().parse_args(arguments)  # --help prints and exits 0
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else 0
    except _UsageError as error:
        err.write(f"minruntime: error: {error}\n")
        return 2
    try:
        if args.command == "example":
            out.write(worked_example() + "\n")
            return 0
        clock_now = now if now is not None else datetime.now(UTC)
        return _explain(args, stdin, out, err, clock_now)
    except _UsageError as error:
        err.write(f"minruntime: error: {error}\n")
        return 2
    except BrokenPipeError:
        raise
    except (MinRuntimeError, LookupError, OSError) as error:
        for line in _error_lines(error):
            err.write(f"minruntime: error: {line}\n")
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
    for name in tree:
        queue = tree[name]
        indent = "  " * (tree.depth(name) + 1)
        preempt = _show(queue.preempt_min_runtime)
        lines.append(
            f"{indent}{name:<8} preempt {preempt:<4} reclaim {_show(queue.reclaim_min_runtime)}"
        )
    lines.append("")
    lines.append("Reclaim min-runtime by lowest common ancestor (BEHAVIOR.md section 4):")
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

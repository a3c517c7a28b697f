"""The ``minruntime`` command: explain who may be evicted from a cluster, why, and until when.

``minruntime explain [SNAPSHOT ...]`` reads objects as ``kubectl get ... -o json`` prints them
(``-`` reads standard input) and shows, per running job, its queue, priority, preemptibility
and where that came from, its start time, its preempt min-runtime and where that came from, and
whether it is protected now. With ``--preemptor POD_GROUP`` (or ``--preemptor-queue QUEUE``) it
shows, per running job, whether that preemptor may preempt or reclaim it, why, until when it is
protected, which pods could go, and when to retry. ``--queues`` shows each queue's effective
min-runtimes and where they come from instead. Without a snapshot it explains a bundled
example cluster. ``minruntime example`` prints a worked example of the resolution rules.
With ``--preemptor`` it also gives the plan: which pods would go, in order, to free what the
preemptor's pending pods request, what that loses, what is still missing and when to retry.
``--timeline FILE`` writes a picture of the running jobs' protection windows (an SVG).
``minruntime simulate`` runs ``minruntime-sim``, the trace-driven simulator, which is a
separate distribution (``pip install ./sim`` from a clone); without it, the command says so.

``-o``/``--output`` is ``table`` (the default), ``wide`` (more columns, names whole), ``json`` or
``yaml``; ``--no-headers`` writes a table's rows alone; ``-n``/``--namespace`` is the namespace
of a bare ``--preemptor`` name, which may also name a pod (its pod group is the preemptor);
``minruntime --version`` prints the version: kubectl's habits.

Warnings go to standard error in every output mode (the JSON and YAML documents hold them
too). Errors in the input go to standard error, one line each (naming the file, when the
snapshot comes from several), and the exit status is 1 (2 for bad arguments). Hostile input is one of
these errors, never a traceback; the terminal never receives a raw control character.
"""

# The command is in private modules, one concern each: _arguments (the command line), _sources
# (reading files), _lookup (the preemptor the command line names), _report (the typed report,
# from the Session's answers), _table, _json, _yaml and _timeline (rendering it), _example (the
# worked example).

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Final, TextIO

from minruntime._text import shown
from minruntime.cli._arguments import UsageError, build_parser, check_output_path, parse_now
from minruntime.cli._example import EXAMPLE_NOW, worked_example
from minruntime.cli._format import Terminal, escape
from minruntime.cli._json import JSON_SCHEMA_ID, json_text, report_data
from minruntime.cli._lookup import NotInSnapshot, find_preemptor
from minruntime.cli._report import Report, build_report, warnings_of
from minruntime.cli._sources import in_its_file, read_sources
from minruntime.cli._table import render_table
from minruntime.cli._timeline import html_page, timeline_svg
from minruntime.cli._yaml import check_yaml, yaml_text
from minruntime.errors import InvalidObject, MinRuntimeError
from minruntime.jobs import Job
from minruntime.kube import Snapshot, SnapshotJob, read_snapshot

__all__ = ["EXAMPLE_NOW", "JSON_SCHEMA_ID", "explain_report", "main", "worked_example"]


def __dir__() -> list[str]:
    return __all__


class _StrictWarnings(MinRuntimeError, ValueError):
    """``--strict``: the snapshot was read with warnings; ``problems`` lists them."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__(f"--strict: {len(problems)} reading warnings")
        self.problems = tuple(problems)


def explain_report(
    snapshot: Snapshot,
    now: datetime,
    *,
    preemptor: SnapshotJob | Job | None = None,
    sources: Sequence[str] = (),
) -> dict[str, Any]:
    """The data of ``minruntime explain``: what the JSON output prints and the table shows.

    Raises:
        MinRuntimeError: (a ``ValueError``) when ``preemptor`` is a pod group of the snapshot
            with no pending pods.

    >>> from minruntime.kube import read_snapshot
    >>> one_queue = [{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue",
    ...               "metadata": {"name": "q"}}]  # empty input is an error: one queue
    >>> report = explain_report(read_snapshot(one_queue), EXAMPLE_NOW)
    >>> report["schema"], report["jobs"], report["plans"], report["retryAt"]
    ('minruntime.explain/v4', [], None, None)
    """
    return report_data(build_report(snapshot, now, preemptor=preemptor, sources=sources))


def _strict(snapshot: Snapshot) -> None:
    """``--strict``: every warning the command would print about the snapshot is an error: the
    reader's problems (those ``read_snapshot(strict=True)`` raises for) and the command's own
    notes on them, such as the legacy-priority summary (docs/operators.md)."""
    warnings = warnings_of(snapshot, strict=True)
    if warnings:
        raise _StrictWarnings(warnings)


def _preemptor(
    args: argparse.Namespace, snapshot: Snapshot, err: TextIO
) -> SnapshotJob | Job | None:
    if args.preemptor is not None:
        found = find_preemptor(snapshot, args.preemptor, args.namespace)
        if found.note is not None:
            err.write(f"minruntime: note: {escape(found.note)}\n")
        return found.job
    if args.preemptor_queue is None:
        return None
    if args.preemptor_queue not in snapshot.tree:
        raise NotInSnapshot(
            f"--preemptor-queue: queue {shown(args.preemptor_queue)} is not in the snapshot"
        )
    priority = args.priority
    if priority is None:
        priority = max((job.job.priority for job in snapshot.jobs), default=0) + 1
    return Job("(hypothetical)", args.preemptor_queue, priority=priority)


def _write_timeline(path: str, report: Report, width: int) -> None:
    svg = timeline_svg(report, width)
    if path.lower().endswith((".html", ".htm")):
        svg = html_page(svg, "minruntime: protection windows")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(svg)


def _explain(
    args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO, clock_now: datetime
) -> int:
    if args.priority is not None and args.preemptor_queue is None:
        raise UsageError("--priority only applies with --preemptor-queue")
    if args.namespace is not None and args.preemptor is None:
        raise UsageError("--namespace only applies with --preemptor")
    if args.output == "yaml":
        check_yaml()  # before any long work
    if args.snapshots.count("-") > 1:
        raise UsageError("- (standard input) may be given only once")
    if args.timeline is not None:
        check_output_path("--timeline", args.timeline)
    # the clock to the second: a time the command prints never shows microseconds unless given
    now = parse_now(
        args.now, EXAMPLE_NOW if not args.snapshots else clock_now.replace(microsecond=0)
    )
    with _without_collector():  # the parse, and all the command builds from what it parsed
        objects, sources, origins = read_sources(args.snapshots, stdin)
        status = _explain_objects(args, objects, sources, origins, now, out, err)
        # freed while the collector is still off: once it is back, it walks only what is left
        del objects
        return status


@contextlib.contextmanager
def _without_collector() -> Iterator[None]:
    """Within the block, the cyclic garbage collector is off; as it was once the block ends.

    The command parses its input and reads, reports on and writes what it parsed within it
    (millions of dicts and lists at cluster scale). None of that holds a reference cycle (the
    parsed document is JSON data; two tests hold it for the rest), so every object is freed by
    reference counting the moment nothing refers to it, and the collector's walks would find
    nothing: each full collection would only walk everything built so far again. Where the
    collector is off already, it stays off (docs/decisions/explain-works-without-the-collector.md).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _explain_objects(
    args: argparse.Namespace,
    objects: list[Any],
    sources: list[str],
    origins: dict[int, str],
    now: datetime,
    out: TextIO,
    err: TextIO,
) -> int:
    try:
        snapshot = read_snapshot(
            objects,
            lenient_config=args.lenient_config,
            strict_times=args.strict_times,
            orphans_as_top_level=args.orphans_as_top_level,
            now=now,
        )
    except InvalidObject as error:
        if len(sources) < 2:
            raise
        raise in_its_file(error, objects, origins) from None
    if args.strict:
        _strict(snapshot)
    preemptor = _preemptor(args, snapshot, err)
    report = build_report(snapshot, now, preemptor=preemptor, sources=sources)
    if args.timeline is not None:
        _write_timeline(args.timeline, report, args.timeline_width)
    if args.output == "json":
        # json.dumps(..., indent=2, allow_nan=False), written faster: a non-finite number is
        # refused where it is read; the writer's ValueError is the guard
        out.write(json_text(report_data(report)) + "\n")
    elif args.output == "yaml":
        out.write(yaml_text(report_data(report)))
    else:
        queues_view = args.queues or (not snapshot.jobs and len(snapshot.tree) > 0)
        render_table(
            report,
            out,
            tree=snapshot.tree,
            queues_view=queues_view,
            wide=args.output == "wide",
            headers=not args.no_headers,
        )
    # on standard error in every output mode, as kubectl does (the documents hold them too)
    for warning in report.warnings:
        err.write(f"minruntime: warning: {escape(warning)}\n")
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
    While it reads its input and explains it, the garbage collector is off
    (docs/decisions/explain-works-without-the-collector.md); it is put back before ``main``
    returns.
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
    if not arguments or arguments[0] not in ("explain", "example", "-h", "--help", "--version"):
        arguments = ["explain", *arguments]  # explain is the default command
    raw_out, raw_err = out, err
    out, err = Terminal(out), Terminal(err)  # type: ignore[assignment]
    try:
        with contextlib.redirect_stdout(raw_out), contextlib.redirect_stderr(raw_err):
            args = build_parser().parse_args(arguments)  # --help prints and exits 0
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else 0
    except UsageError as error:
        err.write(f"minruntime: error: {escape(str(error))}\n")
        return 2
    try:
        if args.command == "example":
            out.write(worked_example() + "\n")
            return 0
        clock_now = now if now is not None else datetime.now(UTC)
        return _explain(args, stdin, out, err, clock_now)
    except UsageError as error:
        err.write(f"minruntime: error: {escape(str(error))}\n")
        return 2
    except BrokenPipeError:
        raise
    except (MinRuntimeError, OSError) as error:
        for line in _error_lines(error):
            err.write(f"minruntime: error: {escape(line)}\n")
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

"""The command line of ``minruntime``: its parser, and the values its options take.

>>> _priority("75")
75
>>> build_parser().parse_args(["explain", "-o", "wide", "-n", "ml", "--no-headers"]).output
'wide'
"""

from __future__ import annotations

import argparse
import os
import re
from datetime import datetime
from fractions import Fraction
from typing import Final, NoReturn

from minruntime import __version__
from minruntime._text import shown
from minruntime._time import checked_from_ns, to_ns
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidDuration, InvalidTimestamp
from minruntime.starttime import parse_rfc3339

__all__ = ["OUTPUTS", "UsageError", "build_parser", "check_output_path", "parse_now"]

OUTPUTS: Final = ("table", "wide", "json", "yaml")
"""The forms ``-o``/``--output`` takes, the default first (kubectl's names)."""


class UsageError(Exception):
    """A bad command-line value: reported like argparse's own errors (exit status 2).

    >>> str(UsageError("--priority only applies with --preemptor-queue"))
    '--priority only applies with --preemptor-queue'
    """


_POSIX_SECONDS: Final = re.compile(r"(-1|[0-9]{1,12})(\.[0-9]{1,9})?")


def parse_now(value: str | None, default: datetime) -> datetime:
    """``--now``'s value as an instant: RFC 3339, POSIX seconds, or an offset from ``default``
    (``default`` itself when the option is not given).

    Raises:
        UsageError: for a value of none of these forms, or out of range.

    >>> from datetime import UTC
    >>> parse_now("+15m", datetime(2026, 11, 22, 12, 0, tzinfo=UTC)).isoformat()
    '2026-11-22T12:15:00+00:00'
    """
    if value is None:
        return default
    try:
        return _parse_now_value(value, default)
    except InvalidTimestamp as error:  # a well-formed time out of range
        raise UsageError(
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
            raise UsageError(
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
    raise UsageError(
        f"--now: invalid time {shown(value)} (expected RFC 3339 like 2026-11-22T12:00:00Z, POSIX "
        "seconds, or an offset like +15m)"
    )


def _priority(text: str) -> int:
    """A priority on the command line: a 32-bit integer in ASCII digits, as Kubernetes has."""
    if not re.fullmatch(r"-?[0-9]{1,10}", text) or not -(2**31) <= int(text) < 2**31:
        raise argparse.ArgumentTypeError(
            f"invalid priority {shown(text)} (expected an integer from -2147483648 to 2147483647)"
        )
    return int(text)


def _timeline_width(text: str) -> int:
    """A timeline width on the command line: whole pixels from 640 to 1280."""
    if not re.fullmatch(r"[0-9]{1,5}", text) or not 640 <= int(text) <= 1280:
        raise argparse.ArgumentTypeError(
            f"invalid width {shown(text)} (expected whole pixels from 640 to 1280)"
        )
    return int(text)


def _namespace(text: str) -> str:
    """A namespace on the command line: a Kubernetes namespace name, which holds no ``/``."""
    if not text or "/" in text or not text.isprintable():
        raise argparse.ArgumentTypeError(
            f"invalid namespace {shown(text)} (expected a namespace name, e.g. nlp-team)"
        )
    return text


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors raised (so that ``main`` reports them to its own stderr)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole command line: ``explain`` (the default), ``example`` and
    ``simulate``; its errors raise :class:`UsageError`.

    >>> args = build_parser().parse_args(["explain", "--preemptor", "finetune-7b", "-o", "json"])
    >>> args.preemptor, args.output, args.namespace, args.no_headers
    ('finetune-7b', 'json', None, False)
    """
    parser = _Parser(
        prog="minruntime",
        description="Minimum-runtime protection and preemptibility policy for cluster schedulers.",
    )
    parser.add_argument(
        "--version", action="version", version=f"minruntime {__version__}", help="print the version"
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
        help="a pod group of the snapshot (namespace/name, or a name in --namespace, or a name "
        "no other pod group has); or a pod, whose pod group is then the preemptor",
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
    explain.add_argument(
        "-n",
        "--namespace",
        type=_namespace,
        default=None,
        help="the namespace of a bare --preemptor name (it does not filter the jobs listed)",
    )
    explain.add_argument(
        "-o",
        "--output",
        choices=OUTPUTS,
        default="table",
        help="table (default); wide: a table with more columns, names whole; json; yaml (the "
        "JSON document as YAML; needs PyYAML, the yaml extra)",
    )
    explain.add_argument(
        "--no-headers",
        action="store_true",
        help="tables without header lines: only the rows, one line each (no summary, column "
        "names, queue headings, details or legend)",
    )
    explain.add_argument(
        "--queues",
        action="store_true",
        help="show each queue's effective preempt and reclaim min-runtimes and the queue (or "
        "<default>) each comes from, instead of the jobs (the default view when the snapshot has "
        "queues and no pod groups); the JSON output always has them under queueTree",
    )
    explain.add_argument(
        "--strict",
        action="store_true",
        help="any reading warning is an error: list the warnings and exit with status 1",
    )
    explain.add_argument(
        "--strict-times", action="store_true", help="an unreadable start time is an error"
    )
    explain.add_argument(
        "--timeline",
        metavar="FILE",
        help="also write a picture of the running jobs' protection windows to FILE (SVG; "
        "HTML with the SVG inline when FILE ends in .html)",
    )
    explain.add_argument(
        "--timeline-width",
        type=_timeline_width,
        default=1280,
        metavar="PX",
        help="the timeline's width in pixels, 640 to 1280 (default 1280; narrower to embed it "
        "in a page)",
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


def check_output_path(option: str, path: str) -> None:
    """Refuse, before any long work, a path the command could not write a file at.

    >>> check_output_path("--timeline", "/")
    Traceback (most recent call last):
    ...
    minruntime.cli._arguments.UsageError: --timeline: '/' is a directory (expected a file path)
    """
    if os.path.isdir(path):
        raise UsageError(f"{option}: {shown(path)} is a directory (expected a file path)")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise UsageError(f"{option}: {shown(path)}: the directory {shown(folder)} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"{option}: {shown(path)}: not writable (permission denied)")

"""``minruntime-sim`` (also ``minruntime simulate``): replay a trace under several min-runtime settings and compare them.

Examples::

    minruntime-sim philly --load 4 --reclaim-min-runtime 0 10m 30m 1h 4h --jobs 2
    minruntime-sim alibaba --gpus 48 --preempt-min-runtime 0 30m --json out.json
    minruntime-sim my-trace.csv --checkpoint-interval none 30m --csv out.csv --plot out.png
    minruntime-sim philly --load 4 --reclaim-min-runtime 0 30m --checkpoint-interval 30m \
        --policy none min-runtime checkpoint-aware --checkpoint-grace 10m --jobs 2
    minruntime-sim philly --load 4 --slices 4 --reclaim-min-runtime 0 30m 1h --plot out.svg
    minruntime-sim philly --gpus 704 --slices 4 --reclaim-min-runtime 30m \
        --policy none min-runtime checkpoint-aware --rank-unsaved --job-request 8 --jobs 2
    minruntime-sim --from-json results.json --format markdown --plot results.svg

Every combination of the values given runs (reclaim outermost, then preempt, then checkpoint
interval, then policy; policy ``none`` once per checkpoint interval, since it ignores the
min-runtimes), in ``--jobs`` processes; the table and the files list them in that order, and
the same arguments always give the same bytes. ``--from-json`` reports a results file of
``--json`` again (its table, ``--format markdown``, ``--plot``) without running anything.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Final, NoReturn, TextIO, TypeVar

from minruntime import MinRuntime
from minruntime_sim.errors import InvalidResults, SimError
from minruntime_sim.model import (
    DEFAULT_CHECKPOINT_GRACE,
    DEFAULT_REQUEST_CAP,
    DEFAULT_RESTART_OVERHEAD,
    POLICIES,
    Settings,
    VictimOrder,
    Workload,
    parse_duration,
    parse_seconds,
)
from minruntime_sim.plots import plot, plot_formats
from minruntime_sim.sweep import (
    WIDTH,
    RunSummary,
    TableFormat,
    TraceSource,
    evictions_csv,
    format_table,
    run_sweep,
    settings_grid,
    to_csv,
    to_json,
    usage_csv,
)
from minruntime_sim.traces import TRACE_NAMES
from minruntime_sim.uncertainty import (
    Replicate,
    ReplicatedSummary,
    Results,
    format_intervals,
    read_results,
    replicated_to_json,
    replicates,
    run_replicated,
)

__all__ = ["build_parser", "main"]

PROG = "minruntime-sim"

_T = TypeVar("_T")


class _UsageError(Exception):
    pass


def _min_runtime(text: str) -> MinRuntime:
    try:
        return parse_duration(text, origin="the command line")
    except SimError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _interval(text: str) -> int | None:
    if text.lower() == "none":
        return None
    try:
        seconds = parse_seconds(text, origin="--checkpoint-interval")
    except SimError as error:
        raise argparse.ArgumentTypeError(f"{error}; or 'none' for no checkpoints") from None
    if seconds < 1:
        raise argparse.ArgumentTypeError(
            f"invalid checkpoint interval {text!r}: use a positive duration, or 'none'"
        )
    return seconds


def _grace(text: str) -> MinRuntime:
    try:
        return parse_duration(text, origin="--checkpoint-grace", allow_never=False)
    except SimError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, got {text!r}")
    return value


def _overhead(text: str) -> int:
    try:
        return parse_seconds(text, origin="--restart-overhead")
    except SimError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _factor(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(
            f"expected a load factor > 0 (e.g. 2 or 1.5), got {text!r}"
        )
    return int(value) if value.is_integer() else value


def _gpu_hours(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf or value * 3600 < 1:
        raise argparse.ArgumentTypeError(f"expected GPU-hours > 0 (e.g. 8 or 0.5), got {text!r}")
    return round(value * 3600)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``minruntime-sim``.

    >>> build_parser().parse_args(["philly", "--gpus", "704"]).gpus
    [704]
    """
    parser = _Parser(
        prog=PROG,
        description="Replay a GPU-cluster trace under min-runtime settings and compare lost "
        "work against waiting.",
    )
    parser.add_argument(
        "trace",
        nargs="?",
        help=f"{', '.join(TRACE_NAMES)}, or the path of a CSV trace "
        "(see minruntime_sim.traces for its format); not with --from-json",
    )
    parser.add_argument(
        "--from-json",
        type=Path,
        metavar="PATH",
        help="report a results file written by --json instead of running: its table "
        "(--format), --plot, and --json to write it again with this version's intervals",
    )
    parser.add_argument(
        "--format",
        type=TableFormat,
        choices=list(TableFormat),
        default=TableFormat.TEXT,
        help="the table on standard output: text (the default) or markdown, for a page",
    )
    parser.add_argument("--limit", type=_positive, help="only the first N jobs by submission")
    parser.add_argument(
        "--gpus",
        nargs="+",
        type=_positive,
        metavar="N",
        help="resize the cluster to N GPUs, whole nodes kept and quotas scaling with it "
        "(several: one replicate each)",
    )
    parser.add_argument(
        "--load",
        type=_factor,
        default=1,
        metavar="F",
        help="load-scaling knob: jobs arrive F times as fast (submission times divided by F) "
        "on the same nodes and quotas; default 1, the trace as recorded",
    )
    parser.add_argument(
        "--seed",
        nargs="+",
        type=int,
        default=[0],
        metavar="S",
        help="seed of the synthetic trace and the random order (several: one replicate each)",
    )
    parser.add_argument(
        "--slices",
        type=_positive,
        default=1,
        metavar="K",
        help="cut the trace into K equal spans of submission time, one replicate each",
    )
    parser.add_argument(
        "--reclaim-min-runtime",
        nargs="+",
        type=_min_runtime,
        default=[MinRuntime.ZERO],
        metavar="MR",
        help="default reclaim min-runtimes to compare (e.g. 0 10m 1h never)",
    )
    parser.add_argument(
        "--preempt-min-runtime",
        nargs="+",
        type=_min_runtime,
        default=[MinRuntime.ZERO],
        metavar="MR",
        help="default preempt min-runtimes to compare",
    )
    parser.add_argument(
        "--checkpoint-interval",
        nargs="+",
        type=_interval,
        default=[None],
        metavar="INTERVAL",
        help="checkpoint intervals to compare ('none', the default: each job draws its own, "
        "or, with --no-checkpoint-costs, has none and loses all since it started)",
    )
    parser.add_argument(
        "--no-checkpoint-costs",
        dest="checkpoint_costs",
        action="store_false",
        help="free, instantaneous checkpoints every interval after each start, only for jobs "
        "given an interval (the earlier tables' model); by default each checkpoint takes 3.5%% "
        "of the interval, the first of a run falls an interval after the restore, and jobs "
        "without an interval draw one (median 30m)",
    )
    parser.add_argument(
        "--restart-overhead",
        type=_overhead,
        default=DEFAULT_RESTART_OVERHEAD,
        metavar="DURATION",
        help="time a job spends restarting after an eviction (default "
        f"{DEFAULT_RESTART_OVERHEAD}s, Pollux's re-allocation delay; 0 for none)",
    )
    parser.add_argument(
        "--save-on-preempt",
        type=_overhead,
        metavar="DURATION",
        help="jobs save a checkpoint when evicted, taking this long (default: they do not)",
    )
    parser.add_argument(
        "--resolve-method", choices=("lca", "queue"), default="lca", help="reclaim resolution"
    )
    parser.add_argument(
        "--policy",
        nargs="+",
        choices=POLICIES,
        default=["min-runtime"],
        metavar="POLICY",
        help="protection policies to compare: none (no protection, min-runtimes ignored), "
        "min-runtime (the default), checkpoint-aware (min-runtime plus the checkpoint grace, "
        "and the eviction budget, ranking and per-job request when given)",
    )
    parser.add_argument(
        "--victim-order",
        nargs="+",
        type=VictimOrder,
        choices=list(VictimOrder),
        default=[VictimOrder.REFERENCE],
        metavar="ORDER",
        help="victim orders to compare: reference (the reference scheduler's, the default), "
        "youngest, oldest, random (seeded by --seed), least-unsaved (Session.rank_victims)",
    )
    parser.add_argument(
        "--checkpoint-grace",
        type=_grace,
        default=DEFAULT_CHECKPOINT_GRACE,
        metavar="DURATION",
        help="checkpoint-aware: protect a victim whose next checkpoint is due within this "
        f"(default {DEFAULT_CHECKPOINT_GRACE}; 0 turns it off)",
    )
    parser.add_argument(
        "--max-evictions",
        type=_count,
        metavar="N",
        help="checkpoint-aware: protect a job evicted N times within --eviction-window "
        "(default: no budget)",
    )
    parser.add_argument(
        "--eviction-window",
        type=_min_runtime,
        metavar="DURATION",
        help="checkpoint-aware: the window of --max-evictions (default never: a job's whole life)",
    )
    parser.add_argument(
        "--rank-unsaved",
        action="store_true",
        help="checkpoint-aware: take victims by least unsaved work (Session.rank_victims) "
        "instead of --victim-order, which the other policies keep",
    )
    parser.add_argument(
        "--job-request",
        type=_gpu_hours,
        metavar="GPU_HOURS",
        help="checkpoint-aware: each job requests a min-runtime of GPU_HOURS over its GPUs "
        "(e.g. 8: 8h for one GPU, 1h for eight), up to --max-job-min-runtime",
    )
    parser.add_argument(
        "--max-job-min-runtime",
        type=_grace,
        default=DEFAULT_REQUEST_CAP,
        metavar="DURATION",
        help=f"checkpoint-aware: the cap on a job's request (default {DEFAULT_REQUEST_CAP})",
    )
    parser.add_argument("--jobs", type=_positive, default=1, help="parallel processes")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results as JSON")
    parser.add_argument("--csv", type=Path, metavar="PATH", help="write the results as CSV")
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="PATH",
        help="draw lost work, evictions, reclaim waiting and the jobs' mean wait per setting, "
        "every replicate shown, as PNG or SVG (by the name; needs minruntime-sim[plot], "
        "checked first)",
    )
    parser.add_argument(
        "--evictions", type=Path, metavar="PATH", help="write every eviction of every run as CSV"
    )
    parser.add_argument(
        "--usage", type=Path, metavar="PATH", help="write busy GPUs over time of every run as CSV"
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="show a progress bar on standard error (default: when it is a terminal)",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the sweep on the Dask cluster whose scheduler is at ADDRESS "
        "(e.g. tcp://10.0.0.5:8786; needs minruntime-sim[dask]) instead of --jobs processes",
    )
    return parser


_OUTPUTS: Final = ("json", "csv", "plot", "evictions", "usage")


def _unwritable(args: argparse.Namespace) -> str | None:
    """Why an output path given could not be written, checked before anything runs."""
    for name in _OUTPUTS:
        path: Path | None = getattr(args, name)
        if path is None:
            continue
        folder = path.parent if str(path.parent) else Path(".")
        if path.is_dir():
            return f"--{name} {str(path)!r} is a folder (expected a file path)"
        if not folder.is_dir():
            return f"--{name} {str(path)!r}: folder {str(folder)!r} does not exist"
        if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            return f"--{name} {str(path)!r} cannot be written (permission denied)"
    return None


def _executor(address: str, stack: contextlib.ExitStack) -> Executor:
    """An executor on the Dask cluster at ``address`` (the ``dask`` extra); the client closes
    with ``stack``."""
    try:
        distributed = importlib.import_module("distributed")
    except ImportError:
        raise _UsageError(
            "--dask needs dask.distributed, which is not installed: "
            "pip install './sim[dask]' from a clone of this repository"
        ) from None
    client = stack.enter_context(distributed.Client(address))
    executor: Executor = client.get_executor()
    return executor


def _on_executor(
    args: argparse.Namespace, err: TextIO, work: Callable[[Executor | None], _T]
) -> _T | None:
    """``work`` on the Dask cluster of ``--dask`` (or locally), the progress bar on ``err``;
    ``None`` after reporting a usage error."""
    with contextlib.ExitStack() as stack:
        try:
            executor = None if args.dask is None else _executor(args.dask, stack)
        except _UsageError as error:
            err.write(f"{PROG}: error: {error}\n")
            return None
        with contextlib.redirect_stderr(err):
            return work(executor)


def _replicated(
    args: argparse.Namespace,
    workload: Workload,
    grid: Sequence[Settings],
    reps: Sequence[Replicate],
    progress: bool,
    out: TextIO,
    err: TextIO,
) -> int:
    """The uncertainty report: every setting over every replicate, with intervals."""
    summaries = _on_executor(
        args,
        err,
        lambda executor: run_replicated(
            args.trace,
            grid,
            reps,
            limit=args.limit,
            jobs=args.jobs,
            executor=executor,
            progress=progress,
            load_factor=args.load,
        ),
    )
    if summaries is None:
        return 2
    out.write(f"{workload.name}: {len(workload.jobs)} jobs, {_replicates(reps)}\n")
    return _report_replicated(
        args, workload.name, reps, summaries, f"{workload.name}: {_replicates(reps)}", out, err
    )


def _replicates(reps: Sequence[Replicate]) -> str:
    """How many replicates, and of what: "16 replicates (slices 4, seeds 0 1, sizes full)"."""
    seeds = " ".join(map(str, dict.fromkeys(rep.seed for rep in reps)))
    sizes = " ".join(
        "full" if gpus is None else str(gpus) for gpus in dict.fromkeys(rep.gpus for rep in reps)
    )
    return (
        f"{len(reps)} replicates "
        f"(slices {max((rep.windows for rep in reps), default=1)}, seeds {seeds}, sizes {sizes})"
    )


def _report_replicated(
    args: argparse.Namespace,
    name: str,
    reps: Sequence[Replicate],
    summaries: Sequence[ReplicatedSummary],
    title: str,
    out: TextIO,
    err: TextIO,
) -> int:
    """The interval table, then the files asked for, of replicated runs."""
    out.write("\n" + format_intervals(summaries, style=args.format) + "\n")
    if args.json is not None:
        document = {
            "workload": name,
            "replicates": [rep.label for rep in reps],
            "settings": replicated_to_json(summaries),
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        out.write(f"wrote {args.json}\n")
    return _plot(args, summaries, title, out, err)


def _plot(
    args: argparse.Namespace,
    summaries: Sequence[RunSummary] | Sequence[ReplicatedSummary],
    title: str,
    out: TextIO,
    err: TextIO,
) -> int:
    """Draw ``--plot`` if asked: 0, or 1 if it cannot be written."""
    if args.plot is None:
        return 0
    try:
        plot(summaries, args.plot, title=title)
    except (ImportError, ValueError, OSError) as error:
        err.write(f"{PROG}: error: --plot {str(args.plot)!r}: {error}\n")
        return 1
    out.write(f"wrote {args.plot}\n")
    return 0


def _from_json(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--from-json``: the report of a results file, nothing run."""
    path: Path = args.from_json
    try:
        results = read_results(path.read_text(encoding="utf-8"), origin=str(path))
    except (OSError, UnicodeDecodeError) as error:
        err.write(f"{PROG}: error: --from-json {str(path)!r} cannot be read: {error}\n")
        return 2
    except InvalidResults as error:
        err.write(f"{PROG}: error: {error}\n")
        return 2
    if results.gpus is not None:  # single runs
        return _report_runs(args, results, out, err)
    reps = [rep for rep, _ in results.summaries[0].runs] if results.summaries else []
    header = f"{results.workload}: {_replicates(reps)}"
    out.write(f"{header}, from {path}\n")
    return _report_replicated(args, results.workload, reps, results.summaries, header, out, err)


def _report_runs(args: argparse.Namespace, results: Results, out: TextIO, err: TextIO) -> int:
    """``--from-json`` on a file of single runs: their table and ``--plot``."""
    if args.json is not None:
        err.write(
            f"{PROG}: error: --json with --from-json rewrites files of replicated runs; "
            f"{str(args.from_json)!r} holds single runs\n"
        )
        return 2
    runs = [
        RunSummary(settings=summary.settings, metrics=summary.runs[0][1])
        for summary in results.summaries
    ]
    title = f"{results.workload}, {results.gpus} GPUs"
    out.write(f"{title}, from {args.from_json}\n")
    out.write("\n" + format_table(runs, style=args.format) + "\n")
    return _plot(args, runs, title, out, err)


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``minruntime-sim`` with ``argv`` (without the subcommand); the exit status.

    0 on success; 2 for a usage error, a trace or results file that cannot be read, or
    ``--plot`` without matplotlib (all found before anything runs); 1 if the plot cannot be
    written (the table and the other files are written first).
    """
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit:  # --help
        return exit.code if isinstance(exit.code, int) else 0
    except _UsageError as error:
        err.write(f"{PROG}: error: {error}\n")
        return 2
    if args.eviction_window is not None and args.max_evictions is None:
        err.write(f"{PROG}: error: --eviction-window needs --max-evictions\n")
        return 2
    if (args.trace is None) == (args.from_json is None):
        err.write(
            f"{PROG}: error: give a trace to run, or --from-json with a results file (not both)\n"
        )
        return 2
    problem = _unwritable(args)
    if problem is not None:
        err.write(f"{PROG}: error: {problem}\n")
        return 2
    if args.plot is not None:  # before anything runs: a missing extra must cost nothing
        try:
            formats = plot_formats()
        except ImportError as error:
            err.write(f"{PROG}: error: {error}\n")
            return 2
        suffix = args.plot.suffix.lower()
        if suffix.removeprefix(".") not in formats:
            err.write(
                f"{PROG}: error: --plot {str(args.plot)!r}: the name must end in an image "
                f"format's suffix, got {suffix or 'none'} (expected .png, .svg, or one of "
                f"{', '.join('.' + name for name in formats)})\n"
            )
            return 2
    if args.from_json is not None:
        given = [f"--{name}" for name in ("csv", "evictions", "usage") if getattr(args, name)]
        if given:
            err.write(
                f"{PROG}: error: {_listed(given)} need a run, not --from-json: they are not "
                "in a results file\n"
            )
            return 2
        return _from_json(args, out, err)
    sizes: list[int | None] = list(args.gpus) if args.gpus else [None]
    reps = replicates(slices=args.slices, seeds=args.seed, sizes=sizes)
    if len(reps) > 1:
        given = [f"--{name}" for name in ("csv", "evictions", "usage") if getattr(args, name)]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            err.write(
                f"{PROG}: error: {_listed(given)} {verb} to a single replicate (give one "
                "--gpus, one --seed and no --slices); --json and --plot take replicates\n"
            )
            return 2
    source = TraceSource(
        args.trace, limit=args.limit, gpus=sizes[0], seed=args.seed[0], load_factor=args.load
    )
    try:
        workload = source.load()
    except SimError as error:
        err.write(f"{PROG}: error: {error}\n")
        return 2
    grid = settings_grid(
        reclaim=args.reclaim_min_runtime,
        preempt=args.preempt_min_runtime,
        checkpoints=args.checkpoint_interval,
        restart_overhead=args.restart_overhead,
        save_on_preempt=args.save_on_preempt,
        reclaim_resolve_method=args.resolve_method,
        policies=args.policy,
        checkpoint_grace=args.checkpoint_grace,
        max_evictions=args.max_evictions,
        eviction_window=(
            args.eviction_window if args.eviction_window is not None else MinRuntime.NEVER
        ),
        victim_orders=args.victim_order,
        seed=args.seed[0],
        checkpoint_costs=args.checkpoint_costs,
        rank_unsaved=args.rank_unsaved,
        job_request=args.job_request,
        request_cap=args.max_job_min_runtime,
    )
    progress = args.progress if args.progress is not None else err.isatty()
    if len(reps) > 1:
        return _replicated(args, workload, grid, reps, progress, out, err)
    detail = args.evictions is not None or args.usage is not None
    runs = _on_executor(
        args,
        err,
        lambda executor: run_sweep(
            source, grid, jobs=args.jobs, executor=executor, progress=progress, detail=detail
        ),
    )
    if runs is None:
        return 2
    summaries = runs
    out.write(
        f"{workload.name}: {len(workload.jobs)} jobs, {workload.total_gpus} GPUs, "
        f"{sum(1 for name in workload.tree if not workload.tree.children(name))} queues\n"
    )
    for note in workload.notes:
        wrapped = textwrap.fill(
            note,
            WIDTH,
            initial_indent="  note: ",
            subsequent_indent="    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        out.write(f"{wrapped}\n")
    out.write("\n" + format_table(summaries, style=args.format) + "\n")
    if args.json is not None:
        args.json.write_text(to_json(workload, summaries), encoding="utf-8")
        out.write(f"wrote {args.json}\n")
    if args.csv is not None:
        args.csv.write_text(to_csv(summaries), encoding="utf-8")
        out.write(f"wrote {args.csv}\n")
    if args.evictions is not None:
        args.evictions.write_text(evictions_csv(summaries), encoding="utf-8")
        out.write(f"wrote {args.evictions}\n")
    if args.usage is not None:
        args.usage.write_text(usage_csv(summaries), encoding="utf-8")
        out.write(f"wrote {args.usage}\n")
    return _plot(args, summaries, f"{workload.name}, {workload.total_gpus} GPUs", out, err)


def _listed(names: Sequence[str]) -> str:
    """Names joined for a sentence: "--csv", "--csv and --usage", "--csv, --evictions and
    --usage"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

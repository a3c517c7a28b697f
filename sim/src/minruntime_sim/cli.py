"""``minruntime-sim`` (also ``minruntime simulate``): replay a trace under several min-runtime settings and compare them.

Examples::

    minruntime-sim philly --load 4 --reclaim-min-runtime 0 10m 30m 1h 4h --jobs 2
    minruntime-sim alibaba --gpus 48 --preempt-min-runtime 0 30m --json out.json
    minruntime-sim my-trace.csv --checkpoint-interval none 30m --csv out.csv --plot out.png
    minruntime-sim philly --load 4 --reclaim-min-runtime 0 30m --checkpoint-interval 30m \
        --policy none min-runtime checkpoint-aware --checkpoint-grace 10m --jobs 2

Every combination of the values given runs (reclaim outermost, then preempt, then checkpoint
interval, then policy; policy ``none`` once per checkpoint interval, since it ignores the
min-runtimes), in ``--jobs`` processes; the table and the files list them in that order, and
the same arguments always give the same bytes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Final, NoReturn, TextIO, TypeVar

from minruntime import MinRuntime
from minruntime_sim.errors import SimError
from minruntime_sim.model import (
    DEFAULT_CHECKPOINT_GRACE,
    DEFAULT_RESTART_OVERHEAD,
    POLICIES,
    Settings,
    VictimOrder,
    Workload,
    parse_duration,
    parse_seconds,
)
from minruntime_sim.sweep import (
    TraceSource,
    evictions_csv,
    format_table,
    plot,
    run_sweep,
    settings_grid,
    to_csv,
    to_json,
    usage_csv,
)
from minruntime_sim.traces import TRACE_NAMES
from minruntime_sim.uncertainty import (
    Replicate,
    format_intervals,
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
        help=f"{', '.join(TRACE_NAMES)}, or the path of a CSV trace "
        "(see minruntime_sim.traces for its format)",
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
        "min-runtime (the default), checkpoint-aware (min-runtime plus checkpoint grace, "
        "eviction budget and least-unsaved-work-first victims)",
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
    parser.add_argument("--jobs", type=_positive, default=1, help="parallel processes")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results as JSON")
    parser.add_argument("--csv", type=Path, metavar="PATH", help="write the results as CSV")
    parser.add_argument(
        "--plot", type=Path, metavar="PATH", help="plot lost work against waiting (matplotlib)"
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
    out.write(
        f"{workload.name}: {len(workload.jobs)} jobs, {len(reps)} replicates "
        f"(slices {args.slices}, seeds {' '.join(map(str, args.seed))}, "
        f"sizes {' '.join('full' if rep is None else str(rep) for rep in dict.fromkeys(r.gpus for r in reps))})\n"
    )
    out.write("\n" + format_intervals(summaries) + "\n")
    if args.json is not None:
        document = {
            "workload": workload.name,
            "replicates": [rep.label for rep in reps],
            "settings": replicated_to_json(summaries),
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        out.write(f"wrote {args.json}\n")
    return 0


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``minruntime-sim`` with ``argv`` (without the subcommand); the exit status.

    0 on success, 2 for a usage error or a trace that cannot be read, 1 if the plot cannot be
    drawn (the table and the other files are written first).
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
    problem = _unwritable(args)
    if problem is not None:
        err.write(f"{PROG}: error: {problem}\n")
        return 2
    sizes: list[int | None] = list(args.gpus) if args.gpus else [None]
    reps = replicates(slices=args.slices, seeds=args.seed, sizes=sizes)
    if len(reps) > 1:
        given = [f"--{name}" for name in _OUTPUTS if name != "json" and getattr(args, name)]
        if given:
            err.write(
                f"{PROG}: error: {', '.join(given)} apply to a single replicate (give one "
                "--gpus, one --seed and no --slices), or use --json\n"
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
        out.write(f"  note: {note}\n")
    out.write("\n" + format_table(summaries) + "\n")
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
    if args.plot is not None:
        try:
            plot(summaries, args.plot, title=f"{workload.name}, {workload.total_gpus} GPUs")
        except ImportError as error:
            err.write(f"{PROG}: error: {error}\n")
            return 1
        out.write(f"wrote {args.plot}\n")
    return 0

"""Settings sweeps: run a grid of settings on one workload, in parallel, and report the results.

Each run is independent and deterministic, so runs go to separate processes
(:class:`concurrent.futures.ProcessPoolExecutor`) and the results come back in the grid's order:
the report does not depend on how many processes ran it. Each process loads the workload once
from its :class:`TraceSource`.

>>> from minruntime import MinRuntime
>>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")], checkpoints=[None, 1800])
>>> [settings.label for settings in grid]
['reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0', 'reclaim=0s preempt=0s checkpoint=30m order=reference', 'reclaim=1h preempt=0s checkpoint=drawn order=reference seed=0', 'reclaim=1h preempt=0s checkpoint=30m order=reference']
>>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")], checkpoints=[1800],
...                      policies=["none", "min-runtime", "checkpoint-aware"])
>>> for settings in grid:
...     print(settings.label)
reclaim=0s preempt=0s checkpoint=30m order=reference policy=none
reclaim=0s preempt=0s checkpoint=30m order=reference
reclaim=0s preempt=0s checkpoint=30m order=reference policy=checkpoint-aware grace=10m
reclaim=1h preempt=0s checkpoint=30m order=reference
reclaim=1h preempt=0s checkpoint=30m order=reference policy=checkpoint-aware grace=10m
"""

from __future__ import annotations

import csv
import enum
import io
import itertools
import json
import multiprocessing
import textwrap
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from typing import Final, NoReturn

import attrs
from tqdm import tqdm

from minruntime import MinRuntime
from minruntime_sim.metrics import EvictionRecord, Metrics
from minruntime_sim.model import (
    DEFAULT_CHECKPOINT_GRACE,
    DEFAULT_REQUEST_CAP,
    DEFAULT_RESTART_OVERHEAD,
    Settings,
    VictimOrder,
    Workload,
)
from minruntime_sim.scheduler import simulate
from minruntime_sim.traces import load_trace

__all__ = [
    "LEGEND",
    "WIDTH",
    "RunSummary",
    "TableFormat",
    "TraceSource",
    "common_settings",
    "evictions_csv",
    "format_table",
    "render_table",
    "run_sweep",
    "run_tasks",
    "setting_columns",
    "setting_names",
    "settings_grid",
    "to_csv",
    "to_json",
    "usage_csv",
]

_LOADED: dict[TraceSource, Workload] = {}
"""The workloads last loaded in this process, oldest first."""
_KEPT: Final = 4
"""How many workloads a process keeps loaded."""


@attrs.frozen
class TraceSource:
    """Where a workload comes from, so that a worker process can load it itself.

    ``window`` and ``windows`` take a slice of the trace (:meth:`Workload.window`);
    ``load_factor`` makes its jobs arrive that many times as fast (:meth:`Workload.with_load`).

    >>> TraceSource("synthetic", limit=10).load().name
    'synthetic(seed=0, jobs=10)'
    >>> TraceSource("synthetic", limit=10, window=1, windows=2).load().name
    'synthetic(seed=0, jobs=10)[2/2]'
    """

    trace: str
    limit: int | None = None
    gpus: int | None = None
    seed: int = 0
    window: int = 0
    windows: int = 1
    load_factor: float = 1

    def load(self) -> Workload:
        """The workload (loaded once per process)."""
        workload = _LOADED.get(self)
        if workload is None:
            workload = load_trace(
                self.trace,
                limit=self.limit,
                gpus=self.gpus,
                seed=self.seed,
                load_factor=self.load_factor,
            )
            if self.windows > 1:
                workload = workload.window(self.window, self.windows)
            if len(_LOADED) >= _KEPT:  # keep a few: a process works on one or two at a time
                del _LOADED[next(iter(_LOADED))]
            _LOADED[self] = workload
        return workload


@attrs.frozen(kw_only=True)
class RunSummary:
    """The settings of one run and its metrics; with ``detail``, its evictions and its busy
    GPUs over time too (see :func:`run_sweep`)."""

    settings: Settings
    metrics: Metrics
    evictions: tuple[EvictionRecord, ...] = ()
    usage: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, object]:
        """As JSON-ready values: the settings, then the metrics."""
        return {"settings": self.settings.to_dict(), "metrics": self.metrics.to_dict()}


def settings_grid(
    *,
    reclaim: Sequence[MinRuntime] = (MinRuntime.ZERO,),
    preempt: Sequence[MinRuntime] = (MinRuntime.ZERO,),
    checkpoints: Sequence[int | None] = (None,),
    restart_overhead: int = DEFAULT_RESTART_OVERHEAD,
    save_on_preempt: int | None = None,
    reclaim_resolve_method: str = "lca",
    policies: Sequence[str] = ("min-runtime",),
    checkpoint_grace: MinRuntime = DEFAULT_CHECKPOINT_GRACE,
    max_evictions: int | None = None,
    eviction_window: MinRuntime = MinRuntime.NEVER,
    victim_orders: Sequence[VictimOrder] = (VictimOrder.REFERENCE,),
    seed: int = 0,
    checkpoint_costs: bool = True,
    rank_unsaved: bool = False,
    job_request: int | None = None,
    request_cap: MinRuntime = DEFAULT_REQUEST_CAP,
) -> list[Settings]:
    """Every combination of the values, reclaim outermost, then preempt, then checkpoints, then
    policies, then victim orders; a combination equal to an earlier one is left out (policy
    ``none`` ignores the min-runtimes, so it runs once per checkpoint interval and order)."""
    grid: list[Settings] = []
    for r, p, c, policy, order in itertools.product(
        reclaim, preempt, checkpoints, policies, victim_orders
    ):
        settings = Settings(
            reclaim_min_runtime=r,
            preempt_min_runtime=p,
            checkpoint_interval=c,
            restart_overhead=restart_overhead,
            save_on_preempt=save_on_preempt,
            reclaim_resolve_method=reclaim_resolve_method,
            policy=policy,
            checkpoint_grace=checkpoint_grace,
            max_evictions=max_evictions,
            eviction_window=eviction_window,
            victim_order=order,
            seed=seed,
            checkpoint_costs=checkpoint_costs,
            rank_unsaved=rank_unsaved,
            job_request=job_request,
            request_cap=request_cap,
        )
        if settings not in grid:
            grid.append(settings)
    return grid


def _run_one(source: TraceSource, settings: Settings, detail: bool = False) -> RunSummary:
    result = simulate(source.load(), settings)
    if not detail:
        return RunSummary(settings=settings, metrics=result.metrics)
    return RunSummary(
        settings=settings, metrics=result.metrics, evictions=result.evictions, usage=result.usage
    )


def run_sweep(
    source: TraceSource,
    grid: Sequence[Settings],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    progress: bool = False,
    detail: bool = False,
) -> list[RunSummary]:
    """Run every setting of ``grid`` on the workload; results in the grid's order.

    Args:
        source: the workload (each worker loads it once).
        grid: the settings to run.
        jobs: how many processes to use when no ``executor`` is given; 1 (or a single setting)
            runs in this process.
        executor: any :class:`concurrent.futures.Executor` to run the settings on, for example
            a :class:`~concurrent.futures.ProcessPoolExecutor` or a Dask cluster's
            ``Client.get_executor()``; it is left running.
        progress: show a progress bar on standard error (tqdm), one step per finished run.
        detail: keep each run's evictions and busy GPUs over time in its summary (for
            :func:`evictions_csv` and :func:`usage_csv`).

    The report does not depend on where or in what order the runs finished.

    >>> summaries = run_sweep(TraceSource("synthetic", limit=20), settings_grid())
    >>> [summary.metrics.completed for summary in summaries]
    [20]
    """
    return run_tasks(
        [(source, settings) for settings in grid],
        jobs=jobs,
        executor=executor,
        progress=progress,
        detail=detail,
    )


def run_tasks(
    tasks: Sequence[tuple[TraceSource, Settings]],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    progress: bool = False,
    detail: bool = False,
) -> list[RunSummary]:
    """Run each (workload, settings) pair, all in one pool, results in the given order: as
    :func:`run_sweep` does for one workload, for the runs of several (the replicates of
    :func:`~minruntime_sim.uncertainty.run_replicated`), so that no process waits for the
    slowest run of a workload before it starts on the next.

    >>> tasks = [(TraceSource("synthetic", limit=n), settings_grid()[0]) for n in (10, 20)]
    >>> [summary.metrics.completed for summary in run_tasks(tasks)]
    [10, 20]
    """
    with tqdm(total=len(tasks), desc="runs", unit="run", disable=not progress) as bar:
        if executor is None and (jobs <= 1 or len(tasks) <= 1):
            summaries = []
            for source, settings in tasks:
                summaries.append(_run_one(source, settings, detail))
                bar.update()
            return summaries
        if executor is not None:
            return _gather(executor, tasks, bar, detail)
        # 'spawn': a fresh interpreter per worker, safe whatever threads the caller runs.
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=context) as pool:
            return _gather(pool, tasks, bar, detail)


def _gather(
    executor: Executor,
    tasks: Sequence[tuple[TraceSource, Settings]],
    bar: tqdm[NoReturn],
    detail: bool,
) -> list[RunSummary]:
    futures = [executor.submit(_run_one, source, settings, detail) for source, settings in tasks]
    for _ in as_completed(futures):
        bar.update()
    return [future.result() for future in futures]


# -- reports ---------------------------------------------------------------------------------

_COLUMNS: Final = (
    "policy",
    "order",
    "reclaim",
    "preempt",
    "checkpoint",
    "grace",
    "budget",
    "evictions",
    "reclaim_ev",
    "preempt_ev",
    "evicted_jobs",
    "lost_gpu_h",
    "queue_mean",
    "queue_p95",
    "reclaim_wait_gpu_h",
    "jct_mean",
    "util",
)


def _duration(seconds: float) -> str:
    """A compact reading of a number of seconds: 42s, 12m05s, 3h07m, 5d02h."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    if whole < 86_400:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    return f"{whole // 86_400}d{whole % 86_400 // 3600:02d}h"


def _checkpoint(settings: Settings) -> str:
    """The checkpoint interval as tables show it: ``drawn`` (per job), ``none``, or a duration
    (``/free`` when checkpoint costs are off)."""
    interval = settings.checkpoint_interval
    if interval is None:
        return "drawn" if settings.checkpoint_costs else "none"
    return str(MinRuntime(interval)) + ("" if settings.checkpoint_costs else "/free")


def _order(settings: Settings) -> str:
    """The victim order as the table shows it: its name, and its seed when random."""
    if settings.victim_order is VictimOrder.RANDOM:
        return f"random:{settings.seed}"
    return str(settings.victim_order)


def _row(summary: RunSummary) -> dict[str, object]:
    """One run as exact values (seconds, GPU-hours), keyed by the table's columns."""
    m = summary.metrics
    s = summary.settings
    return {
        "policy": s.policy,
        "order": _order(s),
        "reclaim": str(s.reclaim_min_runtime),
        "preempt": str(s.preempt_min_runtime),
        "checkpoint": _checkpoint(s),
        "grace": str(s.checkpoint_grace) if s.checkpoint_aware else "",
        "budget": s.budget if s.checkpoint_aware else "",
        "evictions": m.evictions,
        "reclaim_ev": m.reclaim_evictions,
        "preempt_ev": m.preempt_evictions,
        "evicted_jobs": m.evicted_jobs,
        "lost_gpu_h": round(m.lost_gpu_hours, 3),
        "queue_mean": round(m.queueing.mean, 3),
        "queue_p95": m.queueing.p95,
        "reclaim_wait_gpu_h": round(m.reclaim_waiting_gpu_hours, 3),
        "jct_mean": round(m.completion.mean, 3),
        "util": round(m.utilisation, 4),
    }


class TableFormat(enum.Enum):
    """How the command prints its tables (``--format``).

    - ``TEXT`` (the default): aligned columns for a terminal.
    - ``MARKDOWN``: Markdown pipe tables, for a page (the documentation's tables are this
      output, pasted).
    """

    TEXT = "text"
    MARKDOWN = "markdown"

    def __str__(self) -> str:
        return self.value


def render_table(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    style: TableFormat = TableFormat.TEXT,
    right: int | None = None,
) -> str:
    """Rows under a header, as aligned text or a Markdown table; columns from ``right`` on are
    right-aligned (numbers).

    >>> print(render_table(["setting", "lost GPU-h"], [["0s", "3.3"], ["30m", "11.5"]], right=1))
    setting  lost GPU-h
    0s              3.3
    30m            11.5
    >>> print(render_table(["setting", "lost GPU-h"], [["0s", "3.3"]], right=1,
    ...                    style=TableFormat.MARKDOWN))
    | setting | lost GPU-h |
    | :-- | --: |
    | 0s | 3.3 |
    """
    first = len(header) if right is None else right
    if style is TableFormat.MARKDOWN:
        rule = [":--" if i < first else "--:" for i in range(len(header))]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in (header, rule, *rows))
    lines = [tuple(header), *(tuple(row) for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.rjust(width) if i >= first else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    )


WIDTH: Final = 100
"""The widest line of the text tables and reports: they fit a terminal of 100 columns."""

_METRICS: Final[tuple[tuple[str, str, Callable[[Metrics], str]], ...]] = (
    ("evictions", "evictions", lambda m: str(m.evictions)),
    ("rcl/pre", "(reclaim/preempt)", lambda m: f"{m.reclaim_evictions}/{m.preempt_evictions}"),
    ("jobs", "evicted jobs", lambda m: str(m.evicted_jobs)),
    ("lost", "lost GPU-h", lambda m: f"{m.lost_gpu_hours:.1f}"),
    ("wait", "queueing mean", lambda m: _duration(m.queueing.mean)),
    ("p95", "queueing p95", lambda m: _duration(m.queueing.p95)),
    ("rcl wait", "reclaim wait GPU-h", lambda m: f"{m.reclaim_waiting_gpu_hours:.1f}"),
    ("JCT", "JCT mean", lambda m: _duration(m.completion.mean)),
    ("util", "util", lambda m: f"{m.utilisation:.1%}"),
)
"""The metrics of :func:`format_table`: the text heading, the Markdown heading, the value."""

LEGEND: Final = (
    "rcl: reclaim, pre: preempt; jobs: evicted; lost, rcl wait: GPU-h; wait, JCT: means; "
    "p95: of wait"
)
"""The legend under the text table of :func:`format_table`: what its short headings mean."""


def format_table(summaries: Sequence[RunSummary], *, style: TableFormat = TableFormat.TEXT) -> str:
    """A comparison table, one line per run (delays as durations), as text or Markdown.

    What every run shares is said once, in a sentence above the table; the table keeps the
    parts of the settings that tell the runs apart (:func:`setting_columns`), then the metrics.
    As text (the default) it fits :data:`WIDTH` columns for a few settings: the headings are
    short and a legend under the table reads them. As Markdown, for a page, the headings are
    whole and there is no legend.

    >>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("1h")])
    >>> runs = run_sweep(TraceSource("synthetic", limit=40), grid)
    >>> print(format_table(runs))
    Every run: policy min-runtime; preempt 0s; checkpoints drawn per job; victim order reference.
    <BLANKLINE>
    reclaim  evictions  rcl/pre  jobs  lost    wait     p95  rcl wait     JCT   util
    0s              29    10/19    11   3.2  18m48s   1h00m       0.0  58m15s  70.2%
    1h              24     3/21     8   1.8  12m40s  45m54s       1.0  50m01s  68.0%
    <BLANKLINE>
    rcl: reclaim, pre: preempt; jobs: evicted; lost, rcl wait: GPU-h; wait, JCT: means; p95: of wait
    >>> print(format_table(runs, style=TableFormat.MARKDOWN))
    Every run: policy min-runtime; preempt 0s; checkpoints drawn per job; victim order reference.
    <BLANKLINE>
    | reclaim | evictions | (reclaim/preempt) | evicted jobs | lost GPU-h | queueing mean | queueing p95 | reclaim wait GPU-h | JCT mean | util |
    | :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: |
    | 0s | 29 | 10/19 | 11 | 3.2 | 18m48s | 1h00m | 0.0 | 58m15s | 70.2% |
    | 1h | 24 | 3/21 | 8 | 1.8 | 12m40s | 45m54s | 1.0 | 50m01s | 68.0% |

    In the text legend, ``wait`` is the jobs' mean time pending (before the first start and
    after each eviction) and ``p95`` its 95th percentile; ``JCT`` the mean job completion time
    (submission to finish); ``lost`` the GPU-hours of work evictions destroyed and ``rcl wait``
    the GPU-hours queues waited for a reclaim; ``util`` the busy share of the GPUs.
    """
    settings = [summary.settings for summary in summaries]
    columns = setting_columns(settings)
    text = style is TableFormat.TEXT
    header = [
        *(heading for heading, _ in columns),
        *(short if text else whole for short, whole, _ in _METRICS),
    ]
    rows = [
        (
            *(values[i] for _, values in columns),
            *(value(summary.metrics) for _, _, value in _METRICS),
        )
        for i, summary in enumerate(summaries)
    ]
    out = [render_table(header, rows, style=style, right=len(columns))]
    shared = _shared(settings, {heading for heading, _ in columns})
    if shared:
        lead = f"Every run: {shared}."
        out[:0] = [textwrap.fill(lead, WIDTH, break_on_hyphens=False) if text else lead, ""]
    if text:
        out += ["", LEGEND]
    return "\n".join(out)


_PARTS: Final[tuple[tuple[str, Callable[[Settings], str]], ...]] = (
    ("reclaim", lambda s: str(s.reclaim_min_runtime)),
    ("preempt", lambda s: str(s.preempt_min_runtime)),
    ("policy", lambda s: s.policy),
    ("order", _order),
    ("checkpoint", _checkpoint),
    ("grace", lambda s: str(s.checkpoint_grace) if s.checkpoint_aware else ""),
    ("budget", lambda s: s.budget if s.checkpoint_aware else ""),
    ("rank", lambda s: ("unsaved" if s.rank_unsaved else "order") if s.checkpoint_aware else ""),
    ("request", lambda s: s.request if s.checkpoint_aware else ""),
    ("restart", lambda s: str(MinRuntime(s.restart_overhead))),
    ("save", lambda s: "" if s.save_on_preempt is None else str(MinRuntime(s.save_on_preempt))),
    ("resolve", lambda s: s.reclaim_resolve_method),
    ("seed", lambda s: str(s.seed)),
)
"""The parts of a setting a table or a figure may show, with their headings."""


def setting_columns(settings: Sequence[Settings]) -> list[tuple[str, list[str]]]:
    """The parts that tell ``settings`` apart, as (heading, one value per setting): every part
    with more than one value among the settings it applies to (the grace and the budget apply
    to checkpoint-aware settings only; the others show ""); the reclaim min-runtime and the
    policy when none differs. :func:`common_settings` says what they share.

    >>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("30m")],
    ...                      policies=["none", "min-runtime"])
    >>> setting_columns(grid)
    [('reclaim', ['0s', '0s', '30m']), ('policy', ['none', 'min-runtime', 'min-runtime'])]
    """
    columns = [(heading, [part(setting) for setting in settings]) for heading, part in _PARTS]
    varying = [(heading, values) for heading, values in columns if len(set(values) - {""}) > 1]
    if varying:
        return varying
    return [(heading, values) for heading, values in columns if heading in ("reclaim", "policy")]


def setting_names(settings: Sequence[Settings]) -> list[str]:
    """A short name per setting: the parts :func:`setting_columns` gives, the policy bare.

    >>> grid = settings_grid(reclaim=[MinRuntime(0), MinRuntime("30m")],
    ...                      policies=["none", "checkpoint-aware"])
    >>> setting_names(grid)
    ['reclaim 0s, none', 'reclaim 0s, checkpoint-aware', 'reclaim 30m, checkpoint-aware']
    """
    columns = setting_columns(settings)
    return [
        ", ".join(
            values[i] if heading == "policy" else f"{heading} {values[i]}"
            for heading, values in columns
            if values[i]
        )
        for i in range(len(settings))
    ]


def common_settings(settings: Sequence[Settings]) -> str:
    """What every one of ``settings`` shares among the parts readers ask about: the
    checkpoints, the victim order, and the checkpoint-aware grace, budget, ranking and per-job
    request ("" if none is shared).

    >>> common_settings(settings_grid(reclaim=[MinRuntime(0), MinRuntime("30m")],
    ...                               policies=["none", "checkpoint-aware"]))
    'checkpoints drawn per job; victim order reference; checkpoint-aware: grace 10m, eviction budget off'
    """
    if not settings:
        return ""
    parts = []
    intervals = {(setting.checkpoint_interval, setting.checkpoint_costs) for setting in settings}
    if len(intervals) == 1:
        interval, costs = intervals.pop()
        if interval is None:
            parts.append("checkpoints drawn per job" if costs else "no checkpoints")
        else:
            free = "" if costs else " (free)"
            parts.append(f"checkpoints every {MinRuntime(interval)}{free}")
    orders = {_order(setting) for setting in settings}
    if len(orders) == 1:
        parts.append(f"victim order {orders.pop()}")
    aware = {
        (setting.checkpoint_grace, setting.budget, setting.rank_unsaved, setting.request)
        for setting in settings
        if setting.checkpoint_aware
    }
    if len(aware) == 1:
        grace, budget, ranked, request = aware.pop()
        said = f"checkpoint-aware: grace {grace}, eviction budget {budget}"
        if ranked:
            said += ", victims by least unsaved work"
        if request != "off":
            said += f", each job requests {_request_words(request)}"
        parts.append(said)
    return "; ".join(parts)


def _shared(settings: Sequence[Settings], shown: set[str]) -> str:
    """What every one of ``settings`` shares, for the sentence above :func:`format_table`: the
    policy and the reclaim and preempt min-runtimes unless ``shown`` as columns, then
    :func:`common_settings`.

    >>> _shared(settings_grid(reclaim=[MinRuntime(0), MinRuntime("30m")]), {"reclaim"})
    'policy min-runtime; preempt 0s; checkpoints drawn per job; victim order reference'
    """
    parts = dict(_PARTS)
    said = []
    for heading in ("policy", "reclaim", "preempt"):
        values = {parts[heading](setting) for setting in settings}
        if heading not in shown and len(values) == 1:
            said.append(f"{heading} {values.pop()}")
    common = common_settings(settings)
    return "; ".join([*said, common] if common else said)


def _request_words(request: str) -> str:
    """A per-job request (``Settings.request``) in words.

    >>> _request_words("8h/2h")
    'a min-runtime of 8 GPU-hours over its GPUs, at most 2h'
    """
    gpu_time, _, cap = request.partition("/")
    hours = MinRuntime(gpu_time).total_seconds() / 3600
    amount = f"{hours:g} GPU-hour" + ("" if hours == 1 else "s")
    return f"a min-runtime of {amount} over its GPUs, at most {cap}"


def to_json(workload: Workload, summaries: Sequence[RunSummary]) -> str:
    """The runs as a JSON document (fixed key order, so equal runs give equal bytes)."""
    document = {
        "workload": {
            "name": workload.name,
            "jobs": len(workload.jobs),
            "total_gpus": workload.total_gpus,
            "deserved": dict(sorted(workload.deserved.items())),
            "notes": list(workload.notes),
        },
        "runs": [summary.to_dict() for summary in summaries],
    }
    return json.dumps(document, indent=2) + "\n"


def to_csv(summaries: Sequence[RunSummary]) -> str:
    """The runs as CSV: one row per run, the table's columns as exact values."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for summary in summaries:
        writer.writerow(_row(summary))
    return buffer.getvalue()


def evictions_csv(summaries: Sequence[RunSummary]) -> str:
    """Every eviction of every run (kept with ``detail``) as CSV: the run's label, then the
    fields of :class:`~minruntime_sim.EvictionRecord`.

    >>> summaries = run_sweep(TraceSource("synthetic", limit=40), settings_grid(), detail=True)
    >>> evictions_csv(summaries).splitlines()[0]
    'run,time,job,queue,action,preemptor,preemptor_queue,tasks,active_before,min_available,preemptibility,start_time,min_runtime,work_since_start,lost_gpu_seconds,restart_gpu_seconds'
    """
    names = [field.name for field in attrs.fields(EvictionRecord)]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run", *names])
    for summary in summaries:
        for record in summary.evictions:
            writer.writerow([summary.settings.label, *(getattr(record, name) for name in names)])
    return buffer.getvalue()


def usage_csv(summaries: Sequence[RunSummary]) -> str:
    """Busy GPUs over time of every run (kept with ``detail``) as CSV: ``run, time, busy_gpus``,
    one row per change (a step function: the count holds until the run's next row).

    >>> summaries = run_sweep(TraceSource("synthetic", limit=3), settings_grid(), detail=True)
    >>> print(usage_csv(summaries))
    run,time,busy_gpus
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,223,2
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,276,6
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,367,8
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,1538,6
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,6431,4
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0,8076,0
    <BLANKLINE>
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run", "time", "busy_gpus"])
    for summary in summaries:
        for time, busy in summary.usage:
            writer.writerow([summary.settings.label, time, busy])
    return buffer.getvalue()

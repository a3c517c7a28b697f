"""Uncertainty: every figure over trace slices, seeds and cluster sizes, with an interval.

One run says what one slice of one trace did on one cluster size with one seed. An operator
acting on a figure needs to know how much of it is that choice: :func:`run_replicated` runs
each setting of a grid on every *replicate* (a slice of the trace, a seed, a cluster size),
:meth:`ReplicatedSummary.interval` gives a metric's mean with a 95% t-interval over the
replicates, and :func:`compare` says in how many replicates one setting beat another, so that
a conclusion is flagged as holding in all of them or not.

>>> from minruntime import MinRuntime
>>> from minruntime_sim.sweep import settings_grid
>>> reps = replicates(slices=2, seeds=[0, 1])
>>> [rep.label for rep in reps]
['slice 1/2 seed 0 full size', 'slice 2/2 seed 0 full size', 'slice 1/2 seed 1 full size', 'slice 2/2 seed 1 full size']
>>> grid = settings_grid(reclaim=[MinRuntime("0s"), MinRuntime("1h")])
>>> plain, protected = run_replicated("synthetic", grid, reps, limit=80)
>>> plain.values("lost_gpu_seconds"), str(plain.interval("lost_gpu_seconds"))
([10673.0, 3823.0, 8322.0, 10734.0], '8388.0 [3227.0, 13549.0]')
>>> str(compare(protected, plain, "lost_gpu_seconds")), str(compare(protected, plain, "evictions"))
('lower in 2, higher in 2 of 4: mixed', 'lower in 2, higher in 2 of 4: mixed')

On this small workload a 1h reclaim min-runtime neither saves nor costs work reliably: the
sign depends on the slice and the seed, which one run would not show.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Final

import attrs

from minruntime_sim.errors import InvalidSetting
from minruntime_sim.metrics import Metrics
from minruntime_sim.model import Settings
from minruntime_sim.sweep import RunSummary, TraceSource, run_sweep

__all__ = [
    "Comparison",
    "Interval",
    "Replicate",
    "ReplicatedSummary",
    "compare",
    "format_intervals",
    "replicated_to_json",
    "replicates",
    "run_replicated",
]

_T_975: Final = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Student's t, 97.5th percentile, for 1 to 30 degrees of freedom (a standard table); 1.96
beyond."""


@attrs.frozen
class Replicate:
    """One replicate of a run: a slice of the trace, a seed and a cluster size.

    >>> Replicate(window=1, windows=4, seed=2, gpus=704).label
    'slice 2/4 seed 2 704 GPUs'
    """

    window: int
    windows: int
    seed: int
    gpus: int | None

    @property
    def label(self) -> str:
        """A short name: the slice (when the trace is cut), the seed and the cluster size
        (``full size``: the trace's own)."""
        parts = [f"slice {self.window + 1}/{self.windows}"] if self.windows > 1 else []
        parts.append(f"seed {self.seed}")
        parts.append("full size" if self.gpus is None else f"{self.gpus} GPUs")
        return " ".join(parts)


def replicates(
    *, slices: int = 1, seeds: Sequence[int] = (0,), sizes: Sequence[int | None] = (None,)
) -> list[Replicate]:
    """Every combination of a slice, a seed and a size: sizes outermost, then seeds, then slices.

    Raises:
        InvalidSetting: for fewer than one slice, or no seed or size.
    """
    if slices < 1 or not seeds or not sizes:
        raise InvalidSetting(
            f"replicates: expected at least one slice, seed and size, got {slices} slices, "
            f"seeds {list(seeds)}, sizes {list(sizes)}"
        )
    return [
        Replicate(window=window, windows=slices, seed=seed, gpus=gpus)
        for gpus, seed, window in itertools.product(sizes, seeds, range(slices))
    ]


@attrs.frozen
class Interval:
    """A mean and its 95% t-interval over ``n`` values (a single value: the value itself).

    >>> Interval.of([10.0, 12.0, 14.0])
    Interval(mean=12.0, low=7.031, high=16.969, n=3)
    >>> str(Interval.of([10.0, 12.0, 14.0]))
    '12.0 [7.0, 17.0]'
    """

    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        """The mean of ``values`` and its 95% interval (Student's t), rounded to 3 places."""
        if not values:
            raise InvalidSetting("an interval needs at least one value")
        mean = statistics.fmean(values)
        if len(values) == 1:
            return cls(mean=round(mean, 3), low=round(mean, 3), high=round(mean, 3), n=1)
        df = len(values) - 1
        t = _T_975[df - 1] if df <= len(_T_975) else 1.96
        half = t * statistics.stdev(values) / math.sqrt(len(values))
        return cls(
            mean=round(mean, 3),
            low=round(mean - half, 3),
            high=round(mean + half, 3),
            n=len(values),
        )

    def __str__(self) -> str:
        return f"{self.mean:.1f} [{self.low:.1f}, {self.high:.1f}]"


@attrs.frozen(kw_only=True)
class ReplicatedSummary:
    """One setting run on every replicate: its metrics per replicate, in the replicates' order."""

    settings: Settings
    runs: tuple[tuple[Replicate, Metrics], ...]

    def values(self, metric: str) -> list[float]:
        """A metric (an attribute of :class:`~minruntime_sim.Metrics`) in every replicate."""
        return [float(getattr(metrics, metric)) for _, metrics in self.runs]

    def interval(self, metric: str) -> Interval:
        """A metric's mean over the replicates, with its 95% interval."""
        return Interval.of(self.values(metric))


def run_replicated(
    trace: str,
    grid: Sequence[Settings],
    reps: Sequence[Replicate],
    *,
    limit: int | None = None,
    jobs: int = 1,
    executor: Executor | None = None,
    progress: bool = False,
    load_factor: float = 1,
) -> list[ReplicatedSummary]:
    """Run every setting of ``grid`` on every replicate; one summary per setting, in order.

    A replicate's seed is the seed of the run (the random victim order, the drawn checkpoint intervals) and, for the synthetic
    trace, of the workload. Every (replicate, setting) pair is one task for ``jobs`` processes or
    the ``executor``, as in :func:`~minruntime_sim.sweep.run_sweep`.
    """
    tasks: list[tuple[Replicate, Settings]] = [(rep, s) for rep in reps for s in grid]
    results: list[RunSummary] = []
    for rep in reps:  # one sweep per replicate: each worker loads its slice once
        source = TraceSource(
            trace,
            limit=limit,
            gpus=rep.gpus,
            seed=rep.seed,
            window=rep.window,
            windows=rep.windows,
            load_factor=load_factor,
        )
        results.extend(
            run_sweep(
                source,
                [attrs.evolve(settings, seed=rep.seed) for settings in grid],
                jobs=jobs,
                executor=executor,
                progress=progress,
            )
        )
    by_setting: dict[int, list[tuple[Replicate, Metrics]]] = {i: [] for i in range(len(grid))}
    for k, ((rep, _), summary) in enumerate(zip(tasks, results, strict=True)):
        by_setting[k % len(grid)].append((rep, summary.metrics))
    return [
        ReplicatedSummary(settings=settings, runs=tuple(by_setting[i]))
        for i, settings in enumerate(grid)
    ]


@attrs.frozen
class Comparison:
    """How a metric of setting ``a`` compares with ``b`` replicate by replicate.

    >>> str(Comparison(metric="lost_gpu_seconds", lower=3, higher=0, equal=0))
    'lower in 3 of 3: holds'
    >>> str(Comparison(metric="lost_gpu_seconds", lower=2, higher=1, equal=0))
    'lower in 2, higher in 1 of 3: mixed'
    >>> str(Comparison(metric="evictions", lower=0, higher=0, equal=3))
    'equal in 3 of 3: no difference'
    >>> str(Comparison(metric="evictions", lower=0, higher=2, equal=1))
    'higher in 2, equal in 1 of 3: never lower'
    """

    metric: str
    lower: int
    higher: int
    equal: int

    @property
    def holds(self) -> bool:
        """Whether it goes the same way (strictly) in every replicate."""
        total = self.lower + self.higher + self.equal
        return total > 0 and (self.lower == total or self.higher == total)

    @property
    def one_way(self) -> bool:
        """Whether it never goes the other way: lower or equal everywhere, or higher or equal
        everywhere, and strictly one way somewhere."""
        return (self.lower > 0) != (self.higher > 0)

    def __str__(self) -> str:
        total = self.lower + self.higher + self.equal
        if total and self.equal == total:
            return f"equal in {total} of {total}: no difference"
        if self.holds:
            side = "lower" if self.lower else "higher"
            return f"{side} in {total} of {total}: holds"
        parts = [
            f"{name} in {count}"
            for name, count in (
                ("lower", self.lower),
                ("higher", self.higher),
                ("equal", self.equal),
            )
            if count
        ]
        verdict = "mixed"
        if self.one_way:
            verdict = "never higher" if self.lower else "never lower"
        return f"{', '.join(parts)} of {total}: {verdict}"


def compare(a: ReplicatedSummary, b: ReplicatedSummary, metric: str) -> Comparison:
    """How ``a``'s metric compares with ``b``'s in each replicate they share.

    Raises:
        InvalidSetting: if they were not run on the same replicates.
    """
    if [rep for rep, _ in a.runs] != [rep for rep, _ in b.runs]:
        raise InvalidSetting("compare: the two summaries were run on different replicates")
    pairs = list(zip(a.values(metric), b.values(metric), strict=True))
    return Comparison(
        metric=metric,
        lower=sum(x < y for x, y in pairs),
        higher=sum(x > y for x, y in pairs),
        equal=sum(x == y for x, y in pairs),
    )


_REPORTED: Final = (
    ("lost_gpu_hours", "lost GPU-h"),
    ("evictions", "evictions"),
    ("reclaim_waiting_gpu_hours", "reclaim wait GPU-h"),
)
"""The metrics the interval table shows, with their headings."""


def format_intervals(summaries: Sequence[ReplicatedSummary]) -> str:
    """A plain-text table: each setting's metrics as a mean with its 95% interval, then how each
    compares, replicate by replicate, with its baseline: the first setting of the grid that
    differs from it only in its protection (min-runtimes, policy), so the first of each victim
    order, checkpoint interval and cost (``holds``: the same way in every replicate).

    >>> from minruntime import MinRuntime
    >>> from minruntime_sim.sweep import settings_grid
    >>> grid = settings_grid(reclaim=[MinRuntime("0s"), MinRuntime("1h")])
    >>> print(format_intervals(run_replicated("synthetic", grid, replicates(slices=2), limit=80)))
    setting                                                        lost GPU-h         evictions            reclaim wait GPU-h
    reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0  2.0 [-10.1, 14.1]  19.5 [-88.5, 127.5]  0.0 [0.0, 0.0]
    reclaim=1h preempt=0s checkpoint=drawn order=reference seed=0  1.6 [-0.8, 4.0]    18.0 [-58.2, 94.2]   0.5 [-5.4, 6.4]
    <BLANKLINE>
    against reclaim=0s preempt=0s checkpoint=drawn order=reference seed=0, over 2 replicates:
      reclaim=1h preempt=0s checkpoint=drawn order=reference seed=0: lost GPU-h lower in 1, higher in 1 of 2: mixed; evictions lower in 1, higher in 1 of 2: mixed; reclaim wait GPU-h higher in 1, equal in 1 of 2: never lower

    Two replicates give wide intervals (here below zero for quantities that cannot be): the
    comparisons say more than the intervals until there are many replicates.
    """
    header = ("setting", *(heading for _, heading in _REPORTED))
    lines = [header]
    for summary in summaries:
        lines.append(
            (summary.settings.label, *(str(summary.interval(name)) for name, _ in _REPORTED))
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines
    ]
    groups: dict[tuple[object, ...], list[ReplicatedSummary]] = {}
    for summary in summaries:
        groups.setdefault(_scenario(summary.settings), []).append(summary)
    for first, *others in groups.values():
        if not others:
            continue
        text.append("")
        text.append(f"against {first.settings.label}, over {len(first.runs)} replicates:")
        for summary in others:
            verdicts = "; ".join(
                f"{heading} {compare(summary, first, name)}" for name, heading in _REPORTED
            )
            text.append(f"  {summary.settings.label}: {verdicts}")
    return "\n".join(text)


def _scenario(settings: Settings) -> tuple[object, ...]:
    """What a setting is compared within: everything but the protection (the min-runtimes, the
    policy and its checkpoint-aware settings). The first setting of each scenario in the grid
    is the others' baseline."""
    return (
        settings.victim_order,
        settings.seed,
        settings.checkpoint_interval,
        settings.checkpoint_costs,
        settings.restart_overhead,
        settings.save_on_preempt,
        settings.reclaim_resolve_method,
        settings.legacy_priority_threshold,
    )


def replicated_to_json(summaries: Sequence[ReplicatedSummary]) -> list[dict[str, object]]:
    """Each setting with its intervals and every replicate's metrics, as JSON-ready values."""
    return [
        {
            "settings": summary.settings.to_dict(),
            "intervals": {name: attrs.asdict(summary.interval(name)) for name, _ in _REPORTED},
            "replicates": [
                {
                    "window": rep.window,
                    "windows": rep.windows,
                    "seed": rep.seed,
                    "gpus": rep.gpus,
                    "metrics": metrics.to_dict(),
                }
                for rep, metrics in summary.runs
            ],
        }
        for summary in summaries
    ]

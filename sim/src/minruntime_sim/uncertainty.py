"""Uncertainty: every figure over trace slices, seeds and cluster sizes, with an interval.

One run says what one slice of one trace did on one cluster size with one seed. An operator
acting on a figure needs to know how much of it is that choice: :func:`run_replicated` runs
each setting of a grid on every *replicate* (a slice of the trace, a seed, a cluster size),
:meth:`ReplicatedSummary.interval` gives a metric's mean with a 95% bootstrap percentile
interval over the replicates (it never leaves the range of the values, so a count's interval
never goes below zero), and :func:`compare` says in how many replicates one setting beat another, so that
a conclusion is flagged as holding in all of them or not.

>>> from minruntime import MinRuntime
>>> from minruntime_sim.sweep import settings_grid
>>> reps = replicates(slices=2, seeds=[0, 1])
>>> [rep.label for rep in reps]
['slice 1/2 seed 0 full size', 'slice 2/2 seed 0 full size', 'slice 1/2 seed 1 full size', 'slice 2/2 seed 1 full size']
>>> grid = settings_grid(reclaim=[MinRuntime("0s"), MinRuntime("1h")])
>>> plain, protected = run_replicated("synthetic", grid, reps, limit=80)
>>> plain.values("lost_gpu_seconds"), str(plain.interval("lost_gpu_seconds"))
([10673.0, 3823.0, 8322.0, 10734.0], '8388.0 [5535.5, 10703.5]')
>>> str(compare(protected, plain, "lost_gpu_seconds")), str(compare(protected, plain, "evictions"))
('lower in 2, higher in 2 of 4: mixed', 'lower in 2, higher in 2 of 4: mixed')

On this small workload a 1h reclaim min-runtime neither saves nor costs work reliably: the
sign depends on the slice and the seed, which one run would not show.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics
import textwrap
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any, Final

import attrs

from minruntime_sim.errors import InvalidResults, InvalidSetting
from minruntime_sim.metrics import Metrics
from minruntime_sim.model import Settings
from minruntime_sim.sweep import (
    WIDTH,
    RunSummary,
    TableFormat,
    TraceSource,
    common_settings,
    render_table,
    run_tasks,
    setting_columns,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "REPORTED",
    "WIDTH",
    "Comparison",
    "Interval",
    "Replicate",
    "ReplicatedSummary",
    "Results",
    "compare",
    "conclusions",
    "contended",
    "format_intervals",
    "read_results",
    "replicated_to_json",
    "replicates",
    "run_replicated",
]

BOOTSTRAP_RESAMPLES: Final = 4000
"""How many resamples an :class:`Interval` draws (seeded: the same values give the same
interval)."""


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
    """A mean and its 95% bootstrap percentile interval over ``n`` values (a single value: the
    value itself).

    The interval is the 2.5th to the 97.5th percentile of the means of
    :data:`BOOTSTRAP_RESAMPLES` resamples of the values (drawn with replacement, from a fixed
    seed, the values sorted first so that their order does not matter). Each end is a mean of
    some of the values, so the interval stays within their range: a count or an amount of work
    never gets an interval below zero. With few values it is the honest "anywhere between
    these" it should be; why not Student's t: ``docs/decisions/simulator-uncertainty.md``.

    >>> Interval.of([10.0, 12.0, 14.0])
    Interval(mean=12.0, low=10.0, high=14.0, n=3)
    >>> str(Interval.of([0.0, 131.0, 0.0, 0.0]))
    '32.8 [0.0, 98.2]'
    """

    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        """The mean of ``values`` and its 95% bootstrap percentile interval, rounded to 3
        places.

        Raises:
            InvalidSetting: for no values.
        """
        if not values:
            raise InvalidSetting("an interval needs at least one value")
        ordered = sorted(values)
        mean = round(statistics.fmean(ordered), 3)
        if ordered[0] == ordered[-1]:
            return cls(mean=mean, low=mean, high=mean, n=len(ordered))
        draw = random.Random(0).choices
        means = sorted(
            statistics.fmean(draw(ordered, k=len(ordered))) for _ in range(BOOTSTRAP_RESAMPLES)
        )
        low = means[math.floor(0.025 * BOOTSTRAP_RESAMPLES)]
        high = means[math.ceil(0.975 * BOOTSTRAP_RESAMPLES) - 1]
        return cls(mean=mean, low=round(low, 3), high=round(high, 3), n=len(ordered))

    def __str__(self) -> str:
        return f"{self.mean:.1f} [{self.low:.1f}, {self.high:.1f}]"

    @property
    def brief(self) -> str:
        """As ``str``, but in whole numbers when the interval reaches 10, for a narrow column.

        >>> Interval(mean=323.5, low=20.04, high=680.6, n=4).brief
        '324 [20, 681]'
        >>> Interval(mean=1.25, low=0.5, high=2.0, n=4).brief
        '1.2 [0.5, 2.0]'
        """
        if self.high < 10:
            return str(self)
        return f"{self.mean:.0f} [{self.low:.0f}, {self.high:.0f}]"


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

    @classmethod
    def single(cls, summary: RunSummary) -> ReplicatedSummary:
        """One run as a summary of one replicate (the whole trace, at its size, with the run's
        seed), so a single run is reported and plotted as replicated runs are."""
        rep = Replicate(window=0, windows=1, seed=summary.settings.seed, gpus=None)
        return cls(settings=summary.settings, runs=((rep, summary.metrics),))


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
    sources = {
        rep: TraceSource(
            trace,
            limit=limit,
            gpus=rep.gpus,
            seed=rep.seed,
            window=rep.window,
            windows=rep.windows,
            load_factor=load_factor,
        )
        for rep in reps
    }
    results = run_tasks(
        [(sources[rep], attrs.evolve(settings, seed=rep.seed)) for rep, settings in tasks],
        jobs=jobs,
        executor=executor,
        progress=progress,
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

    @property
    def brief(self) -> str:
        """The verdict first, then the counts, for a table cell.

        >>> Comparison(metric="evictions", lower=0, higher=4, equal=12).brief
        'never lower (higher in 4, equal in 12)'
        >>> Comparison(metric="evictions", lower=16, higher=0, equal=0).brief
        'holds (lower in 16)'
        >>> Comparison(metric="evictions", lower=0, higher=0, equal=16).brief
        'no difference (equal in 16)'
        """
        text = str(self)
        counts, _, verdict = text.rpartition(": ")
        return f"{verdict} ({counts.rsplit(' of ', 1)[0]})"

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


REPORTED: Final = (
    ("lost_gpu_hours", "lost GPU-h"),
    ("evictions", "evictions"),
    ("reclaim_waiting_gpu_hours", "reclaim wait GPU-h"),
    ("mean_wait_minutes", "mean wait min"),
)
"""The metrics the interval table and the figure show, with their headings."""


_SENTENCES: Final = {
    "lost_gpu_hours": ("lost less work than", "lost more work than", "GPU-hours"),
    "evictions": ("evicted less often than", "evicted more often than", "evictions"),
    "reclaim_waiting_gpu_hours": (
        "made queues wait less for reclaim than",
        "made queues wait longer for reclaim than",
        "GPU-hours of reclaim waiting",
    ),
    "mean_wait_minutes": (
        "made jobs wait less on average than",
        "made jobs wait longer on average than",
        "minutes of mean wait",
    ),
}
"""How a conclusion about each reported metric reads: lower, higher, and its unit."""


def contended(summary: ReplicatedSummary) -> list[Replicate]:
    """The replicates in which ``summary``'s setting evicted anything: where the queues
    contended, when the setting is no protection (a replicate where nothing is evicted without
    protection evicts nothing with it either, and every setting gives the same figures there).

    >>> from minruntime_sim.sweep import settings_grid
    >>> runs = run_replicated("synthetic", settings_grid(), replicates(slices=2), limit=40)
    >>> [rep.label for rep in contended(runs[0])]
    ['slice 1/2 seed 0 full size', 'slice 2/2 seed 0 full size']
    """
    return [rep for rep, metrics in summary.runs if metrics.evictions]


def _which(reps: Sequence[Replicate], every: Sequence[Replicate]) -> str:
    """The replicates ``reps`` of ``every``, said briefly: "all"; else, size by size, "all" of
    a size, or its slices every seed of which is in ``reps`` ("slice 2/4"), then the other
    replicates by label.

    >>> every = replicates(slices=2, seeds=[0, 1], sizes=[704, 1024])
    >>> _which([rep for rep in every if rep.gpus == 704 or rep.window == 1], every)
    'all on 704 GPUs; slice 2/2 on 1024 GPUs'
    >>> _which(every[:1], every)
    'slice 1/2 seed 0 704 GPUs'
    """
    if list(reps) == list(every):
        return "all"
    chosen = set(reps)
    sizes = list(dict.fromkeys(rep.gpus for rep in every))
    parts: list[str] = []
    for size in sizes:
        mine = [rep for rep in every if rep.gpus == size]
        picked = [rep for rep in mine if rep in chosen]
        where = (
            "" if len(sizes) == 1 else " on " + ("full size" if size is None else f"{size} GPUs")
        )
        if not picked:
            continue
        if len(picked) == len(mine):
            parts.append(f"all{where}")
            continue
        named: list[str] = []
        for window in sorted({rep.window for rep in mine}):
            part = [rep for rep in mine if rep.window == window]
            if len(part) > 1 and all(rep in chosen for rep in part):
                named.append(f"slice {window + 1}/{part[0].windows}")
                picked = [rep for rep in picked if rep not in part]
        if named and not picked:
            parts.append(", ".join(named) + where)
        else:
            parts.append(", ".join([*named, *(rep.label for rep in picked)]))
    return "; ".join(parts) if parts else "none"


def _counts(comparison: Comparison) -> str:
    """A comparison as ``lower / higher / equal`` counts, for a narrow table cell."""
    return f"{comparison.lower} / {comparison.higher} / {comparison.equal}"


def _names(settings: Sequence[Settings]) -> list[str]:
    """A short name per setting for sentences: its parts that tell the settings apart, the
    policy first; ``none`` bare (it ignores the min-runtimes)."""
    columns = setting_columns(settings)
    names = []
    for i, setting in enumerate(settings):
        if setting.policy == "none":
            names.append("none")
            continue
        parts = [values[i] for heading, values in columns if heading == "policy"]
        parts += [
            f"{heading} {values[i]}"
            for heading, values in columns
            if heading != "policy" and values[i]
        ]
        names.append(" ".join(parts[:1]) + (f" ({', '.join(parts[1:])})" if parts[1:] else ""))
    return names


def conclusions(
    summaries: Sequence[ReplicatedSummary],
) -> list[tuple[int, int, str, Comparison, bool]]:
    """Each comparison the report makes: (setting, its baseline, metric, how it compared,
    whether it held), in the grid's order, then the metrics' (:data:`REPORTED`).

    A setting's baseline is the first setting of the grid that differs from it only in its
    protection (the min-runtimes, the policy and its checkpoint-aware settings). A conclusion
    *held* when the setting went the same way (strictly) in every replicate its baseline
    :func:`contended` and never the other way (the others give equal figures).

    >>> from minruntime import MinRuntime
    >>> from minruntime_sim.sweep import settings_grid
    >>> grid = settings_grid(reclaim=[MinRuntime("30m")], policies=["none", "checkpoint-aware"])
    >>> runs = run_replicated("synthetic", grid, replicates(slices=2), limit=200)
    >>> [(metric, str(comparison), held) for _, _, metric, comparison, held in conclusions(runs)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('lost_gpu_hours', 'lower in 1, higher in 1 of 2: mixed', False),
     ('evictions', 'lower in 1, higher in 1 of 2: mixed', False),
     ('reclaim_waiting_gpu_hours', 'higher in 2 of 2: holds', True),
     ('mean_wait_minutes', 'lower in 2 of 2: holds', True)]
    """
    groups: dict[tuple[object, ...], list[int]] = {}
    for index, summary in enumerate(summaries):
        groups.setdefault(_scenario(summary.settings), []).append(index)
    found = []
    for first, *others in groups.values():
        base = summaries[first]
        busy = [i for i, (_, metrics) in enumerate(base.runs) if metrics.evictions]
        for other in others:
            for metric, _ in REPORTED:
                comparison = compare(summaries[other], base, metric)
                pairs = list(zip(summaries[other].values(metric), base.values(metric), strict=True))
                lower = comparison.lower > 0
                held = (
                    bool(busy)
                    and comparison.one_way
                    and all((a < b) if lower else (a > b) for a, b in (pairs[i] for i in busy))
                )
                found.append((other, first, metric, comparison, held))
    return found


def format_intervals(
    summaries: Sequence[ReplicatedSummary], *, style: TableFormat = TableFormat.TEXT
) -> str:
    """A report of replicated runs: what every setting shares, said once; each setting's
    metrics as a mean with its 95% interval; how each compares, replicate by replicate, with
    its baseline (:func:`conclusions`) and in how many replicates the queues contended; then
    the conclusions that did not hold in every contended replicate, and last one sentence per
    conclusion that did.

    The settings are named by the parts that tell them apart
    (:func:`~minruntime_sim.sweep.setting_columns`, one column each). As text (the default)
    the sentences are wrapped at :data:`~minruntime_sim.sweep.WIDTH` columns and the figures
    are whole numbers from 10 on (:attr:`Interval.brief`), so that a table of a few settings
    fits too; as Markdown the tables are pipe tables, for a page, with a decimal place.

    >>> from minruntime import MinRuntime
    >>> from minruntime_sim.sweep import settings_grid
    >>> grid = settings_grid(reclaim=[MinRuntime("0s"), MinRuntime("1h")])
    >>> runs = run_replicated("synthetic", grid, replicates(slices=2), limit=80)
    >>> print(format_intervals(runs))
    Every setting: checkpoints drawn per job; victim order reference. Each figure: the mean over 2
    replicates [95% bootstrap interval].
    <BLANKLINE>
    reclaim      lost GPU-h    evictions  reclaim wait GPU-h  mean wait min
    0s       2.0 [1.1, 3.0]  20 [11, 28]      0.0 [0.0, 0.0]     11 [3, 19]
    1h       1.6 [1.4, 1.8]  18 [12, 24]      0.5 [0.0, 0.9]      9 [3, 14]
    <BLANKLINE>
    Replicate by replicate, against reclaim 0s: in how many replicates each figure was lower / higher /
    equal. Contended (evictions without protection): 2 of 2 (all).
    <BLANKLINE>
    reclaim  lost GPU-h  evictions  reclaim wait GPU-h  mean wait min
    1h        1 / 1 / 0  1 / 1 / 0           0 / 1 / 1      1 / 1 / 0
    <BLANKLINE>
    Did not hold in every contended replicate (mixed, or equal): reclaim 1h on lost GPU-h (lower in 1,
    higher in 1), evictions (lower in 1, higher in 1), reclaim wait GPU-h (higher in 1, equal in 1),
    mean wait min (lower in 1, higher in 1).
    <BLANKLINE>
    Held in every contended replicate: none.
    >>> print(format_intervals(runs, style=TableFormat.MARKDOWN))
    Every setting: checkpoints drawn per job; victim order reference. Each figure: the mean over 2 replicates [95% bootstrap interval].
    <BLANKLINE>
    | reclaim | lost GPU-h | evictions | reclaim wait GPU-h | mean wait min |
    | :-- | --: | --: | --: | --: |
    | 0s | 2.0 [1.1, 3.0] | 19.5 [11.0, 28.0] | 0.0 [0.0, 0.0] | 11.2 [2.9, 19.4] |
    | 1h | 1.6 [1.4, 1.8] | 18.0 [12.0, 24.0] | 0.5 [0.0, 0.9] | 8.6 [2.9, 14.3] |
    <BLANKLINE>
    Replicate by replicate, against reclaim 0s: in how many replicates each figure was lower / higher / equal. Contended (evictions without protection): 2 of 2 (all).
    <BLANKLINE>
    | reclaim | lost GPU-h | evictions | reclaim wait GPU-h | mean wait min |
    | :-- | --: | --: | --: | --: |
    | 1h | 1 / 1 / 0 | 1 / 1 / 0 | 0 / 1 / 1 | 1 / 1 / 0 |
    <BLANKLINE>
    Did not hold in every contended replicate (mixed, or equal): reclaim 1h on lost GPU-h (lower in 1, higher in 1), evictions (lower in 1, higher in 1), reclaim wait GPU-h (higher in 1, equal in 1), mean wait min (lower in 1, higher in 1).
    <BLANKLINE>
    Held in every contended replicate: none.

    Two replicates give wide intervals: with so few, an interval is little more than the range
    of the values, and the comparisons say more.
    """
    text = style is TableFormat.TEXT

    def para(sentence: str) -> str:
        return textwrap.fill(sentence, WIDTH, break_on_hyphens=False) if text else sentence

    settings = [summary.settings for summary in summaries]
    columns = setting_columns(settings)
    headings = [heading for heading, _ in columns]
    names = _names(settings)
    shared = common_settings(settings)
    counts = sorted({len(summary.runs) for summary in summaries})
    over = " or ".join(map(str, counts))
    lead = f"Every setting: {shared}. " if shared else ""
    lead += f"Each figure: the mean over {over} replicates [95% bootstrap interval]."
    rows = [
        (
            *(values[i] for _, values in columns),
            *(
                summary.interval(name).brief if text else str(summary.interval(name))
                for name, _ in REPORTED
            ),
        )
        for i, summary in enumerate(summaries)
    ]
    metrics = [heading for _, heading in REPORTED]
    out = [
        para(lead),
        "",
        render_table([*headings, *metrics], rows, style=style, right=len(headings)),
    ]
    found = conclusions(summaries)
    for first in dict.fromkeys(base for _, base, _, _, _ in found):
        base = summaries[first]
        every = [rep for rep, _ in base.runs]
        busy = contended(base)
        against = names[first]
        out += [
            "",
            para(
                f"Replicate by replicate, against {against}: in how many replicates each "
                "figure was lower / higher / equal. Contended (evictions without protection): "
                f"{len(busy)} of {len(every)} ({_which(busy, every)})."
            ),
            "",
            render_table(
                [*headings, *metrics],
                [
                    (
                        *(values[other] for _, values in columns),
                        *(_counts(c) for o, b, _, c, _ in found if o == other and b == first),
                    )
                    for other in dict.fromkeys(o for o, b, _, _, _ in found if b == first)
                ],
                style=style,
                right=len(headings),
            ),
        ]
    if not found:
        return "\n".join(out)
    missed: dict[int, list[str]] = {}
    for other, _, metric, comparison, ok in found:
        if not ok:
            missed.setdefault(other, []).append(
                f"{dict(REPORTED)[metric]} ({comparison.brief.partition('(')[2][:-1]})"
            )
    if missed:
        out += [
            "",
            para(
                "Did not hold in every contended replicate (mixed, or equal): "
                + "; ".join(f"{names[other]} on {', '.join(on)}" for other, on in missed.items())
                + "."
            ),
        ]
    held = [
        f"- {_sentence(summaries, names, other, first, metric, comparison)}"
        for other, first, metric, comparison, ok in found
        if ok
    ]
    out += ["", "Held in every contended replicate:" + ("" if held else " none.")]
    if held and not text:
        out.append("")  # a Markdown list starts after a blank line
    out += [
        textwrap.fill(line, WIDTH, subsequent_indent="  ", break_on_hyphens=False) if text else line
        for line in held
    ]
    return "\n".join(out).rstrip("\n")


def _sentence(
    summaries: Sequence[ReplicatedSummary],
    names: Sequence[str],
    other: int,
    first: int,
    metric: str,
    comparison: Comparison,
) -> str:
    """One conclusion that held, in plain words, with the two means."""
    lower, higher, unit = _SENTENCES[metric]
    verb = lower if comparison.lower else higher
    busy = len(contended(summaries[first]))
    mine = statistics.fmean(summaries[other].values(metric))  # unrounded: small means differ
    theirs = statistics.fmean(summaries[first].values(metric))
    where = {1: "the contended replicate", 2: "both contended replicates"}.get(
        busy, f"all {busy} contended replicates"
    )
    ours, yours = _figures(mine, theirs)
    return f"{names[other]} {verb} {names[first]} in {where}: {ours} against {yours} {unit} on average."


def _figures(a: float, b: float) -> tuple[str, str]:
    """Two means for a sentence: whole from 100, one place from 1, two below (so that small
    figures do not all read 0.0), and more places, up to four, while the two would read the
    same but differ.

    >>> _figures(323.46, 9.61), _figures(0.034, 0.0), _figures(0.0213, 0.0241)
    (('323', '9.6'), ('0.03', '0'), ('0.021', '0.024'))
    """

    def places(value: float) -> int:
        return 0 if value >= 100 or value == 0 else 1 if value >= 1 else 2

    extra = 0
    while True:
        texts = tuple(
            "0" if value == 0 else f"{value:.{places(value) + extra}f}" for value in (a, b)
        )
        if a == b or texts[0] != texts[1] or extra >= 2:
            return texts[0], texts[1]
        extra += 1


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
            "intervals": {name: attrs.asdict(summary.interval(name)) for name, _ in REPORTED},
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


@attrs.frozen(kw_only=True)
class Results:
    """A results file read back (:func:`read_results`): what ran on, and every setting's
    metrics in every replicate.

    ``workload`` is the workload's name; ``replicates`` the replicates' labels (one, ``whole
    trace``, for a file of single runs); ``gpus`` the cluster's size when the file says it.
    """

    workload: str
    replicates: tuple[str, ...]
    summaries: tuple[ReplicatedSummary, ...]
    gpus: int | None = None


def read_results(text: str, *, origin: str) -> Results:
    """Read a results file written by ``minruntime-sim --json``: of replicated runs (with
    ``--slices``, several ``--seed`` or ``--gpus``) or of single runs.

    Args:
        text: the file's text.
        origin: where it came from, for messages (its path).

    Raises:
        InvalidResults: for anything else, naming ``origin`` and what is missing.

    >>> from minruntime_sim.sweep import settings_grid
    >>> runs = run_replicated("synthetic", settings_grid(), replicates(slices=2), limit=40)
    >>> document = {"workload": "synthetic", "replicates": ["a", "b"],
    ...             "settings": replicated_to_json(runs)}
    >>> back = read_results(json.dumps(document), origin="r.json")
    >>> back.replicates, replicated_to_json(back.summaries) == document["settings"]
    (('a', 'b'), True)
    """
    try:
        document = json.loads(text)
    except ValueError as error:
        raise InvalidResults(f"{origin}: not JSON ({error})") from None
    try:
        return _results(document)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InvalidResults(
            f'{origin}: not a results file of minruntime-sim --json (expected "runs" or '
            f'"settings" as a list, with "workload"): {_problem(error)}'
        ) from None


def _problem(error: Exception) -> str:
    if isinstance(error, KeyError):
        return f"no {error.args[0]!r}"
    return str(error)


def _results(document: Mapping[str, Any]) -> Results:
    if not isinstance(document, Mapping):
        raise TypeError("the document is not an object")
    if "settings" in document:
        entries = document["settings"]
        if not isinstance(entries, list):
            raise TypeError("'settings' is not a list")
        summaries = tuple(
            ReplicatedSummary(
                settings=Settings.from_dict(entry["settings"]),
                runs=tuple(
                    (
                        Replicate(
                            window=int(run["window"]),
                            windows=int(run["windows"]),
                            seed=int(run["seed"]),
                            gpus=None if run["gpus"] is None else int(run["gpus"]),
                        ),
                        Metrics.from_dict(run["metrics"]),
                    )
                    for run in entry["replicates"]
                ),
            )
            for entry in entries
        )
        return Results(
            workload=str(document["workload"]),
            replicates=tuple(str(label) for label in document["replicates"]),
            summaries=summaries,
        )
    runs = document["runs"]
    if not isinstance(runs, list):
        raise TypeError("'runs' is not a list")
    workload = document["workload"]
    return Results(
        workload=str(workload["name"]),
        replicates=("whole trace",),
        summaries=tuple(
            ReplicatedSummary.single(
                RunSummary(
                    settings=Settings.from_dict(run["settings"]),
                    metrics=Metrics.from_dict(run["metrics"]),
                )
            )
            for run in runs
        ),
        gpus=int(workload["total_gpus"]),
    )

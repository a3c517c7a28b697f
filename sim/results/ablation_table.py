"""Print the ablation table of docs/howto-choose-min-runtime.md from ``sim/results/ablation/``.

Each file is ``minruntime-sim --json`` of the same four replicates (the Philly trace cut into
quarters, on 704 GPUs, seed 0) under a reclaim min-runtime of 30m: the README's example, and
the checkpoint-aware setting taken apart (the grace alone, with the ranking, with the per-job
request), plain min-runtime with victims by least unsaved work, and all three settings with
every job checkpointing every 15 minutes. This script only reads them (it runs nothing) and
prints one row per setting: its means over the four replicates, and its lost work and
evictions as a share of no protection's in the same file (or, for the rows of the 15-minute
checkpoints, of no protection's with them). Run from the repository's root, after
``pip install . ./sim``::

    python sim/results/ablation_table.py

The commands that wrote the files are in ``sim/results/README.md``.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from minruntime_sim.uncertainty import ReplicatedSummary, read_results

ABLATION = Path(__file__).resolve().parent / "ablation"

ROWS = [
    ("no protection", "philly-704-readme.json", "none", "philly-704-readme.json"),
    ("plain min-runtime", "philly-704-readme.json", "min-runtime", "philly-704-readme.json"),
    (
        "no protection, least unsaved first",
        "philly-704-order.json",
        "none",
        "philly-704-readme.json",
    ),
    (
        "plain min-runtime, least unsaved first",
        "philly-704-order.json",
        "min-runtime",
        "philly-704-readme.json",
    ),
    ("grace alone", "philly-704-grace.json", "checkpoint-aware", "philly-704-readme.json"),
    ("grace + ranking", "philly-704-rank.json", "checkpoint-aware", "philly-704-readme.json"),
    ("grace + request", "philly-704-request.json", "checkpoint-aware", "philly-704-readme.json"),
    (
        "grace + ranking + request",
        "philly-704-readme.json",
        "checkpoint-aware",
        "philly-704-readme.json",
    ),
    ("no protection, 15m checkpoints", "philly-704-ckpt15.json", "none", "philly-704-ckpt15.json"),
    (
        "plain min-runtime, 15m checkpoints",
        "philly-704-ckpt15.json",
        "min-runtime",
        "philly-704-ckpt15.json",
    ),
    (
        "grace + ranking + request, 15m checkpoints",
        "philly-704-ckpt15.json",
        "checkpoint-aware",
        "philly-704-ckpt15.json",
    ),
]
"""Each row: its label, the file and the policy of its setting, and the file whose setting
without protection (in the reference order) it is measured against."""

HEADER = (
    "| setting (reclaim 30m) | lost GPU-h | of none's | evictions | of none's "
    "| GPU-h lost per eviction | mean wait, min |\n"
    "| :-- | --: | --: | --: | --: | --: | --: |"
)


def summary(name: str, policy: str) -> ReplicatedSummary:
    """The setting of ``policy`` in the file ``name`` (its first, if several)."""
    results = read_results((ABLATION / name).read_text(encoding="utf-8"), origin=name)
    return next(entry for entry in results.summaries if entry.settings.policy == policy)


def mean(entry: ReplicatedSummary, metric: str) -> float:
    """A metric's mean over the replicates."""
    return statistics.fmean(entry.values(metric))


def row(label: str, name: str, policy: str, baseline: str) -> str:
    """One setting's row: its means, and its lost work and evictions as shares of the
    baseline's."""
    entry, base = summary(name, policy), summary(baseline, "none")
    lost, evictions = mean(entry, "lost_gpu_hours"), mean(entry, "evictions")
    return (
        f"| {label} | {lost:,.1f} | {lost / mean(base, 'lost_gpu_hours'):.0%} "
        f"| {evictions:,.1f} | {evictions / mean(base, 'evictions'):.0%} "
        f"| {sum(entry.values('lost_gpu_hours')) / sum(entry.values('evictions')):.2f} "
        f"| {mean(entry, 'mean_wait_minutes'):.1f} |"
    )


def table() -> str:
    """The whole table, in Markdown, as the page shows it."""
    return "\n".join([HEADER, *(row(*entry) for entry in ROWS)])


if __name__ == "__main__":
    print(table())

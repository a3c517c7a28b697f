"""Print the load table of docs/simulator.md from the results files of ``sim/results/load/``.

Each file is ``minruntime-sim --json`` of one run of the first 20,000 jobs of the Philly trace
at one load (or, last, on 704 GPUs), under reclaim min-runtimes 0s and 30m; this script only
reads them (it runs nothing) and prints one row per file. Run from the repository's root, after
``pip install . ./sim``::

    python sim/results/load_table.py

The commands that wrote the files are in ``sim/results/README.md``.
"""

from __future__ import annotations

from pathlib import Path

from minruntime_sim.uncertainty import read_results

LOAD = Path(__file__).resolve().parent / "load"

ROWS = [
    ("1", "philly-20k-load1.json"),
    ("2", "philly-20k-load2.json"),
    ("3", "philly-20k-load3.json"),
    ("3.5", "philly-20k-load3.5.json"),
    ("4", "philly-20k-load4.json"),
    ("5", "philly-20k-load5.json"),
    ("6", "philly-20k-load6.json"),
    ("1, `--gpus 704`", "philly-20k-gpus704.json"),
]
"""The label of each row (the load F) and the file it reads, in the table's order."""

HEADER = (
    "| load F | utilisation | evictions, reclaim 0s | lost GPU-h, reclaim 0s "
    "| evictions, reclaim 30m | lost GPU-h, reclaim 30m |\n"
    "| --- | --: | --: | --: | --: | --: |"
)


def row(label: str, name: str) -> str:
    """One file's row: the utilisation under reclaim 0s, then evictions and lost GPU-hours
    under reclaim 0s and 30m."""
    results = read_results((LOAD / name).read_text(encoding="utf-8"), origin=name)
    by_setting = {}
    for summary in results.summaries:
        ((_, metrics),) = summary.runs
        by_setting[str(summary.settings.reclaim_min_runtime)] = metrics
    free, held = by_setting["0s"], by_setting["30m"]
    return (
        f"| {label} | {free.utilisation:.1%} | {free.evictions:,} | {free.lost_gpu_hours:,.1f} "
        f"| {held.evictions:,} | {held.lost_gpu_hours:,.1f} |"
    )


def table() -> str:
    """The whole table, in Markdown, as the page shows it."""
    return "\n".join([HEADER, *(row(label, name) for label, name in ROWS)])


if __name__ == "__main__":
    print(table())

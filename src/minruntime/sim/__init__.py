"""A trace-driven GPU cluster simulator: what min-runtime settings do to a real workload.

Operators ask "what min-runtime should I set, and what will it cost?". Min-runtime trades lost
work (jobs evicted before they made progress) against waiting (a queue owed GPUs waits until
protection ends). This package replays a workload (a real trace or a synthetic one) through a
simple fair-share scheduler whose every eviction is chosen and validated by a
:class:`minruntime.Session`, and measures both sides.

>>> from minruntime.sim import Settings, simulate, synthetic_workload
>>> result = simulate(synthetic_workload(seed=1, jobs=20), Settings(reclaim_min_runtime="30m"))
>>> result.metrics.completed
20

Modules: :mod:`~minruntime.sim.model` (jobs, workloads, settings), :mod:`~minruntime.sim.scheduler`
(the loop), :mod:`~minruntime.sim.metrics`, :mod:`~minruntime.sim.traces` (the Philly, Alibaba
and CSV readers), :mod:`~minruntime.sim.synthetic` (seeded workloads),
:mod:`~minruntime.sim.sweep` (settings grids, parallel runs, tables) and
:mod:`~minruntime.sim.cli` (the ``minruntime simulate`` command).
"""

from __future__ import annotations

from minruntime.sim.metrics import (
    Distribution,
    EvictionRecord,
    JobOutcome,
    Metrics,
    QueueMetrics,
)
from minruntime.sim.model import (
    InvalidTrace,
    JobSpec,
    Settings,
    SimulationError,
    Workload,
)
from minruntime.sim.scheduler import SimulationResult, simulate
from minruntime.sim.synthetic import synthetic_workload
from minruntime.sim.traces import load_trace, read_alibaba, read_csv, read_philly

__all__ = [
    "Distribution",
    "EvictionRecord",
    "InvalidTrace",
    "JobOutcome",
    "JobSpec",
    "Metrics",
    "QueueMetrics",
    "Settings",
    "SimulationError",
    "SimulationResult",
    "Workload",
    "load_trace",
    "read_alibaba",
    "read_csv",
    "read_philly",
    "simulate",
    "synthetic_workload",
]

"""minruntime-sim: a trace-driven GPU-cluster simulator for the minruntime policy library.

What would min-runtime settings do to a real workload? This distribution (``pip install
minruntime-sim``, or ``pip install ./sim`` from a clone) answers it; it depends on
``minruntime`` and uses only its public API, while ``import minruntime`` never imports it.

Operators ask "what min-runtime should I set, and what will it cost?". Min-runtime trades lost
work (jobs evicted before they made progress) against waiting (a queue owed GPUs waits until
protection ends). This package replays a workload (a real trace or a synthetic one) through a
simple fair-share scheduler whose every eviction is chosen and validated by a
:class:`minruntime.Session`, and measures both sides. Its errors derive from
:class:`SimError`, not from :class:`minruntime.MinRuntimeError`.

>>> from minruntime_sim import Settings, simulate, synthetic_workload
>>> result = simulate(synthetic_workload(seed=1, jobs=20), Settings(reclaim_min_runtime="30m"))
>>> result.metrics.completed
20

Modules: :mod:`~minruntime_sim.model` (jobs, workloads, settings), :mod:`~minruntime_sim.scheduler`
(the loop), :mod:`~minruntime_sim.metrics`, :mod:`~minruntime_sim.traces` (the Philly, Alibaba
and CSV readers), :mod:`~minruntime_sim.synthetic` (seeded workloads),
:mod:`~minruntime_sim.sweep` (settings grids, parallel runs, tables) and
:mod:`~minruntime_sim.cli` (the ``minruntime-sim`` command), :mod:`~minruntime_sim.errors`.
"""

from __future__ import annotations

from minruntime_sim.errors import (
    InvalidResults,
    InvalidSetting,
    InvalidTrace,
    SimError,
    SimulationError,
)
from minruntime_sim.metrics import (
    Distribution,
    EvictionRecord,
    JobOutcome,
    Metrics,
    QueueMetrics,
)
from minruntime_sim.model import JobSpec, Settings, VictimOrder, Workload
from minruntime_sim.scheduler import SimulationResult, simulate
from minruntime_sim.synthetic import synthetic_workload
from minruntime_sim.traces import load_trace, read_alibaba, read_csv, read_philly

__version__ = "0.1.0"

__all__ = [
    "Distribution",
    "EvictionRecord",
    "InvalidResults",
    "InvalidSetting",
    "InvalidTrace",
    "JobOutcome",
    "JobSpec",
    "Metrics",
    "QueueMetrics",
    "Settings",
    "SimError",
    "SimulationError",
    "SimulationResult",
    "VictimOrder",
    "Workload",
    "load_trace",
    "read_alibaba",
    "read_csv",
    "read_philly",
    "simulate",
    "synthetic_workload",
]

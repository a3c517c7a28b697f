"""What checkpoints cost a simulated job: its interval, the time each checkpoint takes, its phase.

With checkpoint costs on (the default, ``Settings(checkpoint_costs=True)``), every job has:

- an **interval** (completion to completion): its own (``JobSpec.checkpoint_interval``), else
  the run's (``Settings.checkpoint_interval``), else one drawn from a log-uniform distribution
  on [10 min, 90 min], whose median, 30 min, is the checkpoint interval of Check-N-Run,
  Facebook's production checkpointing system for recommendation-model training (Eisenman et
  al., NSDI'22, its design overview); see ``docs/decisions/simulator-costs.md`` for the spread;
- a **duration** for each checkpoint, during which it holds its GPUs and makes no progress: its
  own (``JobSpec.checkpoint_duration``), else 3.5% of its interval, the overhead CheckFreq
  bounds checkpointing to (Mohan et al., FAST'21, abstract);
- a **phase**: a run that restores from a checkpoint (every run after an eviction) spends its
  restore (``JobSpec.checkpoint_restore``, else the run's restart overhead) before it computes,
  and its first checkpoint completes one interval after the restore; the first run has nothing
  to restore. The Session is told the same restore (``JobInputs.checkpoint_restore``).

The draw is seeded by the run's ``seed`` and the job's id, so a run reproduces and a job keeps
its interval whatever else the workload holds (a slice of a trace, another victim order).

With checkpoint costs off (``checkpoint_costs=False``, ``--no-checkpoint-costs``), checkpoints
are what they were before: free, instantaneous, every interval after each start, and only for
jobs given an interval (the earlier tables' model).

>>> draw_checkpoint_interval(0, "job-1"), checkpoint_duration(600)
(1782, 21)
"""

from __future__ import annotations

import math
import random
from typing import Final

__all__ = [
    "CHECKPOINT_INTERVAL_MEDIAN",
    "CHECKPOINT_INTERVAL_RANGE",
    "CHECKPOINT_OVERHEAD_PER_MILLE",
    "checkpoint_duration",
    "draw_checkpoint_interval",
]

CHECKPOINT_INTERVAL_RANGE: Final = (600, 5400)
"""The bounds of the drawn checkpoint intervals, seconds (10 min and 90 min): a factor of 3
either side of :data:`CHECKPOINT_INTERVAL_MEDIAN`.

>>> CHECKPOINT_INTERVAL_RANGE[0] * CHECKPOINT_INTERVAL_RANGE[1] == CHECKPOINT_INTERVAL_MEDIAN**2
True
"""

CHECKPOINT_INTERVAL_MEDIAN: Final = 1800
"""The median drawn checkpoint interval, seconds: 30 min, Check-N-Run's (NSDI'22).

>>> CHECKPOINT_INTERVAL_MEDIAN // 60
30
"""

CHECKPOINT_OVERHEAD_PER_MILLE: Final = 35
"""A checkpoint's duration as a share of the interval, per mille: 3.5%, the run-time overhead
CheckFreq bounds checkpointing to (FAST'21).

>>> CHECKPOINT_OVERHEAD_PER_MILLE / 10
3.5
"""


def draw_checkpoint_interval(seed: int, job_id: str) -> int:
    """A job's checkpoint interval in whole seconds, drawn log-uniformly from
    :data:`CHECKPOINT_INTERVAL_RANGE` with a generator seeded by ``seed`` and ``job_id``.

    The same seed and id always give the same interval; half the draws fall below
    :data:`CHECKPOINT_INTERVAL_MEDIAN`.

    >>> draw_checkpoint_interval(0, "job-1") == draw_checkpoint_interval(0, "job-1")
    True
    >>> low, high = CHECKPOINT_INTERVAL_RANGE
    >>> all(low <= draw_checkpoint_interval(7, f"j{i}") <= high for i in range(1000))
    True
    """
    low, high = CHECKPOINT_INTERVAL_RANGE
    draw = random.Random(f"checkpoint-interval:{seed}:{job_id}").random()
    return round(math.exp(math.log(low) + draw * (math.log(high) - math.log(low))))


def checkpoint_duration(interval: int) -> int:
    """How long a checkpoint takes for a job that checkpoints every ``interval`` seconds: 3.5%
    of it (:data:`CHECKPOINT_OVERHEAD_PER_MILLE`), rounded, at least one second.

    >>> checkpoint_duration(600), checkpoint_duration(1800), checkpoint_duration(5400)
    (21, 63, 189)
    """
    return max(1, round(interval * CHECKPOINT_OVERHEAD_PER_MILLE / 1000))

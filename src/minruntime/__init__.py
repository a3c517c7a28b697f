"""minruntime: minimum-runtime protection and preemptibility policy for cluster schedulers.

The public surface is this module's ``__all__``: the values a scheduler builds (queues, a
configuration, jobs), the :class:`Session` it asks once per cycle (and its :class:`Cycle` form
for many preemptors), the answers (verdicts, scenario results, plans) and the errors. The
Kubernetes reader is :mod:`minruntime.kube`, the Hypothesis strategies :mod:`minruntime.testing`;
neither is imported here. Everything in a module whose name starts with ``_`` is private.

>>> import minruntime
>>> "Session" in minruntime.__all__ and "JobFacts" not in dir(minruntime)
True
"""

from __future__ import annotations

from minruntime._time import FOREVER
from minruntime.config import Config
from minruntime.decisions import (
    Action,
    Failure,
    FailureKind,
    Plan,
    ProtectionKind,
    ProtectionStatus,
    Reason,
    Resolution,
    ScenarioResult,
    Verdict,
)
from minruntime.durations import MinRuntime
from minruntime.errors import (
    InvalidConfiguration,
    InvalidDuration,
    InvalidJob,
    InvalidObject,
    InvalidPreemptibility,
    InvalidQueueTree,
    InvalidResources,
    InvalidScenario,
    InvalidSnapshot,
    InvalidTimestamp,
    MinRuntimeError,
    PlanConflict,
    UnknownJob,
    UnknownQueue,
)
from minruntime.jobs import (
    Job,
    JobInputs,
    JobLike,
    PodSet,
    PodSetLike,
    SubGroup,
    SubGroupLike,
    Task,
    TaskLike,
    TaskStatus,
)
from minruntime.preemptibility import (
    Owner,
    Preemptibility,
    PreemptibilityResult,
    PreemptibilitySource,
    determine_preemptibility,
)
from minruntime.queues import ProtectionSettings, Queue, QueueTree
from minruntime.resources import Resources
from minruntime.session import Cycle, Session, SessionStats
from minruntime.starttime import (
    format_start_time,
    parse_start_time,
    stamp_last_eviction,
    stamp_start_time,
)

__all__ = [
    "FOREVER",
    "Action",
    "Config",
    "Cycle",
    "Failure",
    "FailureKind",
    "InvalidConfiguration",
    "InvalidDuration",
    "InvalidJob",
    "InvalidObject",
    "InvalidPreemptibility",
    "InvalidQueueTree",
    "InvalidResources",
    "InvalidScenario",
    "InvalidSnapshot",
    "InvalidTimestamp",
    "Job",
    "JobInputs",
    "JobLike",
    "MinRuntime",
    "MinRuntimeError",
    "Owner",
    "Plan",
    "PlanConflict",
    "PodSet",
    "PodSetLike",
    "Preemptibility",
    "PreemptibilityResult",
    "PreemptibilitySource",
    "ProtectionKind",
    "ProtectionSettings",
    "ProtectionStatus",
    "Queue",
    "QueueTree",
    "Reason",
    "Resolution",
    "Resources",
    "ScenarioResult",
    "Session",
    "SessionStats",
    "SubGroup",
    "SubGroupLike",
    "Task",
    "TaskLike",
    "TaskStatus",
    "UnknownJob",
    "UnknownQueue",
    "Verdict",
    "determine_preemptibility",
    "format_start_time",
    "parse_start_time",
    "stamp_last_eviction",
    "stamp_start_time",
]

__version__ = "0.2.0.dev0"


def __dir__() -> list[str]:
    return [*__all__, "__version__"]

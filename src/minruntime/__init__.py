"""minruntime: minimum-runtime protection and preemptibility policy for cluster schedulers."""

from __future__ import annotations

from minruntime.config import Config
from minruntime.decisions import Decision, Reason
from minruntime.durations import MinRuntime
from minruntime.errors import (
    InvalidConfiguration,
    InvalidDuration,
    InvalidObject,
    InvalidPreemptibility,
    InvalidQueueTree,
    InvalidScenario,
    InvalidTimestamp,
    MinRuntimeError,
    UnknownQueue,
)
from minruntime.jobs import (
    ACTIVE_STATUSES,
    ALLOCATED_STATUSES,
    Job,
    JobFacts,
    JobLike,
    PodSet,
    PodSetLike,
    Task,
    TaskLike,
    TaskStatus,
)
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    PREEMPTIBILITY_KEY,
    PRIORITY_BUILD,
    PRIORITY_BUILD_PREEMPTIBLE,
    PRIORITY_CLASSES,
    PRIORITY_INFERENCE,
    PRIORITY_TRAIN,
    Owner,
    Preemptibility,
    PreemptibilityResult,
    PreemptibilitySource,
    determine_preemptibility,
)
from minruntime.protection import FOREVER, is_protected, protected_until
from minruntime.queues import Queue, QueueTree
from minruntime.resolution import Action, MinRuntimeTable, Resolution, Resolver, resolve
from minruntime.session import Session, SessionStats
from minruntime.starttime import (
    START_TIME_ANNOTATION,
    ParsedTime,
    format_start_time,
    parse_rfc3339,
    parse_start_time,
    stamp_start_time,
)
from minruntime.validation import Failure, FailureKind, ScenarioResult

__all__ = [
    "ACTIVE_STATUSES",
    "ALLOCATED_STATUSES",
    "FOREVER",
    "LEGACY_PRIORITY_THRESHOLD",
    "PREEMPTIBILITY_KEY",
    "PRIORITY_BUILD",
    "PRIORITY_BUILD_PREEMPTIBLE",
    "PRIORITY_CLASSES",
    "PRIORITY_INFERENCE",
    "PRIORITY_TRAIN",
    "START_TIME_ANNOTATION",
    "Action",
    "Config",
    "Decision",
    "Failure",
    "FailureKind",
    "InvalidConfiguration",
    "InvalidDuration",
    "InvalidObject",
    "InvalidPreemptibility",
    "InvalidQueueTree",
    "InvalidScenario",
    "InvalidTimestamp",
    "Job",
    "JobFacts",
    "JobLike",
    "MinRuntime",
    "MinRuntimeError",
    "MinRuntimeTable",
    "Owner",
    "ParsedTime",
    "PodSet",
    "PodSetLike",
    "Preemptibility",
    "PreemptibilityResult",
    "PreemptibilitySource",
    "Queue",
    "QueueTree",
    "Reason",
    "Resolution",
    "Resolver",
    "ScenarioResult",
    "Session",
    "SessionStats",
    "Task",
    "TaskLike",
    "TaskStatus",
    "UnknownQueue",
    "determine_preemptibility",
    "format_start_time",
    "is_protected",
    "parse_rfc3339",
    "parse_start_time",
    "protected_until",
    "resolve",
    "stamp_start_time",
]

__version__ = "0.1.0"

"""Queues: a ``Queue`` object (``scheduling.run.ai/v2``) as a :class:`~minruntime.Queue`
(private; re-exported by the package)."""

from __future__ import annotations

from typing import Any, Final

from minruntime.errors import InvalidObject
from minruntime.kube._fields import Object, duration, get, misspelt_fields, object_name
from minruntime.kube._problems import Problem, ProblemKind, _problem
from minruntime.queues import ProtectionSettings, Queue

__all__ = ["QUEUE_SPEC_FIELDS", "read_queue", "read_queue_fields"]

QUEUE_SPEC_FIELDS: Final = frozenset(
    {
        # the reference's Queue CRD (scheduling.run.ai/v2)
        "displayName",
        "parentQueue",
        "preemptMinRuntime",
        "priority",
        "reclaimMinRuntime",
        "resources",
        # docs/spec/beyond-min-runtime.md
        "preemptCheckpointGrace",
        "reclaimCheckpointGrace",
        "maxEvictions",
        "evictionWindow",
        "maxJobMinRuntime",
    }
)
"""The fields of a Queue's ``spec`` the library knows; a near miss of one is warned about
(:func:`~minruntime.kube._fields.misspelt_fields`)."""

_DURATIONS: Final = (
    ("preempt_min_runtime", "spec.preemptMinRuntime", True),
    ("reclaim_min_runtime", "spec.reclaimMinRuntime", True),
    ("preempt_checkpoint_grace", "spec.preemptCheckpointGrace", False),
    ("reclaim_checkpoint_grace", "spec.reclaimCheckpointGrace", False),
    ("eviction_window", "spec.evictionWindow", True),
    ("max_job_min_runtime", "spec.maxJobMinRuntime", True),
)


def read_queue(obj: Object) -> Queue:
    """A Queue object (``scheduling.run.ai/v2``) as a :class:`~minruntime.Queue`.

    Reads ``metadata.name``, ``spec.parentQueue``, ``spec.preemptMinRuntime`` and
    ``spec.reclaimMinRuntime`` (every duration spelling; ``-1`` or ``never`` for never), and
    the checkpoint-aware settings of ``docs/spec/beyond-min-runtime.md`` when present:
    ``spec.preemptCheckpointGrace``, ``spec.reclaimCheckpointGrace``, ``spec.maxEvictions``,
    ``spec.evictionWindow``, ``spec.maxJobMinRuntime``.

    Raises:
        InvalidObject: for the first field it cannot read, naming the queue and the field
            (:func:`read_snapshot` instead ignores a bad value, with a problem naming it).

    >>> read_queue({"kind": "Queue", "metadata": {"name": "dev"},
    ...             "spec": {"parentQueue": "org", "preemptMinRuntime": "-1"}})
    Queue(name='dev', parent='org', preempt_min_runtime=MinRuntime('never'), reclaim_min_runtime=None, protections=ProtectionSettings(preempt_checkpoint_grace=None, reclaim_checkpoint_grace=None, max_evictions=None, eviction_window=None, max_job_min_runtime=None))
    """
    queue = read_queue_fields(obj, None)
    assert queue is not None  # without problems, every failure raises
    return queue


def read_queue_fields(obj: Object, problems: list[Problem] | None) -> Queue | None:
    """A Queue, reading what can be read: a bad setting is ignored with a problem (or raised,
    without ``problems``); ``None`` for a queue without a name (left out, with a problem). A
    field of its ``spec`` that looks like a misspelt known one is a problem first.

    Raises:
        InvalidObject: for a ``spec.parentQueue`` that is not a string (the tree's shape
            depends on it), and, without ``problems``, for any field it cannot read.
    """
    if problems is not None:
        problems.extend(misspelt_fields(obj, "spec", obj.get("spec"), QUEUE_SPEC_FIELDS))
    try:
        name = get(obj, "metadata.name", str, required=True)
    except InvalidObject as error:
        if problems is None:
            raise
        problems.append(_problem(ProblemKind.LEFT_OUT, obj, error.field, str(error), "left out"))
        return None
    parent = get(obj, "spec.parentQueue", str)
    values: dict[str, Any] = {}
    for key, path, allow_never in _DURATIONS:
        try:
            values[key] = duration(obj, path, allow_never=allow_never)
        except InvalidObject as error:
            if problems is None:
                raise
            problems.append(_problem(ProblemKind.IGNORED, obj, path, str(error), "ignored"))
    try:
        max_evictions = get(obj, "spec.maxEvictions", int)
        if max_evictions is not None and max_evictions < 0:
            raise InvalidObject(
                f"{object_name(obj)} spec.maxEvictions: expected an integer >= 0, got "
                f"{max_evictions}",
                object=object_name(obj),
                field="spec.maxEvictions",
            )
    except InvalidObject as error:
        if problems is None:
            raise
        problems.append(_problem(ProblemKind.IGNORED, obj, error.field, str(error), "ignored"))
        max_evictions = None
    return Queue(
        name,
        parent,
        preempt_min_runtime=values.get("preempt_min_runtime"),
        reclaim_min_runtime=values.get("reclaim_min_runtime"),
        protections=ProtectionSettings(
            preempt_checkpoint_grace=values.get("preempt_checkpoint_grace"),
            reclaim_checkpoint_grace=values.get("reclaim_checkpoint_grace"),
            max_evictions=max_evictions,
            eviction_window=values.get("eviction_window"),
            max_job_min_runtime=values.get("max_job_min_runtime"),
        ),
    )

"""The JSON output of ``minruntime explain``: the report's values as JSON data.

>>> from datetime import UTC
>>> from minruntime.kube import read_snapshot
>>> from minruntime.cli._report import build_report
>>> one_queue = [{"apiVersion": "scheduling.run.ai/v2", "kind": "Queue",
...               "metadata": {"name": "q"}}]  # empty input is an error: a cluster of one queue
>>> data = report_data(build_report(read_snapshot(one_queue), datetime(2026, 11, 22, 12, tzinfo=UTC)))
>>> data["schema"], data["now"], data["plans"]
('minruntime.explain/v4', '2026-11-22T12:00:00Z', None)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from json.encoder import encode_basestring_ascii
from typing import Any, Final

from minruntime.cli._format import ago, iso, short, work_unit
from minruntime.cli._report import JobEntry, Plan, PreemptorEntry, Report, Verdict
from minruntime.decisions import Resolution
from minruntime.decisions import Verdict as LibraryVerdict
from minruntime.jobs import Job
from minruntime.preemptibility import Preemptibility

__all__ = ["JSON_SCHEMA_ID", "json_text", "protection_text", "report_data"]

JSON_SCHEMA_ID: Final = "minruntime.explain/v4"
"""The ``schema`` field of ``minruntime explain --output json``; it changes only with the format."""


def _resolution(resolution: Resolution) -> dict[str, Any]:
    return {"minRuntime": str(resolution.min_runtime), "source": resolution.source}


def _tree_data(job: Job) -> dict[str, Any] | None:
    """A job's sub-group tree (docs/spec/sub-group-trees.md) as read, or ``None`` without one."""
    if not job.sub_groups and job.min_sub_group is None:
        return None
    return {
        "minSubGroup": job.min_sub_group,
        "sets": [
            {"name": node.name, "parent": node.parent, "minSubGroup": node.min_sub_group}
            for node in job.sub_groups
        ],
        "podSets": [
            {"name": pod_set.name, "parent": pod_set.parent, "minAvailable": pod_set.min_available}
            for pod_set in job.pod_sets
        ],
    }


def protection_text(entry: JobEntry, now: datetime) -> str:
    """The job's protection from preempt as a sentence fragment (the ``protection`` field)."""
    own = entry.own
    if entry.job.preemptibility.value is Preemptibility.NON_PREEMPTIBLE:
        text = "never evicted (non-preemptible)"
    elif own.min_runtime.is_never:
        text = "never preempted"
    elif own.protected_until is None:
        text = "not protected (never started)"
    elif own.protected:
        until = own.protected_until
        text = f"protected until {short(until, now)} ({ago(until - now)} left)"
    else:
        text = "not protected"
    if entry.job.preemptibility.value is Preemptibility.SEMI_PREEMPTIBLE:
        text += "; core kept (semi-preemptible)"
    return text


def _decision(verdict: Verdict) -> dict[str, Any]:
    decision: LibraryVerdict = verdict.decision
    return {
        "action": str(decision.action),
        "allowed": decision.allowed,
        "reason": str(decision.reason),
        "minRuntime": str(decision.min_runtime),
        "source": decision.source,
        "protectedUntil": iso(decision.protected_until),
        "protectedBy": None if decision.protected_by is None else str(decision.protected_by),
        # the preemptor's side (docs/spec/preemption-delay.md): set while it is within its
        # preemption delay
        "delayedUntil": iso(decision.delayed_until),
        # a victim with a sub-group tree (docs/spec/sub-group-trees.md): the sub-groups outside its
        # core, which go whole and first
        "optionalSubGroups": list(decision.optional_sub_groups),
        "evictable": [str(task.id) for task in verdict.evictable],
        "notes": list(decision.notes),
        "explanation": str(decision),
        "unsavedWork": round(verdict.unsaved_work, 3),
        "unsavedWorkUnit": work_unit(verdict.evictable),
        "rank": verdict.rank,
    }


def _job(entry: JobEntry, now: datetime) -> dict[str, Any]:
    job = entry.job
    own = entry.own
    return {
        "id": job.id,
        "queue": job.job.queue,
        "priority": job.job.priority,
        "priorityClass": job.priority_class,
        "preemptibility": str(job.preemptibility.value),
        "preemptibilitySource": str(job.preemptibility.source),
        "preemptibilityDetail": job.preemptibility.detail,
        "startTime": iso(job.job.start_time),
        "pods": {"total": job.task_count, "active": job.active_count},
        "subGroupTree": _tree_data(job.job),
        "preempt": {
            "minRuntime": str(own.min_runtime),
            "source": own.source,
            "protectedUntil": iso(own.protected_until),
            "protected": own.protected,
        },
        "protection": protection_text(entry, now),
        "decision": None if entry.verdict is None else _decision(entry.verdict),
    }


def _preemptor(pre: PreemptorEntry) -> dict[str, Any]:
    return {
        "id": str(pre.job.id),
        "queue": pre.job.queue,
        "priority": pre.job.priority,
        "hypothetical": pre.hypothetical,
        "pendingPods": len(pre.pending),
        "need": dict(pre.need),
    }


def _plan(entry: Plan) -> dict[str, Any]:
    plan = entry.plan
    return {
        "action": str(entry.action),
        "need": dict(plan.need),
        "freed": dict(plan.freed),
        "missing": dict(plan.missing),
        "enough": bool(plan),
        "unsavedWork": round(plan.lost, 3),
        "retryAt": iso(plan.retry),
        "searchBackoff": None
        if entry.backoff is None
        else {"min": str(entry.backoff.minimum), "max": str(entry.backoff.maximum)},
        "victims": [
            {
                "id": str(victim.id),
                "pods": [str(task.id) for task in tasks],
                "unsavedWork": round(lost, 3),
                "unsavedWorkUnit": work_unit(tasks),
            }
            for victim, tasks, lost in zip(plan.victims, plan.tasks, plan.losses, strict=True)
        ],
    }


def report_data(report: Report) -> dict[str, Any]:
    """The report as the JSON output prints it (``schema`` :data:`JSON_SCHEMA_ID`)."""
    config = report.config
    return {
        "schema": JSON_SCHEMA_ID,
        "now": iso(report.now),
        "sources": list(report.sources),
        "config": {
            "defaultPreemptMinRuntime": str(config.default_preempt_min_runtime),
            "defaultReclaimMinRuntime": str(config.default_reclaim_min_runtime),
            "reclaimResolveMethod": config.reclaim_resolve_method,
        },
        "queues": report.queues,
        "podGroups": report.pod_groups,
        "running": report.running,
        "leftOut": report.left_out,
        "queueTree": [
            {
                "name": entry.name,
                "parent": entry.parent,
                "preempt": _resolution(entry.preempt),
                "reclaim": _resolution(entry.reclaim),
                "reclaimFromAnotherTree": _resolution(entry.reclaim_from_another_tree),
            }
            for entry in report.queue_tree
        ],
        "preemptor": None if report.preemptor is None else _preemptor(report.preemptor),
        "jobs": [_job(entry, report.now) for entry in report.jobs],
        "plans": None if report.preemptor is None else [_plan(p) for p in report.plans],
        "retryAt": iso(report.retry_at),
        "warnings": list(report.warnings),
    }


def json_text(data: Any) -> str:
    """``data`` as JSON text, exactly as ``json.dumps(data, indent=2, allow_nan=False)`` writes
    it, in about half the time at cluster scale.

    With an indent, the standard library encodes in pure Python, passing each piece of text up
    through a generator per level of nesting; this writer appends the pieces to one list and
    escapes strings with the standard library's own C escaper. Only JSON data is written (dicts,
    lists and tuples, strings, numbers, booleans, ``None``), with the keys ``json.dumps``
    accepts.

    Raises:
        ValueError: for a float that is not finite (as ``allow_nan=False``).
        TypeError: for a value or key that is not JSON data.

    >>> print(json_text({"jobs": [{"id": "ml/train", "unsavedWork": 1.5}], "plans": None}))
    {
      "jobs": [
        {
          "id": "ml/train",
          "unsavedWork": 1.5
        }
      ],
      "plans": null
    }
    """
    chunks: list[str] = []
    _write(data, "\n", chunks.append, {})
    return "".join(chunks)


_text: Final = encode_basestring_ascii
"""How ``json.dumps`` writes a string by default (ASCII, escaped); a C function."""
_SCALARS: Final = {None: "null", True: "true", False: "false"}
"""The text of the constants (``True == 1`` is never looked up here: only ``bool`` values
and ``None`` are)."""

Heads = dict[tuple[str, tuple[Any, ...]], list[str]]
"""Per indentation and keys of a mapping, the text before each of its values: a report's
mappings have a few shapes, each written by the thousand."""


def _write(value: Any, newline: str, write: Callable[[str], object], heads: Heads) -> None:
    """Write ``value``; ``newline`` is a line break and the indentation of its level; ``heads``
    the texts before the values of each shape of mapping written so far."""
    kind = type(value)
    if kind is str:
        write(_text(value))
    elif kind is dict:
        if not value:
            write("{}")
            return
        inner = newline + "  "
        shape = (inner, tuple(value))
        before = heads.get(shape)
        if before is None:
            separators = ["{" + inner, *[("," + inner)] * (len(value) - 1)]
            before = [
                separator + (_text(key) if type(key) is str else _key(key)) + ": "
                for separator, key in zip(separators, value, strict=True)
            ]
            if all(type(key) is str for key in value):  # 1, 1.0 and True are equal keys
                heads[shape] = before
        for head, item in zip(before, value.values(), strict=True):
            of = type(item)  # the commonest scalars written here: a call for each costs more
            if of is str:
                write(head + _text(item))
            elif of is int:
                write(head + int.__repr__(item))
            elif item is None or of is bool:
                write(head + _SCALARS[item])
            else:
                write(head)
                _write(item, inner, write, heads)
        write(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            write("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            if type(item) is str:
                write(separator + _text(item))
            else:
                write(separator)
                _write(item, inner, write, heads)
            separator = "," + inner
        write(newline + "]")
    elif value is None or kind is bool:
        write(_SCALARS[value])
    elif kind is int:
        write(int.__repr__(value))
    elif kind is float and math.isfinite(value):
        write(float.__repr__(value))
    else:
        _write_other(value, newline, write, heads)


def _write_other(value: Any, newline: str, write: Callable[[str], object], heads: Heads) -> None:
    """A value of a subclass of a JSON type, written as its base type (as ``json.dumps``
    does, testing the types in its order), or a float that is not finite, or not JSON."""
    if isinstance(value, str):
        write(_text(value))
    elif isinstance(value, int):
        write(int.__repr__(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
        write(float.__repr__(value))
    elif isinstance(value, list | tuple):
        _write(list(value), newline, write, heads)
    elif isinstance(value, dict):
        _write(dict(value), newline, write, heads)
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key(key: Any) -> str:
    """A mapping key that is not a plain string, as ``json.dumps`` writes it: a string as it
    is; a number, boolean or ``None`` as its JSON text, quoted."""
    if isinstance(key, str):
        return _text(key)
    if isinstance(key, int | float) or key is None:  # booleans are ints
        chunks: list[str] = []
        _write(key, "", chunks.append, {})
        return _text("".join(chunks))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")

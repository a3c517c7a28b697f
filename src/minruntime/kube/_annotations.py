"""Annotations: the start time, the checkpoint inputs, the preemption delay and the eviction
stamps a PodGroup (or its pods and owners) carries (private; re-exported by the package).

A value that cannot be read is ignored with a problem naming the object, the field and the
value (the reference scheduler does the same: fail-open), or is an error with ``strict_times``.
A time after ``now`` is used as given, with a problem (a clock skew, or a wrong ``--now``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from minruntime._text import shown
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidDuration, InvalidObject, InvalidTimestamp
from minruntime.kube._fields import Object, get, object_name
from minruntime.kube._problems import ObjectRef, Problem, ProblemKind, _problem, _split
from minruntime.preemptibility import Owner
from minruntime.starttime import START_TIME_ANNOTATION, parse_rfc3339, parse_start_time

__all__ = [
    "CHECKPOINT_INTERVAL_ANNOTATION",
    "CHECKPOINT_RESTORE_ANNOTATION",
    "EVICTIONS_ANNOTATION",
    "LAST_CHECKPOINT_ANNOTATION",
    "LAST_EVICTION_ANNOTATION",
    "PREEMPTION_DELAY_ANNOTATION",
    "REQUESTED_MIN_RUNTIME_ANNOTATION",
    "checkpoint_inputs",
    "delay_inputs",
    "start_time",
]

LAST_CHECKPOINT_ANNOTATION: Final = "minruntime/last-checkpoint-timestamp"
"""PodGroup annotation: when the job last completed a checkpoint (RFC 3339)."""
CHECKPOINT_INTERVAL_ANNOTATION: Final = "minruntime/checkpoint-interval"
"""PodGroup annotation: how often the job checkpoints (a duration)."""
CHECKPOINT_RESTORE_ANNOTATION: Final = "minruntime/checkpoint-restore"
"""PodGroup annotation: how long the job restores after a start before it computes (a duration):
its first checkpoint of a run falls an interval after the restore."""
EVICTIONS_ANNOTATION: Final = "minruntime/eviction-timestamps"
"""PodGroup annotation: past evictions, comma-separated RFC 3339 times, or a bare count."""
REQUESTED_MIN_RUNTIME_ANNOTATION: Final = "minruntime/min-runtime"
"""PodGroup annotation: the job's own min-runtime request (a duration)."""
PREEMPTION_DELAY_ANNOTATION: Final = "kai.scheduler/preemption-delay"
"""PodGroup, owner or pod annotation: the job's preemption delay (a duration), where the
PodGroup's ``spec.preemptionDelay`` does not give one."""
LAST_EVICTION_ANNOTATION: Final = "kai.scheduler/last-eviction-timestamp"
"""PodGroup annotation: when the scheduler last evicted the job (RFC 3339)."""
_START_FIELD: Final = f"metadata.annotations[{START_TIME_ANNOTATION!r}]"
_DELAY_FIELD: Final = f"metadata.annotations[{PREEMPTION_DELAY_ANNOTATION!r}]"
_LAST_EVICTION_FIELD: Final = f"metadata.annotations[{LAST_EVICTION_ANNOTATION!r}]"


def _unreadable(
    ref: ObjectRef, field: str, message: str, strict: bool, problems: list[Problem]
) -> None:
    """A PodGroup input that cannot be read: an error naming the object and the field when
    ``strict``, else a problem, and the value is ignored."""
    where = str(ref)
    if strict:
        raise InvalidObject(f"{where} {field}: {message}", object=where, field=field)
    problems.append(
        _problem(ProblemKind.IGNORED, ref, field, f"{where} {field}: {message}", "ignored")
    )


def _after_now(
    ref: ObjectRef, field: str, moment: datetime, now: datetime | None, problems: list[Problem]
) -> None:
    if now is not None and moment > now:
        problems.append(
            _problem(
                ProblemKind.SUSPECT,
                ref,
                field,
                f"{ref} {field}: {moment.isoformat()} is after now ({now.isoformat()})",
                "used as given (a clock skew, or a wrong --now?)",
            )
        )


def start_time(
    ref: ObjectRef,
    annotations: Mapping[str, str],
    *,
    strict: bool,
    now: datetime | None,
    problems: list[Problem],
) -> datetime | None:
    """The start time (``kai.scheduler/last-start-timestamp``): unparseable, none with a
    problem (or an error when ``strict``); after ``now``, used with a problem."""
    text = annotations.get(START_TIME_ANNOTATION)
    if not text:
        return None
    field = _START_FIELD
    try:
        value = parse_rfc3339(text)  # the common case; the object is named only when unread
    except InvalidTimestamp:
        where = str(ref)
        try:
            start = parse_start_time(text, strict=strict, origin=f"{where} {field}")
        except InvalidTimestamp as error:
            raise InvalidObject(str(error), object=where, field=field) from None
        problems.extend(
            _problem(ProblemKind.IGNORED, ref, field, *_split(warning))
            for warning in start.warnings
        )
        return None
    _after_now(ref, field, value, now, problems)
    return value


def checkpoint_inputs(
    ref: ObjectRef, annotations: Mapping[str, str], strict: bool, problems: list[Problem]
) -> dict[str, Any]:
    """The checkpoint inputs (``docs/spec/beyond-min-runtime.md``) from PodGroup annotations."""
    inputs: dict[str, Any] = {}
    if not any(isinstance(key, str) and key.startswith("minruntime/") for key in annotations):
        return inputs

    def unreadable(key: str, message: str) -> None:
        _unreadable(ref, f"metadata.annotations[{key!r}]", message, strict, problems)

    text = annotations.get(LAST_CHECKPOINT_ANNOTATION)
    if text:
        try:
            inputs["last_checkpoint"] = parse_rfc3339(text)
        except InvalidTimestamp as error:
            unreadable(LAST_CHECKPOINT_ANNOTATION, str(error))
    for key, name in (
        (CHECKPOINT_INTERVAL_ANNOTATION, "checkpoint_interval"),
        (CHECKPOINT_RESTORE_ANNOTATION, "checkpoint_restore"),
        (REQUESTED_MIN_RUNTIME_ANNOTATION, "requested_min_runtime"),
    ):
        text = annotations.get(key)
        if text:
            try:
                value = MinRuntime.parse(text, allow_never=False)
                if name == "checkpoint_interval" and not value:
                    raise InvalidDuration(f"invalid duration {shown(text)}: must be positive")
                inputs[name] = value
            except InvalidDuration as error:
                unreadable(key, str(error))
    text = annotations.get(EVICTIONS_ANNOTATION)
    if text:
        count = text.strip()
        if count.isascii() and count.isdigit():  # a bare count, where times are not kept
            if len(count) <= 9:
                inputs["evictions"] = int(count)
            else:
                unreadable(EVICTIONS_ANNOTATION, f"a count of {len(count)} digits (at most 9)")
        else:
            times = []
            for part in text.split(","):
                try:
                    times.append(parse_rfc3339(part.strip()))
                except InvalidTimestamp as error:
                    unreadable(EVICTIONS_ANNOTATION, str(error))
            inputs["evictions"] = tuple(times)
    return inputs


def delay_inputs(
    group: Object,
    ref: ObjectRef,
    annotations: Mapping[str, str],
    owners: Sequence[Owner],
    pod_annotations: Mapping[str, str] | None,
    pod: Object | None,
    never: bool,
    strict: bool,
    now: datetime | None,
    problems: list[Problem],
) -> dict[str, Any]:
    """The preemption-delay inputs (``docs/spec/preemption-delay.md``): the delay
    (``spec.preemptionDelay``, else the annotation on the PodGroup, its pod's owners nearest
    first, or the pod; never for a PriorityClass with ``preemptionPolicy: Never``), the
    creation time and the last eviction (after ``now``: used, with a problem)."""
    inputs: dict[str, Any] = {}

    def unreadable(field: str, message: str) -> None:
        _unreadable(ref, field, message, strict, problems)

    spec = group.get("spec")
    key = PREEMPTION_DELAY_ANNOTATION
    # (where, value) in order; where: a field of the group, an owner, or the pod (named only
    # when its value cannot be read: the common case has no delay anywhere)
    sources: list[tuple[str | Owner | Object, object]] = [
        (
            "spec.preemptionDelay",
            spec.get("preemptionDelay")
            if type(spec) is dict
            else get(group, "spec.preemptionDelay", object),
        ),
        (_DELAY_FIELD, annotations.get(key)),
    ]
    sources += [(owner, owner.annotations.get(key)) for owner in owners if owner.kind != "PodGroup"]
    if pod_annotations is not None and pod is not None:
        sources.append((pod, pod_annotations.get(key)))
    for where, value in sources:
        if value is None or value == "":
            continue
        try:
            inputs["preemption_delay"] = MinRuntime.parse(value)
            break
        except InvalidDuration as error:
            if isinstance(where, Owner):
                where = f"annotation on {where.kind}/{where.name}"
            elif not isinstance(where, str):
                where = f"annotation on {object_name(where)}"
            unreadable(where, str(error))
    if never:
        inputs["preemption_delay"] = MinRuntime.NEVER
    metadata = group.get("metadata")
    created = (
        metadata.get("creationTimestamp")
        if type(metadata) is dict
        else get(group, "metadata.creationTimestamp", object)
    )
    for field, name, text in (
        ("metadata.creationTimestamp", "created", created),
        (_LAST_EVICTION_FIELD, "last_eviction", annotations.get(LAST_EVICTION_ANNOTATION)),
    ):
        if text is None or text == "":
            continue
        try:
            inputs[name] = parse_rfc3339(text)
        except InvalidTimestamp as error:
            unreadable(field, str(error))
            continue
        if name == "last_eviction":
            _after_now(ref, field, inputs[name], now, problems)
    return inputs

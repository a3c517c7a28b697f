"""Start times: reading the annotation, the stamping rule, and writing it back.

A job's start time is when it last went from no running pods to running. The reference
scheduler keeps it in the PodGroup annotation ``kai.scheduler/last-start-timestamp`` as an
RFC 3339 time with a zone.

>>> from datetime import datetime, timezone
>>> parse_start_time("2026-11-22T11:50:00Z").value
datetime.datetime(2026, 11, 22, 11, 50, tzinfo=datetime.timezone.utc)
>>> format_start_time(datetime(2026, 11, 22, 11, 50, 7, 250000, tzinfo=timezone.utc))
'2026-11-22T11:50:07Z'
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final

import attrs
from dateutil.parser import isoparse

from minruntime._text import shown
from minruntime._time import Instant, from_ns, to_ns
from minruntime.errors import InvalidTimestamp
from minruntime.jobs import ALLOCATED_STATUSES, JobLike, TaskStatus

__all__ = [
    "START_TIME_ANNOTATION",
    "ParsedTime",
    "format_start_time",
    "has_allocated_tasks",
    "parse_rfc3339",
    "parse_start_time",
    "stamp_last_eviction",
    "stamp_start_time",
]

START_TIME_ANNOTATION: Final = "kai.scheduler/last-start-timestamp"
"""The PodGroup annotation that holds a job's last start time."""

# RFC 3339 date-time: a full date, 'T' (or 't', or a space as RFC 3339 section 5.6 allows),
# a full time with optional fraction, and a zone ('Z' or an offset). dateutil does the parsing;
# this only refuses the looser ISO 8601 forms dateutil would also take.
_RFC3339: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})\Z"
)

_CANONICAL: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def parse_rfc3339(text: str, *, origin: str | None = None) -> datetime:
    """Parse an RFC 3339 time with a zone (fractions allowed) into an aware UTC datetime.

    Raises:
        InvalidTimestamp: for anything else; the message names the text and its origin.

    >>> parse_rfc3339("2026-11-22T13:50:00.5+02:00")
    datetime.datetime(2026, 11, 22, 11, 50, 0, 500000, tzinfo=datetime.timezone.utc)
    """
    if type(text) is str and len(text) == 20 and _CANONICAL.fullmatch(text):
        try:  # what kubectl prints, by the hundred thousand: the standard parser agrees
            return datetime.fromisoformat(text)
        except ValueError:
            pass  # a day or an hour out of range: the general path says which
    where = f" in {origin}" if origin else ""
    if not isinstance(text, str) or not _RFC3339.match(text):
        raise InvalidTimestamp(
            f"invalid timestamp {shown(text)}{where} (expected RFC 3339 with a zone, "
            "e.g. '2026-11-22T11:50:00Z')",
            value=text,
            origin=origin,
        )
    normalized = text.replace(" ", "T").replace("t", "T").replace("z", "Z")
    fraction = re.search(r"\.([0-9]+)", normalized)
    if fraction and len(fraction.group(1)) > 6:  # datetimes hold microseconds: truncate
        normalized = normalized.replace(fraction.group(0), "." + fraction.group(1)[:6], 1)
    try:
        parsed = isoparse(normalized)
    except (ValueError, OverflowError) as error:
        raise InvalidTimestamp(
            f"invalid timestamp {shown(text)}{where}: {error}", value=text, origin=origin
        ) from None
    try:  # 9999-12-31T23:59:59-01:00 is a valid text of an instant after datetime.max
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        raise InvalidTimestamp(
            f"invalid timestamp {shown(text)}{where}: out of range in UTC (expected an instant "
            "between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z)",
            value=text,
            origin=origin,
        ) from None


@attrs.frozen
class ParsedTime:
    """A parsed optional time and the warnings reading it produced.

    ``value`` is ``None`` when the text was missing, empty, or (fail-open) unreadable.
    """

    value: datetime | None
    warnings: tuple[str, ...] = ()


def parse_start_time(
    text: str | None, *, strict: bool = False, origin: str | None = None
) -> ParsedTime:
    """Read a start-time annotation value.

    Missing or empty: no start time. Unparseable: no start time with a warning (fail-open, as
    the reference scheduler: the job then counts as never started and is not protected), or
    :class:`~minruntime.InvalidTimestamp` when ``strict``.

    >>> parse_start_time("yesterday", origin="PodGroup/ns/train").warnings
    ("invalid timestamp 'yesterday' in PodGroup/ns/train (expected RFC 3339 with a zone, e.g. '2026-11-22T11:50:00Z'); treated as no start time",)
    """
    if text is None or text == "":
        return ParsedTime(None)
    try:
        return ParsedTime(parse_rfc3339(text, origin=origin))
    except InvalidTimestamp as error:
        if strict:
            raise
        return ParsedTime(None, (f"{error}; treated as no start time",))


def format_start_time(moment: Instant) -> str:
    """Format a time as the annotation holds it: RFC 3339, UTC, second precision.

    >>> format_start_time(0)
    '1970-01-01T00:00:00Z'
    """
    utc = from_ns(to_ns(moment, "the start time") // 10**9 * 10**9)
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def has_allocated_tasks(job: JobLike) -> bool:
    """Whether any task of the job is Allocated, Binding, Bound or Running.

    >>> from minruntime import Job, PodSet, Task
    >>> has_allocated_tasks(Job("j", "q", pod_sets=[PodSet(tasks=[Task("a", "Pipelined")])]))
    False
    """
    return any(
        TaskStatus.parse(task.status) in ALLOCATED_STATUSES
        for pod_set in job.pod_sets
        for task in pod_set.tasks
    )


def stamp_start_time(job: JobLike, *, now: Instant, pipelined: bool) -> datetime | None:
    """The job's start time after an allocation of it commits at ``now``.

    ``job`` is the job as it was *before* the allocation. The start time becomes ``now`` when the
    allocation is not pipelined and the job had no allocated task before it; otherwise it is
    unchanged. So scaling up a running job keeps its start time, and a job evicted to zero and
    allocated again gets a new one.

    >>> from minruntime import Job, PodSet, Task
    >>> idle = Job("j", "q", start_time=0, pod_sets=[PodSet(tasks=[Task("a", "Pending")])])
    >>> stamp_start_time(idle, now=600, pipelined=False)
    datetime.datetime(1970, 1, 1, 0, 10, tzinfo=datetime.timezone.utc)
    >>> stamp_start_time(idle, now=600, pipelined=True)
    datetime.datetime(1970, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)
    """
    now_ns = to_ns(now, "now")
    current = job.start_time
    current_time = (
        None if current is None else from_ns(to_ns(current, f"job {job.id!r} start_time"))
    )
    if pipelined or has_allocated_tasks(job):
        return current_time
    return from_ns(now_ns)


def stamp_last_eviction(*, now: Instant) -> datetime:
    """A job's last eviction after an eviction of it commits at ``now``: ``now``
    (docs/spec/preemption-delay.md#preemption-delay-stamping). The next preemption-delay window of
    the job, pending again, starts there.

    Write it back with :func:`format_start_time` (RFC 3339, UTC, second precision) into the
    PodGroup annotation ``kai.scheduler/last-eviction-timestamp``.

    >>> stamp_last_eviction(now=600)
    datetime.datetime(1970, 1, 1, 0, 10, tzinfo=datetime.timezone.utc)
    >>> format_start_time(stamp_last_eviction(now=600.5))
    '1970-01-01T00:10:00Z'
    """
    return from_ns(to_ns(now, "now"))

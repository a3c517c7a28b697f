"""Test setup shared by several test modules: build values from flat keyword arguments, and
the list of public modules.

The section 16 settings are one value on a queue (``protections``) and on a configuration,
and a job's section 16 inputs one value (``inputs``); many tests state them as flat keyword
arguments, which these builders group.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs

from minruntime import Config, Job, JobInputs, ProtectionSettings, Queue

T = TypeVar("T")

PROTECTION_FIELDS = tuple(field.name for field in attrs.fields(ProtectionSettings))
INPUT_FIELDS = tuple(field.name for field in attrs.fields(JobInputs))


def queue(name: str, parent: str | None = None, *args: Any, **kwargs: Any) -> Queue:
    """A :class:`Queue`; section 16 settings may be given flat."""
    protections = {key: kwargs.pop(key) for key in PROTECTION_FIELDS if key in kwargs}
    if protections:
        kwargs["protections"] = ProtectionSettings(**protections)
    return Queue(name, parent, *args, **kwargs)


def config(**kwargs: Any) -> Config:
    """A :class:`Config`; section 16 defaults may be given flat as ``default_<setting>``."""
    protections = {
        key: kwargs.pop(f"default_{key}") for key in PROTECTION_FIELDS if f"default_{key}" in kwargs
    }
    if protections:
        kwargs["protections"] = ProtectionSettings(**protections)
    return Config(**kwargs)


def job(*args: Any, **kwargs: Any) -> Job:
    """A :class:`Job`; section 16 inputs may be given flat."""
    inputs = {key: kwargs.pop(key) for key in INPUT_FIELDS if key in kwargs}
    if inputs:
        kwargs["inputs"] = JobInputs(**inputs)
    return Job(*args, **kwargs)


def evolve(value: T, **changes: Any) -> T:
    """``attrs.evolve``, with a job's section 16 inputs and a queue's section 16 settings given
    flat."""
    if isinstance(value, Job):
        inputs = {key: changes.pop(key) for key in INPUT_FIELDS if key in changes}
        if inputs:
            current = value.inputs if value.inputs is not None else JobInputs()
            changes["inputs"] = attrs.evolve(current, **inputs)
    if isinstance(value, Queue):
        protections = {key: changes.pop(key) for key in PROTECTION_FIELDS if key in changes}
        if protections:
            changes["protections"] = attrs.evolve(value.protections, **protections)
    return attrs.evolve(value, **changes)  # type: ignore[misc]


PUBLIC_MODULES = (
    "minruntime.config",
    "minruntime.decisions",
    "minruntime.durations",
    "minruntime.errors",
    "minruntime.jobs",
    "minruntime.preemptibility",
    "minruntime.queues",
    "minruntime.session",
    "minruntime.starttime",
    "minruntime.kube",
    "minruntime.testing",
    "minruntime.cli",
)
"""The library's public modules: each has ``__all__`` and ``__dir__``, and the API reference
documents every name of each (the others start with ``_``)."""

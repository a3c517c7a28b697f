"""Preemptibility: may a running job be interrupted at all, whatever its priority.

Priority orders jobs; preemptibility says whether one may be interrupted once it runs:

- ``preemptible``: yes (subject to min-runtime);
- ``non-preemptible``: never by preempt or reclaim;
- ``semi-preemptible``: its *core* (the first ``min_available`` active tasks of each pod set)
  never, the tasks above it yes.

:func:`determine_preemptibility` finds a job's value from its sources, first valid one wins:
the explicit field, the ``kai.scheduler/preemptibility`` label or annotation on the owners
(nearest first) and then the pod, per-kind defaults, and last the legacy priority rule
(priority below 100 is preemptible).

>>> from minruntime import Preemptibility, determine_preemptibility
>>> Preemptibility.parse("Non-Preemptible")
<Preemptibility.NON_PREEMPTIBLE: 'non-preemptible'>
>>> result = determine_preemptibility(priority=125)
>>> result.value, result.source
(<Preemptibility.NON_PREEMPTIBLE: 'non-preemptible'>, <PreemptibilitySource.LEGACY_PRIORITY: 'legacy-priority'>)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Final

import attrs

from minruntime.errors import InvalidPreemptibility

__all__ = [
    "LEGACY_PRIORITY_THRESHOLD",
    "PREEMPTIBILITY_KEY",
    "PRIORITY_BUILD",
    "PRIORITY_BUILD_PREEMPTIBLE",
    "PRIORITY_CLASSES",
    "PRIORITY_INFERENCE",
    "PRIORITY_TRAIN",
    "Owner",
    "Preemptibility",
    "PreemptibilityResult",
    "PreemptibilitySource",
    "determine_preemptibility",
    "legacy_preemptibility",
]

PREEMPTIBILITY_KEY: Final = "kai.scheduler/preemptibility"
"""The label (or annotation) key that carries a workload's preemptibility."""

LEGACY_PRIORITY_THRESHOLD: Final = 100
"""Legacy rule: a priority below this is preemptible, at or above it non-preemptible."""

PRIORITY_TRAIN: Final = 50
PRIORITY_BUILD_PREEMPTIBLE: Final = 75
PRIORITY_BUILD: Final = 100
PRIORITY_INFERENCE: Final = 125

PRIORITY_CLASSES: Final[Mapping[str, int]] = {
    "train": PRIORITY_TRAIN,
    "build-preemptible": PRIORITY_BUILD_PREEMPTIBLE,
    "build": PRIORITY_BUILD,
    "inference": PRIORITY_INFERENCE,
}
"""The reference scheduler's default priority classes and their values."""


class Preemptibility(enum.Enum):
    """Whether a running job may be interrupted: preemptible, non-preemptible, semi-preemptible.

    >>> Preemptibility("semi-preemptible") is Preemptibility.SEMI_PREEMPTIBLE
    True
    >>> str(Preemptibility.PREEMPTIBLE)
    'preemptible'
    """

    __hash__ = object.__hash__  # identity: Enum's own __hash__ is slow Python code

    PREEMPTIBLE = "preemptible"
    NON_PREEMPTIBLE = "non-preemptible"
    SEMI_PREEMPTIBLE = "semi-preemptible"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: object, *, origin: str | None = None) -> Preemptibility:
        """Read a preemptibility, case-insensitively (``Non-Preemptible`` is accepted).

        Raises:
            InvalidPreemptibility: for anything else, the empty string included; the message
                names the value, its origin and the accepted values.

        >>> Preemptibility.parse("SEMI-PREEMPTIBLE")
        <Preemptibility.SEMI_PREEMPTIBLE: 'semi-preemptible'>
        """
        if isinstance(value, Preemptibility):
            return value
        if isinstance(value, str):
            found = _BY_NAME.get(value.lower())
            if found is not None:
                return found
        where = f" in {origin}" if origin else ""
        raise InvalidPreemptibility(
            f"invalid preemptibility {value!r}{where} (expected 'preemptible', "
            "'non-preemptible' or 'semi-preemptible', in any case)",
            value=value,
            origin=origin,
        )


_BY_NAME: Final = {member.value: member for member in Preemptibility}


class PreemptibilitySource(enum.Enum):
    """Which source decided a job's preemptibility."""

    EXPLICIT = "explicit"
    """The job's own field (a PodGroup's ``spec.preemptibility``)."""
    OWNER = "owner"
    """A label or annotation on one of the pod's owners."""
    POD = "pod"
    """A label or annotation on the pod itself."""
    KIND_DEFAULT = "kind-default"
    """A per-workload-kind default supplied by the caller."""
    LEGACY_PRIORITY = "legacy-priority"
    """The legacy rule: priority below the threshold is preemptible."""

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class Owner:
    """An owner of a pod (a Deployment, a Job, a PyTorchJob ...) as far as preemptibility goes.

    Args:
        kind: the owner's kind, for example ``"PyTorchJob"``.
        name: its name, for messages.
        group: its API group, for example ``"kubeflow.org"`` (``""`` for the core group).
        labels: its labels.
        annotations: its annotations.

    >>> Owner("Deployment", "web", group="apps", labels={"kai.scheduler/preemptibility": "preemptible"})
    Owner(kind='Deployment', name='web', group='apps', labels={'kai.scheduler/preemptibility': 'preemptible'}, annotations={})
    """

    kind: str
    name: str
    group: str = ""
    labels: Mapping[str, str] = attrs.field(factory=dict)
    annotations: Mapping[str, str] = attrs.field(factory=dict)


@attrs.frozen
class PreemptibilityResult:
    """A determined preemptibility, the source that decided it and what was skipped on the way.

    Attributes:
        value: the preemptibility.
        source: which kind of source decided.
        detail: which source exactly, for an operator (``"label on PyTorchJob/llm"``).
        warnings: invalid values skipped, and the legacy fallback when it was used.
    """

    value: Preemptibility
    source: PreemptibilitySource
    detail: str
    warnings: tuple[str, ...] = ()


def legacy_preemptibility(
    priority: int, threshold: int = LEGACY_PRIORITY_THRESHOLD
) -> Preemptibility:
    """The legacy rule: priority below ``threshold`` is preemptible, otherwise non-preemptible.

    >>> legacy_preemptibility(99), legacy_preemptibility(100)
    (<Preemptibility.PREEMPTIBLE: 'preemptible'>, <Preemptibility.NON_PREEMPTIBLE: 'non-preemptible'>)
    """
    return Preemptibility.PREEMPTIBLE if priority < threshold else Preemptibility.NON_PREEMPTIBLE


def determine_preemptibility(
    *,
    priority: int,
    explicit: Preemptibility | str | None = None,
    owners: Iterable[Owner] = (),
    pod_labels: Mapping[str, str] | None = None,
    pod_annotations: Mapping[str, str] | None = None,
    kind_defaults: Mapping[str, str] | None = None,
    threshold: int = LEGACY_PRIORITY_THRESHOLD,
) -> PreemptibilityResult:
    """Determine a job's preemptibility from its sources; the first valid value wins.

    1. ``explicit``: the job's own field (a PodGroup's ``spec.preemptibility``);
    2. the key ``kai.scheduler/preemptibility`` in the labels, then the annotations, of each
       owner from nearest to top owner, then of the pod;
    3. ``kind_defaults``, per owner nearest first: ``"<Kind>.<group>"`` before ``"<Kind>"``;
    4. the legacy rule on ``priority`` and ``threshold``.

    An invalid value at a source is skipped with a warning; an empty string counts as absent.
    Values are case-insensitive. The legacy fallback adds a warning, so that a scheduler can
    log it and encourage migration to an explicit value.

    >>> owners = [Owner("Job", "step-1", group="batch", labels={PREEMPTIBILITY_KEY: "soon"}),
    ...           Owner("JobSet", "llm", group="jobset.x-k8s.io",
    ...                 annotations={PREEMPTIBILITY_KEY: "Semi-Preemptible"})]
    >>> result = determine_preemptibility(priority=50, owners=owners)
    >>> result.value, result.detail
    (<Preemptibility.SEMI_PREEMPTIBLE: 'semi-preemptible'>, 'annotation on JobSet/llm')
    >>> result.warnings
    ("skipped invalid preemptibility 'soon' in label on Job/step-1",)
    """
    warnings: list[str] = []

    def attempt(raw: object, detail: str) -> Preemptibility | None:
        if raw is None or raw == "":
            return None
        try:
            return Preemptibility.parse(raw)
        except InvalidPreemptibility:
            warnings.append(f"skipped invalid preemptibility {raw!r} in {detail}")
            return None

    def result(
        value: Preemptibility, source: PreemptibilitySource, detail: str
    ) -> PreemptibilityResult:
        return PreemptibilityResult(value, source, detail, tuple(warnings))

    found = attempt(explicit, "the explicit field")
    if found is not None:
        return result(found, PreemptibilitySource.EXPLICIT, "the explicit field")
    owners = tuple(owners)
    # each source is described only when it holds a value: most jobs have none anywhere
    places: list[tuple[Owner | None, Mapping[str, str] | None, Mapping[str, str] | None]] = [
        (owner, owner.labels, owner.annotations) for owner in owners
    ]
    places.append((None, pod_labels, pod_annotations))  # None: the pod
    for owner, on_labels, on_annotations in places:
        for mapping, what in ((on_labels, "label"), (on_annotations, "annotation")):
            raw = mapping.get(PREEMPTIBILITY_KEY) if mapping else None
            if raw is None or raw == "":
                continue
            where = "the pod" if owner is None else f"{owner.kind}/{owner.name}"
            detail = f"{what} on {where}"
            found = attempt(raw, detail)
            if found is not None:
                source = PreemptibilitySource.POD if owner is None else PreemptibilitySource.OWNER
                return result(found, source, detail)
    if kind_defaults:
        for owner in owners:
            keys = [f"{owner.kind}.{owner.group}", owner.kind] if owner.group else [owner.kind]
            for key in keys:
                raw = kind_defaults.get(key)
                if raw is not None and raw != "":
                    detail = f"the default for kind {key!r}"
                    found = attempt(raw, detail)
                    if found is not None:
                        return result(found, PreemptibilitySource.KIND_DEFAULT, detail)
    value = legacy_preemptibility(priority, threshold)
    comparison = "<" if value is Preemptibility.PREEMPTIBLE else ">="
    detail = f"legacy rule: priority {priority} {comparison} {threshold}"
    warnings.append(f"no preemptibility set; {detail} gives {value}")
    return result(value, PreemptibilitySource.LEGACY_PRIORITY, detail)

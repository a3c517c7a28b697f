"""What a pod holds: ``nvidia.com/gpu``, the reference's fractional GPUs, ``cpu`` and ``memory``
(private; docs/spec/kubernetes.md, "Resources").

- ``nvidia.com/gpu`` of a container: its limit when set, else its request (a limit implies the
  request, as in Kubernetes); ``cpu`` and ``memory``: the request when set, else the limit.
  Summed over the containers; the init containers run one at a time before them, so the pod
  holds, per resource, the larger of that sum and its largest init container's. An init
  container with ``restartPolicy: Always`` (a sidecar) keeps running: it counts with the
  containers, and with every init container after it.
- The reference's fractional GPUs, pod annotations: ``gpu-fraction`` (a share of one device,
  ``"0.5"``) and ``gpu-memory`` (MiB of one device), each times ``gpu-fraction-num-devices``
  (default 1). ``gpu-memory`` counts as the share of the device's memory where the node's device
  memory is known (its label ``nvidia.com/gpu.memory``, in MiB; for a pod on no node, the one
  value all the snapshot's nodes state); where it is not, as whole devices, with a warning
  (docs/decisions/gpu-memory-share.md).
- An amount that cannot be read is a warning naming the pod, the field and the value, and the
  pod holds nothing of that resource (counted as 0), whatever its other containers request.

The fast path (:func:`fast_resources`) reads a well-formed pod's containers by direct look-ups,
with each quantity's text read once per snapshot; anything else goes to the careful path
(:func:`pod_resources`), which names what it cannot use. Both give the same amounts for a good
pod.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from minruntime._text import shown
from minruntime.errors import InvalidObject
from minruntime.kube._fields import Object, object_name
from minruntime.kube._problems import Problem, ProblemKind, _problem
from minruntime.kube._quantities import quantity
from minruntime.resources import CPU, GPU, MEMORY, Resources, task_resources

__all__ = [
    "CPU",
    "GPU",
    "GPU_FRACTION_ANNOTATION",
    "GPU_MEMORY_ANNOTATION",
    "GPU_MEMORY_LABEL",
    "MAX_GPUS",
    "MEMORY",
    "NUM_DEVICES_ANNOTATION",
    "DeviceMemory",
    "Irregular",
    "fast_resources",
    "held_resources",
    "pod_resources",
]

GPU_FRACTION_ANNOTATION: Final = "gpu-fraction"
"""Pod annotation (the reference's fractional GPUs): the share of one device, e.g. ``"0.5"``."""
GPU_MEMORY_ANNOTATION: Final = "gpu-memory"
"""Pod annotation (the reference's fractional GPUs): MiB of one device's memory."""
NUM_DEVICES_ANNOTATION: Final = "gpu-fraction-num-devices"
"""Pod annotation: how many devices a ``gpu-fraction`` or ``gpu-memory`` share is taken of."""
GPU_MEMORY_LABEL: Final = "nvidia.com/gpu.memory"
"""Node label (NVIDIA's GPU feature discovery): the memory of each of its devices, in MiB."""
MAX_GPUS: Final = 10**6
"""The most GPUs a pod may hold; a larger count is unreadable."""
_KINDS: Final = (GPU, CPU, MEMORY)
_EXPECTED: Final = "expected a Kubernetes quantity >= 0, e.g. '2', '500m' or '16Gi'"
_DECIMAL: Final = re.compile(r"[0-9]{1,9}(\.[0-9]{0,9})?|\.[0-9]{1,9}")
_EMPTY: Final[Mapping[str, Any]] = {}


class DeviceMemory(NamedTuple):
    """The memory of a GPU device, in MiB, by node (``nvidia.com/gpu.memory``), and the one
    value every node that states one states (``None`` when none does or they differ)."""

    by_node: Mapping[str, float]
    only: float | None

    @classmethod
    def of(cls, by_node: Mapping[str, float]) -> DeviceMemory:
        """The device memory of these nodes."""
        values = set(by_node.values())
        return cls(by_node, values.pop() if len(values) == 1 else None)


NO_DEVICE_MEMORY: Final = DeviceMemory({}, None)


class Irregular(Exception):
    """Something the fast path does not handle: the careful path reads the pod."""


def _cached(amount: object, amounts: dict[object, float]) -> float:
    kind = type(amount)
    if kind is not str and kind is not int:  # not a bool: True == 1 would find 1's amount
        raise Irregular
    value = amounts.get(amount)
    if value is None:
        read = quantity(amount)
        if read is None:
            raise Irregular
        amounts[amount] = value = read
    return value


def _container(container: Any, amounts: dict[object, float]) -> tuple[float, float, float]:
    resources = container.get("resources")
    if not resources:
        return 0.0, 0.0, 0.0
    limits = resources.get("limits") or _EMPTY
    requests = resources.get("requests") or _EMPTY
    gpus = cpu = memory = 0.0
    amount = limits.get(GPU)
    if amount is None:
        amount = requests.get(GPU)
    if amount is not None:
        gpus = _cached(amount, amounts)
    amount = requests.get(CPU)
    if amount is None:
        amount = limits.get(CPU)
    if amount is not None:
        cpu = _cached(amount, amounts)
    amount = requests.get(MEMORY)
    if amount is None:
        amount = limits.get(MEMORY)
    if amount is not None:
        memory = _cached(amount, amounts)
    return gpus, cpu, memory


def fast_resources(
    spec: Any,
    amounts: dict[object, float],
    held: dict[tuple[float, float, float], Resources],
) -> Resources:
    """What the task of a well-formed pod holds (``spec`` a dict): its containers' GPUs, CPU
    and memory, and one pod; each quantity's text read once through ``amounts``, each holding
    made once through ``held`` (:func:`held_resources`).

    Raises:
        Irregular: (or a ``TypeError``, ``AttributeError``) for anything else.
    """
    gpus = cpu = memory = 0.0
    for container in spec.get("containers") or ():  # _container, inlined: pods are many
        resources = container.get("resources")
        if not resources:
            continue
        limits = resources.get("limits") or _EMPTY
        requests = resources.get("requests") or _EMPTY
        amount = limits.get(GPU)
        if amount is None:
            amount = requests.get(GPU)
        if amount is not None:
            gpus += _cached(amount, amounts)
        amount = requests.get(CPU)
        if amount is None:
            amount = limits.get(CPU)
        if amount is not None:
            cpu += _cached(amount, amounts)
        amount = requests.get(MEMORY)
        if amount is None:
            amount = limits.get(MEMORY)
        if amount is not None:
            memory += _cached(amount, amounts)
    init = spec.get("initContainers")
    if init:
        for container in init:
            if container.get("restartPolicy") is not None:  # a sidecar: the careful path
                raise Irregular
            g, c, m = _container(container, amounts)
            gpus, cpu, memory = max(gpus, g), max(cpu, c), max(memory, m)
    if gpus > MAX_GPUS:
        raise Irregular
    key = (gpus, cpu, memory)
    found = held.get(key)
    if found is None:
        found = held[key] = held_resources({GPU: gpus, CPU: cpu, MEMORY: memory})
    return found


def held_resources(amounts: Mapping[str, float]) -> Resources:
    """What the task of a pod holding ``amounts`` holds: those that are not 0, and one pod.
    The fast path keeps one value per read for each different holding: a snapshot's pods hold
    a few different ones, by the hundred thousand."""
    return task_resources(
        {name: amount for name, amount in amounts.items() if amount}, "pod resources"
    )


def pod_resources(
    pod: Object,
    annotations: Mapping[str, str],
    devices: DeviceMemory,
    strict: bool,
    problems: list[Problem],
) -> dict[str, float]:
    """What a pod holds, read carefully: each amount it cannot read is a problem (an error
    when ``strict``) naming the pod, the field and the value, and the pod then holds none of
    that resource.

    Raises:
        InvalidObject: when ``strict``, for the first amount it cannot read.
    """
    where = object_name(pod)
    unreadable: set[str] = set()

    def bad(resource: str | None, field: str, value: object, expected: str) -> None:
        """An amount of ``resource`` that cannot be read (the pod holds none of it), or, with
        ``resource`` ``None``, a ``limits`` or ``requests`` that is not an object (ignored)."""
        what = "amount" if resource else "value"
        detail = f"{where} {field}: invalid {what} {shown(value)[:60]} ({expected})"
        if strict:
            raise InvalidObject(detail, object=where, field=field)
        if resource is not None:
            unreadable.add(resource)
        outcome = f"the pod holds no {resource} (counted as 0)" if resource else "ignored"
        problems.append(_problem(ProblemKind.IGNORED, pod, field, detail, outcome))

    spec = pod.get("spec")
    spec = spec if isinstance(spec, Mapping) else _EMPTY
    summed = dict.fromkeys(_KINDS, 0.0)  # the containers together
    sidecars = dict.fromkeys(_KINDS, 0.0)  # the init containers that keep running
    peak = dict.fromkeys(_KINDS, 0.0)  # the most any one init container needs, as it runs
    for key in ("containers", "initContainers"):
        listed = spec.get(key)
        for i, container in enumerate(listed if isinstance(listed, list) else ()):
            if not isinstance(container, Mapping):
                continue
            amounts = _amounts(container, f"spec.{key}[{i}].resources", bad)
            if key == "containers":
                for resource, amount in amounts.items():
                    summed[resource] += amount
            elif container.get("restartPolicy") == "Always":  # a sidecar: runs on beside
                for resource, amount in amounts.items():
                    sidecars[resource] += amount
                    peak[resource] = max(peak[resource], sidecars[resource])
            else:
                for resource, amount in amounts.items():
                    peak[resource] = max(peak[resource], amount + sidecars[resource])
    for resource in _KINDS:
        summed[resource] = max(summed[resource] + sidecars[resource], peak[resource])
    shares = _shares(pod, annotations, devices, bad, problems)
    if shares is not None:
        summed[GPU] += shares
    if summed[GPU] > MAX_GPUS:
        bad(GPU, "spec.containers", summed[GPU], f"at most {MAX_GPUS} GPUs in all")
    return {
        resource: amount
        for resource, amount in summed.items()
        if amount and resource not in unreadable
    }


def _amounts(container: Mapping[str, Any], path: str, bad: Any) -> dict[str, float]:
    """What one container requests, read carefully (``bad`` reports what it cannot read)."""
    resources = container.get("resources")
    if not isinstance(resources, Mapping):
        return {}
    sections = {}
    for part in ("limits", "requests"):
        section = resources.get(part)
        if section is not None and not isinstance(section, Mapping):
            bad(None, f"{path}.{part}", section, "expected an object of amounts")
            section = None
        sections[part] = section or _EMPTY
    found: dict[str, float] = {}
    for resource in _KINDS:
        order = ("limits", "requests") if resource == GPU else ("requests", "limits")
        for part in order:
            value = sections[part].get(resource)
            if value is None:
                continue
            amount = quantity(value)
            if amount is None or (resource == GPU and amount > MAX_GPUS):
                expected = _EXPECTED + (f", at most {MAX_GPUS}" if amount else "")
                bad(resource, f"{path}.{part}[{resource!r}]", value, expected)
            else:
                found[resource] = amount
            break  # the first of the two that is set is the amount
    return found


def _shares(
    pod: Object,
    annotations: Mapping[str, str],
    devices: DeviceMemory,
    bad: Any,
    problems: list[Problem],
) -> float | None:
    """The GPUs of the reference's fractional annotations, or ``None`` without them."""
    fraction = annotations.get(GPU_FRACTION_ANNOTATION)
    memory = annotations.get(GPU_MEMORY_ANNOTATION)
    if fraction is None and memory is None:
        return None
    field = "metadata.annotations[{!r}]".format
    count = 1.0
    text = annotations.get(NUM_DEVICES_ANNOTATION)
    if text is not None:
        if not (text.isascii() and text.isdigit() and 1 <= len(text) <= 6 and int(text) >= 1):
            bad(GPU, field(NUM_DEVICES_ANNOTATION), text, "expected a whole number of devices >= 1")
            return 0.0
        count = float(int(text))
    if fraction is not None:
        if memory is not None:
            problems.append(
                _problem(
                    ProblemKind.IGNORED,
                    pod,
                    field(GPU_MEMORY_ANNOTATION),
                    f"{object_name(pod)} {field(GPU_MEMORY_ANNOTATION)}: set beside "
                    f"{GPU_FRACTION_ANNOTATION} {shown(fraction)[:20]}",
                    f"ignored: {GPU_FRACTION_ANNOTATION} says the share",
                )
            )
        share = float(fraction) if _DECIMAL.fullmatch(fraction) else None
        if share is None or not 0 < share <= 1:
            bad(
                GPU,
                field(GPU_FRACTION_ANNOTATION),
                fraction,
                "expected a share of one device, a number above 0 and at most 1, e.g. '0.5'",
            )
            return 0.0
        return share * count
    assert memory is not None
    mebibytes = float(memory) if memory.isascii() and memory.isdigit() and len(memory) <= 9 else 0
    if not mebibytes:
        bad(
            GPU,
            field(GPU_MEMORY_ANNOTATION),
            memory,
            "expected MiB of one device, a whole number above 0, e.g. '2000'",
        )
        return 0.0
    spec = pod.get("spec")
    node = spec.get("nodeName") if isinstance(spec, Mapping) else None
    device = devices.by_node.get(node) if isinstance(node, str) else None
    if device is None:
        device = devices.only
    if device:
        return min(mebibytes / device, 1.0) * count
    known = (
        f"its node {shown(node)[:60]} states no {GPU_MEMORY_LABEL} in the snapshot"
        if isinstance(node, str)
        else f"it is on no node, and the snapshot's nodes state no one {GPU_MEMORY_LABEL}"
    )
    problems.append(
        _problem(
            ProblemKind.ASSUMED,
            pod,
            field(GPU_MEMORY_ANNOTATION),
            f"{object_name(pod)} {field(GPU_MEMORY_ANNOTATION)}: {mebibytes:g} MiB of a device "
            f"whose memory is not known ({known})",
            f"counted as {count:g} whole GPU{'s' * (count != 1)}",
        )
    )
    return count

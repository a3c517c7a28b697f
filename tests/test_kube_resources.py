"""What a pod holds (``minruntime.kube._resources``, ``_quantities``): GPUs from limits else
requests, the reference's fractional GPUs, ``cpu`` and ``memory`` in Kubernetes quantities, init
containers, and an unreadable quantity (docs/spec/kubernetes.md, "Resources")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.world import containers, node_object, pod, pod_group, queue_object, shard

from minruntime import InvalidSnapshot
from minruntime.errors import InvalidObject
from minruntime.kube import ProblemKind, read_snapshot
from minruntime.kube._pods import read_pod
from minruntime.kube._quantities import quantity
from minruntime.kube._resources import (
    CPU,
    GPU,
    MEMORY,
    NO_DEVICE_MEMORY,
    DeviceMemory,
    fast_resources,
    pod_resources,
)
from minruntime.resources import PODS

GI = 2.0**30
EXPECTED = "expected a Kubernetes quantity >= 0, e.g. '2', '500m' or '16Gi'"


def held(obj: dict[str, Any], devices: DeviceMemory = NO_DEVICE_MEMORY) -> Any:
    """(what the pod holds, the messages of its problems), as the reader reads it."""
    problems: list[Any] = []
    record = read_pod(obj, {}, False, problems, amounts={}, devices=devices)
    assert record is not None
    assert record.resources[PODS] == 1  # every task is one pod
    amounts = {name: amount for name, amount in record.resources.items() if name != PODS}
    return amounts, [p.message for p in (*problems, *record.problems)]


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({"limits": {GPU: "4"}}, {GPU: 4.0}),
        ({"requests": {GPU: 2}}, {GPU: 2.0}),
        ({"limits": {GPU: "4"}, "requests": {GPU: "2"}}, {GPU: 4.0}),  # the limit, when set
        ({"limits": {CPU: "4"}}, {CPU: 4.0}),  # CPU: the request, else the limit
        ({"limits": {CPU: "4"}, "requests": {CPU: "500m"}}, {CPU: 0.5}),
        ({}, {}),
    ],
    ids=[
        "gpus-from-limits",
        "gpus-from-requests",
        "a-gpu-limit-wins",
        "cpu-from-its-limit",
        "cpu-request-wins",
        "nothing",
    ],
)
def test_whole_gpus_and_cpu_of_one_container(
    resources: dict[str, Any], expected: dict[str, float]
) -> None:
    assert held(pod(resources=resources)) == (expected, [])


def test_each_pods_task_holds_what_the_pod_holds_and_one_pod() -> None:
    objects = [
        queue_object("team"),
        shard(),
        pod_group(preemptibility="preemptible"),
        pod("train-0", resources={"limits": {GPU: "8"}, "requests": {CPU: "32", MEMORY: "256Gi"}}),
        pod("train-1", annotations={"gpu-fraction": "0.5"}),
        pod("train-2"),
    ]
    (job,) = read_snapshot(objects).jobs
    assert [(task.id, dict(task.resources)) for task in job.job.pod_sets[0].tasks] == [
        ("train-0", {GPU: 8.0, CPU: 32.0, MEMORY: 256 * GI, "pods": 1}),
        ("train-1", {GPU: 0.5, "pods": 1}),
        ("train-2", {"pods": 1}),
    ]
    assert job.problems == ()


def test_cpu_millicores_and_memory_units_are_summed_over_containers() -> None:
    spec = containers(
        {"requests": {CPU: "500m", MEMORY: "16Gi"}},
        {"requests": {CPU: "1500m", MEMORY: "512M"}},
        {"requests": {CPU: "2", MEMORY: "1e3"}},
        {"limits": {MEMORY: "1000", GPU: "1"}},
    )
    assert held(pod(spec=spec)) == (
        {CPU: 4.0, MEMORY: 16 * GI + 512e6 + 2000, GPU: 1.0},
        [],
    )


def test_init_containers_count_where_they_need_more_than_the_containers_together() -> None:
    spec = containers(
        {"limits": {GPU: "1"}, "requests": {CPU: "1", MEMORY: "1Gi"}},
        {"limits": {GPU: "1"}, "requests": {CPU: "1"}},
        init=[{"requests": {CPU: "4"}}, {"requests": {MEMORY: "512Mi", GPU: "1"}}],
    )
    # per resource, the larger of the containers' sum and the largest init container
    assert held(pod(spec=spec)) == ({GPU: 2.0, CPU: 4.0, MEMORY: GI}, [])


def test_a_sidecar_init_container_counts_with_the_containers_and_the_init_containers_after_it() -> (
    None
):
    spec = containers({"requests": {CPU: "1", MEMORY: "1Gi"}})
    spec["initContainers"] = [
        {"name": "setup", "resources": {"requests": {CPU: "3"}}},  # before the sidecar: 3
        {
            "name": "proxy",
            "restartPolicy": "Always",
            "resources": {"requests": {CPU: "500m", MEMORY: "1Gi"}},
        },
        {"name": "warm", "resources": {"requests": {CPU: "2"}}},  # beside the sidecar: 2.5
    ]
    assert held(pod(spec=spec)) == ({CPU: 3.0, MEMORY: 2 * GI}, [])
    spec["initContainers"][0]["resources"]["requests"][CPU] = "2"
    assert held(pod(spec=spec)) == ({CPU: 2.5, MEMORY: 2 * GI}, [])


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        ({"gpu-fraction": "0.5"}, 0.5),
        ({"gpu-fraction": "0.25", "gpu-fraction-num-devices": "2"}, 0.5),
        ({"gpu-fraction": "1"}, 1.0),
    ],
)
def test_a_gpu_fraction_is_a_share_of_one_device(
    annotations: dict[str, str], expected: float
) -> None:
    assert held(pod(annotations=annotations)) == ({GPU: expected}, [])


def test_gpu_memory_is_a_share_of_its_nodes_device_memory() -> None:
    obj = pod(node="gpu-1", annotations={"gpu-memory": "20000"})
    devices = DeviceMemory.of({"gpu-1": 80000.0, "gpu-2": 40000.0})
    assert held(obj, devices) == ({GPU: 0.25}, [])


def test_gpu_memory_of_a_pod_on_no_node_uses_the_one_value_every_node_states() -> None:
    obj = pod(annotations={"gpu-memory": "40000"})
    assert held(obj, DeviceMemory.of({"a": 80000.0, "b": 80000.0})) == ({GPU: 0.5}, [])


def test_gpu_memory_without_the_nodes_device_memory_is_a_whole_device_with_a_warning() -> None:
    obj = pod(node="gpu-1", annotations={"gpu-memory": "20000"})
    assert held(obj) == (
        {GPU: 1.0},
        [
            "Pod/ml/train-0 metadata.annotations['gpu-memory']: 20000 MiB of a device whose "
            "memory is not known (its node 'gpu-1' states no nvidia.com/gpu.memory in the "
            "snapshot); counted as 1 whole GPU"
        ],
    )
    pending = pod(
        phase="Pending", annotations={"gpu-memory": "20000", "gpu-fraction-num-devices": "2"}
    )
    assert held(pending, DeviceMemory.of({"a": 80000.0, "b": 40000.0})) == (
        {GPU: 2.0},
        [
            "Pod/ml/train-0 metadata.annotations['gpu-memory']: 20000 MiB of a device whose "
            "memory is not known (it is on no node, and the snapshot's nodes state no one "
            "nvidia.com/gpu.memory); counted as 2 whole GPUs"
        ],
    )


def test_the_snapshot_reads_the_nodes_device_memory() -> None:
    objects = [
        queue_object("team"),
        shard(),
        node_object("gpu-1", gpu_memory="81920"),
        node_object("gpu-2", gpu_memory="lots"),
        pod_group(preemptibility="preemptible"),
        pod(node="gpu-1", annotations={"gpu-memory": "40960"}),
    ]
    snapshot = read_snapshot(objects)
    assert snapshot.warnings == (
        "Node/gpu-2 metadata.labels['nvidia.com/gpu.memory']: invalid device memory 'lots' "
        "(expected MiB, a number above 0); ignored",
    )
    (job,) = snapshot.jobs
    assert job.problems == ()
    assert [dict(task.resources) for task in job.job.pod_sets[0].tasks] == [{GPU: 0.5, "pods": 1}]


@pytest.mark.parametrize(
    ("annotations", "field", "value", "expected"),
    [
        (
            {"gpu-fraction": "half"},
            "gpu-fraction",
            "half",
            "expected a share of one device, a number above 0 and at most 1, e.g. '0.5'",
        ),
        (
            {"gpu-fraction": "1.5"},
            "gpu-fraction",
            "1.5",
            "expected a share of one device, a number above 0 and at most 1, e.g. '0.5'",
        ),
        (
            {"gpu-memory": "2GiB"},
            "gpu-memory",
            "2GiB",
            "expected MiB of one device, a whole number above 0, e.g. '2000'",
        ),
        (
            {"gpu-fraction": "0.5", "gpu-fraction-num-devices": "0"},
            "gpu-fraction-num-devices",
            "0",
            "expected a whole number of devices >= 1",
        ),
    ],
)
def test_an_unreadable_fraction_is_a_warning_and_no_gpu(
    annotations: dict[str, str], field: str, value: str, expected: str
) -> None:
    assert held(pod(annotations=annotations, resources={"requests": {CPU: "1"}})) == (
        {CPU: 1.0},
        [
            f"Pod/ml/train-0 metadata.annotations[{field!r}]: invalid amount {value!r} "
            f"({expected}); the pod holds no nvidia.com/gpu (counted as 0)"
        ],
    )


def test_an_unreadable_quantity_is_a_warning_and_the_pod_holds_none_of_that_resource() -> None:
    spec = containers(
        {"requests": {CPU: "lots", MEMORY: "1Gi"}, "limits": {GPU: "2"}},
        {"requests": {CPU: "1"}, "limits": {GPU: "1"}},
    )
    assert held(pod(spec=spec)) == (
        {MEMORY: GI, GPU: 3.0},  # no cpu: counted as 0, the number the warning says
        [
            "Pod/ml/train-0 spec.containers[0].resources.requests['cpu']: invalid amount 'lots' "
            f"({EXPECTED}); the pod holds no cpu (counted as 0)"
        ],
    )


def test_limits_that_are_not_an_object_are_ignored_and_the_requests_read() -> None:
    obj = pod(resources={"limits": ["nvidia.com/gpu"], "requests": {GPU: "1", CPU: "2"}})
    assert held(obj) == (
        {GPU: 1.0, CPU: 2.0},
        [
            "Pod/ml/train-0 spec.containers[0].resources.limits: invalid value "
            "['nvidia.com/gpu'] (expected an object of amounts); ignored"
        ],
    )


def test_too_many_gpus_is_an_unreadable_amount() -> None:
    assert held(pod(resources={"limits": {GPU: "2000000"}})) == (
        {},
        [
            "Pod/ml/train-0 spec.containers[0].resources.limits['nvidia.com/gpu']: invalid "
            f"amount '2000000' ({EXPECTED}, at most 1000000); the pod holds no nvidia.com/gpu "
            "(counted as 0)"
        ],
    )


def test_an_unreadable_quantity_is_an_error_with_strict_times_or_strict_reading() -> None:
    bad = pod(resources={"limits": {GPU: "two"}})
    message = (
        "Pod/ml/train-0 spec.containers[0].resources.limits['nvidia.com/gpu']: invalid amount "
        f"'two' ({EXPECTED})"
    )
    objects = [queue_object("team"), shard(), pod_group(preemptibility="preemptible"), bad]
    with pytest.raises(InvalidObject) as caught:
        read_snapshot(objects, strict_times=True)
    assert (str(caught.value), caught.value.field) == (
        message,
        "spec.containers[0].resources.limits['nvidia.com/gpu']",
    )
    with pytest.raises(InvalidSnapshot) as refused:
        read_snapshot(objects, strict=True)
    assert [str(problem) for problem in refused.value.problems] == [
        f"{message}; the snapshot is refused (strict reading)"
    ]
    (job,) = read_snapshot(objects).jobs
    assert [(p.kind, p.field) for p in job.problems] == [
        (ProblemKind.IGNORED, "spec.containers[0].resources.limits['nvidia.com/gpu']")
    ]


AMOUNTS = st.sampled_from(["1", "2", "500m", "16Gi", "512M", "1e3", "0", "3.5", "100Mi"])
SECTION = st.fixed_dictionaries(
    {},
    optional={GPU: st.sampled_from(["0", "1", "2", "8", 4]), CPU: AMOUNTS, MEMORY: AMOUNTS},
)
CONTAINER = st.fixed_dictionaries({}, optional={"limits": SECTION, "requests": SECTION})


@given(st.lists(CONTAINER, max_size=4), st.lists(CONTAINER, max_size=2))
def test_the_fast_path_and_the_careful_path_agree_on_a_well_formed_pod(
    main: list[dict[str, Any]], init: list[dict[str, Any]]
) -> None:
    """For a well-formed pod, the fast path's amounts are the careful path's."""
    spec = containers(*main, init=init)
    careful = pod_resources(pod(spec=spec), {}, NO_DEVICE_MEMORY, False, [])
    assert dict(fast_resources(spec, {}, {})) == pytest.approx({**careful, PODS: 1})


def test_quantities_in_every_suffix() -> None:
    texts = ["1Ki", "1Mi", "1Ti", "1k", "1G", "250u", "5n", "1.5E3", "1E", "+2"]
    assert [quantity(text) for text in texts] == [
        1024.0,
        2.0**20,
        2.0**40,
        1000.0,
        1e9,
        0.00025,
        5e-9,
        1500.0,
        1e18,
        2.0,
    ]


def test_the_tasks_the_reader_builds_are_those_their_constructor_builds() -> None:
    # the reader builds a pod's task from the Resources value it keeps for that holding:
    # each must be the Task built of the same values, in repr and hash too
    from tests.world import BUNDLED_TEXT

    from minruntime import Task
    from minruntime.kube import load_objects

    fractional = pod("half", group="half-job", annotations={"gpu-fraction": "0.5"})
    snapshot = read_snapshot([*load_objects(BUNDLED_TEXT), pod_group("half-job"), fractional])
    tasks = [task for job in snapshot.jobs for task in job.job.tasks()]
    assert len(tasks) == 59
    assert sorted({tuple(sorted(task.resources.items())) for task in tasks}) == [
        (("cpu", 2.0), ("memory", 4.0 * GI), ("pods", 1)),  # CPU pods
        (("cpu", 8.0), ("memory", 32.0 * GI), ("pods", 1)),
        ((GPU, 0.5), ("pods", 1)),  # the careful path's fractional share
        ((GPU, 1.0), ("pods", 1)),
        ((GPU, 2.0), ("pods", 1)),
        ((GPU, 4.0), ("pods", 1)),
        ((GPU, 8.0), ("pods", 1)),
    ]
    for task in tasks:
        built = Task(task.id, task.status, resources=task.resources)
        assert type(task) is Task
        assert (task, repr(task), hash(task)) == (built, repr(built), hash(built))

"""Object fields (``minruntime.kube._fields``): the one rule for misspelt fields, applied to a
Queue's spec, a PodGroup's spec and a sub-group entry (docs/spec/kubernetes.md: a misspelt
field is never ignored in silence; strict reading refuses it)."""

from __future__ import annotations

import pytest
from tests.world import (
    NO_CONFIG_WARNING,
    pod_group,
    queue_object,
    shard,
)

from minruntime import (
    InvalidSnapshot,
)
from minruntime.kube import (
    ObjectRef,
    Problem,
    ProblemKind,
    read_snapshot,
)
from minruntime.kube._fields import _edits, misspelt_fields
from minruntime.kube._pod_groups import POD_GROUP_SPEC_FIELDS, SUB_GROUP_FIELDS
from minruntime.kube._queues import QUEUE_SPEC_FIELDS

REFUSED = "the snapshot is refused (strict reading)"


def misspelt(snapshot_problems: object) -> list[str]:
    """The messages of the misspelt-field problems among ``snapshot_problems``."""
    assert isinstance(snapshot_problems, tuple)
    return [p.message for p in snapshot_problems if "unknown field" in p.message]


def test_a_misspelt_queue_field_is_a_warning_naming_the_queue_the_field_and_the_known_one() -> None:
    snapshot = read_snapshot([queue_object("team", parentQeue="org"), queue_object("org"), shard()])
    assert snapshot.problems == (
        Problem(
            kind=ProblemKind.SUSPECT,
            object=ObjectRef(kind="Queue", name="team"),
            field="spec.parentQeue",
            detail="Queue/team spec.parentQeue: unknown field (did you mean spec.parentQueue?)",
            outcome="ignored",
        ),
    )
    assert snapshot.warnings == (
        "Queue/team spec.parentQeue: unknown field (did you mean spec.parentQueue?); ignored",
    )
    assert snapshot.tree.parent("team") is None  # the misspelt value is not used


def test_a_misspelt_pod_group_field_is_a_warning_naming_the_group_the_field_and_the_known_one() -> (
    None
):
    snapshot = read_snapshot(
        [queue_object("team"), shard(), pod_group(minMemeber=2, preemptability="preemptible")]
    )
    (job,) = snapshot.jobs
    assert misspelt(job.problems) == [
        "PodGroup/ml/train spec.minMemeber: unknown field (did you mean spec.minMember?); ignored",
        "PodGroup/ml/train spec.preemptability: unknown field (did you mean "
        "spec.preemptibility?); ignored",
    ]
    assert [(p.kind, p.field) for p in job.problems[:2]] == [
        (ProblemKind.SUSPECT, "spec.minMemeber"),
        (ProblemKind.SUSPECT, "spec.preemptability"),
    ]
    assert job.job.pod_sets[0].min_available == 1  # minMember unset: the default


def test_a_misspelt_sub_group_field_is_a_warning_naming_the_entry() -> None:
    group = pod_group(
        subGroups=[
            {"name": "workers", "minMemeber": 4},
            {"name": "chief", "minMember": 1, "parnet": "workers"},
        ]
    )
    snapshot = read_snapshot([queue_object("team"), shard(), group])
    (job,) = snapshot.jobs
    assert misspelt(job.problems) == [
        "PodGroup/ml/train spec.subGroups[0].minMemeber: unknown field (did you mean "
        "spec.subGroups[0].minMember?); ignored",
        "PodGroup/ml/train spec.subGroups[1].parnet: unknown field (did you mean "
        "spec.subGroups[1].parent?); ignored",
    ]
    assert [(s.name, s.min_available, s.parent) for s in job.job.pod_sets] == [
        ("workers", 1, None),
        ("chief", 1, None),
    ]


def test_a_misspelt_field_of_a_pod_group_left_out_is_said_before_why_it_is_left_out() -> None:
    snapshot = read_snapshot([queue_object("team"), shard(), pod_group(queue=None, queu="team")])
    assert snapshot.warnings == (
        "PodGroup/ml/train spec.queu: unknown field (did you mean spec.queue?); ignored",
        "PodGroup/ml/train spec.queue: missing (required); left out",
    )


@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        (
            [queue_object("team", preemptMinRunTime="5m")],
            "Queue/team spec.preemptMinRunTime: unknown field (did you mean "
            f"spec.preemptMinRuntime?); {REFUSED}",
        ),
        (
            [queue_object("team"), pod_group(minMemeber=2, preemptibility="preemptible")],
            f"PodGroup/ml/train spec.minMemeber: unknown field (did you mean spec.minMember?); "
            f"{REFUSED}",
        ),
        (
            [
                queue_object("team"),
                pod_group(
                    subGroups=[{"name": "w", "minSubGroop": 1}], preemptibility="preemptible"
                ),
            ],
            "PodGroup/ml/train spec.subGroups[0].minSubGroop: unknown field (did you mean "
            f"spec.subGroups[0].minSubGroup?); {REFUSED}",
        ),
    ],
    ids=["queue", "pod-group", "sub-group"],
)
def test_strict_reading_refuses_a_misspelt_field_and_says_so(
    objects: list[object], expected: str
) -> None:
    with pytest.raises(InvalidSnapshot) as caught:
        read_snapshot([*objects, shard()], strict=True)
    assert [str(problem) for problem in caught.value.problems] == [expected]
    assert str(caught.value) == f"the snapshot has 1 problem (strict reading):\n  - {expected}"


def test_unknown_fields_that_are_no_near_miss_are_another_programs_and_not_warned_about() -> None:
    group = pod_group(subGroups=[{"name": "w", "minMember": 1, "labels": {}}], color="red")
    snapshot = read_snapshot([queue_object("team", quota={"gpu": 4}), shard(), group])
    assert misspelt(tuple(snapshot.every_problem())) == []


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("minmember", "minMember"),  # case aside, the same: a misspelling
        ("MINMEMBER", "minMember"),
        ("minMmeber", "minMember"),  # two letters swapped: one edit
        ("mnMembr", "minMember"),  # two edits
        ("queues", "queue"),
    ],
)
def test_within_two_edits_case_aside_is_a_near_miss(key: str, meant: str) -> None:
    obj = {"kind": "PodGroup", "metadata": {"name": "g", "namespace": "ml"}}
    (problem,) = misspelt_fields(obj, "spec", {key: 1}, POD_GROUP_SPEC_FIELDS)
    assert problem.message == (
        f"PodGroup/ml/g spec.{key}: unknown field (did you mean spec.{meant}?); ignored"
    )


@pytest.mark.parametrize("key", ["mnMmbr", "minMemberCount", "x" * 101, "color"])
def test_three_edits_or_more_or_a_very_long_key_is_not_a_near_miss(key: str) -> None:
    obj = {"kind": "PodGroup", "metadata": {"name": "g"}}
    assert misspelt_fields(obj, "spec", {key: 1}, POD_GROUP_SPEC_FIELDS) == []


@pytest.mark.parametrize(
    ("a", "b", "edits"),
    [
        ("abc", "abc", 0),
        ("ab", "ba", 1),
        ("abcd", "acbd", 1),
        ("kitten", "sitting", 3),
        ("abcdef", "uvwxyz", 3),
        ("", "ab", 2),
    ],
)
def test_edits_counts_insertions_deletions_replacements_and_swaps(
    a: str, b: str, edits: int
) -> None:
    assert _edits(a, b) == edits


def test_the_known_fields_are_the_reference_crds_and_the_librarys_own() -> None:
    assert {"queue", "minMember", "subGroups", "preemptibility"} <= POD_GROUP_SPEC_FIELDS
    assert {"name", "parent", "minMember", "minSubGroup", "topologyConstraint"} == SUB_GROUP_FIELDS
    assert {"parentQueue", "preemptMinRuntime", "reclaimMinRuntime"} <= QUEUE_SPEC_FIELDS


@pytest.mark.parametrize(
    ("field", "meant"),
    [
        ("reclaimMinRunTime", "reclaimMinRuntime"),
        ("preemptMinRuntimes", "preemptMinRuntime"),
        ("parentqueue", "parentQueue"),
        ("maxEviction", "maxEvictions"),
    ],
)
def test_a_misspelt_queue_field_is_a_warning_naming_the_known_one(field: str, meant: str) -> None:
    snapshot = read_snapshot([queue_object("team", **{field: "5m"})])
    assert snapshot.warnings[0] == (
        f"Queue/team spec.{field}: unknown field (did you mean spec.{meant}?); ignored"
    )


def test_an_unrelated_queue_field_is_not_warned_about() -> None:
    snapshot = read_snapshot([queue_object("team", quota={"gpu": 4}, priority=3)])
    assert snapshot.warnings == (NO_CONFIG_WARNING,)

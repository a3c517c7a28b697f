"""Preemptibility values, their parsing and their determination (docs/spec/preemptibility.md,
docs/spec/differences.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minruntime import (
    InvalidPreemptibility,
    MinRuntimeError,
    Owner,
    Preemptibility,
    PreemptibilityResult,
    PreemptibilitySource,
    determine_preemptibility,
)
from minruntime.preemptibility import (
    LEGACY_PRIORITY_THRESHOLD,
    PREEMPTIBILITY_KEY,
    PRIORITY_BUILD,
    PRIORITY_BUILD_PREEMPTIBLE,
    PRIORITY_CLASSES,
    PRIORITY_INFERENCE,
    PRIORITY_TRAIN,
    legacy_preemptibility,
)

P = Preemptibility.PREEMPTIBLE
NP = Preemptibility.NON_PREEMPTIBLE
SEMI = Preemptibility.SEMI_PREEMPTIBLE

OWNER = PreemptibilitySource.OWNER
POD = PreemptibilitySource.POD
KIND = PreemptibilitySource.KIND_DEFAULT
LEGACY = PreemptibilitySource.LEGACY_PRIORITY
EXPLICIT = PreemptibilitySource.EXPLICIT


def key(value: str) -> dict[str, str]:
    return {PREEMPTIBILITY_KEY: value}


# -- values and parsing -------------------------------------------------------------------------


def test_the_three_values_and_their_text() -> None:
    assert [str(value) for value in Preemptibility] == [
        "preemptible",
        "non-preemptible",
        "semi-preemptible",
    ]


def test_the_label_key() -> None:
    assert PREEMPTIBILITY_KEY == "kai.scheduler/preemptibility"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("preemptible", P),
        ("Preemptible", P),
        ("PREEMPTIBLE", P),
        ("pReEmPtIbLe", P),
        ("non-preemptible", NP),
        ("Non-Preemptible", NP),
        ("NON-PREEMPTIBLE", NP),
        ("semi-preemptible", SEMI),
        ("Semi-Preemptible", SEMI),
        ("SEMI-preemptible", SEMI),
    ],
)
def test_parse_is_case_insensitive_and_accepts_the_seed_spellings(
    text: str, expected: Preemptibility
) -> None:
    assert Preemptibility.parse(text) is expected


@pytest.mark.parametrize("value", list(Preemptibility))
def test_parse_returns_a_value_unchanged(value: Preemptibility) -> None:
    assert Preemptibility.parse(value) is value


@pytest.mark.parametrize(
    "value",
    ["", "nonpreemptible", "non preemptible", "non_preemptible", " preemptible", "semi", None, 1],
)
def test_parse_rejects_anything_else_naming_value_and_origin(value: object) -> None:
    with pytest.raises(InvalidPreemptibility) as caught:
        Preemptibility.parse(value, origin="PodGroup 'ns/pg' spec.preemptibility")
    message = str(caught.value)
    assert message.startswith(
        f"invalid preemptibility {value!r} in PodGroup 'ns/pg' spec.preemptibility"
    )
    assert "'non-preemptible'" in message
    assert (caught.value.value, caught.value.origin) == (
        value,
        "PodGroup 'ns/pg' spec.preemptibility",
    )


def test_parse_without_origin_names_the_value() -> None:
    with pytest.raises(InvalidPreemptibility) as caught:
        Preemptibility.parse("maybe")
    assert str(caught.value).startswith("invalid preemptibility 'maybe' (expected")
    assert caught.value.origin is None


def test_invalid_preemptibility_is_a_value_error_and_a_minruntime_error() -> None:
    assert issubclass(InvalidPreemptibility, ValueError)
    assert issubclass(InvalidPreemptibility, MinRuntimeError)


@given(st.sampled_from(list(Preemptibility)), st.data())
def test_parse_reads_any_casing_of_any_value(value: Preemptibility, data: st.DataObject) -> None:
    """Parsing any upper/lower-case mix of a value's text gives that value."""
    flips = data.draw(st.lists(st.booleans(), min_size=len(value.value), max_size=len(value.value)))
    text = "".join(c.upper() if flip else c for c, flip in zip(value.value, flips, strict=True))
    assert Preemptibility.parse(text) is value


# -- legacy rule and priority classes -----------------------------------------------------------


def test_priority_class_constants() -> None:
    assert (PRIORITY_TRAIN, PRIORITY_BUILD_PREEMPTIBLE, PRIORITY_BUILD, PRIORITY_INFERENCE) == (
        50,
        75,
        100,
        125,
    )
    assert dict(PRIORITY_CLASSES) == {
        "train": 50,
        "build-preemptible": 75,
        "build": 100,
        "inference": 125,
    }
    assert LEGACY_PRIORITY_THRESHOLD == 100


@pytest.mark.parametrize(
    ("class_name", "expected"),
    [("train", P), ("build-preemptible", P), ("build", NP), ("inference", NP)],
)
def test_legacy_rule_on_the_priority_classes(class_name: str, expected: Preemptibility) -> None:
    assert legacy_preemptibility(PRIORITY_CLASSES[class_name]) is expected


@pytest.mark.parametrize(
    ("priority", "threshold", "expected"),
    [
        (99, 100, P),
        (100, 100, NP),
        (-5, 100, P),
        (10_000, 100, NP),
        (49, 50, P),
        (50, 50, NP),
        (124, 125, P),
        (125, 125, NP),
    ],
)
def test_legacy_rule_is_strictly_below_the_threshold(
    priority: int, threshold: int, expected: Preemptibility
) -> None:
    assert legacy_preemptibility(priority, threshold) is expected


@given(st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_legacy_rule_law(priority: int, threshold: int) -> None:
    """The legacy rule gives preemptible exactly when priority < threshold."""
    assert (legacy_preemptibility(priority, threshold) is P) is (priority < threshold)


# -- determine_preemptibility: legacy fallback ---------------------------------------------------


def test_no_source_falls_back_to_legacy_preemptible_at_99_with_a_warning() -> None:
    assert determine_preemptibility(priority=99) == PreemptibilityResult(
        P,
        LEGACY,
        "legacy rule: priority 99 < 100",
        ("no preemptibility set; legacy rule: priority 99 < 100 gives preemptible",),
    )


def test_no_source_falls_back_to_legacy_non_preemptible_at_100_with_a_warning() -> None:
    assert determine_preemptibility(priority=100) == PreemptibilityResult(
        NP,
        LEGACY,
        "legacy rule: priority 100 >= 100",
        ("no preemptibility set; legacy rule: priority 100 >= 100 gives non-preemptible",),
    )


@pytest.mark.parametrize(
    ("priority", "value", "detail"),
    [(74, P, "legacy rule: priority 74 < 75"), (75, NP, "legacy rule: priority 75 >= 75")],
)
def test_legacy_fallback_with_a_custom_threshold(
    priority: int, value: Preemptibility, detail: str
) -> None:
    result = determine_preemptibility(priority=priority, threshold=75)
    assert (result.value, result.source, result.detail) == (value, LEGACY, detail)
    assert result.warnings == (f"no preemptibility set; {detail} gives {value}",)


def test_empty_mappings_and_no_owners_fall_back_to_legacy() -> None:
    result = determine_preemptibility(
        priority=50, owners=[], pod_labels={}, pod_annotations={}, kind_defaults={}
    )
    assert (result.value, result.source) == (P, LEGACY)


# -- explicit field ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("explicit", "expected"),
    [("Non-Preemptible", NP), ("semi-preemptible", SEMI), (P, P)],
)
def test_the_explicit_field_wins_over_everything(
    explicit: Preemptibility | str, expected: Preemptibility
) -> None:
    result = determine_preemptibility(
        priority=10 if expected is NP else 125,
        explicit=explicit,
        owners=[
            Owner("Job", "j", "batch", labels=key("preemptible"), annotations=key("preemptible"))
        ],
        pod_labels=key("non-preemptible"),
        pod_annotations=key("semi-preemptible"),
        kind_defaults={"Job.batch": "preemptible", "Job": "non-preemptible"},
    )
    assert result == PreemptibilityResult(expected, EXPLICIT, "the explicit field", ())


@pytest.mark.parametrize("explicit", ["", None])
def test_an_empty_or_missing_explicit_field_is_absent(explicit: str | None) -> None:
    result = determine_preemptibility(
        priority=50, explicit=explicit, pod_labels=key("semi-preemptible")
    )
    assert result == PreemptibilityResult(SEMI, POD, "label on the pod", ())


def test_an_invalid_explicit_field_is_skipped_with_a_warning() -> None:
    result = determine_preemptibility(
        priority=50, explicit="never", pod_labels=key("Non-Preemptible")
    )
    assert result == PreemptibilityResult(
        NP,
        POD,
        "label on the pod",
        ("skipped invalid preemptibility 'never' in the explicit field",),
    )


# -- owners and the pod --------------------------------------------------------------------------


def test_the_nearest_owner_wins_over_further_owners_and_the_pod() -> None:
    owners = [
        Owner("Job", "step", "batch", labels=key("semi-preemptible")),
        Owner("JobSet", "llm", "jobset.x-k8s.io", labels=key("preemptible")),
    ]
    result = determine_preemptibility(priority=50, owners=owners, pod_labels=key("non-preemptible"))
    assert result == PreemptibilityResult(SEMI, OWNER, "label on Job/step", ())


def test_a_further_owner_is_used_when_the_nearest_has_no_value() -> None:
    owners = [
        Owner("Job", "step", "batch", labels={"app": "x"}),
        Owner("JobSet", "llm", "jobset.x-k8s.io", labels=key("Non-Preemptible")),
    ]
    result = determine_preemptibility(priority=50, owners=owners, pod_labels=key("preemptible"))
    assert result == PreemptibilityResult(NP, OWNER, "label on JobSet/llm", ())


def test_the_pod_is_consulted_after_every_owner() -> None:
    owners = [Owner("ReplicaSet", "web-1", "apps"), Owner("Deployment", "web", "apps")]
    result = determine_preemptibility(priority=125, owners=owners, pod_labels=key("preemptible"))
    assert result == PreemptibilityResult(P, POD, "label on the pod", ())


def test_label_before_annotation_on_the_same_owner() -> None:
    owner = Owner(
        "PyTorchJob",
        "llm",
        "kubeflow.org",
        labels=key("preemptible"),
        annotations=key("non-preemptible"),
    )
    result = determine_preemptibility(priority=50, owners=[owner])
    assert result == PreemptibilityResult(P, OWNER, "label on PyTorchJob/llm", ())


def test_an_owners_annotation_is_a_source() -> None:
    owner = Owner("PyTorchJob", "llm", "kubeflow.org", annotations=key("Semi-Preemptible"))
    result = determine_preemptibility(priority=50, owners=[owner])
    assert result == PreemptibilityResult(SEMI, OWNER, "annotation on PyTorchJob/llm", ())


def test_a_nearer_owners_annotation_wins_over_a_further_owners_label() -> None:
    owners = [
        Owner("Job", "step", "batch", annotations=key("non-preemptible")),
        Owner("JobSet", "llm", "jobset.x-k8s.io", labels=key("preemptible")),
    ]
    result = determine_preemptibility(priority=50, owners=owners)
    assert result == PreemptibilityResult(NP, OWNER, "annotation on Job/step", ())


def test_label_before_annotation_on_the_pod() -> None:
    result = determine_preemptibility(
        priority=50, pod_labels=key("non-preemptible"), pod_annotations=key("preemptible")
    )
    assert result == PreemptibilityResult(NP, POD, "label on the pod", ())


def test_the_pods_annotation_is_a_source() -> None:
    result = determine_preemptibility(priority=125, pod_annotations=key("PREEMPTIBLE"))
    assert result == PreemptibilityResult(P, POD, "annotation on the pod", ())


def test_an_invalid_label_on_the_nearest_owner_falls_through_to_the_next_owner() -> None:
    owners = [
        Owner("Job", "step", "batch", labels=key("soon")),
        Owner("JobSet", "llm", "jobset.x-k8s.io", labels=key("semi-preemptible")),
    ]
    result = determine_preemptibility(priority=50, owners=owners)
    assert result == PreemptibilityResult(
        SEMI,
        OWNER,
        "label on JobSet/llm",
        ("skipped invalid preemptibility 'soon' in label on Job/step",),
    )


def test_an_invalid_label_falls_through_to_the_annotation_on_the_same_owner() -> None:
    owner = Owner(
        "Job", "step", "batch", labels=key("nonpreemptible"), annotations=key("preemptible")
    )
    result = determine_preemptibility(priority=125, owners=[owner])
    assert result == PreemptibilityResult(
        P,
        OWNER,
        "annotation on Job/step",
        ("skipped invalid preemptibility 'nonpreemptible' in label on Job/step",),
    )


def test_every_invalid_value_on_the_way_is_warned_in_order() -> None:
    owners = [
        Owner("Job", "step", "batch", labels=key("a"), annotations=key("b")),
        Owner("JobSet", "llm", "jobset.x-k8s.io", labels=key("c")),
    ]
    result = determine_preemptibility(
        priority=50,
        owners=owners,
        pod_labels=key("d"),
        pod_annotations=key("e"),
        kind_defaults={"Job.batch": "f", "Job": "g", "JobSet": "Non-Preemptible"},
    )
    assert result == PreemptibilityResult(
        NP,
        KIND,
        "the default for kind 'JobSet'",
        (
            "skipped invalid preemptibility 'a' in label on Job/step",
            "skipped invalid preemptibility 'b' in annotation on Job/step",
            "skipped invalid preemptibility 'c' in label on JobSet/llm",
            "skipped invalid preemptibility 'd' in label on the pod",
            "skipped invalid preemptibility 'e' in annotation on the pod",
            "skipped invalid preemptibility 'f' in the default for kind 'Job.batch'",
            "skipped invalid preemptibility 'g' in the default for kind 'Job'",
        ),
    )


def test_an_empty_label_counts_as_absent_without_a_warning() -> None:
    owners = [
        Owner("Job", "step", "batch", labels=key(""), annotations=key("")),
        Owner("JobSet", "llm", "jobset.x-k8s.io", labels=key("preemptible")),
    ]
    result = determine_preemptibility(priority=125, owners=owners)
    assert result == PreemptibilityResult(P, OWNER, "label on JobSet/llm", ())


def test_an_empty_pod_label_falls_through_to_kind_defaults() -> None:
    result = determine_preemptibility(
        priority=50,
        owners=[Owner("Job", "step", "batch")],
        pod_labels=key(""),
        kind_defaults={"Job": "non-preemptible"},
    )
    assert result == PreemptibilityResult(NP, KIND, "the default for kind 'Job'", ())


def test_only_empty_values_fall_back_to_legacy_with_only_the_legacy_warning() -> None:
    result = determine_preemptibility(
        priority=99,
        explicit="",
        owners=[Owner("Job", "step", labels=key(""), annotations=key(""))],
        pod_labels=key(""),
        pod_annotations=key(""),
        kind_defaults={"Job": ""},
    )
    assert result == PreemptibilityResult(
        P,
        LEGACY,
        "legacy rule: priority 99 < 100",
        ("no preemptibility set; legacy rule: priority 99 < 100 gives preemptible",),
    )


def test_other_labels_are_ignored() -> None:
    owner = Owner("Job", "step", labels={"preemptibility": "preemptible", "kai.scheduler/x": "y"})
    result = determine_preemptibility(priority=125, owners=[owner])
    assert (result.value, result.source) == (NP, LEGACY)


def test_only_invalid_values_fall_back_to_legacy_with_every_warning() -> None:
    result = determine_preemptibility(
        priority=125, owners=[Owner("Job", "step", labels=key("yes"))], pod_annotations=key("no")
    )
    assert result == PreemptibilityResult(
        NP,
        LEGACY,
        "legacy rule: priority 125 >= 100",
        (
            "skipped invalid preemptibility 'yes' in label on Job/step",
            "skipped invalid preemptibility 'no' in annotation on the pod",
            "no preemptibility set; legacy rule: priority 125 >= 100 gives non-preemptible",
        ),
    )


# -- kind defaults -------------------------------------------------------------------------------


def test_kind_with_group_before_bare_kind() -> None:
    result = determine_preemptibility(
        priority=50,
        owners=[Owner("PyTorchJob", "llm", "kubeflow.org")],
        kind_defaults={"PyTorchJob": "preemptible", "PyTorchJob.kubeflow.org": "non-preemptible"},
    )
    assert result == PreemptibilityResult(
        NP, KIND, "the default for kind 'PyTorchJob.kubeflow.org'", ()
    )


def test_bare_kind_when_no_kind_with_group_default() -> None:
    result = determine_preemptibility(
        priority=125,
        owners=[Owner("PyTorchJob", "llm", "kubeflow.org")],
        kind_defaults={"PyTorchJob": "Preemptible", "PyTorchJob.other.org": "non-preemptible"},
    )
    assert result == PreemptibilityResult(P, KIND, "the default for kind 'PyTorchJob'", ())


def test_an_owner_in_the_core_group_is_looked_up_by_bare_kind() -> None:
    result = determine_preemptibility(
        priority=125,
        owners=[Owner("ReplicationController", "rc")],
        kind_defaults={
            "ReplicationController.": "non-preemptible",
            "ReplicationController": "preemptible",
        },
    )
    assert result == PreemptibilityResult(
        P, KIND, "the default for kind 'ReplicationController'", ()
    )


def test_kind_defaults_go_per_owner_nearest_first() -> None:
    owners = [Owner("Job", "step", "batch"), Owner("JobSet", "llm", "jobset.x-k8s.io")]
    result = determine_preemptibility(
        priority=50,
        owners=owners,
        kind_defaults={"JobSet.jobset.x-k8s.io": "non-preemptible", "Job": "semi-preemptible"},
    )
    assert result == PreemptibilityResult(SEMI, KIND, "the default for kind 'Job'", ())


def test_a_further_owners_kind_default_is_used_when_the_nearest_has_none() -> None:
    owners = [Owner("Job", "step", "batch"), Owner("JobSet", "llm", "jobset.x-k8s.io")]
    result = determine_preemptibility(
        priority=50, owners=owners, kind_defaults={"JobSet.jobset.x-k8s.io": "NON-PREEMPTIBLE"}
    )
    assert result == PreemptibilityResult(
        NP, KIND, "the default for kind 'JobSet.jobset.x-k8s.io'", ()
    )


@pytest.mark.parametrize(
    ("text", "expected"), [("SEMI-PREEMPTIBLE", SEMI), ("Non-Preemptible", NP), ("preemptible", P)]
)
def test_kind_default_values_are_case_insensitive(text: str, expected: Preemptibility) -> None:
    result = determine_preemptibility(
        priority=50 if expected is NP else 125,
        owners=[Owner("Job", "j", "batch")],
        kind_defaults={"Job.batch": text},
    )
    assert (result.value, result.source) == (expected, KIND)


def test_an_invalid_kind_default_is_skipped_with_a_warning() -> None:
    result = determine_preemptibility(
        priority=50,
        owners=[Owner("Job", "step", "batch")],
        kind_defaults={"Job.batch": "always", "Job": "non-preemptible"},
    )
    assert result == PreemptibilityResult(
        NP,
        KIND,
        "the default for kind 'Job'",
        ("skipped invalid preemptibility 'always' in the default for kind 'Job.batch'",),
    )


def test_labels_win_over_kind_defaults() -> None:
    result = determine_preemptibility(
        priority=50,
        owners=[Owner("JobSet", "llm", "jobset.x-k8s.io")],
        pod_annotations=key("semi-preemptible"),
        kind_defaults={"JobSet": "non-preemptible"},
    )
    assert result == PreemptibilityResult(SEMI, POD, "annotation on the pod", ())


def test_kind_defaults_without_owners_fall_back_to_legacy() -> None:
    result = determine_preemptibility(priority=50, kind_defaults={"Job": "non-preemptible"})
    assert (result.value, result.source) == (P, LEGACY)


def test_owners_may_be_any_iterable_used_for_labels_and_kind_defaults() -> None:
    owners = iter([Owner("Job", "step", "batch", labels=key("bad")), Owner("JobSet", "llm")])
    result = determine_preemptibility(
        priority=50, owners=owners, kind_defaults={"JobSet": "non-preemptible"}
    )
    assert result == PreemptibilityResult(
        NP,
        KIND,
        "the default for kind 'JobSet'",
        ("skipped invalid preemptibility 'bad' in label on Job/step",),
    )


# -- properties ----------------------------------------------------------------------------------

VALUES = st.sampled_from(["preemptible", "Non-Preemptible", "SEMI-PREEMPTIBLE", "", "bogus"])


@given(
    priority=st.integers(0, 200),
    explicit=st.one_of(st.none(), VALUES),
    labels=st.lists(st.one_of(st.none(), VALUES), max_size=3),
    pod_label=st.one_of(st.none(), VALUES),
    kind_default=st.one_of(st.none(), VALUES),
)
def test_the_first_valid_value_in_precedence_order_wins(
    priority: int,
    explicit: str | None,
    labels: list[str | None],
    pod_label: str | None,
    kind_default: str | None,
) -> None:
    """The result is the first valid value in the order explicit, owner labels nearest first,
    pod label, kind default (once per owner), else the legacy rule; every non-empty invalid value before it is
    warned about, and only the legacy fallback adds its own warning."""
    owners = [
        Owner("Kind", f"o{i}", labels={} if label is None else key(label))
        for i, label in enumerate(labels)
    ]
    result = determine_preemptibility(
        priority=priority,
        explicit=explicit,
        owners=owners,
        pod_labels=None if pod_label is None else key(pod_label),
        kind_defaults=None if kind_default is None else {"Kind": kind_default},
    )
    candidates = [(explicit, EXPLICIT)]
    candidates += [(label, OWNER) for label in labels]
    candidates += [(pod_label, POD)]
    candidates += [(kind_default, KIND)] * len(owners)
    invalid = 0
    for text, source in candidates:
        if text in (None, ""):
            continue
        if text == "bogus":
            invalid += 1
            continue
        assert (result.value, result.source) == (Preemptibility.parse(text), source)
        assert len(result.warnings) == invalid
        return
    assert (result.value, result.source) == (legacy_preemptibility(priority), LEGACY)
    assert len(result.warnings) == invalid + 1

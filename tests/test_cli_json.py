"""The JSON output (``minruntime.cli._json``): its keys and values, and its writer, byte for
byte what ``json.dumps(data, indent=2, allow_nan=False)`` writes, for any JSON data, with the
same errors."""

from __future__ import annotations

import enum
import io
import json
import re
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from tests.world import CHAT_API, FINETUNE, run

from minruntime.cli import JSON_SCHEMA_ID, main
from minruntime.cli._json import json_text


def _reference(data: Any) -> str:
    return json.dumps(data, indent=2, allow_nan=False)


class _Count(enum.IntEnum):
    ONE = 1


class _Name(enum.StrEnum):
    A = "a\u00e9"


class _Mapping(dict[str, Any]):
    pass


class _Items(list[Any]):
    pass


_SCALARS: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),  # any code point, lone surrogates and controls included
    st.sampled_from([_Count.ONE, _Name.A]),
)
_KEYS: st.SearchStrategy[Any] = st.one_of(
    st.text(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)

_DATA = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.lists(inner, max_size=3).map(_Items)
        | st.dictionaries(_KEYS, inner, max_size=4)
        | st.dictionaries(st.text(), inner, max_size=3).map(_Mapping)
    ),
    max_leaves=30,
)


def _kinds(data: Any) -> set[str]:
    if isinstance(data, dict):
        found = {"dict" if type(data) is dict else "dict subclass"}
        found |= {"non-str key" for key in data if not isinstance(key, str)}
        for item in data.values():
            found |= _kinds(item)
        return found
    if isinstance(data, list | tuple):
        found = {type(data).__name__}
        for item in data:
            found |= _kinds(item)
        return found
    return {type(data).__name__}


@given(_DATA)
def test_the_writer_writes_what_json_dumps_writes(data: Any) -> None:
    for kind in _kinds(data):
        event(kind)  # every kind of value and key is met, nested ones included
    assert json_text(data) == _reference(data)


@pytest.mark.parametrize(
    "data",
    [
        {},
        [],
        {"a": {}, "b": [], "c": [[], {}]},
        {"s": 'é \u2028 \x00 \ud800 "q" \\ /', 2: 2, 1.5: None, True: False, None: 0.1},
        [1e300, -0.0, 1e-7, 10**30, -(2**63)],
        ("t", ["u", ("v",)]),
        # equal keys of other types, and one shape of mapping written at two levels
        [{1: "a"}, {True: "b"}, {1.0: "c"}, {"k": 1}, {"k": True}, [{"k": None}]],
    ],
)
def test_the_writer_writes_what_json_dumps_writes_for_edge_values(data: Any) -> None:
    assert json_text(data) == _reference(data)


def test_the_writer_writes_nested_levels_two_spaces_apart() -> None:
    assert json_text({"a": [1, {"b": None}], "c": "d"}) == (
        '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ],\n  "c": "d"\n}'
    )


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_float_that_is_not_finite_is_refused_as_json_dumps_refuses_it(value: float) -> None:
    message = f"^{re.escape(f'Out of range float values are not JSON compliant: {value!r}')}$"
    with pytest.raises(ValueError, match=message):
        _reference({"x": [value]})
    with pytest.raises(ValueError, match=message):
        json_text({"x": [value]})


def test_what_is_not_json_data_is_refused_with_json_dumps_messages() -> None:
    for data, message in [
        ({"x": {1, 2}}, "Object of type set is not JSON serializable"),
        ({(1, 2): "tuple key"}, "keys must be str, int, float, bool or None, not tuple"),
    ]:
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            _reference(data)
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            json_text(data)


@pytest.mark.parametrize("extra", [[], ["--preemptor", "nlp-team/finetune-7b"]])
def test_the_commands_output_is_what_json_dumps_writes(extra: list[str]) -> None:
    out = io.StringIO()
    status = main(
        ["explain", "--now", "2026-11-22T12:00:00Z", "--output", "json", *extra],
        stdout=out,
        stderr=io.StringIO(),
    )
    assert status == 0
    data = json.loads(out.getvalue())
    assert data["jobs"]  # a report with jobs and decisions, and plans with a preemptor
    assert (data["plans"] is not None) is bool(extra)
    assert out.getvalue() == _reference(data) + "\n"  # numbers and key order survive a reading


TOP_KEYS = {
    "schema",
    "now",
    "sources",
    "config",
    "queues",
    "podGroups",
    "running",
    "leftOut",
    "queueTree",
    "preemptor",
    "jobs",
    "plans",
    "retryAt",
    "warnings",
}


CONFIG_KEYS = {"defaultPreemptMinRuntime", "defaultReclaimMinRuntime", "reclaimResolveMethod"}


JOB_KEYS = {
    "id",
    "queue",
    "priority",
    "priorityClass",
    "preemptibility",
    "preemptibilitySource",
    "preemptibilityDetail",
    "startTime",
    "pods",
    "subGroupTree",
    "preempt",
    "protection",
    "decision",
}


PODS_KEYS = {"total", "active"}


PREEMPT_KEYS = {"minRuntime", "source", "protectedUntil", "protected"}


DECISION_KEYS = {
    "action",
    "allowed",
    "reason",
    "minRuntime",
    "source",
    "protectedUntil",
    "protectedBy",
    "delayedUntil",
    "optionalSubGroups",
    "evictable",
    "notes",
    "explanation",
    "unsavedWork",
    "unsavedWorkUnit",
    "rank",
}


PREEMPTOR_KEYS = {"id", "queue", "priority", "hypothetical", "pendingPods", "need"}


PLAN_KEYS = {
    "action",
    "need",
    "freed",
    "missing",
    "enough",
    "unsavedWork",
    "retryAt",
    "searchBackoff",
    "victims",
}


PLAN_VICTIM_KEYS = {"id", "pods", "unsavedWork", "unsavedWorkUnit"}


@pytest.mark.parametrize(
    "extra",
    [[], ["--preemptor", FINETUNE], ["--preemptor", CHAT_API], ["--preemptor-queue", "sandbox"]],
)
def test_json_output_has_exactly_the_documented_keys(extra: list[str]) -> None:
    """A change to this set is a change of the format: bump JSON_SCHEMA_ID with it."""
    report = run(["explain", *extra, "--output", "json"]).report
    assert report["schema"] == JSON_SCHEMA_ID == "minruntime.explain/v4"
    assert set(report) == TOP_KEYS
    assert set(report["config"]) == CONFIG_KEYS
    assert len(report["jobs"]) == 20
    for job in report["jobs"]:
        assert set(job) == JOB_KEYS
        assert set(job["pods"]) == PODS_KEYS
        assert set(job["preempt"]) == PREEMPT_KEYS
        if extra:
            assert set(job["decision"]) == DECISION_KEYS
        else:
            assert job["decision"] is None
    if extra:
        assert set(report["preemptor"]) == PREEMPTOR_KEYS
        for plan in report["plans"]:
            assert set(plan) == PLAN_KEYS
            assert all(set(victim) == PLAN_VICTIM_KEYS for victim in plan["victims"])
    else:
        assert report["preemptor"] is None
        assert report["retryAt"] is None


def test_json_output_values_for_one_job() -> None:
    report = run(["explain", "--preemptor", CHAT_API, "--output", "json"]).report
    (vit,) = [job for job in report["jobs"] if job["id"] == "vision-team/vit-pretrain"]
    assert vit == {
        "id": "vision-team/vit-pretrain",
        "queue": "research-vision",
        "priority": 100,
        "priorityClass": "build",
        "preemptibility": "preemptible",
        "preemptibilitySource": "owner",
        "preemptibilityDetail": vit["preemptibilityDetail"],
        "startTime": "2026-11-22T11:00:00Z",
        "pods": {"total": 7, "active": 7},
        "subGroupTree": None,
        "preempt": {
            "minRuntime": "10m",
            "source": "research",
            "protectedUntil": "2026-11-22T11:10:00Z",
            "protected": False,
        },
        "protection": "not protected",
        "decision": {
            "action": "reclaim",
            "allowed": True,
            "reason": "eligible",
            "minRuntime": "30m",
            "source": "research",
            "protectedUntil": "2026-11-22T11:30:00Z",
            "protectedBy": None,
            "delayedUntil": None,
            "optionalSubGroups": [],
            "evictable": [
                "vit-pretrain-worker-5",
                "vit-pretrain-worker-4",
                "vit-pretrain-worker-3",
                "vit-pretrain-worker-2",
                "vit-pretrain-worker-1",
                "vit-pretrain-worker-0",
                "vit-pretrain-master-0",
            ],
            "notes": [],
            "explanation": vit["decision"]["explanation"],
            # one hour since its start (no checkpoint) times 7 pods of 8 GPUs
            "unsavedWork": 201600.0,
            "unsavedWorkUnit": "GPU-hours",
            "rank": 11,
        },
    }
    assert "PyTorchJob/vit-pretrain" in vit["preemptibilityDetail"]
    assert vit["decision"]["explanation"].startswith(
        "reclaim of 'vision-team/vit-pretrain' by 'serving/chat-api': allowed: "
    )

"""The reference scheduler's failed-search backoff (``minruntime.kube._backoff``):
``scenarioSearchBudgets`` with ``minFailedSearchBackoff``/``maxFailedSearchBackoff`` per action
or as a default, read from the SchedulingShard's ``spec`` or the scheduler config
(docs/spec/kubernetes.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.world import config_map, queue_object, shard

from minruntime import Action, InvalidSnapshot, MinRuntime
from minruntime.kube import ProblemKind, SearchBackoff, read_snapshot

IGNORED = "ignored (the reference scheduler then applies no failed-search backoff)"


def backoff(minimum: str, maximum: str) -> SearchBackoff:
    return SearchBackoff(MinRuntime.parse(minimum), MinRuntime.parse(maximum))


def read(budgets: Any) -> Any:
    return read_snapshot([queue_object("q"), shard(scenarioSearchBudgets=budgets)])


@pytest.mark.parametrize(
    ("budgets", "expected"),
    [
        (
            {
                "minFailedSearchBackoff": {"default": "10s"},
                "maxFailedSearchBackoff": {"default": "1m"},
            },
            {Action.PREEMPT: backoff("10s", "1m"), Action.RECLAIM: backoff("10s", "1m")},
        ),
        (
            {
                "minFailedSearchBackoff": {"default": "10s", "reclaim": "20s"},
                "maxFailedSearchBackoff": {"default": "1m", "reclaim": "2m"},
            },
            {Action.PREEMPT: backoff("10s", "1m"), Action.RECLAIM: backoff("20s", "2m")},
        ),
        (
            {"minFailedSearchBackoff": {"default": "10s", "preempt": "0s"}},
            {Action.RECLAIM: backoff("10s", "10s")},
        ),
        ({"minFailedSearchBackoff": {"reclaim": "10s"}}, {Action.RECLAIM: backoff("10s", "10s")}),
        (
            {
                "minFailedSearchBackoff": {"reclaim": "1m"},
                "maxFailedSearchBackoff": {"default": "10s"},
            },
            {Action.RECLAIM: backoff("1m", "1m")},
        ),
        (
            {"minFailedSearchBackoff": {"consolidation": "10s", "preempt": "1m30s"}},
            {Action.PREEMPT: backoff("1m30s", "1m30s")},
        ),
    ],
    ids=[
        "the-default-applies-to-every-action",
        "an-actions-own-wins-over-the-default",
        "zero-disables-it-for-one-action",
        "the-maximum-defaults-to-the-minimum",
        "a-maximum-below-the-minimum-is-raised-to-it",
        "another-actions-setting-is-not-read",
    ],
)
def test_the_backoff_of_each_action(budgets: Any, expected: dict[Action, SearchBackoff]) -> None:
    snapshot = read(budgets)
    assert snapshot.search_backoff == expected
    assert snapshot.warnings == ()


@pytest.mark.parametrize(
    "budgets",
    [None, {}, {"maxJobSearchDuration": "1m"}, {"maxFailedSearchBackoff": {"default": "1m"}}],
)
def test_no_minimum_is_no_backoff(budgets: Any) -> None:
    snapshot = read(budgets)
    assert (snapshot.search_backoff, snapshot.warnings) == (None, ())


@pytest.mark.parametrize(
    ("budgets", "warning"),
    [
        (
            {"minFailedSearchBackoff": {"reclaim": "-1s"}},
            "SchedulingShard/default spec.scenarioSearchBudgets.minFailedSearchBackoff['reclaim']: "
            "invalid duration '-1s': negative durations are not allowed (expected e.g. '10m', "
            f"'1h30m', '2d', 0, or -1/'never' for never); {IGNORED}",
        ),
        (
            {
                "minFailedSearchBackoff": {"default": "10s"},
                "maxFailedSearchBackoff": {"preempt": 60},
            },
            "SchedulingShard/default spec.scenarioSearchBudgets.maxFailedSearchBackoff['preempt']: "
            f"expected a duration string, got 60; {IGNORED}",
        ),
        (
            {"minFailedSearchBackoff": "10s"},
            "SchedulingShard/default spec.scenarioSearchBudgets.minFailedSearchBackoff: expected "
            f"an object of durations by action, got '10s'; {IGNORED}",
        ),
        (
            ["10s"],
            "SchedulingShard/default spec.scenarioSearchBudgets: expected an object, got ['10s']; "
            "ignored",
        ),
    ],
    ids=["negative", "not-a-string", "not-a-mapping", "budgets-not-a-mapping"],
)
def test_an_unreadable_backoff_is_a_warning_and_no_backoff_as_in_the_reference(
    budgets: Any, warning: str
) -> None:
    snapshot = read(budgets)
    assert snapshot.search_backoff is None
    assert snapshot.warnings == (warning,)
    assert [problem.kind for problem in snapshot.problems] == [ProblemKind.IGNORED]


def test_strict_reading_refuses_an_unreadable_backoff() -> None:
    objects = [
        queue_object("q"),
        shard(scenarioSearchBudgets={"minFailedSearchBackoff": {"default": "soon"}}),
    ]
    with pytest.raises(InvalidSnapshot) as caught:
        read_snapshot(objects, strict=True)
    assert [str(problem) for problem in caught.value.problems] == [
        "SchedulingShard/default spec.scenarioSearchBudgets.minFailedSearchBackoff['default']: "
        "invalid duration 'soon': expected a number at 'soon' (expected e.g. '10m', '1h30m', "
        "'2d', 0, or -1/'never' for never); the snapshot is refused (strict reading)"
    ]


def test_a_misspelt_budget_field_is_a_warning() -> None:
    snapshot = read({"minFailedSearchBackof": {"default": "10s"}})
    assert snapshot.search_backoff is None
    assert snapshot.warnings == (
        "SchedulingShard/default spec.scenarioSearchBudgets.minFailedSearchBackof: unknown field "
        "(did you mean spec.scenarioSearchBudgets.minFailedSearchBackoff?); ignored",
    )


def test_the_scheduler_config_documents_budgets_win_over_the_shards() -> None:
    document = {
        "tiers": [{"plugins": [{"name": "minruntime"}]}],
        "scenarioSearchBudgets": {"minFailedSearchBackoff": {"reclaim": "15s"}},
    }
    objects = [
        queue_object("q"),
        config_map("scheduler-config", {"config.yaml": json.dumps(document)}),
        shard(scenarioSearchBudgets={"minFailedSearchBackoff": {"default": "1h"}}),
    ]
    snapshot = read_snapshot(objects)
    assert snapshot.search_backoff == {Action.RECLAIM: backoff("15s", "15s")}
    assert snapshot.warnings == (
        "SchedulingShard/default ignored: the scheduler config takes precedence",
    )


def test_an_unreadable_backoff_in_the_scheduler_config_names_the_configmap_entry() -> None:
    document = {
        "tiers": [{"plugins": [{"name": "minruntime"}]}],
        "scenarioSearchBudgets": {"maxFailedSearchBackoff": {"default": "-5m"}},
    }
    snapshot = read_snapshot(
        [queue_object("q"), config_map("scheduler-config", {"config.yaml": json.dumps(document)})]
    )
    assert snapshot.search_backoff is None
    assert snapshot.warnings == (
        "ConfigMap/kai-scheduler/scheduler-config data['config.yaml'].scenarioSearchBudgets."
        "maxFailedSearchBackoff['default']: invalid duration '-5m': negative durations are not "
        f"allowed (expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never); {IGNORED}",
    )

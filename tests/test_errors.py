"""The error hierarchy: one base, builtin bases, attributes and messages (docs/spec/errors.md)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest

import minruntime
from minruntime import (
    Config,
    InvalidConfiguration,
    InvalidDuration,
    InvalidPreemptibility,
    InvalidQueueTree,
    InvalidScenario,
    InvalidTimestamp,
    MinRuntime,
    MinRuntimeError,
    Preemptibility,
    Queue,
    QueueTree,
    Session,
    UnknownQueue,
)
from minruntime import errors as errors_module

VALUE_ERRORS: list[type[MinRuntimeError]] = [
    InvalidDuration,
    InvalidPreemptibility,
    InvalidTimestamp,
    InvalidQueueTree,
    InvalidConfiguration,
    InvalidScenario,
]


# -- the hierarchy --------------------------------------------------------------------------------


@pytest.mark.parametrize("error_type", VALUE_ERRORS, ids=lambda t: t.__name__)
def test_value_errors_derive_from_the_base_and_value_error(
    error_type: type[MinRuntimeError],
) -> None:
    assert issubclass(error_type, MinRuntimeError)
    assert issubclass(error_type, ValueError)
    assert not issubclass(error_type, LookupError)


def test_unknown_queue_derives_from_the_base_and_lookup_error() -> None:
    assert issubclass(UnknownQueue, MinRuntimeError)
    assert issubclass(UnknownQueue, LookupError)
    assert not issubclass(UnknownQueue, ValueError)


def test_base_is_an_exception_and_no_builtin_subclass() -> None:
    assert issubclass(MinRuntimeError, Exception)
    assert not issubclass(MinRuntimeError, ValueError)
    assert not issubclass(MinRuntimeError, LookupError)


SECTION_14_ERRORS = {
    "InvalidConfiguration",
    "InvalidDuration",
    "InvalidPreemptibility",
    "InvalidQueueTree",
    "InvalidScenario",
    "InvalidTimestamp",
    "MinRuntimeError",
    "UnknownQueue",
}


def test_section_14_errors_are_exported_from_the_package() -> None:
    for name in SECTION_14_ERRORS:
        assert name in errors_module.__all__
        assert name in minruntime.__all__
        assert getattr(minruntime, name) is getattr(errors_module, name)


def test_every_error_class_derives_from_the_base_and_a_builtin() -> None:
    error_types = [
        getattr(errors_module, name)
        for name in errors_module.__all__
        if isinstance(getattr(errors_module, name), type)
        and issubclass(getattr(errors_module, name), BaseException)
    ]
    assert {t.__name__ for t in error_types} >= SECTION_14_ERRORS
    for error_type in error_types:
        assert issubclass(error_type, MinRuntimeError)
        if error_type is not MinRuntimeError:
            assert issubclass(error_type, ValueError | LookupError), error_type.__name__


def test_except_value_error_catches_a_bad_duration() -> None:
    with pytest.raises(ValueError, match="invalid duration 'soon'") as caught:
        MinRuntime.parse("soon")
    assert type(caught.value) is InvalidDuration


def test_except_lookup_error_catches_an_unknown_queue() -> None:
    with pytest.raises(LookupError, match="queue 'b' is not in the tree") as caught:
        QueueTree([Queue("a")]).depth("b")
    assert type(caught.value) is UnknownQueue


# -- attributes and messages ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "error_type",
    [InvalidDuration, InvalidPreemptibility, InvalidTimestamp],
    ids=lambda t: t.__name__,
)
def test_value_and_origin_attributes_hold_what_was_given(
    error_type: type[InvalidDuration | InvalidPreemptibility | InvalidTimestamp],
) -> None:
    value = ["the", "bad", "value"]
    error = error_type("the message", value=value, origin="the origin")
    assert error.value is value
    assert error.origin == "the origin"
    assert str(error) == "the message"
    assert error.args == ("the message",)
    bare = error_type("only a message")
    assert bare.value is None
    assert bare.origin is None


def test_invalid_duration_from_parse_holds_value_and_origin() -> None:
    origin = "Queue 'prod' spec.reclaimMinRuntime"
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime.parse("1x", origin=origin)
    assert caught.value.value == "1x"
    assert caught.value.origin == origin
    assert str(caught.value) == (
        "invalid duration '1x' in Queue 'prod' spec.reclaimMinRuntime: unknown unit 'x' "
        "(expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)"
    )


def test_invalid_preemptibility_from_parse_holds_value_and_origin() -> None:
    with pytest.raises(InvalidPreemptibility) as caught:
        Preemptibility.parse("sometimes", origin="PodGroup 'ns/job' label")
    assert caught.value.value == "sometimes"
    assert caught.value.origin == "PodGroup 'ns/job' label"
    assert "'sometimes'" in str(caught.value)
    assert "PodGroup 'ns/job' label" in str(caught.value)


def test_invalid_timestamp_from_session_holds_value_and_origin() -> None:
    naive = datetime(2026, 1, 1)
    with pytest.raises(InvalidTimestamp) as caught:
        Session(QueueTree([]), Config(), now=naive)
    assert caught.value.value == naive
    assert caught.value.origin == "the session's now"
    assert str(caught.value) == (
        "naive datetime 2026-01-01 00:00:00 for the session's now: give a timezone-aware "
        "datetime (for example with tzinfo=timezone.utc) or POSIX seconds"
    )


def test_unknown_queue_holds_the_name() -> None:
    error = UnknownQueue("team-a")
    assert error.name == "team-a"
    assert str(error) == "queue 'team-a' is not in the tree"
    with pytest.raises(UnknownQueue) as caught:
        QueueTree([Queue("a")])["missing"]
    assert caught.value.name == "missing"
    assert str(caught.value) == "queue 'missing' is not in the tree"


def test_invalid_scenario_carries_its_message() -> None:
    error = InvalidScenario("job 'j' has no task 't9' (its pod sets: 'default')")
    assert str(error) == "job 'j' has no task 't9' (its pod sets: 'default')"
    assert isinstance(error, ValueError)


def test_invalid_queue_tree_lists_every_problem() -> None:
    problems = ["duplicate queue name 'a' (2 queues)", "cycle in parent links: 'b' -> 'c' -> 'b'"]
    error = InvalidQueueTree(problems)
    assert error.problems == tuple(problems)
    assert error.origin is None
    assert str(error) == (
        "invalid queue tree: 2 problems:\n"
        "  - duplicate queue name 'a' (2 queues)\n"
        "  - cycle in parent links: 'b' -> 'c' -> 'b'"
    )


def test_invalid_queue_tree_with_one_problem_and_an_origin() -> None:
    error = InvalidQueueTree(
        iter(["queue 'c' has parent 'x', which is not in the tree"]), origin="snapshot.json"
    )
    assert error.problems == ("queue 'c' has parent 'x', which is not in the tree",)
    assert error.origin == "snapshot.json"
    assert str(error) == (
        "invalid queue tree (snapshot.json): 1 problem:\n"
        "  - queue 'c' has parent 'x', which is not in the tree"
    )


def test_invalid_queue_tree_from_a_tree_reports_all_problems_at_once() -> None:
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree(
            [Queue("a", parent="b"), Queue("b", parent="a"), Queue("c", parent="x"), Queue("c")]
        )
    assert caught.value.problems == (
        "duplicate queue name 'c' (2 queues)",
        "queue 'c' has parent 'x', which is not in the tree",
        "cycle in parent links: 'a' -> 'b' -> 'a'",
    )
    message = str(caught.value)
    assert message.startswith("invalid queue tree: 3 problems:")
    for problem in caught.value.problems:
        assert f"\n  - {problem}" in message


def test_invalid_configuration_with_one_problem_is_one_line() -> None:
    error = InvalidConfiguration(["reclaimResolveMethod: invalid value 'LCA'"], origin="args")
    assert error.problems == ("reclaimResolveMethod: invalid value 'LCA'",)
    assert error.origin == "args"
    assert str(error) == "invalid configuration in args: reclaimResolveMethod: invalid value 'LCA'"
    assert str(InvalidConfiguration(["x: bad"])) == "invalid configuration: x: bad"


def test_invalid_configuration_lists_every_problem() -> None:
    error = InvalidConfiguration(
        (p for p in ["defaultPreemptMinRuntime: bad '5'", "reclaimResolveMethod: bad 'x'"]),
        origin="scheduler config",
    )
    assert error.problems == ("defaultPreemptMinRuntime: bad '5'", "reclaimResolveMethod: bad 'x'")
    assert str(error) == (
        "invalid configuration in scheduler config: 2 problems:\n"
        "  - defaultPreemptMinRuntime: bad '5'\n"
        "  - reclaimResolveMethod: bad 'x'"
    )


def test_invalid_configuration_from_arguments_names_every_key_and_value() -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments(
            {"defaultPreemptMinRuntime": "5", "reclaimResolveMethod": "LCA"}
        )
    assert len(caught.value.problems) == 2
    assert caught.value.problems[0].startswith("defaultPreemptMinRuntime: invalid duration '5'")
    assert caught.value.problems[1] == (
        "reclaimResolveMethod: invalid value 'LCA' (expected 'lca' or 'queue')"
    )
    assert caught.value.origin == "minruntime plugin arguments"


def test_base_catches_errors_from_every_part_of_the_library() -> None:
    caught: list[str] = []
    attempts: list[Callable[[], object]] = [
        lambda: MinRuntime.parse("-5s"),
        lambda: Preemptibility.parse(""),
        lambda: Session(QueueTree([]), Config(), now=True),
        lambda: QueueTree([Queue("a", parent="a")]),
        lambda: QueueTree([]).depth("a"),
        lambda: Config(reclaim_resolve_method="Queue"),
    ]
    for attempt in attempts:
        try:
            attempt()
        except MinRuntimeError as error:
            caught.append(type(error).__name__)
    assert caught == [
        "InvalidDuration",
        "InvalidPreemptibility",
        "InvalidTimestamp",
        "InvalidQueueTree",
        "UnknownQueue",
        "InvalidConfiguration",
    ]

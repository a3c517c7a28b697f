"""Queue and QueueTree: validation that reports every problem, and the tree queries
(docs/spec/queue-tree.md)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import attrs
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import (
    InvalidDuration,
    InvalidQueueTree,
    MinRuntime,
    MinRuntimeError,
    ProtectionSettings,
    Queue,
    QueueTree,
    UnknownQueue,
)
from minruntime.queues import _common_prefix_length as common_prefix_length
from minruntime.testing import queue_trees

SECOND = 10**9


def design_tree() -> QueueTree:
    """The design document's tree: A > B > {C > {leaf1, leaf2}, D > leaf3}, plus a second tree Z > z1."""
    return QueueTree(
        [
            Queue("A"),
            Queue("B", parent="A"),
            Queue("C", parent="B"),
            Queue("D", parent="B"),
            Queue("leaf1", parent="C"),
            Queue("leaf2", parent="C"),
            Queue("leaf3", parent="D"),
            Queue("Z"),
            Queue("z1", parent="Z"),
        ]
    )


def problems_of(queues: list[Queue], **kwargs: Any) -> tuple[str, ...]:
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree(queues, **kwargs)
    return caught.value.problems


def record_problems(records: list[Any], **kwargs: Any) -> tuple[str, ...]:
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree.from_records(records, **kwargs)
    return caught.value.problems


EXPECTED_FORM = "(expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)"

# ---------------------------------------------------------------------------------------------
# Queue
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "nanoseconds"),
    [
        ("10m", 600 * SECOND),
        ("1h30m", 5400 * SECOND),
        ("1.5h", 5400 * SECOND),
        (".5s", SECOND // 2),
        ("+5s", 5 * SECOND),
        ("2d4h30m", (2 * 86_400 + 4 * 3600 + 30 * 60) * SECOND),
        ("5w4d12h", 3_412_800 * SECOND),
        ("250ms", 250_000_000),
        ("7us", 7_000),
        ("7µs", 7_000),
        ("7μs", 7_000),
        ("3ns", 3),
        ("0", 0),
        (0, 0),
        (600, 600 * SECOND),
        (0.25, SECOND // 4),
        (timedelta(minutes=10), 600 * SECOND),
        (MinRuntime("90s"), 90 * SECOND),
    ],
)
@pytest.mark.parametrize("field", ["preempt_min_runtime", "reclaim_min_runtime"])
def test_queue_field_accepts_every_duration_spelling(
    field: str, spelling: Any, nanoseconds: int
) -> None:
    queue = Queue("prod", **{field: spelling})
    value = getattr(queue, field)
    assert value == MinRuntime.from_nanoseconds(nanoseconds)
    assert value.nanoseconds == nanoseconds


@pytest.mark.parametrize("spelling", [-1, "-1", "never", "NEVER", "Never", -1.0])
@pytest.mark.parametrize("field", ["preempt_min_runtime", "reclaim_min_runtime"])
def test_queue_field_accepts_every_never_spelling(field: str, spelling: Any) -> None:
    value = getattr(Queue("prod", **{field: spelling}), field)
    assert value is MinRuntime.NEVER
    assert value.is_never


def test_queue_fields_default_to_unset_and_parent_to_none() -> None:
    queue = Queue("prod")
    assert (queue.name, queue.parent, queue.preempt_min_runtime, queue.reclaim_min_runtime) == (
        "prod",
        None,
        None,
        None,
    )


def test_queue_empty_parent_string_means_top_level() -> None:
    assert Queue("prod", parent="").parent is None
    assert Queue("prod", parent=None).parent is None
    assert Queue("prod", parent="org").parent == "org"


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("reclaim_min_runtime", "1x", "unknown unit 'x'"),
        ("reclaim_min_runtime", "5", "a bare number needs a unit"),
        ("reclaim_min_runtime", "", "empty string"),
        ("reclaim_min_runtime", "-5s", "negative durations are not allowed"),
        ("reclaim_min_runtime", -2, "negative durations are not allowed"),
        ("reclaim_min_runtime", " 10m", "whitespace is not allowed"),
        ("preempt_min_runtime", True, "a boolean is not a duration"),
        ("preempt_min_runtime", float("nan"), "not a finite number"),
        ("preempt_min_runtime", [10], "unsupported type list"),
    ],
)
def test_queue_bad_duration_raises_invalid_duration_naming_queue_and_field(
    field: str, value: Any, why: str
) -> None:
    with pytest.raises(InvalidDuration) as caught:
        Queue("prod", **{field: value})
    message = str(caught.value)
    assert message == (f"invalid duration {value!r} in Queue 'prod' {field}: {why} {EXPECTED_FORM}")
    assert caught.value.origin == f"Queue 'prod' {field}"
    assert caught.value.value == value or value != value  # NaN is never equal to itself
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, MinRuntimeError)


def test_queue_bad_reclaim_value_names_queue_prod_reclaim_min_runtime() -> None:
    with pytest.raises(InvalidDuration, match=r"'1h-30m' in Queue 'prod' reclaim_min_runtime"):
        Queue("prod", reclaim_min_runtime="1h-30m")


@pytest.mark.parametrize("name", [5, "", None, b"prod"])
def test_queue_name_must_be_a_non_empty_string(name: Any) -> None:
    with pytest.raises(InvalidQueueTree) as caught:
        Queue(name)
    assert caught.value.problems == (f"a queue name must be a non-empty string, got {name!r}",)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("parent", [5, b"org", ["org"]])
def test_queue_parent_must_be_a_string_or_none(parent: Any) -> None:
    with pytest.raises(InvalidQueueTree) as caught:
        Queue("team", parent=parent)
    assert caught.value.problems == (
        f"queue 'team' has parent {parent!r}: expected a queue name or None",
    )


def test_queue_is_frozen_and_evolve_reparses_values() -> None:
    queue = Queue("prod", parent="org", reclaim_min_runtime="10m")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        queue.name = "other"  # type: ignore[misc]
    changed = attrs.evolve(queue, preempt_min_runtime="1h")
    assert changed == Queue("prod", parent="org", preempt_min_runtime=3600, reclaim_min_runtime=600)
    assert changed.preempt_min_runtime == MinRuntime("1h")


def test_queue_equality_is_by_value_of_every_field() -> None:
    assert Queue("a", "b", "10m", "1h") == Queue("a", "b", 600, timedelta(hours=1))
    assert Queue("a", "b", "10m") != Queue("a", "b", "10m", "1h")
    assert Queue("a") != Queue("a", "b")


# ---------------------------------------------------------------------------------------------
# Building: every problem in one error
# ---------------------------------------------------------------------------------------------


def test_empty_tree_is_valid_and_empty() -> None:
    tree = QueueTree([])
    assert (len(tree), list(tree), tree.children(None), tree.warnings) == (0, [], (), ())


def test_duplicate_names_are_rejected_with_their_count() -> None:
    assert problems_of([Queue("a"), Queue("a", parent=None), Queue("b"), Queue("a")]) == (
        "duplicate queue name 'a' (3 queues)",
    )


def test_unknown_parent_is_rejected_naming_queue_and_parent() -> None:
    assert problems_of([Queue("org"), Queue("team", parent="gone")]) == (
        "queue 'team' has parent 'gone', which is not in the tree",
    )


def test_self_parent_is_a_cycle() -> None:
    assert problems_of([Queue("a", parent="a")]) == ("cycle in parent links: 'a' -> 'a'",)


def test_two_cycle_is_rejected_whatever_the_input_order() -> None:
    expected = ("cycle in parent links: 'a' -> 'b' -> 'a'",)
    assert problems_of([Queue("a", parent="b"), Queue("b", parent="a")]) == expected
    assert problems_of([Queue("b", parent="a"), Queue("a", parent="b")]) == expected


def test_three_cycle_is_rejected_starting_at_its_smallest_name() -> None:
    queues = [Queue("c", parent="a"), Queue("b", parent="c"), Queue("a", parent="b")]
    assert problems_of(queues) == ("cycle in parent links: 'a' -> 'b' -> 'c' -> 'a'",)
    assert problems_of(queues[::-1]) == ("cycle in parent links: 'a' -> 'b' -> 'c' -> 'a'",)


def test_chain_leading_into_a_cycle_reports_the_cycle_once() -> None:
    cycle = [Queue("a", parent="b"), Queue("b", parent="a")]
    chain = [Queue("x", parent="a"), Queue("y", parent="x")]
    expected = ("cycle in parent links: 'a' -> 'b' -> 'a'",)
    assert problems_of(chain + cycle) == expected
    assert problems_of(cycle + chain) == expected


def test_several_problems_are_all_listed_in_one_error() -> None:
    queues = [
        Queue("ok"),
        Queue("dup"),
        Queue("dup", parent="ok"),
        Queue("self", parent="self"),
        Queue("orphan", parent="missing"),
        Queue("p", parent="q"),
        Queue("q", parent="p"),
        Queue("r1", parent="r3"),
        Queue("r2", parent="r1"),
        Queue("r3", parent="r2"),
        Queue("tail", parent="r2"),
        Queue("lost", parent="nowhere"),
    ]
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree(queues)
    expected = (
        "duplicate queue name 'dup' (2 queues)",
        "queue 'orphan' has parent 'missing', which is not in the tree",
        "queue 'lost' has parent 'nowhere', which is not in the tree",
        "cycle in parent links: 'self' -> 'self'",
        "cycle in parent links: 'p' -> 'q' -> 'p'",
        "cycle in parent links: 'r1' -> 'r3' -> 'r2' -> 'r1'",
    )
    assert caught.value.problems == expected
    assert str(caught.value) == "invalid queue tree: 6 problems:" + "".join(
        f"\n  - {problem}" for problem in expected
    )


def test_a_non_queue_item_is_a_problem_naming_it() -> None:
    assert problems_of([Queue("a"), "b", Queue("c", parent="x")]) == (  # type: ignore[list-item]
        "expected a Queue, got str 'b'",
        "queue 'c' has parent 'x', which is not in the tree",
    )


def test_invalid_queue_tree_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="cycle in parent links: 'a' -> 'a'"):
        QueueTree([Queue("a", parent="a")])


def test_orphan_becomes_top_level_on_request_with_a_warning() -> None:
    tree = QueueTree(
        [Queue("org"), Queue("team", parent="org"), Queue("gone", parent="x"), Queue("g2", "gone")],
        orphans_as_top_level=True,
    )
    assert tree.warnings == (
        "queue 'gone' has parent 'x', which is not in the tree; treated as top-level",
    )
    assert tree.parent("gone") is None
    assert tree["gone"].parent == "x"
    assert (tree.depth("gone"), tree.depth("g2")) == (0, 1)
    assert tree.path("g2") == ("gone", "g2")
    assert tree.children(None) == ("org", "gone")
    assert tree.lca("g2", "team") is None


def test_orphans_as_top_level_still_rejects_cycles_and_duplicates() -> None:
    queues = [Queue("a", parent="b"), Queue("b", parent="a"), Queue("c", "x"), Queue("c")]
    assert problems_of(queues, orphans_as_top_level=True) == (
        "duplicate queue name 'c' (2 queues)",
        "cycle in parent links: 'a' -> 'b' -> 'a'",
    )


def test_tree_without_orphans_has_no_warnings() -> None:
    assert design_tree().warnings == ()


# ---------------------------------------------------------------------------------------------
# from_records
# ---------------------------------------------------------------------------------------------


def test_from_records_builds_queues_with_parsed_values() -> None:
    tree = QueueTree.from_records(
        [
            {"name": "org", "reclaim_min_runtime": "1h", "preempt_min_runtime": -1},
            {"name": "team", "parent": "org", "preempt_min_runtime": 90},
            {"name": "solo", "parent": ""},
        ]
    )
    assert list(tree) == ["org", "team", "solo"]
    assert tree["org"] == Queue("org", preempt_min_runtime="never", reclaim_min_runtime="60m")
    assert tree["team"] == Queue("team", parent="org", preempt_min_runtime="1m30s")
    assert tree.parent("solo") is None


def test_from_records_reports_bad_durations_of_several_records_with_tree_problems() -> None:
    records: list[dict[str, Any]] = [
        {"name": "a", "preempt_min_runtime": "5", "reclaim_min_runtime": "x"},
        {"name": "b", "reclaim_min_runtime": True},
        {"name": "c", "parent": "zz"},
        {"name": "d", "bogus": 1},
        {"name": ""},
        {"name": "e", "parent": "e"},
        {"name": "f"},
        {"name": "f"},
    ]
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree.from_records(records, origin="queues.yaml")
    expected = (
        f"invalid duration '5' in Queue 'a' preempt_min_runtime: a bare number needs a unit {EXPECTED_FORM}",
        f"invalid duration 'x' in Queue 'a' reclaim_min_runtime: expected a number at 'x' {EXPECTED_FORM}",
        f"invalid duration True in Queue 'b' reclaim_min_runtime: a boolean is not a duration {EXPECTED_FORM}",
        "queue 'd': unknown keys ['bogus']",
        "record 4: a queue name must be a non-empty string, got ''",
        "duplicate queue name 'f' (2 queues)",
        "queue 'c' has parent 'zz', which is not in the tree",
        "cycle in parent links: 'e' -> 'e'",
    )
    assert caught.value.problems == expected
    assert caught.value.origin == "queues.yaml"
    assert str(caught.value).startswith("invalid queue tree (queues.yaml): 8 problems:\n  - ")


def test_from_records_bad_parent_type_is_reported() -> None:
    assert record_problems([{"name": "a", "parent": 5}, {"name": "b", "parent": "x"}]) == (
        "queue 'a' has parent 5: expected a queue name or None",
        "queue 'b' has parent 'x', which is not in the tree",
    )


def test_from_records_bad_value_does_not_hide_its_queue_from_the_tree() -> None:
    """A record with a bad value still exists: its children are not reported as orphans."""
    assert record_problems(
        [{"name": "org", "reclaim_min_runtime": "1x"}, {"name": "team", "parent": "org"}]
    ) == (
        f"invalid duration '1x' in Queue 'org' reclaim_min_runtime: unknown unit 'x' {EXPECTED_FORM}",
    )


def test_from_records_bad_value_does_not_hide_tree_problems_of_its_record() -> None:
    """Every problem is listed: a bad value on a queue that is also in a cycle or duplicated."""
    problems = record_problems(
        [
            {"name": "a", "parent": "b", "reclaim_min_runtime": "1x"},
            {"name": "b", "parent": "a"},
            {"name": "c", "preempt_min_runtime": "soon"},
            {"name": "c"},
            {"name": "d", "parent": "gone", "preempt_min_runtime": "-5s"},
        ]
    )
    assert (
        f"invalid duration '1x' in Queue 'a' reclaim_min_runtime: unknown unit 'x' {EXPECTED_FORM}"
        in problems
    )
    assert "cycle in parent links: 'a' -> 'b' -> 'a'" in problems
    assert "duplicate queue name 'c' (2 queues)" in problems
    assert "queue 'd' has parent 'gone', which is not in the tree" in problems
    assert len(problems) == 6


def test_from_records_a_record_that_is_not_a_mapping_is_reported_as_a_tree_problem() -> None:
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree.from_records([{"name": "a"}, "b"])  # type: ignore[list-item]
    assert len(caught.value.problems) == 1
    assert "record 1" in caught.value.problems[0]
    assert "'b'" in caught.value.problems[0]


def test_from_records_orphans_as_top_level() -> None:
    tree = QueueTree.from_records(
        [{"name": "team", "parent": "deleted"}], orphans_as_top_level=True
    )
    assert tree.parent("team") is None
    assert tree.warnings == (
        "queue 'team' has parent 'deleted', which is not in the tree; treated as top-level",
    )


# ---------------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------------


def test_parent_of_each_queue() -> None:
    tree = design_tree()
    assert {name: tree.parent(name) for name in tree} == {
        "A": None,
        "B": "A",
        "C": "B",
        "D": "B",
        "leaf1": "C",
        "leaf2": "C",
        "leaf3": "D",
        "Z": None,
        "z1": "Z",
    }


def test_ancestors_are_nearest_first_without_the_queue_itself() -> None:
    tree = design_tree()
    assert tree.ancestors("leaf1") == ("C", "B", "A")
    assert tree.ancestors("D") == ("B", "A")
    assert tree.ancestors("A") == ()
    assert tree.ancestors("z1") == ("Z",)


def test_path_is_root_to_leaf_including_the_queue() -> None:
    tree = design_tree()
    assert tree.path("leaf3") == ("A", "B", "D", "leaf3")
    assert tree.path("A") == ("A",)
    assert tree.path("z1") == ("Z", "z1")
    assert tree.path("leaf3") is tree.path("leaf3")  # computed once and kept


def test_depth_counts_ancestors() -> None:
    tree = design_tree()
    assert {name: tree.depth(name) for name in tree} == {
        "A": 0,
        "B": 1,
        "C": 2,
        "D": 2,
        "leaf1": 3,
        "leaf2": 3,
        "leaf3": 3,
        "Z": 0,
        "z1": 1,
    }


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("leaf1", "leaf1", "leaf1"),
        ("leaf1", "leaf2", "C"),
        ("leaf1", "leaf3", "B"),
        ("leaf3", "leaf1", "B"),
        ("leaf1", "C", "C"),
        ("C", "leaf1", "C"),
        ("A", "leaf3", "A"),
        ("D", "C", "B"),
        ("leaf1", "z1", None),
        ("Z", "A", None),
    ],
)
def test_lca(first: str, second: str, expected: str | None) -> None:
    assert design_tree().lca(first, second) == expected


@pytest.mark.parametrize(
    ("ancestor", "descendant", "expected"),
    [
        ("A", "leaf1", "B"),
        ("B", "leaf1", "C"),
        ("B", "leaf3", "D"),
        ("C", "leaf2", "leaf2"),
        (None, "leaf3", "A"),
        (None, "A", "A"),
        (None, "z1", "Z"),
    ],
)
def test_child_towards(ancestor: str | None, descendant: str, expected: str) -> None:
    assert design_tree().child_towards(ancestor, descendant) == expected


@pytest.mark.parametrize(
    ("ancestor", "descendant"),
    [("leaf1", "leaf1"), ("C", "leaf3"), ("leaf1", "C"), ("Z", "leaf1"), ("leaf2", "leaf1")],
)
def test_child_towards_requires_a_proper_ancestor(ancestor: str, descendant: str) -> None:
    with pytest.raises(ValueError, match="is not a proper ancestor") as caught:
        design_tree().child_towards(ancestor, descendant)
    assert str(caught.value) == f"queue {ancestor!r} is not a proper ancestor of {descendant!r}"
    assert not isinstance(caught.value, LookupError)


def test_children_in_input_order_and_of_the_virtual_root() -> None:
    tree = design_tree()
    assert tree.children(None) == ("A", "Z")
    assert tree.children("B") == ("C", "D")
    assert tree.children("C") == ("leaf1", "leaf2")
    assert tree.children("leaf1") == ()


def test_container_protocol() -> None:
    tree = design_tree()
    assert len(tree) == 9
    assert list(tree) == ["A", "B", "C", "D", "leaf1", "leaf2", "leaf3", "Z", "z1"]
    assert "leaf1" in tree
    assert "ghost" not in tree
    assert 5 not in tree
    assert tree["D"] == Queue("D", parent="B")
    assert repr(tree) == "<QueueTree of 9 queues>"


def test_get_returns_queue_or_none() -> None:
    tree = design_tree()
    assert tree.get("leaf2") == Queue("leaf2", parent="C")
    assert tree.get("ghost") is None


def test_getitem_of_unknown_name_raises_unknown_queue() -> None:
    with pytest.raises(UnknownQueue) as caught:
        design_tree()["ghost"]
    assert str(caught.value) == "queue 'ghost' is not in the tree"
    assert caught.value.name == "ghost"
    assert isinstance(caught.value, LookupError)
    assert isinstance(caught.value, MinRuntimeError)


@pytest.mark.parametrize(
    "query",
    [
        lambda tree: tree.parent("ghost"),
        lambda tree: tree.ancestors("ghost"),
        lambda tree: tree.path("ghost"),
        lambda tree: tree.depth("ghost"),
        lambda tree: tree.lca("ghost", "leaf1"),
        lambda tree: tree.lca("leaf1", "ghost"),
        lambda tree: tree.child_towards("ghost", "leaf1"),
        lambda tree: tree.child_towards("A", "ghost"),
        lambda tree: tree.child_towards(None, "ghost"),
        lambda tree: tree.children("ghost"),
    ],
    ids=[
        "parent",
        "ancestors",
        "path",
        "depth",
        "lca-first",
        "lca-second",
        "child_towards-ancestor",
        "child_towards-descendant",
        "child_towards-root",
        "children",
    ],
)
def test_every_query_raises_unknown_queue_for_an_unknown_name(query: Any) -> None:
    with pytest.raises(UnknownQueue, match=r"^queue 'ghost' is not in the tree$") as caught:
        query(design_tree())
    assert caught.value.name == "ghost"


def test_unhashable_name_is_an_unknown_queue() -> None:
    with pytest.raises(UnknownQueue):
        design_tree().depth(["A"])  # type: ignore[arg-type]


def test_common_prefix_length() -> None:
    assert common_prefix_length(("a", "b", "c"), ("a", "b", "d")) == 2
    assert common_prefix_length(("a", "b"), ("a", "b", "c")) == 2
    assert common_prefix_length(("a",), ("z",)) == 0
    assert common_prefix_length((), ("a",)) == 0
    assert common_prefix_length(("a", "b"), ("a", "b")) == 2


# ---------------------------------------------------------------------------------------------
# Deep and wide trees
# ---------------------------------------------------------------------------------------------


def test_deep_chain_of_2000_builds_and_answers_without_recursion_limits() -> None:
    names = [f"n{i}" for i in range(2000)]
    queues = [Queue(name, parent=names[i - 1] if i else None) for i, name in enumerate(names)]
    tree = QueueTree(reversed(queues))  # children before parents
    assert tree.depth("n1999") == 1999
    assert tree.path("n1999") == tuple(names)
    assert tree.ancestors("n1999")[:2] == ("n1998", "n1997")
    assert tree.lca("n1999", "n1000") == "n1000"
    assert tree.child_towards("n0", "n1999") == "n1"
    assert tree.child_towards("n1998", "n1999") == "n1999"


def test_deep_cycle_of_2000_is_reported_without_recursion_limits() -> None:
    count = 2000
    queues = [Queue(f"n{i:04}", parent=f"n{(i + 1) % count:04}") for i in range(count)]
    problems = problems_of(queues)
    assert len(problems) == 1
    assert problems[0].startswith("cycle in parent links: 'n0000' -> 'n0001' -> 'n0002'")
    assert problems[0].endswith("'n1999' -> 'n0000'")


def test_wide_tree_of_depth_50() -> None:
    """Many queues, 200 chains of depth 50 under one root: queries answer every queue."""
    queues = [Queue("root")]
    for chain in range(200):
        parent = "root"
        for level in range(1, 51):
            name = f"c{chain}-{level}"
            queues.append(Queue(name, parent=parent))
            parent = name
    tree = QueueTree(queues)
    assert len(tree) == 1 + 200 * 50
    assert len(tree.children("root")) == 200
    assert tree.depth("c199-50") == 50
    assert tree.path("c7-3") == ("root", "c7-1", "c7-2", "c7-3")
    assert tree.lca("c3-50", "c4-50") == "root"
    assert tree.lca("c3-50", "c3-20") == "c3-20"
    assert tree.child_towards("root", "c150-50") == "c150-1"
    assert max(tree.depth(name) for name in tree) == 50


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------


@given(queue_trees(), st.data())
def test_tree_queries_are_consistent(tree: QueueTree, data: st.DataObject) -> None:
    """path = reversed ancestors + self; depth = number of ancestors; parent = first ancestor."""
    name = data.draw(st.sampled_from(list(tree)))
    ancestors = tree.ancestors(name)
    assert tree.path(name) == (*reversed(ancestors), name)
    assert tree.depth(name) == len(ancestors)
    assert tree.parent(name) == (ancestors[0] if ancestors else None)
    assert name in tree.children(tree.parent(name))


@given(queue_trees(), st.data())
def test_lca_is_the_deepest_shared_ancestor(tree: QueueTree, data: st.DataObject) -> None:
    """The LCA is a common ancestor (a queue is its own), and no deeper common ancestor exists."""
    first = data.draw(st.sampled_from(list(tree)))
    second = data.draw(st.sampled_from(list(tree)))
    shared = set(tree.path(first)) & set(tree.path(second))
    lca = tree.lca(first, second)
    assert lca == tree.lca(second, first)
    event("one queue twice" if first == second else f"two queues, an LCA: {lca is not None}")
    if lca is None:
        assert shared == set()
    else:
        assert lca in shared
        assert tree.depth(lca) == max(tree.depth(name) for name in shared)


@given(queue_trees(), st.data())
def test_child_towards_is_a_child_on_the_way_down(tree: QueueTree, data: st.DataObject) -> None:
    """child_towards(a, d) is a child of a (or top-level for None) and on d's path."""
    descendant = data.draw(st.sampled_from(list(tree)))
    ancestor = data.draw(st.sampled_from([None, *tree.ancestors(descendant)]))
    child = tree.child_towards(ancestor, descendant)
    assert tree.parent(child) == ancestor
    assert child in tree.path(descendant)


@st.composite
def broken_trees(draw: st.DrawFn) -> tuple[list[Queue], set[str]]:
    """A valid random tree, then k injected problems; returns the queues and the problems."""
    tree = draw(queue_trees(max_queues=15))
    queues = [tree[name] for name in tree]
    kinds = draw(st.lists(st.sampled_from(["cycle", "unknown", "duplicate"]), min_size=1))
    expected: set[str] = set()
    reparent: dict[str, str] = {}
    duplicated: set[str] = set()
    for i, kind in enumerate(kinds):
        if kind == "cycle":
            size = draw(st.integers(1, 3))
            names = [f"cyc{i}x{j}" for j in range(size)]
            queues += [Queue(names[j], parent=names[(j + 1) % size]) for j in range(size)]
            arrow = " -> ".join(repr(name) for name in [*names, names[0]])
            expected.add(f"cycle in parent links: {arrow}")
            hung = draw(st.sampled_from(list(tree)))
            if hung not in reparent and draw(st.booleans()):
                reparent[hung] = names[0]  # an existing queue and its subtree hang under the cycle
        elif kind == "unknown":
            victim = draw(st.sampled_from(list(tree)))
            if victim in reparent:
                continue
            reparent[victim] = f"missing{i}"
            expected.add(f"queue {victim!r} has parent 'missing{i}', which is not in the tree")
        else:
            name = draw(st.sampled_from(list(tree)))
            if name in duplicated:
                continue
            duplicated.add(name)
            queues.append(Queue(name))
            expected.add(f"duplicate queue name {name!r} (2 queues)")
    queues = [
        attrs.evolve(queue, parent=reparent[queue.name])
        if queue.name in reparent and queue.name in tree
        else queue
        for queue in queues
    ]
    return draw(st.permutations(queues)), expected


@given(broken_trees())
def test_injected_problems_are_all_named_in_one_error(case: tuple[list[Queue], set[str]]) -> None:
    """A random tree with k injected cycles, unknown parents and duplicates is rejected, and
    the single InvalidQueueTree names every injected problem, and nothing else."""
    queues, expected = case
    with pytest.raises(InvalidQueueTree) as caught:
        QueueTree(queues)
    assert set(caught.value.problems) == expected
    assert len(caught.value.problems) == len(expected)


def test_inherited_names_the_nearest_queue_that_sets_a_value_computed_once() -> None:
    tree = QueueTree(
        [
            Queue("A", reclaim_min_runtime="1h"),
            Queue("B", "A"),
            Queue("C", "B", reclaim_min_runtime=0),
            Queue("leaf", "C"),
            Queue("Z", protections=ProtectionSettings(max_evictions=2)),
            Queue("z1", "Z"),
        ]
    )
    table = tree.inherited("reclaim_min_runtime")
    hour, zero = MinRuntime.parse("1h"), MinRuntime.ZERO
    assert dict(table) == {
        "A": (hour, "A"),
        "B": (hour, "A"),
        "C": (zero, "C"),
        "leaf": (zero, "C"),
    }
    assert tree.inherited("reclaim_min_runtime") is table
    assert dict(tree.inherited("max_evictions")) == {"Z": (2, "Z"), "z1": (2, "Z")}
    assert dict(tree.inherited("preempt_min_runtime")) == {}


def test_inherited_of_an_unknown_setting_names_the_expected_ones() -> None:
    with pytest.raises(ValueError, match=r"no queue setting 'priority' \(expected one of "
                       r"'preempt_min_runtime', 'reclaim_min_runtime', 'preempt_checkpoint_grace'"):  # fmt: skip
        QueueTree([Queue("a")]).inherited("priority")

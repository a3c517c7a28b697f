"""Resolving MR over the queue tree: preempt, reclaim by queue, reclaim by LCA
(docs/spec/resolution.md)."""

from __future__ import annotations

import random
import sys
import threading
from typing import Any

import attrs
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from minruntime import (
    Action,
    Config,
    MinRuntime,
    ProtectionSettings,
    Queue,
    QueueTree,
    Resolution,
    UnknownQueue,
)
from minruntime._protection import Settings
from minruntime._resolution import START_QUEUE, Setting, lca_step, resolve
from minruntime._resolution import Resolver as Engine
from minruntime.config import RESOLVE_METHODS
from minruntime.testing import min_runtimes, optional_min_runtimes, queue_trees

# The rules as the design states them, one per method, each a resolution with a fresh engine.


def resolve_preempt(tree: QueueTree, config: Config, victim: str) -> Resolution:
    return resolve(tree, config, Action.PREEMPT, victim, victim)


def resolve_reclaim_lca(tree: QueueTree, config: Config, preemptor: str, victim: str) -> Resolution:
    lca = attrs.evolve(config, reclaim_resolve_method="lca")
    return resolve(tree, lca, Action.RECLAIM, preemptor, victim)


def resolve_reclaim_queue(
    tree: QueueTree, config: Config, preemptor: str, victim: str
) -> Resolution:
    by_queue = attrs.evolve(config, reclaim_resolve_method="queue")
    return resolve(tree, by_queue, Action.RECLAIM, preemptor, victim)


RECLAIM_RESOLVERS = {"lca": resolve_reclaim_lca, "queue": resolve_reclaim_queue}


class Resolver(Engine):
    """The engine, asked the way these tests ask: preempt(victim), reclaim(preemptor, victim)."""

    __slots__ = ()

    def preempt(self, victim: str) -> Resolution:
        return self.resolve(Action.PREEMPT, victim, victim)

    def reclaim(self, preemptor: str, victim: str) -> Resolution:
        return self.resolve(Action.RECLAIM, preemptor, victim)


NEVER = MinRuntime.NEVER
ZERO = MinRuntime.ZERO
LCA = Config()
QUEUE = Config(reclaim_resolve_method="queue")


def mr(value: str | int) -> MinRuntime:
    return MinRuntime.parse(value)


def reclaim_design_tree() -> QueueTree:
    """docs/spec/resolution.md: A > B(600s) > {C > {leaf1(0s), leaf2(180s)}, D(60s) > leaf3}, plus
    Z > z1."""
    return QueueTree(
        [
            Queue("A"),
            Queue("B", "A", reclaim_min_runtime="600s"),
            Queue("C", "B"),
            Queue("D", "B", reclaim_min_runtime="60s"),
            Queue("leaf1", "C", reclaim_min_runtime=0),
            Queue("leaf2", "C", reclaim_min_runtime="180s"),
            Queue("leaf3", "D"),
            Queue("Z"),
            Queue("z1", "Z", reclaim_min_runtime="5m"),
        ]
    )


def preempt_design_tree() -> QueueTree:
    """docs/spec/resolution.md: B(600s) > C > {leaf1(300s), leaf2} on preempt_min_runtime."""
    return QueueTree(
        [
            Queue("B", preempt_min_runtime="600s"),
            Queue("C", "B"),
            Queue("leaf1", "C", preempt_min_runtime="300s"),
            Queue("leaf2", "C"),
        ]
    )


def kai_tree() -> QueueTree:
    """The reference scheduler's resolver test tree (resolver_test.go createTestQueues)."""
    return QueueTree(
        [
            Queue("dev", preempt_min_runtime="5s", reclaim_min_runtime="10s"),
            Queue("prod", preempt_min_runtime="20s", reclaim_min_runtime="30s"),
            Queue("research", preempt_min_runtime="4s", reclaim_min_runtime="6s"),
            Queue("dev-team1", "dev", reclaim_min_runtime="8s"),
            Queue("dev-team2", "dev", preempt_min_runtime="3s"),
            Queue("prod-team1", "prod", reclaim_min_runtime="25s"),
            Queue("prod-team2", "prod", preempt_min_runtime="15s", reclaim_min_runtime="35s"),
            Queue(
                "research-project", "research", preempt_min_runtime="7s", reclaim_min_runtime="9s"
            ),
            Queue("orphan", "nonexistent", reclaim_min_runtime="7s"),
            Queue("no-reclaim"),
            Queue("leaf", "no-reclaim"),
        ],
        orphans_as_top_level=True,
    )


KAI_LCA = Config(default_preempt_min_runtime="2s", default_reclaim_min_runtime="1s")
KAI_QUEUE = Config(
    default_preempt_min_runtime="2s",
    default_reclaim_min_runtime="1s",
    reclaim_resolve_method="queue",
)


# ---------------------------------------------------------------------------------------------
# The design tables, exactly
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preemptor", "victim", "expected"),
    [
        ("leaf1", "leaf3", Resolution(mr("60s"), "D")),  # LCA B, step down to D
        ("leaf1", "leaf2", Resolution(mr("180s"), "leaf2")),  # LCA C, step down to leaf2
        ("leaf3", "leaf1", Resolution(mr("600s"), "B")),  # LCA B, step to C (unset), up to B
    ],
)
def test_lca_design_table(preemptor: str, victim: str, expected: Resolution) -> None:
    tree = reclaim_design_tree()
    assert resolve_reclaim_lca(tree, LCA, preemptor, victim) == expected
    assert resolve(tree, LCA, Action.RECLAIM, preemptor, victim) == expected
    assert Resolver(tree, LCA).reclaim(preemptor, victim) == expected


@pytest.mark.parametrize(
    ("victim", "expected"),
    [("leaf1", Resolution(mr("300s"), "leaf1")), ("leaf2", Resolution(mr("600s"), "B"))],
)
def test_preempt_design_example(victim: str, expected: Resolution) -> None:
    tree = preempt_design_tree()
    assert resolve_preempt(tree, Config(), victim) == expected
    assert resolve(tree, Config(), Action.PREEMPT, victim, victim) == expected
    assert Resolver(tree, Config()).preempt(victim) == expected


def test_design_values_print_in_canonical_form() -> None:
    tree = reclaim_design_tree()
    assert [str(resolve_reclaim_lca(tree, LCA, p, v)) for p, v in
            [("leaf1", "leaf3"), ("leaf1", "leaf2"), ("leaf3", "leaf1")]] == [
        "1m from queue 'D'",
        "3m from queue 'leaf2'",
        "10m from queue 'B'",
    ]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The walk: first set value wins, zero and never stop it, else the default
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stop", [ZERO, NEVER])
def test_zero_and_never_are_set_values_that_stop_the_walk(stop: MinRuntime) -> None:
    tree = QueueTree(
        [
            Queue("top", preempt_min_runtime="1h", reclaim_min_runtime="1h"),
            Queue("mid", "top", preempt_min_runtime=stop, reclaim_min_runtime=stop),
            Queue("leaf", "mid"),
            Queue("other", "top"),
        ]
    )
    config = Config(default_preempt_min_runtime="2h", default_reclaim_min_runtime="2h")
    expected = Resolution(stop, "mid")
    assert resolve_preempt(tree, config, "leaf") == expected
    assert resolve_reclaim_queue(tree, config, "other", "leaf") == expected
    assert resolve_reclaim_lca(tree, config, "other", "leaf") == expected  # step to mid


def test_default_when_nothing_is_set_has_no_source() -> None:
    tree = QueueTree([Queue("top"), Queue("leaf", "top"), Queue("other", "top")])
    config = Config(default_preempt_min_runtime="5m", default_reclaim_min_runtime="never")
    assert resolve_preempt(tree, config, "leaf") == Resolution(mr("5m"), None)
    assert resolve_reclaim_queue(tree, config, "other", "leaf") == Resolution(NEVER, None)
    assert resolve_reclaim_lca(tree, config, "other", "leaf") == Resolution(NEVER, None)
    assert resolve_preempt(tree, config, "leaf").from_default


def test_config_default_is_zero() -> None:
    tree = QueueTree([Queue("a"), Queue("b")])
    assert resolve_preempt(tree, Config(), "a") == Resolution(ZERO, None)
    assert resolve_reclaim_lca(tree, Config(), "a", "b") == Resolution(ZERO, None)
    assert resolve_reclaim_queue(tree, Config(), "a", "b") == Resolution(ZERO, None)


def test_preempt_walks_preempt_field_and_reclaim_walks_reclaim_field() -> None:
    tree = QueueTree([Queue("a", preempt_min_runtime="1m", reclaim_min_runtime="2m")])
    assert resolve(tree, Config(), Action.PREEMPT, "a", "a") == Resolution(mr("1m"), "a")
    assert resolve(tree, Config(), Action.RECLAIM, "a", "a") == Resolution(mr("2m"), "a")
    assert resolve(tree, QUEUE, Action.RECLAIM, "a", "a") == Resolution(mr("2m"), "a")


# ---------------------------------------------------------------------------------------------
# LCA cases
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preemptor", "victim", "expected"),
    [
        # same queue: the leaf's own value, else inherited
        ("leaf2", "leaf2", Resolution(mr("180s"), "leaf2")),
        ("leaf3", "leaf3", Resolution(mr("60s"), "D")),
        ("leaf1", "leaf1", Resolution(ZERO, "leaf1")),
        # victim's queue is an ancestor of the preemptor's: no step down
        ("leaf1", "C", Resolution(mr("600s"), "B")),
        ("leaf3", "D", Resolution(mr("60s"), "D")),
        ("leaf1", "A", Resolution(ZERO, None)),
        # preemptor's queue is an ancestor of the victim's: step down towards the victim
        ("A", "leaf1", Resolution(mr("600s"), "B")),  # leaf1's 0s is below the step
        ("B", "leaf3", Resolution(mr("60s"), "D")),
        ("C", "leaf2", Resolution(mr("180s"), "leaf2")),
        ("B", "leaf1", Resolution(mr("600s"), "B")),  # step to C (unset), walk up to B
        # siblings: the victim's own value
        ("leaf2", "leaf1", Resolution(ZERO, "leaf1")),
        ("C", "D", Resolution(mr("60s"), "D")),
        # cousins: the value of the ancestor just below the LCA
        ("leaf2", "leaf3", Resolution(mr("60s"), "D")),
        ("leaf3", "leaf2", Resolution(mr("600s"), "B")),
        # different top-level trees: only the victim's top-level queue, then the default
        ("z1", "leaf2", Resolution(ZERO, None)),
        ("leaf1", "z1", Resolution(ZERO, None)),  # z1's own 5m is ignored
        ("Z", "leaf3", Resolution(ZERO, None)),
    ],
)
def test_lca_cases(preemptor: str, victim: str, expected: Resolution) -> None:
    assert resolve_reclaim_lca(reclaim_design_tree(), LCA, preemptor, victim) == expected


@pytest.mark.parametrize(
    ("preemptor", "victim", "expected"),
    [
        ("leaf1", "leaf3", "D"),
        ("leaf1", "leaf2", "leaf2"),
        ("leaf3", "leaf1", "C"),
        ("leaf2", "leaf2", "leaf2"),
        ("leaf1", "C", "C"),
        ("leaf3", "B", "B"),
        ("A", "leaf1", "B"),
        ("C", "leaf2", "leaf2"),
        ("z1", "leaf3", "A"),
        ("leaf1", "z1", "Z"),
    ],
)
def test_lca_step(preemptor: str, victim: str, expected: str) -> None:
    assert lca_step(reclaim_design_tree(), preemptor, victim) == expected


def test_lca_step_of_an_unknown_queue_raises_unknown_queue() -> None:
    with pytest.raises(UnknownQueue, match="queue 'ghost' is not in the tree"):
        lca_step(reclaim_design_tree(), "ghost", "leaf1")


def test_different_top_level_trees_use_the_victims_top_level_value_then_the_default() -> None:
    tree = QueueTree(
        [
            Queue("org", reclaim_min_runtime="30s"),
            Queue("team", "org", reclaim_min_runtime="35s"),
            Queue("sub", "team", reclaim_min_runtime="40s"),
            Queue("bare"),
            Queue("bare-leaf", "bare", reclaim_min_runtime="50s"),
            Queue("other"),
        ]
    )
    config = Config(default_reclaim_min_runtime="1s")
    assert resolve_reclaim_lca(tree, config, "other", "sub") == Resolution(mr("30s"), "org")
    assert resolve_reclaim_lca(tree, config, "other", "bare-leaf") == Resolution(mr("1s"), None)
    assert resolve_reclaim_queue(tree, config, "other", "bare-leaf") == Resolution(
        mr("50s"), "bare-leaf"
    )


# ---------------------------------------------------------------------------------------------
# The reference scheduler's resolver tests (kai-reference.md §3)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("victim", "expected"),
    [
        ("prod-team2", Resolution(mr("15s"), "prod-team2")),
        ("prod-team1", Resolution(mr("20s"), "prod")),
        ("dev-team1", Resolution(mr("5s"), "dev")),
        ("prod", Resolution(mr("20s"), "prod")),
        ("research", Resolution(mr("4s"), "research")),
        ("ghost", Resolution(mr("2s"), None, ("ghost",))),
    ],
)
def test_reference_preempt_cases(victim: str, expected: Resolution) -> None:
    assert resolve_preempt(kai_tree(), KAI_LCA, victim) == expected


@pytest.mark.parametrize(
    ("preemptor", "victim", "queue_method", "lca_method"),
    [
        ("dev-team1", "prod-team2", Resolution(mr("35s"), "prod-team2"), Resolution(mr("30s"), "prod")),
        ("dev-team1", "dev-team2", Resolution(mr("10s"), "dev"), Resolution(mr("10s"), "dev")),
        ("dev-team2", "dev-team1", Resolution(mr("8s"), "dev-team1"), Resolution(mr("8s"), "dev-team1")),
        ("prod-team1", "prod-team2", Resolution(mr("35s"), "prod-team2"), Resolution(mr("35s"), "prod-team2")),
        ("prod-team2", "prod-team2", Resolution(mr("35s"), "prod-team2"), Resolution(mr("35s"), "prod-team2")),
        ("dev-team1", "research-project", Resolution(mr("9s"), "research-project"), Resolution(mr("6s"), "research")),
        ("dev-team1", "orphan", Resolution(mr("7s"), "orphan"), Resolution(mr("7s"), "orphan")),
        ("dev-team1", "leaf", Resolution(mr("1s"), None), Resolution(mr("1s"), None)),
        ("dev-team1", "ghost", Resolution(mr("1s"), None, ("ghost",)), Resolution(mr("1s"), None, ("ghost",))),
    ],
)  # fmt: skip
def test_reference_reclaim_cases(
    preemptor: str, victim: str, queue_method: Resolution, lca_method: Resolution
) -> None:
    tree = kai_tree()
    assert resolve_reclaim_queue(tree, KAI_QUEUE, preemptor, victim) == queue_method
    assert resolve_reclaim_lca(tree, KAI_LCA, preemptor, victim) == lca_method
    assert resolve(tree, KAI_QUEUE, Action.RECLAIM, preemptor, victim) == queue_method
    assert resolve(tree, KAI_LCA, Action.RECLAIM, preemptor, victim) == lca_method


def test_reference_paths() -> None:
    tree = kai_tree()
    assert tree.path("dev") == ("dev",)
    assert tree.path("dev-team1") == ("dev", "dev-team1")
    assert tree.path("prod-team2") == ("prod", "prod-team2")
    assert tree.path("research-project") == ("research", "research-project")
    assert tree.path("orphan") == ("orphan",)


# ---------------------------------------------------------------------------------------------
# What each method ignores
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("victim", list(reclaim_design_tree()))
def test_queue_method_ignores_the_preemptor(victim: str) -> None:
    tree = reclaim_design_tree()
    results = {resolve_reclaim_queue(tree, QUEUE, preemptor, victim) for preemptor in tree}
    assert results == {resolve_reclaim_queue(tree, QUEUE, victim, victim)}
    assert results == {resolve(tree, QUEUE, Action.RECLAIM, "Z", victim)}


@pytest.mark.parametrize("victim", list(preempt_design_tree()))
def test_preempt_ignores_the_preemptor(victim: str) -> None:
    tree = preempt_design_tree()
    expected = resolve_preempt(tree, Config(), victim)
    assert {resolve(tree, Config(), Action.PREEMPT, p, victim) for p in tree} == {expected}
    # the preemptor's queue is not even looked up (ambiguous in docs/spec/resolution.md; see report)
    assert resolve(tree, Config(), Action.PREEMPT, "ghost", victim) == expected


# ---------------------------------------------------------------------------------------------
# Unknown queues: the default, and the resolution says which queue was missing
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("config", [LCA, QUEUE], ids=["lca", "queue"])
def test_unknown_queues_give_the_default_and_are_named(config: Config) -> None:
    tree = reclaim_design_tree()
    config = Config(
        default_reclaim_min_runtime="7m", reclaim_resolve_method=config.reclaim_resolve_method
    )
    default = mr("7m")
    method = RECLAIM_RESOLVERS[config.reclaim_resolve_method]
    assert method(tree, config, "ghost", "leaf2") == Resolution(default, None, ("ghost",))
    assert method(tree, config, "leaf2", "ghost") == Resolution(default, None, ("ghost",))
    assert method(tree, config, "ghost", "phantom") == Resolution(
        default, None, ("ghost", "phantom")
    )
    assert method(tree, config, "ghost", "ghost") == Resolution(default, None, ("ghost",))
    resolver = Resolver(tree, config)
    assert resolver.reclaim("ghost", "leaf2") == Resolution(default, None, ("ghost",))
    assert resolver.reclaim("leaf2", "ghost") == Resolution(default, None, ("ghost",))


def test_unknown_victim_queue_gives_the_preempt_default() -> None:
    config = Config(default_preempt_min_runtime="never")
    expected = Resolution(NEVER, None, ("ghost",))
    assert resolve_preempt(preempt_design_tree(), config, "ghost") == expected
    assert Resolver(preempt_design_tree(), config).preempt("ghost") == expected


def test_each_resolve_method_is_a_registered_start_queue_rule() -> None:
    """Every valid ``reclaim_resolve_method`` names a start-queue rule, and nothing else does."""
    assert set(START_QUEUE) == set(RESOLVE_METHODS)
    tree = reclaim_design_tree()
    assert START_QUEUE["lca"](tree, "leaf1", "leaf3") == "D"
    assert START_QUEUE["queue"](tree, "leaf1", "leaf3") == "leaf3"


# ---------------------------------------------------------------------------------------------
# Action and Resolution values
# ---------------------------------------------------------------------------------------------


def test_action_values() -> None:
    assert Action("preempt") is Action.PREEMPT
    assert Action("reclaim") is Action.RECLAIM
    assert (str(Action.PREEMPT), str(Action.RECLAIM)) == ("preempt", "reclaim")


@pytest.mark.parametrize(
    ("resolution", "text"),
    [
        (Resolution(mr("10m"), "team-a"), "10m from queue 'team-a'"),
        (Resolution(NEVER, "prod"), "never from queue 'prod'"),
        (Resolution(ZERO, "dev"), "0s from queue 'dev'"),
        (Resolution(mr("90s"), None), "1m30s (node-pool default)"),
        (Resolution(ZERO, None, ("ghost",)), "0s (node-pool default; queue 'ghost' is not in the tree)"),
        (
            Resolution(mr("1h"), None, ("ghost", "phantom")),
            "1h (node-pool default; queue 'ghost' and 'phantom' are not in the tree)",
        ),
    ],
)  # fmt: skip
def test_resolution_str(resolution: Resolution, text: str) -> None:
    assert str(resolution) == text


def test_resolution_from_default() -> None:
    assert Resolution(ZERO, None).from_default is True
    assert Resolution(ZERO, "a").from_default is False


# ---------------------------------------------------------------------------------------------
# Resolver: the memoizing engine
# ---------------------------------------------------------------------------------------------


def test_resolver_returns_the_remembered_object() -> None:
    tree = reclaim_design_tree()
    resolver = Resolver(tree, LCA)
    first = resolver.reclaim("leaf3", "leaf1")
    assert first == Resolution(mr("600s"), "B")
    assert resolver.reclaim("leaf3", "leaf1") is first
    assert resolver.resolve(Action.RECLAIM, "leaf3", "leaf1") is first
    assert resolver.lookup(Action.RECLAIM, "leaf3", "leaf1") == (first, False)

    preempt = resolver.preempt("leaf2")
    assert resolver.preempt("leaf2") is preempt
    assert resolver.resolve(Action.PREEMPT, "anything", "leaf2") is preempt
    assert resolver.lookup(Action.PREEMPT, "other", "leaf2") == (preempt, False)

    ghost = resolver.reclaim("ghost", "leaf1")
    assert resolver.reclaim("ghost", "leaf1") is ghost
    assert resolver.lookup(Action.RECLAIM, "ghost", "leaf1") == (ghost, False)


def test_resolver_computes_once_per_distinct_question() -> None:
    resolver = Resolver(reclaim_design_tree(), LCA)
    computed = [
        resolver.lookup(action, preemptor, victim)[1]
        for _ in range(3)
        for action, preemptor, victim in (
            (Action.RECLAIM, "leaf1", "leaf3"),
            (Action.RECLAIM, "leaf3", "leaf1"),
            (Action.PREEMPT, "any", "ghost"),
        )
    ]
    assert computed == [True, True, True] + [False] * 6


@st.composite
def resolver_cases(
    draw: st.DrawFn,
) -> tuple[QueueTree, Config, list[tuple[Action, str, str]]]:
    tree = draw(queue_trees())
    config = Config(
        default_preempt_min_runtime=draw(min_runtimes()),
        default_reclaim_min_runtime=draw(min_runtimes()),
        reclaim_resolve_method=draw(st.sampled_from(["lca", "queue"])),
    )
    names = st.sampled_from([*tree, "ghost", "phantom"])
    questions = draw(
        st.lists(st.tuples(st.sampled_from(list(Action)), names, names), min_size=1, max_size=30)
    )
    return tree, config, questions


@given(resolver_cases())
def test_resolver_agrees_with_the_pure_functions(
    case: tuple[QueueTree, Config, list[tuple[Action, str, str]]],
) -> None:
    """Resolver.resolve == resolve for every question, in any order (memory never changes an
    answer), for preempt, lca and queue configs, known and unknown queues; asking again returns
    the remembered object, and the resolver says it did not compute it."""
    tree, config, questions = case
    resolver = Resolver(tree, config)
    for action, preemptor, victim in questions:
        assert resolver.resolve(action, preemptor, victim) == resolve(
            tree, config, action, preemptor, victim
        )
    for action, preemptor, victim in questions:
        again, computed = resolver.lookup(action, preemptor, victim)
        assert not computed
        assert again is resolver.resolve(action, preemptor, victim)
        assert again == resolve(tree, config, action, preemptor, victim)


# ---------------------------------------------------------------------------------------------
# Properties of the rules
# ---------------------------------------------------------------------------------------------


def _first_set(tree: QueueTree, field: str, names: list[str], default: MinRuntime) -> Resolution:
    for name in names:
        value = getattr(tree[name], field)
        if value is not None:
            return Resolution(value, name)
    return Resolution(default, None)


def _model(
    tree: QueueTree, config: Config, action: Action, preemptor: str, victim: str
) -> Resolution:
    """docs/spec/resolution.md restated naively over root-to-leaf paths (no LCA helpers of the
    library)."""
    if action is Action.PREEMPT:
        path = list(tree.path(victim))
        return _first_set(
            tree, "preempt_min_runtime", path[::-1], config.default_preempt_min_runtime
        )
    path = list(tree.path(victim))
    if config.reclaim_resolve_method == "queue":
        start = len(path) - 1
    else:
        theirs = set(tree.path(preemptor))
        shared = [i for i, name in enumerate(path) if name in theirs]
        lca = shared[-1] if shared else -1  # -1: the virtual root
        start = lca if lca == len(path) - 1 else lca + 1
    return _first_set(tree, "reclaim_min_runtime", path[start::-1], config.default_reclaim_min_runtime)  # fmt: skip


@given(resolver_cases())
def test_resolution_follows_the_rule_as_written(
    case: tuple[QueueTree, Config, list[tuple[Action, str, str]]],
) -> None:
    """On random trees and queue pairs, resolve() equals a naive restatement of §4."""
    tree, config, questions = case
    known = [(a, p, v) for a, p, v in questions if p in tree and v in tree]
    event("a question on known queues" if known else "no question on known queues")
    for action, preemptor, victim in known:
        assert resolve(tree, config, action, preemptor, victim) == _model(
            tree, config, action, preemptor, victim
        )


@given(queue_trees(), min_runtimes(), st.data())
def test_lca_equals_queue_resolution_in_the_same_queue(
    tree: QueueTree, default: MinRuntime, data: st.DataObject
) -> None:
    """LCA resolution equals queue resolution when preemptor and victim share a queue."""
    name = data.draw(st.sampled_from(list(tree)))
    config = Config(default_reclaim_min_runtime=default)
    queue_config = Config(default_reclaim_min_runtime=default, reclaim_resolve_method="queue")
    assert resolve_reclaim_lca(tree, config, name, name) == resolve_reclaim_queue(
        tree, queue_config, name, name
    )


@given(queue_trees(), min_runtimes(), min_runtimes(), st.data())
def test_resolved_value_comes_from_the_victims_path_or_the_default(
    tree: QueueTree, preempt_default: MinRuntime, reclaim_default: MinRuntime, data: st.DataObject
) -> None:
    """The resolved MR is one of the values set on the victim's path or the default; the
    source is a queue on the victim's path holding exactly that value, or None with the default."""
    preemptor = data.draw(st.sampled_from(list(tree)))
    victim = data.draw(st.sampled_from(list(tree)))
    path = tree.path(victim)
    for method in ("lca", "queue"):
        config = Config(
            default_preempt_min_runtime=preempt_default,
            default_reclaim_min_runtime=reclaim_default,
            reclaim_resolve_method=method,
        )
        for action, field, default in [
            (Action.PREEMPT, "preempt_min_runtime", preempt_default),
            (Action.RECLAIM, "reclaim_min_runtime", reclaim_default),
        ]:
            result = resolve(tree, config, action, preemptor, victim)
            on_path = {getattr(tree[name], field) for name in path} - {None}
            assert result.min_runtime in on_path | {default}
            assert result.unknown_queues == ()
            if result.source is None:
                assert result.min_runtime == default
            else:
                assert result.source in path
                assert getattr(tree[result.source], field) == result.min_runtime


# ---------------------------------------------------------------------------------------------
# The tree's tables: a pair resolves in a few reads, with exactly the answers of the walk
# ---------------------------------------------------------------------------------------------

PROTECTION_FIELDS = [field.name for field in attrs.fields(ProtectionSettings)]


def _protection_settings() -> st.SearchStrategy[ProtectionSettings]:
    durations = optional_min_runtimes(allow_never=False)
    return st.builds(
        ProtectionSettings,
        preempt_checkpoint_grace=durations,
        reclaim_checkpoint_grace=durations,
        max_evictions=st.one_of(st.none(), st.none(), st.integers(0, 3)),
        eviction_window=optional_min_runtimes(),
        max_job_min_runtime=optional_min_runtimes(),
    )


@st.composite
def protected_trees(draw: st.DrawFn) -> tuple[QueueTree, Config]:
    """A random tree of ``minruntime.testing``, section 16 settings on some queues, and a
    config with random defaults, either method."""
    plain = draw(queue_trees(max_queues=12))
    tree = QueueTree(
        attrs.evolve(plain[name], protections=draw(_protection_settings())) for name in plain
    )
    config = Config(
        default_preempt_min_runtime=draw(min_runtimes()),
        default_reclaim_min_runtime=draw(min_runtimes()),
        reclaim_resolve_method=draw(st.sampled_from(["lca", "queue"])),
        protections=draw(_protection_settings()),
    )
    return tree, config


def _up(tree: QueueTree, name: str | None) -> list[str]:
    """``name`` and its ancestors, nearest first, by parent pointers."""
    found: list[str] = []
    while name is not None:
        found.append(name)
        name = tree[name].parent
    return found


def _naive_start(tree: QueueTree, config: Config, action: Action, pre: str, victim: str) -> str:
    """Section 4's start queue, by parent pointers: the victim's queue, or for reclaim by LCA
    the queue below the lowest common ancestor on the victim's side."""
    if action is Action.PREEMPT or config.reclaim_resolve_method == "queue":
        return victim
    theirs = set(_up(tree, pre))
    below: str | None = None
    node: str | None = victim
    while node is not None and node not in theirs:
        below, node = node, tree[node].parent
    return victim if below is None else below


def _naive_walk(tree: QueueTree, config: Config, field: str, start: str) -> tuple[Any, str | None]:
    """Walk up by parent pointers to the first queue that sets ``field``, or the default."""
    for name in _up(tree, start):
        queue = tree[name]
        on = queue.protections if field in PROTECTION_FIELDS else queue
        value = getattr(on, field)
        if value is not None:
            return value, name
    if field in PROTECTION_FIELDS:
        return config.protection_default(field), None
    return getattr(config, f"default_{field}"), None


@given(protected_trees(), st.data())
def test_one_resolver_answers_every_pair_as_the_naive_walk(
    case: tuple[QueueTree, Config], data: st.DataObject
) -> None:
    """For every (action, preemptor queue, victim queue) of a random tree, an unknown queue
    included, one resolver (its tables shared by every pair, asked in random order, each
    question twice) gives exactly the resolution and the section 16 settings of a walk by
    parent pointers written here."""
    tree, config = case
    resolver = Engine(tree, config)
    names = [*tree, "ghost"]
    pairs = [(a, p, v) for a in Action for p in names for v in names]
    order = pairs.copy()
    data.draw(st.randoms(use_true_random=False)).shuffle(order)
    for action, pre, victim in [*order, *order]:
        mr_field = f"{action.value}_min_runtime"
        grace_field = f"{action.value}_checkpoint_grace"
        asked = [victim] if action is Action.PREEMPT else [pre, victim]
        unknown = tuple(name for name in dict.fromkeys(asked) if name not in tree)
        got = resolver.resolve(action, pre, victim)
        settings = resolver.settings(action, pre, victim)
        grace: tuple[Any, str | None]
        if unknown:
            assert got == Resolution(getattr(config, f"default_{mr_field}"), None, unknown)
            grace = (config.protection_default(grace_field), None)
        else:
            start = _naive_start(tree, config, action, pre, victim)
            assert resolver.start_queue(action, pre, victim) == start
            assert got == Resolution(*_naive_walk(tree, config, mr_field, start))
            grace = _naive_walk(tree, config, grace_field, start)
            assert resolver.walk(Setting(grace_field), start) == grace
        if victim not in tree:
            assert settings == Settings(
                grace=grace[0],
                max_evictions=config.protection_default("max_evictions"),
                eviction_window=config.protection_default("eviction_window"),
                max_job_min_runtime=config.protection_default("max_job_min_runtime"),
            )
            continue
        budget = _naive_walk(tree, config, "max_evictions", victim)
        window = _naive_walk(tree, config, "eviction_window", victim)
        cap = _naive_walk(tree, config, "max_job_min_runtime", victim)
        assert settings == Settings(
            grace=grace[0],
            max_evictions=budget[0],
            eviction_window=window[0],
            max_job_min_runtime=cap[0],
            grace_source=grace[1],
            budget_source=budget[1],
            cap_source=cap[1],
        )
        for field, found in [("max_evictions", budget), ("eviction_window", window)]:
            assert resolver.walk(Setting(field), victim) == found
    deep = [
        pair
        for pair in pairs
        if pair[0] is Action.RECLAIM
        and pair[1] in tree
        and pair[2] in tree
        and tree.parent(resolver.start_queue(*pair)) is not None
    ]
    event("some reclaim starts below the top level" if deep else "every start at the top level")


def _wide_tree(count: int) -> list[Queue]:
    """``count`` queues under 4 top-level ones, values on every third queue, depth up to 6."""
    queues = [Queue(f"r{i}", preempt_min_runtime=f"{i + 1}m") for i in range(4)]
    depth = {f"r{i}": 0 for i in range(4)}
    for i in range(count):
        parent = queues[(i * 7919) % len(queues)].name
        if depth[parent] >= 6:
            parent = f"r{i % 4}"
        value = None if i % 3 else f"{i % 50}m"
        queues.append(Queue(f"q{i}", parent, reclaim_min_runtime=value))
        depth[f"q{i}"] = depth[parent] + 1
    return queues


def test_threads_resolving_on_one_fresh_tree_get_the_answers_asked_in_turn() -> None:
    """Eight threads resolve every question on one fresh tree (its tables built while they
    ask), four through one shared resolver and four through their own, each in its own order,
    with the interpreter switching threads as often as it can: every answer equals the one
    computed in turn on a separate tree."""
    queues = _wide_tree(600)
    names = [queue.name for queue in queues][::7]
    questions = [(a, p, v) for a in Action for p in names[:12] for v in names]
    alone = Engine(QueueTree(queues), LCA)
    expected = [
        (alone.resolve(*q), alone.settings(*q), alone.walk(Setting.MAX_EVICTIONS, q[2]))
        for q in questions
    ]
    tree = QueueTree(queues)
    shared = Engine(tree, LCA)
    start = threading.Barrier(8)
    answers: dict[int, list[tuple[Resolution, Settings, tuple[Any, str | None]]]] = {}

    def ask(number: int) -> None:
        resolver = shared if number % 2 else Engine(tree, LCA)
        order = list(range(len(questions)))
        random.Random(number).shuffle(order)
        start.wait()
        got: dict[int, tuple[Resolution, Settings, tuple[Any, str | None]]] = {}
        for i in order:
            q = questions[i]
            got[i] = (resolver.resolve(*q), resolver.settings(*q),
                      resolver.walk(Setting.MAX_EVICTIONS, q[2]))  # fmt: skip
        answers[number] = [got[i] for i in range(len(questions))]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert sorted(answers) == list(range(8))
    for got in answers.values():
        assert got == expected

"""Finding the preemptor ``--preemptor`` names (``minruntime.cli._lookup``): a pod group, a
pod of one, a name in ``--namespace``; and the close names an unknown one gets."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.world import (
    BUNDLED_WARNINGS,
    CHAT_API,
    FINETUNE,
    assert_error,
    pod,
    pod_group,
    queue_object,
    run,
    write_objects,
)

from minruntime.cli import EXAMPLE_NOW

EXPECTED = "(expected NAMESPACE/NAME of a PodGroup or a Pod, or a NAME only one of them has)"


@pytest.mark.parametrize(
    ("reference", "suggestion"),
    [
        ("finetune7b", "; did you mean nlp-team/finetune-7b?"),
        ("nlp-team/finetune-7B", "; did you mean nlp-team/finetune-7b?"),
        ("serving/finetune-7b", "; did you mean nlp-team/finetune-7b?"),
        ("llama", "; did you mean nlp-team/llama-sft?"),
        ("vit", "; did you mean vision-team/vit-pretrain?"),
        ("finetune", "; did you mean nlp-team/finetune-7b or vision-team/sam-finetune?"),
        ("nowhere", ""),
        ("nlp-team/nope", ""),
    ],
)
def test_an_unknown_preemptor_gets_the_close_pod_group_names(
    reference: str, suggestion: str
) -> None:
    assert_error(
        run(["explain", "--preemptor", reference]),
        1,
        f"--preemptor: no pod group or pod {reference!r} in the snapshot {EXPECTED}{suggestion}",
    )


def test_a_name_missing_from_the_namespace_suggests_the_same_name_in_another() -> None:
    assert_error(
        run(["explain", "--preemptor", "chat-api", "-n", "nlp-team"]),
        1,
        "--preemptor: no pod group or pod 'chat-api' in namespace 'nlp-team' of the snapshot "
        f"{EXPECTED}; did you mean serving/chat-api?",
    )


@pytest.mark.parametrize("reference", ["finetune-7b-0", "nlp-team/finetune-7b-3"])
def test_a_pod_names_its_pod_group_as_the_preemptor_and_says_so(reference: str) -> None:
    by_pod = run(["explain", "--preemptor", reference])
    by_group = run(["explain", "--preemptor", FINETUNE])
    assert by_pod.status == 0
    assert by_pod.out == by_group.out
    pod_ref = reference if "/" in reference else f"nlp-team/{reference}"
    assert by_pod.err_lines == [
        f"minruntime: note: --preemptor: pod {pod_ref!r} is in pod group nlp-team/finetune-7b: "
        "that pod group is the preemptor",
        *BUNDLED_WARNINGS,
    ]


def test_a_pod_in_the_namespace_names_its_pod_group() -> None:
    result = run(["explain", "--preemptor", "chat-api-0", "-n", "serving", "-o", "json"])
    assert result.status == 0
    assert result.report["preemptor"]["id"] == CHAT_API
    assert result.err_lines[0] == (
        "minruntime: note: --preemptor: pod 'serving/chat-api-0' is in pod group "
        "serving/chat-api: that pod group is the preemptor"
    )


def test_the_namespace_finds_a_bare_pod_group_name() -> None:
    assert run(["explain", "--preemptor", "finetune-7b", "-n", "nlp-team"]) == run(
        ["explain", "--preemptor", FINETUNE]
    )


def test_a_reference_in_another_namespace_than_the_namespace_option_is_a_usage_error() -> None:
    assert_error(
        run(["explain", "--preemptor", CHAT_API, "--namespace", "nlp-team"]),
        2,
        "--preemptor: 'serving/chat-api' is in namespace 'serving', but --namespace is "
        "'nlp-team' (expected a bare NAME, or NAMESPACE/NAME in that namespace)",
    )


def test_a_reference_in_the_namespace_option_s_namespace_is_accepted() -> None:
    assert run(["explain", "--preemptor", FINETUNE, "-n", "nlp-team"]) == run(
        ["explain", "--preemptor", FINETUNE]
    )


def test_a_pod_name_several_namespaces_use_is_an_error_naming_them(tmp_path: Path) -> None:
    path = write_objects(
        tmp_path / "pods.json",
        queue_object("q"),
        pod_group("a", "ns1", queue="q", minMember=1),
        pod("worker", "a", "ns1", phase="Pending"),
        pod_group("b", "ns2", queue="q", minMember=1),
        pod("worker", "b", "ns2", phase="Pending"),
    )
    assert_error(
        run(["explain", path, "--preemptor", "worker"], now=EXAMPLE_NOW),
        1,
        "--preemptor: pod name 'worker' is ambiguous: ns1/worker (pod group ns1/a), ns2/worker "
        "(pod group ns2/b) (expected NAMESPACE/NAME, or --namespace)",
    )
    one = run(
        ["explain", path, "--preemptor", "worker", "-n", "ns2", "-o", "json"], now=EXAMPLE_NOW
    )
    assert one.report["preemptor"]["id"] == "ns2/b"


def test_a_pod_group_wins_over_a_pod_of_the_same_name(tmp_path: Path) -> None:
    path = write_objects(
        tmp_path / "same.json",
        queue_object("q"),
        pod_group("etl", "ns", queue="q", minMember=1),
        pod("etl-0", "etl", "ns", phase="Pending"),
        pod_group("etl-0", "ns", queue="q", minMember=1),
        pod("etl-0-0", "etl-0", "ns", phase="Pending"),
    )
    result = run(["explain", path, "--preemptor", "etl-0", "-o", "json"], now=EXAMPLE_NOW)
    assert result.report["preemptor"]["id"] == "ns/etl-0"
    assert "note" not in result.err


def test_unknown_preemptor_is_an_error() -> None:
    assert_error(
        run(["explain", "--preemptor", "nlp-team/nope"]),
        1,
        "--preemptor: no pod group or pod 'nlp-team/nope' in the snapshot (expected "
        "NAMESPACE/NAME of a PodGroup or a Pod, or a NAME only one of them has)",
    )


def test_a_unique_bare_name_finds_the_preemptor() -> None:
    assert run(["explain", "--preemptor", "finetune-7b"]) == run(
        ["explain", "--preemptor", FINETUNE]
    )


def test_ambiguous_bare_preemptor_name_is_an_error(tmp_path: Path) -> None:
    path = write_objects(
        tmp_path / "amb.json",
        queue_object("q"),
        pod_group("pg", "ns1", queue="q", minMember=1),
        pod_group("pg", "ns2", queue="q", minMember=1),
    )
    assert_error(
        run(["explain", path, "--preemptor", "pg"]),
        1,
        "--preemptor: pod group name 'pg' is ambiguous: ns1/pg, ns2/pg (expected "
        "NAMESPACE/NAME, or --namespace)",
    )


def test_unknown_preemptor_queue_is_an_error() -> None:
    assert_error(
        run(["explain", "--preemptor-queue", "nope"]),
        1,
        "--preemptor-queue: queue 'nope' is not in the snapshot",
    )

"""The command line of ``minruntime`` (``minruntime.cli._arguments``): the options kubectl
users expect (``-o``, ``-n``, ``--no-headers``, ``--version``) and their errors."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.world import BUNDLED_TEXT, EXAMPLE_INSTANT, FINETUNE, assert_error, decision_of, run

import minruntime
from minruntime.cli import EXAMPLE_NOW


def test_version_prints_the_command_and_its_version() -> None:
    result = run(["--version"])
    assert result.status == 0
    assert result.out == f"minruntime {minruntime.__version__}\n"
    assert result.err == ""


def test_version_is_a_top_level_option_only() -> None:
    assert_error(
        run(["explain", "--version"]),
        2,
        "unrecognized arguments: --version (see minruntime --help)",
    )


@pytest.mark.parametrize("output", ["table", "wide", "json", "yaml"])
def test_o_is_the_short_form_of_output(output: str) -> None:
    short = run(["explain", "--preemptor", FINETUNE, "-o", output])
    assert short.status == 0
    assert short == run(["explain", "--preemptor", FINETUNE, "--output", output])


def test_the_table_is_the_default_output() -> None:
    assert run(["explain"]) == run(["explain", "-o", "table"])


def test_namespace_without_preemptor_is_a_usage_error() -> None:
    assert_error(run(["explain", "-n", "nlp-team"]), 2, "--namespace only applies with --preemptor")


@pytest.mark.parametrize("value", ["nlp-team/x", ""])
def test_a_namespace_with_a_slash_or_empty_is_a_usage_error(value: str) -> None:
    assert_error(
        run(["explain", "--preemptor", "x", f"--namespace={value}"]),
        2,
        f"argument -n/--namespace: invalid namespace {value!r} (expected a namespace name, e.g. "
        "nlp-team) (see minruntime explain --help)",
    )


def test_help_names_the_new_options() -> None:
    text = " ".join(run(["explain", "--help"]).out.split())
    for option in ("-n NAMESPACE, --namespace NAMESPACE", "-o {table,wide,json,yaml}, --output "
                   "{table,wide,json,yaml}", "--no-headers"):  # fmt: skip
        assert option in text
    assert "needs PyYAML, the yaml extra" in text


# -- --now -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "allowed", "reason", "retry"),
    [
        ("2026-11-22T12:04:59Z", False, "protected", "2026-11-22T12:05:00Z"),
        ("2026-11-22T12:05:00Z", True, "eligible", None),
        ("+4m59s", False, "protected", "2026-11-22T12:05:00Z"),
        ("+5m", True, "eligible", None),
        ("1795349099", False, "protected", "2026-11-22T12:05:00Z"),
        ("1795349100", True, "eligible", None),
        ("1795349099.5", False, "protected", "2026-11-22T12:05:00Z"),
    ],
)
def test_now_decides_the_tokenizer_ablation_preempt_across_its_expiry(
    now: str, allowed: bool, reason: str, retry: str | None
) -> None:
    """tokenizer-ablation started 11:55, preempt min-runtime 10m: protected until (not at)
    12:05:00, which is when preempt, short of GPUs, may retry; once it is free, no protection
    that ends would free more for preempt."""
    report = run(["explain", "--preemptor", FINETUNE, "--now", now, "--output", "json"]).report
    decision = decision_of(report, "nlp-team/tokenizer-ablation")
    assert (decision["action"], decision["allowed"], decision["reason"]) == (
        "preempt",
        allowed,
        reason,
    )
    assert decision["protectedUntil"] == "2026-11-22T12:05:00Z"
    assert decision["evictable"] == ([] if not allowed else ["tokenizer-ablation-0"])
    plans = {plan["action"]: plan for plan in report["plans"]}
    assert plans["preempt"]["retryAt"] == retry  # preempt alone leaves GPUs missing
    assert plans["reclaim"]["retryAt"] is None  # reclaim frees the 32 GPUs now
    assert report["retryAt"] is None  # so the preemptor need not wait


@pytest.mark.parametrize(
    ("now", "shown"),
    [
        ("+5m", "2026-11-22T12:05:00Z"),
        ("+1h30m", "2026-11-22T13:30:00Z"),
        ("=-1h", "2026-11-22T11:00:00Z"),  # argparse takes a leading '-' only after '='
        ("1795349100", "2026-11-22T12:05:00Z"),
        ("1795349099.5", "2026-11-22T12:04:59.500000Z"),
        ("2026-11-22T13:05:00+01:00", "2026-11-22T12:05:00Z"),
    ],
)
def test_now_accepts_rfc3339_posix_seconds_and_offsets(now: str, shown: str) -> None:
    option = ["--now" + now] if now.startswith("=") else ["--now", now]
    assert run(["explain", *option, "--output", "json"]).report["now"] == shown


def test_now_shows_in_the_table_header_and_moves_the_retry_line() -> None:
    lines = run(["explain", "--preemptor", FINETUNE, "--now", "+5m"]).out.splitlines()
    assert lines[1] == "Evaluated at 2026-11-22T12:05:00Z; the times below are UTC"
    (row,) = [line for line in lines if line.startswith("  nlp-team/tokenizer-ablation ")]
    assert row.split() == [
        "nlp-team/tokenizer-ablation",
        "yes",
        "eligible",
        "10m",
        "(research)",
        "ended",
        "0.17",  # GPU-hours: ten minutes since its start, one GPU
        "2",  # the second preempt victim, after data-dedup (never started: nothing lost)
    ]
    assert lines[lines.index(row) + 1] == "      evictable: tokenizer-ablation-0"
    assert lines[-1] == "No retry: reclaim frees what the pending pods need now."


def test_a_file_without_now_is_evaluated_at_the_injected_clock(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(BUNDLED_TEXT, encoding="utf-8")
    clock = datetime(2026, 11, 22, 12, 5, tzinfo=UTC)
    report = run(["explain", str(path), "--preemptor", FINETUNE, "--output", "json"], now=clock)
    assert report.report["now"] == "2026-11-22T12:05:00Z"
    assert decision_of(report.report, "nlp-team/tokenizer-ablation")["allowed"] is True


def test_an_offset_on_a_file_is_from_the_injected_clock(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(BUNDLED_TEXT, encoding="utf-8")
    clock = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    report = run(["explain", str(path), "--now", "+4m59s", "--output", "json"], now=clock).report
    assert report["now"] == "2026-11-22T12:04:59Z"


def test_the_bundled_example_is_evaluated_at_its_own_instant_not_the_clock() -> None:
    report = run(["explain", "--output", "json"], now=datetime(2030, 1, 1, tzinfo=UTC)).report
    assert report["now"] == EXAMPLE_INSTANT
    assert datetime(2026, 11, 22, 12, 0, tzinfo=UTC) == EXAMPLE_NOW


# -- usage errors and help -------------------------------------------------------------------------


def test_priority_without_preemptor_queue_is_a_usage_error() -> None:
    result = run(["explain", "--priority", "5"])
    assert result.status == 2
    assert result.out == ""
    assert result.err_lines == ["minruntime: error: --priority only applies with --preemptor-queue"]


def test_priority_with_preemptor_is_a_usage_error() -> None:
    result = run(["explain", "--preemptor", FINETUNE, "--priority", "5"])
    assert result.status == 2
    assert result.err_lines == ["minruntime: error: --priority only applies with --preemptor-queue"]


def test_bad_now_is_a_usage_error() -> None:
    assert_error(
        run(["explain", "--now", "yesterday"]),
        2,
        "--now: invalid time 'yesterday' (expected RFC 3339 like 2026-11-22T12:00:00Z, POSIX "
        "seconds, or an offset like +15m)",
    )


def test_bad_now_offset_is_a_usage_error() -> None:
    assert_error(
        run(["explain", "--now", "+5x"]),
        2,
        "--now: invalid offset '+5x' (expected e.g. +15m or -1h30m; write a negative offset as "
        "--now=-15m)",
    )


def test_bad_negative_now_offset_names_the_value_given() -> None:
    """docs/spec/errors.md: the message names the offending value, as the user wrote it."""
    result = run(["explain", "--now=-5x"])
    assert result.status == 2
    assert "Traceback" not in result.err
    (line,) = result.err_lines
    assert line.startswith("minruntime: error: ")
    assert "'-5x'" in line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["explain", "--bogus"],
            "minruntime: error: unrecognized arguments: --bogus (see minruntime --help)",
        ),
        (
            ["explain", "--output", "xml"],
            "minruntime: error: argument -o/--output: invalid choice: 'xml' "
            "(choose from 'table', 'wide', 'json', 'yaml') (see minruntime explain --help)",
        ),
        (
            ["explain", "--preemptor", FINETUNE, "--preemptor-queue", "research-nlp"],
            "minruntime: error: argument --preemptor-queue: not allowed with argument "
            "--preemptor (see minruntime explain --help)",
        ),
        (
            ["explain", "--priority", "high"],
            "minruntime: error: argument --priority: invalid priority 'high' (expected an "
            "integer from -2147483648 to 2147483647) (see minruntime explain --help)",
        ),
    ],
)
def test_argparse_errors_exit_2_on_the_given_stderr(args: list[str], message: str) -> None:
    result = run(args)
    assert result.status == 2
    assert result.out == ""
    assert result.err.splitlines() == [message]


def test_help_prints_to_the_given_stdout_and_exits_0() -> None:
    result = run(["explain", "--help"])
    assert result.status == 0
    assert result.out.startswith("usage: minruntime explain [-h]")
    assert result.err == ""

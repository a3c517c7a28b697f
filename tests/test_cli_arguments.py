"""The command line of ``minruntime`` (``minruntime.cli._arguments``): the options kubectl
users expect (``-o``, ``-n``, ``--no-headers``, ``--version``) and their errors."""

from __future__ import annotations

import pytest
from tests.test_cli import FINETUNE, assert_error, run

import minruntime


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

"""``-o yaml`` (``minruntime.cli._yaml``): the JSON document's content, as YAML."""

from __future__ import annotations

import json
import sys

import pytest
import yaml
from tests.world import FINETUNE, assert_error, run

from minruntime.cli._yaml import yaml_text


@pytest.mark.parametrize("extra", [[], ["--preemptor", FINETUNE], ["--queues"]])
def test_the_yaml_document_is_the_json_document(extra: list[str]) -> None:
    as_yaml = run(["explain", *extra, "-o", "yaml"])
    as_json = run(["explain", *extra, "-o", "json"])
    assert as_yaml.status == 0
    assert yaml.safe_load(as_yaml.out) == json.loads(as_json.out)
    assert as_yaml.err == as_json.err


def test_the_yaml_document_starts_with_the_schema_and_keeps_the_key_order() -> None:
    lines = run(["explain", "-o", "yaml"]).out.splitlines()
    assert lines[:8] == [
        "schema: minruntime.explain/v4",
        "now: '2026-11-22T12:00:00Z'",
        "sources:",
        "- the bundled example",
        "config:",
        "  defaultPreemptMinRuntime: 5m",
        "  defaultReclaimMinRuntime: 15m",
        "  reclaimResolveMethod: lca",
    ]


def test_yaml_text_escapes_what_a_terminal_must_not_receive_and_reads_back() -> None:
    data = {"name": "a\x1b[2Jb\u202ec\u00e9", "plain": "no", "long": "x " * 100}
    text = yaml_text(data)
    assert text.isascii()
    assert "\x1b" not in text
    assert len(text.splitlines()) == 3  # a long string stays on its line
    assert yaml.safe_load(text) == data


def test_yaml_without_pyyaml_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml raises ModuleNotFoundError
    assert_error(
        run(["explain", "-o", "yaml"]),
        2,
        "-o yaml needs PyYAML, which is not installed: pip install PyYAML (the yaml extra: "
        'pip install ".[yaml]" in a clone of the repository), or use -o json',
    )

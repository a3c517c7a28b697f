"""Reading the snapshot's sources (``minruntime.cli._sources``): files, standard input,
several of them together, and the errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.world import (
    BUNDLED_TEXT,
    CHAT_API,
    EXAMPLE_INSTANT,
    FINETUNE,
    JSON,
    assert_error,
    run,
    write_objects,
)

from minruntime.cli import EXAMPLE_NOW


def _without_sources(report: JSON) -> JSON:
    return {key: value for key, value in report.items() if key != "sources"}


def test_dash_reads_the_snapshot_from_stdin() -> None:
    piped = run(["explain", "-", "--now", EXAMPLE_INSTANT, "--output", "json"], stdin=BUNDLED_TEXT)
    bundled = run(["explain", "--output", "json"])
    assert piped.status == 0
    assert piped.report["sources"] == ["-"]
    assert _without_sources(piped.report) == _without_sources(bundled.report)


def test_dash_table_differs_from_the_bundled_run_only_in_the_source_name() -> None:
    piped = run(["explain", "-", "--now", EXAMPLE_INSTANT], stdin=BUNDLED_TEXT)
    bundled = run(["explain"])
    assert piped.out.splitlines()[0] == (
        "Snapshot: standard input (9 queues, 22 pod groups, 20 running)"
    )
    assert piped.out.splitlines()[1:] == bundled.out.splitlines()[1:]
    assert piped.err == bundled.err


def test_a_file_argument_reads_that_file(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(BUNDLED_TEXT, encoding="utf-8")
    args = ["--preemptor", FINETUNE, "--now", EXAMPLE_INSTANT, "--output", "json"]
    from_file = run(["explain", str(path), *args])
    bundled = run(["explain", *args])
    assert from_file.status == 0
    assert from_file.report["sources"] == [str(path)]
    assert _without_sources(from_file.report) == _without_sources(bundled.report)


def test_two_files_together_make_one_snapshot(tmp_path: Path) -> None:
    items = json.loads(BUNDLED_TEXT)["items"]
    queues = [item for item in items if item["kind"] == "Queue"]
    rest = [item for item in items if item["kind"] != "Queue"]
    first = write_objects(tmp_path / "queues.json", *queues)
    second = write_objects(tmp_path / "rest.json", *rest)
    args = ["--preemptor", CHAT_API, "--now", EXAMPLE_INSTANT, "--output", "json"]
    split = run(["explain", first, second, *args])
    bundled = run(["explain", *args])
    assert split.status == 0
    assert split.report["sources"] == [first, second]
    assert _without_sources(split.report) == _without_sources(bundled.report)


def test_stdin_and_a_file_combine(tmp_path: Path) -> None:
    items = json.loads(BUNDLED_TEXT)["items"]
    queues = json.dumps([item for item in items if item["kind"] == "Queue"])
    rest = write_objects(tmp_path / "rest.json", *[i for i in items if i["kind"] != "Queue"])
    result = run(["explain", "-", rest, "--now", EXAMPLE_INSTANT, "--output", "json"], stdin=queues)
    assert result.report["sources"] == ["-", rest]
    assert result.report["queues"] == 9
    assert result.report["podGroups"] == 22


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    path = str(tmp_path / "missing.json")
    assert_error(run(["explain", path]), 1, f"{path}: No such file or directory")


def test_directory_is_an_error(tmp_path: Path) -> None:
    assert_error(run(["explain", str(tmp_path)]), 1, f"{tmp_path}: Is a directory")


def test_invalid_json_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{bad\n")
    result = run(["explain", str(path)])
    assert result.status == 1
    assert "Traceback" not in result.err
    (line,) = result.err_lines
    assert line.startswith(f"minruntime: error: {path}: not valid JSON")
    assert "Expecting property name enclosed in double quotes: line 1 column 2" in line


def test_invalid_json_on_stdin_names_stdin() -> None:
    result = run(["explain", "-"], stdin="{bad\n")
    assert result.status == 1
    (line,) = result.err_lines
    assert line.startswith("minruntime: error: <stdin>: not valid JSON (")


def test_non_utf8_file_is_an_error_naming_the_file(tmp_path: Path) -> None:
    """docs/spec/errors.md: every message names the offending value and where it came from."""
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe{}")
    result = run(["explain", str(path)])
    assert result.status == 1
    assert "Traceback" not in result.err
    (line,) = result.err_lines
    assert line.startswith("minruntime: error: ")
    assert str(path) in line


def test_json_that_is_not_objects_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "numbers.json"
    path.write_text("[1, 2]")
    assert_error(
        run(["explain", str(path)]), 1, f"{path}: expected Kubernetes objects, found int 1"
    )


def test_an_error_in_one_of_several_files_names_that_file(tmp_path: Path) -> None:
    good = tmp_path / "queues.json"
    good.write_text(
        json.dumps(
            {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}}
        )
    )
    bad = tmp_path / "groups.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: scheduler-config, namespace: kai}\n"
        "data: {config.yaml: 'tiers: 3'}\n"
    )
    result = run(["explain", str(good), str(bad)], now=EXAMPLE_NOW)
    assert result.status == 1
    assert result.err_lines == [
        f"minruntime: error: {bad}: invalid configuration in ConfigMap/kai/scheduler-config "
        "data['config.yaml']: looks like a scheduler config (it mentions 'tiers') but cannot be "
        "read: tiers: expected a list, got int"
    ]


def test_standard_input_may_be_given_only_once() -> None:
    assert_error(
        run(["explain", "-", "-"], stdin=BUNDLED_TEXT),
        2,
        "- (standard input) may be given only once",
    )

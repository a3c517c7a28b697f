"""The ``minruntime`` command as a whole (``minruntime.cli.main``), run in-process with injected
streams: the commands, the streams and exit statuses, the golden output, the collector.
Each module of ``minruntime.cli`` has its own test file (``test_cli_<module>.py``); the shared
runner (:func:`tests.world.run`) and the bundled example's names are in ``tests/world.py``.

The golden files in ``tests/golden/`` hold the exact output of ``minruntime explain`` on the
bundled example cluster (``src/minruntime/data/example-cluster.json``, evaluated at
2026-11-22T12:00:00Z). To regenerate them after a deliberate change of the output::

    MINRUNTIME_UPDATE_GOLDEN=1 python -m pytest tests/test_cli.py

The run that regenerates fails on purpose (so that CI never passes by rewriting its own
expectations); read the diff of ``tests/golden/`` before committing it.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.world import (
    BUNDLED_TEXT,
    BUNDLED_WARNINGS,
    CHAT_API,
    EXAMPLE_INSTANT,
    FINETUNE,
    assert_error,
    pod_group,
    queue_object,
    run,
    write_objects,
)

from minruntime.cli import JSON_SCHEMA_ID, main

# -- golden output, and the warnings on stderr -----------------------------------------------------

GOLDEN = Path(__file__).resolve().parent / "golden"


UPDATE_GOLDEN = os.environ.get("MINRUNTIME_UPDATE_GOLDEN") == "1"


GOLDEN_CASES = [
    pytest.param("explain", [], id="no-preemptor"),
    pytest.param("explain-finetune-7b", ["--preemptor", FINETUNE], id="finetune-7b"),
    pytest.param("explain-chat-api", ["--preemptor", CHAT_API], id="chat-api"),
]


@pytest.mark.parametrize("output", ["table", "json"])
@pytest.mark.parametrize(("stem", "extra"), GOLDEN_CASES)
def test_explain_bundled_example_matches_golden_file(
    stem: str, extra: list[str], output: str
) -> None:
    result = run(["explain", *extra, "--output", output])
    path = GOLDEN / f"{stem}.{'txt' if output == 'table' else 'json'}"
    if UPDATE_GOLDEN:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(result.out, encoding="utf-8")
        pytest.fail(f"golden file {path} updated (MINRUNTIME_UPDATE_GOLDEN=1); rerun without it")
    assert result.status == 0
    assert result.out == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("stem", "extra"), GOLDEN_CASES)
def test_explain_table_writes_the_bundled_warnings_to_stderr(stem: str, extra: list[str]) -> None:
    result = run(["explain", *extra])
    assert result.err_lines == BUNDLED_WARNINGS


@pytest.mark.parametrize("output", ["json", "yaml"])
def test_explain_documents_write_the_warnings_to_stderr_and_carry_them(output: str) -> None:
    result = run(["explain", "-o", output])
    assert result.err_lines == BUNDLED_WARNINGS
    document = json.loads(result.out) if output == "json" else yaml.safe_load(result.out)
    assert document["warnings"] == [line.split(": warning: ", 1)[1] for line in BUNDLED_WARNINGS]


# -- the default command ---------------------------------------------------------------------------


def test_no_arguments_is_explain_of_the_bundled_example() -> None:
    assert run([]) == run(["explain"])


def test_options_without_a_command_go_to_explain() -> None:
    assert run(["--preemptor", CHAT_API, "--output", "json"]) == run(
        ["explain", "--preemptor", CHAT_API, "--output", "json"]
    )


# -- what reading found: warnings and errors, one line each ----------------------------------------


def test_queue_with_a_bad_duration_is_read_without_it_with_a_warning(tmp_path: Path) -> None:
    path = write_objects(tmp_path / "q.json", queue_object("prod", reclaimMinRuntime="1x"))
    result = run(["explain", path])
    assert result.status == 0
    assert (
        "minruntime: warning: Queue/prod spec.reclaimMinRuntime: invalid duration '1x': unknown "
        "unit 'x' (expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never); ignored"
    ) in result.err_lines


def test_pod_group_without_queue_is_left_out_with_a_warning(tmp_path: Path) -> None:
    path = write_objects(
        tmp_path / "pg.json", queue_object("q"), pod_group("pg", "ns", queue=None, minMember=1)
    )
    result = run(["explain", path])
    assert result.status == 0
    assert (
        "minruntime: warning: PodGroup/ns/pg spec.queue: missing (required); left out"
    ) in result.err_lines


def test_queue_tree_problems_are_one_line_each(tmp_path: Path) -> None:
    path = write_objects(
        tmp_path / "tree.json",
        queue_object("a", parentQueue="b"),
        queue_object("b", parentQueue="a"),
        queue_object("c", parentQueue="missing"),
        queue_object("c"),
    )
    assert_error(
        run(["explain", path]),
        1,
        "invalid queue tree: duplicate queue name 'c' (2 queues)",
        "invalid queue tree: queue 'c' has parent 'missing', which is not in the tree",
        "invalid queue tree: cycle in parent links: 'a' -> 'b' -> 'a'",
    )


def test_bad_queue_values_are_warnings_beside_the_tree_problems(tmp_path: Path) -> None:
    """docs/spec/kubernetes.md: a bad value is ignored with a warning; the tree's cycle stops."""
    path = write_objects(
        tmp_path / "tree.json",
        queue_object("a", parentQueue="b"),
        queue_object("b", parentQueue="a"),
        queue_object("d", reclaimMinRuntime="5x"),
        queue_object("e", preemptMinRuntime="-2m"),
    )
    result = run(["explain", path])
    assert result.status == 1
    assert "Traceback" not in result.err
    assert result.err_lines == [
        "minruntime: error: invalid queue tree: cycle in parent links: 'a' -> 'b' -> 'a'"
    ]


def test_orphans_as_top_level_turns_a_missing_parent_into_a_warning(tmp_path: Path) -> None:
    path = write_objects(tmp_path / "tree.json", queue_object("c", parentQueue="missing"))
    args = ["explain", path, "--now", EXAMPLE_INSTANT, "--output", "json"]
    assert run(args).status == 1
    result = run([*args, "--orphans-as-top-level"])
    assert result.status == 0
    assert result.report["queues"] == 1


def test_strict_times_rejects_the_bundled_unparseable_start_time() -> None:
    assert_error(
        run(["explain", "--strict-times"]),
        1,
        "invalid timestamp '2026-11-22 11:00' in PodGroup/nlp-team/data-dedup "
        "metadata.annotations['kai.scheduler/last-start-timestamp'] (expected RFC 3339 with a "
        "zone, e.g. '2026-11-22T11:50:00Z')",
    )


# -- the real entry point --------------------------------------------------------------------------


def test_python_dash_m_minruntime_prints_the_json_report() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "minruntime", "explain", "--output", "json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert completed.returncode == 0
    assert completed.stderr.splitlines() == BUNDLED_WARNINGS
    report = json.loads(completed.stdout)
    assert report["schema"] == JSON_SCHEMA_ID
    assert completed.stdout == run(["explain", "--output", "json"]).out


class _ClosedPipe(io.StringIO):
    """A reader that went away, like ``head`` after its first line."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_going_away_stops_the_command_quietly() -> None:
    err = io.StringIO()
    status = main(["explain"], stdin=io.StringIO(), stdout=_ClosedPipe(), stderr=err)
    assert status == 141
    assert err.getvalue() == ""


# -- simulate: the separate minruntime-sim distribution --------------------------------------------


def test_simulate_without_minruntime_sim_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "minruntime_sim.cli", None)  # as if not installed
    out, err = io.StringIO(), io.StringIO()
    assert main(["simulate", "philly"], stdout=out, stderr=err) == 2
    assert out.getvalue() == ""
    assert err.getvalue() == (
        "minruntime: error: simulate needs the minruntime-sim distribution, which is not "
        'installed: from a clone of this repository, pip install "./sim"\n'
    )


def test_simulate_does_not_hide_a_missing_module_inside_minruntime_sim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the simulator itself missing is a usage message; a bug inside it stays a bug."""
    import importlib

    def broken(name: str) -> object:
        raise ModuleNotFoundError("No module named 'tqdm'", name="tqdm")

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="tqdm"):
        main(["simulate", "philly"], stdout=io.StringIO(), stderr=io.StringIO())


def test_times_from_the_clock_show_no_microseconds(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(BUNDLED_TEXT, encoding="utf-8")
    clock = datetime(2026, 11, 22, 12, 0, 0, 654321, tzinfo=UTC)
    table = run(["explain", str(path), "--preemptor", FINETUNE], now=clock).out.splitlines()
    assert "Evaluated at 2026-11-22T12:00:00Z; the times below are UTC" in table
    report = run(["explain", str(path), "--now", "+5m", "--output", "json"], now=clock).report
    assert report["now"] == "2026-11-22T12:05:00Z"


def test_strict_turns_the_reading_warnings_into_errors_that_say_the_snapshot_is_refused() -> None:
    """Under --strict a warning does not say what lenient reading would do ("ignored",
    "treated as no start time", "used as given"): the snapshot is refused."""
    result = run(["explain", "--strict"])
    refused = "the snapshot is refused (strict reading)"
    assert_error(
        result,
        1,
        "--strict: PodGroup/batch/nightly-eval-29921880: skipped invalid preemptibility "
        f"'sometimes' in label on Job/nightly-eval-29921880; {refused}",
        "--strict: invalid timestamp '2026-11-22 11:00' in PodGroup/nlp-team/data-dedup "
        "metadata.annotations['kai.scheduler/last-start-timestamp'] (expected RFC 3339 with a "
        f"zone, e.g. '2026-11-22T11:50:00Z'); {refused}",
        "--strict: PodGroup/serving/reranker-canary metadata.annotations"
        "['kai.scheduler/last-start-timestamp']: 2026-11-22T12:00:05+00:00 is after now "
        f"(2026-11-22T12:00:00+00:00); {refused}",
        "--strict: 15 of 22 pod groups have no preemptibility set and fall back on the legacy "
        "priority rule (priority < 100 is preemptible); set spec.preemptibility or the "
        "kai.scheduler/preemptibility label to make it explicit",
    )
    assert "ignored" not in result.err
    assert "treated as" not in result.err


def test_strict_passes_a_snapshot_read_without_warnings(tmp_path: Path) -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "scheduler"},
              "data": {"config.json": json.dumps({"tiers": [{"plugins": [{"name": "minruntime"}]}]})}}  # fmt: skip
    path = write_objects(tmp_path / "clean.json", queue_object("q"), config)
    result = run(["explain", path, "--strict", "--now", EXAMPLE_INSTANT])
    assert (result.status, result.err) == (0, "")


# -- the collector ---------------------------------------------------------------------------------


def test_explain_runs_without_the_collector_from_the_parse_on_then_puts_it_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    import minruntime.cli as cli

    seen: dict[str, tuple[int, bool]] = {}
    parse, read = getattr(cli, "read_sources"), getattr(cli, "read_snapshot")  # noqa: B009
    build = getattr(cli, "build_report")  # noqa: B009

    def parsing(*args: Any, **kwargs: Any) -> Any:
        seen["parsing"] = (gc.get_freeze_count(), gc.isenabled())
        return parse(*args, **kwargs)

    def reading(*args: Any, **kwargs: Any) -> Any:
        seen["reading"] = (gc.get_freeze_count(), gc.isenabled())
        return read(*args, **kwargs)

    def building(*args: Any, **kwargs: Any) -> Any:
        seen["reporting"] = (gc.get_freeze_count(), gc.isenabled())
        return build(*args, **kwargs)

    monkeypatch.setattr(cli, "read_sources", parsing)
    monkeypatch.setattr(cli, "read_snapshot", reading)
    monkeypatch.setattr(cli, "build_report", building)
    gc.collect()
    assert (gc.get_freeze_count(), gc.isenabled()) == (0, True)
    assert run(["explain", "--now", EXAMPLE_INSTANT]).status == 0
    # off while the input is parsed, read and reported on; nothing frozen; on once it ends
    assert seen == {"parsing": (0, False), "reading": (0, False), "reporting": (0, False)}
    assert (gc.get_freeze_count(), gc.isenabled()) == (0, True)


def test_explain_puts_the_collector_back_when_it_fails(tmp_path: Path) -> None:
    import gc

    path = tmp_path / "bad.json"
    path.write_text('{"kind": "Queue", "kind": "Pod"}', encoding="utf-8")
    result = run(["explain", str(path)])
    assert result.status == 1
    assert "duplicate key 'kind'" in result.err
    assert gc.isenabled()


@pytest.mark.parametrize("extra", [[], ["--preemptor", FINETUNE, "--output", "json"]])
def test_what_explain_builds_holds_no_reference_cycle(
    monkeypatch: pytest.MonkeyPatch, extra: list[str]
) -> None:
    """The collector is off from the parse to the end of the command: nothing built there may
    be garbage that only the collector would find (the bundled cluster has sub-group trees)."""
    import gc

    import minruntime.cli as cli

    found: list[int] = []
    parse = getattr(cli, "read_sources")  # noqa: B009
    work = getattr(cli, "_explain_objects")  # noqa: B009

    def parsing(*args: Any, **kwargs: Any) -> Any:
        gc.collect()  # what the test and the command's start left
        gc.freeze()  # from here on, a collection finds only what the command builds
        parsed = parse(*args, **kwargs)
        found.append(gc.collect())
        return parsed

    def working(*args: Any, **kwargs: Any) -> Any:
        status = work(*args, **kwargs)
        found.append(gc.collect())
        return status

    monkeypatch.setattr(cli, "read_sources", parsing)
    monkeypatch.setattr(cli, "_explain_objects", working)
    try:
        assert run(["explain", "--now", EXAMPLE_INSTANT, *extra]).status == 0
    finally:
        gc.unfreeze()
    assert found == [0, 0]


def test_explain_leaves_a_collector_that_was_off_off() -> None:
    import gc

    gc.disable()
    try:
        assert run(["explain", "--now", EXAMPLE_INSTANT]).status == 0
        assert (gc.get_freeze_count(), gc.isenabled()) == (0, False)
    finally:
        gc.enable()


def test_explain_leaves_what_something_else_froze_frozen() -> None:
    import gc

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        assert run(["explain", "--now", EXAMPLE_INSTANT]).status == 0
        # nothing unfrozen (frozen objects may die: the count may fall, never rise), and the
        # collector on again
        assert 0 < gc.get_freeze_count() <= frozen
        assert gc.isenabled()
    finally:
        gc.unfreeze()

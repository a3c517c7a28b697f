"""The ``minruntime`` command (``minruntime.cli.main``), run in-process with injected streams.

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
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.world import JSON, pod, pod_group, queue_object

from minruntime.cli import EXAMPLE_NOW, JSON_SCHEMA_ID, main, worked_example

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE_GOLDEN = os.environ.get("MINRUNTIME_UPDATE_GOLDEN") == "1"

BUNDLED_TEXT = (
    resources.files("minruntime").joinpath("data/example-cluster.json").read_text(encoding="utf-8")
)
EXAMPLE_INSTANT = "2026-11-22T12:00:00Z"
FINETUNE = "nlp-team/finetune-7b"
CHAT_API = "serving/chat-api"

BUNDLED_WARNINGS = [
    "minruntime: warning: PodGroup/batch/nightly-eval-29921880: skipped invalid preemptibility "
    "'sometimes' in label on Job/nightly-eval-29921880",
    "minruntime: warning: invalid timestamp '2026-11-22 11:00' in PodGroup/nlp-team/data-dedup "
    "metadata.annotations['kai.scheduler/last-start-timestamp'] (expected RFC 3339 with a zone, "
    "e.g. '2026-11-22T11:50:00Z'); treated as no start time",
    "minruntime: warning: PodGroup/serving/reranker-canary "
    "metadata.annotations['kai.scheduler/last-start-timestamp']: 2026-11-22T12:00:05+00:00 is "
    "after now (2026-11-22T12:00:00+00:00); used as given (a clock skew, or a wrong --now?)",
    "minruntime: warning: 15 of 22 pod groups have no preemptibility set and fall back on the "
    "legacy priority rule (priority < 100 is preemptible); set spec.preemptibility or the "
    "kai.scheduler/preemptibility label to make it explicit",
]


@dataclass(frozen=True)
class Run:
    """What one ``main`` call returned and wrote."""

    status: int
    out: str
    err: str

    @property
    def report(self) -> JSON:
        data = json.loads(self.out)
        assert isinstance(data, dict)
        return data

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def run(args: list[str], *, stdin: str = "", now: datetime | None = None) -> Run:
    """Run ``main(args)`` with string streams; ``now`` stands in for the clock."""
    out, err = io.StringIO(), io.StringIO()
    status = main(args, stdin=io.StringIO(stdin), stdout=out, stderr=err, now=now)
    return Run(status, out.getvalue(), err.getvalue())


def decision_of(report: JSON, job_id: str) -> JSON:
    """The decision entry of the running job ``job_id`` in a report."""
    (entry,) = [job for job in report["jobs"] if job["id"] == job_id]
    decision = entry["decision"]
    assert isinstance(decision, dict)
    return decision


def write_objects(path: Path, *objects: JSON) -> str:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}))
    return str(path)


# -- golden output ------------------------------------------------------------------------------

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


def test_explain_table_header_names_the_snapshot_and_the_instant() -> None:
    lines = run(["explain"]).out.splitlines()
    assert lines[:3] == [
        "Snapshot: the bundled example (9 queues, 22 pod groups, 20 running)",
        "Evaluated at 2026-11-22T12:00:00Z; the times below are UTC",
        "Defaults: preempt min-runtime 5m, reclaim min-runtime 15m, reclaim resolve method lca",
    ]


def test_explain_retry_line_gives_the_earliest_expiry_for_each_preemptor() -> None:
    finetune = run(["explain", "--preemptor", FINETUNE]).out.splitlines()
    chat = run(["explain", "--preemptor", CHAT_API]).out.splitlines()
    assert finetune[-1] == (
        "Retry at 2026-11-22T12:05:00Z: the next protection that would free a victim ends then."
    )
    assert chat[-1] == (
        "Retry at 2026-11-22T12:10:00Z: the next protection that would free a victim ends then."
    )


# -- the default command and the worked example -------------------------------------------------


def test_no_arguments_is_explain_of_the_bundled_example() -> None:
    assert run([]) == run(["explain"])


def test_options_without_a_command_go_to_explain() -> None:
    assert run(["--preemptor", CHAT_API, "--output", "json"]) == run(
        ["explain", "--preemptor", CHAT_API, "--output", "json"]
    )


def test_example_prints_the_worked_example() -> None:
    result = run(["example"])
    assert result.status == 0
    assert result.err == ""
    assert result.out == worked_example() + "\n"
    lines = result.out.splitlines()
    assert lines[0] == "minruntime worked example, evaluated at 2026-11-22T12:00:00Z"
    section4 = [
        "  leaf1 reclaims from leaf3: 1m from queue 'D'",
        "  leaf1 reclaims from leaf2: 3m from queue 'leaf2'",
        "  leaf3 reclaims from leaf1: 10m from queue 'B'",
        "Preempt min-runtime (walk up from the victim's queue):",
        "  victim in leaf1: 5m from queue 'leaf1'",
        "  victim in leaf2: 10m from queue 'B'",
    ]
    start = lines.index("Reclaim min-runtime by lowest common ancestor (docs/spec/resolution.md):")
    assert lines[start + 1 : start + 1 + len(section4)] == section4


def test_example_ignores_the_injected_clock() -> None:
    assert run(["example"], now=datetime(2030, 1, 1, tzinfo=UTC)) == run(["example"])


# -- reading snapshots --------------------------------------------------------------------------


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


# -- --now --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "allowed", "reason", "retry"),
    [
        ("2026-11-22T12:04:59Z", False, "protected", "2026-11-22T12:05:00Z"),
        ("2026-11-22T12:05:00Z", True, "eligible", "2026-11-22T12:20:00Z"),
        ("+4m59s", False, "protected", "2026-11-22T12:05:00Z"),
        ("+5m", True, "eligible", "2026-11-22T12:20:00Z"),
        ("1795349099", False, "protected", "2026-11-22T12:05:00Z"),
        ("1795349100", True, "eligible", "2026-11-22T12:20:00Z"),
        ("1795349099.5", False, "protected", "2026-11-22T12:05:00Z"),
    ],
)
def test_now_decides_the_tokenizer_ablation_preempt_across_its_expiry(
    now: str, allowed: bool, reason: str, retry: str
) -> None:
    """tokenizer-ablation started 11:55, preempt MR 10m: protected until (not at) 12:05:00."""
    report = run(["explain", "--preemptor", FINETUNE, "--now", now, "--output", "json"]).report
    decision = decision_of(report, "nlp-team/tokenizer-ablation")
    assert (decision["action"], decision["allowed"], decision["reason"]) == (
        "preempt",
        allowed,
        reason,
    )
    assert decision["protectedUntil"] == "2026-11-22T12:05:00Z"
    assert decision["evictable"] == ([] if not allowed else ["tokenizer-ablation-0"])
    assert report["retryAt"] == retry


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
    assert lines[-1] == (
        "Retry at 2026-11-22T12:20:00Z: the next protection that would free a victim ends then."
    )


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


# -- a hypothetical preemptor -------------------------------------------------------------------


def test_preemptor_queue_defaults_to_a_priority_above_every_job() -> None:
    result = run(["explain", "--preemptor-queue", "research-nlp"])
    assert result.status == 0
    assert result.out.splitlines()[4] == (
        "Preemptor: hypothetical job (hypothetical) in queue research-nlp, priority 126, "
        "0 pending pods"
    )
    report = run(["explain", "--preemptor-queue", "research-nlp", "--output", "json"]).report
    assert report["preemptor"] == {
        "id": "(hypothetical)",
        "queue": "research-nlp",
        "priority": 126,
        "hypothetical": True,
        "pendingPods": 0,
        "needed": 0,
    }
    # llama-sft's priority 100 is below 126 (finetune-7b's 75 is not): elastic and preempt-
    # protected until 12:02, so only its workers above min_available may go.
    llama = decision_of(report, "nlp-team/llama-sft")
    assert (llama["action"], llama["allowed"], llama["reason"]) == ("preempt", True, "deferred")
    assert llama["protectedUntil"] == "2026-11-22T12:02:00Z"
    assert llama["evictable"] == ["llama-sft-workers-3", "llama-sft-workers-2"]
    assert len(report["jobs"]) == 20


def test_preemptor_queue_with_an_explicit_priority() -> None:
    args = ["explain", "--preemptor-queue", "research-nlp", "--priority", "50", "--output", "json"]
    report = run(args).report
    assert report["preemptor"]["priority"] == 50
    bert = decision_of(report, "nlp-team/bert-distill")
    assert (bert["action"], bert["allowed"], bert["reason"]) == (
        "preempt",
        False,
        "not-lower-priority",
    )
    # reclaim ignores priority: vision's segformer-eval (2h since 09:45) is still reclaimable.
    segformer = decision_of(report, "vision-team/segformer-eval")
    assert (segformer["action"], segformer["allowed"], segformer["reason"]) == (
        "reclaim",
        True,
        "eligible",
    )


def test_preemptor_queue_in_production_meets_never() -> None:
    report = run(["explain", "--preemptor-queue", "prod-inference", "--output", "json"]).report
    sdxl = decision_of(report, "serving/sdxl-render")
    assert (sdxl["allowed"], sdxl["reason"], sdxl["minRuntime"], sdxl["protectedUntil"]) == (
        False,
        "never",
        "never",
        "never",
    )


def test_priority_without_preemptor_queue_is_a_usage_error() -> None:
    result = run(["explain", "--priority", "5"])
    assert result.status == 2
    assert result.out == ""
    assert result.err_lines == ["minruntime: error: --priority only applies with --preemptor-queue"]


def test_priority_with_preemptor_is_a_usage_error() -> None:
    result = run(["explain", "--preemptor", FINETUNE, "--priority", "5"])
    assert result.status == 2
    assert result.err_lines == ["minruntime: error: --priority only applies with --preemptor-queue"]


# -- errors -------------------------------------------------------------------------------------


def assert_error(result: Run, status: int, *lines: str) -> None:
    """The run failed with ``status``, printed nothing on stdout and exactly ``lines``."""
    assert result.status == status
    assert result.out == ""
    assert "Traceback" not in result.err
    assert result.err_lines == [f"minruntime: error: {line}" for line in lines]


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


def test_strict_times_rejects_the_bundled_unparseable_start_time() -> None:
    assert_error(
        run(["explain", "--strict-times"]),
        1,
        "invalid timestamp '2026-11-22 11:00' in PodGroup/nlp-team/data-dedup "
        "metadata.annotations['kai.scheduler/last-start-timestamp'] (expected RFC 3339 with a "
        "zone, e.g. '2026-11-22T11:50:00Z')",
    )


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


# -- the JSON format ----------------------------------------------------------------------------

TOP_KEYS = {
    "schema",
    "now",
    "sources",
    "config",
    "queues",
    "podGroups",
    "running",
    "leftOut",
    "queueTree",
    "preemptor",
    "jobs",
    "plans",
    "retryAt",
    "warnings",
}
CONFIG_KEYS = {"defaultPreemptMinRuntime", "defaultReclaimMinRuntime", "reclaimResolveMethod"}
JOB_KEYS = {
    "id",
    "queue",
    "priority",
    "priorityClass",
    "preemptibility",
    "preemptibilitySource",
    "preemptibilityDetail",
    "startTime",
    "pods",
    "subGroupTree",
    "preempt",
    "protection",
    "decision",
}
PODS_KEYS = {"total", "active"}
PREEMPT_KEYS = {"minRuntime", "source", "protectedUntil", "protected"}
DECISION_KEYS = {
    "action",
    "allowed",
    "reason",
    "minRuntime",
    "source",
    "protectedUntil",
    "protectedBy",
    "delayedUntil",
    "optionalSubGroups",
    "evictable",
    "notes",
    "explanation",
    "unsavedWork",
    "rank",
}
PREEMPTOR_KEYS = {"id", "queue", "priority", "hypothetical", "pendingPods", "needed"}


@pytest.mark.parametrize(
    "extra",
    [[], ["--preemptor", FINETUNE], ["--preemptor", CHAT_API], ["--preemptor-queue", "sandbox"]],
)
def test_json_output_has_exactly_the_documented_keys(extra: list[str]) -> None:
    """A change to this set is a change of the format: bump JSON_SCHEMA_ID with it."""
    report = run(["explain", *extra, "--output", "json"]).report
    assert report["schema"] == JSON_SCHEMA_ID == "minruntime.explain/v3"
    assert set(report) == TOP_KEYS
    assert set(report["config"]) == CONFIG_KEYS
    assert len(report["jobs"]) == 20
    for job in report["jobs"]:
        assert set(job) == JOB_KEYS
        assert set(job["pods"]) == PODS_KEYS
        assert set(job["preempt"]) == PREEMPT_KEYS
        if extra:
            assert set(job["decision"]) == DECISION_KEYS
        else:
            assert job["decision"] is None
    if extra:
        assert set(report["preemptor"]) == PREEMPTOR_KEYS
    else:
        assert report["preemptor"] is None
        assert report["retryAt"] is None


def test_json_output_values_for_one_job() -> None:
    report = run(["explain", "--preemptor", CHAT_API, "--output", "json"]).report
    (vit,) = [job for job in report["jobs"] if job["id"] == "vision-team/vit-pretrain"]
    assert vit == {
        "id": "vision-team/vit-pretrain",
        "queue": "research-vision",
        "priority": 100,
        "priorityClass": "build",
        "preemptibility": "preemptible",
        "preemptibilitySource": "owner",
        "preemptibilityDetail": vit["preemptibilityDetail"],
        "startTime": "2026-11-22T11:00:00Z",
        "pods": {"total": 7, "active": 7},
        "subGroupTree": None,
        "preempt": {
            "minRuntime": "10m",
            "source": "research",
            "protectedUntil": "2026-11-22T11:10:00Z",
            "protected": False,
        },
        "protection": "not protected",
        "decision": {
            "action": "reclaim",
            "allowed": True,
            "reason": "eligible",
            "minRuntime": "30m",
            "source": "research",
            "protectedUntil": "2026-11-22T11:30:00Z",
            "protectedBy": None,
            "delayedUntil": None,
            "optionalSubGroups": [],
            "evictable": [
                "vit-pretrain-worker-5",
                "vit-pretrain-worker-4",
                "vit-pretrain-worker-3",
                "vit-pretrain-worker-2",
                "vit-pretrain-worker-1",
                "vit-pretrain-worker-0",
                "vit-pretrain-master-0",
            ],
            "notes": [],
            "explanation": vit["decision"]["explanation"],
            # one hour since its start (no checkpoint) times 7 pods of 8 GPUs
            "unsavedWork": 201600.0,
            "rank": 11,
        },
    }
    assert "PyTorchJob/vit-pretrain" in vit["preemptibilityDetail"]
    assert vit["decision"]["explanation"].startswith(
        "reclaim of 'vision-team/vit-pretrain' by 'serving/chat-api': allowed: "
    )


# -- the real entry point -----------------------------------------------------------------------


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


# -- the queue tree: the worked example's drawing and the queues view ----------------------------


def test_example_draws_each_queue_under_its_own_parent() -> None:
    lines = run(["example"]).out.splitlines()
    start = lines.index("Queue tree (preempt / reclaim min-runtime; - = unset, inherited):")
    assert lines[start + 1 : start + 8] == [
        "  A                  preempt -    reclaim -",
        "  `-- B              preempt 10m  reclaim 10m",
        "      |-- C          preempt -    reclaim -",
        "      |   |-- leaf1  preempt 5m   reclaim 0s",
        "      |   `-- leaf2  preempt -    reclaim 3m",
        "      `-- D          preempt -    reclaim 1m",
        "          `-- leaf3  preempt -    reclaim -",
    ]


BUNDLED_QUEUES = [
    "QUEUE                    PREEMPT MR (FROM)   RECLAIM: SIBLING      RECLAIM: OTHER TREE",
    "company                  5m (<default>)      1h (company)          1h (company)",
    "|-- production           never (production)  1h (company)          1h (company)",
    "|   |-- prod-batch       5m (prod-batch)     1h (company)          1h (company)",
    "|   `-- prod-inference   never (production)  1h (company)          1h (company)",
    "`-- research             10m (research)      30m (research)        1h (company)",
    "    |-- research-nlp     10m (research)      30m (research)        1h (company)",
    "    `-- research-vision  10m (research)      2h (research-vision)  1h (company)",
    "sandbox                  5m (<default>)      0s (sandbox)          0s (sandbox)",
    "`-- sandbox-users        5m (<default>)      0s (sandbox)          0s (sandbox)",
]


def test_queues_view_shows_each_queues_effective_min_runtimes_and_their_source() -> None:
    lines = run(["explain", "--queues"]).out.splitlines()
    assert lines[4 : 4 + len(BUNDLED_QUEUES)] == BUNDLED_QUEUES


def test_a_snapshot_of_queues_only_shows_the_queues_view() -> None:
    queues = [obj for obj in json.loads(BUNDLED_TEXT)["items"] if obj["kind"] == "Queue"]
    result = run(["explain", "-"], stdin=json.dumps(queues), now=EXAMPLE_NOW)
    assert result.status == 0
    lines = result.out.splitlines()
    assert lines[0] == "Snapshot: standard input (9 queues, 0 pod groups, 0 running)"
    # no scheduler config in it: the default preempt min-runtime is 0s, not the example's 5m
    assert lines[4 : 4 + len(BUNDLED_QUEUES)] == [
        line.replace("5m (<default>)", "0s (<default>)") for line in BUNDLED_QUEUES
    ]


def test_queue_method_shows_one_reclaim_column() -> None:
    objects = [
        {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "org"},
         "spec": {"reclaimMinRuntime": "1h"}},
        {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "team"},
         "spec": {"parentQueue": "org", "preemptMinRuntime": "-1"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
         "data": {"config.json": json.dumps({"tiers": [{"plugins": [{"name": "minruntime",
          "arguments": {"reclaimResolveMethod": "queue"}}]}]})}},
    ]  # fmt: skip
    result = run(["explain", "-"], stdin=json.dumps(objects), now=EXAMPLE_NOW)
    assert result.out.splitlines()[4:7] == [
        "QUEUE     PREEMPT MR (FROM)  RECLAIM MR (FROM)",
        "org       0s (<default>)     1h (org)",
        "`-- team  never (team)       1h (org)",
    ]
    json_run = run(["explain", "-", "--output", "json"], stdin=json.dumps(objects), now=EXAMPLE_NOW)
    assert json_run.report["queueTree"] == [
        {
            "name": "org",
            "parent": None,
            "preempt": {"minRuntime": "0s", "source": None},
            "reclaim": {"minRuntime": "1h", "source": "org"},
            "reclaimFromAnotherTree": {"minRuntime": "1h", "source": "org"},
        },
        {
            "name": "team",
            "parent": "org",
            "preempt": {"minRuntime": "never", "source": "team"},
            "reclaim": {"minRuntime": "1h", "source": "org"},
            "reclaimFromAnotherTree": {"minRuntime": "1h", "source": "org"},
        },
    ]


def test_the_table_fits_a_hundred_columns_on_the_bundled_example() -> None:
    for arguments in ([], ["--preemptor", FINETUNE], ["--preemptor", CHAT_API], ["--queues"]):
        widths = [len(line) for line in run(["explain", *arguments]).out.splitlines()]
        assert max(widths) <= 100, arguments


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


# -- simulate: the separate minruntime-sim distribution -----------------------------------------


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


def test_a_deep_queue_chain_is_drawn_with_its_depth_not_thousands_of_columns() -> None:
    chain = [
        {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": f"q{i}"},
         "spec": {"parentQueue": f"q{i - 1}"} if i else {}}
        for i in range(300)
    ]  # fmt: skip
    lines = run(
        ["explain", "--queues", "-"], stdin=json.dumps(chain), now=EXAMPLE_NOW
    ).out.splitlines()
    rows = [line for line in lines if line.split() and line.split()[-1] == "(<default>)"]
    assert len(rows) == 300
    assert rows[11].split()[:3] == ["[11]", "`--", "q11"]
    assert rows[299].split()[:3] == ["[299]", "`--", "q299"]
    assert max(len(line) for line in lines) <= 110


# -- the plan for the preemptor -----------------------------------------------------------------


def plan_of(report: JSON, action: str) -> JSON:
    """The plan of ``action`` in a report."""
    (plan,) = [plan for plan in report["plans"] if plan["action"] == action]
    assert isinstance(plan, dict)
    return plan


def test_the_plan_for_finetune_7b_reclaims_the_cheapest_victims_until_32_gpus_are_free() -> None:
    """finetune-7b's four pending pods ask for 8 GPUs each; reclaim takes victims cheapest
    first (Session.select) until 32 are free: the eighth, vit-pretrain, frees 16 and ends it."""
    report = run(["explain", "--preemptor", FINETUNE, "--now", EXAMPLE_INSTANT, "--output", "json"])
    plan = plan_of(report.report, "reclaim")
    assert plan == {
        "action": "reclaim",
        "needed": 32.0,
        "freed": 33.0,
        "shortfall": 0.0,
        "enough": True,
        # 0 + 1 + 2,400 + 7,200 + 14,400 + 16,200 + 43,200 + 57,600 GPU-seconds
        "unsavedWork": 141001.0,
        "retryAt": "2026-11-22T12:20:00Z",
        "victims": [
            {
                "id": "batch/etl-hourly",
                "pods": ["etl-hourly-1", "etl-hourly-0"],
                "unsavedWork": 0.0,
            },
            {
                "id": "users/carol-hpo-trial-17",
                "pods": ["carol-hpo-trial-17-0"],
                "unsavedWork": 1.0,
            },
            {"id": "batch/video-transcode", "pods": ["video-transcode-2"], "unsavedWork": 2400.0},
            {"id": "users/bob-debug", "pods": ["bob-debug-0"], "unsavedWork": 7200.0},
            {
                "id": "vision-team/sam-finetune",
                "pods": ["sam-finetune-3", "sam-finetune-2"],
                "unsavedWork": 14400.0,
            },
            {
                "id": "vision-team/segformer-eval",
                "pods": ["segformer-eval-1", "segformer-eval-0"],
                "unsavedWork": 16200.0,
            },
            {
                "id": "serving/sdxl-render",
                "pods": ["sdxl-render-1", "sdxl-render-0"],
                "unsavedWork": 43200.0,
            },
            {
                "id": "vision-team/vit-pretrain",
                "pods": ["vit-pretrain-worker-5", "vit-pretrain-worker-4"],
                "unsavedWork": 57600.0,
            },
        ],
    }
    # the plan's order is the ranking's: rank 1..8 of the reclaim victims
    ranks = [decision_of(report.report, victim["id"])["rank"] for victim in plan["victims"]]
    assert ranks == [1, 2, 3, 4, 5, 6, 7, 8]


def test_the_preempt_plan_for_finetune_7b_falls_short_and_says_when_to_retry() -> None:
    """In its own queue only data-dedup (3 pods of 1) and bert-distill (2 pods of 2 GPUs) may
    go: 7 of 32, 25 missing; tokenizer-ablation's protection ends first, at 12:05."""
    report = run(["explain", "--preemptor", FINETUNE, "--output", "json"]).report
    assert plan_of(report, "preempt") == {
        "action": "preempt",
        "needed": 32.0,
        "freed": 7.0,
        "shortfall": 25.0,
        "enough": False,
        "unsavedWork": 4800.0,
        "retryAt": "2026-11-22T12:05:00Z",
        "victims": [
            {
                "id": "nlp-team/data-dedup",
                "pods": ["data-dedup-2", "data-dedup-1", "data-dedup-0"],
                "unsavedWork": 0.0,
            },
            {
                "id": "nlp-team/bert-distill",
                "pods": ["bert-distill-1", "bert-distill-0"],
                "unsavedWork": 4800.0,
            },
        ],
    }
    assert [plan["action"] for plan in report["plans"]] == ["reclaim", "preempt"]
    assert report["preemptor"]["needed"] == 32.0
    assert report["retryAt"] == "2026-11-22T12:05:00Z"


def test_the_plan_moves_with_now() -> None:
    """At 12:05 tokenizer-ablation may go too: 8 of 32 by preempt, and no retry time: no
    protection in the queue holds back a victim (llm-serve-disagg and llama-sft stay refused
    whatever the time: priority 100 is not lower than 75)."""
    report = run(["explain", "--preemptor", FINETUNE, "--now", "+5m", "--output", "json"]).report
    plan = plan_of(report, "preempt")
    assert [victim["id"] for victim in plan["victims"]] == [
        "nlp-team/data-dedup",
        "nlp-team/tokenizer-ablation",
        "nlp-team/bert-distill",
    ]
    assert (plan["freed"], plan["shortfall"], plan["retryAt"]) == (8.0, 24.0, None)
    assert report["retryAt"] == "2026-11-22T12:20:00Z"  # reclaim: video-transcode's ends


def test_the_plan_in_the_table() -> None:
    lines = run(["explain", "--preemptor", FINETUNE]).out.splitlines()
    start = lines.index(
        "Plan: free 32 (what the 4 pending pods request: GPUs, else 1 a pod), cheapest victims "
        "first:"
    )
    assert lines[start + 1 : start + 15] == [
        "  by reclaim: 8 jobs, frees 33, loses 39.17 GPU-hours",
        "    1. batch/etl-hourly (0.00 GPU-h): etl-hourly-1, etl-hourly-0",
        "    2. users/carol-hpo-trial-17 (0.00 GPU-h): carol-hpo-trial-17-0",
        "    3. batch/video-transcode (0.67 GPU-h): video-transcode-2",
        "    4. users/bob-debug (2.00 GPU-h): bob-debug-0",
        "    5. vision-team/sam-finetune (4.00 GPU-h): sam-finetune-3, sam-finetune-2",
        "    6. vision-team/segformer-eval (4.50 GPU-h): segformer-eval-1, segformer-eval-0",
        "    7. serving/sdxl-render (12.00 GPU-h): sdxl-render-1, sdxl-render-0",
        "    8. vision-team/vit-pretrain (16.00 GPU-h): vit-pretrain-worker-5, vit-pretrain-worker-4",
        "  by preempt: 2 jobs, frees 7 of 32, loses 1.33 GPU-hours; 25 still missing: retry at "
        "12:05:00, when",
        "    the next protection ends",
        "    1. nlp-team/data-dedup (0.00 GPU-h): data-dedup-2, data-dedup-1, data-dedup-0",
        "    2. nlp-team/bert-distill (1.33 GPU-h): bert-distill-1, bert-distill-0",
        "",
    ]


def test_a_hypothetical_preemptor_has_no_plan() -> None:
    report = run(["explain", "--preemptor-queue", "sandbox-users", "--output", "json"]).report
    assert (report["plans"], report["preemptor"]["needed"]) == ([], 0)
    assert "Plan:" not in run(["explain", "--preemptor-queue", "sandbox-users"]).out


def test_a_running_preemptor_is_an_error_naming_it() -> None:
    assert_error(
        run(["explain", "--preemptor", "nlp-team/bert-distill"]),
        1,
        "--preemptor: pod group 'nlp-team/bert-distill' has no pending pods (expected a pod "
        "group with pods waiting to be placed; --preemptor-queue asks about a hypothetical job)",
    )


# -- rough edges --------------------------------------------------------------------------------


def test_standard_input_may_be_given_only_once() -> None:
    assert_error(
        run(["explain", "-", "-"], stdin=BUNDLED_TEXT),
        2,
        "- (standard input) may be given only once",
    )


def test_the_legend_explains_each_symbol_and_word_the_table_used() -> None:
    lines = run(["explain", "--preemptor", FINETUNE]).out.splitlines()
    start = lines.index(
        "deferred  allowed in part: only the pods listed as evictable may go (an elastic job "
        "protected at its"
    )
    assert lines[start + 1 : start + 8] == [
        "          minimum, or a semi-preemptible job above its core)",
        "no start  no start time: min-runtime does not protect the job",
        "ended     its min-runtime protection is over",
        "GPU-H     the GPU-hours of work an eviction would lose (since the last checkpoint, else "
        "the start)",
        "#         the order victims are taken in, per action (the cheapest first)",
        "-         (in #) refused: not in the order",
        "Retry at 2026-11-22T12:05:00Z: the next protection that would free a victim ends then.",
    ]


def test_times_from_the_clock_show_no_microseconds(tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(BUNDLED_TEXT, encoding="utf-8")
    clock = datetime(2026, 11, 22, 12, 0, 0, 654321, tzinfo=UTC)
    table = run(["explain", str(path), "--preemptor", FINETUNE], now=clock).out.splitlines()
    assert "Evaluated at 2026-11-22T12:00:00Z; the times below are UTC" in table
    report = run(["explain", str(path), "--now", "+5m", "--output", "json"], now=clock).report
    assert report["now"] == "2026-11-22T12:05:00Z"


def long_named_cluster(tmp_path: Path) -> str:
    """A queue and jobs whose names fill their cells (48 characters and more)."""
    long = "a-very-long-queue-name-that-an-operator-chose-" + "x" * 20
    objects: list[JSON] = [queue_object(long, preemptMinRuntime="1h")]
    for i in range(3):
        name = f"training-run-with-a-long-generated-name-{i:04d}-" + "y" * 30
        objects.append(
            pod_group(
                name,
                "namespace-that-is-long-too",
                queue=long,
                annotations={"kai.scheduler/last-start-timestamp": "2026-11-22T11:30:00Z"},
                minMember=1,
            )
        )
        objects.append(
            pod(
                f"{name}-worker-{i}",
                name,
                "namespace-that-is-long-too",
                phase="Running",
                node="node-1",
            )
        )
    objects.append(pod_group("pending", "namespace-that-is-long-too", queue=long, minMember=1))
    objects.append(pod("pending-0", "pending", "namespace-that-is-long-too", phase="Pending"))
    return write_objects(tmp_path / "long.json", *objects)


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--preemptor", FINETUNE],
        ["--preemptor", CHAT_API],
        ["--queues"],
        *(["--preemptor-queue", name] for name in ("research-nlp", "sandbox-users", "prod-batch")),
    ],
)
def test_no_table_line_is_wider_than_100_columns(extra: list[str], tmp_path: Path) -> None:
    bundled = run(["explain", *extra]).out.splitlines()
    snapshot = run(["explain", "examples/example-snapshot.zip", "--now", EXAMPLE_INSTANT, *extra])
    assert snapshot.status == 0
    assert max(len(line) for line in bundled + snapshot.out.splitlines()) <= 100


@pytest.mark.parametrize("extra", [[], ["--preemptor", "pending"], ["--queues"]])
def test_long_names_are_cut_to_keep_the_table_within_100_columns(
    extra: list[str], tmp_path: Path
) -> None:
    result = run(["explain", long_named_cluster(tmp_path), *extra], now=EXAMPLE_NOW)
    assert result.status == 0
    lines = result.out.splitlines()
    assert max(len(line) for line in lines) == 100
    assert any("..." in line for line in lines)


def test_strict_turns_the_reading_warnings_into_errors() -> None:
    result = run(["explain", "--strict"])
    assert_error(
        result,
        1,
        *("--strict: " + line.split(": warning: ", 1)[1] for line in BUNDLED_WARNINGS),
    )


def test_strict_passes_a_snapshot_read_without_warnings(tmp_path: Path) -> None:
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "scheduler"},
              "data": {"config.json": json.dumps({"tiers": [{"plugins": [{"name": "minruntime"}]}]})}}  # fmt: skip
    path = write_objects(tmp_path / "clean.json", queue_object("q"), config)
    result = run(["explain", path, "--strict", "--now", EXAMPLE_INSTANT])
    assert (result.status, result.err) == (0, "")


def test_the_summary_line_counts_the_objects_left_out(tmp_path: Path) -> None:
    stray = {"metadata": {"name": "stray"}}
    other = {"apiVersion": "example.com/v1", "kind": "Queue", "metadata": {"name": "theirs"}}
    path = write_objects(tmp_path / "c.json", queue_object("q"), stray, other)
    header = run(["explain", path, "--now", EXAMPLE_INSTANT]).out.split("\nEvaluated at")[0]
    assert " ".join(header.split()) == (
        f"Snapshot: {path} (1 queues, 0 pod groups, 0 running, 2 left out)"
    )
    report = run(["explain", path, "--now", EXAMPLE_INSTANT, "--output", "json"]).report
    assert report["leftOut"] == 2


# -- the timeline -------------------------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def small_cluster(tmp_path: Path) -> str:
    """Queue q (preempt min-runtime 1h): a started 11:00, b started 11:30, each one running
    pod; p pending with one pod, of a higher priority."""
    objects: list[JSON] = [
        queue_object("q", preemptMinRuntime="1h"),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 100},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "low"}, "value": 10},
        pod_group("p", "ns", queue="q", minMember=1, priorityClassName="high"),
        pod("p-0", "p", "ns", phase="Pending"),
    ]  # fmt: skip
    for name, start in (("b", "2026-11-22T11:30:00Z"), ("a", "2026-11-22T11:00:00Z")):
        annotations = {"kai.scheduler/last-start-timestamp": start}
        group = pod_group(
            name, "ns", queue="q", annotations=annotations, minMember=1, priorityClassName="low"
        )
        objects += [group, pod(f"{name}-0", name, "ns", phase="Running", node="node-1")]
    return write_objects(tmp_path / "small.json", *objects)


def timeline(path: Path) -> Any:
    import xml.etree.ElementTree as ElementTree

    return ElementTree.parse(path).getroot()


def test_the_timeline_draws_each_protection_window_on_a_time_axis(tmp_path: Path) -> None:
    """The axis runs 11:00-12:30 (whole 15-minute ticks) over x 312-1070: 758 px for 90
    minutes, one linear scale (the window is under three hours). a (11:00-12:00, free at now)
    comes first, then b (11:30-12:30, protected). The legend names the three states, now and
    the retry time: no triangle, no compressed hours here."""
    out = tmp_path / "windows.svg"
    result = run(["explain", small_cluster(tmp_path), "--now", "2026-11-22T12:00:00Z",
                  "--preemptor", "ns/p", "--timeline", str(out)])  # fmt: skip
    assert result.status == 0
    root = timeline(out)
    assert (root.get("width"), root.get("height")) == ("1280", "174")
    bars = [
        (rect.get("data-job"), rect.get("class"), rect.get("x"), rect.get("y"), rect.get("width"))
        for rect in root.iter(f"{SVG}rect")
        if (rect.get("class") or "").startswith("bar")
    ]
    assert bars == [
        ("ns/a", "bar eligible", "312.0", "75.0", "505.3"),
        ("ns/b", "bar protected", "564.7", "97.0", "505.3"),
    ]
    texts = [(text.get("x"), text.get("y"), text.text) for text in root.iter(f"{SVG}text")]
    assert texts == [
        ("10.0", "20.0", "Protection windows against ns/p at 12:00:00 UTC"),
        ("312.0", "136.0", "11:00"),
        ("438.3", "136.0", "11:15"),
        ("564.7", "136.0", "11:30"),
        ("691.0", "136.0", "11:45"),
        ("817.3", "136.0", "12:00"),
        ("943.7", "136.0", "12:15"),
        ("1070.0", "136.0", "12:30"),
        ("10.0", "85.0", "ns/a"),
        ("1080.0", "85.0", "free since 12:00:00"),
        ("10.0", "107.0", "ns/b"),
        ("1080.0", "107.0", "until 12:30:00"),
        ("821.3", "42.0", "now 12:00:00"),
        ("1066.0", "58.0", "retry 12:30:00"),
        ("30.0", "160.0", "protected"),
        ("145.7", "160.0", "may go (eligible)"),
        ("319.8", "160.0", "refused for another reason"),
        ("559.6", "160.0", "now"),
        ("631.5", "160.0", "retry time"),
    ]
    lines = {line.get("class"): line.get("x1") for line in root.iter(f"{SVG}line")}
    assert (lines["now"], lines["retry"]) == ("817.3", "1070.0")
    assert not [rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "compressed"]


def test_the_timeline_gives_the_hours_around_now_two_thirds_of_a_long_axis(
    tmp_path: Path,
) -> None:
    """The bundled example's windows reach from six hours back (06:00) to 14:00: the hours
    11:00-13:00 around now take two thirds of the 758 px (505.3 px: 4.2 px a minute, not the
    1.6 of one linear scale), the six hours beyond share the rest at one rate (42.1 px an
    hour), shaded; ticks 30 minutes apart near now, three hours beyond; the 14:00 tick is left
    out, too close to 13:00 to label. The legend adds the triangles and the shading."""
    out = tmp_path / "bundled.svg"
    assert run(["explain", "--preemptor", FINETUNE, "--timeline", str(out)]).status == 0
    root = timeline(out)
    shaded = [
        (rect.get("x"), rect.get("width"))
        for rect in root.iter(f"{SVG}rect")
        if rect.get("class") == "compressed"
    ]
    assert shaded == [("312.0", "210.6"), ("1027.9", "42.1")]
    ticks = [(text.get("x"), text.text) for text in root.iter(f"{SVG}text")]
    assert [tick for tick in ticks if tick[1] and tick[1][:2].isdigit()] == [
        ("312.0", "06:00"),
        ("438.3", "09:00"),
        ("522.6", "11:00"),
        ("648.9", "11:30"),
        ("775.2", "12:00"),
        ("901.6", "12:30"),
        ("1027.9", "13:00"),
    ]
    lines = {line.get("class"): line.get("x1") for line in root.iter(f"{SVG}line")}
    assert (lines["now"], lines["retry"]) == ("775.2", "796.3")  # 12:00 and 12:05: 21 px
    legend = [text.text for text in root.iter(f"{SVG}text") if text.get("y") == "556.0"]
    assert legend == [
        "protected",
        "may go (eligible)",
        "refused for another reason",
        "goes on beyond the axis",
        "hours far from now, compressed",
        "now",
        "retry time",
    ]


def test_the_timeline_keeps_every_label_inside_the_picture(tmp_path: Path) -> None:
    """The right column holds 26 characters at 7.3 px (a 12 px monospace font is 7.2) and
    keeps 10 px from the edge, at every width; a narrow picture wraps its legend."""
    from minruntime.cli._timeline import Layout

    for width in (640, 720, 1280):
        assert Layout.of(width).plot_right + 10 + 26 * 7.3 <= width - 10 + 0.1
    out = tmp_path / "narrow.svg"
    args = ["explain", "--preemptor", FINETUNE, "--timeline", str(out), "--timeline-width", "640"]
    assert run(args).status == 0
    root = timeline(out)
    width = int(root.get("width") or 0)
    ends = [
        float(text.get("x") or 0) + 7.3 * len(text.text or "")
        for text in root.iter(f"{SVG}text")
        if text.get("text-anchor") == "start"
    ]
    assert max(ends) <= width - 10 + 0.1
    legend_rows = {text.get("y") for text in root.iter(f"{SVG}text") if text.text == "now"} | {
        text.get("y") for text in root.iter(f"{SVG}text") if text.text == "protected"
    }
    assert len(legend_rows) == 2


def test_the_timeline_without_a_preemptor_shows_the_protection_from_preempt(
    tmp_path: Path,
) -> None:
    out = tmp_path / "windows.html"
    result = run(["explain", small_cluster(tmp_path), "--now", "2026-11-22T12:00:00Z",
                  "--timeline", str(out)])  # fmt: skip
    assert result.status == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "svg{display:block;max-width:100%;height:auto}" in page  # a narrow window: scaled
    assert "<script" not in page
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert page.count('class="bar ') == 2
    assert 'class="retry"' not in page


def test_the_timeline_path_is_checked_before_the_snapshot_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path that cannot be written fails at once (status 2), not after reading a snapshot
    (here one that does not exist: its error would come first otherwise)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    assert_error(
        run(["explain", "/nonexistent/snapshot.json", "--timeline", "out"]),
        2,
        "--timeline: 'out' is a directory (expected a file path)",
    )
    assert_error(
        run(["explain", "/nonexistent/snapshot.json", "--timeline", "missing/windows.svg"]),
        2,
        "--timeline: 'missing/windows.svg': the directory 'missing' does not exist",
    )


def test_the_timeline_on_the_operators_page_is_what_its_command_writes(tmp_path: Path) -> None:
    """docs/operators.md embeds docs/_static/timeline-example.svg and shows the command that
    makes it: the two must not drift apart."""
    out = tmp_path / "timeline.svg"
    args = ["--preemptor", FINETUNE, "--timeline", str(out), "--timeline-width", "720"]
    assert run(["explain", *args]).status == 0
    documented = Path(__file__).resolve().parent.parent / "docs/_static/timeline-example.svg"
    assert out.read_text(encoding="utf-8") == documented.read_text(encoding="utf-8")
    assert timeline(out).get("width") == "720"


def test_the_report_asks_the_session_once_per_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command builds its report from the Session's answers, one call per question: each
    job's own protection (whether now, until when, under which min-runtime), the preemptor's
    decision on it, the evictable pods of each allowed victim, per action one ranking, one
    selection and one retry time, and each queue's three min-runtimes."""
    from minruntime.session import Session

    calls: dict[str, int] = {}

    def counted(name: str) -> None:
        method = getattr(Session, name)

        def wrapper(self: Session, *args: Any, **kwargs: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            return method(self, *args, **kwargs)

        monkeypatch.setattr(Session, name, wrapper)

    names = ("explain", "evictable_tasks", "rank_victims", "select", "next_expiry")
    others = ("is_eligible", "protection", "protected_until", "is_protected", "resolve")
    for name in (*names, *others, "eligible_victims"):
        counted(name)
    report = run(["explain", "--preemptor", FINETUNE, "--output", "json"]).report
    allowed = sum(1 for job in report["jobs"] if job["decision"]["allowed"])
    assert (len(report["jobs"]), allowed) == (20, 11)
    assert calls == {
        "protection": 20,  # each running job's own protection from preempt
        "resolve": 27,  # each of the 9 queues: preempt, reclaim, reclaim from another tree
        "explain": 20,  # the preemptor's verdict on each
        "evictable_tasks": 11,
        "rank_victims": 2,  # reclaim and preempt
        "select": 2,
        "next_expiry": 2,
    }


def test_the_timeline_is_well_formed_xml_whatever_the_names(tmp_path: Path) -> None:
    """Markup and control characters in a name are escaped (XML 1.0 forbids most control
    characters even as references): the file parses, and the name shows as written."""
    name = 'a<b>&"c\x1b[2J\u202e'
    annotations = {"kai.scheduler/last-start-timestamp": EXAMPLE_INSTANT}
    group = pod_group(name, "ns", queue="q", annotations=annotations, minMember=1)
    path = write_objects(
        tmp_path / "odd.json",
        queue_object("q"),
        group,
        pod("x-0", name, "ns", phase="Running", node="node-1"),
    )
    out = tmp_path / "odd.svg"
    assert (
        run(["explain", path, "--now", "+1m", "--timeline", str(out)], now=EXAMPLE_NOW).status == 0
    )
    root = timeline(out)
    (bar,) = [rect for rect in root.iter(f"{SVG}rect") if rect.get("data-job")]
    assert bar.get("data-job") == 'ns/a<b>&"c\\x1b[2J\\u202e'
    assert 'ns/a<b>&"c\\x1b[2J\\u202e' in [text.text for text in root.iter(f"{SVG}text")]


def test_the_timeline_marks_windows_that_go_on_beyond_its_axis(tmp_path: Path) -> None:
    """The axis reaches back six hours (06:00): embeddings-api (started 11-15), alice-notebook
    (11-21) and nightly-eval (02:00), the first three rows, get a triangle on the left edge;
    the legend shows one too (pointing right, beside its words)."""
    out = tmp_path / "bundled.svg"
    assert run(["explain", "--preemptor", FINETUNE, "--timeline", str(out)]).status == 0
    notches = [p.get("points") for p in timeline(out).iter(f"{SVG}polygon")]
    assert notches == [
        *(f"312.0,{top - 2:.1f} 306.0,{top + 6:.1f} 312.0,{top + 14:.1f}" for top in (75, 97, 119)),
        "543.6,545.0 549.6,551.0 543.6,557.0",
    ]


# -- the collector --------------------------------------------------------------------------------


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


# -- table times ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moment", "shown"),
    [
        (datetime(2026, 11, 22, 9, 5, 7, tzinfo=UTC), "09:05:07"),  # on now's day: the clock
        (datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "01-02 03:04"),  # in now's year
        (datetime(2025, 12, 31, 23, 59, tzinfo=UTC), "2025-12-31"),
        (datetime(99, 1, 2, tzinfo=UTC), "0099-01-02"),  # strftime gave '99-01-02'
    ],
)
def test_a_table_time_is_the_clock_the_day_or_the_date(moment: datetime, shown: str) -> None:
    from minruntime.cli._format import short

    assert short(moment, datetime(2026, 11, 22, 12, 0, tzinfo=UTC)) == shown

"""The table output (``minruntime.cli._table``): its columns, ``-o wide``, ``--no-headers``,
and the legend, in which each symbol or word means one thing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.test_cli import CHAT_API, FINETUNE, long_named_cluster, run

from minruntime.cli import EXAMPLE_NOW
from minruntime.cli._table import MEANINGS

JOBS_WIDE_HEADER = (
    "JOB                              PRIO  PREEMPTIBLE  PODS  STARTED      PREEMPT MR (FROM)   "
    "PROTECTED  QUEUE            CLASS              PREEMPTIBLE FROM  PROTECTED BY"
)


def cells(line: str) -> list[str]:
    """A table line's cells (columns are two spaces or more apart; the queues view's tree
    drawing left out)."""
    return re.split(r"\s{2,}", line.strip().lstrip("|`- "))


def test_wide_adds_the_queue_class_preemptibility_source_and_protection_kind() -> None:
    lines = run(["explain", "-o", "wide"]).out.splitlines()
    assert lines[4] == JOBS_WIDE_HEADER
    rows = {cells(line)[0]: cells(line) for line in lines[5:] if line.startswith("  ")}
    assert rows["batch/feature-backfill"] == [
        "batch/feature-backfill", "50", "yes*", "2/2", "11:57:00", "5m (prod-batch)",
        "12:02:00", "prod-batch", "train", "legacy-priority", "min-runtime",
    ]  # fmt: skip
    assert rows["batch/nightly-eval-29921880"][7:] == ["prod-batch", "build", "owner", "none"]
    assert rows["serving/sdxl-render"][-1] == "never"


def test_wide_adds_the_queue_action_preemptibility_pods_and_protection_kind_per_victim() -> None:
    lines = run(["explain", "--preemptor", FINETUNE, "-o", "wide"]).out.splitlines()
    assert cells(lines[6]) == [
        "JOB", "OK", "REASON", "MR (FROM)", "UNTIL", "GPU-H", "#", "QUEUE", "ACTION",
        "PREEMPTIBLE", "PODS", "PROTECTED BY",
    ]  # fmt: skip
    rows = {cells(line)[0]: cells(line) for line in lines if line.startswith("  ")}
    assert rows["vision-team/sam-finetune"][7:] == [
        "research-vision", "reclaim", "semi", "4/4", "min-runtime",
    ]  # fmt: skip
    assert rows["nlp-team/llama-sft"][7:] == [
        "research-nlp",
        "preempt",
        "yes",
        "5/5",
        "min-runtime",
    ]


@pytest.mark.parametrize("extra", [[], ["--preemptor", "pending"], ["--queues"]])
def test_wide_writes_long_names_whole(extra: list[str], tmp_path: Path) -> None:
    path = long_named_cluster(tmp_path)
    result = run(["explain", path, "-o", "wide", *extra], now=EXAMPLE_NOW)
    assert result.status == 0
    table = [line for line in result.out.splitlines() if "-long-" in line]
    assert table
    assert not any("..." in line for line in table)
    assert max(len(line) for line in result.out.splitlines()) > 100


@pytest.mark.parametrize("extra", [[], ["--preemptor", FINETUNE], ["--preemptor", CHAT_API]])
def test_the_default_table_stays_within_100_columns_and_wide_goes_beyond(
    extra: list[str],
) -> None:
    assert max(map(len, run(["explain", *extra]).out.splitlines())) <= 100
    assert max(map(len, run(["explain", *extra, "-o", "wide"]).out.splitlines())) > 100


def test_no_headers_writes_one_line_per_running_job_and_nothing_else() -> None:
    result = run(["explain", "--no-headers"])
    lines = result.out.splitlines()
    assert len(lines) == 20  # the bundled example's running jobs
    assert lines[:2] == [
        "batch/etl-hourly               50   yes*  2/2  no start     5m (prod-batch)     no start",
        "batch/feature-backfill         50   yes*  2/2  11:57:00     5m (prod-batch)     12:02:00",
    ]
    assert result.err == run(["explain"]).err  # the warnings still go to stderr


def test_no_headers_with_a_preemptor_leaves_out_the_details_plan_and_legend() -> None:
    lines = run(["explain", "--preemptor", FINETUNE, "--no-headers", "-o", "wide"]).out.splitlines()
    assert len(lines) == 20  # every running job (the preemptor, pending, is not one)
    assert cells(lines[0]) == [
        "batch/etl-hourly", "yes", "eligible", "1h (company)", "no start", "0.00", "1",
        "prod-batch", "reclaim", "yes*", "2/2", "none",
    ]  # fmt: skip
    assert all(len(cells(line)) == 12 for line in lines)


def test_no_headers_on_the_queues_view_writes_names_without_the_tree_drawing() -> None:
    lines = run(["explain", "--queues", "--no-headers", "-o", "wide"]).out.splitlines()
    assert [cells(line) for line in lines[:3]] == [
        ["company", "5m (<default>)", "1h (company)", "1h (company)", "none"],
        ["production", "never (production)", "1h (company)", "1h (company)", "company"],
        ["prod-batch", "5m (prod-batch)", "1h (company)", "1h (company)", "production"],
    ]
    assert len(lines) == 9


def test_no_headers_does_not_change_the_json_document() -> None:
    assert run(["explain", "-o", "json", "--no-headers"]) == run(["explain", "-o", "json"])


def test_the_jobs_legend_explains_each_symbol_and_word_the_table_used() -> None:
    lines = run(["explain"]).out.splitlines()
    assert lines[-6:] == [
        "*          preemptibility from the legacy priority rule (priority < 100): nothing set it",
        "semi       semi-preemptible: its core pods are never evicted",
        "<default>  no queue on the way up sets the min-runtime: the node-pool default applies",
        "no start   no start time: min-runtime does not protect the job",
        "ended      its min-runtime protection is over",
        "never      never evicted by this action: a min-runtime of never, or non-preemptible",
    ]


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["-o", "wide"],
        ["--preemptor", FINETUNE],
        ["--preemptor", CHAT_API, "-o", "wide"],
        ["--queues", "-o", "wide"],
        ["--preemptor-queue", "sandbox-users"],
    ],
)
def test_every_symbol_in_a_table_is_in_its_legend_and_means_one_thing(extra: list[str]) -> None:
    """A cell that is a symbol or special word of the tables appears in the legend under them,
    and ``-`` appears only in the ``#`` column (a refused job's place): never for a time."""
    lines = run(["explain", *extra]).out.splitlines()
    legend = {line.split("  ")[0] for line in lines if line.split("  ")[0] in MEANINGS}
    start = next(i for i, line in enumerate(lines) if line.startswith(("JOB ", "QUEUE ")))
    columns = cells(lines[start])
    end = lines.index("", start)
    rows = [cells(line) for line in lines[start + 1 : end] if len(cells(line)) > 2]
    used = set()
    for row in rows:
        for column, text in zip(columns, row, strict=True):
            for word in (text, text.rstrip("*"), text.split(" ", 1)[-1].strip("()")):
                if word in MEANINGS and word not in ("GPU-H", "#"):
                    used.add(word)
            if text == "-":
                assert column == "#", (column, row)
            if text.endswith("*"):
                used.add("*")
    assert used
    assert used <= legend


def test_the_wide_table_on_the_operators_page_is_what_the_command_prints() -> None:
    """docs/operators.md shows ``minruntime explain -o wide`` in a text block (pycon blocks
    wrap their long lines; a text block keeps its columns): its lines, up to the ``...``, are
    the command's own, in order."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "operators.md").read_text()
    section = page[page.index("### More columns: `-o wide`") :]
    block = section[section.index("```text\n") + len("```text\n") : section.index("...\n```")]
    lines = run(["explain", "-o", "wide"]).out.splitlines()
    start = lines.index(block.splitlines()[0])
    assert block.splitlines() == lines[start : start + len(block.splitlines())]
    assert len(block.splitlines()) == 10

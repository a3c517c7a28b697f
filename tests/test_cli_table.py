"""The table output (``minruntime.cli._table``): its columns, ``-o wide``, ``--no-headers``,
and the legend, in which each symbol or word means one thing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.world import (
    BUNDLED_TEXT,
    CHAT_API,
    EXAMPLE_INSTANT,
    FINETUNE,
    long_named_cluster,
    queue_object,
    run,
    write_objects,
)

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
        "batch/etl-hourly", "yes", "eligible", "1h (company)", "no start", "0.00p", "1",
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


def test_explain_table_header_names_the_snapshot_and_the_instant() -> None:
    lines = run(["explain"]).out.splitlines()
    assert lines[:3] == [
        "Snapshot: the bundled example (9 queues, 22 pod groups, 20 running)",
        "Evaluated at 2026-11-22T12:00:00Z; the times below are UTC",
        "Defaults: preempt min-runtime 5m, reclaim min-runtime 15m, reclaim resolve method lca",
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


def test_the_plan_in_the_table() -> None:
    """finetune-7b asks 32 GPUs: reclaim frees 35 of them (etl-hourly, the cheapest victim,
    holds no GPU and is passed over; nightly-eval gives one pod of 4 GPUs of its two), preempt
    4 (data-dedup's CPU pods free none), 28 missing until 12:05; the losses are the same
    GPU-seconds the JSON plan gives, in GPU-hours."""
    lines = run(["explain", "--preemptor", FINETUNE]).out.splitlines()
    start = lines.index(
        "Plan: free 32 GPUs (what the 4 pending pods need: the GPUs they request), cheapest "
        "victims first:"
    )
    assert lines[start + 1 : start + 14] == [
        "  by reclaim: 8 jobs, frees 35 GPUs, loses 79.17 GPU-hours",
        "    1. users/carol-hpo-trial-17 (0.00 GPU-h): carol-hpo-trial-17-0",
        "    2. batch/video-transcode (0.67 GPU-h): video-transcode-2",
        "    3. users/bob-debug (2.00 GPU-h): bob-debug-0",
        "    4. vision-team/sam-finetune (4.00 GPU-h): sam-finetune-3, sam-finetune-2",
        "    5. vision-team/segformer-eval (4.50 GPU-h): segformer-eval-1, segformer-eval-0",
        "    6. serving/sdxl-render (12.00 GPU-h): sdxl-render-1, sdxl-render-0",
        "    7. vision-team/vit-pretrain (16.00 GPU-h): vit-pretrain-worker-5, vit-pretrain-worker-4",
        "    8. batch/nightly-eval-29921880 (40.00 GPU-h): nightly-eval-29921880-hs5z6",
        "  by preempt: 1 job, frees 4 GPUs of 32 GPUs, loses 1.33 GPU-hours; 28 GPUs still "
        "missing: retry at",
        "    12:05:00, when the next protection ends",
        "    1. nlp-team/bert-distill (1.33 GPU-h): bert-distill-1, bert-distill-0",
        "",
    ]


def test_a_cpu_jobs_lost_work_is_in_pod_hours_marked_in_the_gpu_column() -> None:
    lines = run(["explain", "--preemptor", FINETUNE]).out.splitlines()
    rows = {cells(line)[0]: cells(line) for line in lines if line.startswith("  ")}
    assert rows["batch/etl-hourly"][5] == "0.00p"  # no start time: nothing unsaved
    assert rows["vision-team/vit-pretrain"][5] == "16.00"  # two workers, one hour, 8 GPUs each
    assert (
        "p         (in GPU-H) pod-hours, not GPU-hours: the job's pods hold no GPU, each counts 1"
    ) in lines


def test_the_legend_explains_each_symbol_and_word_the_table_used() -> None:
    lines = run(["explain", "--preemptor", FINETUNE]).out.splitlines()
    start = lines.index(
        "deferred  allowed in part: only the pods listed as evictable may go (an elastic job "
        "protected at its"
    )
    assert lines[start + 1 :] == [
        "          minimum, or a semi-preemptible job above its core)",
        "no start  no start time: min-runtime does not protect the job",
        "ended     its min-runtime protection is over",
        "GPU-H     the GPU-hours of work an eviction would lose (since the last checkpoint, else "
        "the start):",
        "          of the pods that may go, or of all its pods where none may",
        "p         (in GPU-H) pod-hours, not GPU-hours: the job's pods hold no GPU, each counts 1",
        "#         the order victims are taken in, per action (the cheapest first)",
        "-         (in #) refused: not in the order",
        "No retry: reclaim frees what the pending pods need now.",
    ]


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

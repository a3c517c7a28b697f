"""The report of ``minruntime explain`` (``minruntime.cli._report``): the Session's answers
it holds, per job and per preemptor, the plan and the retry time, read through the JSON
output and the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.world import (
    CHAT_API,
    EXAMPLE_INSTANT,
    FINETUNE,
    JSON,
    SESSION,
    assert_error,
    decision_of,
    pod,
    pod_group,
    queue_object,
    run,
    write_objects,
)


def test_the_retry_line_says_no_retry_where_an_action_frees_what_is_needed() -> None:
    """finetune-7b: reclaim alone frees its 32 GPUs now, so it need not wait, though preempt
    alone would (its plan line says when); chat-api, likewise by reclaim."""
    finetune = run(["explain", "--preemptor", FINETUNE]).out.splitlines()
    chat = run(["explain", "--preemptor", CHAT_API]).out.splitlines()
    assert finetune[-1] == "No retry: reclaim frees what the pending pods need now."
    assert chat[-1] == "No retry: reclaim frees what the pending pods need now."
    (preempt,) = [line for line in finetune if line.startswith("  by preempt:")]
    assert preempt.endswith("still missing: retry at")


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
        "need": {"pods": 0},
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


def plan_of(report: JSON, action: str) -> JSON:
    """The plan of ``action`` in a report."""
    (plan,) = [plan for plan in report["plans"] if plan["action"] == action]
    assert isinstance(plan, dict)
    return plan


def test_the_plan_for_finetune_7b_reclaims_the_cheapest_victims_until_32_gpus_are_free() -> None:
    """finetune-7b's four pending pods ask for 8 GPUs each; reclaim takes tasks of the victims
    cheapest first (Session.plan) until 32 are free. etl-hourly, the cheapest victim, runs
    CPU-only pods: it frees no GPU and is passed over. vit-pretrain gives the two workers above
    its minimum (8 GPUs each), and nightly-eval one of its two pods of 4 GPUs, which ends it at
    35. Nothing is missing: no retry."""
    report = run(["explain", "--preemptor", FINETUNE, "--now", EXAMPLE_INSTANT, "--output", "json"])
    plan = plan_of(report.report, "reclaim")
    for victim in plan["victims"]:
        assert victim.pop("unsavedWorkUnit") == "GPU-hours"  # every victim taken holds GPUs
    assert plan == {
        "action": "reclaim",
        "need": {"nvidia.com/gpu": 32.0},
        "freed": {"nvidia.com/gpu": 35.0, "pods": 12},
        "missing": {},
        "enough": True,
        # 1 + 2,400 + 7,200 + 14,400 + 16,200 + 43,200 + 57,600 + 144,000 GPU-seconds
        "unsavedWork": 285001.0,
        "retryAt": None,
        "searchBackoff": None,  # the bundled example's scheduler sets no backoff
        "victims": [
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
            {
                "id": "batch/nightly-eval-29921880",
                "pods": ["nightly-eval-29921880-hs5z6"],  # one pod of two: the need takes 4
                "unsavedWork": 144000.0,
            },
        ],
    }
    etl = decision_of(report.report, "batch/etl-hourly")
    assert (etl["rank"], etl["unsavedWorkUnit"]) == (1, "pod-hours")  # cheapest, but no GPU
    # the plan's order is the ranking's: ranks 2..9 of the reclaim victims (etl-hourly is 1)
    ranks = [decision_of(report.report, victim["id"])["rank"] for victim in plan["victims"]]
    assert ranks == [2, 3, 4, 5, 6, 7, 8, 9]


def test_the_preempt_plan_for_finetune_7b_falls_short_and_says_when_to_retry() -> None:
    """In its own queue data-dedup (3 CPU-only pods: no GPU, passed over) and bert-distill (2
    pods of 2 GPUs) may go: 4 of 32, 28 missing; tokenizer-ablation's protection ends first,
    at 12:05."""
    report = run(["explain", "--preemptor", FINETUNE, "--output", "json"]).report
    plan = plan_of(report, "preempt")
    for victim in plan["victims"]:
        assert victim.pop("unsavedWorkUnit") == "GPU-hours"
    assert plan == {
        "action": "preempt",
        "need": {"nvidia.com/gpu": 32.0},
        "freed": {"nvidia.com/gpu": 4.0, "pods": 2},
        "missing": {"nvidia.com/gpu": 28.0},
        "enough": False,
        "unsavedWork": 4800.0,
        "retryAt": "2026-11-22T12:05:00Z",
        "searchBackoff": None,
        "victims": [
            {
                "id": "nlp-team/bert-distill",
                "pods": ["bert-distill-1", "bert-distill-0"],
                "unsavedWork": 4800.0,
            },
        ],
    }
    assert [plan["action"] for plan in report["plans"]] == ["reclaim", "preempt"]
    assert report["preemptor"]["need"] == {"nvidia.com/gpu": 32.0}
    assert report["retryAt"] is None  # reclaim alone frees what is needed


def test_the_plan_moves_with_now() -> None:
    """At 12:05 tokenizer-ablation may go too: 5 of 32 by preempt, and no retry time: no
    protection in the queue holds back a victim (llm-serve-disagg and llama-sft stay refused
    whatever the time: priority 100 is not lower than 75)."""
    report = run(["explain", "--preemptor", FINETUNE, "--now", "+5m", "--output", "json"]).report
    plan = plan_of(report, "preempt")
    assert [victim["id"] for victim in plan["victims"]] == [
        "nlp-team/tokenizer-ablation",
        "nlp-team/bert-distill",
    ]
    assert (plan["freed"], plan["missing"], plan["retryAt"]) == (
        {"nvidia.com/gpu": 5.0, "pods": 3},
        {"nvidia.com/gpu": 27.0},
        None,
    )
    assert report["retryAt"] is None  # reclaim frees what is needed


def test_a_hypothetical_preemptor_has_no_plan() -> None:
    report = run(["explain", "--preemptor-queue", "sandbox-users", "--output", "json"]).report
    assert (report["plans"], report["preemptor"]["need"]) == ([], {"pods": 0})
    assert "Plan:" not in run(["explain", "--preemptor-queue", "sandbox-users"]).out


def test_a_running_preemptor_is_an_error_naming_it() -> None:
    assert_error(
        run(["explain", "--preemptor", "nlp-team/bert-distill"]),
        1,
        "--preemptor: pod group 'nlp-team/bert-distill' has no pending pods (expected a pod "
        "group with pods waiting to be placed; --preemptor-queue asks about a hypothetical job)",
    )


def test_the_report_asks_the_session_once_per_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command builds its report from the Session's answers, one call per question: the
    own protections of each queue's jobs, per action the verdicts of its victims in one call,
    one ranking and one plan, and each queue's three min-runtimes; and the engine judges each
    victim once for the preemptor (the ranking and the plan read the same verdicts)."""
    from minruntime import _verdict
    from minruntime.session import Session

    calls: dict[str, int] = {}

    def counted(name: str) -> None:
        method = getattr(Session, name)

        def wrapper(self: Session, *args: Any, **kwargs: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            return method(self, *args, **kwargs)

        monkeypatch.setattr(Session, name, wrapper)

    for name in SESSION:
        if callable(getattr(Session, name)):
            counted(name)
    judged: list[tuple[str, str]] = []
    made = _verdict.Verdict.__init__

    def judging(self: _verdict.Verdict, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        judged.append((str(self.preemptor.id), str(self.facts.id)))

    monkeypatch.setattr(_verdict.Verdict, "__init__", judging)
    report = run(["explain", "--preemptor", FINETUNE, "--output", "json"]).report
    allowed = sum(1 for job in report["jobs"] if job["decision"]["allowed"])
    assert (len(report["jobs"]), allowed) == (20, 11)
    assert calls == {
        "protections": 5,  # the running jobs' own protections from preempt: one call per queue
        # that holds any (5 of the 9)
        "resolve": 27,  # each of the 9 queues: preempt, reclaim, reclaim from another tree
        "verdicts": 2,  # reclaim's victims and preempt's, each in one call
        "rank_victims": 2,
        "plan": 2,
    }
    by_preemptor = [victim for preemptor, victim in judged if preemptor == "nlp-team/finetune-7b"]
    assert sorted(by_preemptor) == sorted(job["id"] for job in report["jobs"])  # once each


# -- the plan's units, and the failed-search backoff ---------------------------------------------

START = {"kai.scheduler/last-start-timestamp": "2026-11-22T11:00:00Z"}  # an hour before now


def units_cluster(tmp_path: Path, *, cpu_preemptor: bool = False, shard: JSON | None = None) -> str:
    """Queues "run" (reclaim min-runtime 0s) and "want"; in "run": an hour-old CPU-only job of
    two pods (etl), one of two pods holding half a GPU each (shares), one of two whole-GPU pods
    (train); in "want": the preemptor, two pending pods of 1 GPU each (or, ``cpu_preemptor``,
    of 4 CPUs each)."""
    asks = {"limits": {"cpu": "4"}} if cpu_preemptor else {"limits": {"nvidia.com/gpu": "1"}}
    objects: list[JSON] = [
        queue_object("run", reclaimMinRuntime="0s"),
        queue_object("want"),
        pod_group("pending", queue="want", minMember=2, preemptibility="preemptible"),
        *(pod(f"pending-{i}", "pending", phase="Pending", resources=asks) for i in range(2)),
    ]
    victims = {
        "etl": ({"requests": {"cpu": "8"}}, {}),
        "shares": ({"requests": {"cpu": "2"}}, {"gpu-fraction": "0.5"}),
        "train": ({"limits": {"nvidia.com/gpu": "1"}}, {}),
    }
    for name, (resources, marks) in victims.items():
        objects.append(
            pod_group(
                name, queue="run", minMember=0, preemptibility="preemptible", annotations=START
            )
        )
        objects += [
            pod(f"{name}-{i}", name, node="n1", resources=resources, annotations=marks)
            for i in range(2)
        ]
    if shard is not None:
        objects.append(shard)
    return write_objects(tmp_path / "units.json", *objects)


def test_a_gpu_preemptor_plans_in_gpus_passing_over_cpu_pods_and_counting_fractions(
    tmp_path: Path,
) -> None:
    """Two pending pods of 1 GPU: the need is 2 GPUs. etl's CPU pods free no GPU; shares' two
    pods free half a GPU each; train's first pod the last GPU. The lost work is GPU-hours of
    GPU pods (an hour on 0.5 + 0.5 + 1 GPUs), and etl's, shown but not taken, pod-hours."""
    path = units_cluster(tmp_path)
    report = run(
        ["explain", path, "--preemptor", "ml/pending", "--now", EXAMPLE_INSTANT, "-o", "json"]
    )
    assert report.report["preemptor"]["need"] == {"nvidia.com/gpu": 2.0}
    plan = plan_of(report.report, "reclaim")
    assert [(v["id"], v["pods"], v["unsavedWorkUnit"]) for v in plan["victims"]] == [
        ("ml/shares", ["shares-1", "shares-0"], "GPU-hours"),
        ("ml/train", ["train-1"], "GPU-hours"),
    ]
    assert (plan["freed"], plan["missing"]) == (
        {"cpu": 4.0, "nvidia.com/gpu": 2.0, "pods": 3},
        {},
    )
    assert plan["unsavedWork"] == 3600 * (0.5 + 0.5 + 1)
    etl = decision_of(report.report, "ml/etl")
    assert (etl["unsavedWork"], etl["unsavedWorkUnit"]) == (7200.0, "pod-hours")  # 2 pods, 1 h
    table = run(["explain", path, "--preemptor", "ml/pending", "--now", EXAMPLE_INSTANT]).out
    assert "  by reclaim: 2 jobs, frees 2 GPUs, loses 2.00 GPU-hours" in table.splitlines()


def test_a_cpu_preemptor_plans_in_pods_and_a_cpu_jobs_loss_is_pod_hours(tmp_path: Path) -> None:
    """Pending pods that request no GPU: the need is 2 pods, taken from the cheapest victims;
    the CPU job's lost work is in pod-hours, never called GPU-hours."""
    path = units_cluster(tmp_path, cpu_preemptor=True)
    report = run(
        ["explain", path, "--preemptor", "ml/pending", "--now", EXAMPLE_INSTANT, "-o", "json"]
    )
    assert report.report["preemptor"]["need"] == {"pods": 2}
    plan = plan_of(report.report, "reclaim")
    # cheapest first: shares (an hour on two half GPUs), then train and etl (tied at 2 hours
    # each: input order, after the earlier start, priority and evictions tie)
    assert [(v["id"], v["pods"]) for v in plan["victims"]] == [
        ("ml/shares", ["shares-1", "shares-0"]),
    ]
    assert (plan["freed"]["pods"], plan["missing"]) == (2, {})
    out = run(["explain", path, "--preemptor", "ml/pending", "--now", EXAMPLE_INSTANT]).out
    text = " ".join(line.strip() for line in out.splitlines())
    assert (
        "Plan: free 2 pods (what the 2 pending pods need: one pod each: they request no GPU), "
        "cheapest victims first: by reclaim: 1 job, frees 2 pods, loses 1.00 GPU-hours"
    ) in text
    (etl,) = [line for line in out.splitlines() if line.startswith("  ml/etl ")]
    assert etl.split()[-2:] == ["2.00p", "2"]  # two pods for an hour: pod-hours, marked


BACKOFF_SHARD: JSON = {
    "apiVersion": "kai.scheduler/v1",
    "kind": "SchedulingShard",
    "metadata": {"name": "default"},
    "spec": {
        "scenarioSearchBudgets": {
            "minFailedSearchBackoff": {"default": "10s"},
            "maxFailedSearchBackoff": {"default": "5m", "reclaim": "2m"},
        }
    },
}


def test_a_retry_time_says_the_failed_search_backoff_where_the_shard_sets_one(
    tmp_path: Path,
) -> None:
    """train (started an hour ago, reclaim min-runtime 2h) is protected until 13:00: reclaim
    finds nothing now and retries then; the shard's failed-search backoff for reclaim (2m at
    most) is said with the retry time, in the plan and in the last line."""
    objects: list[JSON] = [
        queue_object("run", reclaimMinRuntime="2h"),
        queue_object("want"),
        pod_group("pending", queue="want", minMember=1, preemptibility="preemptible"),
        pod("pending-0", "pending", phase="Pending", resources={"limits": {"nvidia.com/gpu": "1"}}),
        pod_group(
            "train", queue="run", minMember=1, preemptibility="preemptible", annotations=START
        ),
        pod("train-0", "train", node="n1", resources={"limits": {"nvidia.com/gpu": "1"}}),
        BACKOFF_SHARD,
    ]
    path = write_objects(tmp_path / "backoff.json", *objects)
    args = ["explain", path, "--preemptor", "ml/pending", "--now", EXAMPLE_INSTANT]
    report = run([*args, "-o", "json"]).report
    plan = plan_of(report, "reclaim")
    assert (plan["retryAt"], plan["searchBackoff"]) == (
        "2026-11-22T13:00:00Z",
        {"min": "10s", "max": "2m"},
    )
    text = " ".join(line.strip() for line in run(args).out.splitlines())
    assert text.endswith(
        "Retry at 2026-11-22T13:00:00Z: the next protection that would free a victim ends then. "
        "The scheduler's failed-search backoff (scenarioSearchBudgets) may wait up to 2m for "
        "reclaim after it before it searches again."
    )
    assert (
        "1 GPU still missing: retry at 13:00:00, when the next protection ends (the scheduler's "
        "failed-search backoff may wait up to 2m more)"
    ) in text

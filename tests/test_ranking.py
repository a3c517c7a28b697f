"""Unsaved work, victim ranking and selection (``minruntime._ranking``,
docs/spec/beyond-min-runtime.md) through the Session: ``unsaved_work``, ``rank_victims``, and
the law that the ranking is the eligible victims reordered, cheapest first.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import attrs
from hypothesis import given
from hypothesis import strategies as st
from tests.world import (
    CHECKPOINTING,
    RECLAIMER,
    at,
    checkpoint_inputs,
    gpus,
    near_checkpoints,
    session_at,
    victim,
)

from minruntime import (
    Action,
    Config,
    Job,
    JobInputs,
    PodSet,
    ProtectionSettings,
    Queue,
    QueueTree,
    Reason,
    Session,
    Task,
)
from minruntime.testing import jobs, min_runtimes

RECLAIM = Action.RECLAIM
PREEMPT = Action.PREEMPT


# -- unsaved work and ranking --------------------------------------------------------------------


def test_unsaved_work_of_a_victim_counts_its_active_tasks_weights() -> None:
    job = Job(
        "j",
        "a",
        start_time=at(0),
        pod_sets=[
            PodSet(
                min_available=1,
                tasks=[
                    Task("a", resources={"nvidia.com/gpu": 8}),
                    Task("b", resources={"nvidia.com/gpu": 2}),
                    Task("c", "Pending", resources={"nvidia.com/gpu": 4}),
                ],
            )
        ],
        inputs=JobInputs(last_checkpoint=at(10)),
    )
    current = session_at(15)
    assert current.unsaved_work(job) == 5 * 60 * 10.0
    assert current.unsaved_work(job, [Task("b", resources={"nvidia.com/gpu": 2})]) == 5 * 60 * 2.0
    assert current.unsaved_work(job, []) == 0.0
    assert current.unsaved_work(attrs.evolve(job, start_time=None)) == 0.0
    assert (
        current.unsaved_work(
            attrs.evolve(
                job, inputs=attrs.evolve(job.inputs or JobInputs(), last_checkpoint=at(-5))
            )
        )
        == 15 * 60 * 10.0
    )


@attrs.frozen
class BareTask:
    """A scheduler's own task object without a weight: it weighs 1."""

    id: Hashable
    status: str = "Running"


def test_unsaved_work_of_tasks_without_a_weight_counts_each_as_one() -> None:
    job = victim("j", weights=(5, 5))
    assert session_at(10).unsaved_work(job, [BareTask("x"), BareTask("y")]) == 2 * 600.0


RANK_TREE = QueueTree([Queue("team", reclaim_min_runtime="1h"), Queue("other")])
RANK_RECLAIMER = Job("rec", "other", priority=100)


def test_rank_victims_puts_the_least_unsaved_work_first() -> None:
    big = victim("big", "team", start=-90, weights=(8,))  # 5400 s x 8 = 43200
    tie_a = victim("tie-a", "team", start=-70, priority=40, last_checkpoint=at(-20))  # 1200
    young = victim("young", "team", start=-10)  # protected: not eligible
    elastic = victim(
        "elastic", "team", start=-10, weights=(8, 8, 1, 1), min_available=2
    )  # deferred: only the two surplus tasks, 600 s x 2 = 1200
    saved = victim(
        "saved", "team", start=-120, weights=(4, 4), last_checkpoint=at(-5)
    )  # 300 s x 8 = 2400
    non = victim("non", "team", start=-120, preemptibility="non-preemptible")
    tie_b = victim("tie-b", "team", start=-70, priority=40, last_checkpoint=at(-20))  # 1200
    victims = [big, tie_a, young, elastic, saved, non, tie_b]
    current = session_at(0, RANK_TREE)
    ranked = current.rank_victims(RECLAIM, RANK_RECLAIMER, victims)
    assert [job.id for job in ranked] == ["tie-a", "tie-b", "elastic", "saved", "big"]
    assert [
        current.unsaved_work(job, current.verdict(RECLAIM, RANK_RECLAIMER, job).tasks)
        for job in ranked
    ] == [1200.0, 1200.0, 1200.0, 2400.0, 43200.0]
    assert sorted(job.id for job in ranked) == sorted(
        job.id for job in current.eligible_victims(RECLAIM, RANK_RECLAIMER, victims)
    )


def test_rank_victims_counts_all_tasks_of_an_unprotected_elastic_victim() -> None:
    elastic = victim("elastic", "team", start=-90, weights=(8, 8, 1, 1), min_available=2)
    small = victim("small", "team", start=-90, weights=(10,))
    current = session_at(0, RANK_TREE)
    assert current.verdict(RECLAIM, RANK_RECLAIMER, elastic).reason is Reason.ELIGIBLE
    # 5400 s x 18 against 5400 s x 10
    ranked = current.rank_victims(RECLAIM, RANK_RECLAIMER, [elastic, small])
    assert [job.id for job in ranked] == ["small", "elastic"]


def test_rank_victims_leaves_out_victims_protected_by_the_new_rules() -> None:
    current = session_at(35)
    counted = victim("counted", "budget", start=-60, evictions=2)
    free = victim("free", start=-60, weights=(2,))
    cheap = victim("cheap", start=-60, last_checkpoint=at(30))
    ranked = current.rank_victims(RECLAIM, RECLAIMER, [CHECKPOINTING, counted, free, cheap])
    assert [job.id for job in ranked] == ["cheap", "free"]


def test_rank_victims_of_no_victims_is_empty() -> None:
    assert session_at(0).rank_victims(RECLAIM, RECLAIMER, []) == []


@st.composite
def ranking_cycles(draw: st.DrawFn) -> tuple[Session, Action, Job, list[Job]]:
    """A session over two queues with random settings, a preemptor and mostly eligible victims
    (weighted tasks, elastic or not, with checkpoint inputs), some of them duplicates."""
    settings = st.one_of(st.none(), min_runtimes(allow_never=False, max_seconds=2 * 3600))
    tree = QueueTree(
        [
            Queue(
                "team",
                preempt_min_runtime=draw(settings),
                reclaim_min_runtime=draw(settings),
                protections=ProtectionSettings(
                    preempt_checkpoint_grace=draw(settings),
                    reclaim_checkpoint_grace=draw(settings),
                    max_evictions=draw(st.one_of(st.none(), st.integers(0, 3))),
                    eviction_window=draw(settings),
                    max_job_min_runtime=draw(settings),
                ),
            ),
            Queue("other"),
        ]
    )
    now = at(draw(st.integers(-60, 5 * 60)))
    action = draw(st.sampled_from([PREEMPT, RECLAIM]))
    preemptor = Job("preemptor", "team" if action is PREEMPT else "other", priority=125)
    weights = st.sampled_from([0.5, 1.0, 1.0, 2.0, 8.0])
    victims = []
    for number in range(draw(st.integers(0, 8))):
        job = draw(jobs(queues=("team",), id=f"v{number}", max_pod_sets=2, max_tasks=4))
        pod_sets = [
            attrs.evolve(
                pod_set,
                tasks=[attrs.evolve(task, resources=gpus(draw(weights))) for task in pod_set.tasks],
            )
            for pod_set in job.pod_sets
        ]
        job = attrs.evolve(
            draw(checkpoint_inputs(job)),
            priority=draw(st.sampled_from([10, 50, 50, 99])),
            preemptibility=draw(st.sampled_from(["preemptible", "semi-preemptible"])),
            pod_sets=pod_sets,
        )
        if draw(st.booleans()):
            job = draw(near_checkpoints(job, now))
        victims.append(job)
    duplicate = draw(st.booleans())
    if victims and duplicate:
        victims.append(draw(st.sampled_from(victims)))  # the same object twice
    return Session(tree, Config(), now), action, preemptor, victims


@given(ranking_cycles())
def test_rank_victims_is_the_eligible_victims_cheapest_first(
    cycle: tuple[Session, Action, Job, list[Job]],
) -> None:
    """rank_victims returns exactly eligible_victims reordered, non-decreasing in unsaved work
    (of the tasks that would go), then priority, then fewer recent evictions, then the later
    start, then input order."""
    current, action, preemptor, victims = cycle
    ranked = current.rank_victims(action, preemptor, victims)
    eligible = current.eligible_victims(action, preemptor, victims)
    assert sorted(map(id, ranked)) == sorted(map(id, eligible))
    assert len(ranked) == len(eligible)
    verdicts = [current.verdict(action, preemptor, job) for job in ranked]
    work = [
        current.unsaved_work(job, verdict.tasks)
        for job, verdict in zip(ranked, verdicts, strict=True)
    ]
    assert work == sorted(work)
    # ties: lower priority first, then fewer recent evictions, then the later start, then
    # input order (a job listed twice keeps both places)
    positions = {id(job): [i for i, v in enumerate(victims) if v is job] for job in ranked}
    seen: dict[int, int] = {}
    keys = []
    for lost, job, verdict in zip(work, ranked, verdicts, strict=True):
        place = positions[id(job)][seen.get(id(job), 0)]
        seen[id(job)] = seen.get(id(job), 0) + 1
        start = -math.inf if job.start_time is None else -job.start_time.timestamp()
        keys.append((lost, job.priority, verdict.rank_key[2], start, place))
    assert keys == sorted(keys)

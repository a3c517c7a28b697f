"""The simulator's trace readers (``minruntime_sim.traces``) and synthetic workloads.

The real traces ship inside the package (``minruntime_sim/data``), so every test can read them.
"""

from __future__ import annotations

import importlib.resources
from collections import Counter
from pathlib import Path

import attrs
import pytest

import minruntime_sim
from minruntime import MinRuntime, Preemptibility, Queue, QueueTree
from minruntime_sim import (
    InvalidSetting,
    InvalidTrace,
    JobSpec,
    Workload,
    read_alibaba,
    read_csv,
    read_philly,
)
from minruntime_sim.synthetic import synthetic_workload
from minruntime_sim.traces import default_traces_dir, load_trace, write_csv

TRACES = Path(str(importlib.resources.files("minruntime_sim") / "data"))

NON = Preemptibility.NON_PREEMPTIBLE


def excerpt(source: str, lines: list[int], folder: Path, name: str | None = None) -> Path:
    """Copy the header and the given 1-based lines of a real trace file into ``folder``."""
    text = (TRACES / source).read_text(encoding="utf-8").splitlines()
    target = folder / (name or source)
    target.write_text("\n".join(text[i - 1] for i in [1, *lines]) + "\n", encoding="utf-8")
    return target


# -- Philly ----------------------------------------------------------------------------------


def test_philly_reads_its_first_rows_as_jobs_of_virtual_cluster_queues(tmp_path: Path) -> None:
    """Times count from the earliest submission (2017-09-29 07:58:32, the third row); a VC not
    in the nodes file deserves nothing; durations round up."""
    jobs = excerpt("philly.csv", [2, 3, 4], tmp_path)
    with jobs.open("a", encoding="utf-8") as handle:
        handle.write("2017-09-29 08:00:00,10.5,2,21.0,zzz\n")
    excerpt("philly-vc-nodes.csv", list(range(2, 13)), tmp_path)

    workload = read_philly(tmp_path)

    def train(id: str, queue: str, submit: int, run_time: int, gpus: int) -> JobSpec:
        return JobSpec(
            id=id,
            queue=queue,
            submit=submit,
            run_time=run_time,
            gpus=gpus,
            priority=50,
            preemptibility="preemptible",
        )

    assert workload.jobs == (
        train("philly-00000", "11cb48", 864_000 - 3_397, 66, 1),
        train("philly-00001", "6214e9", 864_000 - 6_329, 2951, 1),
        train("philly-00002", "6c71a0", 0, 860_662, 1),
        train("philly-00003", "zzz", 88, 11, 2),
    )
    assert workload.total_gpus == 352 * 8
    assert workload.deserved["6214e9"] == 512
    assert workload.deserved["zzz"] == 0
    assert list(workload.tree) == ["philly", *workload.deserved]
    assert {workload.tree.parent(name) for name in workload.deserved} == {"philly"}
    assert workload.notes == (
        "4 jobs from philly.csv; 11 virtual clusters, 352 nodes of 8 GPUs",
        "1 virtual clusters not in philly-vc-nodes.csv (zzz; 1 jobs) deserve 0 GPUs",
    )


@pytest.fixture(scope="module")
def philly() -> Workload:
    """The packaged Philly trace, read once for the tests that only look at it (a workload is
    frozen)."""
    return read_philly()


def test_philly_default_is_the_whole_repository_trace(philly: Workload) -> None:
    workload = philly

    assert (len(workload.jobs), workload.total_gpus) == (82_247, 2_816)
    assert sum(workload.deserved.values()) == 2_816
    assert workload.jobs[0].id == "philly-00000"


def test_philly_names_the_file_line_and_value_it_cannot_read(tmp_path: Path) -> None:
    jobs = excerpt("philly.csv", [2], tmp_path)
    with jobs.open("a", encoding="utf-8") as handle:
        handle.write("2017-10-09 07:01:55,66.0,x,66.0,11cb48\n")
    excerpt("philly-vc-nodes.csv", [2], tmp_path)

    with pytest.raises(InvalidTrace) as caught:
        read_philly(jobs)
    assert str(caught.value) == "philly.csv line 3: invalid num_gpus 'x' (expected an integer >= 1)"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("yesterday,66.0,1,66.0,a", "philly.csv line 2: invalid timestamp 'yesterday'"),
        ("2017-10-09 07:01:55,-3,1,66.0,a", "philly.csv line 2: invalid duration '-3'"),
        ("2017-10-09 07:01:55,soon,1,66.0,a", "philly.csv line 2: invalid duration 'soon'"),
    ],
)
def test_philly_rejects_bad_times(tmp_path: Path, row: str, message: str) -> None:
    (tmp_path / "philly.csv").write_text(
        f"timestamp,duration,num_gpus,gpu_time,cluster\n{row}\n", encoding="utf-8"
    )
    (tmp_path / "philly-vc-nodes.csv").write_text("vc,node num\na,1\n", encoding="utf-8")

    with pytest.raises(InvalidTrace) as caught:
        read_philly(tmp_path)
    assert str(caught.value).startswith(message)


def test_a_missing_column_is_named_with_the_columns_found(tmp_path: Path) -> None:
    (tmp_path / "philly.csv").write_text("timestamp,duration\n", encoding="utf-8")
    (tmp_path / "philly-vc-nodes.csv").write_text("vc,node num\n", encoding="utf-8")

    with pytest.raises(InvalidTrace) as caught:
        read_philly(tmp_path)
    assert str(caught.value) == (
        "philly.csv: missing columns ['num_gpus', 'cluster'] (found ['timestamp', 'duration']; "
        "expected ['timestamp', 'duration', 'num_gpus', 'cluster'])"
    )


def test_a_missing_trace_file_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(InvalidTrace) as caught:
        read_philly(tmp_path)
    assert f"trace file '{tmp_path / 'philly.csv'}' not found" in str(caught.value)


def test_the_traces_folder_can_be_set_by_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "philly.csv").write_text(
        "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,60,1,60,a\n",
        encoding="utf-8",
    )
    (tmp_path / "philly-vc-nodes.csv").write_text("vc,node num\na,2\n", encoding="utf-8")
    monkeypatch.setenv("MINRUNTIME_SIM_TRACES", str(tmp_path))

    workload = load_trace("philly")

    assert default_traces_dir() == tmp_path
    assert [(job.id, job.queue, job.run_time) for job in workload.jobs] == [
        ("philly-00000", "a", 60)
    ]
    assert (workload.total_gpus, dict(workload.deserved)) == (16, {"a": 16})


# -- Alibaba ---------------------------------------------------------------------------------


def test_alibaba_reads_qos_as_priority_and_preemptibility(tmp_path: Path) -> None:
    """Pods 0000-0006 (LS; 0005 has no GPU), 0017 (Burstable, 8 GPUs), 0022 (BE), 0061 (never
    scheduled). A pod runs from scheduled_time to deletion_time."""
    excerpt("alibaba-openb-pods.csv", [2, 3, 4, 5, 6, 7, 8, 19, 24, 63], tmp_path)
    excerpt("alibaba-openb-gpu-nodes.csv", [2, 3, 4], tmp_path)

    workload = read_alibaba(tmp_path)

    def ls(name: str, submit: int, run_time: int) -> JobSpec:
        return JobSpec(
            id=name,
            queue="openb",
            submit=submit,
            run_time=run_time,
            gpus=1,
            priority=125,
            preemptibility=NON,
        )

    assert workload.jobs == (
        ls("openb-pod-0000", 0, 12_537_496),
        ls("openb-pod-0001", 427_061, 12_902_960 - 427_061),
        ls("openb-pod-0002", 1_558_381, 12_902_960 - 1_558_381),
        ls("openb-pod-0003", 2_690_044, 12_902_960 - 2_690_044),
        ls("openb-pod-0004", 2_758_084, 12_902_960 - 2_758_084),
        ls("openb-pod-0006", 3_019_330, 11_815_163 - 3_019_331),
        JobSpec(
            id="openb-pod-0017",
            queue="openb",
            submit=9_437_497,
            run_time=10_769_854 - 9_437_497,
            gpus=8,
            priority=100,
            preemptibility="semi-preemptible",
            min_available=1,
        ),
        JobSpec(
            id="openb-pod-0022",
            queue="openb",
            submit=9_679_175,
            run_time=9_973_826 - 9_679_175,
            gpus=1,
            priority=50,
            preemptibility="preemptible",
        ),
    )
    assert (workload.total_gpus, dict(workload.deserved)) == (6, {"openb": 6})
    assert workload.notes == (
        "8 GPU pods from alibaba-openb-pods.csv; dropped 1 pods without GPUs and 1 never scheduled",
        "fractional GPU requests counted as whole GPUs",
    )


def test_alibaba_default_is_the_whole_repository_trace() -> None:
    workload = read_alibaba()

    assert (len(workload.jobs), workload.total_gpus) == (6_203, 6_212)
    assert min(job.submit for job in workload.jobs) == 0


def test_alibaba_rejects_an_unknown_qos_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "alibaba-openb-pods.csv").write_text(
        "name,num_gpu,qos,creation_time,deletion_time,scheduled_time\np,1,Gold,0,10,0\n",
        encoding="utf-8",
    )
    (tmp_path / "alibaba-openb-gpu-nodes.csv").write_text("sn,gpu\nn,8\n", encoding="utf-8")

    with pytest.raises(InvalidTrace) as caught:
        read_alibaba(tmp_path / "alibaba-openb-pods.csv")
    assert str(caught.value) == (
        "alibaba-openb-pods.csv line 2: unknown qos 'Gold' "
        "(expected one of ['BE', 'Burstable', 'Guaranteed', 'LS'])"
    )


# -- plain CSV -------------------------------------------------------------------------------


def test_write_csv_then_read_csv_gives_the_same_workload(tmp_path: Path) -> None:
    original = synthetic_workload(seed=5, jobs=30, queues=3, total_gpus=12)
    tree = QueueTree(
        [
            Queue("root", reclaim_min_runtime="1h"),
            Queue("q0", "root", preempt_min_runtime="never"),
            Queue("q1", "root"),
            Queue("q2", "root", reclaim_min_runtime="10m"),
        ]
    )
    workload = Workload(
        name="x", jobs=original.jobs, tree=tree, deserved=original.deserved, total_gpus=12
    )

    jobs_file, queues_file = write_csv(workload, tmp_path / "mine.csv")
    read = read_csv(jobs_file)

    assert queues_file == tmp_path / "mine.queues.csv"
    assert read.jobs == workload.jobs
    assert dict(read.deserved) == {"q0": 4, "q1": 4, "q2": 4}
    assert read.total_gpus == 12
    assert [tree[name] for name in tree] == [read.tree[name] for name in read.tree]
    assert read.tree["q0"].preempt_min_runtime == MinRuntime.NEVER
    assert read.name == "mine"


def test_a_csv_without_queues_file_needs_the_cluster_size(tmp_path: Path) -> None:
    path = tmp_path / "bare.csv"
    path.write_text("id,queue,submit,run_time,gpus\nj1,b,0,10,1\nj2,a,5,10,2\n", encoding="utf-8")

    with pytest.raises(InvalidTrace) as caught:
        read_csv(path)
    workload = read_csv(path, total_gpus=5)

    assert str(caught.value) == (
        "bare.csv: no queues file 'bare.queues.csv': give the cluster's GPUs "
        "(total_gpus, or --gpus on the command line)"
    )
    assert (list(workload.tree), dict(workload.deserved)) == (["a", "b"], {"a": 3, "b": 2})
    assert [job.priority for job in workload.jobs] == [50, 50]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("j,a,0,10,1,50,sometimes,,", "bare.csv line 2: invalid preemptibility 'sometimes'"),
        ("j,a,0,10,2,50,,3,", "bare.csv line 2: job 'j': min_available must be an integer"),
        ("j,a,0,0,1,50,,,", "bare.csv line 2: invalid run_time '0' (expected an integer >= 1)"),
        ("j,a,0,10,1,high,,,", "bare.csv line 2: invalid priority 'high'"),
        ("j,a,0,10,1,50,,,0", "bare.csv line 2: invalid checkpoint_interval '0'"),
    ],
)
def test_read_csv_names_the_line_and_the_bad_value(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "bare.csv"
    header = (
        "id,queue,submit,run_time,gpus,priority,preemptibility,min_available,checkpoint_interval"
    )
    path.write_text(f"{header}\n{row}\n", encoding="utf-8")

    with pytest.raises(InvalidTrace) as caught:
        read_csv(path, total_gpus=4)
    assert str(caught.value).startswith(message)


def test_a_bad_queues_file_is_reported_with_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("id,queue,submit,run_time,gpus\nj,a,0,10,1\n", encoding="utf-8")
    (tmp_path / "t.queues.csv").write_text(
        "name,parent,deserved,reclaim_min_runtime\na,ghost,2,5\n", encoding="utf-8"
    )

    with pytest.raises(InvalidTrace) as caught:
        read_csv(path)
    message = str(caught.value)
    assert "invalid duration '5' in Queue 'a' reclaim_min_runtime" in message
    assert "queue 'a' has parent 'ghost', which is not in the tree" in message


def test_a_named_queues_file_must_exist(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("id,queue,submit,run_time,gpus\n", encoding="utf-8")

    with pytest.raises(InvalidTrace, match=r"queues file '.*elsewhere\.csv' not found"):
        read_csv(path, queues_path=tmp_path / "elsewhere.csv")
    with pytest.raises(InvalidTrace, match=r"trace file '.*nothere\.csv' not found"):
        read_csv(tmp_path / "nothere.csv")


# -- by name ---------------------------------------------------------------------------------


def test_load_trace_limits_and_resizes(tmp_path: Path) -> None:
    jobs_file, _ = write_csv(
        synthetic_workload(seed=2, jobs=10, queues=2, total_gpus=8), tmp_path / "w.csv"
    )

    workload = load_trace(jobs_file, limit=4, gpus=5)

    assert [job.id for job in workload.jobs] == ["s2-0000", "s2-0001", "s2-0002", "s2-0003"]
    assert (workload.total_gpus, dict(workload.deserved)) == (5, {"q0": 3, "q1": 2})
    assert workload.notes == ("cluster resized to 5 GPUs on 1 node, quotas scaled",)


def test_load_trace_sizes_a_bare_csv_with_gpus(tmp_path: Path) -> None:
    path = tmp_path / "bare.csv"
    path.write_text("id,queue,submit,run_time,gpus\nj,a,0,10,1\n", encoding="utf-8")

    assert load_trace(path, gpus=3).total_gpus == 3


def test_load_trace_makes_a_synthetic_workload_of_limit_jobs() -> None:
    workload = load_trace("synthetic", limit=7, seed=3)

    assert workload.name == "synthetic(seed=3, jobs=7)"
    assert workload.jobs == synthetic_workload(seed=3, jobs=7).jobs


def test_load_trace_rejects_an_unknown_name() -> None:
    with pytest.raises(InvalidTrace) as caught:
        load_trace("helios")
    assert str(caught.value) == (
        "unknown trace 'helios' (expected philly, alibaba, synthetic, or a CSV file's path)"
    )


def test_load_trace_philly_keeps_the_first_jobs_by_submission() -> None:
    workload = load_trace("philly", limit=3, gpus=704)

    assert [(job.id, job.submit) for job in workload.jobs] == [
        ("philly-01984", 257_229),
        ("philly-31566", 0),
        ("philly-54649", 235_696),
    ]
    assert workload.total_gpus == 704
    assert sum(workload.deserved.values()) == 704


# -- synthetic -------------------------------------------------------------------------------


def test_synthetic_workloads_depend_only_on_their_arguments() -> None:
    first = synthetic_workload(seed=9, jobs=40, queues=3, total_gpus=16, max_gpus=8)
    again = synthetic_workload(seed=9, jobs=40, queues=3, total_gpus=16, max_gpus=8)
    other = synthetic_workload(seed=10, jobs=40, queues=3, total_gpus=16, max_gpus=8)

    assert first.jobs == again.jobs
    assert first.jobs != other.jobs
    assert {job.queue for job in first.jobs} == {"q0", "q1", "q2"}
    assert max(job.gpus for job in first.jobs) <= 8
    assert all(job.run_time >= 60 for job in first.jobs)
    assert [job.submit for job in first.jobs] == sorted(job.submit for job in first.jobs)


def test_synthetic_mixes_elastic_semi_and_non_preemptible_jobs() -> None:
    workload = synthetic_workload(seed=4, jobs=200, max_gpus=8, elastic=0.3, semi_preemptible=0.3)

    kinds = {
        (job.preemptibility, job.elastic, job.priority >= 100)
        for job in workload.jobs
        if job.gpus > 1 or job.priority >= 100
    }
    assert kinds >= {
        (Preemptibility.PREEMPTIBLE, True, False),
        (Preemptibility.SEMI_PREEMPTIBLE, True, False),
        (None, False, True),
        (None, False, False),
    }
    assert any(job.checkpoint_interval == 600 for job in workload.jobs)
    assert any(job.checkpoint_interval == 1800 for job in workload.jobs)


def test_without_the_variable_the_traces_are_the_packaged_ones_wherever_it_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No reaching into a clone: the current directory's data/traces is not looked at."""
    monkeypatch.delenv("MINRUNTIME_SIM_TRACES", raising=False)
    (tmp_path / "data" / "traces").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert default_traces_dir() == TRACES
    assert default_traces_dir().parent == Path(minruntime_sim.__file__).parent
    assert len(load_trace("philly").jobs) == 82_247


def test_the_traces_come_with_their_nodes(philly: Workload) -> None:
    """Philly: 352 nodes of 8 GPUs; Alibaba: its 1,213 GPU nodes of 1 to 8 GPUs."""
    alibaba = read_alibaba()

    assert (len(philly.nodes), set(philly.nodes), sum(philly.nodes)) == (352, {8}, 2816)
    assert (len(alibaba.nodes), sum(alibaba.nodes)) == (1213, 6212)
    assert sorted(Counter(alibaba.nodes).items()) == [(1, 24), (2, 518), (4, 54), (8, 617)]


def test_resizing_philly_keeps_whole_8_gpu_nodes() -> None:
    workload = load_trace("philly", limit=100, gpus=704)

    assert (len(workload.nodes), set(workload.nodes)) == (88, {8})
    assert sum(workload.deserved.values()) == 704


def test_the_load_factor_divides_the_submission_times() -> None:
    plain = load_trace("synthetic", limit=20, seed=4)
    busier = load_trace("synthetic", limit=20, seed=4, load_factor=2.5)

    assert [job.submit for job in busier.jobs] == [int(job.submit // 2.5) for job in plain.jobs]
    assert (busier.total_gpus, busier.nodes, busier.deserved) == (
        plain.total_gpus,
        plain.nodes,
        plain.deserved,
    )
    assert busier.notes[-1] == "load x2.5: submission times divided by 2.5"
    with pytest.raises(InvalidSetting) as caught:
        plain.with_load(0)
    assert str(caught.value) == "load factor must be a number > 0, got 0"


def test_quotas_and_nodes_survive_write_csv_then_read_csv(tmp_path: Path) -> None:
    original = synthetic_workload(seed=5, jobs=10, queues=2, total_gpus=12)
    workload = attrs.evolve(
        original,
        deserved={"root": 12, "q0": 4},
        over_quota_weights={"q0": 2, "q1": 0.5},
        limits={"q1": 8},
        nodes=(8, 2, 2),
    )

    jobs_file, _ = write_csv(workload, tmp_path / "mine.csv")
    read = read_csv(jobs_file)

    assert (tmp_path / "mine.nodes.csv").read_text(encoding="utf-8") == "gpus\n8\n2\n2\n"
    assert (read.total_gpus, read.nodes) == (12, (8, 2, 2))
    assert (dict(read.deserved), dict(read.over_quota_weights), dict(read.limits)) == (
        {"root": 12, "q0": 4},
        {"q0": 2, "q1": 0.5},
        {"q1": 8},
    )


def test_a_bad_queue_quota_names_file_line_and_value(tmp_path: Path) -> None:
    (tmp_path / "w.csv").write_text("id,queue,submit,run_time,gpus\nj,a,0,1,1\n", encoding="utf-8")
    (tmp_path / "w.queues.csv").write_text(
        "name,parent,deserved,over_quota_weight\na,,1,heavy\n", encoding="utf-8"
    )

    with pytest.raises(InvalidTrace) as caught:
        read_csv(tmp_path / "w.csv")
    assert str(caught.value) == (
        "w.queues.csv line 2: invalid over_quota_weight 'heavy' (expected a number >= 0)"
    )

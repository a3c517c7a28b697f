"""The reference scheduler's snapshot archive (``minruntime.kube._archive``): the ZIP file of its
``/get-snapshot`` endpoint, its redacted form (docs/spec/kubernetes.md), and the bound on its
entry while it is read."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest
from tests.world import zip_archive

from minruntime.errors import InvalidObject
from minruntime.kube import load_snapshot_archive, read_snapshot

# A redacted snapshot: every name obfuscated, the same obfuscated name wherever the object is
# named (the pod's annotation names its pod group, the pod group names its queue).
REDACTED: dict[str, Any] = {
    "config": {"tiers": [{"plugins": [{"name": "minruntime"}]}]},
    "rawObjects": {
        "queues": [
            {"metadata": {"name": "q-7d1e"}, "spec": {"reclaimMinRuntime": "30m"}},
            {"metadata": {"name": "q-0b94"}, "spec": {"parentQueue": "q-7d1e"}},
        ],
        "podGroups": [
            {
                "metadata": {"name": "pg-51c2", "namespace": "ns-e8a0"},
                "spec": {"queue": "q-0b94", "minMember": 1, "preemptibility": "preemptible"},
            }
        ],
        "pods": [
            {
                "metadata": {
                    "name": "pod-93fa",
                    "namespace": "ns-e8a0",
                    "annotations": {"pod-group-name": "pg-51c2"},
                },
                "spec": {"nodeName": "node-4c11"},
                "status": {"phase": "Running"},
            }
        ],
        "nodes": [{"metadata": {"name": "node-4c11"}}],
    },
}
TRANSLATION_TABLE = {
    "q-7d1e": "research",
    "q-0b94": "vision",
    "ns-e8a0": "ml",
    "pg-51c2": "train-resnet",
    "pod-93fa": "train-resnet-0",
    "node-4c11": "gpu-node-3",
}


def test_a_redacted_snapshot_reads_like_any_with_the_names_it_holds() -> None:
    data = zip_archive({"snapshot.json": REDACTED, "translation-table.json": TRANSLATION_TABLE})
    snapshot = read_snapshot(load_snapshot_archive(data, origin="redacted.zip"))
    assert [job.id for job in snapshot.jobs] == ["ns-e8a0/pg-51c2"]
    (job,) = snapshot.jobs
    assert (job.job.queue, [task.id for task in job.job.pod_sets[0].tasks]) == (
        "q-0b94",
        ["pod-93fa"],
    )
    assert sorted(snapshot.tree) == ["q-0b94", "q-7d1e"]
    assert snapshot.tree.parent("q-0b94") == "q-7d1e"
    assert snapshot.warnings == ()  # the translation table is no problem: it is not read


def test_a_translation_table_is_never_taken_for_a_snapshot() -> None:
    """Even a table that looks like a snapshot is not read: only ``snapshot.json`` is."""
    decoy = {"rawObjects": {"queues": [{"metadata": {"name": "research"}}]}}
    data = zip_archive({"translation-table.json": decoy, "snapshot.json": REDACTED})
    objects = load_snapshot_archive(data)
    assert [obj.get("metadata", {}).get("name") for obj in objects] == [
        "q-7d1e",
        "q-0b94",
        "pg-51c2",
        "pod-93fa",
        "node-4c11",
        None,  # the scheduler configuration, last
    ]


def test_a_translation_table_alone_is_an_error_naming_what_the_archive_holds() -> None:
    data = zip_archive({"translation-table.json": TRANSLATION_TABLE})
    with pytest.raises(InvalidObject) as caught:
        load_snapshot_archive(data, origin="redacted.zip")
    assert str(caught.value) == (
        "redacted.zip: expected one snapshot.json in the archive, found 0 (it holds "
        "'translation-table.json')"
    )


def test_a_zip_bomb_entry_fails_as_soon_as_it_passes_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """50 MB of zeros compress to ~50 kB; reading stops past the bound, long before the whole."""
    size = 50 * 2**20
    bomb = zip_archive({"snapshot.json": b"0" * size})
    assert len(bomb) < size // 500
    monkeypatch.setattr("minruntime.kube._archive.MAX_ARCHIVE_MEMBER", 2**20)
    tracemalloc.start()
    try:
        with pytest.raises(InvalidObject) as caught:
            load_snapshot_archive(bomb, origin="bomb.zip")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(caught.value) == "bomb.zip: snapshot.json expands to more than 1048576 bytes"
    assert peak < 8 * 2**20, f"{peak / 2**20:.1f} MiB"


def test_a_zip_entry_under_the_bound_is_read_whole() -> None:
    document = {"rawObjects": {"queues": [{"metadata": {"name": "q"}}]}, "pad": "0" * 200_000}
    objects = load_snapshot_archive(zip_archive({"snapshot.json": document}))
    assert [o["metadata"]["name"] for o in objects] == ["q"]

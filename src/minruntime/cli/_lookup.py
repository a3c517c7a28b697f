"""Finding the preemptor that ``--preemptor`` names: a pod group, or a pod of one.

A reference is ``NAMESPACE/NAME``, or a bare ``NAME``: in ``--namespace`` when it is given,
else a name that only one pod group (or pod) of the snapshot has. A pod group wins over a pod of
the same name; a pod stands for its pod group, and :attr:`Found.note` says so. A reference that
names nothing gets the pod groups whose names are close to it (a did-you-mean).

>>> from minruntime.kube import read_snapshot
>>> snapshot = read_snapshot([
...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
...      "metadata": {"name": "train", "namespace": "ml"}, "spec": {"queue": "q"}},
...     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml",
...      "annotations": {"pod-group-name": "train"}}, "status": {"phase": "Pending"}},
... ])
>>> found = find_preemptor(snapshot, "train-0")
>>> found.job.id, found.note
('ml/train', "--preemptor: pod 'ml/train-0' is in pod group ml/train: that pod group is the preemptor")
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Final

import attrs

from minruntime._text import shown
from minruntime.cli._arguments import UsageError
from minruntime.errors import MinRuntimeError, UnknownJob
from minruntime.kube import Snapshot, SnapshotJob

__all__ = ["Found", "NotInSnapshot", "close_names", "find_preemptor"]

_SUGGESTIONS: Final = 3
"""At most this many close names in a did-you-mean."""
_CUTOFF: Final = 0.75
"""How close a name must be to be suggested (``difflib``'s ratio: 1 is the same name)."""
_SHORTEST_PREFIX: Final = 3
"""A reference at least this long is also close to the names it begins (``llama``)."""


class NotInSnapshot(MinRuntimeError, LookupError):
    """A pod group, pod or queue named on the command line that the snapshot does not hold,
    or a bare name that several of them have (exit status 1).

    >>> isinstance(NotInSnapshot("no pod group 'x'"), LookupError)
    True
    """


@attrs.frozen
class Found:
    """The pod group a ``--preemptor`` reference names, and a line to say how it was found
    (``None`` when the reference names the pod group itself).

    >>> from minruntime.kube import read_snapshot
    >>> snapshot = read_snapshot([
    ...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
    ...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"name": "train", "namespace": "ml"}, "spec": {"queue": "q"}},
    ... ])
    >>> found = find_preemptor(snapshot, "train", namespace="ml")
    >>> found.job.id, found.note
    ('ml/train', None)
    """

    job: SnapshotJob
    note: str | None = None


def close_names(reference: str, snapshot: Snapshot) -> list[str]:
    """The ids of the pod groups whose name is close to the name ``reference`` gives (its part
    after the ``/``), closest first: names ``difflib`` finds close, then names the reference
    begins; at most three, whatever their namespace.

    >>> from minruntime.kube import read_snapshot
    >>> snapshot = read_snapshot([
    ...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
    ...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"name": "finetune-7b", "namespace": "nlp"}, "spec": {"queue": "q"}},
    ... ])
    >>> close_names("finetune7b", snapshot), close_names("ml/finetune-7b", snapshot)
    (['nlp/finetune-7b'], ['nlp/finetune-7b'])
    >>> close_names("fine", snapshot), close_names("nowhere", snapshot)
    (['nlp/finetune-7b'], [])
    """
    name = reference.rpartition("/")[2]
    by_name: dict[str, list[str]] = {}
    for job in snapshot.jobs:
        by_name.setdefault(job.name, []).append(job.id)
    names = sorted(by_name)
    close = difflib.get_close_matches(name, names, n=_SUGGESTIONS, cutoff=_CUTOFF)
    if len(name) >= _SHORTEST_PREFIX:
        close += [other for other in names if other.startswith(name) and other not in close]
    ids = [job_id for other in close for job_id in sorted(by_name[other])]
    return ids[:_SUGGESTIONS]


def _either(names: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``.

    >>> _either(["a"]), _either(["a", "b"]), _either(["a", "b", "c"])
    ('a', 'a or b', 'a, b or c')
    """
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def find_preemptor(snapshot: Snapshot, reference: str, namespace: str | None = None) -> Found:
    """The pod group ``reference`` names (see the module's docstring for the forms).

    Raises:
        UsageError: when ``reference`` names a namespace other than ``namespace``.
        NotInSnapshot: when it names no pod group and no pod of the snapshot (with the close
            pod group names, if any), or a bare name that several have.
    """
    wanted = reference
    if namespace is not None:
        given, slash, _ = reference.partition("/")
        if slash and given != namespace:
            raise UsageError(
                f"--preemptor: {shown(reference)} is in namespace {shown(given)}, but "
                f"--namespace is {shown(namespace)} (expected a bare NAME, or NAMESPACE/NAME in "
                "that namespace)"
            )
        if not slash:
            wanted = f"{namespace}/{reference}"
    try:
        return Found(snapshot.find(wanted))
    except UnknownJob as error:
        if error.matches:  # a bare name that several namespaces use
            raise NotInSnapshot(
                f"--preemptor: pod group name {shown(reference)} is ambiguous: "
                f"{', '.join(error.matches)} (expected NAMESPACE/NAME, or --namespace)"
            ) from None
    pods = [
        (job, f"{job.namespace}/{task.id}" if job.namespace else str(task.id))
        for job in snapshot.jobs
        for pod_set in job.job.pod_sets
        for task in pod_set.tasks
        if (f"{job.namespace}/{task.id}" if "/" in wanted else str(task.id)) == wanted
    ]
    if len(pods) == 1:
        ((job, pod),) = pods
        return Found(
            job,
            f"--preemptor: pod {shown(pod)} is in pod group {job.id}: that pod group is the "
            "preemptor",
        )
    if pods:
        names = ", ".join(f"{pod} (pod group {job.id})" for job, pod in pods)
        raise NotInSnapshot(
            f"--preemptor: pod name {shown(reference)} is ambiguous: {names} (expected "
            "NAMESPACE/NAME, or --namespace)"
        )
    where = " in" if namespace is None else f" in namespace {shown(namespace)} of"
    # a bare name is compared with the names in every namespace: the same name in another one
    # is the likeliest slip
    close = close_names(reference, snapshot)
    hint = f"; did you mean {_either(close)}?" if close else ""
    raise NotInSnapshot(
        f"--preemptor: no pod group or pod {shown(reference)}{where} the snapshot (expected "
        f"NAMESPACE/NAME of a PodGroup or a Pod, or a NAME only one of them has){hint}"
    )

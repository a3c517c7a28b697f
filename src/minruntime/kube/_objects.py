"""Which objects the snapshot reader looks at: kinds, API versions and duplicates (private).

The choices, per case, are in ``docs/decisions/nothing-dropped-in-silence.md``: an object that
is evidently meant as one the library reads but is mis-spelt, or a conflicting duplicate, is
left out with a problem naming it; one that may be another program's, or lacks what only a
hand-written file lacks, is read or ignored with a problem saying which.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple

from minruntime._text import shown
from minruntime.config import find_scheduler_config
from minruntime.errors import InvalidObject
from minruntime.kube._fields import Object, object_name
from minruntime.kube._loading import flatten
from minruntime.kube._pods import POD_GROUP_ANNOTATION
from minruntime.kube._problems import Problem, ProblemKind, _problem

__all__ = ["READ_KINDS", "Admitted", "admitted", "is_read"]

_GROUP: Final = "scheduling.run.ai"
_VERSIONS: Final = {"Queue": "v2", "PodGroup": "v2alpha2"}
READ_KINDS: Final = ("Queue", "PodGroup", "Pod", "PriorityClass", "ConfigMap", "SchedulingShard")
_KINDS: Final = {kind.lower(): kind for kind in READ_KINDS}
_CORE_KINDS: Final = frozenset({"Pod", "PriorityClass", "ConfigMap"})
_DEDUPLICATED_KINDS: Final = frozenset({"Queue", "PodGroup", "Pod", "PriorityClass"})


def _left_out(obj: Object, field: str, message: str, problems: list[Problem]) -> bool:
    problems.append(
        _problem(
            ProblemKind.LEFT_OUT, obj, field, f"{object_name(obj)} {field}: {message}", "left out"
        )
    )
    return False


def is_read(obj: Object, problems: list[Problem]) -> bool:
    """Whether the snapshot reader should look at ``obj``; what it cannot tell is a problem."""
    kind = obj.get("kind")
    api_version = obj.get("apiVersion")
    if type(kind) is str and kind in _CORE_KINDS:  # the common case, by the hundred thousand
        return True
    if kind is None or kind == "":
        try:
            if find_scheduler_config(obj) is not None:
                return True
        except Exception:  # pragma: no cover - a bare document is never searched
            pass
        problems.append(
            _problem(
                ProblemKind.LEFT_OUT,
                obj,
                "kind",
                f"{object_name(obj)}: an object without a kind",
                "ignored",
            )
        )
        return False
    if not isinstance(kind, str):
        return _left_out(obj, "kind", f"expected a string, got {shown(kind)[:60]}", problems)
    if api_version is not None and not isinstance(api_version, str):
        return _left_out(
            obj, "apiVersion", f"expected a string, got {shown(api_version)[:60]}", problems
        )
    group = (api_version or "").rpartition("/")[0]
    meant = _KINDS.get(kind.lower())
    if meant is not None and meant != kind:
        ours = (
            not api_version
            or group.lower() == _GROUP
            or (meant in _CORE_KINDS and api_version.lower() in ("v1", "scheduling.k8s.io/v1"))
        )
        if ours:
            return _left_out(
                obj,
                "kind",
                f"{kind!r} is not a kind (kinds are case-sensitive: expected {meant!r})",
                problems,
            )
        return False
    if kind not in _VERSIONS:
        return True
    expected = f"{_GROUP}/{_VERSIONS[kind]}"
    if not api_version:
        problems.append(
            _problem(
                ProblemKind.ASSUMED,
                obj,
                "apiVersion",
                f"{object_name(obj)}: no apiVersion; read as {expected}",
            )
        )
        return True
    if api_version == expected:
        return True
    if group.lower() == _GROUP or api_version.lower() == _GROUP:
        return _left_out(
            obj,
            "apiVersion",
            f"{shown(api_version)} is not one the library reads (expected {expected!r})",
            problems,
        )
    problems.append(
        _problem(
            ProblemKind.LEFT_OUT,
            obj,
            "apiVersion",
            f"{object_name(obj)}: apiVersion {shown(api_version)} is not the scheduler's "
            f"({expected})",
            "ignored",
        )
    )
    return False


class Admitted(NamedTuple):
    """The objects the snapshot reader looks at (:func:`admitted`), the pods apart: they come
    by the hundred thousand, and the reader reads each with its pod group."""

    objects: list[Object]
    """The objects that are not pods, in order."""
    pods: list[Object]
    """The pods, in order."""
    groups: list[tuple[str, str] | None]
    """For each pod, (namespace, pod group) where its metadata names its pod group plainly
    (the key :func:`~minruntime.kube._pods.read_pod` reads), else ``None``: the pod is then read
    to tell what it is a member of."""
    after: list[int]
    """For each pod, how many of :attr:`objects` come before it in the input."""


def admitted(objects: Iterable[Any], problems: list[Problem]) -> Admitted:
    """The objects the snapshot reader looks at, in order, each once (``List`` objects and
    arrays flattened): those :func:`is_read` admits, with exact duplicates dropped (with a
    problem); two different objects of one kind and name are both left out (no rule can tell
    which is right), except Queues: the queue tree reports them, with every other problem of
    the tree. The problems of duplicates come after those of kinds and versions.

    Raises:
        InvalidObject: when no object is of a kind the library reads.
    """
    listed = objects if isinstance(objects, list | tuple) else list(objects)
    mark = len(problems)
    found = _admitted(listed, problems, each=False)
    if found is None:  # two pods of one namespace and name: again, each pod checked as met
        del problems[mark:]
        found = _admitted(listed, problems, each=True)
    assert found is not None  # each pod checked as met: no second look
    return found


def _admitted(objects: Sequence[Any], problems: list[Problem], *, each: bool) -> Admitted | None:
    """:func:`admitted`; ``each``: a pod is checked for an earlier one of its namespace and
    name as it is met, as every other object is; else their names are checked at the end, at
    once, and ``None`` says that two pods share one (pods come by the hundred thousand: the
    names of a snapshot almost never repeat)."""
    seen: dict[tuple[str, str, str], Object] = {}
    kept: list[Object] = []
    pods: list[Object] = []
    groups: list[tuple[str, str] | None] = []
    after: list[int] = []
    conflicts: dict[tuple[str, str, str], Object] = {}
    repeated: dict[str, tuple[Object, int]] = {}
    names: list[tuple[str, str, str]] = []  # the key of each pod, when not checked as met
    ours = False

    def first_of(obj: Object, key: tuple[str, str, str] | None) -> bool:
        """Whether ``obj``, of ``key`` (:func:`_name_key`), is the first of its kind and name
        (a repeat is noted)."""
        if key is None:
            return True
        first = seen.get(key)
        if first is None:
            seen[key] = obj
            return True
        if first == obj:
            _, count = repeated.get(object_name(obj), (obj, 1))
            repeated[object_name(obj)] = (obj, count + 1)
        elif key[0] == "Queue":  # the queue tree reports it, with its other problems
            return True
        else:
            conflicts[key] = obj
        return False

    def pod(obj: Object) -> None:
        metadata = obj.get("metadata")
        group = None
        if type(metadata) is dict:
            key = _name_key("Pod", metadata)
            if each:
                if not first_of(obj, key):
                    return
            elif key is not None:
                names.append(key)
            namespace = metadata.get("namespace", "")
            annotations = metadata.get("annotations")
            name = annotations.get(POD_GROUP_ANNOTATION) if type(annotations) is dict else None
            if type(name) is str and name and type(namespace) is str:
                group = (namespace, name)
        pods.append(obj)
        groups.append(group)
        after.append(len(kept))

    def other(obj: Object) -> None:
        nonlocal ours
        kind = obj.get("kind")
        if kind == "Pod":
            ours = True
            pod(obj)
            return
        if isinstance(kind, str) and kind.lower() in _KINDS:  # a miscased kind too
            ours = True
        if not is_read(obj, problems):
            return
        if not kind:
            ours = True  # a bare scheduler config
        metadata = obj.get("metadata")
        if (
            kind in _DEDUPLICATED_KINDS
            and type(metadata) is dict
            and not first_of(obj, _name_key(kind, metadata))
        ):
            return
        kept.append(obj)

    for item in objects:
        if type(item) is dict and item.get("kind") == "Pod":  # by the hundred thousand
            ours = True
            pod(item)
            continue
        for obj in flatten(item, "snapshot", problems):  # an object, or a List's objects
            other(obj)
    if len(set(names)) != len(names):
        return None
    if not ours:
        raise InvalidObject(
            "the snapshot holds no object of a kind the library reads (Queue, PodGroup, Pod, "
            "PriorityClass, ConfigMap, SchedulingShard, or a scheduler config): is it the right "
            "input?"
        )
    if conflicts:
        dropped = {id(seen[key]) for key in conflicts}
        # how many of the objects kept come before each one, once the dropped ones are out
        before = list(itertools.accumulate((id(obj) not in dropped for obj in kept), initial=0))
        kept = [obj for obj in kept if id(obj) not in dropped]
        chosen = [i for i, obj in enumerate(pods) if id(obj) not in dropped]
        pods = [pods[i] for i in chosen]
        groups = [groups[i] for i in chosen]
        after = [before[after[i]] for i in chosen]
        problems.extend(
            _problem(
                ProblemKind.LEFT_OUT,
                obj,
                None,
                f"{object_name(obj)}: the snapshot holds two different objects of this name (a "
                "snapshot must hold one version of each object)",
                "both left out",
            )
            for obj in conflicts.values()
        )
    problems.extend(
        _problem(
            ProblemKind.SUSPECT,
            obj,
            None,
            f"{name}: listed {count} times (identical)",
            "read once",
        )
        for name, (obj, count) in repeated.items()
    )
    return Admitted(kept, pods, groups, after)


def _name_key(kind: str, metadata: dict[str, Any]) -> tuple[str, str, str] | None:
    """What two objects of one kind and name share: (kind, namespace, name), the namespace of
    pod groups and pods only; ``None`` without a name (such an object is never a duplicate)."""
    name = metadata.get("name")
    if type(name) is not str:
        return None
    namespace = metadata.get("namespace") if kind in ("PodGroup", "Pod") else ""
    return (kind, namespace if type(namespace) is str else "", name)

"""Which objects the snapshot reader looks at: kinds, API versions and duplicates (private).

The choices, per case, are in ``docs/decisions/nothing-dropped-in-silence.md``: an object that
is evidently meant as one the library reads but is mis-spelt, or a conflicting duplicate, is
left out with a problem naming it; one that may be another program's, or lacks what only a
hand-written file lacks, is read or ignored with a problem saying which.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from minruntime._text import shown
from minruntime.config import find_scheduler_config
from minruntime.errors import InvalidObject
from minruntime.kube._fields import Object, object_name
from minruntime.kube._problems import Problem, ProblemKind, _problem

__all__ = ["READ_KINDS", "admitted", "is_read"]

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


def admitted(objects: Iterable[Object], problems: list[Problem]) -> list[Object]:
    """The objects the snapshot reader looks at, in order, each once: those :func:`is_read`
    admits, with exact duplicates dropped (with a problem); two different objects of one kind
    and name are both left out (no rule can tell which is right), except Queues: the queue
    tree reports them, with every other problem of the tree. The problems of duplicates come
    after those of kinds and versions.

    Raises:
        InvalidObject: when no object is of a kind the library reads.
    """
    seen: dict[tuple[str, str, str], Object] = {}
    kept: list[Object] = []
    conflicts: dict[tuple[str, str, str], Object] = {}
    repeated: dict[str, tuple[Object, int]] = {}
    ours = False
    for obj in objects:
        kind = obj.get("kind")
        if kind != "Pod":  # pods come by the hundred thousand: a kind is_read always admits
            if isinstance(kind, str) and kind.lower() in _KINDS:  # a miscased kind too
                ours = True
            if not is_read(obj, problems):
                continue
            if not kind:
                ours = True  # a bare scheduler config
            if kind not in _DEDUPLICATED_KINDS:
                kept.append(obj)
                continue
        else:
            ours = True
        metadata = obj.get("metadata")
        if type(metadata) is not dict:
            kept.append(obj)
            continue
        name = metadata.get("name")
        if type(name) is not str:
            kept.append(obj)
            continue
        namespace = metadata.get("namespace") if kind in ("PodGroup", "Pod") else ""
        key = (kind, namespace if type(namespace) is str else "", name)
        first = seen.get(key)
        if first is None:
            seen[key] = obj
            kept.append(obj)
        elif first == obj:
            _, count = repeated.get(object_name(obj), (obj, 1))
            repeated[object_name(obj)] = (obj, count + 1)
        elif kind == "Queue":
            kept.append(obj)
        else:
            conflicts[key] = obj
    if not ours:
        raise InvalidObject(
            "the snapshot holds no object of a kind the library reads (Queue, PodGroup, Pod, "
            "PriorityClass, ConfigMap, SchedulingShard, or a scheduler config): is it the right "
            "input?"
        )
    if conflicts:
        dropped = {id(seen[key]) for key in conflicts}
        kept = [obj for obj in kept if id(obj) not in dropped]
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
    return kept

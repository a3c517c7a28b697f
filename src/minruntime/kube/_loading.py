"""Loading documents: a snapshot's text as objects (private; re-exported by the package).

JSON (one object, a ``List``, or an array) or a YAML stream, parsed with the bounds of
:mod:`minruntime._load` (depth, aliases, numbers, duplicate keys); ``List`` objects are
flattened. An item of a list that is not an object is kept for the snapshot reader, which
leaves it out with a problem naming it; the input as a whole must hold objects.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from minruntime._load import DocumentError, NoYAML, OutOfBounds, load_json, load_yaml
from minruntime._text import shown
from minruntime.errors import InvalidObject
from minruntime.kube._fields import object_name
from minruntime.kube._problems import Problem, ProblemKind

__all__ = ["flatten", "load_objects"]


def flatten(value: object, origin: str, problems: list[Problem] | None = None) -> Iterator[Any]:
    """The objects in ``value``: ``List`` objects and arrays flattened, in order.

    An item that is not an object is left out with a problem (with ``problems``), or yielded as
    it is for the caller to report (without). A ``List`` of the wrong case or whose ``items`` is
    not a list is an error: what it holds cannot be told.
    """
    stack: list[Iterator[object]] = [iter((value,))]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
            continue
        if type(item) is dict and "items" not in item:  # an object, not a list of them
            yield item
            continue
        if item is None:
            continue
        if isinstance(item, list):
            stack.append(iter(item))
            continue
        if not isinstance(item, Mapping):
            if problems is None:
                yield item
            else:
                problems.append(
                    Problem(
                        kind=ProblemKind.LEFT_OUT,
                        detail=f"{origin}: expected a Kubernetes object, found "
                        f"{type(item).__name__} {shown(item)[:60]}",
                        outcome="left out",
                    )
                )
            continue
        kind = item.get("kind")
        kind_text = kind if isinstance(kind, str) else ""
        if kind_text.lower().endswith("list") and "items" in item:
            if not kind_text.endswith("List"):
                raise InvalidObject(
                    f"{origin}: {object_name(item)} kind: {shown(kind)[:60]} is not a kind "
                    f"(kinds are case-sensitive: expected {kind_text[:-4] + 'List'!r})",
                    object=object_name(item),
                    field="kind",
                )
            items = item["items"]
            if items is not None and not isinstance(items, list):
                raise InvalidObject(
                    f"{origin}: {object_name(item)} items: expected a list of objects, got "
                    f"{type(items).__name__}",
                    object=object_name(item),
                    field="items",
                )
            if items:
                stack.append(iter(items))
            continue
        yield item


_END: Any = object()


def load_objects(text: str, *, origin: str = "<input>") -> list[Any]:
    """Parse a snapshot's text: JSON (one object, a ``List``, or an array), or a YAML stream.

    YAML needs PyYAML (``pip install PyYAML``). ``List`` objects are flattened.
    Hostile text costs bounded work: nesting, alias expansion and the size of numbers are
    bounded, and non-finite numbers are refused (docs/decisions/hostile-input-bounds.md). An
    item that is not an object is returned as it is: :func:`read_snapshot` leaves it out,
    naming it.

    Raises:
        InvalidObject: naming ``origin``, for text that is neither JSON nor YAML, out of those
            bounds, with a mapping that repeats a key (the message names the key and its line),
            empty (a failed ``kubectl`` upstream must not look like an empty cluster), or whose
            document is not an object or a list.

    >>> [o["kind"] for o in load_objects('{"kind": "List", "items": [{"kind": "Queue"}]}')]
    ['Queue']
    >>> load_objects("  ", origin="queues.json")
    Traceback (most recent call last):
    ...
    minruntime.errors.InvalidObject: queues.json: empty input (no objects): did the command that wrote it fail?
    """
    stripped = text.lstrip()
    if not stripped:
        raise _empty(origin)
    json_error: DocumentError | None = None
    documents: list[Any] | None = None
    if stripped[0] in "[{":
        try:
            documents = [load_json(text)]
        except OutOfBounds as error:  # YAML would refuse it too: say why once
            raise InvalidObject(f"{origin}: {error}", object=origin) from None
        except DocumentError as error:
            if str(error).startswith("duplicate key"):
                raise InvalidObject(f"{origin}: {error}", object=origin) from None
            json_error = error
    if documents is None:
        try:
            documents = load_yaml(text)
        except NoYAML:
            if json_error is not None:
                raise InvalidObject(
                    f"{origin}: not valid JSON: {json_error}", object=origin
                ) from None
            raise InvalidObject(
                f"{origin}: not JSON; reading YAML needs PyYAML: pip install PyYAML",
                object=origin,
            ) from None
        except OutOfBounds as error:
            raise InvalidObject(f"{origin}: {error}", object=origin) from None
        except DocumentError as error:
            detail = f"not valid JSON ({json_error}) nor YAML" if json_error else "not valid YAML"
            raise InvalidObject(f"{origin}: {detail}: {error}", object=origin) from None
    for document in documents:
        if document is not None and not isinstance(document, list | Mapping):
            raise InvalidObject(
                f"{origin}: expected Kubernetes objects, found {type(document).__name__} "
                f"{shown(document)[:60]}",
                object=origin,
            )
    objects = list(flatten(documents, origin))
    if all(document is None for document in documents):
        raise _empty(origin)
    if objects and not any(isinstance(obj, Mapping) for obj in objects):
        first = objects[0]
        raise InvalidObject(
            f"{origin}: expected Kubernetes objects, found {type(first).__name__} "
            f"{shown(first)[:60]}",
            object=origin,
        )
    return objects


def _empty(origin: str) -> InvalidObject:
    return InvalidObject(
        f"{origin}: empty input (no objects): did the command that wrote it fail?", object=origin
    )

"""Bounded parsing of JSON and YAML text (private): the one place a document's text is read.

Every document the library reads (a snapshot file, a scheduler config, a ConfigMap's data) goes
through :func:`load_json` or :func:`load_yaml`, so that hostile text costs bounded work and
fails with a message instead of a traceback:

- nesting deeper than :data:`MAX_DEPTH` levels is refused (no ``RecursionError``);
- a YAML stream whose aliases would expand to more than :data:`MAX_NODES` nodes (an "alias
  bomb" of a few hundred bytes) is refused before anything walks it, and so is an alias that
  refers to itself;
- integers of more than :data:`MAX_INT_DIGITS` digits and non-finite numbers (``1e999``,
  ``NaN``, ``.inf``) are refused where they are read, so that nothing downstream meets them;
- YAML timestamps stay text, as Kubernetes reads them (a JSON conversion of the YAML);
- a mapping with a duplicate key is refused, naming the key and its line (YAML forbids it, and
  taking the last value loses objects in silence: two YAML files concatenated without ``---``).

Each loader raises :class:`DocumentError` (a ``ValueError``) with a one-line reason; callers
turn it into their own error naming the file.

>>> load_json('{"a": [1, 2.5]}')
{'a': [1, 2.5]}
>>> load_json('[' * 101 + ']' * 101)
Traceback (most recent call last):
...
minruntime._load.OutOfBounds: nested deeper than 100 levels
>>> load_json('{"kind": "Queue",\\n "kind": "Pod"}')
Traceback (most recent call last):
...
minruntime._load.DocumentError: duplicate key 'kind' at line 2 (a mapping holds each key once)
"""

from __future__ import annotations

import functools
import importlib
import json
import math
from typing import Any, Final, cast

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_NODES",
    "DocumentError",
    "NoYAML",
    "OutOfBounds",
    "load_json",
    "load_yaml",
]

MAX_DEPTH: Final = 100
"""The deepest nesting of lists and objects a document may have."""
MAX_NODES: Final = 1_000_000
"""The most values a YAML stream may expand to once its aliases are followed."""
MAX_INT_DIGITS: Final = 30
"""The longest integer a document may hold (Kubernetes' own integers have at most 19 digits)."""


class DocumentError(ValueError):
    """A document's text that cannot be read: the message is a one-line reason."""


class OutOfBounds(DocumentError):
    """A document refused for its size, depth or numbers, whatever its syntax."""


class NoYAML(DocumentError):
    """The text is not JSON, and PyYAML (the ``yaml`` extra) is not installed."""


def _int(text: str) -> int:
    if len(text.lstrip("+-")) > MAX_INT_DIGITS:
        raise OutOfBounds(
            f"an integer of {len(text.lstrip('+-'))} digits (at most {MAX_INT_DIGITS})"
        )
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise OutOfBounds(f"the number {text[:40]} is out of range (not a finite number)")
    return value


def _constant(text: str) -> float:
    raise OutOfBounds(f"{text} is not a JSON number (JSON has no NaN or infinity)")


_SKIP: Final = bytes(c for c in range(256) if c not in b'[]{}":')
_TO_SQUARE: Final = bytes.maketrans(b"{}", b"[]")


def _structure(text: str) -> int:
    """Refuse JSON text nested deeper than MAX_DEPTH, and count the keys of its mappings,
    without walking the parsed document.

    Only valid JSON comes here (it has parsed), so its brackets nest properly and a colon
    outside a string separates a key from its value: the number of such colons is the number
    of keys the text writes. Escaped backslashes and quotes are dropped, then every byte but
    brackets, quotes and colons; what remains between two quotes is inside a string and goes
    too. The colons are counted, then each pass removes the innermost pairs of brackets: the
    number of passes is the depth. Every step is a C-speed bytes operation; a document of
    ordinary depth needs a few passes over its (small) bracket text. Escapes are looked for
    only from the first backslash to the character after the last (a snapshot's escapes are
    few, often in one ConfigMap): outside, there is none to drop.
    """
    first = text.find("\\")
    if first < 0:
        data = text.encode("utf-8", "surrogatepass").translate(None, _SKIP)
    else:
        end = text.rfind("\\") + 2
        escaped = text[first:end].encode("utf-8", "surrogatepass")
        escaped = escaped.replace(b"\\\\", b"").replace(b'\\"', b"")
        data = b"".join(
            piece.translate(None, _SKIP)
            for piece in (
                text[:first].encode("utf-8", "surrogatepass"),
                escaped,
                text[end:].encode("utf-8", "surrogatepass"),
            )
        )
    # two adjacent quotes enclose nothing kept (a string without a bracket or a colon in it),
    # or close one string and open the next: dropping them leaves every other quote's parity
    data = data.replace(b'""', b"")
    if b'"' in data:  # strings holding brackets or colons: drop each (quotes pair up in order)
        data = b"".join(data.split(b'"')[0::2])
    keys = data.count(b":")
    data = data.translate(_TO_SQUARE, b":")
    for _ in range(MAX_DEPTH):
        if not data:
            return keys
        data = data.replace(b"[]", b"")  # one level: replace never rescans what it produced
    if data:
        raise OutOfBounds(f"nested deeper than {MAX_DEPTH} levels")
    return keys


class _DuplicateKey(Exception):
    """A duplicate key met while parsing JSON; its line is found afterwards."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return mapping


def _duplicate_line(text: str, key: str) -> int | None:
    """The line of the first repeated key ``key`` in (valid) JSON text: a walk of its
    structure, on the error path only (it costs a Python loop over the text)."""
    scan = cast(Any, json.JSONDecoder()).scan_once
    scanstring = cast(Any, json.decoder).scanstring
    stack: list[set[str] | None] = []  # per open container: the keys of an object, or None
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in " \t\n\r,:":
            i += 1
        elif char in "[{":
            stack.append(set() if char == "{" else None)
            i += 1
        elif char in "]}":
            stack.pop()
            i += 1
        elif char == '"':
            name, end = scanstring(text, i + 1)
            keys = stack[-1] if stack else None
            if keys is not None and text[end : end + 64].lstrip().startswith(":"):
                if name in keys and name == key:
                    return text.count("\n", 0, i) + 1
                keys.add(name)
            i = end
        else:
            i = scan(text, i)[1]  # a number or a literal
    return None


def load_json(text: str) -> Any:
    """Parse JSON text, bounded as the module says.

    Raises:
        DocumentError: for text that is not JSON, is out of bounds, or has a mapping with a
            duplicate key (the message names the key and its line).

    >>> load_json('{"n": 1e999}')
    Traceback (most recent call last):
    ...
    minruntime._load.OutOfBounds: the number 1e999 is out of range (not a finite number)
    """
    # A duplicate key is found by counting: the keys of the parsed mappings (a hook that the
    # parser calls with each mapping it has built) against the keys the text writes (its
    # colons outside strings, counted at C speed with the depth). Only when they differ is the
    # text parsed again, each mapping built from its pairs, to find the key. A hook that sees
    # every mapping's pairs costs twice as much (the parser builds a list of them per mapping).
    counted = 0

    def count(mapping: dict[str, Any], _len: Any = len) -> dict[str, Any]:
        nonlocal counted
        counted += _len(mapping)
        return mapping

    document = _parse(text, object_hook=count)
    if _structure(text) != counted:
        _parse(text, object_pairs_hook=_unique_pairs)  # raises, naming the key (counts differ)
    return document


def _parse(text: str, **hook: Any) -> Any:
    """The document, through ``hook`` (the parser's ``object_hook`` or ``object_pairs_hook``);
    a duplicate key that :func:`_unique_pairs` meets raises, naming the key and its line (the
    text's depth is checked by then: the walk that finds the line is bounded by it)."""
    try:
        return json.loads(
            text, parse_int=_int, parse_float=_float, parse_constant=_constant, **hook
        )
    except RecursionError:
        raise OutOfBounds(f"nested deeper than {MAX_DEPTH} levels") from None
    except _DuplicateKey as duplicate:
        line = _duplicate_line(text, duplicate.key)
        where = f" at line {line}" if line is not None else ""
        raise DocumentError(
            f"duplicate key {_key(duplicate.key)}{where} (a mapping holds each key once)"
        ) from None
    except DocumentError:
        raise
    except ValueError as error:
        raise DocumentError(str(error)) from None


def _key(key: object) -> str:
    text = repr(key)
    return text if len(text) <= 80 else f"{text[:60]}...({len(text)} characters)"


@functools.cache
def _yaml_loader(yaml: Any) -> Any:
    """A SafeLoader subclass of the module ``yaml`` with the bounds; built once per module, on
    first use (a class is a reference cycle, garbage for the collector if it were built for
    every load)."""

    class Loader(yaml.SafeLoader):  # type: ignore[misc]
        """SafeLoader with bounded depth and alias expansion; timestamps stay text."""

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise OutOfBounds(f"nested deeper than {MAX_DEPTH} levels")
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def compose_document(self) -> Any:
            node = super().compose_document()
            if node is not None:  # refuse an alias bomb, or an alias that contains itself
                _expanded_size(node, {}, set(), yaml)
            return node

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict[tuple[str, str], int] = {}
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                    continue  # a merge (<<) may be overridden; a complex key is refused later
                line = key_node.start_mark.line + 1
                first = seen.get((key_node.tag, key_node.value))
                seen[key_node.tag, key_node.value] = line
                if first is not None:
                    raise DocumentError(
                        f"duplicate key {_key(key_node.value)} at line {line} (first at line "
                        f"{first}; a mapping holds each key once: are two documents joined "
                        "without ---?)"
                    )
            return super().construct_mapping(node, deep)

        def construct_yaml_int(self, node: Any) -> int:
            text = str(node.value).replace("_", "")
            if len(text.lstrip("+-")) > MAX_INT_DIGITS:
                raise OutOfBounds(
                    f"an integer of {len(text.lstrip('+-'))} digits (at most {MAX_INT_DIGITS}) "
                    f"at line {node.start_mark.line + 1}"
                )
            return int(super().construct_yaml_int(node))

        def construct_yaml_float(self, node: Any) -> float:
            value = float(super().construct_yaml_float(node))
            if not math.isfinite(value):
                raise OutOfBounds(
                    f"the number {str(node.value)[:40]} at line {node.start_mark.line + 1} is not "
                    "a finite number"
                )
            return value

    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
    Loader.add_constructor("tag:yaml.org,2002:float", Loader.construct_yaml_float)
    Loader.add_constructor("tag:yaml.org,2002:timestamp", Loader.construct_scalar)
    return Loader


def _expanded_size(node: Any, sizes: dict[int, int], in_progress: set[int], yaml: Any) -> int:
    """How many values ``node`` expands to, its aliases followed (each node's size kept in
    ``sizes``); refuses more than MAX_NODES, or an alias to a node that contains it. A module
    function, not a closure: a closure that calls itself is a reference cycle, garbage for the
    collector after every document, and the command reads its input with the collector off.
    Its depth is bounded by MAX_DEPTH, so recursion is safe."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in in_progress:
        raise OutOfBounds("an alias refers to a node that contains it (a cycle)")
    total = 1
    if isinstance(node, yaml.SequenceNode):
        in_progress.add(key)
        for child in node.value:
            total += _expanded_size(child, sizes, in_progress, yaml)
            if total > MAX_NODES:
                break
        in_progress.discard(key)
    elif isinstance(node, yaml.MappingNode):
        in_progress.add(key)
        for child_key, child_value in node.value:
            total += _expanded_size(child_key, sizes, in_progress, yaml)
            total += _expanded_size(child_value, sizes, in_progress, yaml)
            if total > MAX_NODES:
                break
        in_progress.discard(key)
    if total > MAX_NODES:
        raise OutOfBounds(f"its aliases expand to more than {MAX_NODES} values (an alias bomb?)")
    sizes[key] = total
    return total


def load_yaml(text: str) -> list[Any]:
    """Parse a YAML stream into its documents, bounded as the module says.

    Raises:
        NoYAML: when PyYAML is not installed.
        DocumentError: for text that is not YAML or is out of bounds.

    >>> load_yaml("a: 2026-11-22T11:50:00Z\\n---\\nb: 1\\n")
    [{'a': '2026-11-22T11:50:00Z'}, {'b': 1}]
    >>> load_yaml("a: &x [1, 2]\\nb: *x\\n")
    [{'a': [1, 2], 'b': [1, 2]}]
    """
    try:
        yaml = importlib.import_module("yaml")  # PyYAML is optional
    except ImportError:
        raise NoYAML("reading YAML needs PyYAML: pip install PyYAML") from None
    loader_class = _yaml_loader(yaml)
    loader = None
    try:
        loader = loader_class(text)  # the reader refuses some characters here already
        documents = []
        while loader.check_data():
            documents.append(loader.get_data())
        return documents
    except DocumentError:
        raise
    except yaml.YAMLError as error:
        raise DocumentError(" ".join(str(error).split())) from None
    except (ValueError, OverflowError, TypeError, RecursionError) as error:
        # a constructor meeting a value it cannot build: a date out of range, an unhashable key
        raise DocumentError(f"cannot build a value: {error}") from None
    finally:
        if loader is not None:
            loader.dispose()

"""Loading documents (minruntime.kube._loading, minruntime._load): JSON, YAML streams and
``List`` objects; duplicate keys and empty input are errors naming where; nesting is bounded
without walking the document."""

from __future__ import annotations

import importlib
import json
import types

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from tests.world import (
    JSON,
    TEAM,
    pod,
    pod_group,
    queue_object,
)

from minruntime import (
    InvalidObject,
    MinRuntimeError,
)
from minruntime._load import MAX_DEPTH, DocumentError, OutOfBounds, _structure, load_json
from minruntime.kube import (
    load_objects,
    read_snapshot,
)


def test_a_json_mapping_with_a_duplicate_key_is_an_error_naming_the_key_and_its_line() -> None:
    text = (
        '{"kind": "List", "items": [\n'
        '  {"kind": "Queue", "metadata": {"name": "a"}},\n'
        '  {"kind": "Queue",\n'
        '   "metadata": {"name": "b",\n'
        '                "name": "c"}}\n'
        "]}\n"
    )
    with pytest.raises(InvalidObject) as caught:
        load_objects(text, origin="queues.json")
    assert str(caught.value) == (
        "queues.json: duplicate key 'name' at line 5 (a mapping holds each key once)"
    )
    assert caught.value.object == "queues.json"


def test_a_duplicate_key_spelt_with_an_escape_is_found() -> None:
    with pytest.raises(DocumentError) as caught:
        load_json('{"a": 1,\n"b": {"x": [1, {"a": 2}]},\n"\\u0061": 3}')
    assert str(caught.value) == "duplicate key 'a' at line 3 (a mapping holds each key once)"


def test_keys_repeated_in_different_mappings_are_not_duplicates() -> None:
    assert load_json('[{"a": 1}, {"a": 2, "b": {"a": 3}}]') == [{"a": 1}, {"a": 2, "b": {"a": 3}}]


def test_two_yaml_files_joined_without_a_separator_are_an_error_naming_the_key() -> None:
    pytest.importorskip("yaml")
    text = (
        "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\n"
        "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: b}\n"
    )
    with pytest.raises(InvalidObject) as caught:
        load_objects(text, origin="<stdin>")
    assert str(caught.value) == (
        "<stdin>: not valid YAML: duplicate key 'apiVersion' at line 4 (first at line 1; a "
        "mapping holds each key once: are two documents joined without ---?)"
    )


def test_a_yaml_merge_key_may_be_overridden() -> None:
    pytest.importorskip("yaml")
    text = "base: &b {kind: Queue, x: 1}\nq:\n  <<: *b\n  x: 2\n"
    assert load_objects(text) == [
        {"base": {"kind": "Queue", "x": 1}, "q": {"kind": "Queue", "x": 2}}
    ]


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ('{"kind": "List", "items": [{"kind": "Queue", "metadata": {"name": "a"}}]}', 1),
        ("".join(f"kind: Queue\nmetadata: {{name: q{i}}}\n---\n" for i in range(50)), 50),
        ("a: &a [1, 2]\nb: *a\n---\nkind: List\nitems: [{kind: Queue}, {kind: Pod}]\n", 3),
    ],
    ids=["json", "yaml-stream", "yaml-aliases"],
)
def test_loading_leaves_nothing_for_the_collector(text: str, count: int) -> None:
    """``minruntime explain`` parses with the collector off: a parse may make no reference
    cycle (a closure that calls itself, a class built per load), or it would stay until the
    command ends, per document."""
    import gc

    if not text.startswith("{"):
        pytest.importorskip("yaml")
    load_objects(text)  # what is built once, on first use, is not the parse's garbage
    gc.collect()
    gc.disable()
    try:
        objects = load_objects(text)
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert len(objects) == count


@pytest.mark.parametrize("text", ["", "  \n", "---\n", "# nothing\n"])
def test_empty_input_is_an_error(text: str) -> None:
    if text.strip() and text.strip() != "" and not text.lstrip().startswith(("[", "{")):
        pytest.importorskip("yaml")
    with pytest.raises(InvalidObject) as caught:
        load_objects(text, origin="f.yaml")
    assert str(caught.value) == (
        "f.yaml: empty input (no objects): did the command that wrote it fail?"
    )


def test_an_empty_list_is_input_with_no_object_of_ours() -> None:
    objects = load_objects('{"apiVersion": "v1", "kind": "List", "items": []}')
    assert objects == []
    with pytest.raises(InvalidObject) as caught:
        read_snapshot(objects)
    assert str(caught.value).startswith("the snapshot holds no object of a kind the library reads")


def nested(depth: int, wide: bool) -> str:
    """``depth`` levels of brackets, with strings holding brackets and escapes on the way."""
    text = '"x"'
    for level in range(depth):
        if level % 2:
            text = f'{{"k\\"[{level}": {text}, "s": "]}}\\\\"}}'
        else:
            text = f'["{{[", {text}{", []" if wide else ""}]'
    return text


def walked_depth(value: object) -> int:
    """The nesting of a parsed value, by a walk (what the bound must agree with)."""
    if isinstance(value, dict):
        return 1 + max((walked_depth(child) for child in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((walked_depth(child) for child in value), default=0)
    return 0


@given(st.integers(MAX_DEPTH - 5, MAX_DEPTH + 3), st.booleans())
def test_the_depth_bound_is_exact_without_walking_the_document(levels: int, wide: bool) -> None:
    """A document nested ``MAX_DEPTH`` deep is read, one level more is refused, whatever
    brackets, quotes and escapes its strings hold."""
    text = nested(levels, wide)
    depth = walked_depth(json.loads(text))
    event("refused" if depth > MAX_DEPTH else "read")
    if depth > MAX_DEPTH:
        with pytest.raises(OutOfBounds):
            load_json(text)
    else:
        assert load_json(text) == json.loads(text)


_TRICKY_TEXT = st.text(alphabet='[]{}"\\:, ab\u00e9\U0001f600', max_size=6)
_TRICKY_JSON = st.recursive(
    st.one_of(st.none(), st.integers(-5, 5), _TRICKY_TEXT),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_TRICKY_TEXT, inner, max_size=3)
    ),
    max_leaves=12,
)


@given(_TRICKY_JSON, st.booleans(), st.sampled_from(["", '"\\\\[\\"", "{\\\\"']), st.booleans())
def test_the_depth_bound_is_exact_wherever_the_escapes_are(
    value: object, over: bool, escaped: str, wide: bool
) -> None:
    """Law: a document is refused exactly when it nests deeper than ``MAX_DEPTH``, whatever its
    strings hold and wherever its escapes are (only near the start and the end, between them
    none, or throughout): escapes are looked for only between the first and last backslash."""
    inner = json.dumps(value, ensure_ascii=False)
    levels = MAX_DEPTH - walked_depth(value) + over
    if escaped:  # an escaped string in the outermost list only, before and after the rest
        levels -= 1
        inner = f"[{escaped}, {inner}, {escaped}]" if wide else f"[{inner}, {escaped}]"
    text = "[" * levels + inner + "]" * levels
    depth = walked_depth(json.loads(text))
    assert depth == MAX_DEPTH + over
    event("refused" if over else "read")
    event("escapes" if "\\" in text else "no escapes")
    if over:
        with pytest.raises(OutOfBounds):
            load_json(text)
    else:
        assert load_json(text) == json.loads(text)


class Pairs(tuple[tuple[str, bool, object], ...]):
    """A mapping as its text writes it: (key, whether the key is written with escapes, value)
    in order, a key possibly repeated."""


_KEYS = st.sampled_from(["a", "b", "a:b", ':"', "{[", "\\", "\u00e9", ""])


def _pairs(inner: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.lists(st.tuples(_KEYS, st.booleans(), inner), max_size=4).map(Pairs)


_WRITTEN = st.recursive(
    st.one_of(st.none(), st.integers(-5, 5), _TRICKY_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), _pairs(inner)),
    max_leaves=14,
)


def written(value: object) -> str:
    """JSON text for ``value``, a key written with ``\\uXXXX`` escapes when its flag says so."""
    if isinstance(value, Pairs):
        return (
            "{"
            + ", ".join(
                (
                    '"' + "".join(f"\\u{ord(c):04x}" for c in key) + '"'
                    if escaped
                    else json.dumps(key)
                )
                + ": "
                + written(child)
                for key, escaped, child in value
            )
            + "}"
        )
    if isinstance(value, list):
        return "[" + ",".join(written(child) for child in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def pairs_written(value: object) -> int:
    if isinstance(value, Pairs):
        return len(value) + sum(pairs_written(child) for _, _, child in value)
    if isinstance(value, list):
        return sum(pairs_written(child) for child in value)
    return 0


def repeated(value: object) -> set[str]:
    """The keys a mapping in ``value`` writes twice (the law the parser must agree with)."""
    found: set[str] = set()
    if isinstance(value, Pairs):
        keys = [key for key, _, _ in value]
        found.update(key for key in keys if keys.count(key) > 1)
        for _, _, child in value:
            found |= repeated(child)
    elif isinstance(value, list):
        for child in value:
            found |= repeated(child)
    return found


@given(_WRITTEN)
def test_a_duplicate_key_is_refused_exactly_when_a_mapping_writes_one_twice(value: object) -> None:
    """Law: counting the keys of the parsed mappings against the colons outside the text's
    strings finds a repeated key exactly when there is one, whatever the strings hold
    (colons, quotes, brackets, escapes) and however the keys are spelt. The count of the
    text's keys is exact (the parser is asked again only when the counts differ)."""
    text = written(value)
    assert _structure(text) == pairs_written(value)
    duplicate = bool(repeated(value))
    event("a key repeated" if duplicate else "no key repeated")
    event("escapes" if "\\" in text else "no escapes")
    if duplicate:
        with pytest.raises(DocumentError) as caught:
            load_json(text)
        named = {
            f"duplicate key {key!r} at line 1 (a mapping holds each key once)"
            for key in repeated(value)
        }
        assert str(caught.value) in named
    else:
        assert load_json(text) == json.loads(text)


def test_load_objects_reads_a_single_json_object() -> None:
    text = json.dumps(queue_object("team", reclaimMinRuntime="30m"))
    assert load_objects(text) == [queue_object("team", reclaimMinRuntime="30m")]


@pytest.mark.parametrize("kind", ["List", "QueueList"])
def test_load_objects_flattens_a_list_object(kind: str) -> None:
    items = [queue_object("org"), queue_object("team", parentQueue="org")]
    text = json.dumps({"apiVersion": "v1", "kind": kind, "items": items, "metadata": {}})
    assert load_objects(text) == items


def test_load_objects_reads_a_json_array() -> None:
    items = [queue_object("org"), pod_group(), pod("train-0")]
    assert load_objects(json.dumps(items)) == items


def test_load_objects_flattens_nested_lists_in_order() -> None:
    a, b, c, d = (queue_object(name) for name in "abcd")
    nested = [
        a,
        {"kind": "List", "items": [b, {"kind": "List", "items": [c]}]},
        [[d]],
    ]
    assert load_objects(json.dumps(nested)) == [a, b, c, d]


def test_load_objects_keeps_an_object_whose_kind_ends_in_list_without_items() -> None:
    odd = {"kind": "PodList", "metadata": {"name": "x"}}
    assert load_objects(json.dumps(odd)) == [odd]


@pytest.mark.parametrize("text", ["", "   ", "\n\t \n"])
def test_load_objects_of_empty_text_is_an_error_naming_the_origin(text: str) -> None:
    """A failed ``kubectl`` upstream writes nothing: that must not look like an empty cluster."""
    with pytest.raises(InvalidObject) as caught:
        load_objects(text, origin="queues.json")
    assert str(caught.value) == (
        "queues.json: empty input (no objects): did the command that wrote it fail?"
    )
    assert caught.value.object == "queues.json"


def test_load_objects_reads_a_yaml_multi_document_stream() -> None:
    text = """\
# a comment before the first document
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: org
spec:
  reclaimMinRuntime: 2d
---
---
apiVersion: v1
kind: List
items:
- apiVersion: scheduling.run.ai/v2
  kind: Queue
  metadata: {name: team}
  spec: {parentQueue: org, preemptMinRuntime: "-1"}
"""
    assert load_objects(text) == [
        {
            "apiVersion": "scheduling.run.ai/v2",
            "kind": "Queue",
            "metadata": {"name": "org"},
            "spec": {"reclaimMinRuntime": "2d"},
        },
        {
            "apiVersion": "scheduling.run.ai/v2",
            "kind": "Queue",
            "metadata": {"name": "team"},
            "spec": {"parentQueue": "org", "preemptMinRuntime": "-1"},
        },
    ]


def test_load_objects_rejects_invalid_json_naming_the_origin() -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects('{"kind": "Queue"', origin="snapshot.json")
    message = str(caught.value)
    assert message.startswith(
        "snapshot.json: not valid JSON (Expecting ',' delimiter: line 1 column 17 (char 16)) "
        "nor YAML: while parsing a flow mapping"
    )
    assert caught.value.object == "snapshot.json"
    assert caught.value.field is None


def test_load_objects_reads_text_that_is_yaml_but_not_json_as_yaml() -> None:
    assert load_objects('{"kind": "Queue", metadata: {name: q}, }') == [
        {"kind": "Queue", "metadata": {"name": "q"}}
    ]


def test_load_objects_rejects_invalid_yaml_naming_the_origin() -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects("kind: Queue\nmetadata: [name", origin="cluster.yaml")
    message = str(caught.value)
    assert message.startswith("cluster.yaml: not valid YAML: while parsing a flow sequence")
    assert "line 2, column 11" in message
    assert caught.value.object == "cluster.yaml"


def without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``importlib.import_module("yaml")`` fail, as when PyYAML is not installed."""
    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> types.ModuleType:
        if name == "yaml":
            raise ImportError("No module named 'yaml'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)


def test_load_objects_without_pyyaml_names_the_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    without_pyyaml(monkeypatch)
    with pytest.raises(InvalidObject) as caught:
        load_objects('{"kind": "Queue"', origin="snapshot.json")
    assert str(caught.value) == (
        "snapshot.json: not valid JSON: Expecting ',' delimiter: line 1 column 17 (char 16)"
    )
    assert caught.value.object == "snapshot.json"


def test_load_objects_without_pyyaml_asks_for_it_for_yaml_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_pyyaml(monkeypatch)
    with pytest.raises(InvalidObject) as caught:
        load_objects("kind: Queue\n", origin="cluster.yaml")
    assert str(caught.value) == (
        "cluster.yaml: not JSON; reading YAML needs PyYAML: pip install PyYAML"
    )
    assert load_objects('[{"kind": "Queue"}]') == [{"kind": "Queue"}]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("42", "<input>: expected Kubernetes objects, found int 42"),
        ('"x"', "<input>: expected Kubernetes objects, found str 'x'"),
        ("just text\n", "<input>: expected Kubernetes objects, found str 'just text'"),
    ],
)
def test_load_objects_rejects_a_document_that_is_not_an_object(text: str, message: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects(text)
    assert str(caught.value) == message
    assert caught.value.object == "<input>"


def test_invalid_object_is_a_value_error_and_a_minruntime_error() -> None:
    error = InvalidObject("Pod/ml/p status.phase: bad", object="Pod/ml/p", field="status.phase")
    assert isinstance(error, ValueError)
    assert isinstance(error, MinRuntimeError)
    assert (str(error), error.object, error.field) == (
        "Pod/ml/p status.phase: bad",
        "Pod/ml/p",
        "status.phase",
    )
    assert (InvalidObject("x").object, InvalidObject("x").field) == (None, None)


objects_strategy = st.lists(
    st.builds(lambda n: {"kind": "Queue", "metadata": {"name": f"q{n}"}}, st.integers(0, 99)),
    max_size=6,
)


SHAPES = st.sampled_from(["array", "List", "ConfigMapList"])


def _nest(draw: st.DrawFn, items: list[JSON]) -> object:
    """Wrap ``items`` in a random arrangement of ``List`` objects and arrays."""
    if not items or draw(st.booleans()):
        shape = draw(SHAPES)
        return items if shape == "array" else {"kind": shape, "items": items}
    cut = draw(st.integers(0, len(items)))
    return [_nest(draw, items[:cut]), _nest(draw, items[cut:])]


@st.composite
def nested_texts(draw: st.DrawFn) -> tuple[list[JSON], str]:
    items = draw(objects_strategy)
    return items, json.dumps(_nest(draw, items))


@given(nested_texts())
def test_load_objects_flattening_keeps_every_object_in_order(case: tuple[list[JSON], str]) -> None:
    """However objects are nested in Lists and arrays, loading gives them back flat, in order."""
    items, text = case
    assert load_objects(text) == items


@pytest.mark.parametrize("items", [{"kind": "Queue"}, "queues", 3])
def test_a_list_whose_items_is_not_a_list_is_an_error(items: object) -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), origin="f")
    assert str(caught.value) == (
        f"f: List items: expected a list of objects, got {type(items).__name__}"
    )


@pytest.mark.parametrize(("kind", "meant"), [("list", "List"), ("PodLIST", "PodList")])
def test_a_list_kind_in_the_wrong_case_is_an_error(kind: str, meant: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects(json.dumps({"kind": kind, "items": [TEAM]}), origin="f")
    assert str(caught.value) == (
        f"f: {kind} kind: {kind!r} is not a kind (kinds are case-sensitive: expected {meant!r})"
    )

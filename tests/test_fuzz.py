"""Fuzzing: hostile mutations of real-shaped snapshots and of every textual input.

The law, for every input: **only the library's own errors, never a traceback from the command;
valid JSON whenever JSON is written; bounded work.** Concretely, ``minruntime explain`` run
in-process on a mutated snapshot

- returns 0, 1 or 2, and never raises;
- on a non-zero status writes only ``minruntime: error: ...`` lines to stderr (at least one), and
  on 0 only ``minruntime: warning: ...`` lines;
- writes no control character but the newline to either stream;
- with ``--output json`` and status 0 writes one JSON document that a strict reader accepts (no
  ``NaN`` or ``Infinity``);
- writes output of a size bounded by a fixed multiple of its input's (work that grows faster
  than the input, such as an expanded alias bomb, shows there first);

and the readers each input passes through raise only their own error.

The snapshots start from the bundled example (``src/minruntime/data/example-cluster.json``):
a random subset of its objects, mutated structurally (fields deleted or replaced with hostile
values, objects duplicated, kinds and apiVersions re-spelt, lists re-ordered), then written as
JSON or YAML, sometimes with hostile text around them (an alias bomb, deep nesting, a cut).
Two in three of those that ``explain`` is given are mild (every queue kept, at most two
mutations, no hostile text around them), so that its successful runs, and their JSON, are common.

Budget: ``MINRUNTIME_FUZZ_EXAMPLES`` examples per property (default 150: a few seconds each).
A long run (see docs/testing.md)::

    MINRUNTIME_FUZZ_EXAMPLES=250000 python -m pytest tests/test_fuzz.py -n 0 \\
        -p no:cacheprovider --hypothesis-seed=1
"""

from __future__ import annotations

import copy
import io
import json
import os
import zipfile
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import resources
from typing import Any, TypeVar

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from tests.world import strict_json

from minruntime import Config, MinRuntime, MinRuntimeError
from minruntime.cli import main
from minruntime.errors import InvalidConfiguration, InvalidDuration, InvalidObject, InvalidTimestamp
from minruntime.kube import load_objects, load_snapshot_archive, read_snapshot
from minruntime.starttime import parse_rfc3339, parse_start_time
from minruntime.testing import duration_strings, min_runtimes

EXAMPLES = int(os.environ.get("MINRUNTIME_FUZZ_EXAMPLES", "150"))
PROGRESS = os.environ.get("MINRUNTIME_FUZZ_PROGRESS")  # a file a long run reports its count to
_COUNTS: Counter[str] = Counter()


def progress(name: str) -> None:
    """Count one example of ``name``; every 10,000, append the count to PROGRESS (long runs)."""
    if PROGRESS is None:
        return
    _COUNTS[name] += 1
    if _COUNTS[name] % 10_000 == 0:
        with open(PROGRESS, "a", encoding="utf-8") as log:
            log.write(f"{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ} {name} {_COUNTS[name]}\n")


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)

EXAMPLE: list[dict[str, Any]] = json.loads(
    resources.files("minruntime").joinpath("data/example-cluster.json").read_text(encoding="utf-8")
)["items"]


def nested(depth: int) -> object:
    value: object = "deep"
    for _ in range(depth):
        value = {"d": [value]}
    return value


HOSTILE: list[object] = [
    None,
    True,
    0,
    -1,
    3,
    2**31,
    -(2**31) - 1,
    10**25,
    1e308,
    0.5,
    -0.0,
    float("nan"),
    float("inf"),
    "",
    "0",
    "-1",
    "never",
    "NaN",
    "Infinity",
    "inf",
    "1e999",
    "\u0663",  # an Arabic-Indic digit
    "\u00b2",  # superscript two
    "1_000",
    "0x1f",
    "\x1b[2J\x1b]0;title\x07",
    "a\u202eb",  # a bidi override
    "line\nbreak",
    "\ud800",  # a lone surrogate
    "x" * 5000,
    "9" * 60 + "s",
    "1." + "5" * 60 + "h",
    "1h-30m",
    "10m",
    "5w4d12h",
    "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00+01:00",
    "2026-11-22T11:50:00Z",
    "2026-11-22T11:50:00.123456789+02:00",
    "Preemptible",
    "Non-Preemptible",
    "semi-preemptible",
    "Running",
    "Pending",
    "Queue",
    "queue",
    "PodGroup",
    "List",
    "scheduling.run.ai/v2",
    "Scheduling.Run.AI/v2",
    "scheduling.run.ai",
    "v1",
    [],
    {},
    [None, 1, "a"],
    {"name": "x", "minMember": -2},
    nested(30),
    nested(120),
]

KINDS = [
    "Queue",
    "queue",
    "QUEUE",
    "PodGroup",
    "podgroup",
    "Pod",
    "PriorityClass",
    "List",
    "",
    None,
]
API_VERSIONS = [
    "scheduling.run.ai/v2",
    "scheduling.run.ai/v2alpha2",
    "scheduling.run.ai/v1",
    "scheduling.run.ai",
    "Scheduling.Run.AI/v2",
    "v1",
    "",
    None,
]

Choose = Callable[[int], int]


def walk(value: Any, choose: Choose) -> tuple[Any, Any] | None:
    """A random (container, key) inside ``value``, or None for a value with no containers."""
    container: Any = value
    while True:
        if isinstance(container, dict) and container:
            keys = sorted(container, key=str)
            key: Any = keys[choose(len(keys))]
        elif isinstance(container, list) and container:
            key = choose(len(container))
        else:
            return None
        child = container[key]
        if isinstance(child, dict | list) and child and choose(3):
            container = child
            continue
        return container, key


def mutate(objects: list[Any], choose: Choose) -> list[Any]:
    """Apply one structural mutation to a list of objects, in place; return the list."""
    operation = choose(8)
    if not objects:
        objects.append({})
    index = choose(len(objects))
    target = objects[index]
    if operation <= 2:  # replace a field with a hostile value
        place = walk(target, choose)
        if place is not None:
            container, key = place
            container[key] = copy.deepcopy(HOSTILE[choose(len(HOSTILE))])
    elif operation == 3:  # delete a field
        place = walk(target, choose)
        if place is not None:
            container, key = place
            del container[key]
    elif operation == 4:  # duplicate an object, as it is or with a changed field
        twin = copy.deepcopy(target)
        objects.insert(choose(len(objects) + 1), twin)
    elif operation == 5 and isinstance(target, dict):  # re-spell the kind
        target["kind"] = KINDS[choose(len(KINDS))]
    elif operation == 6 and isinstance(target, dict):  # re-spell the apiVersion
        target["apiVersion"] = API_VERSIONS[choose(len(API_VERSIONS))]
    else:  # move an object elsewhere in the list
        objects.insert(choose(len(objects)), objects.pop(index))
    return objects


def alias_bomb(levels: int) -> str:
    lines = ["- kind: ConfigMap", "  l0: &l0 [x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"  l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * 8)}]")
    return "\n".join(lines) + "\n"


def render(objects: list[Any], choose: Choose, *, damage: bool = True) -> str:
    """The objects as a snapshot's text, sometimes (with ``damage``) with hostile text around
    them."""
    form = choose(8)
    if form == 0:  # YAML is read by a pure-Python parser: fewer and smaller, to keep runs fast
        unicode = bool(choose(2))
        try:
            dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            text = yaml.dump_all(objects[:12], Dumper=dumper, allow_unicode=unicode)
        except UnicodeEncodeError:  # libyaml cannot write a lone surrogate; PyYAML escapes it
            text = yaml.dump_all(objects[:12], Dumper=yaml.SafeDumper, allow_unicode=unicode)
    elif form <= 3:
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
    else:
        text = json.dumps(objects)  # an array; NaN and Infinity appear as bare words
    harm = choose(10) if damage else None
    if harm == 0:
        text = text[: choose(len(text) + 1)]
    elif harm == 1:
        text = alias_bomb(2 + choose(8)) + text if form == 0 else text
    elif harm == 2:
        depth = 90 + choose(30)
        text = "[" * depth + text + "]" * depth
    return text


@st.composite
def snapshots(draw: st.DrawFn, *, mild: bool = False) -> str:
    """A snapshot's text: a subset of the bundled example, mutated, rendered.

    ``mild`` keeps every queue (a queue whose parent is left out makes the tree invalid: most
    subsets of the example are refused for that alone), mutates the objects at most twice (with
    the same hostile mutations) and puts no hostile text around them, so that most of these
    snapshots are read and explained."""

    def choose(n: int) -> int:
        return draw(st.integers(0, max(n - 1, 0)))

    event(f"snapshot: {'mild' if mild else 'hostile'}")
    objects = [
        copy.deepcopy(obj) for obj in EXAMPLE if (mild and obj["kind"] == "Queue") or choose(4)
    ]
    mutations = draw(st.integers(0, 2 if mild else 4))
    event(f"mutations: {mutations}")
    for _ in range(mutations):
        mutate(objects, choose)
    return render(objects, choose, damage=not mild)


T = TypeVar("T")


def mix(
    often: st.SearchStrategy[T], rest: st.SearchStrategy[T], *, times: int = 1
) -> st.SearchStrategy[T]:
    """``often`` ``times`` times as often as ``rest``: in half of the examples by default. (In
    ``st.one_of`` each branch has the same share, nested ones too once it flattens them: one
    valid strategy beside several hostile ones would be drawn rarely.)"""
    return st.sampled_from([*[often] * times, rest]).flatmap(lambda chosen: chosen)


ARGUMENTS = st.lists(
    st.sampled_from(
        [
            "--now=+15m",
            "--now=-1h",
            "--now=9999-12-31T23:59:59Z",
            "--now=0001-01-01T00:00:00Z",
            "--now=1e9",
            "--now=\u0663",
            "--now=+99999999w",
            "--strict",
            "--strict-times",
            "--lenient-config",
            "--orphans-as-top-level",
            "--preemptor-queue=research",
            "--preemptor-queue=prod-batch",
            "--preemptor=finetune-7b",
            "--preemptor=\x1b",
            "--priority=7",
        ]
    ),
    max_size=3,
    unique=True,
)
# Arguments that are valid together: with a readable snapshot, status 0 (most of ARGUMENTS' lists
# hold one that is refused on its own, such as --now=1e9 or --strict, or two that conflict).
QUIET_ARGUMENTS = st.sampled_from(
    [
        (),
        ("--now=+15m",),
        ("--preemptor=finetune-7b",),
        ("--preemptor-queue=research", "--priority=7"),
        ("--orphans-as-top-level", "--lenient-config"),
        ("--now=0001-01-01T00:00:00Z", "--preemptor-queue=prod-batch"),
    ]
).map(list)


def attempt(error: type[Exception], function: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``function(*args, **kw)``, or ``None`` when it raises ``error`` (any other exception fails
    the test); records which of the two happened as a Hypothesis event."""
    try:
        result = function(*args, **kw)
    except error:
        event(f"{function.__name__}: refused")
        return None
    event(f"{function.__name__}: read")
    return result


def check_stream(text: str, prefix: str) -> None:
    assert all(ch == "\n" or ch.isprintable() for ch in text), f"a control character: {text!r:.300}"
    lines = text.splitlines()
    assert all(line.startswith(prefix) for line in lines), text[:600]


@FUZZ
@given(
    mix(snapshots(mild=True), snapshots(), times=2),
    st.sampled_from(["json", "json", "json", "table"]),  # JSON most often: its law checks more
    mix(QUIET_ARGUMENTS, ARGUMENTS),
)
def test_explain_answers_hostile_snapshots_with_its_own_errors_and_valid_output(
    text: str, output: str, arguments: list[str]
) -> None:
    """Only the library's own errors, valid JSON whenever JSON is written, bounded output.

    Two in three snapshots are mild, half of the argument lists are valid together, and three in
    four runs write JSON, so that the checks of a successful run and of its JSON run often, not
    only when hostile edits happen to leave the snapshot readable; the events show how often
    each status is met, with each output."""
    progress("test_explain_answers_hostile_snapshots_with_its_own_errors_and_valid_output")
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["explain", "-", "--output", output, *arguments],
        stdin=io.StringIO(text),
        stdout=out,
        stderr=err,
        now=NOW,
    )
    event(f"status {status}, {output}")
    assert status in (0, 1, 2)
    written = out.getvalue()
    if status == 0:
        check_stream(err.getvalue(), "minruntime: warning: ")
        check_stream(written, "")
        if output == "json":
            report = strict_json(written)
            assert report["schema"] == "minruntime.explain/v4"
        assert len(written) <= 50 * len(text) + 20_000
    else:
        assert written == ""
        assert err.getvalue()
        check_stream(err.getvalue(), "minruntime: error: ")
        assert len(err.getvalue()) <= 2 * len(text) + 20_000


@FUZZ
@given(st.data())
def test_explain_succeeds_often_enough_for_the_json_law_to_be_tested(data: st.DataObject) -> None:
    """Objects mutated only in fields the library does not read always give status 0 and JSON,
    so the JSON law above is exercised on every run, not only when a mutation happens to keep
    the snapshot readable."""
    progress("test_explain_succeeds_often_enough_for_the_json_law_to_be_tested")
    objects = [copy.deepcopy(obj) for obj in EXAMPLE]
    for _ in range(data.draw(st.integers(1, 5))):
        obj = objects[data.draw(st.integers(0, len(objects) - 1))]
        labels = obj.setdefault("metadata", {}).setdefault("labels", {})
        labels[data.draw(st.text(max_size=20))] = data.draw(st.text(max_size=50))
    text = json.dumps(objects)
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["-", "--output", "json"], stdin=io.StringIO(text), stdout=out, stderr=err, now=NOW
    )
    assert status == 0, err.getvalue()
    assert len(strict_json(out.getvalue())["jobs"]) == 20


# -- every textual input, through its reader -----------------------------------------------------

TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="0123456789.+-hmsuµnwd\u0663\u00b2_eE", max_size=80),
    st.builds(
        lambda digits, unit: "9" * digits + unit,
        st.integers(0, 6000),
        st.sampled_from(["s", "h", ""]),
    ),
    st.sampled_from([str(value) for value in HOSTILE if isinstance(value, str)]),
)


# Valid spellings: Go-style strings with d and w, canonical forms (never too), whole seconds up to
# the largest the parser accepts.
DURATIONS = st.one_of(duration_strings(), min_runtimes().map(str), st.integers(-1, 10**12))


@FUZZ
@given(
    mix(
        DURATIONS,  # half valid, so that the round trip below is checked often
        st.one_of(TEXT, st.integers(-(10**400), 10**400), st.floats(), st.booleans(), st.none()),
    )
)
def test_durations_raise_only_invalid_duration(value: object) -> None:
    progress("test_durations_raise_only_invalid_duration")
    try:
        parsed: MinRuntime | InvalidDuration = MinRuntime.parse(value)
    except InvalidDuration as error:
        parsed = error
    if isinstance(parsed, InvalidDuration):
        event("refused")
        assert len(str(parsed)) < 1000  # a long input is shown shortened
    else:
        event("read")
        assert MinRuntime.parse(str(parsed)) == parsed


TIMESTAMPS = st.one_of(
    TEXT,
    st.builds(
        lambda year, month, day, hour, offset, fraction: (
            f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:59:59{fraction}{offset}"
        ),
        st.integers(0, 9999),
        st.integers(0, 13),
        st.integers(0, 32),
        st.integers(0, 25),
        st.sampled_from(["Z", "z", "+00:00", "-23:59", "+23:59", "+24:00", "-01:00"]),
        st.sampled_from(["", ".5", "." + "9" * 40]),
    ),
)


@FUZZ
@given(TIMESTAMPS)
def test_timestamps_raise_only_invalid_timestamp(text: str) -> None:
    progress("test_timestamps_raise_only_invalid_timestamp")
    moment = attempt(InvalidTimestamp, parse_rfc3339, text, origin="fuzz")
    assert moment is None or moment.utcoffset() is not None
    start = parse_start_time(text)
    assert start.value is None or start.warnings == ()
    if moment is not None:  # a timestamp read is the start time the annotation gives
        assert start.value == moment


CONFIG_TEXT = st.one_of(
    TEXT,
    st.builds(
        lambda arguments: json.dumps(
            {"tiers": [{"plugins": [{"name": "minruntime", "arguments": arguments}]}]}
        ),
        st.dictionaries(
            st.sampled_from(
                [
                    "defaultPreemptMinRuntime",
                    "defaultReclaimMinRuntime",
                    "reclaimResolveMethod",
                    "defaultMaxEvictions",
                    "defaultPreemtMinRuntime",
                ]
            ),
            st.sampled_from(HOSTILE[:-2]),
        ),
    ),
    st.builds(alias_bomb, st.integers(1, 9)),
)


@FUZZ
@given(CONFIG_TEXT, st.booleans())
def test_config_documents_raise_only_invalid_configuration(text: str, lenient: bool) -> None:
    progress("test_config_documents_raise_only_invalid_configuration")
    attempt(InvalidConfiguration, Config.from_scheduler_config, text, lenient=lenient)


@FUZZ
@given(snapshots())
def test_the_readers_raise_only_the_library_errors(text: str) -> None:
    progress("test_the_readers_raise_only_the_library_errors")
    objects = attempt(InvalidObject, load_objects, text, origin="fuzz")
    if objects is not None:
        attempt(MinRuntimeError, read_snapshot, objects)


def explain_json(objects: list[Any], *arguments: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    status = main(
        ["-", "--output", "json", *arguments],
        stdin=io.StringIO(json.dumps(objects)),
        stdout=out,
        stderr=err,
        now=NOW,
    )
    assert status == 0, err.getvalue()
    return out.getvalue()


IN_EXAMPLE_ORDER = {
    arguments: explain_json(EXAMPLE, *arguments)
    for arguments in [(), ("--preemptor-queue=research",), ("--preemptor=finetune-7b",)]
}


@FUZZ
@given(st.permutations(range(len(EXAMPLE))), st.sampled_from(sorted(IN_EXAMPLE_ORDER)))
def test_the_answer_never_depends_on_the_order_of_the_objects(
    order: list[int], arguments: tuple[str, ...]
) -> None:
    """The same snapshot listed in any order gives the same report, byte for byte: evictable
    pods of elastic and semi-preemptible jobs, ranks, warnings and all."""
    progress("test_the_answer_never_depends_on_the_order_of_the_objects")
    report = json.loads(explain_json([EXAMPLE[i] for i in order], *arguments))
    expected = json.loads(IN_EXAMPLE_ORDER[arguments])
    for key in expected:
        assert report[key] == expected[key], key


QUEUES = [obj for obj in EXAMPLE if obj["kind"] == "Queue"]
# the keys an archived queue leaves out, for its list (rawObjects.queues) to supply
LEFT_OUT = st.sampled_from([(), ("kind",), ("apiVersion",), ("apiVersion", "kind")])
OTHER_MEMBERS = st.sampled_from(
    [None, None, None, "translation-table.json", "redacted/snapshot.json"]
)


@st.composite
def archives(draw: st.DrawFn) -> bytes:
    """The reference's snapshot archive of a random subset of the example's queues, each with or
    without the kind and apiVersion that its list supplies; sometimes with another member beside
    its snapshot.json: a translation table (not read) or a second snapshot.json (refused).

    The archives differ from one example to the next, so that each undamaged one is a new test:
    Hypothesis does not run the same input twice, so that one fixed archive, left undamaged in
    half of the examples, would be read in one example only."""
    queues = []
    for obj in QUEUES:
        if draw(st.integers(0, 3)):
            left_out = draw(LEFT_OUT)
            queues.append({key: value for key, value in obj.items() if key not in left_out})
    snapshot = json.dumps({"rawObjects": {"queues": queues}})
    other = draw(OTHER_MEMBERS)
    event(f"archive: snapshot.json and {other}" if other else "archive: snapshot.json alone")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("snapshot.json", snapshot)
        if other is not None:
            zipped.writestr(other, snapshot if other.endswith("snapshot.json") else "{}")
    return buffer.getvalue()


# none in half of the examples
DAMAGE = st.sampled_from(["none", "none", "none", "bytes changed", "cut", "bytes changed, cut"])


@FUZZ
@given(st.data())
def test_snapshot_archives_raise_only_invalid_object(data: st.DataObject) -> None:
    """A damaged ZIP (bytes flipped, cut short, or another member) is the reader's own error.

    Half of the archives are left undamaged, and are read unless they hold a second
    snapshot.json. The other half have up to four bytes changed, cut short (at or after their
    middle), or both; two in three of the changed bytes fall where the headers are (the first
    member's at the start; the central directory and its end record in the last 160 bytes),
    which tests the parsing of the headers (a few such changes are harmless: the archive is read
    all the same)."""
    progress("test_snapshot_archives_raise_only_invalid_object")
    archive = bytearray(data.draw(archives()))
    damage = data.draw(DAMAGE)
    event(f"damage: {damage}")
    last = len(archive) - 1
    if "bytes" in damage:
        where = st.one_of(
            st.integers(0, last),
            st.integers(0, min(63, last)),
            st.integers(max(0, last - 159), last),
        )
        changes = st.lists(st.tuples(where, st.integers(0, 255)), min_size=1, max_size=4)
        for at, byte in data.draw(changes):
            archive[at] = byte
    cut = data.draw(st.integers(len(archive) // 2, last)) if "cut" in damage else len(archive)
    objects = attempt(InvalidObject, load_snapshot_archive, bytes(archive[:cut]))
    assert objects is None or all(obj["kind"] == "Queue" for obj in objects)

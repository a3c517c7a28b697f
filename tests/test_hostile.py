"""Hostile input: one regression test per class of crash, unbounded work or invalid output.

Each test is built from a new instance of its class (not the example the issue gave), and runs
the command in-process the way an operator would meet it. The fuzzing suite
(``tests/test_fuzz.py``) then checks the classes stay closed.
"""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from tests.world import JSON, config_map, pod, pod_group, queue_object, strict_json

from minruntime import MinRuntime
from minruntime._load import MAX_NODES, OutOfBounds, load_json, load_yaml
from minruntime.cli import main
from minruntime.errors import InvalidDuration, InvalidObject, InvalidTimestamp
from minruntime.kube import load_objects, load_snapshot_archive, read_snapshot
from minruntime.starttime import parse_rfc3339

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)

QUEUE = queue_object("team", preemptMinRuntime="10m")
CONFIG = config_map(
    "scheduler-config",
    {"config.yaml": json.dumps({"tiers": [{"plugins": [{"name": "minruntime"}]}]})},
)
group = partial(pod_group, annotations={}, minMember=1, preemptibility="preemptible")
"""A gang of queue 'team' (``ml/train`` unless named), its annotations as given."""


def gpu_pod(amount: object) -> JSON:
    return pod(spec={"containers": [{"resources": {"limits": {"nvidia.com/gpu": amount}}}]})


def run(args: list[str], stdin: str = "") -> tuple[int, str, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    status = main(args, stdin=io.StringIO(stdin), stdout=out, stderr=err, now=NOW)
    return status, out.getvalue(), err.getvalue().splitlines()


def snapshot_text(*objects: JSON) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [CONFIG, *objects]})


# -- out-of-range dates and offsets ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["0001-01-01T00:59:59+01:00", "9999-12-31T22:00:00-02:00", "9999-12-31t23:59:59-00:01"],
)
def test_a_valid_text_of_an_instant_outside_the_datetime_range_is_invalid_timestamp(
    text: str,
) -> None:
    with pytest.raises(InvalidTimestamp) as caught:
        parse_rfc3339(text, origin="here")
    assert str(caught.value) == (
        f"invalid timestamp {text!r} in here: out of range in UTC (expected an instant between "
        "0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z)"
    )


def test_an_out_of_range_checkpoint_time_is_a_warning_not_a_traceback() -> None:
    annotations = {"minruntime/last-checkpoint-timestamp": "0001-01-01T00:00:00+00:30"}
    status, out, err = run(
        ["-", "--output", "json"], snapshot_text(QUEUE, group(annotations=annotations), pod())
    )
    assert status == 0
    warnings = strict_json(out)["warnings"]
    assert warnings == [
        "PodGroup/ml/train metadata.annotations['minruntime/last-checkpoint-timestamp']: invalid "
        "timestamp '0001-01-01T00:00:00+00:30': out of range in UTC (expected an instant between "
        "0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z); ignored"
    ]
    assert err == [f"minruntime: warning: {warning}" for warning in warnings]


@pytest.mark.parametrize(
    ("now", "message"),
    [
        ("9999-12-31T23:59:59+00:00", None),
        ("0001-01-01T00:00:00+00:01", "--now: invalid time"),
    ],
)
def test_now_at_the_edge_of_the_range(now: str, message: str | None) -> None:
    status, _, err = run(["--now", now])
    if message is None:
        assert status == 0
    else:
        assert status == 2
        assert err == [
            "minruntime: error: --now: '0001-01-01T00:00:00+00:01' is out of range (expected an "
            "instant between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z)"
        ]


@pytest.mark.parametrize("now", ["--now=+4000000d", "--now=-800000d", "--now=400000000000"])
def test_now_beyond_the_range_is_a_usage_error_and_never_the_json_now_never(now: str) -> None:
    status, out, err = run([now, "--output", "json"])
    assert (status, out) == (2, "")
    assert len(err) == 1
    assert err[0].startswith("minruntime: error: --now: ")


# -- digits str.isdigit() accepts and int() does not ----------------------------------------------


@pytest.mark.parametrize(
    "count", ["\u00b3", "\u0663", "\u2463"]
)  # superscript 3, Arabic 3, circled 4
def test_a_non_ascii_digit_in_the_eviction_annotation_is_a_warning(count: str) -> None:
    annotations = {"minruntime/eviction-timestamps": count}
    snapshot = read_snapshot([QUEUE, CONFIG, group(annotations=annotations), pod()])
    inputs = snapshot.jobs[0].job.inputs
    assert inputs is not None
    assert inputs.evictions == ()
    assert snapshot.jobs[0].warnings[-1] == (
        "PodGroup/ml/train metadata.annotations['minruntime/eviction-timestamps']: invalid "
        f"timestamp {count!r} (expected RFC 3339 with a zone, e.g. '2026-11-22T11:50:00Z'); ignored"
    )


def test_a_non_ascii_digit_in_a_plugin_count_is_an_invalid_configuration() -> None:
    document = {
        "tiers": [
            {"plugins": [{"name": "minruntime", "arguments": {"defaultMaxEvictions": "\u0663"}}]}
        ]
    }
    config = dict(CONFIG, data={"config.yaml": json.dumps(document)})
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([config])
    assert "defaultMaxEvictions: invalid value '\u0663' (expected an integer >= 0)" in str(
        caught.value
    )


@pytest.mark.parametrize("amount", ["\u0663", "1_000", " 2", "0x10", "nan", "-0.5"])
def test_a_quantity_that_is_not_an_ascii_decimal_is_refused(amount: str) -> None:
    bad = pod(spec={"containers": [{"resources": {"requests": {"cpu": amount}}}]})
    with pytest.raises(InvalidObject) as caught:
        read_snapshot([QUEUE, CONFIG, group(), bad], strict_times=True)
    assert str(caught.value) == (
        f"Pod/ml/train-0 spec.containers[0].resources.requests['cpu']: invalid amount {amount!r} "
        "(expected a Kubernetes quantity >= 0, e.g. '2', '500m' or '16Gi')"
    )


# -- numbers with thousands of digits -----------------------------------------------------------


def test_a_duration_with_thousands_of_digits_is_refused_with_a_bounded_message() -> None:
    text = "1." + "5" * 3000 + "h"
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime.parse(text, origin="there")
    assert str(caught.value) == (
        "invalid duration '1.55555555555555555555555555555555555555'...(3003 characters)..."
        "'555555555h' in there: a fraction of more than 40 digits (expected e.g. '10m', "
        "'1h30m', '2d', 0, or -1/'never' for never)"
    )


@pytest.mark.parametrize("value", [10**12 + 1, 10**400, 1e300, "16666666667m", "1000000000000s1ns"])
def test_a_duration_beyond_the_bound_is_refused(value: object) -> None:
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime.parse(value)
    assert str(caught.value).endswith(
        "longer than 1000000000000s; write -1 or 'never' for protection that never ends "
        "(expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)"
    )


def test_the_bound_itself_is_accepted() -> None:
    assert MinRuntime.parse(10**12) == MinRuntime.parse("1000000000000s")


@pytest.mark.parametrize(
    "text",
    [
        '{"kind": "PriorityClass", "value": ' + "7" * 4400 + "}",
        "kind: PriorityClass\nvalue: " + "7" * 4400 + "\n",
        "kind: PriorityClass\nvalue: 1" + "_0" * 40 + "\n",
    ],
    ids=["json", "yaml", "yaml-underscores"],
)
def test_an_integer_with_thousands_of_digits_in_a_document_is_refused(text: str) -> None:
    with pytest.raises(InvalidObject) as caught:
        load_objects(text, origin="big.json")
    assert str(caught.value).startswith("big.json: an integer of ")
    assert "(at most 30)" in str(caught.value)


def test_a_priority_beyond_32_bits_leaves_its_class_out() -> None:
    priority_class = {"kind": "PriorityClass", "metadata": {"name": "huge"}, "value": 2**40}
    snapshot = read_snapshot([priority_class])
    assert dict(snapshot.priority_classes) == {}
    assert snapshot.warnings[0] == (
        "PriorityClass/huge value: 1099511627776 is out of range (expected a 32-bit integer, "
        "-2147483648 to 2147483647); left out"
    )


# -- deep nesting --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": ' * 5000 + "1" + "}" * 5000,
        "[" * 101 + "]" * 101,
        "".join("  " * i + "-\n" for i in range(3000)),
        "a: " + "{b: " * 200 + "1" + "}" * 200,
    ],
    ids=["json-objects", "json-just-too-deep", "yaml-block", "yaml-flow"],
)
def test_deep_nesting_is_refused_in_one_line(text: str) -> None:
    status, out, err = run(["-"], text)
    assert (status, out) == (1, "")
    assert err == ["minruntime: error: <stdin>: nested deeper than 100 levels"]


def test_nesting_of_exactly_the_bound_is_read() -> None:
    assert load_json("[" * 100 + "]" * 100) is not None


# -- YAML alias bombs and cycles ------------------------------------------------------------------


def alias_bomb(levels: int, fan: int) -> str:
    lines = ["kind: ConfigMap", "l0: &l0 [x]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * fan)}]")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_before_it_is_expanded() -> None:
    text = alias_bomb(levels=12, fan=4)  # 4**11 = 4 million leaves from 300 bytes
    assert len(text) < 400
    with pytest.raises(OutOfBounds) as caught:
        load_yaml(text)
    assert (
        str(caught.value) == f"its aliases expand to more than {MAX_NODES} values (an alias bomb?)"
    )
    status, _, err = run(["-"], text)
    assert status == 1
    assert err == [
        f"minruntime: error: <stdin>: its aliases expand to more than {MAX_NODES} values (an "
        "alias bomb?)"
    ]


def test_modest_aliases_are_read() -> None:
    assert load_yaml(alias_bomb(levels=3, fan=3))[0]["l2"] == [[["x"]] * 3] * 3


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(OutOfBounds) as caught:
        load_yaml("a: &a [1, *a]\n")
    assert str(caught.value) == "an alias refers to a node that contains it (a cycle)"


def test_yaml_timestamps_stay_text_as_kubernetes_reads_them() -> None:
    (document,) = load_yaml("t: 2026-11-22T11:50:00Z\nd: 0000-01-01\n")
    assert document == {"t": "2026-11-22T11:50:00Z", "d": "0000-01-01"}


# -- non-finite numbers and valid JSON -------------------------------------------------------------


@pytest.mark.parametrize("amount", ["Infinity", "1e400", "NaN", 1e300, "-1"])
def test_a_gpu_amount_that_is_not_a_finite_count_warns_and_the_json_stays_valid(
    amount: object,
) -> None:
    text = snapshot_text(QUEUE, group(), gpu_pod(amount))
    status, out, err = run(["-", "--output", "json", "--preemptor-queue", "team"], text)
    assert status == 0
    report = strict_json(out)
    assert report["jobs"][0]["decision"]["unsavedWork"] >= 0
    assert report["warnings"] == [
        "Pod/ml/train-0 spec.containers[0].resources.limits['nvidia.com/gpu']: invalid amount "
        f"{amount!r} (expected a Kubernetes quantity >= 0, e.g. '2', '500m' or '16Gi'); the "
        "pod holds no nvidia.com/gpu (counted as 0)"
    ]
    assert err == [f"minruntime: warning: {warning}" for warning in report["warnings"]]


_DIGITS = "0123456789\u00b2\u0661\u07c0\uff11"  # ASCII digits, then ², ١, ߀, １


@given(st.text(alphabet=_DIGITS, max_size=8))
def test_a_gpu_count_in_digits_of_any_script_is_read_or_named_never_a_traceback(
    amount: str,
) -> None:
    """Law: a GPU count of digits is its value when it is ASCII (up to 1,000,000), else a
    problem naming the pod and the field, with the pod holding no GPU (the number the problem
    says); never an exception (``str.isdigit`` is true of ``'²'``, which ``int`` refuses)."""
    snapshot = read_snapshot([QUEUE, group(), gpu_pod(amount)])
    (task,) = snapshot.jobs[0].job.pod_sets[0].tasks
    problems = [p for p in snapshot.every_problem() if p.object is not None]
    readable = amount != "" and amount.isascii() and int(amount) <= 1_000_000
    event("read" if readable else "named")
    event("non-ASCII digits" if not amount.isascii() else "ASCII")
    if readable:
        assert (task.resources.get("nvidia.com/gpu"), problems) == (int(amount) or None, [])
        return
    field = "spec.containers[0].resources.limits['nvidia.com/gpu']"
    bound = ", at most 1000000" if amount.isascii() and amount else ""
    assert task.resources == {"pods": 1}
    assert [(str(p.object), p.field, p.message) for p in problems] == [
        (
            "Pod/ml/train-0",
            field,
            f"Pod/ml/train-0 {field}: invalid amount {amount!r} (expected a Kubernetes quantity "
            f">= 0, e.g. '2', '500m' or '16Gi'{bound}); the pod holds no nvidia.com/gpu (counted "
            "as 0)",
        )
    ]


def test_a_json_number_out_of_float_range_is_refused_where_it_is_read() -> None:
    status, _, err = run(["-"], '{"kind": "Pod", "metadata": {"name": "p"}, "x": -2e308}')
    assert status == 1
    assert err == [
        "minruntime: error: <stdin>: the number -2e308 is out of range (not a finite number)"
    ]


# -- names: control characters, length, encodings ---------------------------------------------------


def test_control_characters_in_names_are_escaped_in_the_table_and_the_warnings() -> None:
    name = "evil\x1b]0;owned\x07\u202e"
    text = snapshot_text(QUEUE, group(name), pod(group=name))
    status, out, err = run(["-"], text)
    assert status == 0
    assert "\x1b" not in out + "".join(err)
    assert "\u202e" not in out + "".join(err)
    assert "ml/evil\\x1b]0;owned\\x07\\u202e" in out


def test_a_name_of_100_kb_is_cut_in_the_table_and_whole_in_the_json() -> None:
    name = "n" * 100_000
    text = snapshot_text(QUEUE, group(name), pod(group=name))
    status, out, _ = run(["-"], text)
    assert status == 0
    assert max(len(line) for line in out.splitlines()) < 200
    status, out, _ = run(["-", "--output", "json"], text)
    assert strict_json(out)["jobs"][0]["id"] == f"ml/{name}"


def test_text_the_terminal_cannot_encode_is_written_escaped() -> None:
    name = "tr\u00e4ining-\u4e2d\u6587"
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", errors="strict", write_through=True)
    err = io.StringIO()
    text = snapshot_text(QUEUE, group(name), pod(group=name))
    status = main(["-"], stdin=io.StringIO(text), stdout=out, stderr=err, now=NOW)
    assert status == 0
    assert "ml/tr\\xe4ining-\\u4e2d\\u6587" in raw.getvalue().decode("ascii")


# -- bounded memory --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (alias_bomb(levels=10, fan=9), 1),  # 9**9 values if expanded
        ("[" * 200_000, 1),
        ("- " * 100_000 + "x\n", 1),
        ('{"kind": "List", "items": [' + ", ".join(["{}"] * 1000) + "]}", 1),  # none of ours
    ],
    ids=["alias-bomb", "json-brackets", "yaml-dashes", "many-empty-objects"],
)
def test_hostile_documents_cost_memory_of_the_order_of_their_size(text: str, expected: int) -> None:
    """Peak memory (tracemalloc's count, not a timing) stays within a fixed budget."""
    tracemalloc.start()
    try:
        status, _, _ = run(["-", "--output", "json"], text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert status == expected
    assert peak < 64 * 2**20, f"{peak / 2**20:.1f} MiB"


def test_an_endless_input_is_read_up_to_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("minruntime.cli._sources._MAX_INPUT_CHARACTERS", 1000)
    status, out, err = run(["-"], "[" + "{}, " * 400 + "{}]")
    assert (status, out) == (1, "")
    assert err == [
        "minruntime: error: <stdin>: larger than 1000 characters (a snapshot of a large cluster "
        "is a few hundred megabytes at most; is it the right file?)"
    ]


def test_standard_input_that_is_not_utf8_is_an_error_naming_it() -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'[{"kind": "Pod", "x": "\xff"}]'), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    status = main(["-"], stdin=stdin, stdout=out, stderr=err, now=NOW)
    assert status == 1
    assert err.getvalue() == (
        "minruntime: error: <stdin>: not UTF-8 text (invalid start byte at byte 23)\n"
    )


# -- the listing order of pods -----------------------------------------------------------------------


def test_the_evictable_pods_of_an_elastic_job_do_not_depend_on_the_listing_order() -> None:
    # protected (started 11:55, 10m preempt min-runtime): only the pods above minMember may go
    elastic = group(
        annotations={"kai.scheduler/last-start-timestamp": "2026-11-22T11:55:00Z"}, minMember=2
    )
    pods = [pod(f"train-{i}") for i in range(5)]
    for i, one in enumerate(pods):
        one["metadata"]["creationTimestamp"] = f"2026-11-22T10:0{i}:00Z"
    reports = []
    for order in (pods, pods[::-1], [pods[3], pods[0], pods[4], pods[2], pods[1]]):
        text = snapshot_text(QUEUE, elastic, *order)
        status, out, _ = run(["-", "--output", "json", "--preemptor-queue", "team"], text)
        assert status == 0
        decision = strict_json(out)["jobs"][0]["decision"]
        assert decision["reason"] == "deferred"
        reports.append(decision["evictable"])
    assert reports == [["train-4", "train-3", "train-2"]] * 3


# -- command-line values ------------------------------------------------------------------------------


@pytest.mark.parametrize("priority", ["9" * 5000, "2147483648", "\u0661\u0662", "1e3"])
def test_a_priority_that_is_not_a_32_bit_integer_is_a_usage_error(priority: str) -> None:
    status, out, err = run(["--preemptor-queue", "research", f"--priority={priority}"])
    assert (status, out) == (2, "")
    assert len(err) == 1
    assert err[0].startswith("minruntime: error: argument --priority: invalid priority ")
    assert err[0].endswith(
        "(expected an integer from -2147483648 to 2147483647) (see minruntime explain --help)"
    )
    assert len(err[0]) < 300


def test_a_huge_preemptor_name_gives_a_short_error() -> None:
    status, _, err = run(["--preemptor", "x" * 100_000])
    assert status == 1
    assert err == [
        "minruntime: error: --preemptor: no pod group or pod "
        "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'...(100000 characters)...'xxxxxxxxxx' in the "
        "snapshot (expected NAMESPACE/NAME of a PodGroup or a Pod, or a NAME only one of them has)"
    ]


# -- the reference scheduler's snapshot (a ZIP) --------------------------------------------------------


def archive(document: object, name: str = "snapshot.json") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr(name, json.dumps(document))
    return buffer.getvalue()


def test_the_reference_snapshot_archive_is_read_with_kinds_from_its_list_keys(
    tmp_path: Path,
) -> None:
    bare_group = {k: v for k, v in group().items() if k not in ("apiVersion", "kind")}
    bare_pod = {k: v for k, v in pod().items() if k not in ("apiVersion", "kind")}
    document = {
        "config": json.loads(CONFIG["data"]["config.yaml"]),
        "rawObjects": {
            "queues": [{"metadata": QUEUE["metadata"], "spec": QUEUE["spec"]}],
            "podGroups": [bare_group],
            "pods": [bare_pod],
            "nodes": [{"metadata": {"name": "node-1"}}],
            "configMaps": [CONFIG],  # the config above counts; this one is not searched
        },
    }
    path = tmp_path / "snapshot.zip"
    path.write_bytes(archive(document))
    status, out, err = run([str(path), "--output", "json"])
    assert (status, err) == (0, [])
    report = strict_json(out)
    assert [job["id"] for job in report["jobs"]] == ["ml/train"]
    assert report["warnings"] == []
    assert report["queueTree"][0]["preempt"] == {"minRuntime": "10m", "source": "team"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            archive({"rawObjects": {}}, name="other.json"),
            "expected one snapshot.json in the archive, found 0 (it holds 'other.json')",
        ),
        (
            archive([1, 2]),
            "snapshot.json: expected an object with rawObjects (the reference's snapshot)",
        ),
        (
            archive({"rawObjects": {"pods": {"a": 1}}}),
            "snapshot.json rawObjects.pods: expected a list, got dict",
        ),
        (b"PK\x03\x04" + b"\x00" * 100, "not a readable ZIP archive (File is not a zip file)"),
    ],
    ids=["no-member", "not-an-object", "list-not-a-list", "broken"],
)
def test_a_bad_snapshot_archive_is_one_error_naming_it(
    tmp_path: Path, data: bytes, message: str
) -> None:
    path = tmp_path / "snapshot.zip"
    path.write_bytes(data)
    status, out, err = run([str(path)])
    assert (status, out) == (1, "")
    assert err == [f"minruntime: error: {path}: {message}"]


def test_a_zip_bomb_is_read_up_to_a_bound(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("minruntime.kube._archive.MAX_ARCHIVE_MEMBER", 10_000)
    path = tmp_path / "bomb.zip"
    path.write_bytes(archive({"rawObjects": {}, "padding": "0" * 10**6}))
    assert path.stat().st_size < 5_000
    status, _, err = run([str(path)])
    assert status == 1
    assert err == [f"minruntime: error: {path}: snapshot.json expands to more than 10000 bytes"]


def test_every_single_byte_damage_to_an_archive_is_the_readers_own_error() -> None:
    """Exhaustive over positions: a corrupt deflate stream (zlib.error), a bad CRC, a broken
    header or a member name that is not UTF-8 is InvalidObject, or the archive still reads."""
    good = archive({"rawObjects": {"queues": [QUEUE]}})
    outcomes: dict[str, int] = {}
    for position in range(len(good)):
        damaged = bytearray(good)
        damaged[position] ^= 0x5A
        try:
            load_snapshot_archive(bytes(damaged), origin="z")
        except InvalidObject as error:
            reason = str(error).split(" (", 1)[0]
            outcomes[reason] = outcomes.get(reason, 0) + 1
        else:
            outcomes["read"] = outcomes.get("read", 0) + 1
    assert sum(outcomes.values()) == len(good)
    assert outcomes.get("z: not a readable ZIP archive", 0) > len(good) // 4

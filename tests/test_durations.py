"""MinRuntime values and the one duration parser (docs/spec/durations.md, the rows of
docs/spec/differences.md#differences-table)."""

from __future__ import annotations

import copy
import math
import pickle
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minruntime import Config, InvalidDuration, MinRuntime, MinRuntimeError, Queue
from minruntime.durations import MinRuntimeInput, parse_optional_min_runtime
from minruntime.testing import duration_strings, min_runtimes

NS = 1
US = 1_000
MS = 1_000_000
S = 1_000_000_000
M = 60 * S
H = 60 * M
D = 24 * H
W = 7 * D

EXPECTED_FORM = "expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never"
ORIGIN = "Queue 'prod' spec.reclaimMinRuntime"

MICRO_SIGN = "\u00b5"  # µ
GREEK_MU = "\u03bc"  # μ


# -- accepted spellings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("10m", 10 * M),
        ("1h30m", H + 30 * M),
        ("2d4h30m", 2 * D + 4 * H + 30 * M),
        ("5w4d12h", 5 * W + 4 * D + 12 * H),
        ("250ms", 250 * MS),
        ("1.5h", 5_400 * S),
        (".5s", 500 * MS),
        ("5.s", 5 * S),
        ("+10m", 10 * M),
        ("0", 0),
        ("+0", 0),
        ("0s", 0),
        ("0h0m", 0),
        (f"1{MICRO_SIGN}s", 1 * US),
        (f"1{GREEK_MU}s", 1 * US),
        ("1us", 1 * US),
        ("1ns", 1 * NS),
        ("1ms", 1 * MS),
        ("1s", 1 * S),
        ("1m", 1 * M),
        ("1h", 1 * H),
        ("1d", 24 * H),
        ("1w", 168 * H),
        ("2.25m", 135 * S),
        (f"1.5{MICRO_SIGN}s", 1_500 * NS),
        ("1.001ms", 1_001 * US),
        ("0.5d", 12 * H),
        ("1h0m0s", H),
        ("1h1ns", H + 1),
        ("30m1h", H + 30 * M),
        ("100000h", 100_000 * H),
    ],
)
def test_duration_string_parses_to_exact_nanoseconds(text: str, nanoseconds: int) -> None:
    value = MinRuntime.parse(text)
    assert value.nanoseconds == nanoseconds
    assert not value.is_never
    assert MinRuntime(text) == value


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("5s", 5 * S),
        ("10s", 10 * S),
        ("10m5s", 10 * M + 5 * S),
        ("1m", M),
        ("1.5s", 1_500 * MS),
        ("2m30s", 2 * M + 30 * S),
        ("1h", H),
        ("1h30m", H + 30 * M),
        ("2h45m15s", 2 * H + 45 * M + 15 * S),
        ("2d4h30m", 2 * D + 4 * H + 30 * M),
        ("5w4d12h", 5 * W + 4 * D + 12 * H),
    ],
)
def test_reference_scheduler_test_list_is_accepted(text: str, nanoseconds: int) -> None:
    assert MinRuntime.parse(text, origin=ORIGIN).nanoseconds == nanoseconds


@pytest.mark.parametrize(
    ("number", "nanoseconds"),
    [
        (0, 0),
        (1, S),
        (90, 90 * S),
        (5_400, 5_400 * S),
        (10**12, 10**12 * S),
        (0.0, 0),
        (1.5, 1_500 * MS),
        (0.25, 250 * MS),
        (0.1, 100 * MS),
        (5_400.0, 5_400 * S),
        (1e-9, 1),
    ],
)
def test_number_is_seconds(number: float, nanoseconds: int) -> None:
    assert MinRuntime.parse(number).nanoseconds == nanoseconds


@pytest.mark.parametrize(
    ("delta", "nanoseconds"),
    [
        (timedelta(0), 0),
        (timedelta(hours=1, minutes=30), 5_400 * S),
        (timedelta(days=2, hours=4, minutes=30), 2 * D + 4 * H + 30 * M),
        (timedelta(weeks=5, days=4, hours=12), 5 * W + 4 * D + 12 * H),
        (timedelta(microseconds=1), US),
        (timedelta(days=3, seconds=7, microseconds=123_456), 3 * D + 7 * S + 123_456 * US),
    ],
)
def test_timedelta_is_itself(delta: timedelta, nanoseconds: int) -> None:
    assert MinRuntime.parse(delta).nanoseconds == nanoseconds


def test_min_runtime_passes_through_parse_unchanged() -> None:
    value = MinRuntime.parse("1h30m")
    assert MinRuntime.parse(value) is value
    assert MinRuntime.parse(value, origin=ORIGIN) is value
    assert MinRuntime(value) == value
    assert MinRuntime(MinRuntime.NEVER).is_never


@pytest.mark.parametrize("value", [-1, -1.0, "-1", "never", "NEVER", "Never", "nEvEr"])
def test_never_spellings_parse_to_never(value: object) -> None:
    parsed = MinRuntime.parse(value, origin=ORIGIN)
    assert parsed is MinRuntime.NEVER
    assert parsed.is_never
    assert parsed.nanoseconds is None
    assert MinRuntime(value).is_never


@pytest.mark.parametrize("value", ["0", "+0", "0s", 0, 0.0, timedelta(0)])
def test_zero_spellings_parse_to_the_zero_constant(value: object) -> None:
    parsed = MinRuntime.parse(value)
    assert parsed is MinRuntime.ZERO
    assert parsed.nanoseconds == 0


def test_constants_are_never_and_zero() -> None:
    assert MinRuntime.NEVER.is_never
    assert MinRuntime.NEVER.nanoseconds is None
    assert not MinRuntime.ZERO.is_never
    assert MinRuntime.ZERO.nanoseconds == 0


# -- rejected spellings ---------------------------------------------------------------------------

REJECTED_STRINGS = [
    "",
    "5",
    "1.5",
    "0.0",
    "00",
    "10",
    "1h2",
    "2h45m15",
    "abc",
    "dfdsfdfdf",
    "s",
    "m",
    ".s",
    ".",
    "5.",
    "+",
    "1x",
    "1H",
    "1M",
    "1S",
    "1Ms",
    "1MS",
    "1Us",
    "1sec",
    "1hr",
    "1e3s",
    " 10m",
    "10m ",
    "1h 30m",
    "\t5s",
    "10m\n",
    "1h-30m",
    "1h+30m",
    "+-1s",
    "--1",
    "+-1",
    "-5s",
    "-10m",
    "-1h",
    "-2d",
    "-3w",
    "-1s",
    "-0",
    "-0s",
    "-1.0",
    "-1h30m",
    "1.2.3s",
    "nevers",
    "never ",
    "nan",
    "inf",
    "infinity",
]


@pytest.mark.parametrize("text", REJECTED_STRINGS)
def test_rejected_string_raises_invalid_duration_naming_value_and_origin(text: str) -> None:
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime.parse(text, origin=ORIGIN)
    error = caught.value
    assert error.value is text
    assert error.origin == ORIGIN
    message = str(error)
    assert message.startswith(f"invalid duration {text!r} in {ORIGIN}: ")
    assert message.endswith(f"({EXPECTED_FORM})")


REJECTED_OTHERS: list[object] = [
    -5,
    -2,
    -0.5,
    -1.5,
    -1e-9,
    -(10**20),
    math.nan,
    math.inf,
    -math.inf,
    True,
    False,
    None,
    [],
    ["10m"],
    {},
    {"10m": 1},
    ("10m",),
    b"10m",
    Decimal("1"),
    Fraction(1, 2),
    complex(1, 0),
    object(),
    timedelta(days=-1),
    timedelta(microseconds=-1),
]


@pytest.mark.parametrize("value", REJECTED_OTHERS, ids=repr)
def test_rejected_value_raises_invalid_duration_naming_value_and_origin(value: object) -> None:
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime.parse(value, origin=ORIGIN)
    error = caught.value
    assert error.value is value
    assert error.origin == ORIGIN
    message = str(error)
    assert message.startswith(f"invalid duration {value!r} in {ORIGIN}: ")
    assert message.endswith(f"({EXPECTED_FORM})")


@pytest.mark.parametrize("value", ["1x", "", -5, True, None, math.nan])
def test_constructor_rejects_like_parse_without_an_origin(value: object) -> None:
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime(value)
    assert caught.value.origin is None
    assert str(caught.value).startswith(f"invalid duration {value!r}: ")
    assert EXPECTED_FORM in str(caught.value)


def test_unknown_unit_message_is_exact() -> None:
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime.parse("1x", origin=ORIGIN)
    assert str(caught.value) == (
        "invalid duration '1x' in Queue 'prod' spec.reclaimMinRuntime: unknown unit 'x' "
        "(expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never)"
    )


def test_invalid_duration_is_a_value_error_and_a_min_runtime_error() -> None:
    with pytest.raises(ValueError, match="invalid duration '1H'") as caught:
        MinRuntime.parse("1H")
    assert isinstance(caught.value, MinRuntimeError)


# -- parse_optional_min_runtime -------------------------------------------------------------------


def test_optional_none_stays_unset() -> None:
    assert parse_optional_min_runtime(None) is None
    assert parse_optional_min_runtime(None, origin=ORIGIN) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10m", MinRuntime("10m")),
        (-1, MinRuntime.NEVER),
        ("0", MinRuntime.ZERO),
        (90, MinRuntime("1m30s")),
    ],
)
def test_optional_value_parses_like_parse(value: object, expected: MinRuntime) -> None:
    assert parse_optional_min_runtime(value, origin=ORIGIN) == expected


@pytest.mark.parametrize("value", ["", "5", -2, "never!"])
def test_optional_bad_value_raises_with_origin(value: object) -> None:
    with pytest.raises(InvalidDuration) as caught:
        parse_optional_min_runtime(value, origin=ORIGIN)
    assert caught.value.origin == ORIGIN
    assert f"invalid duration {value!r} in {ORIGIN}" in str(caught.value)


# -- exactness, equality, ordering ----------------------------------------------------------------


def test_fractional_hours_are_exact_integer_nanoseconds() -> None:
    value = MinRuntime("1.5h")
    assert value.nanoseconds == 5_400_000_000_000
    assert isinstance(value.nanoseconds, int)


def test_equal_durations_from_different_spellings_compare_and_hash_equal() -> None:
    spellings: list[object] = [
        "1.5h",
        "90m",
        "5400s",
        "1h30m",
        "1h29m60s",
        "5400000ms",
        "0.0625d",
        "+1h30m",
        5_400,
        5_400.0,
        timedelta(minutes=90),
        MinRuntime.from_nanoseconds(5_400 * S),
    ]
    values = [MinRuntime.parse(spelling) for spelling in spellings]
    assert all(value == values[0] for value in values)
    assert not any(value != values[0] for value in values)
    assert {hash(value) for value in values} == {hash(values[0])}
    assert len(set(values)) == 1


def test_never_spellings_compare_and_hash_equal() -> None:
    values = [MinRuntime(spelling) for spelling in (-1, -1.0, "-1", "never", "NEVER")]
    assert len(set(values)) == 1
    assert values[0] == MinRuntime.NEVER


def test_different_durations_are_unequal() -> None:
    assert MinRuntime("1s") != MinRuntime("1001ms")
    assert MinRuntime("0") != MinRuntime("1ns")
    assert MinRuntime("10000w") != MinRuntime.NEVER


def test_ordering_sorts_by_duration_with_never_greatest() -> None:
    values = [
        MinRuntime.NEVER,
        MinRuntime("1h"),
        MinRuntime.ZERO,
        MinRuntime("1ns"),
        MinRuntime("59m"),
        MinRuntime.from_nanoseconds(10**30),
        MinRuntime("10000w"),
    ]
    assert [str(value) for value in sorted(values)] == [
        "0s",
        "1ns",
        "59m",
        "1h",
        "1680000h",
        "277777777777777777h46m40s",
        "never",
    ]


def test_never_is_greater_than_every_duration() -> None:
    huge = MinRuntime.from_nanoseconds(10**40)
    assert huge < MinRuntime.NEVER
    assert huge <= MinRuntime.NEVER
    assert huge < MinRuntime.NEVER
    assert huge <= MinRuntime.NEVER
    assert MinRuntime.NEVER <= MinRuntime.NEVER
    assert MinRuntime.NEVER >= MinRuntime.NEVER
    assert not MinRuntime.NEVER < MinRuntime.NEVER
    assert not MinRuntime.NEVER > MinRuntime.NEVER


def test_comparison_operators_between_durations() -> None:
    small, large = MinRuntime("30m"), MinRuntime("1h")
    assert small < large
    assert small <= large
    assert large > small
    assert large >= small
    assert not large < small
    assert not small > large
    assert small <= MinRuntime("1800s")
    assert small >= MinRuntime("1800s")


def test_zero_is_falsy_and_other_values_truthy() -> None:
    assert not MinRuntime("0")
    assert not MinRuntime.ZERO
    assert not MinRuntime(timedelta(0))
    assert MinRuntime("1ns")
    assert MinRuntime("10m")
    assert MinRuntime.NEVER


@pytest.mark.parametrize("other", [1, 1.0, "1s", timedelta(seconds=1), None])
def test_equality_with_other_types_is_false(other: object) -> None:
    value = MinRuntime("1s")
    assert (value == other) is False
    assert (value != other) is True
    assert (other == value) is False


@pytest.mark.parametrize("other", [1, 1.0, "1s", timedelta(seconds=1)])
def test_ordering_with_other_types_raises_type_error(other: object) -> None:
    value = MinRuntime("1s")
    with pytest.raises(TypeError):
        _ = value < other
    with pytest.raises(TypeError):
        _ = value <= other
    with pytest.raises(TypeError):
        _ = value > other
    with pytest.raises(TypeError):
        _ = value >= other


def test_rich_comparisons_return_not_implemented_for_other_types() -> None:
    value = MinRuntime("1s")
    assert value.__eq__(1) is NotImplemented
    assert value.__ne__(1) is NotImplemented
    assert value.__lt__(1) is NotImplemented
    assert value.__le__(1) is NotImplemented
    assert value.__gt__(1) is NotImplemented
    assert value.__ge__(1) is NotImplemented


def test_value_is_frozen() -> None:
    value = MinRuntime("10m")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        value._ns = 5  # type: ignore[misc]
    assert value.nanoseconds == 10 * M


# -- conversions ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (MinRuntime("2m"), 120.0),
        (MinRuntime("1.5s"), 1.5),
        (MinRuntime("250ms"), 0.25),
        (MinRuntime("5w4d12h"), 3_412_800.0),
        (MinRuntime.ZERO, 0.0),
        (MinRuntime.NEVER, math.inf),
    ],
)
def test_total_seconds(value: MinRuntime, seconds: float) -> None:
    assert value.total_seconds() == seconds


@pytest.mark.parametrize(
    ("value", "delta"),
    [
        (MinRuntime("1h30m"), timedelta(seconds=5_400)),
        (MinRuntime("2d4h30m"), timedelta(days=2, hours=4, minutes=30)),
        (MinRuntime.ZERO, timedelta(0)),
        (MinRuntime("1us"), timedelta(microseconds=1)),
        (MinRuntime("1ns"), timedelta(microseconds=1)),
        (MinRuntime("999ns"), timedelta(microseconds=1)),
        (MinRuntime("1001ns"), timedelta(microseconds=2)),
        (MinRuntime("1s1ns"), timedelta(seconds=1, microseconds=1)),
    ],
)
def test_to_timedelta_rounds_up_to_a_microsecond(value: MinRuntime, delta: timedelta) -> None:
    assert value.to_timedelta() == delta


def test_to_timedelta_of_never_raises_value_error() -> None:
    with pytest.raises(ValueError, match="never has no timedelta"):
        MinRuntime.NEVER.to_timedelta()


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("2d4h30m", "52h30m"),
        ("1h30m", "1h30m"),
        ("1.5h", "1h30m"),
        ("0", "0s"),
        ("never", "never"),
        (-1, "never"),
        ("1.5s", "1s500ms"),
        ("5w4d12h", "948h"),
        ("1h0m0s", "1h"),
        (90, "1m30s"),
        (0.25, "250ms"),
        (f"1.5{MICRO_SIGN}s", "1us500ns"),
        (f"7{GREEK_MU}s", "7us"),
        ("1h1ns", "1h1ns"),
        ("1d", "24h"),
        ("1w", "168h"),
        (timedelta(seconds=1, microseconds=1), "1s1us"),
    ],
)
def test_str_is_the_canonical_form(value: object, text: str) -> None:
    assert str(MinRuntime.parse(value)) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (MinRuntime("1h30m"), "MinRuntime('1h30m')"),
        (MinRuntime.ZERO, "MinRuntime('0s')"),
        (MinRuntime.NEVER, "MinRuntime('never')"),
        (MinRuntime(0.25), "MinRuntime('250ms')"),
        (MinRuntime("2d"), "MinRuntime('48h')"),
    ],
)
def test_repr_shows_the_canonical_form(value: MinRuntime, text: str) -> None:
    assert repr(value) == text


@pytest.mark.parametrize(
    "value",
    [
        MinRuntime.ZERO,
        MinRuntime.NEVER,
        MinRuntime("1ns"),
        MinRuntime("1.5h"),
        MinRuntime("5w4d12h"),
    ],
    ids=str,
)
def test_pickle_and_copy_round_trip(value: MinRuntime) -> None:
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        restored = pickle.loads(pickle.dumps(value, protocol=protocol))
        assert restored == value
        assert restored.nanoseconds == value.nanoseconds
        assert restored.is_never is value.is_never
    assert copy.copy(value) == value
    assert copy.deepcopy(value) == value


def test_from_nanoseconds_builds_the_exact_duration() -> None:
    assert MinRuntime.from_nanoseconds(90 * S) == MinRuntime("1m30s")
    assert MinRuntime.from_nanoseconds(1).nanoseconds == 1
    assert MinRuntime.from_nanoseconds(0) == MinRuntime.ZERO
    assert not MinRuntime.from_nanoseconds(0)


@pytest.mark.parametrize("value", [-1, -5, True, False, 1.5, 1.0, "5", None])
def test_from_nanoseconds_rejects_anything_but_a_non_negative_int(value: object) -> None:
    with pytest.raises(InvalidDuration) as caught:
        MinRuntime.from_nanoseconds(value)  # type: ignore[arg-type]
    assert caught.value.value is value
    assert f"invalid duration {value!r}" in str(caught.value)
    assert "non-negative integer count of nanoseconds" in str(caught.value)


# -- one grammar everywhere (docs/spec/differences.md) ---------------------------------------------


@pytest.mark.parametrize("spelling", ["2d", "1w", "5w4d12h", "1.5h", "-1", -1, "never", 600, "0"])
def test_queue_and_config_values_use_the_same_grammar(spelling: MinRuntimeInput) -> None:
    expected = MinRuntime.parse(spelling)
    queue = Queue("prod", preempt_min_runtime=spelling, reclaim_min_runtime=spelling)
    assert queue.preempt_min_runtime == expected
    assert queue.reclaim_min_runtime == expected
    config = Config.from_plugin_arguments(
        {"defaultPreemptMinRuntime": spelling, "defaultReclaimMinRuntime": spelling}
    )
    assert config.default_preempt_min_runtime == expected
    assert config.default_reclaim_min_runtime == expected


@pytest.mark.parametrize("value", [-2, -5, "-5s", "-1h", -0.5])
def test_negative_queue_value_other_than_never_is_an_error(value: MinRuntimeInput) -> None:
    with pytest.raises(InvalidDuration) as caught:
        Queue("prod", reclaim_min_runtime=value)
    assert caught.value.origin == "Queue 'prod' reclaim_min_runtime"
    assert f"invalid duration {value!r} in Queue 'prod' reclaim_min_runtime" in str(caught.value)


# -- properties -----------------------------------------------------------------------------------


@given(min_runtimes())
def test_str_parses_back_to_the_same_value(value: MinRuntime) -> None:
    """parse(str(d)) == d for every min-runtime, never included."""
    assert MinRuntime.parse(str(value)) == value
    assert hash(MinRuntime.parse(str(value))) == hash(value)


@given(duration_strings())
def test_every_generated_duration_string_parses_and_round_trips(text: str) -> None:
    """Every generated duration string parses, with or without a leading '+', and its str() round-trips."""
    value = MinRuntime.parse(text)
    assert not value.is_never
    assert isinstance(value.nanoseconds, int)
    assert value.nanoseconds >= 0
    assert MinRuntime.parse(f"+{text}") == value
    assert MinRuntime.parse(str(value)) == value
    assert str(MinRuntime.parse(str(value))) == str(value)


_UNIT_SCALES = {
    "ns": NS,
    "us": US,
    MICRO_SIGN + "s": US,
    GREEK_MU + "s": US,
    "ms": MS,
    "s": S,
    "m": M,
    "h": H,
    "d": D,
    "w": W,
}
_AT_LEAST_A_MICROSECOND = [unit for unit, scale in _UNIT_SCALES.items() if scale >= US]


@st.composite
def exact_duration_strings(draw: st.DrawFn) -> tuple[str, int]:
    """A duration string and its exact nanoseconds: integer pairs in any unit, plus pairs with
    up to three fraction digits in units of a microsecond or more (so no rounding happens)."""
    pairs = draw(st.lists(st.integers(0, 1), min_size=1, max_size=5))
    text, total = "", 0
    for kind in pairs:
        if kind == 0:
            number = draw(st.integers(0, 100_000))
            unit = draw(st.sampled_from(sorted(_UNIT_SCALES)))
            text += f"{number}{unit}"
            total += number * _UNIT_SCALES[unit]
        else:
            whole = draw(st.integers(0, 999))
            digits = draw(st.integers(1, 3))
            fraction = draw(st.integers(0, 10**digits - 1))
            unit = draw(st.sampled_from(_AT_LEAST_A_MICROSECOND))
            text += f"{whole}.{fraction:0{digits}d}{unit}"
            exact = (whole + Fraction(fraction, 10**digits)) * _UNIT_SCALES[unit]
            assert exact.denominator == 1
            total += int(exact)
    return text, total


@given(exact_duration_strings())
def test_a_duration_string_is_the_sum_of_its_pairs(case: tuple[str, int]) -> None:
    """The value of '<n1><u1><n2><u2>...' is the exact sum of n_i * unit_i, in nanoseconds."""
    text, nanoseconds = case
    assert MinRuntime.parse(text).nanoseconds == nanoseconds


@given(st.integers(0, 10**9))
def test_integer_seconds_equal_the_seconds_string(seconds: int) -> None:
    """A number n is n seconds: parse(n) == parse(f"{n}s") == parse(float(n)) for small n."""
    assert MinRuntime.parse(seconds) == MinRuntime.parse(f"{seconds}s")
    assert MinRuntime.parse(seconds).nanoseconds == seconds * S


@given(min_runtimes(), min_runtimes())
def test_ordering_is_consistent_with_total_seconds(a: MinRuntime, b: MinRuntime) -> None:
    """a < b exactly when a.total_seconds() < b.total_seconds(), and likewise for == and >."""
    assert (a < b) == (a.total_seconds() < b.total_seconds())
    assert (a == b) == (a.total_seconds() == b.total_seconds())
    assert (a > b) == (a.total_seconds() > b.total_seconds())
    assert (a <= b) == (not a > b)
    assert (a >= b) == (not a < b)


@given(min_runtimes())
def test_never_is_the_greatest_value(value: MinRuntime) -> None:
    """Never is greater than or equal to every value, and equal only to itself."""
    assert value <= MinRuntime.NEVER
    assert (value == MinRuntime.NEVER) == value.is_never


@given(min_runtimes(allow_never=False))
def test_to_timedelta_rounds_up_by_less_than_a_microsecond(value: MinRuntime) -> None:
    """to_timedelta() is the smallest whole-microsecond timedelta not shorter than the value."""
    assert value.nanoseconds is not None
    back = MinRuntime.parse(value.to_timedelta())
    assert back.nanoseconds is not None
    assert value <= back
    assert back.nanoseconds - value.nanoseconds < US

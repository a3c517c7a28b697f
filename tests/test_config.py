"""Node-pool configuration: defaults, plugin arguments, the scheduler config document
(docs/spec/configuration.md)."""

from __future__ import annotations

import importlib
import json
import types
from collections.abc import Mapping
from typing import Any

import attrs
import pytest

from minruntime import Config, InvalidConfiguration, InvalidDuration, MinRuntime
from minruntime.config import PLUGIN_NAME, RESOLVE_METHODS, find_scheduler_config

KEYS = ["defaultPreemptMinRuntime", "defaultReclaimMinRuntime", "reclaimResolveMethod"]
EXPECTED_FORM = "expected e.g. '10m', '1h30m', '2d', 0, or -1/'never' for never"
ARGS_ORIGIN = "minruntime plugin arguments"
UNKNOWN_KEY_TAIL = (
    " ignored (expected one of "
    "['defaultEvictionWindow', 'defaultMaxEvictions', 'defaultMaxJobMinRuntime', "
    "'defaultPreemptCheckpointGrace', 'defaultPreemptMinRuntime', "
    "'defaultReclaimCheckpointGrace', 'defaultReclaimMinRuntime', 'reclaimResolveMethod'])"
)
NO_PLUGIN_WARNING = "no 'minruntime' plugin in scheduler config; using the defaults"

FIELD = {
    "defaultPreemptMinRuntime": "default_preempt_min_runtime",
    "defaultReclaimMinRuntime": "default_reclaim_min_runtime",
}


def scheduler_document(arguments: object = None, *, with_arguments: bool = True) -> dict[str, Any]:
    """A scheduler config document with the minruntime plugin in its second tier."""
    plugin: dict[str, Any] = {"name": "minruntime"}
    if with_arguments:
        plugin["arguments"] = arguments
    return {
        "actions": "allocate, consolidation, reclaim, preempt, stalegangeviction",
        "tiers": [
            {"plugins": [{"name": "predicates"}, {"name": "proportion"}]},
            {"plugins": [{"name": "priority"}, plugin, {"name": "elastic"}]},
        ],
    }


def assert_defaults(config: Config) -> None:
    assert config.default_preempt_min_runtime == MinRuntime.ZERO
    assert config.default_reclaim_min_runtime == MinRuntime.ZERO
    assert config.reclaim_resolve_method == "lca"


# -- the Config value -----------------------------------------------------------------------------


def test_defaults_are_zero_zero_and_lca() -> None:
    config = Config()
    assert config.default_preempt_min_runtime == MinRuntime.ZERO
    assert config.default_reclaim_min_runtime == MinRuntime.ZERO
    assert config.reclaim_resolve_method == "lca"
    assert config.warnings == ()


def test_module_constants_name_the_plugin_and_the_methods() -> None:
    assert PLUGIN_NAME == "minruntime"
    assert RESOLVE_METHODS == ("lca", "queue")


def test_config_parses_its_defaults_with_every_spelling() -> None:
    config = Config(
        default_preempt_min_runtime="1.5h",
        default_reclaim_min_runtime=-1,
        reclaim_resolve_method="queue",
    )
    assert config.default_preempt_min_runtime == MinRuntime("90m")
    assert config.default_reclaim_min_runtime.is_never
    assert config.reclaim_resolve_method == "queue"
    assert repr(config) == (
        "Config(default_preempt_min_runtime=MinRuntime('1h30m'), "
        "default_reclaim_min_runtime=MinRuntime('never'), reclaim_resolve_method='queue', "
        "protections=ProtectionSettings(preempt_checkpoint_grace=None, "
        "reclaim_checkpoint_grace=None, max_evictions=None, eviction_window=None, "
        "max_job_min_runtime=None), cost_resource='nvidia.com/gpu', warnings=())"
    )


@pytest.mark.parametrize("method", ["LCA", "Queue", "x", "", " lca", "lca "])
def test_config_rejects_a_resolve_method_other_than_lca_or_queue(method: str) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config(reclaim_resolve_method=method)
    assert caught.value.problems == (
        f"reclaim_resolve_method: invalid value {method!r} (expected 'lca' or 'queue')",
    )
    assert "reclaim_resolve_method" in str(caught.value)
    assert repr(method) in str(caught.value)


@pytest.mark.parametrize("field", ["default_preempt_min_runtime", "default_reclaim_min_runtime"])
@pytest.mark.parametrize("value", ["5", "-5s", "1x", ""])
def test_config_rejects_a_bad_default_naming_the_field(field: str, value: str) -> None:
    arguments: dict[str, Any] = {field: value}
    with pytest.raises(InvalidDuration) as caught:
        Config(**arguments)
    assert caught.value.origin == f"Config {field}"
    assert caught.value.value == value
    assert f"invalid duration {value!r} in Config {field}" in str(caught.value)


def test_config_bare_number_default_message_names_the_field() -> None:
    with pytest.raises(InvalidDuration, match="Config default_preempt_min_runtime") as caught:
        Config(default_preempt_min_runtime="5")
    assert str(caught.value) == (
        "invalid duration '5' in Config default_preempt_min_runtime: a bare number needs a unit "
        f"({EXPECTED_FORM})"
    )


def test_config_is_frozen_and_changes_with_evolve() -> None:
    config = Config()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        config.reclaim_resolve_method = "queue"  # type: ignore[misc]
    changed = attrs.evolve(config, reclaim_resolve_method="queue")
    assert changed.reclaim_resolve_method == "queue"
    assert config.reclaim_resolve_method == "lca"


def test_evolve_validates_too() -> None:
    with pytest.raises(InvalidConfiguration, match="'LCA'"):
        attrs.evolve(Config(), reclaim_resolve_method="LCA")


def test_equality_ignores_warnings() -> None:
    warned = Config(warnings=["something was ignored"])
    assert warned.warnings == ("something was ignored",)
    assert warned == Config()
    assert hash(warned) == hash(Config())


# -- plugin arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize("arguments", [None, {}])
def test_no_arguments_give_the_defaults(arguments: Mapping[str, object] | None) -> None:
    config = Config.from_plugin_arguments(arguments)
    assert config == Config()
    assert_defaults(config)
    assert config.warnings == ()


def test_arguments_set_every_field() -> None:
    config = Config.from_plugin_arguments(
        {
            "defaultPreemptMinRuntime": "10m",
            "defaultReclaimMinRuntime": "2d4h30m",
            "reclaimResolveMethod": "queue",
        }
    )
    assert config.default_preempt_min_runtime == MinRuntime("10m")
    assert config.default_reclaim_min_runtime == MinRuntime("52h30m")
    assert config.reclaim_resolve_method == "queue"
    assert config.warnings == ()


@pytest.mark.parametrize("method", ["lca", "queue"])
def test_resolve_method_lca_or_queue_is_accepted(method: str) -> None:
    config = Config.from_plugin_arguments({"reclaimResolveMethod": method})
    assert config.reclaim_resolve_method == method
    assert config.warnings == ()


@pytest.mark.parametrize("method", ["LCA", "Queue", "QUEUE", "x", " lca", 5, ["lca"]])
def test_other_resolve_method_is_rejected_naming_key_and_value(method: object) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments({"reclaimResolveMethod": method})
    error = caught.value
    problem = f"reclaimResolveMethod: invalid value {method!r} (expected 'lca' or 'queue')"
    assert error.problems == (problem,)
    assert error.origin == ARGS_ORIGIN
    assert str(error) == f"invalid configuration in {ARGS_ORIGIN}: {problem}"


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("empty", [None, ""])
def test_null_or_empty_value_takes_the_default(key: str, empty: object) -> None:
    config = Config.from_plugin_arguments({key: empty})
    assert_defaults(config)
    assert config.warnings == ()


@pytest.mark.parametrize("key", KEYS)
def test_absent_key_takes_the_default(key: str) -> None:
    others = {
        "defaultPreemptMinRuntime": "5m",
        "defaultReclaimMinRuntime": "7m",
        "reclaimResolveMethod": "queue",
    }
    del others[key]
    config = Config.from_plugin_arguments(others)
    defaults = Config()
    expected = {
        "defaultPreemptMinRuntime": MinRuntime("5m"),
        "defaultReclaimMinRuntime": MinRuntime("7m"),
    }
    if key == "reclaimResolveMethod":
        assert config.reclaim_resolve_method == "lca"
    else:
        assert getattr(config, FIELD[key]) == getattr(defaults, FIELD[key])
        assert config.reclaim_resolve_method == "queue"
    for other, field in FIELD.items():
        if other != key:
            assert getattr(config, field) == expected[other]


@pytest.mark.parametrize("key", ["defaultPreemptMinRuntime", "defaultReclaimMinRuntime"])
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("10m", MinRuntime("10m")),
        ("1h30m", MinRuntime("90m")),
        ("1.5h", MinRuntime("90m")),
        (".5s", MinRuntime("500ms")),
        ("+10m", MinRuntime("10m")),
        ("2d", MinRuntime("48h")),
        ("5w4d12h", MinRuntime("948h")),
        ("250ms", MinRuntime("250ms")),
        ("1\u00b5s", MinRuntime("1us")),
        ("1\u03bcs", MinRuntime("1us")),
        ("0", MinRuntime.ZERO),
        ("0s", MinRuntime.ZERO),
        (600, MinRuntime("10m")),
        (1.5, MinRuntime("1500ms")),
        (-1, MinRuntime.NEVER),
        (-1.0, MinRuntime.NEVER),
        ("-1", MinRuntime.NEVER),
        ("never", MinRuntime.NEVER),
        ("NEVER", MinRuntime.NEVER),
        ("Never", MinRuntime.NEVER),
    ],
)
def test_duration_argument_accepts_every_spelling(
    key: str, value: object, expected: MinRuntime
) -> None:
    config = Config.from_plugin_arguments({key: value})
    assert getattr(config, FIELD[key]) == expected
    assert getattr(config, FIELD[key]).is_never is expected.is_never
    assert config.warnings == ()


@pytest.mark.parametrize("key", ["defaultPreemptMinRuntime", "defaultReclaimMinRuntime"])
@pytest.mark.parametrize(
    "value", ["5", "1.5", "1h2", "abc", "1H", "1x", " 10m", "-5s", -5, -0.5, True]
)
def test_bad_duration_argument_is_rejected_naming_key_and_value(key: str, value: object) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments({key: value})
    error = caught.value
    assert len(error.problems) == 1
    problem = error.problems[0]
    assert problem.startswith(f"{key}: invalid duration {value!r}: ")
    assert problem.endswith(f"({EXPECTED_FORM})")
    assert error.origin == ARGS_ORIGIN
    assert str(error) == f"invalid configuration in {ARGS_ORIGIN}: {problem}"


BAD_ARGUMENTS = {
    "defaultPreemptMinRuntime": "5",
    "defaultReclaimMinRuntime": "-10m",
    "reclaimResolveMethod": "LCA",
}


def test_every_bad_key_is_reported_at_once() -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments(BAD_ARGUMENTS)
    error = caught.value
    assert error.problems == (
        f"defaultPreemptMinRuntime: invalid duration '5': a bare number needs a unit ({EXPECTED_FORM})",
        "defaultReclaimMinRuntime: invalid duration '-10m': negative durations are not allowed "
        f"({EXPECTED_FORM})",
        "reclaimResolveMethod: invalid value 'LCA' (expected 'lca' or 'queue')",
    )
    message = str(error)
    assert message.startswith(f"invalid configuration in {ARGS_ORIGIN}: 3 problems:\n  - ")
    for problem in error.problems:
        assert f"\n  - {problem}" in message
    for key, value in BAD_ARGUMENTS.items():
        assert key in message
        assert repr(value) in message


def test_lenient_mode_uses_defaults_and_warns_naming_key_and_value() -> None:
    config = Config.from_plugin_arguments(BAD_ARGUMENTS, lenient=True)
    assert_defaults(config)
    assert config.warnings == (
        f"defaultPreemptMinRuntime: invalid duration '5': a bare number needs a unit ({EXPECTED_FORM}); "
        "using the default 0s",
        "defaultReclaimMinRuntime: invalid duration '-10m': negative durations are not allowed "
        f"({EXPECTED_FORM}); using the default 0s",
        "reclaimResolveMethod: invalid value 'LCA' (expected 'lca' or 'queue'); "
        "using the default 'lca'",
    )


def test_lenient_mode_keeps_the_good_values() -> None:
    config = Config.from_plugin_arguments(
        {"defaultPreemptMinRuntime": "1x", "defaultReclaimMinRuntime": "10m"}, lenient=True
    )
    assert config.default_preempt_min_runtime == MinRuntime.ZERO
    assert config.default_reclaim_min_runtime == MinRuntime("10m")
    assert config.reclaim_resolve_method == "lca"
    assert len(config.warnings) == 1
    assert config.warnings[0].startswith("defaultPreemptMinRuntime: invalid duration '1x'")
    assert config.warnings[0].endswith("; using the default 0s")


def test_lenient_mode_with_good_values_has_no_warnings() -> None:
    config = Config.from_plugin_arguments(
        {"defaultPreemptMinRuntime": "never", "reclaimResolveMethod": "queue"}, lenient=True
    )
    assert config.default_preempt_min_runtime.is_never
    assert config.reclaim_resolve_method == "queue"
    assert config.warnings == ()


@pytest.mark.parametrize("lenient", [False, True])
def test_unknown_keys_are_ignored_with_a_warning(lenient: bool) -> None:
    arguments: dict[Any, object] = {
        "reclaimResolveMethod": "queue",
        "reclaimMinRuntime": "10m",
        "DefaultPreemptMinRuntime": "1h",
        7: "x",
    }
    config = Config.from_plugin_arguments(arguments, lenient=lenient)
    assert config.reclaim_resolve_method == "queue"
    assert config.default_preempt_min_runtime == MinRuntime.ZERO
    assert config.default_reclaim_min_runtime == MinRuntime.ZERO
    assert config.warnings == (
        f"unknown key 7{UNKNOWN_KEY_TAIL}",
        f"unknown key 'DefaultPreemptMinRuntime'{UNKNOWN_KEY_TAIL}",
        f"unknown key 'reclaimMinRuntime'{UNKNOWN_KEY_TAIL}",
    )


def test_unknown_key_does_not_hide_a_bad_value_in_strict_mode() -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments({"foo": 1, "reclaimResolveMethod": "Queue"})
    assert caught.value.problems == (
        "reclaimResolveMethod: invalid value 'Queue' (expected 'lca' or 'queue')",
    )


@pytest.mark.parametrize(
    ("arguments", "type_name"),
    [(["reclaimResolveMethod"], "list"), ("reclaimResolveMethod: queue", "str"), (5, "int")],
)
@pytest.mark.parametrize("lenient", [False, True])
def test_non_mapping_arguments_are_rejected(
    arguments: object, type_name: str, lenient: bool
) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments(arguments, lenient=lenient)  # type: ignore[arg-type]
    assert caught.value.problems == (f"expected a mapping of plugin arguments, got {type_name}",)
    assert str(caught.value) == (
        f"invalid configuration in {ARGS_ORIGIN}: expected a mapping of plugin arguments, "
        f"got {type_name}"
    )


def test_origin_names_where_the_arguments_came_from() -> None:
    origin = "node pool 'gpu-a' scheduler shard"
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_plugin_arguments({"defaultReclaimMinRuntime": "1M"}, origin=origin)
    assert caught.value.origin == origin
    assert caught.value.problems[0].startswith(
        "defaultReclaimMinRuntime: invalid duration '1M': unknown unit 'M' "
    )
    assert str(caught.value).startswith(f"invalid configuration in {origin}: ")


# -- the scheduler config document ----------------------------------------------------------------

GOOD_ARGUMENTS = {
    "defaultPreemptMinRuntime": "10m",
    "defaultReclaimMinRuntime": "-1",
    "reclaimResolveMethod": "queue",
}


def assert_good(config: Config) -> None:
    assert config.default_preempt_min_runtime == MinRuntime("10m")
    assert config.default_reclaim_min_runtime == MinRuntime.NEVER
    assert config.reclaim_resolve_method == "queue"
    assert config.warnings == ()


def test_scheduler_config_mapping_reads_the_plugin_arguments() -> None:
    assert_good(Config.from_scheduler_config(scheduler_document(GOOD_ARGUMENTS)))


def test_scheduler_config_json_text_reads_the_plugin_arguments() -> None:
    assert_good(Config.from_scheduler_config(json.dumps(scheduler_document(GOOD_ARGUMENTS))))


def test_scheduler_config_config_map_reads_the_plugin_arguments() -> None:
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "scheduler-config", "namespace": "kai-scheduler"},
        "data": {"config.yaml": json.dumps(scheduler_document(GOOD_ARGUMENTS))},
    }
    assert_good(Config.from_scheduler_config(config_map))
    assert_good(Config.from_scheduler_config(json.dumps(config_map)))


@pytest.mark.parametrize(
    "data", [{}, {"a.yaml": "{}", "b.yaml": "{}"}, {"config.yaml": "[1, 2]"}, "text", None]
)
def test_config_map_without_an_entry_holding_a_scheduler_config_is_rejected(data: object) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config({"kind": "ConfigMap", "data": data})
    assert caught.value.problems == (
        "ConfigMap data: no entry holds a scheduler config (a document with a tiers list)",
    )
    assert caught.value.origin == "scheduler config"


def test_config_map_with_two_scheduler_configs_is_rejected_naming_both_entries() -> None:
    document = json.dumps(scheduler_document(GOOD_ARGUMENTS))
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(
            {"kind": "ConfigMap", "data": {"a.yaml": document, "b.yaml": document}}
        )
    assert caught.value.problems == (
        "more than one entry holds a scheduler config: data['a.yaml'], data['b.yaml']",
    )


def test_the_scheduler_config_is_found_beside_other_entries_of_its_config_map() -> None:
    document = json.dumps(scheduler_document(GOOD_ARGUMENTS))
    config_map = {"kind": "ConfigMap", "data": {"notes": "hello", "config.yaml": document}}
    assert find_scheduler_config(config_map) == (
        "data['config.yaml']",
        scheduler_document(GOOD_ARGUMENTS),
    )
    assert_good(Config.from_scheduler_config(config_map))


@pytest.mark.parametrize(
    "document",
    [
        {},
        {"tiers": None},
        {"tiers": []},
        {"tiers": [{"plugins": [{"name": "proportion"}, {"name": "minruntimes"}]}]},
        "{}",
    ],
)
def test_document_without_the_plugin_gives_defaults_and_a_warning(document: object) -> None:
    config = Config.from_scheduler_config(document)  # type: ignore[arg-type]
    assert_defaults(config)
    assert config.warnings == (NO_PLUGIN_WARNING,)


def test_missing_plugin_warning_names_the_origin() -> None:
    config = Config.from_scheduler_config({}, origin="/etc/kai/config.yaml")
    assert config.warnings == (
        "no 'minruntime' plugin in /etc/kai/config.yaml; using the defaults",
    )


@pytest.mark.parametrize("arguments", [None, {}])
def test_plugin_without_arguments_gives_the_defaults_without_warnings(arguments: object) -> None:
    config = Config.from_scheduler_config(scheduler_document(arguments))
    assert_defaults(config)
    assert config.warnings == ()
    bare = Config.from_scheduler_config(scheduler_document(with_arguments=False))
    assert_defaults(bare)
    assert bare.warnings == ()


def test_plugin_twice_is_rejected_naming_both_paths() -> None:
    document = scheduler_document({"defaultPreemptMinRuntime": "1m"})
    document["tiers"].append({"plugins": [{"name": "minruntime", "arguments": {}}]})
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(document)
    assert caught.value.problems == (
        "the 'minruntime' plugin appears more than once: "
        "tiers[1].plugins[1].arguments, tiers[2].plugins[0].arguments",
    )
    assert str(caught.value) == (
        "invalid configuration in scheduler config: the 'minruntime' plugin appears more than "
        "once: tiers[1].plugins[1].arguments, tiers[2].plugins[0].arguments"
    )


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ({"tiers": {"plugins": []}}, "tiers: expected a list, got dict"),
        ({"tiers": "minruntime"}, "tiers: expected a list, got str"),
        (
            {"tiers": [{"plugins": {"name": "minruntime"}}]},
            "tiers[0].plugins: expected a list of plugins",
        ),
        ({"tiers": [{"plugins": []}, {}]}, "tiers[1].plugins: expected a list of plugins"),
        ({"tiers": [{"plugins": []}, 5]}, "tiers[1].plugins: expected a list of plugins"),
        (
            {"tiers": [{"plugins": [{"name": "x"}, {"name": "minruntime", "arguments": ["a"]}]}]},
            "tiers[0].plugins[1].arguments: expected a mapping, got list",
        ),
        (
            {"tiers": [{"plugins": [{"name": "minruntime", "arguments": "10m"}]}]},
            "tiers[0].plugins[0].arguments: expected a mapping, got str",
        ),
    ],
)
@pytest.mark.parametrize("lenient", [False, True])
def test_document_of_the_wrong_shape_is_rejected_with_the_path(
    document: dict[str, Any], problem: str, lenient: bool
) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(document, lenient=lenient)
    assert caught.value.problems == (problem,)
    assert str(caught.value) == f"invalid configuration in scheduler config: {problem}"


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ("[1, 2]", "expected a mapping at the top of the document, got list"),
        ('"text"', "expected a mapping at the top of the document, got str"),
        (5, "expected a mapping or a document's text, got int"),
        (["tiers"], "expected a mapping or a document's text, got list"),
    ],
)
def test_document_that_is_not_a_mapping_is_rejected(document: object, problem: str) -> None:
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(document)  # type: ignore[arg-type]
    assert caught.value.problems == (problem,)
    assert caught.value.origin == "scheduler config"


def test_bad_value_in_document_names_the_path_key_and_value() -> None:
    document = scheduler_document({"defaultPreemptMinRuntime": "1h2", "reclaimResolveMethod": "x"})
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(document)
    path = "scheduler config tiers[1].plugins[1].arguments"
    assert caught.value.origin == path
    assert caught.value.problems == (
        f"defaultPreemptMinRuntime: invalid duration '1h2': missing unit ({EXPECTED_FORM})",
        "reclaimResolveMethod: invalid value 'x' (expected 'lca' or 'queue')",
    )
    assert str(caught.value).startswith(f"invalid configuration in {path}: 2 problems:")


def test_bad_value_in_document_is_a_warning_in_lenient_mode() -> None:
    document = scheduler_document(
        {"defaultPreemptMinRuntime": "1h2", "defaultReclaimMinRuntime": "5m", "other": 1}
    )
    config = Config.from_scheduler_config(document, lenient=True)
    assert config.default_preempt_min_runtime == MinRuntime.ZERO
    assert config.default_reclaim_min_runtime == MinRuntime("5m")
    assert config.warnings == (
        f"unknown key 'other'{UNKNOWN_KEY_TAIL}",
        "defaultPreemptMinRuntime: invalid duration '1h2': "
        f"missing unit ({EXPECTED_FORM}); using the default 0s",
    )


def test_origin_of_the_document_prefixes_every_path() -> None:
    document = scheduler_document({"reclaimResolveMethod": "LCA"})
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(document, origin="ConfigMap kai/scheduler-config")
    assert caught.value.origin == "ConfigMap kai/scheduler-config tiers[1].plugins[1].arguments"
    assert str(caught.value) == (
        "invalid configuration in ConfigMap kai/scheduler-config tiers[1].plugins[1].arguments: "
        "reclaimResolveMethod: invalid value 'LCA' (expected 'lca' or 'queue')"
    )


# -- YAML text ------------------------------------------------------------------------------------

YAML_TEXT = """\
actions: allocate, preempt, reclaim
tiers:
- plugins:
  - name: proportion
  - name: minruntime
    arguments:
      defaultPreemptMinRuntime: 10m
      defaultReclaimMinRuntime: "-1"
      reclaimResolveMethod: queue
"""


class FakeYAMLError(Exception):
    """Stands in for yaml.YAMLError."""


def install_fake_import(monkeypatch: pytest.MonkeyPatch, yaml: object | None) -> list[str]:
    """Make ``importlib.import_module("yaml")`` return ``yaml`` (or fail when it is None)."""
    real = importlib.import_module
    asked: list[str] = []

    def fake(name: str, package: str | None = None) -> types.ModuleType:
        if name == "yaml":
            asked.append(name)
            if yaml is None:
                raise ModuleNotFoundError("No module named 'yaml'", name="yaml")
            return yaml  # type: ignore[return-value]
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)
    return asked


def test_yaml_text_without_pyyaml_tells_to_install_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked = install_fake_import(monkeypatch, None)
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(YAML_TEXT)
    assert asked == ["yaml"]
    assert caught.value.problems == (
        "the document is not JSON; reading YAML needs PyYAML: pip install PyYAML",
    )
    assert "pip install PyYAML" in str(caught.value)
    assert caught.value.origin == "scheduler config"


def test_json_text_does_not_need_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = install_fake_import(monkeypatch, None)
    assert_good(Config.from_scheduler_config(json.dumps(scheduler_document(GOOD_ARGUMENTS))))
    assert asked == []


def test_yaml_text_is_read_by_the_bounded_loader() -> None:
    """Config text goes through minruntime._load: an alias bomb is refused, not expanded."""
    pytest.importorskip("yaml")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(6)
    )
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config(bomb)
    assert caught.value.problems == (
        "not valid YAML: its aliases expand to more than 1000000 values (an alias bomb?)",
    )


def test_invalid_yaml_text_is_rejected() -> None:
    pytest.importorskip("yaml")
    with pytest.raises(InvalidConfiguration) as caught:
        Config.from_scheduler_config("a: b: c")
    assert caught.value.problems == (
        'not valid YAML: mapping values are not allowed here in "<unicode string>", '
        "line 1, column 5: a: b: c ^",
    )
    assert caught.value.origin == "scheduler config"


def test_yaml_text_with_real_pyyaml() -> None:
    pytest.importorskip("yaml")
    assert_good(Config.from_scheduler_config(YAML_TEXT))
    config_map = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scheduler-config\ndata:\n"
        "  config.yaml: |\n" + "".join(f"    {line}\n" for line in YAML_TEXT.splitlines())
    )
    assert_good(Config.from_scheduler_config(config_map))

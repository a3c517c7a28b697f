"""Node-pool configuration: default min-runtimes and the reclaim resolve method.

The settings come from the scheduler's ``minruntime`` plugin arguments, either as the argument
mapping itself (:meth:`Config.from_plugin_arguments`) or from the whole scheduler config
document (:meth:`Config.from_scheduler_config`). Reading is strict by default: a bad value
raises :class:`~minruntime.InvalidConfiguration` naming the key and the value. In lenient mode
(the reference scheduler's behaviour) a bad value is replaced by the default and a warning is
returned on the configuration's ``warnings``; nothing is ever printed.

>>> from minruntime import Config
>>> config = Config.from_plugin_arguments(
...     {"defaultReclaimMinRuntime": "10m", "reclaimResolveMethod": "queue"})
>>> config.default_reclaim_min_runtime, config.reclaim_resolve_method
(MinRuntime('10m'), 'queue')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal

import attrs

from minruntime._fields import read_min_runtime, reported
from minruntime._load import DocumentError, NoYAML, load_json, load_yaml
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidConfiguration, InvalidDuration
from minruntime.queues import ProtectionSettings
from minruntime.resources import GPU

__all__ = ["PLUGIN_NAME", "RESOLVE_METHODS", "Config", "find_scheduler_config"]


def __dir__() -> list[str]:
    return __all__


PLUGIN_NAME: Final = "minruntime"
"""The plugin's name in the scheduler config's ``tiers`` -> ``plugins`` list."""

RESOLVE_METHODS: Final = ("lca", "queue")
"""The valid values of ``reclaim_resolve_method``."""

ResolveMethod = Literal["lca", "queue"]

_KEYS: Final = {
    "defaultPreemptMinRuntime": "default_preempt_min_runtime",
    "defaultReclaimMinRuntime": "default_reclaim_min_runtime",
    "reclaimResolveMethod": "reclaim_resolve_method",
}
_PROTECTION_KEYS: Final = {
    "defaultPreemptCheckpointGrace": "preempt_checkpoint_grace",
    "defaultReclaimCheckpointGrace": "reclaim_checkpoint_grace",
    "defaultMaxEvictions": "max_evictions",
    "defaultEvictionWindow": "eviction_window",
    "defaultMaxJobMinRuntime": "max_job_min_runtime",
}
_BUILT_IN: Final[dict[str, object]] = {
    "preempt_checkpoint_grace": MinRuntime.ZERO,
    "reclaim_checkpoint_grace": MinRuntime.ZERO,
    "max_evictions": None,
    "eviction_window": MinRuntime.NEVER,
    "max_job_min_runtime": MinRuntime.ZERO,
}
"""The built-in node-pool defaults of the section 16 settings: every protection off."""
_NO_NEVER: Final = frozenset({"preempt_checkpoint_grace", "reclaim_checkpoint_grace"})


def _to_warnings(warnings: Iterable[str]) -> tuple[str, ...]:
    return tuple(warnings)


def _to_method(value: str) -> ResolveMethod:
    if value not in RESOLVE_METHODS:
        raise InvalidConfiguration(
            [f"reclaim_resolve_method: invalid value {value!r} (expected 'lca' or 'queue')"]
        )
    return value  # type: ignore[return-value]


def _a_resource_name(instance: object, field: attrs.Attribute[Any], value: object) -> None:
    if not isinstance(value, str) or not value:
        raise InvalidConfiguration(
            [f"cost_resource: expected a resource name such as 'nvidia.com/gpu', got {value!r:.60}"]
        )


def _to_protections(value: ProtectionSettings | None) -> ProtectionSettings:
    if value is None:
        return ProtectionSettings()
    if not isinstance(value, ProtectionSettings):
        raise InvalidConfiguration(
            [f"protections: expected a ProtectionSettings, got {type(value).__name__}"]
        )
    return value


@attrs.frozen(kw_only=True)
class Config:
    """The node-pool level settings.

    Args:
        default_preempt_min_runtime: used when no queue on the victim's path sets
            ``preempt_min_runtime``; default zero (no protection); may be never.
        default_reclaim_min_runtime: the same for reclaim.
        reclaim_resolve_method: ``"lca"`` (default) or ``"queue"``, exactly.
        protections: the node-pool defaults of the protections beyond min-runtime
            (docs/spec/beyond-min-runtime.md); an unset field takes the built-in default, which
            turns that protection off (grace zero, no eviction budget, requests ignored).
        cost_resource: the resource whose amount weighs a task's unsaved work
            (docs/spec/beyond-min-runtime.md): what a task holds of it, or 1 where it holds
            none; default ``"nvidia.com/gpu"`` (name TPU chips, say, for a TPU scheduler).
        warnings: what a lenient read replaced or ignored (empty when built directly).

    Raises:
        InvalidDuration: for a bad default, naming the field.
        InvalidConfiguration: for a resolve method other than ``"lca"`` or ``"queue"``, or a
            cost resource that is not a non-empty string.

    >>> Config(default_preempt_min_runtime="5m").default_preempt_min_runtime
    MinRuntime('5m')
    >>> Config(protections=ProtectionSettings(max_evictions=2)).has_protections
    True
    """

    default_preempt_min_runtime: MinRuntime = attrs.field(
        default=MinRuntime.ZERO, converter=read_min_runtime, validator=reported
    )
    default_reclaim_min_runtime: MinRuntime = attrs.field(
        default=MinRuntime.ZERO, converter=read_min_runtime, validator=reported
    )
    reclaim_resolve_method: ResolveMethod = attrs.field(default="lca", converter=_to_method)
    protections: ProtectionSettings = attrs.field(
        factory=ProtectionSettings, converter=_to_protections
    )
    cost_resource: str = attrs.field(default=GPU, validator=_a_resource_name)
    warnings: tuple[str, ...] = attrs.field(default=(), eq=False, converter=_to_warnings)
    _protected: bool = attrs.field(init=False, repr=False, eq=False)
    """:attr:`has_protections`, computed once (a config is immutable; every session asks)."""

    def __attrs_post_init__(self) -> None:
        protected = any(self.protection_default(name) != off for name, off in _BUILT_IN.items())
        object.__setattr__(self, "_protected", protected)

    def protection_default(self, name: str) -> Any:
        """The node-pool default of one section 16 setting (its field name on
        :class:`~minruntime.ProtectionSettings`): this config's value, else the built-in one.

        >>> Config().protection_default("eviction_window")
        MinRuntime('never')
        """
        value = getattr(self.protections, name)
        return _BUILT_IN[name] if value is None else value

    @property
    def has_protections(self) -> bool:
        """Whether a section 16 default turns a protection on (differs from the built-in).

        >>> Config(protections=ProtectionSettings(eviction_window="never")).has_protections
        False
        """
        return self._protected

    @classmethod
    def from_plugin_arguments(
        cls,
        arguments: Mapping[str, object] | None,
        *,
        lenient: bool = False,
        origin: str = "minruntime plugin arguments",
    ) -> Config:
        """Read the plugin-argument mapping (keys exactly as the scheduler spells them).

        Keys: ``defaultPreemptMinRuntime``, ``defaultReclaimMinRuntime`` (durations, ``-1`` or
        ``never`` for never) and ``reclaimResolveMethod`` (``lca`` or ``queue``); and the
        checkpoint-aware defaults of docs/spec/beyond-min-runtime.md:
        ``defaultPreemptCheckpointGrace``, ``defaultReclaimCheckpointGrace`` (durations),
        ``defaultMaxEvictions`` (an integer), ``defaultEvictionWindow`` and
        ``defaultMaxJobMinRuntime`` (durations or never). An absent key, a null value or an empty
        string takes the default. Unknown keys are ignored with a warning.

        Args:
            arguments: the mapping; ``None`` means no arguments.
            lenient: replace a bad value by its default and warn, instead of raising.
            origin: where the mapping came from, for messages.

        Raises:
            InvalidConfiguration: (strict mode) listing every bad key and value.

        >>> Config.from_plugin_arguments({"defaultPreemptMinRuntime": "1h"}).default_preempt_min_runtime
        MinRuntime('1h')
        >>> config = Config.from_plugin_arguments({"reclaimResolveMethod": "LCA"}, lenient=True)
        >>> config.reclaim_resolve_method, config.warnings
        ('lca', ("reclaimResolveMethod: invalid value 'LCA' (expected 'lca' or 'queue'); using the default 'lca'",))
        """
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise InvalidConfiguration(
                [f"expected a mapping of plugin arguments, got {type(arguments).__name__}"],
                origin=origin,
            )
        problems: list[str] = []
        warnings: list[str] = []
        values: dict[str, Any] = {}
        protections: dict[str, Any] = {}

        def bad(problem: str, default: str) -> None:
            if lenient:
                warnings.append(f"{problem}; using the default {default}")
            else:
                problems.append(problem)

        known = {**_KEYS, **_PROTECTION_KEYS}
        for key in sorted(arguments, key=str):
            if key not in known:
                warnings.append(f"unknown key {key!r} ignored (expected one of {sorted(known)})")
        for key, field in known.items():
            raw = arguments.get(key)
            if raw is None or raw == "":
                continue
            if field == "reclaim_resolve_method":
                if raw in RESOLVE_METHODS:
                    values[field] = raw
                else:
                    bad(f"{key}: invalid value {raw!r} (expected 'lca' or 'queue')", "'lca'")
                continue
            target = protections if key in _PROTECTION_KEYS else values
            if field == "max_evictions":
                count = (
                    int(raw)
                    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) < 19
                    else raw
                )
                if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                    bad(f"{key}: invalid value {raw!r} (expected an integer >= 0)", "unlimited")
                else:
                    target[field] = count
                continue
            try:
                target[field] = MinRuntime.parse(raw, allow_never=field not in _NO_NEVER)
            except InvalidDuration as error:
                bad(f"{key}: {error}", str(_BUILT_IN.get(field, MinRuntime.ZERO)))
        if problems:
            raise InvalidConfiguration(problems, origin=origin)
        return cls(**values, protections=ProtectionSettings(**protections), warnings=warnings)

    @classmethod
    def from_scheduler_config(
        cls,
        document: Mapping[str, Any] | str,
        *,
        lenient: bool = False,
        origin: str = "scheduler config",
    ) -> Config:
        """Read the settings from the scheduler's whole config document.

        The arguments are those of the entry ``name: minruntime`` in ``tiers`` -> ``plugins``.
        ``document`` is the parsed document (a mapping), its text as JSON (or YAML, when PyYAML
        is installed: ``pip install PyYAML``), or a ConfigMap object holding it
        under ``data``. A document without a ``minruntime`` plugin gives the defaults, with a
        warning.

        Raises:
            InvalidConfiguration: for a document of the wrong shape, or a bad value in strict
                mode; the message names the path in the document.

        >>> document = {"actions": "allocate, preempt, reclaim", "tiers": [{"plugins": [
        ...     {"name": "proportion"},
        ...     {"name": "minruntime", "arguments": {"defaultReclaimMinRuntime": "10m"}},
        ... ]}]}
        >>> Config.from_scheduler_config(document).default_reclaim_min_runtime
        MinRuntime('10m')
        """
        parsed = _load_document(document, origin)
        parsed, origin = _unwrap_config_map(parsed, origin)
        tiers = parsed.get("tiers")
        if tiers is None:
            tiers = []
        if not isinstance(tiers, list):
            raise InvalidConfiguration(
                [f"tiers: expected a list, got {type(tiers).__name__}"], origin=origin
            )
        found: list[tuple[str, Any]] = []
        for t, tier in enumerate(tiers):
            plugins = tier.get("plugins") if isinstance(tier, Mapping) else None
            if not isinstance(plugins, list):
                raise InvalidConfiguration(
                    [f"tiers[{t}].plugins: expected a list of plugins"], origin=origin
                )
            for p, plugin in enumerate(plugins):
                if isinstance(plugin, Mapping) and plugin.get("name") == PLUGIN_NAME:
                    found.append((f"tiers[{t}].plugins[{p}].arguments", plugin.get("arguments")))
        if not found:
            return cls(warnings=[f"no {PLUGIN_NAME!r} plugin in {origin}; using the defaults"])
        if len(found) > 1:
            places = ", ".join(path for path, _ in found)
            raise InvalidConfiguration(
                [f"the {PLUGIN_NAME!r} plugin appears more than once: {places}"], origin=origin
            )
        path, arguments = found[0]
        if arguments is not None and not isinstance(arguments, Mapping):
            raise InvalidConfiguration(
                [f"{path}: expected a mapping, got {type(arguments).__name__}"], origin=origin
            )
        return cls.from_plugin_arguments(arguments, lenient=lenient, origin=f"{origin} {path}")


def _load_document(document: Mapping[str, Any] | str, origin: str) -> Mapping[str, Any]:
    if isinstance(document, Mapping):
        return document
    if not isinstance(document, str):
        raise InvalidConfiguration(
            [f"expected a mapping or a document's text, got {type(document).__name__}"],
            origin=origin,
        )
    try:
        parsed = load_json(document)
    except DocumentError:
        parsed = _load_yaml(document, origin)
    if not isinstance(parsed, Mapping):
        raise InvalidConfiguration(
            [f"expected a mapping at the top of the document, got {type(parsed).__name__}"],
            origin=origin,
        )
    return parsed


def _load_yaml(text: str, origin: str) -> object:
    try:
        documents = load_yaml(text)  # bounded: depth, aliases, numbers (minruntime._load)
    except NoYAML:
        raise InvalidConfiguration(
            ["the document is not JSON; reading YAML needs PyYAML: pip install PyYAML"],
            origin=origin,
        ) from None
    except DocumentError as error:
        raise InvalidConfiguration([f"not valid YAML: {error}"], origin=origin) from None
    if len(documents) > 1:
        raise InvalidConfiguration(
            [f"expected one YAML document, found {len(documents)}"], origin=origin
        )
    return documents[0] if documents else None


def _unwrap_config_map(document: Mapping[str, Any], origin: str) -> tuple[Mapping[str, Any], str]:
    """A ConfigMap holds the config document as text under ``data``; read it from there."""
    if document.get("kind") != "ConfigMap":
        return document, origin
    found = find_scheduler_config(document, origin=origin)
    if found is None:
        raise InvalidConfiguration(
            ["ConfigMap data: no entry holds a scheduler config (a document with a tiers list)"],
            origin=origin,
        )
    field, parsed = found
    return parsed, f"{origin} {field}"


def _is_scheduler_config(document: object) -> bool:
    return isinstance(document, Mapping) and isinstance(document.get("tiers"), list)


def find_scheduler_config(
    obj: Mapping[str, Any], *, origin: str = "ConfigMap"
) -> tuple[str, Mapping[str, Any]] | None:
    """The scheduler config an object holds: ``(field, document)``, or ``None``.

    A bare scheduler config document (a mapping with a ``tiers`` list) is its own: field
    ``""``. A ConfigMap holds one in the entry of ``data`` whose text (JSON, or YAML with PyYAML)
    is such a document; other entries, and other objects, hold none. This is the one rule
    for where the scheduler config is: the snapshot reader (:mod:`minruntime.kube`) and
    :meth:`Config.from_scheduler_config` both ask it.

    Raises:
        InvalidConfiguration: for an entry that mentions ``tiers`` but cannot be read as a
            scheduler config (not JSON or YAML, out of bounds, or ``tiers`` not a list), or for
            two entries that hold one; ``origin`` names the object.

    >>> config_map = {"kind": "ConfigMap", "metadata": {"name": "scheduler-config"},
    ...               "data": {"notes": "hello", "config.yaml": '{"tiers": []}'}}
    >>> find_scheduler_config(config_map)
    ("data['config.yaml']", {'tiers': []})
    >>> find_scheduler_config({"kind": "ConfigMap", "data": {"notes": "hello"}}) is None
    True
    """
    if _is_scheduler_config(obj):
        return "", obj
    data = obj.get("data") if obj.get("kind") == "ConfigMap" else None
    if not isinstance(data, Mapping):
        return None
    found: list[tuple[str, Mapping[str, Any]]] = []
    for key, text in data.items():
        if not isinstance(text, str):
            continue
        field = f"data[{key!r}]" if isinstance(key, str) and len(key) <= 80 else "data[...]"
        error: DocumentError
        try:
            document: object = load_json(text)
        except DocumentError as json_error:
            try:
                documents = load_yaml(text)
                document = documents[0] if len(documents) == 1 else None
            except NoYAML:
                document, error = None, json_error
            except DocumentError as yaml_error:
                document, error = None, yaml_error
            else:
                error = DocumentError("not a single JSON or YAML document")
        else:
            error = DocumentError("not a scheduler config")
        if _is_scheduler_config(document):
            found.append((field, document))  # type: ignore[arg-type]
            continue
        if isinstance(document, Mapping) and "tiers" in document:
            error = DocumentError(f"tiers: expected a list, got {type(document['tiers']).__name__}")
        elif document is not None or "tiers" not in text:
            continue  # read, and not a scheduler config; or unreadable and not one either
        raise InvalidConfiguration(
            [f"looks like a scheduler config (it mentions 'tiers') but cannot be read: {error}"],
            origin=f"{origin} {field}",
        )
    if len(found) > 1:
        fields = ", ".join(field for field, _ in found)
        raise InvalidConfiguration(
            [f"more than one entry holds a scheduler config: {fields}"], origin=origin
        )
    return found[0] if found else None

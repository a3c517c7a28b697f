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

from minruntime._load import DocumentError, NoYAML, load_json, load_yaml
from minruntime.durations import MinRuntime, MinRuntimeInput
from minruntime.errors import InvalidConfiguration, InvalidDuration

__all__ = ["PLUGIN_NAME", "RESOLVE_METHODS", "Config"]

PLUGIN_NAME: Final = "minruntime"
"""The plugin's name in the scheduler config's ``tiers`` -> ``plugins`` list."""

RESOLVE_METHODS: Final = ("lca", "queue")
"""The valid values of ``reclaim_resolve_method``."""

ResolveMethod = Literal["lca", "queue"]

_KEYS: Final = {
    "defaultPreemptMinRuntime": "default_preempt_min_runtime",
    "defaultReclaimMinRuntime": "default_reclaim_min_runtime",
    "reclaimResolveMethod": "reclaim_resolve_method",
    "defaultPreemptCheckpointGrace": "default_preempt_checkpoint_grace",
    "defaultReclaimCheckpointGrace": "default_reclaim_checkpoint_grace",
    "defaultMaxEvictions": "default_max_evictions",
    "defaultEvictionWindow": "default_eviction_window",
    "defaultMaxJobMinRuntime": "default_max_job_min_runtime",
}

_EXTENSION_DEFAULTS: Final[dict[str, object]] = {
    "default_preempt_checkpoint_grace": MinRuntime.ZERO,
    "default_reclaim_checkpoint_grace": MinRuntime.ZERO,
    "default_max_evictions": None,
    "default_eviction_window": MinRuntime.NEVER,
    "default_max_job_min_runtime": MinRuntime.ZERO,
}
_NO_NEVER: Final = frozenset(
    {"default_preempt_checkpoint_grace", "default_reclaim_checkpoint_grace"}
)


@attrs.frozen(kw_only=True, init=False)
class Config:
    """The node-pool level min-runtime settings.

    Args:
        default_preempt_min_runtime: used when no queue on the victim's path sets
            ``preempt_min_runtime``; default zero (no protection); may be never.
        default_reclaim_min_runtime: the same for reclaim.
        reclaim_resolve_method: ``"lca"`` (default) or ``"queue"``, exactly.
        default_preempt_checkpoint_grace, default_reclaim_checkpoint_grace: the checkpoint grace
            when no queue sets one (BEHAVIOR.md section 16); default zero: off.
        default_max_evictions, default_eviction_window: the eviction budget when no queue sets
            one; default unlimited (``None``) within an unbounded window (never).
        default_max_job_min_runtime: the cap on a job's own min-runtime request when no queue
            sets one; default zero: requests are ignored.
        warnings: what a lenient read replaced or ignored (empty when built directly).

    Raises:
        InvalidDuration: for a bad default.
        InvalidConfiguration: for a resolve method other than ``"lca"`` or ``"queue"``.

    >>> Config(default_preempt_min_runtime="5m")
    Config(default_preempt_min_runtime=MinRuntime('5m'), default_reclaim_min_runtime=MinRuntime('0s'), reclaim_resolve_method='lca', warnings=())
    """

    default_preempt_min_runtime: MinRuntime = MinRuntime.ZERO
    default_reclaim_min_runtime: MinRuntime = MinRuntime.ZERO
    reclaim_resolve_method: ResolveMethod = "lca"
    default_preempt_checkpoint_grace: MinRuntime = MinRuntime.ZERO
    default_reclaim_checkpoint_grace: MinRuntime = MinRuntime.ZERO
    default_max_evictions: int | None = None
    default_eviction_window: MinRuntime = MinRuntime.NEVER
    default_max_job_min_runtime: MinRuntime = MinRuntime.ZERO
    warnings: tuple[str, ...] = attrs.field(default=(), eq=False)

    def __init__(
        self,
        *,
        default_preempt_min_runtime: MinRuntimeInput = MinRuntime.ZERO,
        default_reclaim_min_runtime: MinRuntimeInput = MinRuntime.ZERO,
        reclaim_resolve_method: str = "lca",
        default_preempt_checkpoint_grace: MinRuntimeInput = MinRuntime.ZERO,
        default_reclaim_checkpoint_grace: MinRuntimeInput = MinRuntime.ZERO,
        default_max_evictions: int | None = None,
        default_eviction_window: MinRuntimeInput = MinRuntime.NEVER,
        default_max_job_min_runtime: MinRuntimeInput = MinRuntime.ZERO,
        warnings: Iterable[str] = (),
    ) -> None:
        if reclaim_resolve_method not in RESOLVE_METHODS:
            raise InvalidConfiguration(
                [
                    f"reclaim_resolve_method: invalid value {reclaim_resolve_method!r} "
                    "(expected 'lca' or 'queue')"
                ]
            )
        if default_max_evictions is not None and (
            isinstance(default_max_evictions, bool)
            or not isinstance(default_max_evictions, int)
            or default_max_evictions < 0
        ):
            raise InvalidConfiguration(
                [
                    "default_max_evictions: expected an integer >= 0 or None, got "
                    f"{default_max_evictions!r}"
                ]
            )

        def duration(field: str, value: object, allow_never: bool = True) -> MinRuntime:
            return MinRuntime.parse(value, origin=f"Config {field}", allow_never=allow_never)

        self.__attrs_init__(
            default_preempt_min_runtime=duration(
                "default_preempt_min_runtime", default_preempt_min_runtime
            ),
            default_reclaim_min_runtime=duration(
                "default_reclaim_min_runtime", default_reclaim_min_runtime
            ),
            reclaim_resolve_method=reclaim_resolve_method,  # type: ignore[arg-type]
            default_preempt_checkpoint_grace=duration(
                "default_preempt_checkpoint_grace", default_preempt_checkpoint_grace, False
            ),
            default_reclaim_checkpoint_grace=duration(
                "default_reclaim_checkpoint_grace", default_reclaim_checkpoint_grace, False
            ),
            default_max_evictions=default_max_evictions,
            default_eviction_window=duration("default_eviction_window", default_eviction_window),
            default_max_job_min_runtime=duration(
                "default_max_job_min_runtime", default_max_job_min_runtime
            ),
            warnings=tuple(warnings),
        )

    def __repr__(self) -> str:
        # The checkpoint-aware defaults (BEHAVIOR.md section 16) are shown only when changed.
        shown = [
            f"default_preempt_min_runtime={self.default_preempt_min_runtime!r}",
            f"default_reclaim_min_runtime={self.default_reclaim_min_runtime!r}",
            f"reclaim_resolve_method={self.reclaim_resolve_method!r}",
        ]
        shown += [
            f"{field}={getattr(self, field)!r}"
            for field, default in _EXTENSION_DEFAULTS.items()
            if getattr(self, field) != default
        ]
        shown.append(f"warnings={self.warnings!r}")
        return f"Config({', '.join(shown)})"

    @property
    def has_extensions(self) -> bool:
        """Whether any checkpoint-aware default (BEHAVIOR.md section 16) differs from off."""
        return any(
            getattr(self, field) != default for field, default in _EXTENSION_DEFAULTS.items()
        )

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
        checkpoint-aware defaults of BEHAVIOR.md section 16: ``defaultPreemptCheckpointGrace``,
        ``defaultReclaimCheckpointGrace`` (durations), ``defaultMaxEvictions`` (an integer),
        ``defaultEvictionWindow`` and ``defaultMaxJobMinRuntime`` (durations or never). An
        absent key, a null value or an empty string takes the default. Unknown keys are ignored
        with a warning.

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

        def bad(problem: str, default: str) -> None:
            if lenient:
                warnings.append(f"{problem}; using the default {default}")
            else:
                problems.append(problem)

        for key in sorted(arguments, key=str):
            if key not in _KEYS:
                warnings.append(f"unknown key {key!r} ignored (expected one of {sorted(_KEYS)})")
        for key, field in _KEYS.items():
            raw = arguments.get(key)
            if raw is None or raw == "":
                continue
            if field == "reclaim_resolve_method":
                if raw in RESOLVE_METHODS:
                    values[field] = raw
                else:
                    bad(f"{key}: invalid value {raw!r} (expected 'lca' or 'queue')", "'lca'")
                continue
            if field == "default_max_evictions":
                try:
                    count = (
                        int(raw)
                        if isinstance(raw, str) and raw.isascii() and raw.isdigit()
                        else raw
                    )
                    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                        raise ValueError
                    values[field] = count
                except ValueError:
                    bad(f"{key}: invalid value {raw!r} (expected an integer >= 0)", "unlimited")
                continue
            try:
                values[field] = MinRuntime.parse(raw, allow_never=field not in _NO_NEVER)
            except InvalidDuration as error:
                default = _EXTENSION_DEFAULTS.get(field, MinRuntime.ZERO)
                bad(f"{key}: {error}", str(default))
        if problems:
            raise InvalidConfiguration(problems, origin=origin)
        return cls(**values, warnings=warnings)

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
    data = document.get("data")
    if not isinstance(data, Mapping) or len(data) != 1:
        raise InvalidConfiguration(
            ["ConfigMap data: expected exactly one entry holding the scheduler config"],
            origin=origin,
        )
    ((key, text),) = data.items()
    inner = f"{origin} data[{key!r}]"
    return _load_document(text, inner), inner

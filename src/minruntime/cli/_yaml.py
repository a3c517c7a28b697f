"""The YAML output of ``minruntime explain`` (``-o yaml``): the JSON document, as YAML.

PyYAML is an optional dependency (the ``yaml`` extra); without it, ``-o yaml`` is an error that
says how to install it, given before the snapshot is read. The hint names PyYAML itself and the
extra from a clone, never ``minruntime[yaml]`` from a package index, where the name is not this
project's (whatever a stranger published under it would be installed).

>>> print(yaml_text({"schema": "minruntime.explain/v4", "now": "2026-11-22T12:00:00Z",
...                  "jobs": [{"id": "ml/train", "preemptibility": "no"}], "plans": None}), end="")
schema: minruntime.explain/v4
now: '2026-11-22T12:00:00Z'
jobs:
- id: ml/train
  preemptibility: 'no'
plans: null
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Final

from minruntime.cli._arguments import UsageError

__all__ = ["check_yaml", "yaml_text"]

_NO_WRAP: Final = 1 << 30
"""The emitter's line width: long strings stay on one line, as in the JSON document."""


def check_yaml() -> ModuleType:
    """The ``yaml`` module (PyYAML).

    Raises:
        UsageError: when PyYAML is not installed; the message names the extra to install.

    >>> check_yaml().__name__
    'yaml'
    """
    try:
        return importlib.import_module("yaml")
    except ModuleNotFoundError as error:
        if error.name != "yaml":  # a module PyYAML itself lacks: not ours to explain
            raise
        raise UsageError(
            "-o yaml needs PyYAML, which is not installed: pip install PyYAML (the yaml extra: "
            'pip install ".[yaml]" in a clone of the repository), or use -o json'
        ) from None


def yaml_text(data: Any) -> str:
    """``data`` (JSON data) as a YAML document: keys in their order, block style, every
    non-ASCII or control character escaped (as the JSON output does), and any string YAML would
    read as something else (``'no'``, a time, a number) quoted, so that ``yaml.safe_load`` gives
    ``data`` back.

    >>> yaml_text({"evictable": [], "rank": 1, "unsavedWork": 0.5, "name": "caf\\u00e9"})
    'evictable: []\\nrank: 1\\nunsavedWork: 0.5\\nname: "caf\\\\xE9"\\n'
    """
    yaml = check_yaml()
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's, where it is built
    text: str = yaml.dump(
        data,
        Dumper=dumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=False,
        width=_NO_WRAP,
    )
    return text

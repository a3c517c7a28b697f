"""Every docstring example in the package runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import minruntime
import minruntime.cli
import minruntime.kube

MODULES = sorted(
    ["minruntime"]
    + [f"minruntime.{info.name}" for info in pkgutil.iter_modules(minruntime.__path__)]
    + [
        info.name
        for package in (minruntime.cli, minruntime.kube)
        for info in pkgutil.iter_modules(package.__path__, prefix=f"{package.__name__}.")
    ]
)


@pytest.mark.usefixtures("few_examples")
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_every_public_name_has_a_docstring() -> None:
    missing = [
        name
        for name in minruntime.__all__
        if not isinstance(getattr(minruntime, name), (int, str, frozenset, dict))
        and not (getattr(minruntime, name).__doc__ or "").strip()
    ]
    assert missing == []

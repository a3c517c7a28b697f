"""The simulator as a distribution of its own: its docstring examples run, it stands apart from
the policy library (``import minruntime`` never imports it), and ``minruntime simulate`` hands
over to it."""

from __future__ import annotations

import doctest
import importlib
import io
import pkgutil
import subprocess
import sys

import pytest

import minruntime_sim
from minruntime.cli import main as minruntime_main

MODULES = sorted(
    ["minruntime_sim"]
    + [f"minruntime_sim.{info.name}" for info in pkgutil.iter_modules(minruntime_sim.__path__)]
)


def test_the_modules_are_the_simulators() -> None:
    assert MODULES == [
        "minruntime_sim",
        "minruntime_sim.cli",
        "minruntime_sim.errors",
        "minruntime_sim.metrics",
        "minruntime_sim.model",
        "minruntime_sim.scheduler",
        "minruntime_sim.sweep",
        "minruntime_sim.synthetic",
        "minruntime_sim.traces",
    ]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_every_public_name_has_a_docstring_with_an_example() -> None:
    missing = [
        name
        for name in minruntime_sim.__all__
        if name != "__version__" and ">>> " not in (getattr(minruntime_sim, name).__doc__ or "")
    ]
    assert missing == []


def test_importing_the_library_does_not_import_the_simulator() -> None:
    code = "import sys, minruntime, minruntime.cli; print(sorted(m for m in sys.modules if 'sim' in m))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def test_minruntime_simulate_hands_over_to_minruntime_sim() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert minruntime_main(["simulate", "--help"], stdout=out, stderr=err) == 0
    assert out.getvalue().startswith("usage: minruntime-sim [-h]")
    assert err.getvalue() == ""

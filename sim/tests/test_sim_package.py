"""The simulator as a distribution of its own: its docstring examples run, it stands apart from
the policy library (``import minruntime`` never imports it), and ``minruntime simulate`` hands
over to it."""

from __future__ import annotations

import ast
import doctest
import importlib
import io
import pathlib
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
        "minruntime_sim.costs",
        "minruntime_sim.errors",
        "minruntime_sim.metrics",
        "minruntime_sim.model",
        "minruntime_sim.placement",
        "minruntime_sim.plots",
        "minruntime_sim.quotas",
        "minruntime_sim.scheduler",
        "minruntime_sim.sweep",
        "minruntime_sim.synthetic",
        "minruntime_sim.traces",
        "minruntime_sim.uncertainty",
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


def _imports_from_minruntime() -> list[tuple[str, str, str]]:
    """(file, module, name) for every import of the policy library in the simulator's source."""
    found: list[tuple[str, str, str]] = []
    for path in sorted(pathlib.Path(minruntime_sim.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minruntime"):
                module = node.module or ""
                found.extend((path.name, module, alias.name) for alias in node.names)
            elif isinstance(node, ast.Import):
                found.extend(
                    (path.name, alias.name, "")
                    for alias in node.names
                    if alias.name.split(".")[0] == "minruntime"
                )
    return found


def test_the_simulator_uses_only_the_librarys_public_names() -> None:
    """Only public names: ``from minruntime import NAME`` with NAME in ``minruntime.__all__``, or
    a name in the ``__all__`` of a public module (no ``_private`` module, no engine); nor the
    Session's job facts (it owns its jobs)."""
    imports = _imports_from_minruntime()
    library = [entry for entry in imports if entry[1].split(".")[0] == "minruntime"]
    for file, module, name in library:
        assert not any(part.startswith("_") for part in module.split(".")), (file, module)
        assert name in importlib.import_module(module).__all__, (file, module, name)
    assert sorted({(module, name) for _, module, name in library}) == [
        ("minruntime", "Action"),
        ("minruntime", "Config"),
        ("minruntime", "JobInputs"),
        ("minruntime", "MinRuntime"),
        ("minruntime", "Preemptibility"),
        ("minruntime", "ProtectionSettings"),
        ("minruntime", "Queue"),
        ("minruntime", "QueueTree"),
        ("minruntime", "Resources"),
        ("minruntime", "Session"),
        ("minruntime", "TaskStatus"),
        ("minruntime.preemptibility", "LEGACY_PRIORITY_THRESHOLD"),
    ]
    source = "".join(
        path.read_text(encoding="utf-8")
        for path in pathlib.Path(minruntime_sim.__file__).parent.glob("*.py")
    )
    assert ".facts(" not in source
    assert "JobFacts" not in source

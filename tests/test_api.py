"""The public surface is a decision, pinned here: its names, where each is defined, that each has
a docstring with an example, and what ``import minruntime`` does not import."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from tests.world import CYCLE, PUBLIC_MODULES, SESSION

import minruntime

PUBLIC = {
    "Action": "minruntime.decisions",
    "Config": "minruntime.config",
    "Cycle": "minruntime.session",
    "Verdict": "minruntime.decisions",
    "FOREVER": None,
    "Failure": "minruntime.decisions",
    "FailureKind": "minruntime.decisions",
    "InvalidConfiguration": "minruntime.errors",
    "InvalidDuration": "minruntime.errors",
    "InvalidJob": "minruntime.errors",
    "InvalidObject": "minruntime.errors",
    "InvalidPreemptibility": "minruntime.errors",
    "InvalidQueueTree": "minruntime.errors",
    "InvalidResources": "minruntime.errors",
    "InvalidScenario": "minruntime.errors",
    "InvalidSnapshot": "minruntime.errors",
    "InvalidTimestamp": "minruntime.errors",
    "Job": "minruntime.jobs",
    "JobInputs": "minruntime.jobs",
    "JobLike": "minruntime.jobs",
    "MinRuntime": "minruntime.durations",
    "MinRuntimeError": "minruntime.errors",
    "Owner": "minruntime.preemptibility",
    "Plan": "minruntime.decisions",
    "PlanConflict": "minruntime.errors",
    "PodSet": "minruntime.jobs",
    "PodSetLike": "minruntime.jobs",
    "Preemptibility": "minruntime.preemptibility",
    "PreemptibilityResult": "minruntime.preemptibility",
    "PreemptibilitySource": "minruntime.preemptibility",
    "ProtectionKind": "minruntime.decisions",
    "ProtectionStatus": "minruntime.decisions",
    "ProtectionSettings": "minruntime.queues",
    "Queue": "minruntime.queues",
    "QueueTree": "minruntime.queues",
    "Reason": "minruntime.decisions",
    "Resolution": "minruntime.decisions",
    "Resources": "minruntime.resources",
    "ScenarioResult": "minruntime.decisions",
    "Session": "minruntime.session",
    "SessionStats": "minruntime.session",
    "SubGroup": "minruntime.jobs",
    "SubGroupLike": "minruntime.jobs",
    "Task": "minruntime.jobs",
    "TaskLike": "minruntime.jobs",
    "TaskStatus": "minruntime.jobs",
    "UnknownJob": "minruntime.errors",
    "UnknownQueue": "minruntime.errors",
    "determine_preemptibility": "minruntime.preemptibility",
    "format_start_time": "minruntime.starttime",
    "parse_start_time": "minruntime.starttime",
    "stamp_last_eviction": "minruntime.starttime",
    "stamp_start_time": "minruntime.starttime",
}
"""Every name of the facade and the public module that defines it (``None``: a constant)."""


def test_the_session_and_the_cycle_answer_exactly_the_pinned_questions() -> None:
    def public(cls: type) -> list[str]:
        return sorted(name for name in dir(cls) if not name.startswith("_"))

    assert public(minruntime.Session) == SESSION
    assert public(minruntime.Cycle) == CYCLE


def test_the_facade_is_exactly_the_pinned_names() -> None:
    assert sorted(minruntime.__all__) == sorted(PUBLIC)
    assert minruntime.__all__ == sorted(minruntime.__all__, key=lambda n: (not n.isupper(), n))


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_public_name_is_defined_in_a_public_module(name: str) -> None:
    value = getattr(minruntime, name)
    module = PUBLIC[name]
    if module is None:
        assert not inspect.isclass(value)
        assert not inspect.isfunction(value)
        return
    assert value.__module__ == module
    assert not any(part.startswith("_") for part in module.split("."))


@pytest.mark.parametrize("name", sorted(name for name, module in PUBLIC.items() if module))
def test_each_public_name_has_a_docstring_with_an_example(name: str) -> None:
    value = getattr(minruntime, name)
    doc = inspect.getdoc(value) or ""
    if not doc.strip():
        pytest.fail(f"{name} has no docstring")
    module = importlib.import_module(PUBLIC[name])  # type: ignore[arg-type]
    # an example on the name itself, or (for small values and protocols) in its module's docs
    assert ">>>" in doc or ">>>" in (module.__doc__ or ""), name


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_each_public_module_has_all_and_dir(module_name: str) -> None:
    module: ModuleType = importlib.import_module(module_name)
    names = module.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n)) or names == sorted(names)
    assert all(hasattr(module, name) for name in names)
    assert set(names) <= set(dir(module))
    assert not any(name.startswith("_") for name in names)


def test_the_facade_dir_is_its_public_names() -> None:
    assert sorted(dir(minruntime)) == sorted([*minruntime.__all__, "__version__"])


def test_engine_names_are_not_on_the_facade() -> None:
    for engine in ("JobFacts", "Resolver", "judge", "is_protected", "protected_until", "resolve"):
        assert not hasattr(minruntime, engine), engine


def test_import_minruntime_does_not_import_hypothesis_the_simulator_or_the_reader() -> None:
    code = (
        "import sys, minruntime; "
        "print(sorted(m for m in ('hypothesis', 'minruntime.kube', 'minruntime.testing', "
        "'minruntime.sim', 'minruntime_sim', 'minruntime.cli', 'yaml') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_version_is_the_distributions() -> None:
    """``minruntime.__version__`` is the version the distribution is built with."""
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{minruntime.__version__}"' in text

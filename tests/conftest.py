"""Hypothesis profiles (``MINRUNTIME_HYPOTHESIS=thorough`` for many more examples; documentation
examples run few), and a line in the summary for each reason some tests did not run.

The shared fixtures and builders are in :mod:`tests.world`; the data the tests read is in
``tests/data/`` (see its README).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis times its input generation by the wall clock: with the tests in parallel (and a
# busy machine) that measures the neighbours, so the too-slow health check is off; the
# suite's own time is what is watched.
settings.register_profile(
    "default", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("examples", max_examples=10, deadline=None)
PROFILE = os.environ.get("MINRUNTIME_HYPOTHESIS", "default")
settings.load_profile(PROFILE)


@pytest.fixture
def few_examples() -> Iterator[None]:
    """A documentation example's ``@given`` runs 10 examples: it shows how, the property tests
    test. The profile is restored after the test."""
    settings.load_profile("examples")
    try:
        yield
    finally:
        settings.load_profile(PROFILE)


def skip_reason(report: pytest.TestReport) -> str:
    """The reason a skipped test gave (``pytest.skip(reason)``, a skip mark), without the prefix."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how many tests did not run and why, one line per reason, even under ``-q``."""
    reports = terminalreporter.stats.get("skipped", [])
    reasons = Counter(skip_reason(report) for report in reports)
    for reason, count in sorted(reasons.items()):
        noun = "test" if count == 1 else "tests"
        terminalreporter.write_line(f"not run: {count} {noun}: {reason}", yellow=True)

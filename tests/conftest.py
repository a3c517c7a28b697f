"""Shared fixtures and the hypothesis profiles (MINRUNTIME_HYPOTHESIS=thorough for more examples)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("MINRUNTIME_HYPOTHESIS", "default"))


KAI_OBJECTS = Path(__file__).resolve().parents[2] / "shared" / "kai-objects"


@pytest.fixture(scope="module")
def kai_objects() -> Path:
    """The reference scheduler's CRD schemas and sample objects, beside the repository; the
    tests that need them skip without them."""
    if not KAI_OBJECTS.is_dir():
        pytest.skip(
            f"the reference objects folder {KAI_OBJECTS} is absent (it sits beside the repo)"
        )
    return KAI_OBJECTS

"""Shared fixtures and the hypothesis profiles (MINRUNTIME_HYPOTHESIS=thorough for more examples)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile(
    "thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("MINRUNTIME_HYPOTHESIS", "default"))

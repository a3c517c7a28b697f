"""The simulator's tests: the same hypothesis profiles as the library's own tests
(``MINRUNTIME_HYPOTHESIS=thorough`` for many more examples)."""

from __future__ import annotations

import os

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
settings.load_profile(os.environ.get("MINRUNTIME_HYPOTHESIS", "default"))

"""The errors the simulator raises: its own, apart from the policy library's.

:class:`SimError` is the base. It does **not** derive from :class:`minruntime.MinRuntimeError`,
so a scheduler's ``except MinRuntimeError`` never swallows a simulator bug, and a simulator
bug is never mistaken for a policy refusal. Each subclass also derives from the builtin it
means, so ``except ValueError`` keeps working for bad input.

>>> from minruntime import MinRuntimeError
>>> from minruntime_sim import InvalidSetting, Settings
>>> try:
...     Settings(reclaim_min_runtime="soon")
... except InvalidSetting as error:
...     print(error)
...     print(isinstance(error, MinRuntimeError), isinstance(error, ValueError))
invalid duration 'soon' in Settings reclaim_min_runtime: ...
False True
"""

from __future__ import annotations

__all__ = ["InvalidResults", "InvalidSetting", "InvalidTrace", "SimError", "SimulationError"]


class SimError(Exception):
    """Base class of every error the simulator raises (not a ``MinRuntimeError``).

    >>> from minruntime_sim import SimError, load_trace
    >>> try:
    ...     load_trace("no-such-trace.csv")
    ... except SimError as error:
    ...     type(error).__name__
    'InvalidTrace'
    """


class SimulationError(SimError, AssertionError):
    """An invariant of the simulation broke: a bug in the simulator or in the library.

    Raised when capacity is exceeded, when a task outside ``Session.evictable_tasks`` would be
    evicted, or when an eviction plan fails ``Session.validate``. The message names the job, the
    time and the numbers.

    >>> issubclass(SimulationError, AssertionError)
    True
    """


class InvalidTrace(SimError, ValueError):
    """A trace or workload that cannot be simulated; the message names the file, row and value.

    >>> from minruntime_sim import JobSpec
    >>> JobSpec(id="j", queue="q", submit=0, run_time=0, gpus=1)
    Traceback (most recent call last):
    ...
    minruntime_sim.errors.InvalidTrace: job 'j': run_time must be an integer >= 1, got 0
    """


class InvalidSetting(SimError, ValueError):
    """A run setting that cannot be used; the message names the setting, the value and the
    expected form.

    >>> from minruntime_sim import Settings
    >>> Settings(restart_overhead=-1)
    Traceback (most recent call last):
    ...
    minruntime_sim.errors.InvalidSetting: restart_overhead must be seconds >= 0, got -1
    """


class InvalidResults(SimError, ValueError):
    """A results file (written by ``--json``) that cannot be read back; the message names the
    file and what is wrong.

    >>> from minruntime_sim.uncertainty import read_results
    >>> read_results('{"runs": 3}', origin="old.json")
    Traceback (most recent call last):
    ...
    minruntime_sim.errors.InvalidResults: old.json: not a results file of minruntime-sim --json (expected "runs" or "settings" as a list, with "workload"): 'runs' is not a list
    """

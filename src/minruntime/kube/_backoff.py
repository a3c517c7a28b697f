"""The reference scheduler's failed-search backoff: ``scenarioSearchBudgets`` of its
SchedulingShard's ``spec`` or of its scheduler configuration (private; re-exported by the
package).

What the reference does with it (its scenario-search solver, 2026): after a search for a
pending job that exhausted its scenarios without a solution, it waits before it searches for
that job again with the same action, from ``minFailedSearchBackoff`` up to
``maxFailedSearchBackoff``; a solved search ends the wait. Each field maps an action name
(``preempt``, ``reclaim``, ``consolidation``) or ``default`` (for any action without its own)
to a Go duration. A minimum of zero (or none) means no backoff for that action; the maximum
defaults to the minimum and is never below it. One invalid value (not a duration, negative)
in either field makes the reference log an error and apply no backoff at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import attrs

from minruntime._text import shown
from minruntime.decisions import Action
from minruntime.durations import MinRuntime
from minruntime.errors import InvalidDuration
from minruntime.kube._fields import Object, misspelt_fields, object_name
from minruntime.kube._problems import Problem, ProblemKind, _clipped, _problem

__all__ = ["BUDGET_FIELDS", "SearchBackoff", "read_search_backoff"]

BUDGET_FIELDS: Final = frozenset(
    {
        "maxActionSearchDuration",
        "maxGeneratorSearchDuration",
        "maxJobSearchDuration",
        "minJobSearchDuration",
        "minFailedSearchBackoff",
        "maxFailedSearchBackoff",
    }
)
"""The fields of ``scenarioSearchBudgets``; a near miss of one is warned about."""
_DEFAULT: Final = "default"
_IGNORED: Final = "ignored (the reference scheduler then applies no failed-search backoff)"


@attrs.frozen
class SearchBackoff:
    """The reference scheduler's failed-search backoff for one action: after a search for a
    pending job found no scenario, the scheduler waits from ``minimum`` up to ``maximum``
    before it searches for that job again (``maximum >= minimum > 0``).

    So a retry time is the earliest the job can be placed; the scheduler may wait up to
    ``maximum`` after it before it searches again.

    >>> from minruntime import Action
    >>> from minruntime.kube import read_snapshot
    >>> snapshot = read_snapshot([{"apiVersion": "kai.scheduler/v1", "kind": "SchedulingShard",
    ...     "metadata": {"name": "default"}, "spec": {"scenarioSearchBudgets": {
    ...         "minFailedSearchBackoff": {"default": "10s", "reclaim": "30s"},
    ...         "maxFailedSearchBackoff": {"default": "5m"}}}}])
    >>> snapshot.search_backoff[Action.RECLAIM]
    SearchBackoff(minimum=MinRuntime('30s'), maximum=MinRuntime('5m'))
    >>> str(snapshot.search_backoff[Action.PREEMPT].maximum)
    '5m'
    """

    minimum: MinRuntime
    maximum: MinRuntime


def read_search_backoff(
    obj: Object, path: str, budgets: object, problems: list[Problem]
) -> Mapping[Action, SearchBackoff] | None:
    """The backoff of each action (preempt, reclaim) that has one, from ``budgets``, the
    ``scenarioSearchBudgets`` at ``path`` of ``obj``; ``None`` when it sets none.

    A value that cannot be read (not a mapping of durations, a negative duration) is a problem
    naming the object, the field and the value, and then no backoff is read, as the reference
    applies none.
    """
    if budgets is None:
        return None
    where = object_name(obj) if obj.get("kind") else "scheduler config document"
    if type(budgets) is not dict:
        problems.append(
            _problem(
                ProblemKind.IGNORED,
                obj,
                path,
                f"{where} {path}: expected an object, got {shown(budgets)[:60]}",
                "ignored",
            )
        )
        return None
    problems.extend(misspelt_fields(obj, path, budgets, BUDGET_FIELDS))
    bounds: dict[str, dict[str, MinRuntime]] = {}
    for key in ("minFailedSearchBackoff", "maxFailedSearchBackoff"):
        field = f"{path}.{key}"
        values = budgets.get(key)
        if values is None:
            bounds[key] = {}
            continue
        if type(values) is not dict:
            detail = f"{where} {field}: expected an object of durations by action, got "
            problems.append(
                _problem(ProblemKind.IGNORED, obj, field, detail + shown(values)[:60], _IGNORED)
            )
            return None
        read: dict[str, MinRuntime] = {}
        for action, text in values.items():
            entry = f"{field}[{_clipped(shown(action))}]"
            try:
                if type(text) is not str:
                    raise InvalidDuration(f"expected a duration string, got {shown(text)[:60]}")
                read[action] = MinRuntime.parse(text, allow_never=False)
            except InvalidDuration as error:
                problems.append(
                    _problem(ProblemKind.IGNORED, obj, entry, f"{where} {entry}: {error}", _IGNORED)
                )
                return None
        bounds[key] = read
    found: dict[Action, SearchBackoff] = {}
    for action in (Action.PREEMPT, Action.RECLAIM):
        lowest, highest = (
            values.get(action.value, values.get(_DEFAULT))
            for values in (bounds["minFailedSearchBackoff"], bounds["maxFailedSearchBackoff"])
        )
        if lowest:  # none, or zero: no backoff for this action
            found[action] = SearchBackoff(lowest, max(lowest, highest or lowest))
    return found or None

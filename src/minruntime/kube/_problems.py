"""What reading a snapshot could not use, as values (private; re-exported by the package).

A snapshot of thousands of objects holds a few that are malformed. The reader leaves such an
object out, or ignores such a field, and records a :class:`Problem` naming it, so that a
program can act on it (count, filter, refuse) and the command can say it
(``docs/spec/kubernetes.md``: one bad object never hides the rest).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs

from minruntime._text import shown
from minruntime.errors import InvalidSnapshot

__all__ = ["REFUSED", "ObjectRef", "Problem", "ProblemKind", "refuse"]


class ProblemKind(enum.Enum):
    """What the reader did about a problem.

    >>> ProblemKind.LEFT_OUT.value
    'left out'
    """

    LEFT_OUT = "left out"
    """The object cannot be read at all; it is not in the snapshot."""
    IGNORED = "ignored"
    """A field's value cannot be used; the object is read without it."""
    ASSUMED = "assumed"
    """Read under a stated assumption (a missing ``apiVersion``, the default configuration)."""
    SUSPECT = "suspect"
    """Read as given, but probably not what was meant (a time after now, a near-miss field)."""
    INCOMPLETE = "incomplete"
    """Read without something it depends on (a pod group that lost a pod left out)."""


def _clipped(part: object) -> str:
    text = part if isinstance(part, str) else shown(part)
    return text if len(text) <= 80 else f"{text[:60]}...({len(text)} characters)"


@attrs.frozen(kw_only=True)
class ObjectRef:
    """An object as a problem names it: ``Kind/namespace/name`` (``Kind/name`` when it has no
    namespace). Parts are clipped to 80 characters.

    >>> str(ObjectRef(kind="Pod", namespace="ml", name="train-0"))
    'Pod/ml/train-0'
    >>> str(ObjectRef.of({"kind": "Queue", "metadata": {"name": "team"}}))
    'Queue/team'
    """

    kind: str
    namespace: str = ""
    name: str

    @classmethod
    def of(cls, obj: object) -> ObjectRef:
        """The reference of an object as read (any value: a non-mapping is named by its type)."""
        if type(obj) is not dict and not isinstance(obj, Mapping):  # a dict: no ABC check
            return cls(kind=type(obj).__name__, name="<not an object>")
        kind = obj.get("kind") or "object"
        metadata = obj.get("metadata")
        if type(metadata) is not dict and not isinstance(metadata, Mapping):
            return cls(kind=_clipped(kind), name="")
        namespace = metadata.get("namespace")
        name = metadata.get("name")
        return cls(
            kind=_clipped(kind),
            namespace=_clipped(namespace) if namespace else "",
            name=_clipped(name) if name else "<unnamed>",
        )

    def __str__(self) -> str:
        if not self.name and not self.namespace:  # an object without metadata
            return self.kind
        if self.namespace:
            return f"{self.kind}/{self.namespace}/{self.name}"
        return f"{self.kind}/{self.name}"


REFUSED: Final = "the snapshot is refused (strict reading)"
"""What strict reading does about any problem: the end of a problem's :attr:`Problem.message`
under strict reading, in place of what lenient reading does."""


@attrs.frozen(kw_only=True)
class Problem:
    """One thing reading a snapshot could not use, and what it did instead.

    Attributes:
        kind: what lenient reading does (:class:`ProblemKind`); strict reading refuses the
            snapshot instead.
        object: the object it is about, or ``None`` (the input or the configuration).
        field: the field path, for example ``"spec.minMember"``, or ``None``.
        detail: what is wrong, naming the object, the field and the value.
        outcome: what lenient reading does about it (``"ignored"``, ``"left out"``,
            ``"counted as 0"`` ...), or ``""`` where ``detail`` says it.
        strict: whether strict reading met it (``read_snapshot(..., strict=True)``, the
            command's ``--strict``): then its message says that the snapshot is refused, not
            what lenient reading would have done.

    ``message``, ``str()`` of the problem, is the sentence an operator reads: the detail, then
    the outcome (or, under strict reading, :data:`REFUSED`).

    >>> from minruntime.kube import read_snapshot
    >>> snapshot = read_snapshot([
    ...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
    ...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"namespace": "ml"}, "spec": {"queue": "q"}},
    ... ])
    >>> [problem] = [p for p in snapshot.problems if p.kind is ProblemKind.LEFT_OUT]
    >>> problem.kind, str(problem.object), problem.field
    (<ProblemKind.LEFT_OUT: 'left out'>, 'PodGroup/ml/<unnamed>', 'metadata.name')
    >>> print(problem)
    PodGroup/ml/<unnamed> metadata.name: missing (required); left out
    >>> print(problem.under_strict())
    PodGroup/ml/<unnamed> metadata.name: missing (required); the snapshot is refused (strict reading)
    """

    kind: ProblemKind
    object: ObjectRef | None = None
    field: str | None = None
    detail: str
    outcome: str = ""
    strict: bool = False

    @property
    def message(self) -> str:
        """The sentence an operator reads: the detail, then what reading does about it."""
        outcome = REFUSED if self.strict else self.outcome
        return f"{self.detail}; {outcome}" if outcome else self.detail

    def under_strict(self) -> Problem:
        """The problem as strict reading reports it: its message says the snapshot is refused.

        >>> print(Problem(kind=ProblemKind.IGNORED, detail="Queue/q spec.x: bad",
        ...               outcome="ignored").under_strict())
        Queue/q spec.x: bad; the snapshot is refused (strict reading)
        """
        return self if self.strict else attrs.evolve(self, strict=True)

    def __str__(self) -> str:
        return self.message


def refuse(problems: Iterable[Problem], *, what: str = "the snapshot") -> None:
    """Raise :class:`~minruntime.InvalidSnapshot` listing ``problems`` as strict reading
    reports them (:meth:`Problem.under_strict`), if there are any (the reader's ``strict``
    option)."""
    listed = tuple(problem.under_strict() for problem in problems)
    if listed:
        raise InvalidSnapshot(listed, origin=what)


def _problem(
    kind: ProblemKind, obj: Any, field: str | None, detail: str, outcome: str = ""
) -> Problem:
    return Problem(
        kind=kind,
        object=obj if isinstance(obj, ObjectRef) or obj is None else ObjectRef.of(obj),
        field=field,
        detail=detail,
        outcome=outcome,
    )


def _split(text: str) -> tuple[str, str]:
    """Another module's warning, ``"what is wrong; what was done"``, as (detail, outcome): split
    at its last ``"; "`` (all detail without one)."""
    detail, _, outcome = text.rpartition("; ")
    return (detail, outcome) if detail else (text, "")


def _from_text(kind: ProblemKind, text: str) -> Problem:
    """A problem about no object, from another module's warning (:func:`_split`)."""
    detail, outcome = _split(text)
    return Problem(kind=kind, detail=detail, outcome=outcome)

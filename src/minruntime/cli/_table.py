"""The table output of ``minruntime explain``: the report's values as aligned text.

Every line is at most :data:`~minruntime.cli._format.WIDTH` (100) characters; a name too long
for its column is cut with ``...`` (the JSON output holds it in full). ``-o wide`` adds columns
and bounds neither lines nor names; ``--no-headers`` writes the rows alone.

Each symbol or word that stands for something other than a value means one thing in every
table (``ended`` is a protection that is over, ``no start`` a job without a start time, ``-``
a refused job's place in the order), and the legend under a table explains each one it used
(:data:`MEANINGS`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import datetime
from typing import Final, TextIO

from minruntime.cli._example import tree_drawing
from minruntime.cli._format import WIDTH, cell, escape, iso, short, table, work_hours, work_unit
from minruntime.cli._report import JobEntry, Plan, Report, Verdict
from minruntime.decisions import Plan as LibraryPlan
from minruntime.decisions import ProtectionKind, ProtectionStatus, Resolution
from minruntime.decisions import Verdict as LibraryVerdict
from minruntime.jobs import Job
from minruntime.kube import SnapshotJob
from minruntime.preemptibility import Preemptibility, PreemptibilitySource
from minruntime.queues import QueueTree
from minruntime.resources import GPU, PODS, Resources

__all__ = ["MEANINGS", "render_table"]

_LEGACY: Final = "*"
_NO_START: Final = "no start"
_ENDED: Final = "ended"
_NEVER: Final = "never"
_DEFAULT: Final = "<default>"
_NONE: Final = "none"
_NOT_TAKEN: Final = "-"

_POD_HOURS: Final = "p"
"""The mark of a figure in pod-hours in a column of GPU-hours."""

MEANINGS: Final = {
    _LEGACY: "preemptibility from the legacy priority rule (priority < 100): nothing set it",
    "semi": "semi-preemptible: its core pods are never evicted",
    "deferred": "allowed in part: only the pods listed as evictable may go (an elastic job "
    "protected at its minimum, or a semi-preemptible job above its core)",
    _DEFAULT: "no queue on the way up sets the min-runtime: the node-pool default applies",
    _NO_START: "no start time: min-runtime does not protect the job",
    _ENDED: "its min-runtime protection is over",
    _NEVER: "never evicted by this action: a min-runtime of never, or non-preemptible",
    _NONE: "none at all: no priority class, or nothing protects the job now",
    "GPU-H": "the GPU-hours of work an eviction would lose (since the last checkpoint, else the "
    "start): of the pods that may go, or of all its pods where none may",
    "POD-H": "the pod-hours of work an eviction would lose (since the last checkpoint, else the "
    "start; its pods hold no GPU): of the pods that may go, or of all its pods where none may",
    _POD_HOURS: "(in GPU-H) pod-hours, not GPU-hours: the job's pods hold no GPU, each counts 1",
    "#": "the order victims are taken in, per action (the cheapest first)",
    _NOT_TAKEN: "(in #) refused: not in the order",
}
"""What each symbol and special word of the tables means, in the order the legend gives them.

>>> MEANINGS["ended"]
'its min-runtime protection is over'
"""

_ROW_CELL: Final = 50
"""The widest a cell of a job's row may be: its name (cut at 48 characters, ``-o wide`` whole)
after the two spaces that indent it under its queue."""
_PREEMPTIBLE: Final = {
    Preemptibility.PREEMPTIBLE: "yes",
    Preemptibility.NON_PREEMPTIBLE: "no",
    Preemptibility.SEMI_PREEMPTIBLE: "semi",
}


def _sources_text(sources: Sequence[str]) -> str:
    names = ["standard input" if source == "-" else source for source in sources]
    return ", ".join(names) or "-"


def _from(resolution: Resolution | LibraryVerdict | ProtectionStatus, used: set[str]) -> str:
    """A min-runtime and where it comes from: its queue, or ``<default>`` (which no queue
    name can be: Kubernetes names hold no ``<``)."""
    source = resolution.source
    if source is None:
        used.add(_DEFAULT)
    if resolution.min_runtime.is_never:
        used.add(_NEVER)
    return f"{resolution.min_runtime} ({_DEFAULT if source is None else source})"


def _name(name: str, wide: bool) -> str:
    """A job's name in its row: cut at 48 characters with ``...``, whole with ``-o wide``."""
    return escape(name) if wide else cell(name)


def _marked(text: str, used: set[str]) -> str:
    """``text``, noted as used when it is one of the legend's symbols or words."""
    if text in MEANINGS:
        used.add(text)
    return text


def _names(prefix: str, names: Sequence[str]) -> str:
    """``prefix`` and as many of ``names`` as fit in a line, then how many more.

    >>> _names("pods: ", [f"pod-{i}" for i in range(40)])[-19:]
    'pod-10, and 29 more'
    """
    shown: list[str] = []
    for i, name in enumerate(names):
        more = f", and {len(names) - i - 1} more" if i + 1 < len(names) else ""
        text = ", ".join([*shown, cell(name)])
        if shown and len(prefix) + len(text) + len(more) > WIDTH:
            break
        shown.append(cell(name))
    rest = len(names) - len(shown)
    return cell(prefix + ", ".join(shown) + (f", and {rest} more" if rest else ""), WIDTH)


def _protection_cell(entry: JobEntry, now: datetime) -> str:
    """The default view's protection cell: until when the job is protected from preempt,
    ``never``, ``no start`` without a start time, ``ended`` once its protection is over."""
    own = entry.own
    until = own.protected_until
    if entry.job.preemptibility.value is Preemptibility.NON_PREEMPTIBLE or own.min_runtime.is_never:
        return _NEVER
    if until is None:
        return _NO_START
    if not own.protected:
        return _ENDED
    return short(until, now)


def _until_cell(decision: LibraryVerdict, now: datetime) -> str:
    """A protected-until cell: ``no start`` without one (no start time), the time while it
    protects (``never`` for good), else ``ended``."""
    until = decision.protected_until
    if until is None:
        return _NO_START
    return short(until, now) if decision.protected_by is not None else _ENDED


def _started_cell(start: datetime | None, now: datetime) -> str:
    return _NO_START if start is None else short(start, now)


def _kind(protected_by: ProtectionKind | None) -> str:
    """What protects a job now (``-o wide``), ``none`` when nothing does."""
    return _NONE if protected_by is None else str(protected_by)


def _by_queue(report: Report) -> list[tuple[str, list[JobEntry]]]:
    """The report's jobs grouped by queue, queues in tree order (unknown queues last)."""
    order = {entry.name: i for i, entry in enumerate(report.queue_tree)}
    groups: dict[str, list[JobEntry]] = {}
    for entry in report.jobs:
        groups.setdefault(entry.job.job.queue, []).append(entry)
    return sorted(groups.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def _header(report: Report) -> str:
    config = report.config
    left_out = f", {report.left_out} left out" if report.left_out else ""
    lines = [
        f"Snapshot: {escape(_sources_text(report.sources))} ({report.queues} queues, "
        f"{report.pod_groups} pod groups, {report.running} running{left_out})",
        f"Evaluated at {iso(report.now)}; the times below are UTC",
        f"Defaults: preempt min-runtime {config.default_preempt_min_runtime}, reclaim "
        f"min-runtime {config.default_reclaim_min_runtime}, reclaim resolve method "
        f"{config.reclaim_resolve_method}",
    ]
    return "\n".join(_wrapped(line) for line in lines) + "\n\n"


def _wrapped(line: str) -> str:
    """A long line folded at :data:`WIDTH`, its continuation indented (long words broken)."""
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent="  ")) if line else line


def _preemptible(job: SnapshotJob, used: set[str]) -> str:
    legacy = job.preemptibility.source is PreemptibilitySource.LEGACY_PRIORITY
    if legacy:
        used.add(_LEGACY)
    return _marked(_PREEMPTIBLE[job.preemptibility.value], used) + _LEGACY * legacy


def _jobs_rows(report: Report, wide: bool, used: set[str]) -> list[list[str]]:
    rows = [["JOB", "PRIO", "PREEMPTIBLE", "PODS", "STARTED", "PREEMPT MR (FROM)", "PROTECTED"]]
    if wide:
        rows[0] += ["QUEUE", "CLASS", "PREEMPTIBLE FROM", "PROTECTED BY"]
    for queue, jobs in _by_queue(report):
        rows.append([f"queue {queue}"])
        for entry in jobs:
            job = entry.job
            row = [
                "  " + _name(job.id, wide),
                str(job.job.priority),
                _preemptible(job, used),
                f"{job.active_count}/{job.task_count}",
                _marked(_started_cell(job.job.start_time, report.now), used),
                _from(entry.own, used),
                _marked(_protection_cell(entry, report.now), used),
            ]
            if wide:
                row += [
                    queue,
                    _marked(job.priority_class or _NONE, used),
                    str(job.preemptibility.source),
                    _marked(_kind(entry.own.protected_by), used),
                ]
            rows.append(row)
    if not report.jobs:
        rows.append(["(no running pod groups: minruntime explain --queues shows the queues)"])
    return rows


def _verdict_rows(report: Report, wide: bool, used: set[str]) -> list[list[str]]:
    # the work each victim would lose: the pods that may go, or (a refused job) all its pods;
    # in GPU-hours (the header's unit) where they hold GPUs, a CPU job's in pod-hours, marked
    losses = {
        entry.job.id: (
            entry.verdict.unsaved_work,
            work_unit(entry.verdict.evictable or entry.job.job.tasks()),
        )
        for entry in report.jobs
        if entry.verdict is not None
    }
    units = {unit for _, unit in losses.values()}
    header = "POD-H" if units == {"pod-hours"} else "GPU-H"
    rows = [["JOB", "OK", "REASON", "MR (FROM)", "UNTIL", header, "#"]]
    used.update((header, "#"))
    if wide:
        rows[0] += ["QUEUE", "ACTION", "PREEMPTIBLE", "PODS", "PROTECTED BY"]
    for queue, jobs in _by_queue(report):
        rows.append([f"queue {queue} ({jobs[0].action})"])
        for entry in jobs:
            verdict: Verdict | None = entry.verdict
            assert verdict is not None  # a preemptor's report judges every job
            decision = verdict.decision
            row = [
                "  " + _name(entry.job.id, wide),
                "yes" if decision.allowed else "no",
                _marked(str(decision.reason), used),
                _from(decision, used),
                _marked(_until_cell(decision, report.now), used),
                _lost(*losses[entry.job.id], used if header == "GPU-H" else None),
                _marked(_NOT_TAKEN, used) if verdict.rank is None else str(verdict.rank),
            ]
            if wide:
                job = entry.job
                row += [
                    queue,
                    str(decision.action),
                    _preemptible(job, used),
                    f"{job.active_count}/{job.task_count}",
                    _marked(_kind(decision.protected_by), used),
                ]
            rows.append(row)
            optional = decision.optional_sub_groups
            if optional:
                rows.append([_names("      sub-groups that go whole: ", optional)])
            if verdict.evictable:
                pods = [str(task.id) for task in verdict.evictable]
                rows.append([_names("      evictable: ", pods)])
    return rows


def _rows_only(rows: list[list[str]]) -> list[list[str]]:
    """``--no-headers``: the rows of a table without its column names, headings and detail
    lines, each row flush left (one line per job, as kubectl's ``--no-headers``)."""
    return [[row[0].lstrip(), *row[1:]] for row in rows[1:] if len(row) > 1]


def _legend(used: set[str]) -> list[str]:
    """The legend: each symbol or word of :data:`MEANINGS` that the table used, one a line,
    aligned; a long meaning wraps under itself.

    >>> for line in _legend({"ended", "*"}):
    ...     print(line)
    *      preemptibility from the legacy priority rule (priority < 100): nothing set it
    ended  its min-runtime protection is over
    """
    keys = [key for key in MEANINGS if key in used]
    if not keys:
        return []
    size = max(map(len, keys))
    lines = []
    for key in keys:
        lines.extend(
            textwrap.wrap(
                MEANINGS[key],
                WIDTH,
                initial_indent=f"{key:<{size}}  ",
                subsequent_indent=" " * (size + 2),
            )
        )
    return lines


def _lost(seconds: float, unit: str, used: set[str] | None = None) -> str:
    """Unsaved work in hours of ``unit``; with ``used`` (a column in GPU-hours), pod-hours are
    marked ``p`` (a CPU job's pods hold no GPU)."""
    if used is None or unit == "GPU-hours":
        return work_hours(seconds)
    used.add(_POD_HOURS)
    return f"{work_hours(seconds)}{_POD_HOURS}"


def _amount(resources: Resources, unit: str) -> str:
    """What a need, a freed amount or a missing amount comes to, in the plan's unit."""
    amount = resources.get(GPU if unit == "GPUs" else PODS, 0)
    text = f"{amount:g}"
    if unit == "GPUs":
        return f"{text} GPU{'s' * (amount != 1)}"
    return f"{text} pod{'s' * (amount != 1)}"


def _retry_line(report: Report) -> str:
    """The last line: when the preemptor should ask again, or why it need not."""
    covering = [str(entry.action) for entry in report.plans if entry.plan]
    if covering:
        return f"No retry: {covering[0]} frees what the pending pods need now."
    retry = report.retry_at
    if retry is not None:
        line = f"Retry at {iso(retry)}: the next protection that would free a victim ends then."
        waits = [
            f"{entry.backoff.maximum} for {entry.action}"
            for entry in report.plans
            if entry.backoff is not None and entry.plan.retry == retry
        ]
        if waits:
            line += (
                " The scheduler's failed-search backoff (scenarioSearchBudgets) may wait up to "
                f"{', '.join(waits)} after it before it searches again."
            )
        return line
    return "No protection ends that would free another victim: no retry time."


def _plan_lines(report: Report) -> list[str]:
    """The plan: per action, which pods would go, in order, what that frees and loses."""
    pre = report.preemptor
    if pre is None or not report.plans:
        return []
    pods = len(pre.pending)
    unit = pre.unit
    asks = "the GPUs they request" if unit == "GPUs" else "one pod each: they request no GPU"
    lines = textwrap.wrap(
        f"Plan: free {_amount(pre.need, unit)} (what the {pods} pending pod{'s' * (pods != 1)} "
        f"need: {asks}), cheapest victims first:",
        WIDTH,
        subsequent_indent="  ",
    )
    for plan in report.plans:
        lines.extend(_one_plan(plan, unit, report.now))
    return lines


def _one_plan(entry: Plan, unit: str, now: datetime) -> list[str]:
    plan = entry.plan
    count = len(plan)
    outcome = (
        f"frees {_amount(plan.freed, unit)}"
        if plan
        else f"frees {_amount(plan.freed, unit)} of {_amount(plan.need, unit)}"
    )
    losses = [
        f"{work_hours(lost)} {'GPU-h' if work_unit(tasks) == 'GPU-hours' else 'pod-h'}"
        for tasks, lost in zip(plan.tasks, plan.losses, strict=True)
    ]
    head = f"  by {entry.action}: {count} job{'s' * (count != 1)}, {outcome}"
    if losses:
        head += f", loses {_sum_lost(plan)}"
    if not plan:
        retry = (
            f"retry at {short(plan.retry, now)}, when the next protection ends"
            if plan.retry is not None
            else "no protection ends that would free more"
        )
        if plan.retry is not None and entry.backoff is not None:
            retry += (
                f" (the scheduler's failed-search backoff may wait up to "
                f"{entry.backoff.maximum} more)"
            )
        head += f"; {_amount(plan.missing, unit)} still missing: {retry}"
    lines = textwrap.wrap(head, WIDTH, subsequent_indent="    ")
    for place, (victim, tasks, lost) in enumerate(
        zip(plan.victims, plan.tasks, losses, strict=True), start=1
    ):
        head = f"    {place}. {cell(str(victim.id))} ({lost}): "
        lines.append(_names(head, [str(task.id) for task in tasks]))
    return lines


def _sum_lost(plan: LibraryPlan[Job]) -> str:
    """The plan's lost work, GPU-hours and pod-hours apart."""
    gpu = pod = 0.0
    for tasks, lost in zip(plan.tasks, plan.losses, strict=True):
        if work_unit(tasks) == "GPU-hours":
            gpu += lost
        else:
            pod += lost
    parts = [f"{work_hours(gpu)} GPU-hours"] if gpu or not pod else []
    if pod:
        parts.append(f"{work_hours(pod)} pod-hours")
    return " and ".join(parts)


def render_table(
    report: Report,
    out: TextIO,
    *,
    tree: QueueTree,
    queues_view: bool = False,
    wide: bool = False,
    headers: bool = True,
) -> None:
    """Write the report as the table view (or, with ``queues_view``, the queues view).

    ``wide`` (``-o wide``) adds columns and bounds neither lines nor names; ``headers=False``
    (``--no-headers``) writes the table's rows alone: no summary, column names, queue
    headings, detail lines, plan or legend.

    >>> import io
    >>> from datetime import UTC
    >>> from minruntime.kube import read_snapshot
    >>> from minruntime.cli._report import build_report
    >>> snapshot = read_snapshot([
    ...     {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q"}},
    ...     {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
    ...      "metadata": {"name": "train", "namespace": "ml"},
    ...      "spec": {"queue": "q", "preemptibility": "preemptible"}},
    ...     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml",
    ...      "annotations": {"pod-group-name": "train"}}, "status": {"phase": "Running"}},
    ... ])
    >>> out = io.StringIO()
    >>> report = build_report(snapshot, datetime(2026, 11, 22, 12, 0, tzinfo=UTC))
    >>> render_table(report, out, tree=snapshot.tree, headers=False)
    >>> print(out.getvalue(), end="")
    ml/train  50  yes  1/1  no start  0s (<default>)  no start
    """
    limit = None if wide else WIDTH
    used: set[str] = set()
    if queues_view:
        _render_queues(report, out, tree, wide=wide, headers=headers)
        return
    pre = report.preemptor
    rows = _jobs_rows(report, wide, used) if pre is None else _verdict_rows(report, wide, used)
    if not headers:
        lines = table(_rows_only(rows), None if wide else _ROW_CELL, limit=limit)
        out.write("".join(line + "\n" for line in lines))
        return
    out.write(_header(report))
    if pre is not None:
        kind = "hypothetical job" if pre.hypothetical else "pending job"
        out.write(
            _wrapped(
                f"Preemptor: {kind} {cell(str(pre.job.id))} in queue {cell(pre.job.queue)}, "
                f"priority {pre.job.priority}, {len(pre.pending)} pending pods"
            )
            + "\n\n"
        )
    out.write("\n".join(table(rows, None if wide else _ROW_CELL, limit=limit)) + "\n")
    notes = _legend(used)
    if pre is not None:
        plan = _plan_lines(report)
        if plan:
            out.write("\n" + "\n".join(plan) + "\n")
        notes.append(textwrap.fill(_retry_line(report), WIDTH))
    if notes:
        out.write("\n" + "\n".join(notes) + "\n")


def _render_queues(
    report: Report, out: TextIO, tree: QueueTree, *, wide: bool, headers: bool
) -> None:
    drawn = {name: branch for branch, name in tree_drawing(tree)}
    if wide:  # the drawing cuts a long name: -o wide writes it whole
        drawn = {
            name: branch[: len(branch) - len(cell(name))] + escape(name)
            for name, branch in drawn.items()
        }
    lca = report.config.reclaim_resolve_method == "lca"
    header = ["QUEUE", "PREEMPT MR (FROM)", "RECLAIM MR (FROM)"]
    if lca:
        header = ["QUEUE", "PREEMPT MR (FROM)", "RECLAIM: SIBLING", "RECLAIM: OTHER TREE"]
    if wide:
        header.append("PARENT")
    rows = [header]
    used: set[str] = set()
    for entry in report.queue_tree:
        # --no-headers: the name alone, so that each line splits into its columns
        name = drawn[entry.name] if headers else entry.name
        row = [name, _from(entry.preempt, used), _from(entry.reclaim, used)]
        if lca:
            row.append(_from(entry.reclaim_from_another_tree, used))
        if wide:
            row.append(_marked(_NONE, used) if entry.parent is None else entry.parent)
        rows.append(row)
    limit = None if wide else WIDTH
    if not headers:
        lines = table(rows[1:], None if wide else 64, limit=limit) if len(rows) > 1 else []
        out.write("".join(line + "\n" for line in lines))
        return
    out.write(_header(report))
    if len(rows) == 1:
        rows.append(["(no queues in the snapshot)"])
    out.write("\n".join(table(rows, None if wide else 64, limit=limit)) + "\n")
    out.write(
        "\n"
        + textwrap.fill(
            "A value (FROM) is the queue whose setting gives it. "
            + (
                "Reclaim by lca: from a preemptor under the same parent (SIBLING), or in another "
                "top-level tree (OTHER TREE); in between, the setting of the queue below the lowest "
                "common ancestor."
                if lca
                else "Reclaim by queue: the victim's own queue decides, whoever the preemptor."
            ),
            WIDTH,
        )
        + "\n"
    )
    legend = _legend(used)
    if legend:
        out.write("\n".join(legend) + "\n")

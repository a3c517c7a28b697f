"""The table output of ``minruntime explain``: the report's values as aligned text.

Every line is at most :data:`~minruntime.cli._format.WIDTH` (100) characters; a name too long
for its column is cut with ``...`` (the JSON output holds it in full).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import datetime
from typing import Final, TextIO

from minruntime.cli._example import tree_drawing
from minruntime.cli._format import WIDTH, cell, escape, iso, short, table, work_hours
from minruntime.cli._report import JobEntry, Plan, Report, Verdict
from minruntime.decisions import Decision, ProtectionStatus, Resolution
from minruntime.preemptibility import Preemptibility, PreemptibilitySource
from minruntime.queues import QueueTree

__all__ = ["render_table"]

_PREEMPTIBLE: Final = {
    Preemptibility.PREEMPTIBLE: "yes",
    Preemptibility.NON_PREEMPTIBLE: "no",
    Preemptibility.SEMI_PREEMPTIBLE: "semi",
}


def _sources_text(sources: Sequence[str]) -> str:
    names = ["standard input" if source == "-" else source for source in sources]
    return ", ".join(names) or "-"


def _from(resolution: Resolution | Decision | ProtectionStatus) -> str:
    return f"{resolution.min_runtime} ({resolution.source or 'default'})"


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


def _amount(value: float) -> str:
    return f"{value:g}"


def _protection_cell(entry: JobEntry, now: datetime) -> str:
    """The default view's protection cell: until when the job is protected from preempt."""
    own = entry.own
    until = own.protected_until
    if entry.job.preemptibility.value is Preemptibility.NON_PREEMPTIBLE or own.min_runtime.is_never:
        return "never"
    if until is None:
        return "no start"
    if not own.protected:
        return "-"
    return short(until, now)


def _until_cell(decision: Decision, now: datetime) -> str:
    """A protected-until cell: '-' without one, the time while it protects, else 'ended'."""
    until = decision.protected_until
    if until is None:
        return "-"
    return short(until, now) if decision.protected_by is not None else "ended"


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


def _jobs_rows(report: Report) -> tuple[list[list[str]], list[str]]:
    rows = [["JOB", "PRIO", "PREEMPTIBLE", "PODS", "STARTED", "PREEMPT MR (FROM)", "PROTECTED"]]
    legacy = False
    for queue, jobs in _by_queue(report):
        rows.append([f"queue {queue}"])
        for entry in jobs:
            job = entry.job
            from_legacy = job.preemptibility.source is PreemptibilitySource.LEGACY_PRIORITY
            legacy = legacy or from_legacy
            rows.append(
                [
                    "  " + cell(job.id),
                    str(job.job.priority),
                    _PREEMPTIBLE[job.preemptibility.value] + "*" * from_legacy,
                    f"{job.active_count}/{job.task_count}",
                    short(job.job.start_time, report.now),
                    _from(entry.own),
                    _protection_cell(entry, report.now),
                ]
            )
    if not report.jobs:
        rows.append(["(no running pod groups: minruntime explain --queues shows the queues)"])
    notes = ["* preemptibility from the legacy priority rule (priority < 100)"] if legacy else []
    return rows, notes


def _verdict_rows(report: Report) -> list[list[str]]:
    rows = [["JOB", "OK", "REASON", "MR (FROM)", "UNTIL", "GPU-H", "#"]]
    for queue, jobs in _by_queue(report):
        rows.append([f"queue {queue} ({jobs[0].action})"])
        for entry in jobs:
            verdict: Verdict | None = entry.verdict
            assert verdict is not None  # a preemptor's report judges every job
            decision = verdict.decision
            rows.append(
                [
                    "  " + cell(entry.job.id),
                    "yes" if decision.allowed else "no",
                    str(decision.reason),
                    _from(decision),
                    _until_cell(decision, report.now),
                    work_hours(verdict.unsaved_work),
                    "-" if verdict.rank is None else str(verdict.rank),
                ]
            )
            optional = decision.optional_sub_groups
            if optional:
                rows.append([_names("      sub-groups that go whole: ", optional)])
            if verdict.evictable:
                pods = [str(task.id) for task in verdict.evictable]
                rows.append([_names("      evictable: ", pods)])
    return rows


def _plan_lines(report: Report) -> list[str]:
    """The plan: per action, which pods would go, in order, what that frees and loses."""
    pre = report.preemptor
    if pre is None or not report.plans:
        return []
    pods = len(pre.pending)
    lines = textwrap.wrap(
        f"Plan: free {_amount(pre.needed)} (what the {pods} pending pod{'s' * (pods != 1)} "
        "request: GPUs, else 1 a pod), cheapest victims first:",
        WIDTH,
        subsequent_indent="  ",
    )
    by_id = {entry.job.id: entry.verdict for entry in report.jobs if entry.verdict is not None}
    for plan in report.plans:
        lines.extend(_one_plan(plan, by_id, report.now))
    return lines


def _one_plan(plan: Plan, verdicts: dict[str, Verdict], now: datetime) -> list[str]:
    selection = plan.selection
    count = len(selection)
    outcome = (
        f"frees {_amount(selection.freed)}"
        if selection
        else f"frees {_amount(selection.freed)} of {_amount(selection.needed)}"
    )
    head = (
        f"  by {plan.action}: {count} job{'s' * (count != 1)}, {outcome}, loses "
        f"{work_hours(selection.unsaved_work)} GPU-hours"
    )
    if not selection:
        retry = (
            f"retry at {short(plan.retry_at, now)}, when the next protection ends"
            if plan.retry_at is not None
            else "no protection ends that would free more"
        )
        head += f"; {_amount(selection.shortfall)} still missing: {retry}"
    lines = textwrap.wrap(head, WIDTH, subsequent_indent="    ")
    for place, (victim, tasks) in enumerate(
        zip(selection.victims, selection.tasks, strict=True), start=1
    ):
        lost = work_hours(verdicts[str(victim.id)].unsaved_work)
        head = f"    {place}. {cell(str(victim.id))} ({lost} GPU-h): "
        lines.append(_names(head, [str(task.id) for task in tasks]))
    return lines


_LEGEND: Final = (
    "deferred: allowed in part: only the pods listed as evictable may go (an elastic job "
    "protected at its minimum, or a semi-preemptible job above its core). GPU-H: the GPU-hours "
    "of work an eviction would lose (since the last checkpoint, else the start). #: the order "
    "victims are taken in, per action (the cheapest first)."
)


def render_table(
    report: Report, out: TextIO, *, tree: QueueTree, queues_view: bool = False
) -> None:
    """Write the report as the table view (or, with ``queues_view``, the queues view)."""
    out.write(_header(report))
    if queues_view:
        _render_queues(report, out, tree)
        return
    pre = report.preemptor
    if pre is None:
        rows, notes = _jobs_rows(report)
        out.write("\n".join(table(rows)) + "\n")
    else:
        kind = "hypothetical job" if pre.hypothetical else "pending job"
        out.write(
            _wrapped(
                f"Preemptor: {kind} {cell(str(pre.job.id))} in queue {cell(pre.job.queue)}, "
                f"priority {pre.job.priority}, {len(pre.pending)} pending pods"
            )
            + "\n\n"
        )
        out.write("\n".join(table(_verdict_rows(report))) + "\n")
        plan = _plan_lines(report)
        if plan:
            out.write("\n" + "\n".join(plan) + "\n")
        retry = report.retry_at
        notes = [
            _LEGEND,
            f"Retry at {iso(retry)}: the next protection that would free a victim ends then."
            if retry is not None
            else "No protection ends that would free another victim: no retry time.",
        ]
    if notes:
        out.write("\n" + "\n".join(textwrap.fill(note, WIDTH) for note in notes) + "\n")


def _render_queues(report: Report, out: TextIO, tree: QueueTree) -> None:
    drawn = {name: branch for branch, name in tree_drawing(tree)}
    lca = report.config.reclaim_resolve_method == "lca"
    header = ["QUEUE", "PREEMPT MR (FROM)", "RECLAIM MR (FROM)"]
    if lca:
        header = ["QUEUE", "PREEMPT MR (FROM)", "RECLAIM: SIBLING", "RECLAIM: OTHER TREE"]
    rows = [header]
    for entry in report.queue_tree:
        row = [drawn[entry.name], _from(entry.preempt), _from(entry.reclaim)]
        if lca:
            row.append(_from(entry.reclaim_from_another_tree))
        rows.append(row)
    if len(rows) == 1:
        rows.append(["(no queues in the snapshot)"])
    out.write("\n".join(table(rows, width=64)) + "\n")
    out.write(
        "\n"
        + textwrap.fill(
            "A value (FROM) is the queue whose setting gives it, or the default. "
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

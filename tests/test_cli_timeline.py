"""The timeline (``minruntime.cli._timeline``, ``--timeline FILE``): the SVG picture of the
running jobs' protection windows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.world import (
    EXAMPLE_INSTANT,
    FINETUNE,
    JSON,
    assert_error,
    pod,
    pod_group,
    queue_object,
    run,
    write_objects,
)

from minruntime.cli import EXAMPLE_NOW

SVG = "{http://www.w3.org/2000/svg}"


def small_cluster(tmp_path: Path) -> str:
    """Queue q (preempt min-runtime 1h): a started 11:00, b started 11:30, each one running
    pod; p pending with three pods, of a higher priority: more than a and b hold, so its plan
    falls short and says when to retry."""
    objects: list[JSON] = [
        queue_object("q", preemptMinRuntime="1h"),
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 100},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "low"}, "value": 10},
        pod_group("p", "ns", queue="q", minMember=1, priorityClassName="high"),
        *(pod(f"p-{i}", "p", "ns", phase="Pending") for i in range(3)),
    ]  # fmt: skip
    for name, start in (("b", "2026-11-22T11:30:00Z"), ("a", "2026-11-22T11:00:00Z")):
        annotations = {"kai.scheduler/last-start-timestamp": start}
        group = pod_group(
            name, "ns", queue="q", annotations=annotations, minMember=1, priorityClassName="low"
        )
        objects += [group, pod(f"{name}-0", name, "ns", phase="Running", node="node-1")]
    return write_objects(tmp_path / "small.json", *objects)


def timeline(path: Path) -> Any:
    import xml.etree.ElementTree as ElementTree

    return ElementTree.parse(path).getroot()


def test_the_timeline_draws_each_protection_window_on_a_time_axis(tmp_path: Path) -> None:
    """The axis runs 11:00-12:30 (whole 15-minute ticks) over x 312-1070: 758 px for 90
    minutes, one linear scale (the window is under three hours). a (11:00-12:00, free at now)
    comes first, then b (11:30-12:30, protected). The legend names the three states, now and
    the retry time: no triangle, no compressed hours here."""
    out = tmp_path / "windows.svg"
    result = run(["explain", small_cluster(tmp_path), "--now", "2026-11-22T12:00:00Z",
                  "--preemptor", "ns/p", "--timeline", str(out)])  # fmt: skip
    assert result.status == 0
    root = timeline(out)
    assert (root.get("width"), root.get("height")) == ("1280", "174")
    bars = [
        (rect.get("data-job"), rect.get("class"), rect.get("x"), rect.get("y"), rect.get("width"))
        for rect in root.iter(f"{SVG}rect")
        if (rect.get("class") or "").startswith("bar")
    ]
    assert bars == [
        ("ns/a", "bar eligible", "312.0", "75.0", "505.3"),
        ("ns/b", "bar protected", "564.7", "97.0", "505.3"),
    ]
    texts = [(text.get("x"), text.get("y"), text.text) for text in root.iter(f"{SVG}text")]
    assert texts == [
        ("10.0", "20.0", "Protection windows against ns/p at 12:00:00 UTC"),
        ("312.0", "136.0", "11:00"),
        ("438.3", "136.0", "11:15"),
        ("564.7", "136.0", "11:30"),
        ("691.0", "136.0", "11:45"),
        ("817.3", "136.0", "12:00"),
        ("943.7", "136.0", "12:15"),
        ("1070.0", "136.0", "12:30"),
        ("10.0", "85.0", "ns/a"),
        ("1080.0", "85.0", "free since 12:00:00"),
        ("10.0", "107.0", "ns/b"),
        ("1080.0", "107.0", "until 12:30:00"),
        ("821.3", "42.0", "now 12:00:00"),
        ("1066.0", "58.0", "retry 12:30:00"),
        ("30.0", "160.0", "protected"),
        ("145.7", "160.0", "may go (eligible)"),
        ("319.8", "160.0", "refused for another reason"),
        ("559.6", "160.0", "now"),
        ("631.5", "160.0", "retry time"),
    ]
    lines = {line.get("class"): line.get("x1") for line in root.iter(f"{SVG}line")}
    assert (lines["now"], lines["retry"]) == ("817.3", "1070.0")
    assert not [rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "compressed"]


def test_the_timeline_gives_the_hours_around_now_two_thirds_of_a_long_axis(
    tmp_path: Path,
) -> None:
    """The bundled example's windows reach from six hours back (06:00) to 14:00: the hours
    11:00-13:00 around now take two thirds of the 758 px (505.3 px: 4.2 px a minute, not the
    1.6 of one linear scale), the six hours beyond share the rest at one rate (42.1 px an
    hour), shaded; ticks 30 minutes apart near now, three hours beyond; the 14:00 tick is left
    out, too close to 13:00 to label. The legend adds the triangles and the shading."""
    out = tmp_path / "bundled.svg"
    assert run(["explain", "--preemptor", FINETUNE, "--timeline", str(out)]).status == 0
    root = timeline(out)
    shaded = [
        (rect.get("x"), rect.get("width"))
        for rect in root.iter(f"{SVG}rect")
        if rect.get("class") == "compressed"
    ]
    assert shaded == [("312.0", "210.6"), ("1027.9", "42.1")]
    ticks = [(text.get("x"), text.text) for text in root.iter(f"{SVG}text")]
    assert [tick for tick in ticks if tick[1] and tick[1][:2].isdigit()] == [
        ("312.0", "06:00"),
        ("438.3", "09:00"),
        ("522.6", "11:00"),
        ("648.9", "11:30"),
        ("775.2", "12:00"),
        ("901.6", "12:30"),
        ("1027.9", "13:00"),
    ]
    lines = {line.get("class"): line.get("x1") for line in root.iter(f"{SVG}line")}
    # 12:00 at 775.2; no retry line: reclaim frees what finetune-7b needs now
    assert (lines["now"], "retry" in lines) == ("775.2", False)
    legend = [text.text for text in root.iter(f"{SVG}text") if text.get("y") == "556.0"]
    assert legend == [
        "protected",
        "may go (eligible)",
        "refused for another reason",
        "goes on beyond the axis",
        "hours far from now, compressed",
        "now",
    ]


def test_the_timeline_keeps_every_label_inside_the_picture(tmp_path: Path) -> None:
    """The right column holds 26 characters at 7.3 px (a 12 px monospace font is 7.2) and
    keeps 10 px from the edge, at every width; a narrow picture wraps its legend."""
    from minruntime.cli._timeline import Layout

    for width in (640, 720, 1280):
        assert Layout.of(width).plot_right + 10 + 26 * 7.3 <= width - 10 + 0.1
    out = tmp_path / "narrow.svg"
    args = ["explain", "--preemptor", FINETUNE, "--timeline", str(out), "--timeline-width", "640"]
    assert run(args).status == 0
    root = timeline(out)
    width = int(root.get("width") or 0)
    ends = [
        float(text.get("x") or 0) + 7.3 * len(text.text or "")
        for text in root.iter(f"{SVG}text")
        if text.get("text-anchor") == "start"
    ]
    assert max(ends) <= width - 10 + 0.1
    legend_rows = {text.get("y") for text in root.iter(f"{SVG}text") if text.text == "now"} | {
        text.get("y") for text in root.iter(f"{SVG}text") if text.text == "protected"
    }
    assert len(legend_rows) == 2


def test_the_timeline_without_a_preemptor_shows_the_protection_from_preempt(
    tmp_path: Path,
) -> None:
    out = tmp_path / "windows.html"
    result = run(["explain", small_cluster(tmp_path), "--now", "2026-11-22T12:00:00Z",
                  "--timeline", str(out)])  # fmt: skip
    assert result.status == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "svg{display:block;max-width:100%;height:auto}" in page  # a narrow window: scaled
    assert "<script" not in page
    assert "http" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert page.count('class="bar ') == 2
    assert 'class="retry"' not in page


def test_the_timeline_path_is_checked_before_the_snapshot_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path that cannot be written fails at once (status 2), not after reading a snapshot
    (here one that does not exist: its error would come first otherwise)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    assert_error(
        run(["explain", "/nonexistent/snapshot.json", "--timeline", "out"]),
        2,
        "--timeline: 'out' is a directory (expected a file path)",
    )
    assert_error(
        run(["explain", "/nonexistent/snapshot.json", "--timeline", "missing/windows.svg"]),
        2,
        "--timeline: 'missing/windows.svg': the directory 'missing' does not exist",
    )


def test_the_timeline_on_the_operators_page_is_what_its_command_writes(tmp_path: Path) -> None:
    """docs/operators.md embeds docs/_static/timeline-example.svg and shows the command that
    makes it: the two must not drift apart."""
    out = tmp_path / "timeline.svg"
    args = ["--preemptor", FINETUNE, "--timeline", str(out), "--timeline-width", "720"]
    assert run(["explain", *args]).status == 0
    documented = Path(__file__).resolve().parent.parent / "docs/_static/timeline-example.svg"
    assert out.read_text(encoding="utf-8") == documented.read_text(encoding="utf-8")
    assert timeline(out).get("width") == "720"


def test_the_timeline_is_well_formed_xml_whatever_the_names(tmp_path: Path) -> None:
    """Markup and control characters in a name are escaped (XML 1.0 forbids most control
    characters even as references): the file parses, and the name shows as written."""
    name = 'a<b>&"c\x1b[2J\u202e'
    annotations = {"kai.scheduler/last-start-timestamp": EXAMPLE_INSTANT}
    group = pod_group(name, "ns", queue="q", annotations=annotations, minMember=1)
    path = write_objects(
        tmp_path / "odd.json",
        queue_object("q"),
        group,
        pod("x-0", name, "ns", phase="Running", node="node-1"),
    )
    out = tmp_path / "odd.svg"
    assert (
        run(["explain", path, "--now", "+1m", "--timeline", str(out)], now=EXAMPLE_NOW).status == 0
    )
    root = timeline(out)
    (bar,) = [rect for rect in root.iter(f"{SVG}rect") if rect.get("data-job")]
    assert bar.get("data-job") == 'ns/a<b>&"c\\x1b[2J\\u202e'
    assert 'ns/a<b>&"c\\x1b[2J\\u202e' in [text.text for text in root.iter(f"{SVG}text")]


def test_the_timeline_marks_windows_that_go_on_beyond_its_axis(tmp_path: Path) -> None:
    """The axis reaches back six hours (06:00): embeddings-api (started 11-15), alice-notebook
    (11-21) and nightly-eval (02:00), the first three rows, get a triangle on the left edge;
    the legend shows one too (pointing right, beside its words)."""
    out = tmp_path / "bundled.svg"
    assert run(["explain", "--preemptor", FINETUNE, "--timeline", str(out)]).status == 0
    notches = [p.get("points") for p in timeline(out).iter(f"{SVG}polygon")]
    assert notches == [
        *(f"312.0,{top - 2:.1f} 306.0,{top + 6:.1f} 312.0,{top + 14:.1f}" for top in (75, 97, 119)),
        "543.6,545.0 549.6,551.0 543.6,557.0",
    ]

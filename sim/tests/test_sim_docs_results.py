"""The documentation's simulator results are the committed results files, printed and drawn by
the command: every Markdown table on the pages is ``--from-json FILE --format markdown`` of its
file, verbatim, and every figure the pages show is committed and drawn from the same files."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from minruntime_sim.sweep import TableFormat
from minruntime_sim.uncertainty import format_intervals, read_results

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "sim" / "results"
DOCS = ROOT / "docs"
HOWTO = DOCS / "howto-choose-min-runtime.md"

SHOWN = [
    ("philly-evidence.json", "philly-evidence.svg"),
    ("philly-uncertainty.json", "philly-protection-load4.svg"),
    ("philly-orders.json", "philly-orders-load4.svg"),
    ("philly-uncertainty-load5.json", "philly-protection-load5.svg"),
    ("philly-uncertainty-load6.json", "philly-protection-load6.svg"),
]


@pytest.mark.parametrize(("results", "figure"), SHOWN)
def test_the_howto_shows_each_results_file_as_the_command_prints_it(
    results: str, figure: str
) -> None:
    page = HOWTO.read_text(encoding="utf-8")
    read = read_results((RESULTS / results).read_text(encoding="utf-8"), origin=results)

    assert format_intervals(read.summaries, style=TableFormat.MARKDOWN) in page
    assert f"```{{figure}} figures/{figure}\n" in page
    svg = (DOCS / "figures" / figure).read_text(encoding="utf-8")
    assert svg.count("<svg") == 1
    assert f"--from-json sim/results/{results}" in page or f"`{results}` to `{figure}`" in page


def test_no_results_page_shows_console_output_wider_than_the_page() -> None:
    """At 1280 px the text column holds about 92 characters of code: no line of a console or
    text block on the simulator's pages is longer (tables are Markdown tables, which wrap), and
    Python sessions, whose long lines are calls and sentences, wrap by the stylesheet."""
    long = []
    for name in ("howto-choose-min-runtime.md", "simulator.md", "checkpoint-aware.md"):
        language = None
        for number, line in enumerate((DOCS / name).read_text(encoding="utf-8").splitlines(), 1):
            fence = re.match(r"^(`{3,}|~{3,})(.*)$", line)
            if fence:
                language = fence[2].strip() if language is None else None
                continue
            code = language is not None and not language.startswith(("{", "pycon"))
            if code and len(line) > 90:
                long.append((name, number, len(line)))
    assert long == []
    css = (DOCS / "_static" / "tables.css").read_text(encoding="utf-8")
    assert (
        "article div.highlight-pycon pre,\narticle div.highlight-console pre,\n"
        "article div.doctest pre {\n"
    ) in css
    assert "  white-space: pre-wrap;" in css


def test_the_ablation_table_is_the_one_its_results_files_give() -> None:
    """The ablation table of the how-to is ``python sim/results/ablation_table.py``: a row per
    setting of the results files of ``sim/results/ablation/``, each file the run of a command
    the results' README shows."""
    spec = importlib.util.spec_from_file_location("ablation_table", RESULTS / "ablation_table.py")
    assert spec is not None
    assert spec.loader is not None
    ablation_table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ablation_table)
    page = HOWTO.read_text(encoding="utf-8")

    assert ablation_table.table() + "\n" in page
    assert "python sim/results/ablation_table.py" in page
    files = sorted(path.name for path in (RESULTS / "ablation").glob("*.json"))
    assert files == sorted({name for _, name, _, _ in ablation_table.ROWS})
    readme = (RESULTS / "README.md").read_text(encoding="utf-8")
    for name in files:
        assert f"--json sim/results/ablation/{name}" in readme


def test_the_load_table_is_the_one_its_results_files_give() -> None:
    """The load table of the simulator page is ``python sim/results/load_table.py``: a row per
    results file of ``sim/results/load/``, each file the run of the command the page shows, and
    no other figure typed by hand."""
    spec = importlib.util.spec_from_file_location("load_table", RESULTS / "load_table.py")
    assert spec is not None
    assert spec.loader is not None
    load_table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load_table)
    page = (DOCS / "simulator.md").read_text(encoding="utf-8")

    assert load_table.table() + "\n" in page
    assert "python sim/results/load_table.py" in page
    files = sorted(path.name for path in (RESULTS / "load").glob("*.json"))
    assert files == sorted(name for _, name in load_table.ROWS)
    readme = (RESULTS / "README.md").read_text(encoding="utf-8")
    for name in files:
        assert f"--json sim/results/load/{name}" in readme

"""The docs site renders offline: no diagram script, style or font from another site.

The one diagram is a committed SVG (``docs/_static/design-queue-tree.svg``), not Mermaid source
rendered in the reader's browser by a script from a CDN. CI also checks the built HTML for remote
scripts and styles (``.ci/run``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
IMAGE = re.compile(r"```\{(?:image|figure)\} (?P<path>\S+)|!\[[^\]]*\]\((?P<link>[^)\s]+)\)")


def test_no_page_asks_for_a_diagram_rendered_by_a_script() -> None:
    fenced = [page.name for page in PAGES if re.search(r"^```\{?mermaid", page.read_text(), re.M)]
    assert fenced == []
    configuration = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert "mermaid" not in configuration


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(DOCS).as_posix())
def test_every_image_a_page_shows_is_committed(page: Path) -> None:
    for match in IMAGE.finditer(page.read_text(encoding="utf-8")):
        target = match["path"] or match["link"]
        if target.startswith(("http://", "https://")):
            pytest.fail(f"{page.name} shows a remote image: {target}")
        assert (page.parent / target).is_file(), target


def test_the_design_tree_is_a_static_svg_with_every_queue_and_value() -> None:
    svg = ElementTree.parse(DOCS / "_static" / "design-queue-tree.svg").getroot()
    namespace = "{http://www.w3.org/2000/svg}"
    assert not svg.findall(f".//{namespace}script")
    texts = [text.text for text in svg.iter(f"{namespace}text")]
    assert texts == [
        "Queue A",
        "Queue B",
        "600s",
        "Queue C",
        "Queue D",
        "60s",
        "Queue leaf1",
        "0s",
        "Queue leaf2",
        "180s",
        "Queue leaf3",
    ]


def test_the_table_style_is_in_the_build_and_keeps_tables_as_wide_as_their_content() -> None:
    """A table is not made a full-width block (its shadow box would run past its columns):
    the theme's wrapper scrolls a wider one."""
    configuration = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert 'html_css_files = ["tables.css"]' in configuration
    css = (DOCS / "_static" / "tables.css").read_text(encoding="utf-8")
    rules = re.findall(r"([^{}]+)\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S))
    table_rules = [body for selector, body in rules if "table" in selector]
    assert table_rules
    assert not [body for body in table_rules if re.search(r"display\s*:\s*block", body)]
    assert "overflow-x: auto" in css  # code blocks scroll


ROOT = DOCS.parent


def test_no_install_hint_names_the_package_on_an_index() -> None:
    """``pip install "minruntime[...]"`` would fetch whatever a stranger published under the
    name: hints install from this repository, or name PyYAML itself."""
    texts = [*PAGES, ROOT / "README.md", *sorted((ROOT / "src").rglob("*.py"))]
    offending = [
        path.relative_to(ROOT).as_posix()
        for path in texts
        if re.search(r"pip install ['\"]?minruntime\b", path.read_text(encoding="utf-8"))
    ]
    assert offending == []


def test_the_readme_live_cluster_command_reads_the_scheduler_config() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (line,) = [line for line in readme.splitlines() if line.startswith("kubectl get ")]
    assert line.split()[2] == "queues,podgroups,pods,priorityclasses,configmaps"

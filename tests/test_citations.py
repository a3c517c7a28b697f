"""Every citation of the specification points somewhere (docs/spec/index.md, "How to cite it").

Code, docstrings, comments and command output cite ``docs/spec/<page>.md`` (optionally with
``#anchor``); documentation pages link ``spec/<page>.md#anchor`` with a path relative to the page.
Each citation must name a page that exists and, when it gives one, an anchor that the page
defines: an explicit MyST target (a ``(name)=`` line) or the slug MyST gives one of its headings.
Nothing in the published places cites the old rule book outside the repository.

The check reads the files (no Sphinx build), so it is exact and fast.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "spec"

# Where citations are published: the package, the simulator, the docs, the README, the
# benchmarks and the examples (the changelog's links are checked too).
PLACES = ("src", "sim/src", "docs", "README.md", "benchmarks", "examples")
LINK_PLACES = (*PLACES, "CHANGELOG.md")
TEXT_SUFFIXES = frozenset({".py", ".md", ".txt", ".toml", ".yaml", ".yml", ".json", ".cfg", ".sh"})
SKIPPED_PARTS = frozenset({"_build", "__pycache__", ".ipynb_checkpoints"})
OUTSIDE = ("BEHAVIOR.md", "../shared", "/work/shared")

CODE_CITATION = re.compile(r"docs/spec/(?P<page>[a-z0-9][a-z0-9-]*)\.md(?:#(?P<anchor>[\w-]+))?")
MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"(`+).+?\1", re.S)
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
TARGET = re.compile(r"^\((?P<name>[^)\s]+)\)=\s*$")
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
HEADING_ANCHOR_LEVELS = 3  # docs/conf.py: myst_heading_anchors


class Citation(NamedTuple):
    """One citation: the file and line it is on, the page it names, the anchor (if any), and
    its kind: ``"path"`` (``docs/spec/<page>.md`` in text) or ``"link"`` (a Markdown link)."""

    where: str
    page: Path
    anchor: str | None
    kind: str


def published_files(places: tuple[str, ...]) -> list[Path]:
    """The text files under ``places`` (a folder or a file each), in a stable order."""
    found: list[Path] = []
    for place in places:
        path = ROOT / place
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(
                candidate
                for candidate in sorted(path.rglob("*"))
                if candidate.is_file()
                and candidate.suffix in TEXT_SUFFIXES
                and not SKIPPED_PARTS & set(candidate.relative_to(ROOT).parts)
            )
    return found


def prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text, fenced code blocks blanked (line numbers kept)."""
    lines = text.split("\n")
    fence: str | None = None
    for number, line in enumerate(lines):
        match = FENCE.match(line)
        if fence is None:
            if match is not None:
                fence = match.group(1)
                lines[number] = ""
        else:
            lines[number] = ""
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
    return lines


def slug(title: str) -> str:
    """The anchor MyST gives a heading: its text, lower case, punctuation dropped, spaces as '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link shows its text
    text = text.replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """The anchors of a page: its explicit targets and the slugs of its headings (levels 1-3)."""
    names: set[str] = set()
    for line in prose_lines(page.read_text(encoding="utf-8")):
        target = TARGET.match(line)
        if target is not None:
            names.add(target["name"])
            continue
        heading = HEADING.match(line)
        if heading is not None and len(heading["level"]) <= HEADING_ANCHOR_LEVELS:
            names.add(slug(heading["title"]))
    return frozenset(names)


def explicit_targets(page: Path) -> list[str]:
    return [
        match["name"]
        for line in prose_lines(page.read_text(encoding="utf-8"))
        if (match := TARGET.match(line)) is not None
    ]


def code_citations(path: Path, text: str) -> list[Citation]:
    """Every ``docs/spec/<page>.md(#anchor)`` in a file, code spans and code blocks included."""
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        for match in CODE_CITATION.finditer(line):
            found.append(
                Citation(
                    f"{path.relative_to(ROOT).as_posix()}:{number}",
                    SPEC / f"{match['page']}.md",
                    match["anchor"],
                    "path",
                )
            )
    return found


def link_citations(path: Path, text: str) -> list[Citation]:
    """Every Markdown link of a page (outside code) whose target is a page of docs/spec/."""
    found = []
    base = ROOT if path.name == "CHANGELOG.md" else path.parent  # see docs/changelog.md
    for number, line in enumerate(prose_lines(text), 1):
        for match in MARKDOWN_LINK.finditer(INLINE_CODE.sub(" ", line)):
            target = match["target"]
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # another site
            file_part, _, anchor = target.partition("#")
            page = (base / file_part).resolve() if file_part else path.resolve()
            if page.parent == SPEC.resolve():
                where = f"{path.relative_to(ROOT).as_posix()}:{number}"
                found.append(Citation(where, page, anchor or None, "link"))
    return found


def all_citations() -> list[Citation]:
    citations: list[Citation] = []
    for path in published_files(LINK_PLACES):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".md":
            citations.extend(link_citations(path, text))
        if path.name != "CHANGELOG.md":
            citations.extend(code_citations(path, text))
    return citations


def broken(citations: list[Citation]) -> list[str]:
    """The citations that point nowhere, each as 'file:line: what is wrong'."""
    problems = []
    for citation in citations:
        if citation.page.suffix != ".md" or not citation.page.is_file():
            problems.append(f"{citation.where}: no page {citation.page.relative_to(ROOT)}")
        elif citation.anchor is not None and citation.anchor not in anchors(citation.page):
            page = citation.page.relative_to(ROOT).as_posix()
            problems.append(f"{citation.where}: {page} has no anchor #{citation.anchor}")
    return problems


# -- the repository's citations ------------------------------------------------------------------


CITATIONS = all_citations()


def test_every_citation_names_a_page_and_an_anchor_that_exist() -> None:
    assert broken(CITATIONS) == []


def test_the_citations_are_found() -> None:
    """The check above is not vacuous: the code and the docs cite the specification, by path
    and by link, and some citations name an anchor."""
    paths = [c for c in CITATIONS if c.kind == "path" and c.where.startswith("src/")]
    links = [c for c in CITATIONS if c.kind == "link" and c.where.startswith("docs/")]
    assert len(paths) >= 40, len(paths)
    assert len(links) >= 50, len(links)
    assert sum(c.anchor is not None for c in CITATIONS) >= 10
    assert {c.page.name for c in CITATIONS} >= {f"{p.stem}.md" for p in SPEC.glob("*.md")}


@pytest.mark.parametrize("place", PLACES)
def test_nothing_cites_a_file_outside_the_repository(place: str) -> None:
    mentions = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}"
        for path in published_files((place,))
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
        if any(outside in line for outside in OUTSIDE)
    ]
    assert mentions == []


def test_the_specification_has_one_page_per_section_and_an_index() -> None:
    pages = sorted(page.stem for page in SPEC.glob("*.md"))
    assert pages == sorted(
        [
            "index",
            "durations",
            "queue-tree",
            "configuration",
            "resolution",
            "protection",
            "jobs",
            "preemptibility",
            "filters",
            "validation",
            "evictable-tasks",
            "start-time",
            "session",
            "kubernetes",
            "errors",
            "differences",
            "beyond-min-runtime",
            "preemption-delay",
            "sub-group-trees",
            "plans",
        ]
    )


def test_explicit_targets_are_unique_across_the_docs() -> None:
    """Sphinx labels are global: one name, one place."""
    names = [
        name for page in sorted((ROOT / "docs").rglob("*.md")) for name in explicit_targets(page)
    ]
    assert sorted({name for name in names if names.count(name) > 1}) == []
    assert len(names) >= 18


# -- the checker itself --------------------------------------------------------------------------


def test_slug_is_the_anchor_myst_gives_a_heading() -> None:
    assert slug("Reclaim with the `lca` method (the default)") == (
        "reclaim-with-the-lca-method-the-default"
    )
    assert slug("4. Resolution") == "4-resolution"
    assert slug("The design documents' examples") == "the-design-documents-examples"
    assert slug("Times after `now`") == "times-after-now"


def test_anchors_are_the_targets_and_the_headings_up_to_level_three(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n(rule-one)=\n## First rule\n\n#### Deep\n\n```text\n(not-a-target)=\n"
        "## not a heading\n```\n",
        encoding="utf-8",
    )
    assert anchors(page) == {"title", "rule-one", "first-rule"}


def test_a_citation_of_a_missing_page_or_anchor_is_reported() -> None:
    source = ROOT / "src" / "minruntime" / "example.py"
    text = (
        '"""See docs/spec/resolution.md#resolution-lca, docs/spec/resolution.md#nowhere,\n'
        'docs/spec/nothing.md and docs/spec/filters.md."""\n'
    )
    assert broken(code_citations(source, text)) == [
        "src/minruntime/example.py:1: docs/spec/resolution.md has no anchor #nowhere",
        "src/minruntime/example.py:2: no page docs/spec/nothing.md",
    ]


def test_a_broken_link_is_reported_and_code_is_not_a_link() -> None:
    page = ROOT / "docs" / "example.md"
    text = (
        "See [LCA](spec/resolution.md#resolution-lca) and [bad](spec/resolution.md#bad),\n"
        "[gone](spec/gone.md), [other page](concepts.md#durations), `[code](spec/x.md)`.\n\n"
        "```markdown\n[in a block](spec/y.md)\n```\n"
    )
    assert broken(link_citations(page, text)) == [
        "docs/example.md:1: docs/spec/resolution.md has no anchor #bad",
        "docs/example.md:2: no page docs/spec/gone.md",
    ]


def test_links_from_the_changelog_are_read_from_the_repository_root() -> None:
    """docs/changelog.md includes CHANGELOG.md with ``:relative-docs: docs/``."""
    text = "- [section 4](docs/spec/resolution.md#resolution-examples)\n"
    assert link_citations(ROOT / "CHANGELOG.md", text) == [
        Citation("CHANGELOG.md:1", SPEC / "resolution.md", "resolution-examples", "link")
    ]

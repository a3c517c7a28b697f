"""The documentation runs and is complete.

Every ```pycon block of every page under docs/ (and of README.md, if it has any) is a doctest
session; a page's blocks run in order in one namespace. Every page is reachable from
docs/index.md, every relative link resolves, and every public name of ``minruntime`` appears
in the code of at least one page. The API reference (docs/reference.md) has one autodoc
directive for every public name of ``minruntime`` and of the modules it documents, and every
public class and function has a docstring for it to show.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from tests.world import PUBLIC_MODULES

import minruntime

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
INDEX = DOCS / "index.md"
REFERENCE = DOCS / "reference.md"
DECISIONS_INDEX = DOCS / "decisions" / "index.md"
SPEC_INDEX = DOCS / "spec" / "index.md"
README = ROOT / "README.md"

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
OPENING_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"(?P<ticks>`+)(?P<code>.+?)(?P=ticks)")


class Block(NamedTuple):
    """A fenced block: its language (the info string's first word), first line, and text."""

    language: str
    line: int
    text: str


def fenced_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order; ``line`` is 1-based."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = OPENING_FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        fence = match["fence"]
        info = match["info"].strip()
        language = info.split()[0] if info else ""
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            closing = lines[j].strip()
            if closing.startswith(fence[0] * len(fence)) and set(closing) == {fence[0]}:
                break
            body.append(lines[j])
            j += 1
        blocks.append(Block(language, i + 2, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def prose(text: str) -> str:
    """The text outside fenced blocks (code-block lines become blank lines)."""
    kept: list[str] = []
    lines = text.splitlines()
    inside: str | None = None
    for line in lines:
        if inside is None:
            match = OPENING_FENCE.match(line)
            if match is not None:
                inside = match["fence"]
                kept.append("")
                continue
            kept.append(line)
        else:
            closing = line.strip()
            if closing.startswith(inside) and set(closing) == {inside[0]}:
                inside = None
            kept.append("")
    return "\n".join(kept)


def pycon_blocks(text: str) -> list[Block]:
    return [block for block in fenced_blocks(text) if block.language == "pycon"]


def run_examples(name: str, filename: str, text: str) -> tuple[int, list[str]]:
    """Run a page's pycon blocks in order in one namespace.

    Returns the number of examples tried and the failure reports; each report starts with
    ``File "<filename>", line N, in <name> example K`` and shows the failed example.
    """
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    reports: list[str] = []
    for number, block in enumerate(pycon_blocks(text), 1):
        test = parser.get_doctest(
            block.text, namespace, f"{name} example {number}", filename, block.line - 1
        )
        runner.run(test, out=reports.append, clear_globs=False)
        namespace = test.globs
    return runner.tries, reports


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


DOC_PAGES = sorted(DOCS.rglob("*.md"))
EXAMPLE_PAGES = DOC_PAGES + (
    [README] if README.exists() and pycon_blocks(README.read_text(encoding="utf-8")) else []
)


def local_links(page: Path) -> list[Path]:
    """The local files a page links to (outside code), anchors stripped, resolved."""
    targets = []
    for match in LINK.finditer(prose(page.read_text(encoding="utf-8"))):
        target = match["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        targets.append((page.parent / target.split("#", 1)[0]).resolve())
    return targets


def toctree_entries(page: Path) -> list[Path]:
    """The documents a page's ```{toctree} blocks list, resolved to .md files."""
    entries = []
    for block in fenced_blocks(page.read_text(encoding="utf-8")):
        if block.language != "{toctree}":
            continue
        for line in block.text.splitlines():
            entry = line.strip()
            if entry and not entry.startswith(":"):
                entries.append((page.parent / f"{entry}.md").resolve())
    return entries


# -- the examples run ------------------------------------------------------------------------


@pytest.mark.usefixtures("few_examples")
@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=relative)
def test_page_examples_run(page: Path) -> None:
    attempted, reports = run_examples(relative(page), str(page), page.read_text(encoding="utf-8"))
    assert reports == [], f"{relative(page)}: example(s) failed:\n" + "\n".join(reports)
    assert attempted == sum(
        len(parser_examples(block)) for block in pycon_blocks(page.read_text(encoding="utf-8"))
    )


def parser_examples(block: Block) -> list[doctest.Example]:
    return doctest.DocTestParser().get_examples(block.text)


def test_docs_have_runnable_examples() -> None:
    counts = {
        relative(page): len(pycon_blocks(page.read_text(encoding="utf-8"))) for page in DOC_PAGES
    }
    assert counts[relative(INDEX)] >= 1
    assert sum(counts.values()) >= 50, counts


@pytest.mark.parametrize("page", DOC_PAGES, ids=relative)
def test_every_pycon_block_has_an_example(page: Path) -> None:
    empty = [
        block.line
        for block in pycon_blocks(page.read_text(encoding="utf-8"))
        if not parser_examples(block)
    ]
    assert empty == [], f"{relative(page)}: pycon blocks without a '>>> ' line at lines {empty}"


@pytest.mark.parametrize("page", [*DOC_PAGES, README], ids=relative)
def test_doctest_sessions_are_only_in_pycon_blocks(page: Path) -> None:
    """A '>>> ' session in a block of another language would never run: mark it pycon."""
    stray = [
        (block.language, block.line)
        for block in fenced_blocks(page.read_text(encoding="utf-8"))
        if block.language != "pycon"
        and any(line.startswith(">>> ") for line in block.text.splitlines())
    ]
    assert stray == []


def test_a_failing_example_is_reported_with_its_page_and_example() -> None:
    page = "# Title\n\n```pycon\n>>> x = 1\n```\n\nText.\n\n```pycon\n>>> x + 1\n3\n```\n"
    attempted, reports = run_examples("docs/broken.md", "docs/broken.md", page)
    assert attempted == 2
    assert len(reports) == 1
    assert 'File "docs/broken.md", line 10, in docs/broken.md example 2' in reports[0]
    assert "Failed example:\n    x + 1\nExpected:\n    3\nGot:\n    2\n" in reports[0]


def test_blocks_of_a_page_share_one_namespace_but_pages_do_not() -> None:
    first = "# A\n\n```pycon\n>>> shared = 41\n```\n\n```pycon\n>>> shared + 1\n42\n```\n"
    second = "# B\n\n```pycon\n>>> shared\n41\n```\n"
    assert run_examples("a.md", "a.md", first) == (2, [])
    attempted, reports = run_examples("b.md", "b.md", second)
    assert attempted == 1
    assert "NameError: name 'shared' is not defined" in reports[0]


def test_fenced_blocks_reads_language_line_and_text() -> None:
    text = "# T\n\n````markdown\n```pycon\n>>> 1\n```\n````\n\n```pycon\n>>> 2\n2\n```\n"
    assert fenced_blocks(text) == [
        Block("markdown", 4, "```pycon\n>>> 1\n```\n"),
        Block("pycon", 10, ">>> 2\n2\n"),
    ]


# -- every page is reachable and every link resolves -----------------------------------------


def test_every_page_is_linked_from_the_index() -> None:
    reachable = set(local_links(INDEX))
    assert DECISIONS_INDEX.resolve() in reachable
    assert SPEC_INDEX.resolve() in reachable
    reachable |= set(local_links(DECISIONS_INDEX)) | set(local_links(SPEC_INDEX))
    unlinked = [relative(page) for page in DOC_PAGES if page != INDEX and page not in reachable]
    assert unlinked == []


def test_every_page_is_in_a_toctree() -> None:
    """So that a Sphinx (MyST) build of docs/ has no orphan page."""
    listed = set(toctree_entries(INDEX)) | set(toctree_entries(DECISIONS_INDEX))
    listed |= set(toctree_entries(SPEC_INDEX))
    assert DECISIONS_INDEX.resolve() in set(toctree_entries(INDEX))
    assert SPEC_INDEX.resolve() in set(toctree_entries(INDEX))
    missing = [relative(page) for page in DOC_PAGES if page != INDEX and page not in listed]
    assert missing == []


@pytest.mark.parametrize("page", [*DOC_PAGES, README], ids=relative)
def test_relative_links_resolve(page: Path) -> None:
    broken = [str(target) for target in local_links(page) if not target.exists()]
    assert broken == []


@pytest.mark.parametrize("page", DOC_PAGES, ids=relative)
def test_page_has_exactly_one_title(page: Path) -> None:
    lines = prose(page.read_text(encoding="utf-8")).splitlines()
    titles = [line for line in lines if line.startswith("# ")]
    assert len(titles) == 1, titles
    assert next(line for line in lines if line.strip()) == titles[0]


# -- the decision records ----------------------------------------------------------------------

DECISION_PAGES = sorted(
    page for page in (DOCS / "decisions").glob("*.md") if page.name != "index.md"
)
DECISION_SECTIONS = ("## The situation", "## The options", "## What we chose", "## Why")


@pytest.mark.parametrize("page", DECISION_PAGES, ids=relative)
def test_decision_page_has_situation_options_choice_and_why(page: Path) -> None:
    headings = [
        line for line in prose(page.read_text(encoding="utf-8")).splitlines() if line[:3] == "## "
    ]
    positions = [headings.index(section) for section in DECISION_SECTIONS if section in headings]
    assert [headings[p] for p in positions] == list(DECISION_SECTIONS)
    assert positions == sorted(positions)


def decision_kind(page: Path) -> str:
    """``library`` or ``simulator`` for a choice of ours, ``contract`` for a contract's row."""
    header = page.read_text(encoding="utf-8").split("\n## ", 1)[0]
    if "minruntime choice" in header:
        return "library"
    return "simulator" if "simulator choice" in header else "contract"


def test_decision_pages_are_the_contracts_rows_and_the_libraries_choices() -> None:
    kinds = [decision_kind(page) for page in DECISION_PAGES]
    assert kinds.count("contract") == 12  # the rows of docs/spec/differences.md#differences-table
    assert kinds.count("library") == 37  # choices where the contract was silent or contradictory
    assert kinds.count("simulator") == 6  # the simulator's choices where its issue was silent


# -- the docs cover the public API -------------------------------------------------------------


def documented_code() -> str:
    """All code on every page: fenced blocks and inline code spans."""
    parts: list[str] = []
    for page in DOC_PAGES:
        text = page.read_text(encoding="utf-8")
        parts.extend(block.text for block in fenced_blocks(text))
        parts.extend(match["code"] for match in INLINE_CODE.finditer(prose(text)))
    return "\n".join(parts)


def test_every_public_name_appears_in_the_docs() -> None:
    code = documented_code()
    missing = [
        name
        for name in minruntime.__all__
        if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", code) is None
    ]
    assert missing == []


# -- the API reference is generated from every public name's docstring -------------------------

REFERENCE_MODULES = PUBLIC_MODULES
AUTODOC = re.compile(
    r"^\.\. auto(?:class|function|data|exception)::\s+(?P<name>[\w.]+)\s*$", re.MULTILINE
)


def autodoc_targets(text: str) -> list[str]:
    """The objects the ```{eval-rst} blocks of a page document with an autodoc directive."""
    return [
        match["name"]
        for block in fenced_blocks(text)
        if block.language == "{eval-rst}"
        for match in AUTODOC.finditer(block.text)
    ]


def public_objects() -> dict[str, object]:
    """Every public name, by the dotted name it is documented under, and its object.

    A name of a module that ``minruntime`` re-exports is documented where users import it,
    as ``minruntime.NAME``.
    """
    objects = {f"minruntime.{name}": getattr(minruntime, name) for name in minruntime.__all__}
    for module_name in REFERENCE_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if name in minruntime.__all__ and getattr(minruntime, name) is value:
                continue
            objects[f"{module_name}.{name}"] = value
    return objects


def test_autodoc_targets_reads_the_directives_of_eval_rst_blocks() -> None:
    page = (
        "# R\n\n```{eval-rst}\n.. autoclass:: minruntime.Session\n   :members:\n\n"
        ".. autofunction:: minruntime.kube.read_snapshot\n```\n\n"
        "```rst\n.. autodata:: minruntime.FOREVER\n```\n"
    )
    assert autodoc_targets(page) == ["minruntime.Session", "minruntime.kube.read_snapshot"]


def test_reference_has_one_autodoc_directive_per_public_name() -> None:
    targets = autodoc_targets(REFERENCE.read_text(encoding="utf-8"))
    expected = set(public_objects())
    assert sorted(expected - set(targets)) == []  # public names the reference leaves out
    assert sorted(set(targets) - expected) == []  # directives for names that are not public
    assert sorted(name for name in set(targets) if targets.count(name) > 1) == []


def test_every_public_class_and_function_has_a_docstring() -> None:
    missing = [
        name
        for name, value in public_objects().items()
        if (inspect.isclass(value) or inspect.isfunction(value))
        and not (value.__doc__ or "").strip()
    ]
    assert missing == []

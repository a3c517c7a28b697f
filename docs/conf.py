"""Sphinx configuration: MyST Markdown pages, the API reference generated from docstrings.

Build (warnings are errors, as in CI)::

    pip install ".[docs]" && python -m sphinx -W -b html docs docs/_build/html
"""

from __future__ import annotations

import logging
import pkgutil
import re
from functools import cache
from typing import TYPE_CHECKING, Any, Final

import minruntime

if TYPE_CHECKING:  # Sphinx is imported where it is used: the tests read this file without it
    from docutils.nodes import Node, system_message
    from docutils.parsers.rst.states import Inliner
    from sphinx.application import Sphinx

project = "minruntime"
author = "minruntime contributors"
copyright = "minruntime contributors"
release = minruntime.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_copybutton",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# -- MyST ---------------------------------------------------------------------------------------

myst_heading_anchors = 3

# -- autodoc and napoleon (Google-style docstrings: Args, Returns, Raises, Attributes) -----------

autodoc_member_order = "bysource"
autodoc_class_signature = "mixed"
autodoc_typehints = "signature"
# a signature's builtin ``object`` is looked up as a name, and finds the ``object`` attributes of
# InvalidObject and kube.Problem: an ambiguity of the lookup, not of the docs
suppress_warnings = ["ref.python"]
add_module_names = False
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

# -- HTML ---------------------------------------------------------------------------------------

html_theme = "furo"
# Everything a page needs is in the build: no script or style from another site (offline reading).
html_static_path = ["_static"]
html_css_files = ["tables.css"]
html_title = f"minruntime {release}"
pygments_style = "sphinx"
pygments_dark_style = "monokai"

# -- the copy button (sphinx-copybutton: its script and style are in the build) -------------------
#
# It copies a session's input without its prompts (``>>> ``, ``... ``, ``$ ``) and without the
# output lines (the lines without a prompt); a block without any prompt is copied whole.

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True


# -- docstrings of re-exported constants ----------------------------------------------------------
#
# A constant's docstring is the string literal after its assignment, which only the source of the
# module that assigns it holds. The reference documents the public names where users import
# them (``minruntime.FOREVER``, not ``minruntime._time.FOREVER``), so autodoc, reading the
# source of ``minruntime/__init__.py``, would not find it: take it from the defining module.


@cache
def _attribute_docs() -> dict[str, list[str]]:
    from sphinx.errors import PycodeError
    from sphinx.pycode import ModuleAnalyzer

    docs: dict[str, list[str]] = {}
    for module in pkgutil.iter_modules(minruntime.__path__, "minruntime."):
        if module.ispkg:
            continue
        try:
            attr_docs = ModuleAnalyzer.for_module(module.name).find_attr_docs()
        except PycodeError:
            continue
        for (scope, name), lines in attr_docs.items():
            if scope == "":
                docs.setdefault(name, list(lines))
    return docs


def _constant_docstring(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    module, _, attribute = name.rpartition(".")
    if what == "data" and module == "minruntime":
        # Without this, a value without a comment docstring here shows its type's docstring.
        lines[:] = _attribute_docs().get(attribute, [])


# -- one-paragraph docstrings of attributes and properties ----------------------------------------
#
# napoleon reads the first line of an attribute's or a property's docstring as ``type:
# description``; here those docstrings are prose ("Holds resources: Allocated, ..."), so they
# bypass napoleon: the lines are kept before it runs and put back after.

_BYPASS: Final = frozenset({"attribute", "property", "data"})
_kept: dict[str, list[str]] = {}


def _keep_prose(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if what in _BYPASS:
        _kept[name] = list(lines)


def _restore_prose(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if what in _BYPASS and name in _kept:
        lines[:] = _kept.pop(name)


# -- signatures ------------------------------------------------------------------------------------


def _signature(
    app: Sphinx,
    what: str,
    name: str,
    obj: Any,
    options: Any,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str, str | None] | None:
    """Signatures as a reader wants them.

    A protocol is not instantiated: ``JobLike``, not ``JobLike(*args, **kwargs)``. An attrs
    field whose default is a factory shows ``<factory>`` (as a dataclass does), not attrs's
    ``NOTHING`` sentinel. A private parameter (``_resolver``: the library's own, passed between
    its objects) is left out.
    """
    if what == "class" and getattr(obj, "_is_protocol", False):
        return "", return_annotation
    if signature is None:
        return None
    shown = public_signature(signature).replace("= NOTHING", "= <factory>")
    return (shown, return_annotation) if shown != signature else None


def _top_level_split(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, current = [], 0, "", ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return parts


def public_signature(signature: str) -> str:
    """A signature without its private parameters (named ``_...``), and without a bare ``*``
    left with nothing after it.

    >>> public_signature("(tree: QueueTree, *, task_order=None, _resolver: Resolver | None = None)")
    '(tree: QueueTree, *, task_order=None)'
    >>> public_signature("(a, *, _b=1)")
    '(a)'
    """
    if not (signature.startswith("(") and signature.endswith(")")):
        return signature
    kept = [
        part.strip()
        for part in _top_level_split(signature[1:-1])
        if not part.strip().lstrip("*").startswith("_")
    ]
    if kept and kept[-1] == "*":
        kept.pop()
    return "(" + ", ".join(kept) + ")"


# -- file references in docstrings are links --------------------------------------------------------
#
# Docstrings cite the docs by path, as a reader of the source finds them: ``docs/spec/jobs.md``
# or docs/spec/jobs.md#jobs-elastic, with or without the literal quotes. In the built reference
# each such path is a link to the page it names (and to the section its anchor names), still
# shown as the path; a path to a page or anchor that does not exist is a warning (MyST's), so an
# error under -W.

DOCS_PATH: Final = re.compile(
    r"(?<![\w/`])(?P<quote>``)?docs/(?P<page>[\w-]+(?:/[\w-]+)*)\.md(?:#(?P<anchor>[\w-]+))?"
    r"(?(quote)``)"
)
_ROLE: Final = "docs-path"


def link_docs_paths(lines: list[str]) -> list[str]:
    """A docstring's lines with each ``docs/...md`` path outside examples and literal blocks
    made a ``:docs-path:`` reference.

    >>> link_docs_paths(["See docs/spec/jobs.md#jobs-elastic.", "", ">>> 'docs/spec/jobs.md'"])
    ['See :docs-path:`docs/spec/jobs.md#jobs-elastic`.', '', ">>> 'docs/spec/jobs.md'"]
    """
    out: list[str] = []
    verbatim: int | None = None  # the indentation a literal block is deeper than
    example = False
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if verbatim is not None and stripped and indent <= verbatim:
            verbatim = None
        if example and not stripped:
            example = False
        if stripped.startswith(">>>"):
            example = True
        if verbatim is not None or example:
            out.append(line)
            continue
        out.append(DOCS_PATH.sub(_docs_path_markup, line))
        if stripped.endswith("::"):
            verbatim = indent
    return out


def _docs_path_markup(match: re.Match[str]) -> str:
    target = match.group(0).strip("`")
    return f":{_ROLE}:`{target}`"


def _docs_path_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Inliner,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[Node], list[system_message]]:
    """``docs/PAGE.md#ANCHOR`` as a link to the page (and section), shown as the path: MyST
    resolves it as it resolves a Markdown link to the page."""
    from docutils import nodes
    from sphinx import addnodes

    path, _, anchor = text.partition("#")
    page = path.removeprefix("docs/").removesuffix(".md")
    reference = addnodes.pending_xref(
        rawtext,
        refdomain="doc",
        reftype="myst",
        reftarget=page,
        reftargetid=anchor or None,
        refexplicit=True,
        refdoc=inliner.document.settings.env.docname,
    )
    shown = nodes.inline("", "", classes=["xref", "myst"])
    shown += nodes.literal(text, text)
    reference += shown
    return [reference], []


def _link_docs_paths(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    lines[:] = link_docs_paths(lines)


# -- a quiet build --------------------------------------------------------------------------------
#
# MyST logs its whole configuration (a line of about a thousand characters) at every build; the
# build says only its version.


class ShortMystConfig(logging.Filter):
    """Shortens MyST's configuration line to its version; passes every other record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "myst v%s:" in str(record.msg) and isinstance(record.args, tuple) and record.args:
            record.msg, record.args = "myst v%s", record.args[:1]
        return True


MYST_LOGGER: Final = "sphinx.myst_parser.sphinx_ext.main"


def setup(app: Sphinx) -> None:
    myst_logger = logging.getLogger(MYST_LOGGER)
    if not any(isinstance(existing, ShortMystConfig) for existing in myst_logger.filters):
        myst_logger.addFilter(ShortMystConfig())
    app.add_role(_ROLE, _docs_path_role)
    app.connect("autodoc-process-docstring", _link_docs_paths, priority=700)
    app.connect("autodoc-process-docstring", _constant_docstring, priority=300)
    app.connect("autodoc-process-docstring", _keep_prose, priority=400)  # napoleon: 500
    app.connect("autodoc-process-docstring", _restore_prose, priority=600)
    app.connect("autodoc-process-signature", _signature)

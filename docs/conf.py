"""Sphinx configuration: MyST Markdown pages, the API reference generated from docstrings.

Build (warnings are errors, as in CI)::

    pip install ".[docs]" && python -m sphinx -W -b html docs docs/_build/html
"""

from __future__ import annotations

import pkgutil
from functools import cache
from typing import Any, Final

from sphinx.application import Sphinx
from sphinx.errors import PycodeError
from sphinx.pycode import ModuleAnalyzer

import minruntime

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


# -- docstrings of re-exported constants ----------------------------------------------------------
#
# A constant's docstring is the string literal after its assignment, which only the source of the
# module that assigns it holds. The reference documents the public names where users import
# them (``minruntime.FOREVER``, not ``minruntime._time.FOREVER``), so autodoc, reading the
# source of ``minruntime/__init__.py``, would not find it: take it from the defining module.


@cache
def _attribute_docs() -> dict[str, list[str]]:
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
    ``NOTHING`` sentinel.
    """
    if what == "class" and getattr(obj, "_is_protocol", False):
        return "", return_annotation
    if signature is not None and "= NOTHING" in signature:
        return signature.replace("= NOTHING", "= <factory>"), return_annotation
    return None


def setup(app: Sphinx) -> None:
    app.connect("autodoc-process-docstring", _constant_docstring, priority=300)
    app.connect("autodoc-process-docstring", _keep_prose, priority=400)  # napoleon: 500
    app.connect("autodoc-process-docstring", _restore_prose, priority=600)
    app.connect("autodoc-process-signature", _signature)

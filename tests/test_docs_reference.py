"""The API reference reads like a library's, and the docs build is quiet.

What the reference renders (docs/reference.md's prose, the docstrings of the names it documents
and of their members, the modules' own docstrings) names no private module and says
"min-runtime", not "MR"; the signatures it shows have no private parameter; the paths to docs
pages in those docstrings become links. The build shortens MyST's configuration line, and the
copy button strips the prompts. These read docs/conf.py and the docstrings, without building
the docs (Sphinx is imported only by the hooks the build calls).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
import re
import tomllib
from functools import cache
from types import ModuleType
from typing import Any

from tests.test_docs import REFERENCE, ROOT, fenced_blocks, prose, public_objects

DOCS = ROOT / "docs"
AUTO = re.compile(
    r"^\.\. auto(?P<kind>class|function|data|exception|module)::\s+(?P<name>[\w.]+)\s*$",
    re.MULTILINE,
)
PRIVATE_MODULE = re.compile(r"minruntime(?:\.\w+)*\._[a-z]\w*|``_[a-z]\w*``")
MR = re.compile(r"\bMR\b")


@cache
def conf() -> ModuleType:
    """docs/conf.py, as Sphinx reads it."""
    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def documented() -> list[tuple[str, str, Any]]:
    """Each directive of the reference: its kind, the name and the object."""
    objects = public_objects()
    found: list[tuple[str, str, Any]] = []
    for block in fenced_blocks(REFERENCE.read_text(encoding="utf-8")):
        if block.language != "{eval-rst}":
            continue
        for match in AUTO.finditer(block.text):
            name = match["name"]
            if match["kind"] == "module":
                found.append(("module", name, importlib.import_module(name)))
            else:
                found.append((match["kind"], name, objects[name]))
    return found


def members(value: Any) -> list[tuple[str, Any]]:
    """The public members a class defines itself (what ``:members:`` may show)."""
    if not inspect.isclass(value):
        return []
    return [(name, member) for name, member in vars(value).items() if not name.startswith("_")]


def rendered_texts() -> dict[str, str]:
    """What the reference page shows in words, by where it comes from."""
    texts = {"docs/reference.md": prose(REFERENCE.read_text(encoding="utf-8"))}
    for kind, name, value in documented():
        if kind != "data":
            texts[name] = inspect.getdoc(value) or ""
        for member_name, member in members(value):
            doc = inspect.getdoc(member.fget if isinstance(member, property) else member)
            if doc and doc != inspect.getdoc(type(member)):
                texts[f"{name}.{member_name}"] = doc
    return texts


def test_the_reference_names_no_private_module() -> None:
    named = {
        where: sorted(set(PRIVATE_MODULE.findall(text)))
        for where, text in rendered_texts().items()
        if PRIVATE_MODULE.search(text)
    }
    assert named == {}


def test_the_reference_says_min_runtime_not_mr() -> None:
    assert [where for where, text in rendered_texts().items() if MR.search(text)] == []


def test_only_the_pages_that_define_mr_use_it() -> None:
    """concepts.md defines MR, and so does the specification's index for its pages; a command's
    own output (a column named ``MR (FROM)``) is quoted as it is."""
    defining = {"concepts.md"}
    using = sorted(
        page.relative_to(DOCS).as_posix()
        for page in DOCS.rglob("*.md")
        if "_build" not in page.parts
        and page.name not in defining
        and page.parent.name != "spec"
        and MR.search(re.sub(r"`[^`]*`", "", prose(page.read_text(encoding="utf-8"))))
    )
    assert using == []


def test_signatures_shown_have_no_private_parameter() -> None:
    shown = []
    for _kind, name, value in documented():
        for where, callable_ in [(name, value), *members(value)]:
            target = callable_.fget if isinstance(callable_, property) else callable_
            if not callable(target):
                continue
            try:
                found = inspect.signature(target)
            except (TypeError, ValueError):
                continue
            # Sphinx hands the hook the parameters without the return annotation
            signature = str(found.replace(return_annotation=inspect.Signature.empty))
            public = conf().public_signature(signature)
            if re.search(r"[(,]\s*\**_\w", public):
                shown.append(f"{where}{public}")
    assert shown == []


def test_private_parameters_are_left_out_of_a_signature() -> None:
    public_signature = conf().public_signature
    assert (
        public_signature(
            "(tree: QueueTree, config: Config, *, task_order: Callable[[TaskLike], Any] | None"
            " = None, _resolver: Resolver | None = None)"
        )
        == "(tree: QueueTree, config: Config, *, task_order: Callable[[TaskLike], Any] | None"
        " = None)"
    )
    assert public_signature("(a, *, _b=1)") == "(a)"
    assert public_signature("(a, b='x, _c')") == "(a, b='x, _c')"
    assert public_signature("(*args, **_kwargs)") == "(*args)"
    assert public_signature("") == ""


def test_docs_paths_in_docstrings_become_links_outside_examples() -> None:
    link = conf().link_docs_paths
    lines = [
        "One bad object (``docs/spec/kubernetes.md``); see docs/spec/jobs.md#jobs-elastic.",
        "Not a path: mydocs/x.md, nor src/docs/y.md.",
        "",
        ">>> print('docs/spec/jobs.md')",
        "docs/spec/jobs.md",
        "",
        "A literal block::",
        "",
        "    docs/spec/jobs.md",
        "",
        "After it, docs/decisions/core-pods.md.",
    ]
    assert link(lines) == [
        "One bad object (:docs-path:`docs/spec/kubernetes.md`); see"
        " :docs-path:`docs/spec/jobs.md#jobs-elastic`.",
        "Not a path: mydocs/x.md, nor src/docs/y.md.",
        "",
        ">>> print('docs/spec/jobs.md')",
        "docs/spec/jobs.md",
        "",
        "A literal block::",
        "",
        "    docs/spec/jobs.md",
        "",
        "After it, :docs-path:`docs/decisions/core-pods.md`.",
    ]


def test_every_docs_path_the_reference_links_is_a_page() -> None:
    """(Anchors of the specification are checked by tests/test_citations.py; the build with -W
    fails on any link MyST cannot resolve.)"""
    paths = {
        match["page"]
        for text in rendered_texts().values()
        for match in conf().DOCS_PATH.finditer(text)
    }
    assert len(paths) >= 10
    assert sorted(page for page in paths if not (DOCS / f"{page}.md").is_file()) == []


def test_the_build_shortens_myst_configuration_line() -> None:
    """MyST logs ``myst v<version>: <its whole configuration>`` (about 1,000 characters) at
    every build; the filter conf.py installs keeps ``myst v<version>``."""
    configuration = "MdParserConfig(" + ", ".join(f"option_{i}=False" for i in range(60)) + ")"
    record = logging.LogRecord(
        conf().MYST_LOGGER,
        logging.INFO,
        __file__,
        1,
        "myst v%s: %s",
        ("5.2.0", configuration),
        None,
    )
    assert len(record.getMessage()) > 1000
    assert conf().ShortMystConfig().filter(record)
    assert record.getMessage() == "myst v5.2.0"
    other = logging.LogRecord("sphinx", logging.INFO, __file__, 1, "build %s", ("succeeded",), None)
    assert conf().ShortMystConfig().filter(other)
    assert other.getMessage() == "build succeeded"


def test_setup_installs_the_filter_once_and_the_link_role() -> None:
    calls: list[tuple[str, str]] = []

    class App:
        def add_role(self, name: str, role: object) -> None:
            calls.append(("role", name))

        def connect(self, event: str, handler: object, priority: int = 500) -> None:
            calls.append(("connect", event))

    logger = logging.getLogger(conf().MYST_LOGGER)
    before = list(logger.filters)
    try:
        conf().setup(App())
        conf().setup(App())
        added = [f for f in logger.filters if f not in before]
        assert [type(f).__name__ for f in added] == ["ShortMystConfig"]
    finally:
        for added_filter in [f for f in logger.filters if f not in before]:
            logger.removeFilter(added_filter)
    assert ("role", "docs-path") in calls


def test_the_copy_button_strips_prompts_and_output() -> None:
    configuration = conf()
    assert "sphinx_copybutton" in configuration.extensions
    assert configuration.copybutton_prompt_is_regexp is True
    assert configuration.copybutton_only_copy_prompt_lines is True
    assert configuration.copybutton_remove_prompts is True
    prompt = re.compile(f"^({configuration.copybutton_prompt_text})(.*)")
    session = [">>> x = 1", "... y = 2", "$ minruntime explain", "MinRuntime('5m')", "..."]
    copied = [match.group(2) for line in session if (match := prompt.match(line))]
    assert copied == ["x = 1", "y = 2", "minruntime explain"]
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    docs = extra["project"]["optional-dependencies"]["docs"]
    assert any(requirement.startswith("sphinx-copybutton") for requirement in docs)


def test_the_faq_is_linked_from_the_index_and_the_readme() -> None:
    assert "(faq.md)" in (DOCS / "index.md").read_text(encoding="utf-8")
    assert "(docs/faq.md)" in (ROOT / "README.md").read_text(encoding="utf-8")

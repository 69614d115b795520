"""The Jinja environment pages are rendered with: relative links, dict-first lookups, and the
partials' macros bound once per page depth."""

from __future__ import annotations

import contextlib
import functools
import secrets
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from jinja2 import (
    BytecodeCache,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    nodes,
    pass_context,
    select_autoescape,
)
from jinja2.bccache import Bucket
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Context, Macro
from markupsafe import Markup, escape

from ..bundled import BUNDLED
from ..cache.stores import load_pickle, save_pickle
from ..diagnostics import ConfsiteError, SourceLoc
from ..model.urls import page_path
from .ahead import MarkupAhead
from .labels import UNTITLED

# Characters of rendered cards kept per process: every paper's brief card and line at 100,000
# papers (about 150 MB), bounded for programs whose cards are far longer.
MEMOIZED_MACRO_CHARS = 200_000_000
TEMPLATES_FILE = "templates.pickle"  # in the project's cache folder, see `KeptBytecode`
# The root cards rendered ahead link from (see `MemoizedMacro`). Markup, so `link` keeps it
# as it is. Drawn at random when this module is imported (the workers a build forks inherit
# it): no scraped text can hold it, not even markup made unescaped, as latex2mathml's text is.
ROOT_MARK = Markup(f"&confsite-root-{secrets.token_hex(16)};")
# Macros of the partials that every template can call without importing them.
PARTIAL_MACROS = (
    ("partials/paper_card.html", "paper_title"),
    ("partials/authors.html", "author_list"),
    ("partials/badges.html", "badges"),
    ("partials/pager.html", "page_list"),
)


@pass_context
def link(context: Context, url: str) -> str:
    """A relative link from the current page to a site path (`papers/x/` → `../../papers/x/
    index.html`). Directory links name index.html so the site also works opened from disk."""
    return context["root"] + page_path(url)


class PartialModules:
    """The partial templates made into modules once per page depth, not once per page (as an
    import `with context` would): their links are relative, so depend on the depth alone."""

    def __init__(self, environment: Environment) -> None:
        self.environment = environment
        self._modules: dict[tuple[str, str], Any] = {}

    def macro(self, template: str, name: str, root: str) -> Macro:
        module = self._modules.get((template, root))
        if module is None:
            module = self.environment.get_template(template).make_module({"root": root})
            self._modules[(template, root)] = module
        return getattr(module, name)

    def global_macro(self, template: str, name: str) -> Callable:
        """A partial's macro as a global, called as on the page that calls it."""

        @pass_context
        def call(context: Context, *args: Any, **options: Any) -> Markup:
            return self.macro(template, name, context["root"])(*args, **options)

        return call


class MemoizedMacro:
    """A partial's macro as a global that renders each (paper, page depth, options) once,
    for the calls whose options are `kept`.

    A paper's brief card appears on the pages of all its authors, so it is rendered once
    per depth rather than once per appearance. Kept for the whole build: with a bounded
    few, authors' pages, which list papers from all over the program, made most of them
    again.

    Cards rendered ahead (`render_ahead`, before the page workers fork) are kept in one
    buffer (see render/ahead.py). They are rendered with `ROOT_MARK` for the page's root, put
    in its place when a page shows one: the listing of all papers shows them two folders
    deeper from its second page on than from its first."""

    def __init__(
        self,
        partials: PartialModules,
        template: str,
        name: str,
        kept: Callable[[dict[str, Any]], bool],
    ) -> None:
        self._macro = functools.partial(partials.macro, template, name)
        self._kept = kept
        self._cache: OrderedDict[tuple, Markup] = OrderedDict()
        self._held = 0
        # Cards rendered ahead, and the options they were rendered for.
        self._ahead_for: tuple | None = None
        self._ahead = MarkupAhead()

    @pass_context
    def __call__(self, context: Context, paper: dict[str, Any], **options: Any) -> Markup:
        root, settings = context["root"], tuple(sorted(options.items()))
        if settings == self._ahead_for:
            ahead = self._ahead.get(paper["id"])
            if ahead is not None:
                return Markup(ahead.replace(ROOT_MARK, root))
        key = (paper["id"], root, settings)
        html = self._cache.get(key)
        if html is None:
            html = self._macro(root)(paper, **options)
            if self._kept(options):
                self._cache[key] = html
                self._held += len(html)
                while self._held > MEMOIZED_MACRO_CHARS:
                    self._held -= len(self._cache.popitem(last=False)[1])
        return html

    def render_ahead(self, papers: Iterable[dict[str, Any]], **options: Any) -> None:
        """Render the papers' cards as pages calling with `options` will show them, at any
        depth, into the buffer (which they replace)."""
        macro = self._macro(ROOT_MARK)
        self._ahead_for = tuple(sorted(options.items()))
        self._ahead = MarkupAhead()
        for paper in papers:
            self._ahead.add(paper["id"], str(macro(paper, **options)))


# The templates whose calls of the card macros `render_cards_ahead` renders as they make
# them, and those the macros call; a theme's own may call them otherwise, or read the root
# the cards are rendered ahead with (`ROOT_MARK`) as more than text to output.
CARDS_AHEAD_FOR = (
    "author.html",
    "paper.html",
    "papers.html",
    "partials/paper_card.html",
    "partials/authors.html",
    "partials/badges.html",
)


def cards_ahead_fit(theme_dir: Path | None) -> bool:
    """Whether the cards rendered ahead are those the pages show: the theme overrides none of
    the templates that call them or define them."""
    return theme_dir is None or not any(
        (theme_templates(theme_dir) / name).exists() for name in CARDS_AHEAD_FOR
    )


def theme_templates(theme_dir: Path) -> Path:
    """Where a theme's templates are, each overriding the bundled one of its name."""
    return theme_dir / "templates"


def render_cards_ahead(environment: Environment, cards: list[dict[str, Any]]) -> None:
    """Render every card as authors' pages show it (`author.html`) and its line as paper
    pages list it among related papers (`paper.html`) and the listing of all papers lists it
    (`papers.html`)."""
    environment.globals["paper_card"].render_ahead(cards, heading="h3", show_abstract=False)
    environment.globals["paper_line"].render_ahead(cards)


class KeptBytecode(BytecodeCache):
    """The templates' compiled code, kept between builds in one file of the project's cache
    folder under the build's fingerprint (confsite, its templates, the theme's, the installed
    distributions) and the interpreter's bytecode tag: compiling them all took about 50 ms
    of every build that renders, loading them 2 ms. Jinja checks each template's source
    against its code's checksum too. Best effort, as every cache: code that does not load is
    compiled again."""

    def __init__(self, folder: Path, fingerprint: bytes) -> None:
        self._path = folder / TEMPLATES_FILE
        self._tag = fingerprint + sys.implementation.cache_tag.encode()
        self._kept: dict[str, bytes] = load_pickle(self._path, self._tag, dict) or {}
        self._used: dict[str, bytes] = {}  # this build's, saved in place of the kept

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._kept.get(bucket.key)
        if code is None:
            return
        try:
            bucket.bytecode_from_string(code)
        except Exception:  # a damaged entry: Jinja lets its unpickling's errors through
            bucket.reset()
        if bucket.code is not None:  # else compiled again, and dumped
            self._used[bucket.key] = code

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._used[bucket.key] = bucket.bytecode_to_string()

    def save(self) -> None:
        """Kept for the next build when any template was compiled anew."""
        if self._used != self._kept:
            save_pickle(self._path, self._tag, self._used)


def compiled_environment(
    theme_dir: Path | None, cache_folder: Path | None, fingerprint: bytes
) -> Environment:
    """The pages' environment with every template compiled, or loaded as the last build kept
    it in `cache_folder` (none: compiled, nothing kept), and what it compiled kept."""
    kept = KeptBytecode(cache_folder, fingerprint) if cache_folder is not None else None
    environment = make_environment(theme_dir, kept)
    compile_templates_ahead(environment)
    if kept is not None:
        kept.save()
    return environment


def compile_templates_ahead(environment: Environment) -> None:
    """Compile the templates (or load the code the last build kept) once, before the workers
    fork, which would each compile them again. One that does not compile is left for the
    page that uses it to report, as it would be without this."""
    for name in environment.list_templates(extensions=["html"]):
        with contextlib.suppress(TemplateError, UnicodeDecodeError):
            environment.get_template(name)


def _brief(options: dict[str, Any]) -> bool:
    """A card without its abstract. One with it is on one page, its session's: kept, it would
    only hold memory."""
    return not options.get("show_abstract", True)


def _always(options: dict[str, Any]) -> bool:
    return True


def escaped(value: Any) -> str:
    """`markupsafe.escape` for a page's output, where only the characters count: markup is
    returned as it is (escape copies it by way of two `__html__` lookups), and so is text that
    holds none of the five characters escape replaces (most names, links and labels), which
    escape would copy into new markup; a number is its digits."""
    kind = type(value)
    if kind is Markup:
        return value
    if kind is str:
        if "&" in value or "<" in value or ">" in value or "'" in value or '"' in value:
            return escape(value)
        return value
    if kind is int:
        return str(value)
    return escape(value)


class PageCodeGenerator(CodeGenerator):
    """Jinja's code, but each `{{ value }}` escaped by `escaped` (see above): escaping took a
    quarter of rendering, and one value in ten was markup (a card, a rendered title), which it
    copied. As Jinja's NativeCodeGenerator does, it changes only what is written around an
    output."""

    def _output_child_pre(self, node: nodes.Expr, frame: Frame, finalize: Any) -> None:
        if frame.eval_ctx.volatile or not frame.eval_ctx.autoescape:
            super()._output_child_pre(node, frame, finalize)
            return
        self.write("environment.escaped(")
        if finalize.src is not None:
            self.write(finalize.src)

    def visit_Output(self, node: nodes.Output, frame: Frame) -> None:
        """Consecutive outputs in a page's blocks yielded as one string, not one each: each
        yield resumes the block's generator through its page's and its layout's. Constants
        are folded as Jinja folds them; where Jinja appends to a buffer (macros) or checks
        for an extends, and for a single output, its own code."""
        if frame.buffer is not None or frame.require_output_check:
            super().visit_Output(node, frame)
            return
        finalize = self._make_finalize()
        body = self._folded(node, frame, finalize)
        if len(body) < 2:
            super().visit_Output(node, frame)
            return
        self.writeline("yield ''.join((")
        self.indent()
        for item in body:
            if isinstance(item, list):
                self.writeline(self._output_const_repr(item) + ",")
                continue
            self.newline(item)
            self._output_child_pre(item, frame, finalize)
            self.visit(item, frame)
            self._output_child_post(item, frame, finalize)
            self.write(",")
        self.outdent()
        self.writeline("))")

    def _folded(self, node: nodes.Output, frame: Frame, finalize: Any) -> list[Any]:
        """The output's children, runs of constants evaluated now (as lists of their text),
        others left to run, as `CodeGenerator.visit_Output` makes them."""
        body: list[Any] = []
        for child in node.nodes:
            try:
                if not (finalize.const or isinstance(child, nodes.TemplateData)):
                    raise nodes.Impossible()
                const = self._output_child_to_const(child, frame, finalize)
            except (nodes.Impossible, Exception):
                body.append(child)
                continue
            if body and isinstance(body[-1], list):
                body[-1].append(const)
            else:
                body.append([const])
        return body


class PageEnvironment(Environment):
    """Jinja for page contexts, which are dicts: `paper.url` looks the key up first. Jinja
    tries the attribute first, and the AttributeError every dict key raises on the way is
    slow. A key never shadows a method our templates call."""

    code_generator_class = PageCodeGenerator
    escaped = staticmethod(escaped)

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, dict):
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


@contextlib.contextmanager
def template_errors_located(theme_dir: Path | None) -> Iterator[None]:
    """A template's failure (a theme's, mostly) as an input problem: at the template and line
    where Jinja knows them (a syntax error), else at the templates folder."""
    try:
        yield
    except TemplateError as err:
        filename, line = getattr(err, "filename", None), getattr(err, "lineno", None)
        folder = theme_templates(theme_dir) if theme_dir else BUNDLED.templates
        where = SourceLoc(filename, line) if filename else SourceLoc(str(folder))
        raise ConfsiteError(where, f"{type(err).__name__}: {err}") from None


def make_environment(theme_dir: Path | None, bytecode: KeptBytecode | None = None) -> Environment:
    loaders = [FileSystemLoader(str(theme_templates(theme_dir)))] if theme_dir else []
    loaders.append(FileSystemLoader(str(BUNDLED.templates)))
    environment = PageEnvironment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # one environment per build: no need to stat templates per page
        cache_size=-1,  # a dict: Jinja's LRU cache locks and reorders on every import
        bytecode_cache=bytecode,
    )
    # A filter, not a global function: Jinja calls filters directly, globals through a
    # slower per-call dispatch.
    environment.filters["link"] = link
    environment.globals["untitled_wording"] = UNTITLED
    partials = PartialModules(environment)
    for template, name in PARTIAL_MACROS:
        environment.globals[name] = partials.global_macro(template, name)
    cards = "partials/paper_card.html"
    environment.globals["paper_card"] = MemoizedMacro(partials, cards, "paper_card", _brief)
    environment.globals["paper_line"] = MemoizedMacro(partials, cards, "paper_line", _always)
    return environment

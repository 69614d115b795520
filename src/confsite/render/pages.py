"""Render the site model to output files: Jinja pages, downloads, static assets, sitemap, and
the search index from the terms the corpus worker counted."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import multiprocessing
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    pass_context,
    select_autoescape,
)
from jinja2.runtime import Context, Macro
from markupsafe import Markup

from ..bundled import BUNDLED, PACKAGE_ROOT
from ..cache.manifest import FileEntry
from ..config import SiteConfig
from ..diagnostics import ConfsiteError
from ..model.records import Paper
from ..model.site import Site
from ..output.staging import StagingWriter, fork_is_safe
from ..progress import SILENT, Progress
from .corpus import CorpusJob, Related
from .downloads import stage_downloads
from .views import Page, Views, page_key

PAGES_PER_CHUNK = 100  # small enough to keep both workers busy to the end
MAX_CHUNKS = 400
MEMOIZED_MACRO_LIMIT = 30_000  # rendered cards kept per process; bounds memory at scale
# Macros of the partials that every template can call without importing them.
PARTIAL_MACROS = (
    ("partials/paper_card.html", "paper_title"),
    ("partials/authors.html", "author_list"),
    ("partials/badges.html", "badges"),
)


def lunr_js() -> bytes:
    """lunr.js from the npm package pinned in package.json: the copy the wheel carries, or
    for an editable install the one `npm ci` put in the checkout's node_modules."""
    try:
        return BUNDLED.lunr_js.read_bytes()
    except FileNotFoundError:
        what_to_do = (
            "reinstall confsite (its wheel carries lunr.js)"
            if BUNDLED.installed
            else "run `npm ci` in the confsite folder (it installs the pinned lunr package)"
        )
        raise ConfsiteError(str(BUNDLED.lunr_js), f"lunr.js is missing: {what_to_do}") from None


@pass_context
def link(context: Context, url: str) -> str:
    """A relative link from the current page to a site path (`papers/x/` → `../../papers/x/
    index.html`). Directory links name index.html so the site also works opened from disk."""
    if url.endswith("/") or url == "":
        url += "index.html"
    return context["root"] + url


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

    def memoized_macro(self, template: str, name: str) -> Callable:
        """A partial's macro as a global that renders each (paper, page depth, options) once.

        A paper's card appears on its session, author and related pages; rendering it once
        per depth instead of once per appearance more than halved the render phase."""
        cache: OrderedDict[tuple, Markup] = OrderedDict()

        @pass_context
        def call(context: Context, paper: dict[str, Any], **options: Any) -> Markup:
            root = context["root"]
            key = (paper["id"], root, *sorted(options.items()))
            html = cache.get(key)
            if html is None:
                html = cache[key] = self.macro(template, name, root)(paper, **options)
                if len(cache) > MEMOIZED_MACRO_LIMIT:
                    cache.popitem(last=False)
            return html

        return call


class PageEnvironment(Environment):
    """Jinja for page contexts, which are dicts: `paper.url` looks the key up first. Jinja
    tries the attribute first, and the AttributeError every dict key raises on the way cost
    about a fifth of the render phase. A key never shadows a method our templates call."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, dict):
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def make_environment(theme_dir: Path | None) -> Environment:
    loaders = [FileSystemLoader(str(theme_dir / "templates"))] if theme_dir else []
    loaders.append(FileSystemLoader(str(BUNDLED.templates)))
    environment = PageEnvironment(
        loader=ChoiceLoader(loaders),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # one environment per build: no need to stat templates per page
    )
    # A filter, not a global function: Jinja calls filters directly, globals through a
    # per-call dispatch that cost a second per 10,000 papers.
    environment.filters["link"] = link
    partials = PartialModules(environment)
    for template, name in PARTIAL_MACROS:
        environment.globals[name] = partials.global_macro(template, name)
    for name in ("paper_card", "paper_line"):
        environment.globals[name] = partials.memoized_macro("partials/paper_card.html", name)
    return environment


def static_files(theme_dir: Path | None) -> dict[str, bytes]:
    """Built-in assets, each replaced by the theme's file of the same name."""
    files: dict[str, bytes] = {}
    for folder in [BUNDLED.static, *([theme_dir / "static"] if theme_dir else [])]:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return files


def sitemap(site: Site, paths: list[str]) -> bytes:
    """Every page but the 404 page; downloads and assets are not pages."""
    urls = []
    for path in paths:
        if path == "404.html" or not path.endswith(".html"):
            continue
        page_url = path[: -len("index.html")] if path.endswith("index.html") else path
        urls.append(f"  <url><loc>{xml_escape(site.base_url + page_url)}</loc></url>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "\n".join(urls)
        + "\n</urlset>\n"
    ).encode()


Staged = tuple[list[tuple[str, FileEntry, bool]], float]  # (path, entry, rendered), CPU seconds


@dataclass
class RenderResult:
    """What a render staged: every file's manifest entry, and how many pages were made anew."""

    files: dict[str, FileEntry] = field(default_factory=dict)
    pages: int = 0
    pages_rendered: int = 0
    workers: int = 1  # processes that rendered
    cpu_seconds: dict[str, float] = field(default_factory=dict)

    def add(self, path: str, entry: FileEntry) -> None:
        if path in self.files:
            raise RuntimeError(f"internal error: {path!r} would be written twice")
        self.files[path] = entry

    def collect(self, batches: Iterable[Staged], phase: str, progress: Progress = SILENT) -> None:
        """Add what workers staged, counting its CPU seconds under `phase`."""
        for staged, cpu in batches:
            for path, entry, rendered in staged:
                self.add(path, entry)
                self.pages_rendered += rendered
            self.cpu_seconds[phase] = self.cpu_seconds.get(phase, 0.0) + cpu
            progress.advance(len(staged))


@dataclass(frozen=True)
class RenderJob:
    """Everything a worker needs, set before the workers fork so they inherit it."""

    environment: Environment
    views: Views
    makers: list[Callable[[], Page]]  # pages that show no related papers
    papers: list[Paper]  # whose pages show them
    writer: StagingWriter
    salt: bytes
    downloads_cache: Path  # where the downloads' pieces are recorded between builds


_job: RenderJob | None = None

PageTask = list[tuple[int, str | None]]  # (page number, its key when already computed)


def _render(page: Page, key: str | None) -> tuple[str, FileEntry, bool]:
    assert _job is not None
    key = key or page_key(_job.salt, page)
    html = _job.environment.get_template(page.template).render(page.full_context())
    return page.path, _job.writer.put(page.path, html.encode(), key), True


def _render_pages(task: PageTask) -> Staged:
    """Pages of the makers, by number: runs, not every n-th page, so that pages which share
    cards mostly render in one process."""
    assert _job is not None
    started = time.process_time()
    staged = [_render(_job.makers[number](), key) for number, key in task]
    return staged, time.process_time() - started


def _render_papers(task: tuple[PageTask, Related]) -> Staged:
    """Paper pages, by number in `papers`, with those papers' related papers."""
    assert _job is not None
    started = time.process_time()
    pages, related = task
    _job.views.related.update(related)
    staged = [_render(_job.views.paper(_job.papers[number]), key) for number, key in pages]
    return staged, time.process_time() - started


def _make_downloads(_: None) -> Staged:
    """The downloads (papers.json, ...), made in a worker as pages are."""
    assert _job is not None
    started = time.process_time()
    files = stage_downloads(_job.views.site, _job.writer, _job.downloads_cache, _job.salt)
    return [(name, entry, False) for name, entry in files.items()], time.process_time() - started


def runs(count: int) -> list[tuple[int, int]]:
    """`range(count)` cut into runs: small enough to keep every worker busy to the end."""
    size = max(PAGES_PER_CHUNK, -(-count // MAX_CHUNKS))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def theme_folder(config: SiteConfig) -> Path | None:
    if not config.theme_dir:
        return None
    theme_dir = config.resolve(config.theme_dir)
    if not theme_dir.is_dir():
        raise ConfsiteError(config.config_path, f"theme_dir {config.theme_dir!r} is not a folder")
    return theme_dir


def build_fingerprint(theme_dir: Path | None) -> bytes:
    """A digest of confsite's code, templates and assets and the theme's: any change to them
    invalidates every cached page."""
    hasher = hashlib.blake2b(digest_size=32)
    # An installed package holds the templates and assets too: hashing them twice costs little.
    folders = [PACKAGE_ROOT, BUNDLED.templates, BUNDLED.static]
    if theme_dir is not None:
        folders.append(theme_dir)
    for number, folder in enumerate(folders):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                # relative: where confsite or the theme lies does not count
                name = f"{number}/{path.relative_to(folder).as_posix()}"
                hasher.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    hasher.update(lunr_js())
    return hasher.digest()


def render_site(
    site: Site,
    writer: StagingWriter,
    salt: bytes,
    corpus: CorpusJob,
    downloads_cache: Path,
    progress: Progress = SILENT,
    jobs: int = 1,
) -> RenderResult:
    """Stage every file of the site, pages in `jobs` processes. Without a previous site, the
    workers render the pages without related papers while the corpus worker computes those,
    then the paper pages. With one, this process first compares each page's key with the one
    its file was made from, keeps the unchanged files and sends only the other pages to be
    rendered. (Keys made in the workers had each worker build most papers' cards, for pages
    it then did not render.)"""
    global _job
    theme_dir = theme_folder(site.config)
    views = Views(site)
    makers, papers = views.page_makers(), views.papers_in_order()
    environment = make_environment(theme_dir)
    _job = RenderJob(environment, views, makers, papers, writer, salt, downloads_cache)
    result = RenderResult(pages=len(makers) + len(papers))
    progress.start("render", result.pages)
    stage = _stage_changed if writer.previous.files else _stage_all
    try:
        with _worker_pool(jobs) as pool:
            result.workers = 1 if isinstance(pool, _InProcessPool) else jobs
            downloads = pool.imap_unordered(_make_downloads, [None])
            pages = stage(pool, corpus, result, progress)
            search, cpu_seconds = corpus.search_files()  # while the workers render
            result.cpu_seconds.update(cpu_seconds)
            result.collect(pages, "render", progress)
            result.collect(downloads, "downloads")
    finally:
        _job = None
    progress.finish()
    whole_site = [*search.items(), *other_files(site, theme_dir, sorted(result.files))]
    for path, data in whole_site:
        result.add(path, writer.put(path, data))
    return result


def _related(corpus: CorpusJob, result: RenderResult) -> Related:
    related, cpu_seconds = corpus.related()
    result.cpu_seconds.update(cpu_seconds)
    return related


def _paper_task(pages: PageTask, related: Related) -> tuple[PageTask, Related]:
    """Paper pages to render, with their papers' related papers (the workers forked before
    those were known)."""
    assert _job is not None
    ids = [_job.papers[number].id for number, _ in pages]
    return pages, {paper_id: related[paper_id] for paper_id in ids}


def _stage_all(
    pool: Any, corpus: CorpusJob, result: RenderResult, progress: Progress
) -> Iterable[Staged]:
    """Every page, rendered in the workers."""
    assert _job is not None
    other_pages = pool.imap_unordered(
        _render_pages, [[(n, None) for n in range(*run)] for run in runs(len(_job.makers))]
    )
    related = _related(corpus, result)
    tasks = [
        _paper_task([(n, None) for n in range(*run)], related) for run in runs(len(_job.papers))
    ]
    return itertools.chain(other_pages, pool.imap_unordered(_render_papers, tasks))


def _stage_changed(
    pool: Any, corpus: CorpusJob, result: RenderResult, progress: Progress
) -> Iterable[Staged]:
    """The pages whose key is unchanged, kept here; the others sent to the workers run by
    run, as they are found."""
    assert _job is not None
    views, makers, papers = _job.views, _job.makers, _job.papers
    pending = []
    for run in runs(len(makers)):
        changed = _keep_unchanged([(n, makers[n]()) for n in range(*run)], result, progress)
        if changed:
            pending.append(pool.apply_async(_render_pages, (changed,)))
    related = _related(corpus, result)
    views.related.update(related)
    for run in runs(len(papers)):
        pages = [(n, views.paper(papers[n])) for n in range(*run)]
        changed = _keep_unchanged(pages, result, progress)
        if changed:
            pending.append(pool.apply_async(_render_papers, (_paper_task(changed, related),)))
    return (staged.get() for staged in pending)


def _keep_unchanged(
    pages: list[tuple[int, Page]], result: RenderResult, progress: Progress
) -> PageTask:
    """Stage the current site's file for each page whose key it was made from; the number
    and key of each other page."""
    assert _job is not None
    changed: PageTask = []
    for number, page in pages:
        key = page_key(_job.salt, page)
        entry = _job.writer.reuse(page.path, key)
        if entry is None:
            changed.append((number, key))
        else:
            result.add(page.path, entry)
    progress.advance(len(pages) - len(changed))
    return changed


def other_files(
    site: Site, theme_dir: Path | None, page_paths: list[str]
) -> list[tuple[str, bytes]]:
    files = [(f"assets/{name}", data) for name, data in static_files(theme_dir).items()]
    files.append(("assets/lunr.js", lunr_js()))
    if site.base_url:
        files.append(("sitemap.xml", sitemap(site, page_paths)))
        robots = f"User-agent: *\nAllow: /\nSitemap: {site.base_url}sitemap.xml\n"
        files.append(("robots.txt", robots.encode()))
    return files


class _Done:
    def __init__(self, value: Any) -> None:
        self.value = value

    def get(self) -> Any:
        return self.value


class _InProcessPool:
    """The pool interface, run in this process: for one job, or where fork is unavailable."""

    def imap_unordered(self, function: Callable, items: Iterable) -> Iterator:
        return map(function, items)

    def apply_async(self, function: Callable, args: tuple) -> _Done:
        return _Done(function(*args))


@contextlib.contextmanager
def _worker_pool(jobs: int) -> Iterator[Any]:
    """Worker processes forked from this one (so they share the site model without copying
    it), or this process alone where there is one job or forking is not safe."""
    if jobs <= 1 or not fork_is_safe():
        yield _InProcessPool()
        return
    gc.freeze()  # keeps the collector from touching, and so copying, the parent's objects
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            yield pool
    finally:
        gc.unfreeze()

"""Render the site model to output files: Jinja pages, static assets, downloads, sitemap."""

from __future__ import annotations

import contextlib
import csv
import ctypes
import ctypes.util
import gc
import hashlib
import io
import multiprocessing
import os
import signal
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
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

from .citation import bibtex_entry
from .config import SiteConfig
from .diagnostics import ConfsiteError
from .export import papers_json
from .manifest import FileEntry
from .output import StagingWriter, fork_is_safe
from .progress import SILENT, Progress
from .search import search_files
from .site import Site, paper_url
from .views import Page, Views, page_key

PACKAGE_ROOT = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_ROOT.parent.parent
BUILTIN_TEMPLATES = PROJECT_ROOT / "templates"
BUILTIN_STATIC = PROJECT_ROOT / "static"
LUNR_JS = PROJECT_ROOT / "node_modules" / "lunr" / "lunr.js"
PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies
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
    """lunr.js from the npm package pinned in package.json (installed by `npm ci`)."""
    try:
        return LUNR_JS.read_bytes()
    except FileNotFoundError:
        raise ConfsiteError(
            str(LUNR_JS),
            "lunr.js is missing: run `npm ci` in the confsite "
            "folder (it installs the pinned lunr package)",
        ) from None


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


def make_environment(theme_dir: Path | None) -> Environment:
    loaders = [FileSystemLoader(str(theme_dir / "templates"))] if theme_dir else []
    loaders.append(FileSystemLoader(str(BUILTIN_TEMPLATES)))
    environment = Environment(
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
    environment.globals["link"] = link
    partials = PartialModules(environment)
    for template, name in PARTIAL_MACROS:
        environment.globals[name] = partials.global_macro(template, name)
    for name in ("paper_card", "paper_line"):
        environment.globals[name] = partials.memoized_macro("partials/paper_card.html", name)
    return environment


def static_files(theme_dir: Path | None) -> dict[str, bytes]:
    """Built-in assets, each replaced by the theme's file of the same name."""
    files: dict[str, bytes] = {}
    for folder in [BUILTIN_STATIC, *([theme_dir / "static"] if theme_dir else [])]:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    files[path.relative_to(folder).as_posix()] = path.read_bytes()
    return files


def papers_bib(site: Site) -> bytes:
    entries = (bibtex_entry(p, site.absolute(paper_url(p))) for p in site.papers)
    return "\n".join(entries).encode()


def papers_csv(site: Site) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "id",
            "title",
            "authors",
            "conference",
            "year",
            "sessions",
            "presentation",
            "decision",
            "awards",
            "attendance",
            "room",
            "url",
            "abstract",
        ]
    )
    for p in site.papers:
        writer.writerow(
            [
                p.id,
                p.title or "",
                "; ".join(p.authors),
                p.conference or "",
                p.year or "",
                "; ".join(s.name for s in p.sessions),
                p.presentation or "",
                p.decision or "",
                "; ".join(p.awards),
                p.attendance or "",
                p.room or "",
                paper_url(p),
                p.abstract or "",
            ]
        )
    return buffer.getvalue().encode()


DOWNLOADS: dict[str, Callable[[Site], bytes]] = {
    "papers.json": papers_json,
    "papers.bib": papers_bib,
    "papers.csv": papers_csv,
}


def sitemap(site: Site, paths: list[str]) -> bytes:
    urls = []
    for path in paths:
        if path == "404.html":
            continue
        page_url = path[: -len("index.html")] if path.endswith("index.html") else path
        urls.append(f"  <url><loc>{xml_escape(site.base_url + page_url)}</loc></url>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "\n".join(urls)
        + "\n</urlset>\n"
    ).encode()


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


@dataclass(frozen=True)
class RenderJob:
    """Everything a worker needs, set before the workers fork so they inherit it."""

    environment: Environment
    makers: list[Callable[[], Page]]
    chunk_count: int
    writer: StagingWriter
    salt: bytes


_job: RenderJob | None = None


def _render_chunk(chunk: int) -> tuple[list[tuple[str, FileEntry, bool]], float]:
    """Render the `chunk`-th run of pages: runs, not every n-th page, so that pages which share
    cards (see Views.page_makers) mostly render in one process."""
    assert _job is not None
    started = time.process_time()
    staged = []
    size = -(-len(_job.makers) // _job.chunk_count)
    for make in _job.makers[chunk * size : (chunk + 1) * size]:
        page = make()
        key = page_key(_job.salt, page)
        entry = _job.writer.reusable(page.path, key)
        if entry is not None:
            staged.append((page.path, _job.writer.link(page.path, entry), False))
            continue
        html = _job.environment.get_template(page.template).render(page.context)
        staged.append((page.path, _job.writer.put(page.path, html.encode(), key), True))
    return staged, time.process_time() - started


def make_site_files(site: Site) -> tuple[dict[str, bytes], dict[str, float]]:
    """The whole-site files (the search index, the downloads) and the CPU seconds they took."""
    files: dict[str, bytes] = {}
    cpu: dict[str, float] = {}
    started = time.process_time()
    files.update(search_files(site))
    cpu["search"] = time.process_time() - started
    for name, make in DOWNLOADS.items():
        files[name] = make(site)
    cpu["downloads"] = time.process_time() - started - cpu["search"]
    return files, cpu


def _die_with_parent(parent: int) -> None:
    """A killed build must not leave its worker running: holding the build's output pipes, it
    would keep whoever waits on them waiting (Linux; elsewhere the worker ends when it has
    sent its result, or fails to)."""
    libc_name = ctypes.util.find_library("c")
    prctl = getattr(ctypes.CDLL(libc_name), "prctl", None) if libc_name else None
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _send_site_files(site: Site, sender: Connection, parent: int) -> None:
    _die_with_parent(parent)
    with contextlib.suppress(BrokenPipeError):
        sender.send(make_site_files(site))
    sender.close()


class SiteFilesJob:
    """The whole-site files, made in a process forked as soon as the site model (less related
    papers, which they do not need) exists, so the second core works from then on: while this
    process computes related papers, and beside the page workers."""

    def __init__(self, site: Site, parallel: bool) -> None:
        self._made: tuple[dict[str, bytes], dict[str, float]] | None = None
        self._process: BaseProcess | None = None
        if not parallel or not fork_is_safe():
            self._made = make_site_files(site)
            return
        context = multiprocessing.get_context("fork")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_send_site_files, args=(site, sender, os.getpid()), daemon=True
        )
        gc.freeze()  # see _worker_pool
        try:
            self._process.start()
        finally:
            gc.unfreeze()
            sender.close()

    def result(self) -> tuple[dict[str, bytes], dict[str, float]]:
        if self._made is None:
            try:
                self._made = self._receiver.recv()
            except EOFError:
                raise RuntimeError("internal error: the search index worker stopped") from None
        return self._made

    def close(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._receiver.close()
            self._process = None


@contextlib.contextmanager
def site_files_started(site: Site, jobs: int) -> Iterator[SiteFilesJob]:
    job = SiteFilesJob(site, parallel=jobs > 1)
    try:
        yield job
    finally:
        job.close()


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
    folders = [PACKAGE_ROOT, BUILTIN_TEMPLATES, BUILTIN_STATIC]
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
    site_files: SiteFilesJob,
    progress: Progress = SILENT,
    jobs: int = 1,
) -> RenderResult:
    """Stage every file of the site. Pages whose context is unchanged since the last build are
    linked, not rendered; pages render in `jobs` processes beside `site_files`' worker."""
    global _job
    theme_dir = theme_folder(site.config)
    environment = make_environment(theme_dir)
    makers = Views(site).page_makers()
    chunk_count = max(1, min(len(makers) // PAGES_PER_CHUNK, MAX_CHUNKS))
    _job = RenderJob(environment, makers, chunk_count, writer, salt)
    result = RenderResult(pages=len(makers))
    progress.start("render", len(makers))
    try:
        with _worker_pool(jobs) as pool:
            result.workers = 1 if isinstance(pool, _InProcessPool) else jobs
            for staged, cpu in pool.imap_unordered(_render_chunk, range(chunk_count)):
                for path, entry, rendered in staged:
                    result.add(path, entry)
                    result.pages_rendered += rendered
                result.cpu_seconds["render"] = result.cpu_seconds.get("render", 0.0) + cpu
                progress.advance(len(staged))
    finally:
        _job = None
    progress.finish()
    whole_site, cpu_seconds = site_files.result()
    result.cpu_seconds.update(cpu_seconds)
    page_paths = sorted(result.files)
    for path, data in [*whole_site.items(), *other_files(site, theme_dir, page_paths)]:
        result.add(path, writer.put(path, data))
    return result


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


class _InProcessPool:
    """The pool interface, run in this process: for one job, or where fork is unavailable."""

    def imap_unordered(self, function: Callable, items: Iterable) -> Iterator:
        return map(function, items)


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

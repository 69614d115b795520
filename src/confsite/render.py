"""Render the site model to output files: Jinja pages, static assets, downloads, sitemap."""

from __future__ import annotations

import contextlib
import csv
import gc
import hashlib
import io
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
from jinja2.runtime import Context
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
PAGES_PER_CHUNK = 100  # small enough to keep both workers busy to the end
MAX_CHUNKS = 400
MEMOIZED_MACRO_LIMIT = 30_000  # rendered cards kept per process; bounds memory at scale


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


def memoized_macro(environment: Environment, template: str, name: str) -> Callable:
    """A template macro as a global that renders each (paper, page depth, options) once.

    A paper's card appears on its session, author and related pages; rendering it once per
    depth instead of once per appearance more than halved the render phase. The macro still
    comes from the (theme-overridable) template."""
    cache: OrderedDict[tuple, Markup] = OrderedDict()
    modules: dict[str, Any] = {}

    @pass_context
    def call(context: Context, paper: dict[str, Any], **options: Any) -> Markup:
        root = context["root"]
        key = (paper["id"], root, *sorted(options.items()))
        html = cache.get(key)
        if html is None:
            if root not in modules:
                modules[root] = environment.get_template(template).make_module({"root": root})
            html = cache[key] = getattr(modules[root], name)(paper, **options)
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
    )
    environment.globals["link"] = link
    for name in ("paper_card", "paper_line"):
        environment.globals[name] = memoized_macro(environment, "partials/paper_card.html", name)
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
    site: Site


_job: RenderJob | None = None


def _render_chunk(chunk: int) -> tuple[list[tuple[str, FileEntry, bool]], float]:
    """Render pages chunk, chunk + chunk_count, ...; interleaved so chunks cost alike."""
    assert _job is not None
    started = time.process_time()
    staged = []
    for make in _job.makers[chunk :: _job.chunk_count]:
        page = make()
        key = page_key(_job.salt, page)
        entry = _job.writer.reusable(page.path, key)
        if entry is not None:
            staged.append((page.path, _job.writer.link(page.path, entry), False))
            continue
        html = _job.environment.get_template(page.template).render(page.context)
        staged.append((page.path, _job.writer.put(page.path, html.encode(), key), True))
    return staged, time.process_time() - started


def _site_files_task(name: str) -> tuple[dict[str, bytes], float]:
    """One of the whole-site files (the search index, the downloads), made in a worker."""
    assert _job is not None
    started = time.process_time()
    site = _job.site
    files = search_files(site) if name == "search" else {name: DOWNLOADS[name](site)}
    return files, time.process_time() - started


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
    progress: Progress = SILENT,
    jobs: int = 1,
) -> RenderResult:
    """Stage every file of the site. Pages whose context is unchanged since the last build are
    linked, not rendered; pages render in `jobs` processes while another builds the index."""
    global _job
    theme_dir = theme_folder(site.config)
    environment = make_environment(theme_dir)
    makers = Views(site).page_makers()
    chunk_count = max(1, min(len(makers) // PAGES_PER_CHUNK, MAX_CHUNKS))
    _job = RenderJob(environment, makers, chunk_count, writer, salt, site)
    result = RenderResult(pages=len(makers))
    progress.start("render", len(makers))
    site_files: dict[str, bytes] = {}
    try:
        with _worker_pool(jobs) as pool:
            result.workers = 1 if isinstance(pool, _InProcessPool) else jobs
            tasks = {
                name: pool.apply_async(_site_files_task, (name,)) for name in ("search", *DOWNLOADS)
            }
            for staged, cpu in pool.imap_unordered(_render_chunk, range(chunk_count)):
                for path, entry, rendered in staged:
                    result.add(path, entry)
                    result.pages_rendered += rendered
                result.cpu_seconds["render"] = result.cpu_seconds.get("render", 0.0) + cpu
                progress.advance(len(staged))
            for name, task in tasks.items():
                files, cpu = task.get()
                site_files.update(files)
                phase = "search" if name == "search" else "downloads"
                result.cpu_seconds[phase] = result.cpu_seconds.get(phase, 0.0) + cpu
    finally:
        _job = None
    progress.finish()
    page_paths = sorted(result.files)
    for path, data in [*site_files.items(), *other_files(site, theme_dir, page_paths)]:
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

    class _Done:
        def __init__(self, value: Any) -> None:
            self.value = value

        def get(self) -> Any:
            return self.value

    def apply_async(self, function: Callable, args: tuple) -> _InProcessPool._Done:
        return self._Done(function(*args))

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

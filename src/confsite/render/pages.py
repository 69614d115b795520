"""Render the site model to output files: every page through Jinja in worker processes, the
downloads, the search index from the terms the corpus worker counted, and the assets."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment

from ..cache.manifest import FileEntry
from ..cache.page_keys import page_key
from ..model.records import Paper
from ..model.site import Site
from ..output.processes import WorkerPool, worker_pool
from ..output.staging import StagingWriter
from ..progress import SILENT, Progress
from .assets import other_files, theme_folder
from .corpus import CorpusJob, Related
from .downloads import stage_downloads
from .jinja import make_environment
from .views import Page, Views

PAGES_PER_CHUNK = 100  # small enough to keep both workers busy to the end
MAX_CHUNKS = 400

Staged = tuple[list[tuple[str, FileEntry, bool]], float]  # (path, entry, rendered), CPU seconds
PageTask = list[tuple[int, str | None]]  # (page number, its key when already computed)


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
    """Everything the workers need, made before they fork so they inherit it, and the work
    they do with it."""

    environment: Environment
    views: Views
    makers: list[Callable[[], Page]]  # pages that show no related papers
    papers: list[Paper]  # whose pages show them
    writer: StagingWriter
    salt: bytes
    downloads_cache: Path | None  # where the downloads' pieces are kept between builds

    def render(self, page: Page, key: str | None) -> tuple[str, FileEntry, bool]:
        key = key or page_key(self.salt, page)
        html = self.environment.get_template(page.template).render(page.full_context())
        return page.path, self.writer.put(page.path, html.encode(), key), True

    def render_pages(self, task: PageTask) -> Staged:
        """Pages of the makers, by number: runs, not every n-th page, so that pages which
        share cards mostly render in one process."""
        started = time.process_time()
        staged = [self.render(self.makers[number](), key) for number, key in task]
        return staged, time.process_time() - started

    def render_papers(self, task: tuple[PageTask, Related]) -> Staged:
        """Paper pages, by number in `papers`, with those papers' related papers."""
        started = time.process_time()
        pages, related = task
        self.views.related.update(related)
        staged = [self.render(self.views.paper(self.papers[n]), key) for n, key in pages]
        return staged, time.process_time() - started

    def make_downloads(self, _: None) -> Staged:
        """The downloads (papers.json, ...), made in a worker as pages are."""
        started = time.process_time()
        files = stage_downloads(self.views.site, self.writer, self.downloads_cache, self.salt)
        staged = [(name, entry, False) for name, entry in files.items()]
        return staged, time.process_time() - started

    def paper_task(self, pages: PageTask, related: Related) -> tuple[PageTask, Related]:
        """Paper pages to render, with their papers' related papers (the workers forked
        before those were known)."""
        ids = [self.papers[number].id for number, _ in pages]
        return pages, {paper_id: related[paper_id] for paper_id in ids}


def runs(count: int) -> list[tuple[int, int]]:
    """`range(count)` cut into runs: small enough to keep every worker busy to the end."""
    size = max(PAGES_PER_CHUNK, -(-count // MAX_CHUNKS))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def render_site(
    site: Site,
    writer: StagingWriter,
    salt: bytes,
    corpus: CorpusJob,
    downloads_cache: Path | None,
    progress: Progress = SILENT,
    jobs: int = 1,
) -> RenderResult:
    """Stage every file of the site, pages in `jobs` processes. Without a previous site, the
    workers render the pages without related papers while the corpus worker computes those,
    then the paper pages. With one, this process first compares each page's key with the one
    its file was made from, keeps the unchanged files and sends only the other pages to be
    rendered. (Keys made in the workers would have each worker build most papers' cards, for
    pages it then does not render.)"""
    theme_dir = theme_folder(site.config)
    views = Views(site)
    makers, papers = views.page_makers(), views.papers_in_order()
    environment = make_environment(theme_dir)
    job = RenderJob(environment, views, makers, papers, writer, salt, downloads_cache)
    result = RenderResult(pages=len(makers) + len(papers))
    progress.start("render", result.pages)
    stage = _stage_changed if writer.previous.files else _stage_all
    with worker_pool(job, jobs) as pool:
        result.workers = 1 if pool.in_process else jobs
        downloads = pool.map_unordered("make_downloads", [None])
        pages = stage(pool, corpus, result, progress)
        search, cpu_seconds = corpus.search_files()  # while the workers render
        result.cpu_seconds.update(cpu_seconds)
        result.collect(pages, "render", progress)
        result.collect(downloads, "downloads")
    progress.finish()
    whole_site = [*search.items(), *other_files(site, theme_dir, sorted(result.files))]
    for path, data in whole_site:
        result.add(path, writer.put(path, data))
    return result


def _related(corpus: CorpusJob, result: RenderResult) -> Related:
    related, cpu_seconds = corpus.related()
    result.cpu_seconds.update(cpu_seconds)
    return related


def _stage_all(
    pool: WorkerPool, corpus: CorpusJob, result: RenderResult, progress: Progress
) -> Iterable[Staged]:
    """Every page, rendered in the workers."""
    job: RenderJob = pool.worker
    other_pages = pool.map_unordered(
        "render_pages", [[(n, None) for n in range(*run)] for run in runs(len(job.makers))]
    )
    related = _related(corpus, result)
    tasks = [
        job.paper_task([(n, None) for n in range(*run)], related) for run in runs(len(job.papers))
    ]
    return itertools.chain(other_pages, pool.map_unordered("render_papers", tasks))


def _stage_changed(
    pool: WorkerPool, corpus: CorpusJob, result: RenderResult, progress: Progress
) -> Iterable[Staged]:
    """The pages whose key is unchanged, kept here; the others sent to the workers run by
    run, as they are found."""
    job: RenderJob = pool.worker
    views, makers, papers = job.views, job.makers, job.papers
    pending = []
    for run in runs(len(makers)):
        pages = [(n, makers[n]()) for n in range(*run)]
        changed = _keep_unchanged(job, pages, result, progress)
        if changed:
            pending.append(pool.submit("render_pages", changed))
    related = _related(corpus, result)
    views.related.update(related)
    for run in runs(len(papers)):
        pages = [(n, views.paper(papers[n])) for n in range(*run)]
        changed = _keep_unchanged(job, pages, result, progress)
        if changed:
            pending.append(pool.submit("render_papers", job.paper_task(changed, related)))
    return (staged.get() for staged in pending)


def _keep_unchanged(
    job: RenderJob, pages: list[tuple[int, Page]], result: RenderResult, progress: Progress
) -> PageTask:
    """Stage the current site's file for each page whose key it was made from; the number
    and key of each other page."""
    changed: PageTask = []
    for number, page in pages:
        key = page_key(job.salt, page)
        entry = job.writer.reuse(page.path, key)
        if entry is None:
            changed.append((number, key))
        else:
            result.add(page.path, entry)
    progress.advance(len(pages) - len(changed))
    return changed

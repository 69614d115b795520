"""Render the site model to output files: every page through Jinja in worker processes, the
downloads, the search index from the terms the corpus worker counted, and the assets."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment

from ..cache.digests import PaperDigests, text_digest
from ..cache.manifest import CachePaths, FileEntry
from ..cache.page_keys import page_key
from ..model.records import Paper
from ..model.site import Site
from ..output.processes import (
    WorkerPool,
    forks,
    freed_memory_returned,
    steps_niced,
    worker_pool,
)
from ..output.staging import StagingWriter
from ..progress import SILENT, Progress
from ..text.plain import take_plain_texts
from .assets import other_files, theme_folder
from .corpus import CorpusJob, PlainAbstracts, Related
from .downloads import stage_downloads
from .jinja import (
    cards_ahead_fit,
    compiled_environment,
    render_cards_ahead,
    template_errors_located,
)
from .search_index import listing_files
from .views import KeyedPage, Page, Views

# The page workers run below the corpus worker's priority: paper pages wait for its related
# papers, and with three processes on two cores it got a third of each, so the workers were
# left waiting for it once the other pages were done.
PAGE_WORKER_NICENESS = 10
# From this many papers the page workers fork once the corpus worker is done (see
# `_staged_beside_corpus`): below it their copy of the model is small, and forked at once a
# worker's start overlaps the corpus worker's end (docs/performance.md has the times).
FORK_AFTER_CORPUS_FROM = 10_000
PAGES_PER_CHUNK = 100  # small enough to keep both workers busy to the end
MAX_CHUNKS = 400

# (path, entry, rendered) of each file
Staged = list[tuple[str, FileEntry, bool]]


@dataclass
class RenderResult:
    """What a render staged: every file's manifest entry, and how many pages were made anew."""

    files: dict[str, FileEntry] = field(default_factory=dict)
    pages: int = 0
    pages_rendered: int = 0
    workers: int = 1  # processes that rendered
    digests: PaperDigests = field(default_factory=PaperDigests)  # see Views.digests_made

    def add(self, path: str, entry: FileEntry) -> None:
        if path in self.files:
            raise RuntimeError(f"internal error: {path!r} would be written twice")
        self.files[path] = entry

    def collect(self, batches: Iterable[Staged], progress: Progress = SILENT) -> None:
        """Add what workers staged."""
        for staged in batches:
            for path, entry, rendered in staged:
                self.add(path, entry)
                self.pages_rendered += rendered
            progress.advance(len(staged))


@dataclass(frozen=True)
class RenderJob:
    """Everything the workers need, made before they fork so they inherit it, and the work
    they do with it."""

    environment: Environment
    views: Views
    makers: list[Callable[[], Page] | KeyedPage]  # pages that show no related papers
    papers: list[Paper]  # whose pages show them
    writer: StagingWriter
    salt: bytes
    downloads_cache: Path | None  # where the downloads' pieces are kept between builds

    def stage(self, maker: Callable[[], Page] | KeyedPage) -> tuple[str, FileEntry, bool]:
        """The current site's file for the page when it was made from the same key, else
        the page rendered. A `KeyedPage` with a key is keyed without making its context;
        another page is made first, and keyed by its context. A page known to be as the
        last build made it is not keyed: its file is taken under the key that build
        recorded."""
        if isinstance(maker, KeyedPage) and maker.unchanged():
            kept = self.writer.reuse(maker.path)
            if kept is not None:
                return maker.path, kept, False
        if isinstance(maker, KeyedPage) and maker.key is not None:
            path, key, make = maker.path, maker.key(self.salt), maker.make
        else:
            page = maker.make() if isinstance(maker, KeyedPage) else maker()
            path, key, make = page.path, page_key(self.salt, page), lambda: page
        entry, rendered = self.writer.made(path, key, lambda: self._html(make()))
        return path, entry, rendered

    def _html(self, page: Page) -> bytes:
        return self.environment.get_template(page.template).render(page.context).encode()

    def stage_pages(self, numbers: range) -> Staged:
        """Pages of the makers, by number: runs, not every n-th page, so that pages which
        share cards mostly render in one process."""
        return [self.stage(self.makers[number]) for number in numbers]

    def stage_papers(self, task: tuple[range, Related, PlainAbstracts]) -> Staged:
        """Paper pages, by number in `papers`, with those papers' related papers and plain
        abstracts."""
        numbers, related, plain = task
        self.views.related.update(related)
        self._take(plain)
        return [self.stage(self.views.paper_page(self.papers[n])) for n in numbers]

    def make_downloads(self, plain: PlainAbstracts) -> tuple[Staged, list[bytes]]:
        """The downloads (papers.json, ...), made in a worker as pages are; and every
        paper's record digest, in site order, which they are spliced by."""
        self._take(plain)
        site, views = self.views.site, self.views
        digests = [views.record_digest(paper) for paper in site.papers]
        files = stage_downloads(site, self.writer, self.downloads_cache, self.salt, digests)
        # Each download's pieces, one per paper, are freed in small blocks: given back, the
        # worker's memory through the paper pages was 200 MB less at 100,000 papers.
        freed_memory_returned()
        return [(name, entry, False) for name, entry in files.items()], digests

    def make_listing_search_files(self, _: None) -> Staged:
        """The search index's result cards and filters (see `listing_files`), made in a
        worker as pages are. A file of result cards whose papers are all known unchanged is
        taken from the current site, when the last build made it of the same papers under
        the same structure (which holds the labels of the collections and sessions it names):
        remaking them all was 3 s of a one-abstract rebuild at 100,000 papers."""
        views, writer, structure = self.views, self.writer, self.views.structure.hex()
        staged: list[tuple[str, FileEntry, bool]] = []
        keys: dict[str, str] = {}  # a result cards file's: its papers' ids under the structure

        def kept(path: str, papers: tuple[Paper, ...]) -> bool:
            ids = [paper.id for paper in papers]
            keys[path] = text_digest("\0".join([structure, *ids])).hex()
            entry = writer.reuse(path, keys[path]) if views.unchanged.none_changed(ids) else None
            if entry is not None:
                staged.append((path, entry, False))
            return entry is not None

        files = listing_files(views.site, kept)
        staged += [
            (path, writer.put(path, data, keys.get(path, "")), False)
            for path, data in files.items()
        ]
        return staged

    def paper_task(
        self, numbers: range, related: Related, plain: PlainAbstracts
    ) -> tuple[range, Related, PlainAbstracts]:
        """Paper pages to stage, with their papers' related papers and plain abstracts (the
        workers forked before those were known)."""
        ids = [self.papers[n].id for n in numbers]
        return numbers, {i: related[i] for i in ids}, {i: plain[i] for i in ids if i in plain}

    def _take(self, plain: PlainAbstracts) -> None:
        paper_by_id = self.views.site.paper_by_id
        take_plain_texts({paper_by_id[i].abstract: text for i, text in plain.items()})


def runs(count: int) -> list[tuple[int, int]]:
    """`range(count)` cut into runs: small enough to keep every worker busy to the end."""
    size = max(PAGES_PER_CHUNK, -(-count // MAX_CHUNKS))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def render_site(
    site: Site,
    writer: StagingWriter,
    salt: bytes,
    corpus: CorpusJob,
    caches: CachePaths,
    progress: Progress = SILENT,
    jobs: int = 1,
    known_digests: PaperDigests | None = None,
    last_digests: PaperDigests | None = None,
) -> RenderResult:
    """Stage every file of the site, pages in `jobs` processes: this one and `jobs` - 1
    workers, forked at once, or from FORK_AFTER_CORPUS_FROM papers once the corpus worker is
    done (this one renders meanwhile, see `_staged_beside_corpus`); this one renders with
    them while it waits for the search files, and once they are sent. They key each page,
    keep the current site's file when its key is unchanged and render the others: first the
    pages without related papers, while the corpus worker computes those, then the paper
    pages. What many pages share is made here before the workers fork, so that no worker
    makes it again: the templates compiled (or loaded as the last build compiled them), the
    site's lookups and the cite keys, and on a full build with workers
    what each worker would make for nearly every paper (see `_made_ahead`).
    `known_digests` are what the last build digested of unchanged papers (see
    `Views.paper_digest`), `last_digests` what it digested of every paper (see
    render/unchanged.py); the result has every paper's."""
    theme_dir = theme_folder(site.config)
    views = Views(site, known_digests, last_digests)
    environment = compiled_environment(theme_dir, caches.folder, salt)
    views.prepare_shared()
    views.prepare_digests()
    views.prepare_unchanged(salt)
    views.prepare_keyed()
    if not writer.previous.files and forks(jobs):
        _made_ahead(views, environment, theme_dir)
    makers, papers = views.page_makers(), views.papers_in_order()
    job = RenderJob(environment, views, makers, papers, writer, salt, caches.downloads)
    result = RenderResult(pages=len(makers) + len(papers))
    progress.start("render", result.pages)
    pool_made = worker_pool(job, jobs, PAGE_WORKER_NICENESS, helped=True)
    with template_errors_located(theme_dir), pool_made as pool:
        result.workers = 1 if pool.in_process else jobs
        pages, downloads_and_listing = _stage_pages(pool, corpus)
        search = corpus.search_files()
        # The corpus worker has made all that pages wait for (it saves its terms now): this
        # process takes its share of the tasks from now on, in the core it frees.
        pool.help()
        result.collect(pages, progress)
        result.collect(downloads_and_listing)
    progress.finish()
    result.digests = views.digests_made(corpus.related())
    for path, data in other_files(site, theme_dir, sorted(result.files)):
        result.add(path, writer.put(path, data))
    for path, entry in search.items():
        result.add(path, entry)
    return result


def _made_ahead(views: Views, environment: Environment, theme_dir: Path | None) -> None:
    """In a full build, what each page worker would make for nearly every paper, made once
    before they fork, while the corpus worker has the other core: authors' pages and paper
    pages list papers from all over the program, the listing of all papers every one. The
    papers' parts (`Views.prepare_papers`), and their cards unless the theme renders them
    its own way."""
    cards = views.prepare_papers()
    if cards_ahead_fit(theme_dir):
        with template_errors_located(theme_dir):
            render_cards_ahead(environment, cards)


def _stage_pages(pool: WorkerPool, corpus: CorpusJob) -> tuple[Iterable[Staged], Iterable[Staged]]:
    """Every page, then the downloads and the search files made without the terms: pages
    without related papers staged here while the corpus worker works, the rest in the
    workers once it is done, and by this process as it helps them: the other pages, those
    search files, the paper pages (which show related papers) and the downloads (which show
    the plain abstracts made with the terms). The downloads, one long task, are given last:
    this process, helping, takes the last given first, so it starts them as the workers go
    on with the pages (from when every task is given, while it waits for the search files),
    instead of a worker meeting them at the end while this one idles."""
    job: RenderJob = pool.worker
    other_runs = [range(*run) for run in runs(len(job.makers))]
    staged_here = _staged_beside_corpus(pool, corpus, other_runs)
    other_pages = pool.map_unordered("stage_pages", other_runs)
    listing = pool.map_unordered("make_listing_search_files", [None])
    plain, related = corpus.plain_abstracts(), corpus.related()
    tasks = [job.paper_task(range(*run), related, plain) for run in runs(len(job.papers))]
    paper_pages = pool.map_unordered("stage_papers", tasks)
    downloads = pool.map_unordered("make_downloads", [plain])
    # Until the corpus worker has sent the search files, this process takes tasks below its
    # priority, as it rendered beside it: a rebuild's pages without related papers are mostly
    # kept, and it then idled for seconds at 100,000 papers.
    pool.help_while(lambda: not corpus.search_files_sent(), PAGE_WORKER_NICENESS)
    pages = itertools.chain(staged_here, other_pages, paper_pages)
    return pages, itertools.chain(_record_digests_kept(downloads, job.views), listing)


def _staged_beside_corpus(
    pool: WorkerPool, corpus: CorpusJob, other_runs: list[range]
) -> list[Staged]:
    """Runs of `other_runs` staged in this process, taken from their end, while the corpus
    worker makes related papers and the search files; the page workers fork once it has, or
    once no run is left. Forked beside the corpus worker, a page worker held a third copy of
    what it and this process touched of the site model: at 100,000 papers the build's peak
    of memory, for no more work done, as this process and the corpus worker take both cores.
    Rendered at the page workers' priority, as they would have, below the corpus worker's."""
    staged: list[Staged] = []

    def staged_one() -> bool:
        if not other_runs or corpus.search_files_sent():
            return False
        staged.append(pool.run_here("stage_pages", other_runs.pop()))
        return True

    if not pool.in_process and len(pool.worker.papers) >= FORK_AFTER_CORPUS_FROM:
        steps_niced(staged_one, PAGE_WORKER_NICENESS)
    return staged


def _record_digests_kept(
    downloads: Iterable[tuple[Staged, list[bytes]]], views: Views
) -> Iterator[Staged]:
    """The downloads staged; the record digests the worker made for them are kept with
    this process's, for the next build (see `Views.digests_made`)."""
    for staged, digests in downloads:
        views.take_record_digests(digests)
        yield staged

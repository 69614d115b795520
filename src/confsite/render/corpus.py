"""Work over the whole corpus, done in one process forked as soon as the site is modelled.

It counts every title's and abstract's index terms (or takes them from the cache), computes
related papers from them and sends those (paper pages wait for them), then makes the search
index from the same terms and stages its files itself, sending only their manifest entries (the
files are a quarter of a gigabyte at 100,000 papers, which the parent held whole). Meanwhile
the build's process renders (or, on a rebuild, keys) the pages that show no related papers,
so both cores work from the start; from 10,000 papers the page workers fork once the search
files are sent, and the build's process takes tasks while it waits for them
(render/pages.py). With one job, or where forking is not safe, the same work is done here
when it is first asked for.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cache.inputs import NOTHING_KEPT, KeptPapers
from ..cache.stores import load_pickle, save_pickle
from ..cache.terms import TermCache
from ..model.records import Paper
from ..model.site import Site
from ..output.processes import ChildStopped, ForkedResults, forks, freed_memory_returned
from ..text.plain import may_hold_tex
from .numeric import import_numeric
from .related import Nearest, related_papers
from .search_index import search_files
from .terms import CorpusTerms

if TYPE_CHECKING:
    from ..cache.manifest import FileEntry
    from ..output.staging import StagingWriter

NEAREST_CACHE_FILE = "related.pickle"

Related = dict[str, tuple[str, ...]]
PlainAbstracts = dict[str, str]  # by paper id
SearchFiles = dict[str, "FileEntry"]  # the search index's staged files, by path


@dataclass(frozen=True)
class CorpusInputs:
    """What the corpus work is made from: the site model without its authors and cite keys
    (see `site_program`), where its caches are kept between builds (with the code's fingerprint,
    which they must match), and where it stages the search index."""

    site: Site
    cache_folder: Path | None  # None: no caches
    fingerprint: bytes
    writer: StagingWriter
    kept: KeptPapers = NOTHING_KEPT  # papers as the last build made them: their terms by id


def plain_abstracts(papers: Sequence[Paper], terms: CorpusTerms) -> PlainAbstracts:
    """The plain abstracts the terms were counted from, by paper id, where they may hold TeX
    (the rest are quickly made again)."""
    return {
        paper.id: plain
        for paper, plain in zip(papers, terms.abstracts, strict=True)
        if paper.abstract and may_hold_tex(paper.abstract)
    }


def corpus_results(inputs: CorpusInputs, threads: int) -> Iterator[Any]:
    """On a full build the plain abstracts with TeX (see `CorpusJob.plain_abstracts`; none on
    a rebuild, which renders few pages), then related papers of each paper, then the search
    index's files staged, then None once the terms are saved: after the search files, which
    pages wait for. Related papers' state is saved before the search index, whose peak
    would otherwise hold it."""
    import_numeric()  # first: scipy's own import would run numpy submodules nothing here uses
    papers = inputs.site.papers
    cache = TermCache(inputs.cache_folder, inputs.fingerprint, inputs.kept)
    terms = cache.paper_terms(papers)
    full_build = not inputs.writer.previous.files
    yield plain_abstracts(papers, terms) if full_build else {}
    # TeX parsing leaves cycles of frames that hold their callers' frames, and with them
    # what counting held (145 MB at 100,000 papers): freed before related papers, the corpus
    # worker's peak. What existed before the work began is frozen (see `objects_frozen`, for
    # a forked worker and for this work done in the main process), so this scans none of it.
    gc.collect()
    freed_memory_returned()
    folder = inputs.cache_folder
    nearest_path = folder / NEAREST_CACHE_FILE if folder is not None else None
    previous = load_pickle(nearest_path, inputs.fingerprint, Nearest)
    related, nearest = related_papers([paper.id for paper in papers], terms, threads, previous)
    yield related
    if nearest is not previous:
        save_pickle(nearest_path, inputs.fingerprint, nearest)
    # Freed before the search index, whose temporaries are this process's peak.
    del related, nearest, previous
    freed_memory_returned()
    yield {
        file.path: inputs.writer.made(file.path, file.key, file.make)[0]
        for file in search_files(inputs.site, terms, inputs.fingerprint)
    }
    # While the paper pages render: saving 200 MB of terms at 100,000 papers was 0.2 s
    # between related papers and the search index, which the pages waited for.
    cache.save()
    yield None


class CorpusJob:
    """Related papers, then the search index: from a forked worker, or made here."""

    def __init__(self, inputs: CorpusInputs, jobs: int) -> None:
        self._plain: PlainAbstracts | None = None
        self._related: Related | None = None
        self._search: SearchFiles | None = None
        self._saved = False
        self._here = not forks(jobs)
        # threads: forked, the top-n product also takes the cores page workers leave idle.
        threads = 1 if self._here else jobs
        self._results = ForkedResults(partial(corpus_results, inputs, threads), self._here)

    def plain_abstracts(self) -> PlainAbstracts:
        """On a full build, the abstracts with TeX as plain text, by paper id: the index's
        terms are counted from them, and every paper page and the downloads show them, so
        they are made once, here, instead of in each process. Waits for the terms."""
        if self._plain is None:
            made = self._results.next()
            # Made in this process, they are in plain_text's own memory: none to hand on.
            self._plain = {} if self._here else made
        return self._plain

    def related(self) -> Related:
        """Each paper's related papers; waits for them."""
        if self._related is None:
            self.plain_abstracts()  # comes first
            self._related = self._results.next()
        return self._related

    def search_files_sent(self) -> bool:
        """Whether the corpus worker has sent the search files, the last of what pages wait
        for: asking for them would not wait for their making. Takes in what it has sent
        before them."""
        if self._search is not None:
            return True
        for result, take in ((self._plain, self.plain_abstracts), (self._related, self.related)):
            if result is None and not self._results.sent():
                return False
            take()
        return self._results.sent()

    def search_files(self) -> SearchFiles:
        """The search index's staged files by path; waits for them."""
        self.related()  # comes first
        if self._search is None:
            self._search = self._results.next()
        return self._search

    def caches_saved(self) -> None:
        """Waits until the corpus work has saved its caches, after the search files. A worker
        that stopped meanwhile leaves them unsaved, not the build failed: every file is
        staged, and the next build counts again what they would have held."""
        self.search_files()  # comes first
        if not self._saved:
            with contextlib.suppress(ChildStopped):
                self._results.next()
            self._saved = True

    def close(self) -> None:
        self._results.close()


@contextlib.contextmanager
def corpus_job_started(inputs: CorpusInputs, jobs: int) -> Iterator[CorpusJob]:
    job = CorpusJob(inputs, jobs)
    try:
        yield job
        job.caches_saved()  # the build ends with the caches saved
    finally:
        job.close()

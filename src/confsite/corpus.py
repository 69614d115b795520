"""Work over the whole corpus, done in one process forked as soon as the papers are merged.

It counts every title's and abstract's index terms, computes related papers from them and
sends those first (paper pages wait for them), then makes the search index and the downloads.
Meanwhile this process models the site and the page workers render every page that shows no
related papers, so both cores work from the moment the papers exist. With one job, or where
forking is not safe, the same work is done here when it is first asked for.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from .export import DOWNLOADS
from .output import fork_is_safe
from .records import Paper
from .related import related_papers
from .search import search_files
from .site import Site
from .terms import PaperTerms, paper_terms

PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies

Related = dict[str, tuple[str, ...]]
SiteFiles = dict[str, bytes]
CpuSeconds = dict[str, float]


def related_and_terms(papers: list[Paper], threads: int) -> tuple[Related, list[PaperTerms]]:
    """Related papers of each paper, and the terms they came from in the site's paper order."""
    ordered = sorted(papers, key=lambda paper: paper.id)  # as the site model orders them
    terms = [paper_terms(paper) for paper in ordered]
    return related_papers([paper.id for paper in ordered], terms, threads), terms


def site_files(site: Site, terms: list[PaperTerms]) -> tuple[SiteFiles, CpuSeconds]:
    """The whole-site files (the search index, the downloads) and the CPU seconds they took."""
    started = time.process_time()
    files = search_files(site, terms)
    cpu = {"search": time.process_time() - started}
    for name, make in DOWNLOADS.items():
        files[name] = make(site)
    cpu["downloads"] = time.process_time() - started - cpu["search"]
    return files, cpu


def _die_with_parent(parent: int) -> None:
    """A killed build must not leave its worker running: holding the build's output pipes, it
    would keep whoever waits on them waiting (Linux; elsewhere the worker ends when it has
    sent its results, or fails to)."""
    libc_name = ctypes.util.find_library("c")
    prctl = getattr(ctypes.CDLL(libc_name), "prctl", None) if libc_name else None
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _work(
    papers: list[Paper], site_model: Callable[[], Site], sender: Connection, parent: int, jobs: int
) -> None:
    _die_with_parent(parent)
    with contextlib.suppress(BrokenPipeError):
        started = time.process_time()
        # threads: the top-n product also takes the cores page workers leave idle
        related, terms = related_and_terms(papers, jobs)
        sender.send((related, {"related": time.process_time() - started}))
        # This process's own copy of the model, built as the parent builds the same one.
        sender.send(site_files(site_model(), terms))
    sender.close()


class CorpusJob:
    """Related papers, then the whole-site files: from a forked worker, or made here.

    `site_model` gives the site model of `papers`, the same on every call."""

    def __init__(self, papers: list[Paper], site_model: Callable[[], Site], jobs: int) -> None:
        self._papers, self._site_model = papers, site_model
        self._process: BaseProcess | None = None
        self._related: tuple[Related, CpuSeconds] | None = None
        self._files: tuple[SiteFiles, CpuSeconds] | None = None
        self._terms: list[PaperTerms] = []
        if jobs <= 1 or not fork_is_safe():
            return  # made here, when asked for
        context = multiprocessing.get_context("fork")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_work, args=(papers, site_model, sender, os.getpid(), jobs), daemon=True
        )
        gc.freeze()  # keeps the collector from touching, and so copying, the parent's objects
        try:
            self._process.start()
        finally:
            gc.unfreeze()
            sender.close()

    def related(self) -> tuple[Related, CpuSeconds]:
        """Each paper's related papers, and the CPU seconds they took; waits for them."""
        if self._related is None and self._process is None:
            started = time.process_time()
            related, self._terms = related_and_terms(self._papers, 1)
            self._related = related, {"related": time.process_time() - started}
        elif self._related is None:
            self._related = self._receive()
        return self._related

    def files(self) -> tuple[SiteFiles, CpuSeconds]:
        """The search index and downloads, and their CPU seconds; waits for them."""
        self.related()  # sent first
        if self._files is None and self._process is None:
            self._files = site_files(self._site_model(), self._terms)
        elif self._files is None:
            self._files = self._receive()
        return self._files

    def _receive(self) -> Any:
        try:
            return self._receiver.recv()
        except EOFError:
            raise RuntimeError("internal error: the corpus worker stopped") from None

    def close(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._receiver.close()
            self._process = None


@contextlib.contextmanager
def corpus_job_started(
    papers: list[Paper], site_model: Callable[[], Site], jobs: int
) -> Iterator[CorpusJob]:
    job = CorpusJob(papers, site_model, jobs)
    try:
        yield job
    finally:
        job.close()

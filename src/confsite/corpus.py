"""Work over the whole corpus, done in one process forked as soon as the papers are merged.

It counts every title's and abstract's index terms, computes related papers from them and
sends those first (paper pages wait for them), then makes the search index.
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
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from .output import fork_is_safe
from .records import Paper
from .related import related_papers
from .search import search_files
from .site import Site
from .termcache import TermCache
from .terms import PaperTerms

PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies

Related = dict[str, tuple[str, ...]]
SiteFiles = dict[str, bytes]
CpuSeconds = dict[str, float]


@dataclass(frozen=True)
class CorpusInputs:
    """What the corpus work is made from: the merged papers, a zero-argument function giving
    their site model (the same on every call), and where terms are cached between builds."""

    papers: list[Paper]
    site_model: Callable[[], Site]
    cache_folder: Path
    fingerprint: bytes


def related_and_terms(
    inputs: CorpusInputs, threads: int
) -> tuple[Related, list[PaperTerms], TermCache]:
    """Related papers of each paper, the terms they came from (in the site's paper order), and
    the term cache, to save once whoever waits for related papers has them."""
    ordered = sorted(inputs.papers, key=lambda paper: paper.id)  # as the site model orders them
    cache = TermCache(inputs.cache_folder, inputs.fingerprint)
    terms = cache.paper_terms(ordered)
    related = related_papers([paper.id for paper in ordered], terms, threads)
    return related, terms, cache


def site_files(site: Site, terms: list[PaperTerms]) -> tuple[SiteFiles, CpuSeconds]:
    """The search index files and the CPU seconds they took."""
    started = time.process_time()
    files = search_files(site, terms)
    return files, {"search": time.process_time() - started}


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


def _work(inputs: CorpusInputs, sender: Connection, parent: int, jobs: int) -> None:
    _die_with_parent(parent)
    with contextlib.suppress(BrokenPipeError):
        started = time.process_time()
        # threads: the top-n product also takes the cores page workers leave idle
        related, terms, cache = related_and_terms(inputs, jobs)
        sender.send((related, {"related": time.process_time() - started}))
        cache.save()
        # This process's own copy of the model, built as the parent builds the same one.
        sender.send(site_files(inputs.site_model(), terms))
    sender.close()


class CorpusJob:
    """Related papers, then the search index: from a forked worker, or made here."""

    def __init__(self, inputs: CorpusInputs, jobs: int) -> None:
        self._inputs = inputs
        self._process: BaseProcess | None = None
        self._related: tuple[Related, CpuSeconds] | None = None
        self._files: tuple[SiteFiles, CpuSeconds] | None = None
        self._terms: list[PaperTerms] = []
        if jobs <= 1 or not fork_is_safe():
            return  # made here, when asked for
        context = multiprocessing.get_context("fork")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_work, args=(inputs, sender, os.getpid(), jobs), daemon=True
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
            related, self._terms, cache = related_and_terms(self._inputs, 1)
            cache.save()
            self._related = related, {"related": time.process_time() - started}
        elif self._related is None:
            self._related = self._receive()
        return self._related

    def files(self) -> tuple[SiteFiles, CpuSeconds]:
        """The search index files, and their CPU seconds; waits for them."""
        self.related()  # sent first
        if self._files is None and self._process is None:
            self._files = site_files(self._inputs.site_model(), self._terms)
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
def corpus_job_started(inputs: CorpusInputs, jobs: int) -> Iterator[CorpusJob]:
    job = CorpusJob(inputs, jobs)
    try:
        yield job
    finally:
        job.close()

"""Wire the stages: read every source, normalize, merge, override, model the site, write it.

Everything is read and checked before anything is written, so bad input never leaves a
half-written site.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .cache.inputs import InputCache, ReadSource, digest, load_input_cache, save_input_cache
from .cache.manifest import Manifest, load_manifest, manifest_path, save_manifest
from .config import SiteConfig, load_config
from .diagnostics import ConfsiteError, Diagnostics
from .model.content import ContentPage, load_content_pages
from .model.merge import merge_entries
from .model.normalize import make_entry
from .model.overrides import apply_overrides, load_overrides
from .model.records import Entry, Paper
from .model.site import build_site
from .output.staging import build_lock, check_output_dir, site_is_intact, staged_site
from .progress import SILENT, Progress
from .readers.base import fields_stated
from .readers.plugins import site_registry
from .readers.registry import Registry
from .readers.sources import SourceRead, read_every_source, read_source
from .render.corpus import CorpusInputs, corpus_job_started
from .render.pages import build_fingerprint, render_site, theme_folder

DEFAULT_OVERRIDES = "overrides.yaml"


@dataclass(frozen=True)
class BuildOptions:
    config_path: Path = Path("site.yaml")
    out: Path | None = None
    base_url: str | None = None
    strict: bool = False
    jobs: int | None = None  # worker processes for rendering; None: one per CPU core


@dataclass
class BuildResult:
    config: SiteConfig
    out_dir: Path
    sources: list[SourceRead]
    papers: list[Paper]
    diagnostics: Diagnostics
    files_written: int = 0  # files in the site
    bytes_written: int = 0  # their total size
    files_changed: int = 0  # files whose content differs from the previous build's
    pages: int = 0
    pages_rendered: int = 0  # pages rendered anew; the rest were unchanged and reused
    workers: int = 0  # processes that rendered pages
    authors: int = 0
    up_to_date: bool = False  # nothing changed since the last build; the site was not touched
    timings: dict[str, float] = field(default_factory=dict)  # wall seconds per phase
    cpu_timings: dict[str, float] = field(default_factory=dict)  # CPU seconds, all processes


class _Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self.cpu_timings: dict[str, float] = {}
        self._start = time.perf_counter()
        self._cpu_start = time.process_time()

    def lap(self, phase: str, worker_cpu: float = 0.0) -> None:
        now, cpu_now = time.perf_counter(), time.process_time()
        self.timings[phase] = now - self._start
        self.cpu_timings[phase] = cpu_now - self._cpu_start + worker_cpu
        self._start, self._cpu_start = now, cpu_now


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _overrides_path(config: SiteConfig) -> tuple[Path, str] | None:
    if config.overrides is not None:
        path = config.resolve(config.overrides)
        if not path.exists():
            raise ConfsiteError(config.overrides, "overrides file not found")
        return path, config.overrides
    default = config.resolve(DEFAULT_OVERRIDES)
    return (default, DEFAULT_OVERRIDES) if default.exists() else None


def report_gaps(papers: list[Paper], reads: list[SourceRead], diagnostics: Diagnostics) -> None:
    """Fields no source (nor override) supplied; reported, never filled in. Authors and abstracts
    count as missing only where a source could have stated them: its format carries them and
    it states them for some of its papers (a list of titles alone lacks nothing)."""
    carried = {read.config.path: fields_stated(read.reader, read.records) for read in reads}
    for paper in papers:
        could_state = set().union(*(carried.get(loc.path, set()) for loc in paper.sources))
        who = f"by {paper.authors[0]}" if paper.authors else "with no authors"
        if paper.title is None:
            diagnostics.warn(
                "untitled",
                paper.loc,
                f"paper {who} has no title; shown as untitled "
                f"(set one in overrides.yaml under id {paper.id!r})",
            )
        if not paper.authors and "authors" in could_state:
            diagnostics.warn("no-authors", paper.loc, f"paper {paper.id!r} has no authors")
        if paper.abstract is None and "abstract" in could_state:
            diagnostics.warn("no-abstract", paper.loc, f"paper {paper.id!r} has no abstract")


def normalize_source(read: SourceRead, index: int) -> tuple[Entry, ...]:
    """The records of the `index`-th source as entries (the index orders sources in merging)."""
    return tuple(make_entry(record, read.config, index) for record in read.records)


def merge_sources(
    config: SiteConfig,
    reads: list[SourceRead],
    entries: list[tuple[Entry, ...]],
    diagnostics: Diagnostics,
) -> list[Paper]:
    """Merge duplicates among the normalized records, apply overrides, report what is missing."""
    papers = merge_entries([entry for group in entries for entry in group], diagnostics)
    overrides = _overrides_path(config)
    if overrides is not None:
        document = load_overrides(*overrides)
        if document is not None:
            papers = apply_overrides(document, papers)
    report_gaps(papers, reads, diagnostics)
    return papers


def report_reading(reads: list[SourceRead], diagnostics: Diagnostics) -> None:
    """What the plausibility checks found in each source (see readers/plausibility.py)."""
    for read in reads:
        diagnostics.problems.extend(read.problems)


def _file_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:  # reported with its location by the reader or the overrides loader
        return None


class CachedReading:
    """Reading and merging with the input cache: unchanged sources are not read again, and
    unchanged inputs are not merged again (the warnings reading and merging gave are kept with
    them and replayed). The code of the readers from outside the package counts in every key."""

    def __init__(
        self, config: SiteConfig, fingerprint: bytes, folder: Path, readers: Registry
    ) -> None:
        self.config, self.folder, self.readers = config, folder, readers
        self.cache = load_input_cache(folder)
        fingerprint += readers.code_digest.encode()
        self.keys = [
            digest(fingerprint, index, source, _file_bytes(config.resolve(source.path)))
            for index, source in enumerate(config.sources)
        ]
        overrides = _overrides_path(config)
        located = dataclasses.replace(config, config_path="", root=Path())
        overrides_bytes = _file_bytes(overrides[0]) if overrides else None
        self.inputs_key = digest(fingerprint, located, self.keys, overrides_bytes)
        self.fresh: set[int] = set()  # sources read anew, not taken from the cache

    def read(self) -> list[SourceRead]:
        """Every source, from the cache or read anew; ConfsiteError names every bad one."""
        return read_every_source(range(len(self.keys)), self.read_one)

    def read_one(self, index: int) -> SourceRead:
        source, hit = self.config.sources[index], self.cache.sources.get(self.keys[index])
        if hit is None:
            self.fresh.add(index)
            return read_source(self.config, source, self.readers)
        reader = self.readers.by_name(hit.reader)
        return SourceRead(source, reader, hit.detected, hit.records, len(hit.records), hit.problems)

    def merge(self, reads: list[SourceRead], diagnostics: Diagnostics) -> list[Paper]:
        cache, self.cache = self.cache, InputCache()  # the old cache is not needed after this
        if cache.inputs_key == self.inputs_key:
            diagnostics.problems.extend(cache.problems)
            return cache.papers
        entries = [
            normalize_source(read, index) if index in self.fresh else cache.sources[key].entries
            for index, (read, key) in enumerate(zip(reads, self.keys, strict=True))
        ]
        already = len(diagnostics.problems)
        papers = merge_sources(self.config, reads, entries, diagnostics)
        sources = {
            key: ReadSource(read.reader.name, read.detected, read.records, group, read.problems)
            for key, read, group in zip(self.keys, reads, entries, strict=True)
        }
        problems = diagnostics.problems[already:]
        # Saved now, not after the site: held through the build, the records took hundreds of
        # megabytes at 100,000 papers.
        save_input_cache(self.folder, InputCache(sources, self.inputs_key, papers, problems))
        return papers


def model_digest(inputs_key: str, base_url: str | None, content: tuple[ContentPage, ...]) -> str:
    """Everything the output depends on: the digest of every input the papers are made from
    (code and templates, the config, the sources and the overrides; see `CachedReading`), the
    base URL and the content pages. Equal digests mean an identical site. Digesting the papers
    themselves cost 0.2 s at 10,000 papers, on every build."""
    # repr, not pickle: pickle's bytes depend on which equal objects happen to be shared
    data = repr((inputs_key, base_url, content)).encode()
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """A build allocates millions of objects and keeps most of them: the collector's default
    of a young-generation pass every 700 allocations re-scans them for nothing (about 3% of a
    build's time)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(50_000, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def build(
    options: BuildOptions, diagnostics: Diagnostics, progress: Progress = SILENT
) -> BuildResult:
    with fewer_collections():
        return _build(options, diagnostics, progress)


def _build(options: BuildOptions, diagnostics: Diagnostics, progress: Progress) -> BuildResult:
    timer = _Timer()
    readers = site_registry(options.config_path.resolve().parent)
    config = load_config(options.config_path, diagnostics, readers)
    out_dir = options.out if options.out is not None else config.resolve(config.output)
    protected = [config.root / source.path for source in config.sources] + [options.config_path]
    check_output_dir(out_dir, [*protected, config.root])
    timer.lap("config")
    fingerprint = build_fingerprint(theme_folder(config))
    cache = manifest_path(config.root, out_dir)
    reading = CachedReading(config, fingerprint, cache.parent, readers)
    reads = reading.read()
    report_reading(reads, diagnostics)
    timer.lap("read")
    papers = reading.merge(reads, diagnostics)
    reads = [read.merged() for read in reads]
    timer.lap("normalize")
    diagnostics.raise_if_strict()
    content = load_content_pages(config.resolve(config.content), config.content)
    base_url = options.base_url or config.base_url
    result = BuildResult(config, out_dir, reads, papers, diagnostics)
    previous = load_manifest(cache)
    model = model_digest(reading.inputs_key, base_url, content)
    if previous.model == model and site_is_intact(out_dir, previous):
        site = build_site(config, papers, content, base_url, diagnostics)
        result.up_to_date, result.authors = True, len(site.authors)
        _count(result, previous, previous)
        timer.lap("site")
    else:
        jobs = options.jobs or default_jobs()
        lock = build_lock(cache.with_suffix(".lock"))
        with lock, staged_site(out_dir, previous, cache) as writer:
            site = build_site(config, papers, content, base_url, diagnostics)
            result.authors = len(site.authors)
            timer.lap("site")
            inputs = CorpusInputs(site, cache.parent, fingerprint)
            pieces = cache.with_suffix(".downloads")  # see downloads.py
            with corpus_job_started(inputs, jobs) as corpus:
                rendered = render_site(site, writer, fingerprint, corpus, pieces, progress, jobs)
            writer.finish(rendered.files)
            timer.lap("render", sum(rendered.cpu_seconds.values()))
        current = Manifest(model, rendered.files)
        save_manifest(cache, current)
        result.pages, result.pages_rendered = rendered.pages, rendered.pages_rendered
        result.workers = rendered.workers
        _count(result, current, previous)
        timer.lap("write")
    result.timings, result.cpu_timings = timer.timings, timer.cpu_timings
    return result


def _count(result: BuildResult, current: Manifest, previous: Manifest) -> None:
    result.files_written = len(current.files)
    result.bytes_written = sum(entry.size for entry in current.files.values())
    result.files_changed = sum(
        1
        for path, entry in current.files.items()
        if path not in previous.files or previous.files[path].inode != entry.inode
    )
    if result.up_to_date:
        result.pages = sum(1 for path in current.files if path.endswith(".html"))

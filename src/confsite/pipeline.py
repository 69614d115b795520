"""Wire the stages: read every source, normalize, merge, override, model the site, write it.

Everything is read and checked before anything is written, so bad input never leaves a
half-written site.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cache.digests import PaperDigests, hex_digest
from .cache.inputs import CachedReading
from .cache.manifest import NO_CACHE, CachePaths, Manifest, load_manifest, save_manifest
from .cache.site_model import completed_site
from .config import SiteConfig, load_config
from .diagnostics import Diagnostics
from .model.content import ContentPage, load_content_pages
from .model.papers import load_author_overrides
from .model.records import Paper
from .model.site import site_program
from .output.processes import build_lock, collector_off, cpu_seconds_used
from .output.staging import check_output_dir, site_is_intact, staged_site
from .progress import SILENT, Progress
from .readers.plugins import site_registry
from .readers.sources import SourceReading
from .render.assets import build_fingerprint, theme_folder
from .report import BuildReport, report_of


@dataclass(frozen=True)
class BuildOptions:
    config_path: Path = Path("site.yaml")
    out: Path | None = None
    base_url: str | None = None
    strict: bool = False
    jobs: int | None = None  # worker processes for rendering; None: one per CPU core
    use_cache: bool = True  # False: no cache is read or written; the same site


@dataclass
class BuildResult:
    config: SiteConfig
    out_dir: Path
    sources: list[SourceReading]
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
    report: BuildReport = field(default_factory=BuildReport)  # what the summary tells
    timings: dict[str, float] = field(default_factory=dict)  # wall seconds per phase
    cpu_timings: dict[str, float] = field(default_factory=dict)  # CPU seconds, all processes
    # What the build made on the way (the site model, the staged files, the reading and its
    # caches), held with the result: whoever holds it decides when they are freed. Freed as
    # the build returned, they took half a second at 100,000 papers, after the site was
    # written; the command line never frees them (see `cli.commands.run`).
    made: list[object] = field(default_factory=list, repr=False, compare=False)


class _Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self.cpu_timings: dict[str, float] = {}
        self._start = time.perf_counter()
        self._cpu_start = cpu_seconds_used()

    def lap(self, phase: str) -> None:
        """A phase ended: its wall seconds, and the CPU seconds of this process and of the
        children it waited for in it (the corpus and page workers are waited for in "render")."""
        now, cpu_now = time.perf_counter(), cpu_seconds_used()
        self.timings[phase] = now - self._start
        self.cpu_timings[phase] = cpu_now - self._cpu_start
        self._start, self._cpu_start = now, cpu_now


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def report_reading(reads: list[SourceReading], diagnostics: Diagnostics) -> None:
    """What the plausibility checks found in each source (see readers/plausibility.py)."""
    for read in reads:
        diagnostics.problems.extend(read.problems)


def model_digest(inputs_key: str, base_url: str | None, content: tuple[ContentPage, ...]) -> str:
    """Everything the output depends on: the digest of every input the papers are made from
    (code and templates, the config, the sources and the overrides; see `CachedReading`), the
    base URL and the content pages. Equal digests mean an identical site. Digesting the papers
    themselves would be slow, and this runs on every build, a no-op included."""
    return hex_digest(inputs_key, base_url, content)


def build(
    options: BuildOptions, diagnostics: Diagnostics, progress: Progress = SILENT
) -> BuildResult:
    with collector_off():
        return _build(options, diagnostics, progress)


@dataclass(frozen=True)
class _Inputs:
    """What a build has found out before it reads any source."""

    config: SiteConfig
    out_dir: Path
    fingerprint: bytes
    caches: CachePaths
    reading: CachedReading
    content: tuple[ContentPage, ...]
    base_url: str | None
    model: str  # see model_digest
    previous: Manifest  # what the last build to the same folder wrote
    told: int  # problems the config gave: a build tells them whether or not anything changed


def _build(options: BuildOptions, diagnostics: Diagnostics, progress: Progress) -> BuildResult:
    timer = _Timer()
    readers = site_registry(options.config_path.resolve().parent)
    config = load_config(options.config_path, diagnostics, readers)
    told = len(diagnostics.problems)
    out_dir = options.out if options.out is not None else config.resolve(config.output)
    protected = [config.root / source.path for source in config.sources] + [options.config_path]
    check_output_dir(out_dir, [*protected, config.root])
    timer.lap("config")
    fingerprint = build_fingerprint(theme_folder(config))
    caches = CachePaths.of(config.root, out_dir) if options.use_cache else NO_CACHE
    reading = CachedReading(config, fingerprint, caches.folder, readers)
    content = load_content_pages(config.resolve(config.content), config.content)
    base_url = options.base_url or config.base_url
    model = model_digest(reading.inputs_key, base_url, content)
    previous = load_manifest(caches.manifest)
    found = _Inputs(
        config, out_dir, fingerprint, caches, reading, content, base_url, model, previous, told
    )
    if previous.model == model and previous.report and site_is_intact(out_dir, previous):
        result = _told_again(found, previous.report, diagnostics)
        timer.lap("check")
    else:
        try:
            result = _built_anew(found, options, diagnostics, progress, timer)
        finally:
            reading.saved()
    result.timings, result.cpu_timings = timer.timings, timer.cpu_timings
    result.made.append(found)
    return result


def _built_anew(
    found: _Inputs,
    options: BuildOptions,
    diagnostics: Diagnostics,
    progress: Progress,
    timer: _Timer,
) -> BuildResult:
    """Read, merge, model and render: every page whose key changed is rendered again, the rest
    of the site is linked from the current one."""
    # Imported here: a build with nothing to do renders nothing, and Jinja with the page code
    # was a third of its start-up.
    from .render.corpus import CorpusInputs, corpus_job_started

    jobs = options.jobs or default_jobs()
    reads = found.reading.read(jobs)
    report_reading(reads, diagnostics)
    timer.lap("read")
    papers = found.reading.merge(reads, diagnostics)
    timer.lap("normalize")
    diagnostics.raise_if_strict()
    from_inputs = len(diagnostics.problems)
    people = load_author_overrides(found.config)
    result = BuildResult(found.config, found.out_dir, reads, papers, diagnostics)
    caches = found.caches
    staged = staged_site(found.out_dir, found.previous, caches.manifest)
    this_build = _build_id(found)
    with build_lock(found.out_dir), staged as writer:
        program = site_program(found.config, papers, found.content, found.base_url)
        kept = found.reading.kept_papers()
        inputs = CorpusInputs(program, caches.folder, found.fingerprint, writer, kept)
        # Started before the authors and cite keys are made, which it does not need: so it has
        # the other core meanwhile.
        with corpus_job_started(inputs, jobs) as corpus:
            # Imported once the corpus worker has the other core: it needs none of it.
            from .render.pages import render_site

            site = completed_site(program, people, diagnostics, caches.folder, found.fingerprint)
            result.authors = len(site.authors)
            timer.lap("site")
            known, last = found.reading.known_digests(), digests_of_this_site(found)
            rendered = render_site(
                site,
                writer,
                found.fingerprint,
                corpus,
                caches,
                progress,
                jobs,
                known,
                last,
            )
        writer.finish(rendered.files)
        # Before the digests' saver and the swap's spare readier fork: read with a child
        # sharing its pages, every paper copied them (0.3 s at 100,000 papers, not 0.1 s).
        told = diagnostics.problems[found.told :]
        result.report = report_of(reads, papers, result.authors, told, from_inputs - found.told)
        found.reading.save_digests(rendered.digests, this_build)
        timer.lap("render")
    current = Manifest(found.model, rendered.files, result.report, this_build)
    save_manifest(caches.manifest, current)
    result.pages, result.pages_rendered = rendered.pages, rendered.pages_rendered
    result.workers = rendered.workers
    _count(result, current, found.previous)
    found.reading.saved()  # within the build's time, as saving was before its child did it
    timer.lap("write")
    result.made += [site, rendered, current, inputs, corpus]
    return result


def _build_id(found: _Inputs) -> str:
    """This build, of this output folder: its inputs (a build of the same inputs makes the
    same site) and the folder."""
    return hex_digest(found.model, os.fspath(found.out_dir.resolve()))


def digests_of_this_site(found: _Inputs) -> PaperDigests:
    """What the last build digested of every paper, when it is the build whose site and
    manifest this folder holds: render/unchanged.py takes pages that show unchanged papers
    from the current site without keying them. The paper digests are the project's, saved
    as the site is swapped in and the manifest saved: a build to another folder, or one
    whose swap or manifest failed, saved digests of papers the files here do not show."""
    last = found.reading.last_digests
    return last if last.build and last.build == found.previous.build else PaperDigests()


def _told_again(found: _Inputs, report: BuildReport, diagnostics: Diagnostics) -> BuildResult:
    """Nothing changed since the last build and its site is intact: it is left untouched, and
    what that build told is told again, without reading the sources or their cache."""
    diagnostics.problems.extend(report.problems[: report.from_inputs])
    diagnostics.raise_if_strict()
    diagnostics.problems.extend(report.problems[report.from_inputs :])
    result = BuildResult(found.config, found.out_dir, [], [], diagnostics, report=report)
    result.up_to_date, result.authors = True, report.authors
    _count(result, found.previous, found.previous)
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

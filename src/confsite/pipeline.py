"""Wire the stages: read every source, normalize, merge, override, model the site, write it.

Everything is read and checked before anything is written, so bad input never leaves a
half-written site.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .config import SiteConfig, load_config
from .content import load_content_pages
from .dedup import merge_entries
from .diagnostics import ConfsiteError, Diagnostics
from .normalize import make_entry
from .output import check_output_dir, write_site
from .overrides import apply_overrides, load_overrides
from .progress import SILENT, Progress
from .records import Paper
from .render import render_site
from .site import build_site
from .sources import SourceRead, read_source

DEFAULT_OVERRIDES = "overrides.yaml"


@dataclass(frozen=True)
class BuildOptions:
    config_path: Path = Path("site.yaml")
    out: Path | None = None
    base_url: str | None = None
    strict: bool = False


@dataclass
class BuildResult:
    config: SiteConfig
    out_dir: Path
    sources: list[SourceRead]
    papers: list[Paper]
    diagnostics: Diagnostics
    files_written: int = 0
    bytes_written: int = 0
    pages: int = 0  # HTML pages among the files written
    authors: int = 0  # entries in the author index
    timings: dict[str, float] = field(default_factory=dict)


class _Timer:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.timings[phase] = now - self._start
        self._start = now


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
    count as missing only where a source's format could have stated them."""
    carried = {read.config.path: set(read.reader.carries) for read in reads}
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


def load_papers(
    config: SiteConfig, diagnostics: Diagnostics
) -> tuple[list[SourceRead], list[Paper]]:
    reads = [read_source(config, source) for source in config.sources]
    entries = [
        make_entry(record, read.config, index)
        for index, read in enumerate(reads)
        for record in read.records
    ]
    papers = merge_entries(entries, diagnostics)
    overrides = _overrides_path(config)
    if overrides is not None:
        document = load_overrides(*overrides)
        if document is not None:
            papers = apply_overrides(document, papers)
    report_gaps(papers, reads, diagnostics)
    return reads, papers


def build(
    options: BuildOptions, diagnostics: Diagnostics, progress: Progress = SILENT
) -> BuildResult:
    timer = _Timer()
    config = load_config(options.config_path, diagnostics)
    out_dir = options.out if options.out is not None else config.resolve(config.output)
    protected = [config.root / source.path for source in config.sources] + [options.config_path]
    check_output_dir(out_dir, [*protected, config.root])
    timer.lap("config")
    reads, papers = load_papers(config, diagnostics)
    timer.lap("read")
    diagnostics.raise_if_strict()
    content = load_content_pages(config.resolve(config.content), config.content)
    site = build_site(config, papers, content, options.base_url or config.base_url, diagnostics)
    timer.lap("site")
    tree = render_site(site, progress)
    timer.lap("render")
    write_site(out_dir, tree, progress)
    timer.lap("write")
    return BuildResult(
        config,
        out_dir,
        reads,
        papers,
        diagnostics,
        len(tree),
        tree.total_bytes,
        pages=sum(1 for file in tree.files() if file.path.endswith(".html")),
        authors=len(site.authors),
        timings=timer.timings,
    )

"""From what the readers read to papers: each source's records normalized, duplicates merged,
overrides applied, and what no source states reported."""

from __future__ import annotations

from pathlib import Path

from ..config import SiteConfig
from ..diagnostics import ConfsiteError, Diagnostics
from ..readers.sources import SourceReading
from .authors import AuthorOverrides
from .merge import GroupKey, MergedGroups, merge_groups
from .normalize import make_entry
from .overrides import apply_overrides, author_overrides, load_overrides
from .records import Entry, Paper

DEFAULT_OVERRIDES = "overrides.yaml"


def overrides_path(config: SiteConfig) -> tuple[Path, str] | None:
    if config.overrides is not None:
        path = config.resolve(config.overrides)
        if not path.exists():
            raise ConfsiteError(config.overrides, "overrides file not found")
        return path, config.overrides
    default = config.resolve(DEFAULT_OVERRIDES)
    return (default, DEFAULT_OVERRIDES) if default.exists() else None


def load_author_overrides(config: SiteConfig) -> AuthorOverrides:
    """What the overrides file says of authors (read again after merging: it is small)."""
    overrides = overrides_path(config)
    return author_overrides(load_overrides(*overrides) if overrides else None)


def report_gaps(papers: list[Paper], reads: list[SourceReading], diagnostics: Diagnostics) -> None:
    """Fields no source (nor override) supplied; reported, never filled in. Authors and abstracts
    count as missing only where a source could have stated them: its format carries them and
    it states them for some of its papers (a list of titles alone lacks nothing)."""
    carried = {read.config.path: read.stated for read in reads}
    for paper in papers:
        if paper.title is not None and paper.authors and paper.abstract is not None:
            continue  # nothing missing: most papers, and 100,000 of them in an archive
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


def normalize_source(read: SourceReading, index: int) -> tuple[Entry, ...]:
    """The records of the `index`-th source as entries (the index orders sources in merging)."""
    return tuple(make_entry(record, read.config, index) for record in read.records)


def merge_sources(
    config: SiteConfig,
    reads: list[SourceReading],
    entries: list[tuple[Entry, ...]],
    diagnostics: Diagnostics,
    previous: MergedGroups,
    group_keys: list[tuple[GroupKey, ...]],
) -> tuple[list[Paper], MergedGroups]:
    """Merge duplicates among the normalized records (taking from `previous` the groups it
    merged from the same entries; `group_keys`, each source's entries' keys), apply
    overrides, report what is missing. Returns the papers and how each was merged, for the
    next build."""
    flat = [entry for group in entries for entry in group]
    keys = [key for group in group_keys for key in group]
    papers, merged = merge_groups(flat, diagnostics, previous, keys)
    overrides = overrides_path(config)
    if overrides is not None:
        document = load_overrides(*overrides)
        if document is not None:
            papers = apply_overrides(document, papers)
    report_gaps(papers, reads, diagnostics)
    return papers, merged

"""The reader registry: every dump format confsite understands, and content sniffing among them."""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import ConfsiteError
from . import (
    awards,
    bibtex,
    delimited,
    general,
    json_export,
    markdown_list,
    paper_listing,
    session_2023,
    session_2024,
    yaml_export,
)
from .base import RawRecord, Reader, SourceText

# Seed page layouts first, then structured exports (a module, or an object for a module
# that holds two formats), then the general reader for any other list or program page.
READERS: tuple[Reader, ...] = (
    session_2023,
    session_2024,
    markdown_list,
    awards,
    paper_listing,
    delimited.CSV,
    delimited.TSV,
    json_export.JSON,
    json_export.JSON_LINES,
    yaml_export,
    bibtex,
    general,
)
MIN_SNIFF_SCORE = 0.5
CLEAR_SNIFF_SCORE = 0.8


def reader_names() -> tuple[str, ...]:
    return tuple(reader.name for reader in READERS)


def reader_by_name(name: str) -> Reader:
    for reader in READERS:
        if reader.name == name:
            return reader
    raise KeyError(name)


@dataclass(frozen=True)
class SniffResult:
    reader: Reader
    scores: tuple[tuple[str, float], ...]  # every reader's score, best first


def sniff(source: SourceText) -> SniffResult:
    """Pick a reader: among those whose sniffer scores MIN_SNIFF_SCORE or more, the one whose
    records come out most complete; ties go to the higher score, then the earlier reader."""
    scored = [(reader, round(reader.sniff(source), 3)) for reader in READERS]
    ranked = sorted(scored, key=lambda pair: -pair[1])
    scores = tuple((reader.name, score) for reader, score in ranked)
    candidates = [reader for reader, score in ranked if score >= MIN_SNIFF_SCORE]
    if not candidates:
        tried = ", ".join(f"{name} {score:.2f}" for name, score in scores)
        raise ConfsiteError(
            source.loc(1),
            f"not a recognised dump format (formats tried, with scores: {tried}; "
            f"set 'format' for this source in site.yaml to force one)",
        )
    if len(candidates) == 1:
        return SniffResult(candidates[0], scores)
    _raise_if_broken(ranked[0], source)
    best = max(
        candidates, key=lambda reader: (completeness(reader, source), -candidates.index(reader))
    )
    return SniffResult(best, scores)


def _raise_if_broken(best: tuple[Reader, float], source: SourceText) -> None:
    """A file that is clearly of one format but broken (cut off mid-record) gets that format's
    error, not a reading by another reader."""
    reader, score = best
    if score >= CLEAR_SNIFF_SCORE:
        reader.read(source)


def completeness(reader: Reader, source: SourceText) -> float:
    """How much of what the reader read is papers: the share of records stating at least two
    of title, authors and abstract (one, for a format that carries only one). A reader that
    fails on the file scores nothing."""
    try:
        records = reader.read(source)
    except ConfsiteError:
        return 0.0
    if not records:
        return 0.0
    needed = min(2, len(reader.carries))
    full = sum(1 for r in records if sum(map(bool, (r.title, r.authors, r.abstract))) >= needed)
    return round(full / len(records), 2)


__all__ = [
    "READERS",
    "RawRecord",
    "Reader",
    "SourceText",
    "reader_by_name",
    "reader_names",
    "sniff",
]

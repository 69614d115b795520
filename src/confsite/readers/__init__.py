"""The reader registry: every dump format confsite understands, and content sniffing among them."""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import ConfsiteError
from . import (
    awards,
    bibtex,
    delimited,
    json_export,
    markdown_list,
    paper_listing,
    session_2023,
    session_2024,
    yaml_export,
)
from .base import RawRecord, Reader, SourceText

# Scraped page formats first, then structured exports (a module, or an object for a module
# that holds two formats).
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
)
MIN_SNIFF_SCORE = 0.5


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
    """Pick the reader whose sniffer scores highest; ties go to the earlier registered reader."""
    scored = [(reader, round(reader.sniff(source), 3)) for reader in READERS]
    ranked = sorted(scored, key=lambda pair: -pair[1])
    scores = tuple((reader.name, score) for reader, score in ranked)
    best, best_score = ranked[0]
    if best_score < MIN_SNIFF_SCORE:
        tried = ", ".join(f"{name} {score:.2f}" for name, score in scores)
        raise ConfsiteError(
            source.loc(1),
            f"not a recognised dump format (formats tried, with scores: {tried}; "
            f"set 'format' for this source in site.yaml to force one)",
        )
    return SniffResult(best, scores)


__all__ = [
    "READERS",
    "RawRecord",
    "Reader",
    "SourceText",
    "reader_by_name",
    "reader_names",
    "sniff",
]

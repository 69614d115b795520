"""The reader registry: every dump format confsite understands, and content sniffing among them."""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import ConfsiteError, Problem
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
SURE_COMPLETENESS = 0.9  # a clear reader that reads this share of records whole is taken


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
    scores: tuple[tuple[str, float], ...]  # the scores of the readers tried, best first
    # what the reader read while readers were compared (records, warnings), so it is not
    # read again; None when it was the only candidate and was not read
    reading: tuple[list[RawRecord], tuple[Problem, ...]] | None = None


def sniff(source: SourceText) -> SniffResult:
    """Pick the reader for a source with the built-in readers (see `Registry.sniff`)."""
    from .registry import Registry  # which builds on this module

    return Registry().sniff(source)


WHAT_TO_DO = (
    "set 'format' for this source in site.yaml to force a reader, 'fields' to name an "
    "export's columns, or write a reader (README: 'Writing a reader for a new dump format')"
)


def format_scores(scores: tuple[tuple[str, float], ...]) -> str:
    return ", ".join(f"{name} {score:.2f}" for name, score in scores)


def unrecognised_format(source: SourceText, scores: tuple[tuple[str, float], ...]) -> ConfsiteError:
    return ConfsiteError(
        source.loc(1),
        f"not a recognised dump format (formats tried, with scores: {format_scores(scores)}); "
        f"{WHAT_TO_DO}",
    )


__all__ = [
    "READERS",
    "RawRecord",
    "Reader",
    "SourceText",
    "reader_by_name",
    "reader_names",
    "sniff",
]

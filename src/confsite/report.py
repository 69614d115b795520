"""What a build's summary tells of its inputs: per source its format, records and papers; the
papers, untitled papers and authors in all; every problem found. Made from a build's records,
and kept in the manifest, so a build with nothing to do tells the same without reading them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .diagnostics import Problem
from .model.records import Paper
from .readers.sources import SourceReading


@dataclass(frozen=True)
class SourceLine:
    path: str  # as the config gives it
    reader: str
    detected: bool  # False: the format was set in the config
    records: int
    papers: int  # papers with a record from this source


@dataclass(frozen=True)
class BuildReport:
    sources: tuple[SourceLine, ...] = ()
    papers: int = 0
    untitled: int = 0
    authors: int = 0
    problems: tuple[Problem, ...] = ()
    from_inputs: int = 0  # how many of the problems reading and merging gave (--strict's)


def report_of(
    reads: list[SourceReading],
    papers: list[Paper],
    authors: int,
    problems: Iterable[Problem],
    from_inputs: int,
) -> BuildReport:
    # Most papers have one source: counted in C, the others' sources each once.
    papers_by_source = Counter(p.sources[0].path for p in papers if len(p.sources) == 1)
    for paper in papers:
        if len(paper.sources) > 1:
            papers_by_source.update({loc.path for loc in paper.sources})
    sources = tuple(
        SourceLine(
            read.config.path,
            read.reader.name,
            read.detected,
            read.record_count,
            papers_by_source[read.config.path],
        )
        for read in reads
    )
    untitled = sum(1 for paper in papers if not paper.title)
    return BuildReport(sources, len(papers), untitled, authors, tuple(problems), from_inputs)

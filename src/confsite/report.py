"""What a build's summary tells of its inputs: per source its format, records and papers; the
papers, untitled papers and authors in all; every problem found. Made from a build's records,
and kept in the manifest, so a build with nothing to do tells the same without reading them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .diagnostics import Problem, SourceLoc
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
    papers_by_source = Counter(
        path for paper in papers for path in {loc.path for loc in paper.sources}
    )
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


def report_to_json(report: BuildReport) -> dict[str, Any]:
    return {
        "sources": [[s.path, s.reader, s.detected, s.records, s.papers] for s in report.sources],
        "counts": [report.papers, report.untitled, report.authors, report.from_inputs],
        "problems": [
            [p.severity, p.kind, p.loc.path, p.loc.line, p.loc.end_line, p.message]
            for p in report.problems
        ],
    }


def report_from_json(data: dict[str, Any]) -> BuildReport:
    """The report `report_to_json` gave; KeyError, TypeError or ValueError when it is not."""
    sources = tuple(SourceLine(*row) for row in data["sources"])
    papers, untitled, authors, from_inputs = data["counts"]
    problems = tuple(
        Problem(severity, kind, SourceLoc(path, line, end_line), message)
        for severity, kind, path, line, end_line, message in data["problems"]
    )
    return BuildReport(sources, papers, untitled, authors, problems, from_inputs)

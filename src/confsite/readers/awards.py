"""The awards page: award line, authors, optional attendance marker, abstract; titles absent.

Outstanding Paper
Author One · Author Two
[ Virtual ]
Abstract ...
"""

from __future__ import annotations

from .base import NO_OPTIONS, RawRecord, ReadOptions, SourceText, content_lines
from .program import (
    AWARD_LINE,
    Marker,
    ProgramAssembler,
    attendance_marker,
    award_marker,
    header_line_ratio,
    split_page_header,
)

name = "awards"
description = "awards page: 'Outstanding Paper' / 'Honorable Mention' lines before each paper"
carries = ("authors", "abstract")


def marker(text: str) -> Marker | None:
    return award_marker(text, starts_record=True) or attendance_marker(text)


def sniff(source: SourceText) -> float:
    return header_line_ratio(source, AWARD_LINE)


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    page_facts, lines = split_page_header(
        content_lines(source), lambda text: marker(text) is not None
    )
    return ProgramAssembler(source, marker, page_facts).run(lines)

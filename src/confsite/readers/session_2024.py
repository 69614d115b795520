"""The 2024-style virtual-site session page, page chrome included, with optional badge lines.

Skip to yearly menu bar Skip to main content
Poster Session 3
Halle B
Chat is not available.
[Spotlight Poster]
Title
Author One · Author Two
Abstract ...
"""

from __future__ import annotations

import re

from .base import NO_OPTIONS, RawRecord, ReadOptions, SourceText, content_lines
from .program import (
    ATTENDANCE_MARKER,
    SITE_CHROME,
    Marker,
    ProgramAssembler,
    award_marker,
    is_author_list,
    is_prose,
    split_page_header,
)
from .session_2023 import PRESENTATION_HEADER

name = "session-2024"
description = "virtual-site session page with page chrome and 'Spotlight Poster' badges (2024)"
carries = ("title", "authors", "abstract")

BADGE = re.compile(r"^(?P<decision>Oral|Spotlight|Highlight)\s+(?P<kind>Poster|Talk)$")


def badge_marker(text: str) -> Marker | None:
    match = BADGE.match(text)
    if match is None:
        return None
    return Marker(
        facts={"decision": match["decision"], "presentation": match["kind"]}, starts_record=True
    )


def marker(text: str) -> Marker | None:
    return badge_marker(text) or award_marker(text, starts_record=True)


def sniff(source: SourceText) -> float:
    """Author lines that follow a title line, on a page without 2023-style headers."""
    lines = source.filled_lines
    authors = [i for i, line in enumerate(lines) if is_author_list(line)]
    if not authors:
        return 0.0
    if any(PRESENTATION_HEADER.match(line) for line in lines):
        return 0.2
    titled = sum(1 for i in authors if i > 0 and _could_be_title(lines[i - 1]))
    score = 0.8 * titled / len(authors)
    if any(line in SITE_CHROME for line in lines[:20]):
        score += 0.2
    return score


def _could_be_title(line: str) -> bool:
    return not (
        is_prose(line) or is_author_list(line) or marker(line) or ATTENDANCE_MARKER.match(line)
    )


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    page_facts, lines = split_page_header(
        content_lines(source), lambda text: marker(text) is not None
    )
    return ProgramAssembler(source, marker, page_facts).run(lines)

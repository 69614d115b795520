"""The 2023-style virtual-site session page: each paper opens with an attendance/decision line.

In-Person Poster presentation / top 25% paper
[Outstanding Paper]
Title
Author One · Author Two
Abstract ...
"""

from __future__ import annotations

import re

from .base import NO_OPTIONS, RawRecord, ReadOptions, SourceText, content_lines
from .program import Marker, ProgramAssembler, award_marker, header_line_ratio, split_page_header

name = "session-2023"
description = "virtual-site session page with 'In-Person Poster presentation / ...' lines (2023)"
carries = ("title", "authors", "abstract")

PRESENTATION_HEADER = re.compile(
    r"^(?P<attendance>In[- ]Person|Virtual)(?:\s+(?P<kind>[A-Za-z][A-Za-z ]*?))?\s+presentation"
    r"\s*/\s*(?P<decision>.+)$",
    re.IGNORECASE,
)


def header_marker(text: str) -> Marker | None:
    match = PRESENTATION_HEADER.match(text)
    if match is None:
        return None
    facts = {
        "attendance": "virtual" if match["attendance"].lower() == "virtual" else "in person",
        "decision": match["decision"].strip(),
    }
    if match["kind"]:
        facts["presentation"] = match["kind"].strip()
    return Marker(facts=facts, starts_record=True)


def marker(text: str) -> Marker | None:
    return header_marker(text) or award_marker(text, starts_record=False)


def sniff(source: SourceText) -> float:
    return header_line_ratio(source, PRESENTATION_HEADER)


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    page_facts, lines = split_page_header(
        content_lines(source), lambda text: header_marker(text) is not None
    )
    return ProgramAssembler(source, marker, page_facts).run(lines)

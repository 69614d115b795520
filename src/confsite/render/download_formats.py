"""Machine-readable downloads of the records: papers.json, papers.bib, papers.csv, papers.ris."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.records import Paper
from ..model.site import Site
from ..model.urls import paper_url
from .citation import bibtex_entry, citation_of, ris_record


def paper_document(site: Site, paper: Paper) -> dict[str, Any]:
    return {
        "id": paper.id,
        "title": paper.title,
        "authors": list(paper.authors),
        "affiliations": list(paper.affiliations),
        "abstract": paper.abstract,
        "links": [{"kind": link.kind, "url": link.url} for link in paper.links],
        "keywords": list(paper.keywords),
        "sessions": [session.name for session in paper.sessions],
        "presentation": paper.presentation,
        "decision": paper.decision,
        "awards": list(paper.awards),
        "attendance": paper.attendance,
        "room": paper.room,
        "conference": paper.conference,
        "year": paper.year,
        "url": paper_url(paper.id),
        "sources": [
            {"path": loc.path, "first_line": loc.line, "last_line": loc.end_line or loc.line}
            for loc in paper.sources
        ],
    }


@dataclass(frozen=True)
class Download:
    """A download file: a head, then one piece per paper in site order, joined by a
    separator, then a tail. A piece is made from its paper and the site's base URL alone,
    which is what lets a rebuild keep the pieces of unchanged papers (see downloads.py)."""

    head: str
    separator: str
    tail: str
    piece: Callable[[Site, Paper], str]


def json_line(site: Site, paper: Paper) -> str:
    """One paper a line: diffs between builds stay readable, and each line is encoded by
    json's C encoder (any `indent` makes json fall back to pure Python)."""
    return json.dumps(paper_document(site, paper), ensure_ascii=False, sort_keys=True)


def bibtex_piece(site: Site, paper: Paper) -> str:
    return bibtex_entry(paper, citation_of(site, paper))


def ris_piece(site: Site, paper: Paper) -> str:
    return ris_record(paper, citation_of(site, paper))


CSV_COLUMNS = (
    "id",
    "title",
    "authors",
    "conference",
    "year",
    "sessions",
    "presentation",
    "decision",
    "awards",
    "attendance",
    "room",
    "url",
    "abstract",
)


# What makes RFC 4180 quote a field, found by `str` searches: csv.writer copies each field
# character by character (docs/performance.md). It quotes "\r" only when lines end in one.
CSV_QUOTED = (",", '"', "\n", "\r")


def csv_field(value: Any) -> str:
    """One CSV field, quoted where it holds a comma, a quote or a line break (None: empty)."""
    text = "" if value is None else str(value)
    if any(character in text for character in CSV_QUOTED):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_line(values: Sequence[Any]) -> str:
    return ",".join(map(csv_field, values)) + "\n"


def csv_row(site: Site, p: Paper) -> str:
    return csv_line(
        [
            p.id,
            p.title or "",
            "; ".join(p.authors),
            p.conference or "",
            p.year or "",
            "; ".join(s.name for s in p.sessions),
            p.presentation or "",
            p.decision or "",
            "; ".join(p.awards),
            p.attendance or "",
            p.room or "",
            paper_url(p.id),
            p.abstract or "",
        ]
    )


DOWNLOADS: dict[str, Download] = {
    "papers.json": Download("[\n", ",\n", "\n]\n", json_line),
    "papers.bib": Download("", "\n", "", bibtex_piece),
    "papers.csv": Download(csv_line(CSV_COLUMNS), "", "", csv_row),
    "papers.ris": Download("", "\n", "", ris_piece),
}

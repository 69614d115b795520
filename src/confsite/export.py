"""Machine-readable downloads of the records: papers.json, papers.bib and papers.csv."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

from .citation import bibtex_entry
from .records import Paper
from .site import Site, paper_url


def paper_document(site: Site, paper: Paper) -> dict[str, Any]:
    return {
        "id": paper.id,
        "title": paper.title,
        "authors": list(paper.authors),
        "abstract": paper.abstract,
        "sessions": [session.name for session in paper.sessions],
        "presentation": paper.presentation,
        "decision": paper.decision,
        "awards": list(paper.awards),
        "attendance": paper.attendance,
        "room": paper.room,
        "conference": paper.conference,
        "year": paper.year,
        "url": paper_url(paper),
        "sources": [
            {"path": loc.path, "first_line": loc.line, "last_line": loc.end_line or loc.line}
            for loc in paper.sources
        ],
    }


def papers_json(site: Site) -> bytes:
    """An array with one paper a line: diffs between builds stay readable, and each line is
    encoded by json's C encoder (any `indent` makes json fall back to pure Python)."""
    lines = (
        json.dumps(paper_document(site, paper), ensure_ascii=False, sort_keys=True)
        for paper in site.papers  # by id (`site_order`)
    )
    return ("[\n" + ",\n".join(lines) + "\n]\n").encode()


def papers_bib(site: Site) -> bytes:
    entries = (bibtex_entry(p, site.absolute(paper_url(p))) for p in site.papers)
    return "\n".join(entries).encode()


def papers_csv(site: Site) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
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
        ]
    )
    for p in site.papers:
        writer.writerow(
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
                paper_url(p),
                p.abstract or "",
            ]
        )
    return buffer.getvalue().encode()


DOWNLOADS: dict[str, Callable[[Site], bytes]] = {
    "papers.json": papers_json,
    "papers.bib": papers_bib,
    "papers.csv": papers_csv,
}

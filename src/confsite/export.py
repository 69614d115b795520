"""Machine-readable downloads of the records: papers.json."""

from __future__ import annotations

import json
from typing import Any

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
    documents = [paper_document(site, paper) for paper in sorted(site.papers, key=lambda p: p.id)]
    return (json.dumps(documents, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()

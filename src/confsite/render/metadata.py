"""What a paper's page says of it beyond its card: description, citation, sources, and the
metadata search engines and citation managers read (Highwire, OpenGraph, JSON-LD)."""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from ..model.records import Paper
from ..model.site import collection_label
from ..model.urls import paper_ris_url
from ..text.plain import plain_text, shorten
from .citation import Citation, bibtex_entry, booktitle
from .labels import title_text


def paper_details(
    paper: Paper, site_title: str, absolute_url: str, citation: Citation
) -> dict[str, Any]:
    """What a paper's page shows of it beyond its card: description, citation, metadata and
    sources, made from these arguments alone (see `Page.deferred`)."""
    description = shorten(plain_text(paper.abstract), 300) if paper.abstract else ""
    return {
        "description": description,
        "sources": [
            str(loc) + (f"–{loc.end_line}" if loc.end_line and loc.end_line != loc.line else "")
            for loc in paper.sources
        ],
        "affiliations": [
            {"name": name, "affiliation": affiliation}
            for name, affiliation in zip(paper.authors, paper.affiliations, strict=False)
            if affiliation
        ],
        "links": [{"kind": link.kind, "url": link.url} for link in paper.links],
        "keywords": list(paper.keywords),
        "bibtex": bibtex_entry(paper, citation, with_abstract=False),
        "ris_url": paper_ris_url(paper.id, citation.key),
        "cite_key": citation.key,
        "meta": paper_meta(paper, site_title, absolute_url, description, citation),
        "json_ld": json_for_script(json_ld(paper, absolute_url, description)),
    }


def paper_meta(
    paper: Paper, site_title: str, absolute_url: str, description: str, citation: Citation
) -> list[tuple[str, str, str]]:
    """(attribute, name, content) triples for Highwire citation_* and OpenGraph tags."""
    title = title_text(paper)
    meta: list[tuple[str, str, str]] = []
    if paper.title:
        meta.append(("name", "citation_title", title))
    meta += [("name", "citation_author", name) for name in paper.authors]
    if paper.year:
        meta.append(("name", "citation_publication_date", str(paper.year)))
    if paper.conference:
        venue = booktitle(paper, citation.proceedings) or ""
        meta.append(("name", "citation_conference_title", venue))
    if paper.abstract:
        meta.append(("name", "citation_abstract", plain_text(paper.abstract)))
    meta += [
        ("property", "og:type", "article"),
        ("property", "og:title", title),
        ("property", "og:site_name", site_title),
    ]
    if description:
        meta.append(("property", "og:description", description))
    if absolute_url:
        meta.append(("name", "citation_abstract_html_url", absolute_url))
        meta.append(("property", "og:url", absolute_url))
    return meta


def json_ld(paper: Paper, absolute_url: str, description: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "name": title_text(paper),
        "author": [{"@type": "Person", "name": name} for name in paper.authors],
    }
    if paper.title:
        data["headline"] = shorten(plain_text(paper.title), 110)
    if paper.abstract:
        data["abstract"] = plain_text(paper.abstract)
    if paper.year:
        data["datePublished"] = str(paper.year)
    if paper.conference:
        data["isPartOf"] = {
            "@type": "Event",
            "name": collection_label(paper.conference, paper.year),
        }
    if paper.awards:
        data["award"] = list(paper.awards)
    if absolute_url:
        data["url"] = absolute_url
    return data


def json_for_script(data: Any) -> Markup:
    """JSON safe inside a <script> element: no `</script>`, no HTML comment openers."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))

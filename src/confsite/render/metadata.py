"""What a paper's page says of it beyond its card: description, citation, sources, and the
metadata search engines and citation managers read (Highwire, OpenGraph, JSON-LD)."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote_plus

from markupsafe import Markup

from ..model.records import Paper
from ..model.site import collection_label
from ..text.plain import plain_text, shorten
from .citation import Citation, bibtex_entry, booktitle, ris_record
from .labels import title_text

# Links that lead to the paper itself (see model/normalize.py's LINK_KINDS); code and videos
# do not.
READING_KINDS = ("Paper page", "OpenReview", "PDF", "arXiv", "DOI", "ACL Anthology", "PMLR")
# Where a reader can look a paper up by its exact title: {} is the URL-encoded title.
SEARCHES = (
    ("OpenReview", "https://openreview.net/search?term={}&content=all&group=all&source=all"),
    ("arXiv", "https://arxiv.org/search/?query={}&searchtype=title"),
    ("Semantic Scholar", "https://www.semanticscholar.org/search?q={}"),
    ("Google Scholar", "https://scholar.google.com/scholar?q={}"),
)


def reading_links(paper: Paper) -> list[dict[str, str]]:
    """The links the dumps give to the paper itself, in the order of READING_KINDS."""
    found = [link for link in paper.links if link.kind in READING_KINDS]
    found.sort(key=lambda link: READING_KINDS.index(link.kind))
    return [{"kind": link.kind, "url": link.url} for link in found]


def search_links(paper: Paper) -> list[dict[str, str]]:
    """Searches for the paper by its exact title, for a paper the dumps give no link to; none
    for an untitled paper (there is nothing exact to search for)."""
    if not paper.title or reading_links(paper):
        return []
    exact = quote_plus(f'"{plain_text(paper.title)}"')
    return [{"kind": name, "url": url.format(exact)} for name, url in SEARCHES]


def paper_details(
    paper: Paper, site_title: str, absolute_url: str, citation: Citation
) -> dict[str, Any]:
    """What a paper's page shows of it beyond its card: description, citation, metadata and
    sources, made from these arguments alone (a paper page's key holds them: see
    `Views.paper_key`)."""
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
        "find_links": search_links(paper),
        "keywords": list(paper.keywords),
        "bibtex": bibtex_entry(paper, citation, with_abstract=False),
        "ris_href": ris_data_url(paper, citation),
        "cite_key": citation.key,
        "meta": paper_meta(paper, site_title, absolute_url, description, citation),
        "json_ld": json_for_script(json_ld(paper, absolute_url, description)),
    }


def ris_data_url(paper: Paper, citation: Citation) -> str:
    """The paper's RIS record as a `data:` link: downloaded with the page, from disk or any
    host, without a file of its own (one per paper would double a large site's files)."""
    record = base64.b64encode(ris_record(paper, citation).encode()).decode("ascii")
    return f"data:application/x-research-info-systems;charset=utf-8;base64,{record}"


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

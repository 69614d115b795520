"""The prebuilt search index: lunr.py tokenizes, a compact encoding ships, lunr.js searches.

lunr's own serialization repeats every document reference in every posting, stores the
inverted index beside the field vectors it can be derived from, and spells out every weight.
All of that follows from the term frequencies, so we ship only:

- `terms`: the vocabulary (after lunr's trimmer, stop-word filter and stemmer), in JavaScript
  (UTF-16) order, the order lunr.js requires;
- `postings`: per field and term, the delta-encoded numbers of the documents that hold it,
  each followed by the term's frequency there when that is above one, packed into strings;
- `store`: what a result shows (title, authors, url id, sessions, badges, snippet).

`static/search-index.js` decodes this into typed arrays in one pass and gives a `lunr.Index`
postings and field vectors made when a query first needs them, with weights from lunr.js's
own builder formula and rounding, so ranking is exactly lunr's and loading costs little more
than the vocabulary's token set. Indexed text is NFKC-normalized so mathematical letters and
compatibility forms (𝜸, ﬁ) match what people type.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from typing import Any

from .records import Paper
from .site import Site, collection_label
from .terms import field_terms, index_text
from .texplain import plain_text, shorten

LUNR_VERSION = "2.3.9"
SNIPPET_LENGTH = 200
FIELDS: tuple[tuple[str, int], ...] = (
    ("title", 10),
    ("authors", 5),
    ("abstract", 1),
    ("session", 2),
    ("collection", 2),
    ("awards", 3),
)


def search_document(number: int, paper: Paper, site: Site) -> dict[str, str]:
    sessions = [site.session_by_key[s] for s in paper.sessions]
    return {
        "ref": str(number),
        "title": index_text(paper.title),
        "authors": index_text("\n".join(paper.authors)),
        "abstract": index_text(paper.abstract),
        "session": index_text("\n".join(g.label for g in sessions)),
        "collection": index_text(collection_label(paper.conference, paper.year)),
        "awards": index_text("\n".join(paper.awards)),
    }


def js_order(term: str) -> bytes:
    """Sort key matching JavaScript's string comparison (UTF-16 code units)."""
    return term.encode("utf-16-be")


DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"


@lru_cache(maxsize=100_000)
def _encode_number(number: int) -> str:
    chunks = []
    while True:
        chunks.append(number & 31)
        number >>= 5
        if not number:
            break
    return "".join(DIGITS[32 + chunk] for chunk in reversed(chunks[1:])) + DIGITS[chunks[0]]


def encode_numbers(numbers: list[int]) -> str:
    """Non-negative integers as a string: 5 bits a character, the last character of a number
    from the first half of DIGITS, earlier ones from the second. A JavaScript engine parses
    one long string far faster than the equivalent array literal."""
    return "".join(map(_encode_number, numbers))


def document_terms(document: dict[str, str]) -> list[Counter[str]]:
    """Term frequencies of each of a search document's fields, in FIELDS order."""
    return [field_terms(document[field]) for field, _ in FIELDS]


def compact_index(documents: list[dict[str, str]]) -> dict[str, Any]:
    return encode_index([document_terms(document) for document in documents])


def encode_index(counted: list[list[Counter[str]]]) -> dict[str, Any]:
    """The index of documents given by their fields' term frequencies.

    Terms joined by spaces (lunr's tokenizer never leaves one in a term); per field, each
    term's postings (document-number delta × 2 + [frequency > 1], then the frequency if so),
    terms separated by '.'. Term-major, so the page decodes one string per field and builds
    the postings and vectors a query needs without any other pass."""
    vocabulary = {term for fields in counted for counts in fields for term in counts}
    terms = sorted(vocabulary, key=js_order)
    number = {term: n for n, term in enumerate(terms)}
    postings: list[str] = []
    for field_number, _ in enumerate(FIELDS):
        by_term: list[list[tuple[int, int]]] = [[] for _ in terms]
        for doc, fields in enumerate(counted):
            for term, tf in fields[field_number].items():
                by_term[number[term]].append((doc, tf))
        segments = []
        for entries in by_term:
            codes: list[int] = []
            previous = 0
            for doc, tf in entries:  # documents were visited in order
                codes.append((doc - previous) * 2 + (tf > 1))
                if tf > 1:
                    codes.append(tf)
                previous = doc
            segments.append(encode_numbers(codes))
        postings.append(".".join(segments))
    return {
        "version": LUNR_VERSION,
        "fields": [field for field, _ in FIELDS],
        "boosts": [boost for _, boost in FIELDS],
        "k1": 1.2,
        "b": 0.75,
        "documents": len(counted),
        "terms": " ".join(terms),
        "postings": postings,
    }


def badge_list(paper: Paper) -> list[str]:
    labels = [paper.presentation, *paper.awards]
    if paper.decision and paper.decision != paper.presentation:
        labels.insert(1, paper.decision)
    return [label for label in labels if label]


RECORD = "\x1e"  # between documents
UNIT = "\x1f"  # between the items of one document's list


def document_store(papers: tuple[Paper, ...], site: Site) -> dict[str, Any]:
    """What results show, in columns of one string each (a page splits a few long strings far
    faster than it parses ten thousand small arrays): titles, authors, ids, session numbers,
    badges, collection numbers, presentation types, award flags. Session and collection names
    are listed once."""
    sessions = list(site.sessions)
    session_number = {group.session: i for i, group in enumerate(sessions)}
    collections = list(site.collections)
    collection_number = {(c.conference, c.year): i for i, c in enumerate(collections)}
    column = RECORD.join
    return {
        "titles": column(plain_text(p.title) if p.title else "" for p in papers),
        "authors": column(UNIT.join(p.authors) for p in papers),
        "ids": column(p.id for p in papers),
        "sessions": column(UNIT.join(str(session_number[s]) for s in p.sessions) for p in papers),
        "badges": column(UNIT.join(badge_list(p)) for p in papers),
        "collection": column(str(collection_number[(p.conference, p.year)]) for p in papers),
        "presentation": column(p.presentation or "" for p in papers),
        "award": "".join("1" if p.awards else "0" for p in papers),
        "sessionNames": [
            [g.label, g.slug, collection_number[(g.session.conference, g.session.year)]]
            for g in sessions
        ],
        "collectionNames": [c.label for c in collections],
    }


def script_payload(name: str, data: Any) -> bytes:
    """A JavaScript file that hands `data` to the page: a <script> works from file://, where
    fetch is blocked. The data is mostly a few long strings, which a JavaScript engine reads
    as fast as it can scan them."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    text = text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.{name}={text};\n".encode()


def snippets(papers: tuple[Paper, ...]) -> str:
    """The start of each abstract, shown under results on the search page only, so the header
    box's instant results never wait for them."""
    return RECORD.join(shorten(plain_text(p.abstract), SNIPPET_LENGTH) for p in papers)


def site_terms(site: Site) -> list[list[Counter[str]]]:
    """Every paper's field terms; titles and abstracts as the site model already counted them."""
    counted = []
    for number, (paper, (title, abstract)) in enumerate(zip(site.papers, site.terms, strict=True)):
        document = search_document(number, paper, site)
        known = {"title": title, "abstract": abstract}
        counted.append(
            [
                known[field] if field in known else field_terms(document[field])
                for field, _ in FIELDS
            ]
        )
    return counted


def search_files(site: Site) -> dict[str, bytes]:
    index = encode_index(site_terms(site))
    data = {"index": index, "store": document_store(site.papers, site)}
    return {
        "search/index.js": script_payload("confsiteSearchData", data),
        "search/snippets.js": script_payload("confsiteSearchSnippets", snippets(site.papers)),
    }

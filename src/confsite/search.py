"""The prebuilt search index: lunr.py tokenizes, a compact encoding ships, lunr.js searches.

lunr's own serialization repeats every document reference in every posting, stores the
inverted index beside the field vectors it can be derived from, and spells out every weight.
All of that follows from the term frequencies, so we ship only:

- `terms`: the vocabulary (after lunr's trimmer, stop-word filter and stemmer), in JavaScript
  (UTF-16) order, the order lunr.js requires;
- `postings`: per field and document, the delta-encoded numbers of its terms, each followed by
  its frequency when that is above one, packed into strings;
- `store`: what a result shows (title, authors, url id, sessions, badges, snippet).

`static/search-index.js` decodes this into typed arrays and gives a `lunr.Index` postings and
field vectors that it materializes on first use, with weights from lunr.js's own builder
formula and rounding, so ranking is exactly lunr's and loading costs little more than the
vocabulary's token set. Indexed text is NFKC-normalized so mathematical letters and
compatibility forms (𝜸, ﬁ) match what people type.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from typing import Any

from lunr.builder import Builder
from lunr.stemmer import porter_stemmer
from lunr.stop_word_filter import stop_word_filter
from lunr.trimmer import trimmer

from .records import Paper
from .richtext import plain_text
from .site import Site, collection_label

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


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return porter_stemmer.stem(word)


def cached_stemmer(token, i=None, tokens=None):
    """lunr's Porter stemmer, memoized: a corpus has far fewer distinct words than tokens."""
    return token.update(lambda text, metadata=None: _stem(text))


# lunr's own label: the serialized pipeline then names the standard stemmer lunr.js has.
cached_stemmer.label = "stemmer"


def index_text(text: str | None) -> str:
    return unicodedata.normalize("NFKC", plain_text(text)) if text else ""


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


def tokenize(documents: list[dict[str, str]]) -> Builder:
    """lunr.py's builder with its default pipeline; only the term counting is used, so the
    builder's own (slow) vector and token-set construction is never run."""
    builder = Builder()
    builder.pipeline.add(trimmer, stop_word_filter, cached_stemmer)
    builder.search_pipeline.add(cached_stemmer)
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost=boost)
    for document in documents:
        builder.add(document)
    return builder


def js_order(term: str) -> bytes:
    """Sort key matching JavaScript's string comparison (UTF-16 code units)."""
    return term.encode("utf-16-be")


DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"


def encode_numbers(numbers: list[int]) -> str:
    """Non-negative integers as a string: 5 bits a character, the last character of a number
    from the first half of DIGITS, earlier ones from the second. A JavaScript engine parses
    one long string far faster than the equivalent array literal."""
    out: list[str] = []
    for number in numbers:
        chunks = []
        while True:
            chunks.append(number & 31)
            number >>= 5
            if not number:
                break
        for chunk in reversed(chunks[1:]):
            out.append(DIGITS[32 + chunk])
        out.append(DIGITS[chunks[0]])
    return "".join(out)


def compact_index(builder: Builder, document_count: int) -> dict[str, Any]:
    """Terms joined by spaces (lunr's tokenizer never leaves one in a term); per field, each
    document's codes (term-number delta × 2 + [frequency > 1], then the frequency if so),
    documents separated by '.'."""
    terms = sorted(builder.inverted_index, key=js_order)
    number = {term: n for n, term in enumerate(terms)}
    postings: list[str] = []
    for field, _ in FIELDS:
        per_document = []
        for ref in range(document_count):
            frequencies = builder.field_term_frequencies[f"{field}/{ref}"]
            codes: list[int] = []
            previous = 0
            for term_number, tf in sorted((number[t], tf) for t, tf in frequencies.items()):
                codes.append((term_number - previous) * 2 + (tf > 1))
                if tf > 1:
                    codes.append(tf)
                previous = term_number
            per_document.append(encode_numbers(codes))
        postings.append(".".join(per_document))
    return {
        "version": LUNR_VERSION,
        "fields": [field for field, _ in FIELDS],
        "boosts": [boost for _, boost in FIELDS],
        "k1": 1.2,
        "b": 0.75,
        "documents": document_count,
        "terms": " ".join(terms),
        "postings": postings,
    }


def badge_list(paper: Paper) -> list[str]:
    labels = [paper.presentation, *paper.awards]
    if paper.decision and paper.decision != paper.presentation:
        labels.insert(1, paper.decision)
    return [label for label in labels if label]


def document_store(papers: tuple[Paper, ...], site: Site) -> dict[str, Any]:
    """Per document: [title, authors, id, session numbers, badges, collection number,
    presentation, has award]. Session and collection names are listed once."""
    sessions = list(site.sessions)
    session_number = {group.session: i for i, group in enumerate(sessions)}
    collections = list(site.collections)
    collection_number = {(c.conference, c.year): i for i, c in enumerate(collections)}
    docs = []
    for paper in papers:
        docs.append([
            plain_text(paper.title) if paper.title else None,
            list(paper.authors),
            paper.id,
            [session_number[s] for s in paper.sessions],
            badge_list(paper),
            collection_number[(paper.conference, paper.year)],
            paper.presentation,
            1 if paper.awards else 0,
        ])
    return {
        "sessions": [[g.label, g.slug, collection_number[(g.session.conference,
                                                          g.session.year)]] for g in sessions],
        "collections": [c.label for c in collections],
        "docs": docs,
    }


def script_payload(name: str, data: Any) -> bytes:
    """A JavaScript file that hands `data` to the page: a <script> works from file://, where
    fetch is blocked. The data is a JSON string given to JSON.parse, which engines parse much
    faster than the same data written as a JavaScript literal."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    literal = json.dumps(text, ensure_ascii=False).replace("</", "<\\/")
    literal = literal.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.{name}=JSON.parse({literal});\n".encode()


def snippets(papers: tuple[Paper, ...]) -> list[str]:
    """The start of each abstract, shown under results on the search page only, so the header
    box's instant results never wait for them."""
    result = []
    for paper in papers:
        text = plain_text(paper.abstract)
        if len(text) > SNIPPET_LENGTH:
            text = text[:SNIPPET_LENGTH].rsplit(" ", 1)[0] + "…"
        result.append(text)
    return result


def search_files(site: Site) -> dict[str, bytes]:
    documents = [search_document(n, paper, site) for n, paper in enumerate(site.papers)]
    index = compact_index(tokenize(documents), len(documents))
    data = {"index": index, "store": document_store(site.papers, site)}
    return {
        "search/index.js": script_payload("confsiteSearchData", data),
        "search/snippets.js": script_payload("confsiteSearchSnippets", snippets(site.papers)),
    }

"""The prebuilt search index: lunr.py tokenizes, a compact encoding ships, lunr.js searches.

lunr's own serialization repeats every document reference in every posting, stores the
inverted index beside the field vectors it can be derived from, and spells out every weight.
All of that follows from the term frequencies, so we ship only:

- `terms`: the vocabulary (after lunr's trimmer, stop-word filter and stemmer), in JavaScript
  (UTF-16) order, the order lunr.js requires;
- `postings`: per field and term, the delta-encoded numbers of the documents that hold it,
  each followed by the term's frequency there when that is above one, packed into strings;
- `store`: what a result shows (title, authors, url id, sessions, badges); the plain
  abstracts, for the matching passage, come in small files of their own.

`static/search-index.js` decodes this into typed arrays in one pass and gives a `lunr.Index`
postings and field vectors made when a query first needs them, with weights from lunr.js's
own builder formula and rounding, so ranking is exactly lunr's and loading costs little more
than the vocabulary's token set. Indexed text is NFKC-normalized so mathematical letters and
compatibility forms (𝜸, ﬁ) match what people type.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..model.records import Paper
from ..model.site import Site, collection_label
from ..model.urls import SEARCH
from ..text.plain import plain_text
from .labels import badges
from .terms import (
    CorpusTerms,
    Vocabulary,
    count_matrices,
    field_terms,
    index_text,
    renumbering,
)

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

LUNR_VERSION = "2.3.9"
FIELDS: tuple[tuple[str, int], ...] = (
    ("title", 10),
    ("authors", 5),
    ("abstract", 1),
    ("session", 2),
    ("collection", 2),
    ("awards", 3),
)


def search_document(number: int, paper: Paper, site: Site) -> dict[str, str]:
    return {
        "ref": str(number),
        "title": index_text(paper.title),
        "abstract": index_text(paper.abstract),
        **_listing_fields(paper, site),
    }


def _listing_fields(paper: Paper, site: Site) -> dict[str, str]:
    """The indexed text of every field but the title and abstract."""
    sessions = [site.session_by_key[s] for s in paper.sessions]
    return {
        "authors": index_text("\n".join(paper.authors)),
        "session": index_text("\n".join(g.label for g in sessions)),
        "collection": index_text(collection_label(paper.conference, paper.year)),
        "awards": index_text("\n".join(paper.awards)),
    }


def js_order(term: str) -> bytes:
    """Sort key matching JavaScript's string comparison (UTF-16 code units)."""
    return term.encode("utf-16-be")


DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"


def compact_index(documents: list[dict[str, str]]) -> dict[str, Any]:
    """The index of search documents (as `search_document` makes them)."""
    vocabulary = Vocabulary()
    rows = ([field_terms(document[name]) for name, _ in FIELDS] for document in documents)
    return encode_index(count_matrices(rows, len(FIELDS), vocabulary), vocabulary.terms)


def encode_index(fields: list[csr_matrix], vocabulary: Sequence[str]) -> dict[str, Any]:
    """The index of documents given by each field's term counts (in FIELDS order; a row per
    document, a column per term of `vocabulary`).

    Terms joined by spaces (lunr's tokenizer never leaves one in a term); per field, each
    term's postings (document-number delta × 2 + [frequency > 1], then the frequency if so),
    terms separated by '.'. Term-major, so the page decodes one string per field and builds
    the postings and vectors a query needs without any other pass."""
    import numpy as np  # here: a rebuild with nothing to do never needs it

    used = np.unique(np.concatenate([field.indices for field in fields]))
    terms, renumber = renumbering(vocabulary, used, js_order)
    documents = fields[0].shape[0]
    postings = []
    for field in fields:
        in_document = np.repeat(np.arange(documents, dtype=np.int32), np.diff(field.indptr))
        frequencies = field.data.astype(np.int32)
        numbers = renumber[field.indices]
        postings.append(encode_postings(numbers, in_document, frequencies, len(terms)))
    return {
        "version": LUNR_VERSION,
        "fields": [field for field, _ in FIELDS],
        "boosts": [boost for _, boost in FIELDS],
        "k1": 1.2,
        "b": 0.75,
        "documents": documents,
        "terms": " ".join(terms),
        "postings": postings,
    }


def encode_postings(
    term_numbers: np.ndarray, documents: np.ndarray, frequencies: np.ndarray, term_count: int
) -> str:
    """One field's postings string from its (term, document, frequency) triples, with numpy:
    a Python loop over every posting is slow.

    Numbers are written 5 bits a character, most significant first, the last character of a
    number from the first half of DIGITS and earlier ones from the second; a JavaScript
    engine parses one long string far faster than the equivalent array literal."""
    import numpy as np

    if term_count == 0:
        return ""
    order = np.lexsort((documents, term_numbers))
    terms, docs, tfs = term_numbers[order], documents[order], frequencies[order]
    del order
    previous = np.zeros_like(docs)  # the document before in the same term's postings, or 0
    previous[1:] = docs[:-1]
    first = np.ones(len(terms), dtype=bool)
    first[1:] = terms[1:] != terms[:-1]
    previous[first] = 0
    repeated = tfs > 1
    # The numbers in order: each posting's code, then its frequency when above one.
    slots = 1 + repeated
    starts = np.cumsum(slots) - slots
    numbers = np.empty(int(slots.sum()), dtype=np.int32)
    numbers[starts] = (docs - previous) * 2 + repeated
    numbers[starts[repeated] + 1] = tfs[repeated]
    owner = np.repeat(terms, slots)  # the term each number belongs to
    del terms, docs, tfs, previous, first, repeated, slots, starts
    width = np.ones(len(numbers), dtype=np.int32)  # characters per number
    rest = numbers >> 5
    while rest.any():
        width += rest > 0
        rest >>= 5
    # Where each character goes: a term's characters are followed by '.' but for the last.
    term_chars = np.bincount(owner, weights=width, minlength=term_count).astype(np.int64)
    term_start = np.cumsum(term_chars + 1) - (term_chars + 1)
    out = np.empty(int(term_chars.sum()) + term_count - 1, dtype=np.uint8)
    out[term_start[1:] - 1] = ord(".")
    before_term = np.cumsum(term_chars) - term_chars
    position = term_start[owner] + np.cumsum(width) - width - before_term[owner]
    digits = np.frombuffer(DIGITS.encode(), dtype=np.uint8)
    for digit in range(int(width.max()) if len(width) else 0):
        has = width > digit
        chunk = (numbers[has] >> (5 * (width[has] - 1 - digit))) & 31
        last = width[has] - 1 == digit
        out[position[has] + digit] = digits[chunk + 32 * ~last]
    return out.tobytes().decode("ascii")


def badge_list(paper: Paper) -> list[str]:
    """The badges a result shows: a paper's but its attendance."""
    return [b["label"] for b in badges(paper) if b["kind"] != "attendance" and b["label"]]


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
        "collectionYears": [c.year for c in collections],
    }


def script_payload(name: str, data: Any) -> bytes:
    """A JavaScript file that hands `data` to the page: a <script> works from file://, where
    fetch is blocked. The data is mostly a few long strings, which a JavaScript engine reads
    as fast as it can scan them."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    text = text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.{name}={text};\n".encode()


def site_terms(site: Site, terms: CorpusTerms) -> tuple[list[csr_matrix], list[str]]:
    """Every field's term counts (in FIELDS order) and their vocabulary, with titles and
    abstracts as `terms` has already counted them (for related papers too)."""
    vocabulary = Vocabulary(terms.vocabulary)
    names = [name for name, _ in FIELDS if name not in ("title", "abstract")]
    listings = (_listing_fields(paper, site) for paper in site.papers)
    # Sessions, collections, awards and many author lists recur: each text is counted once.
    # Rows only read their Counters, so sharing one between rows is safe.
    counted = functools.lru_cache(maxsize=8192)(field_terms)
    rows = ([counted(texts[name]) for name in names] for texts in listings)
    fields = dict(zip(names, count_matrices(rows, len(names), vocabulary), strict=True))
    fields.update(title=terms.title, abstract=terms.abstract)
    return [fields[name] for name, _ in FIELDS], vocabulary.terms


# Papers per file of abstracts. Results show the passage of each abstract that matches, for
# the results shown only (50 at a time, scattered over the corpus): small files keep what a
# page of results downloads small whatever the archive's size.
ABSTRACT_CHUNK = 16


def abstract_files(abstracts: Sequence[str]) -> dict[str, bytes]:
    """`search/abstracts/N.js`: the plain abstracts of papers N×ABSTRACT_CHUNK onwards, each
    file handing its string to the page under its number."""
    files = {}
    for chunk, start in enumerate(range(0, len(abstracts), ABSTRACT_CHUNK)):
        text = RECORD.join(abstracts[start : start + ABSTRACT_CHUNK])
        files[f"{SEARCH}abstracts/{chunk}.js"] = script_payload(f"confsiteAbstracts{chunk}", text)
    return files


def search_files(site: Site, terms: CorpusTerms) -> dict[str, bytes]:
    index = encode_index(*site_terms(site, terms))
    data = {"index": index, "store": document_store(site.papers, site)}
    return {
        f"{SEARCH}index.js": script_payload("confsiteSearchData", data),
        **abstract_files(terms.abstracts),
    }

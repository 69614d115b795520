"""The prebuilt search index, sharded by term: terms.py makes the terms, lunr.js searches.

lunr's own serialization repeats every document reference in every posting, stores the
inverted index beside the field vectors it can be derived from, and is one file a page must
load whole. We ship instead, as script files (a <script> works from file://, fetch does not):

- the entry, `search/index.js`: the fields, the document count, the first term of each
  shard and the postings it holds (hundreds), all a first search needs before its shards;
- shards, `search/terms/N.js`: a run of the vocabulary in JavaScript (UTF-16) order, the order
  lunr.js requires, and per field and term the delta-encoded numbers of the documents that
  hold it, each followed by its weight, computed here exactly as lunr.js's builder computes
  it, so a page needs no field lengths and scores equal a lunr.js build's;
- `search/vocabulary.js`: every term and its posting count, to correct a misspelt word or
  expand a wildcard;
- result cards, `search/cards/N.js`, and plain abstracts, `search/abstracts/N.js`, for the
  results shown;
- `search/filters.js`: what filters need of every paper, for the search page's filters and
  its list of every paper (the header box never loads it).

`static/search-index.js` loads a shard when a query needs one of its terms and gives a
`lunr.Index` postings and field vectors made when a query first needs them, so what a search
downloads stays small whatever the archive's size.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import operator
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ..cache.digests import digest
from ..model.records import Paper, Session
from ..model.site import CollectionKey, Site, collection_label
from ..model.urls import SEARCH
from ..text.plain import is_plain, plain_text, single_spaced
from .labels import badges
from .terms import (
    CorpusTerms,
    Vocabulary,
    columns_held,
    count_matrices,
    field_terms,
    index_text,
    renumbering,
    text_counts,
    widened,
)

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csc_matrix, csr_matrix

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
    return {name: text(site, part(paper)) for name, (part, text) in LISTING_TEXTS.items()}


def session_labels(site: Site, sessions: tuple[Session, ...]) -> list[str]:
    return [site.session_by_key[s].label for s in sessions]


def _lines_text(site: Site, lines: tuple[str, ...]) -> str:
    return index_text("\n".join(lines))


def _session_text(site: Site, sessions: tuple[Session, ...]) -> str:
    return index_text("\n".join(session_labels(site, sessions)))


def _collection_text(site: Site, place: CollectionKey) -> str:
    return index_text(collection_label(*place))


# Each listing field's text, made from one part of the paper. Many papers share a session, a
# collection, awards: each part's text is made and counted once (see `_listing_matrix`); an
# author list is nearly one per paper, but its names recur (see `_authors_matrix`).
ListingText = tuple[Callable[[Paper], Any], Callable[[Site, Any], str]]
LISTING_TEXTS: dict[str, ListingText] = {
    "authors": (operator.attrgetter("authors"), _lines_text),
    "session": (operator.attrgetter("sessions"), _session_text),
    "collection": (operator.attrgetter("conference", "year"), _collection_text),
    "awards": (operator.attrgetter("awards"), _lines_text),
}


def js_order(term: str) -> bytes:
    """Sort key matching JavaScript's string comparison (UTF-16 code units)."""
    return term.encode("utf-16-be")


DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
DIGIT_BYTES = DIGITS.encode()


# Postings (a term in one field of one document) per shard: a shard is a run of the sorted
# vocabulary, about 10 KB, loaded when a query needs one of its terms (Pagefind's way).
SHARD_POSTINGS = 3000
# Postings a prefix's shards may hold for the word being typed to complete to its terms: at
# 100,000 papers "dif" and "mod" hold 60,000 and 136,000 (135 and 191 KB gzipped), and a
# first search must stay within 400 KB. Counted in hundreds, the unit of `shardPostings`.
PREFIX_POSTINGS = 40_000
K1 = 1.2
B = 0.75
# Postings weighed, numbers written, at a time: an abstract field's whole-array temporaries
# took gigabytes at 100,000 papers. Each element's operations are the same, in the same order.
RUN = 1 << 20


@dataclass(frozen=True)
class EncodedIndex:
    """The index as the page loads it: `entry` with every search (fields, document count,
    where each shard starts), `shards` when a query needs their terms, `vocabulary` (every
    term with its posting count) only to correct a misspelt word or expand a wildcard."""

    entry: dict[str, Any]
    shards: tuple[dict[str, Any], ...]
    vocabulary: dict[str, Any]


def compact_index(documents: list[dict[str, str]]) -> EncodedIndex:
    """The index of search documents (as `search_document` makes them)."""
    vocabulary = Vocabulary()
    rows = ([field_terms(document[name]) for name, _ in FIELDS] for document in documents)
    return encode_index(count_matrices(rows, len(FIELDS), vocabulary), vocabulary.terms)


def runs(length: int) -> list[slice]:
    """`range(length)` in slices of RUN."""
    return [slice(start, start + RUN) for start in range(0, length, RUN)]


def js_round(values: np.ndarray) -> np.ndarray:
    """JavaScript's Math.round: halves go up (numpy's round goes to even)."""
    import numpy as np

    floor = np.floor(values)
    return (floor + (values - floor >= 0.5)).astype(np.int64)


def field_weights(
    fields: list[csr_matrix], numbers: list[np.ndarray], postings: np.ndarray
) -> list[np.ndarray]:
    """Each posting's weight in thousandths (`numbers`: each field's term numbers;
    `postings`: each term's postings in every field), exactly as lunr.js's Builder computes
    it (BM25 with lunr's idf, the field boost, rounded to 3 places): the same IEEE operations
    in the same order, so a shard needs no field lengths and scores equal a lunr.js build's."""
    import numpy as np

    documents = fields[0].shape[0]
    idf = np.array(
        [math.log(1 + abs((documents - n + 0.5) / (n + 0.5))) for n in postings.tolist()]
    )
    weights = []
    for field, column, (_, boost) in zip(fields, numbers, FIELDS, strict=True):
        in_document = np.repeat(np.arange(documents), np.diff(field.indptr))
        # A field's length is its number of terms; sums of integers are exact in floats.
        lengths = np.bincount(in_document, weights=field.data, minlength=documents)
        average = float(lengths.sum()) / documents if documents else 1.0
        # At most idf × (K1 + 1) × the largest boost × 1000: a few hundred thousand.
        weight = np.empty(len(column), dtype=np.int32)
        for run in runs(len(column)):
            tf = field.data[run].astype(np.float64)
            score = (
                idf[column[run]]
                * ((K1 + 1) * tf)
                / (K1 * (1 - B + B * (lengths[in_document[run]] / average)) + tf)
            )
            weight[run] = js_round(score * boost * 1000)
        weights.append(weight)
    return weights


def encode_index(fields: list[csr_matrix], vocabulary: Sequence[str]) -> EncodedIndex:
    """The index of documents given by each field's term counts (in FIELDS order; a row per
    document, a column per term of `vocabulary`).

    Terms in JavaScript order, joined by spaces (lunr's tokenizer never leaves one in a
    term); per field, each term's postings (document-number delta, then the weight in
    thousandths), terms separated by '.'. Term-major, so a shard is a slice of each string,
    and the page builds the postings and vectors a query needs without any other pass."""
    import numpy as np  # here: a rebuild with nothing to do never needs it
    from scipy.sparse import csr_matrix

    used = columns_held(fields, len(vocabulary))
    terms, renumber = renumbering(vocabulary, used, js_order)
    documents = fields[0].shape[0]
    for field in fields:
        field.sort_indices()
    numbers = [renumber[field.indices] for field in fields]
    counts = np.zeros(len(terms), dtype=np.int64)  # each term's postings in every field
    for column in numbers:
        counts += np.bincount(column, minlength=len(terms))
    weights = field_weights(fields, numbers, counts)
    starts = shard_starts(counts.tolist())
    ends = [*starts[1:], len(terms)]
    postings: list[list[str]] = [[] for _ in starts]  # per shard, each field's postings
    for number, field in enumerate(fields):
        # Transposed, the postings are by term, then document: the order they are written in.
        by_document = (weights[number], numbers[number], field.indptr)
        by_term = csr_matrix(by_document, shape=(documents, len(terms))).tocsc()
        # Let go before encoding, whose temporaries come on top.
        del by_document
        weights[number] = numbers[number] = None
        for shard, text in enumerate(shard_postings(by_term, starts, ends)):
            postings[shard].append(text)
        del by_term
    held = np.add.reduceat(counts, starts).tolist() if starts else []
    shards = tuple(
        {"terms": " ".join(terms[start:end]), "postings": texts}
        for start, end, texts in zip(starts, ends, postings, strict=True)
    )
    entry = {
        "version": LUNR_VERSION,
        "fields": [field for field, _ in FIELDS],
        "documents": documents,
        "terms": len(terms),
        "shardStarts": starts,
        "shardFirst": [terms[start] for start in starts],
        "shardPostings": [hundreds(n) for n in held],
        "prefixPostings": hundreds(PREFIX_POSTINGS),
    }
    vocabulary_file = {"terms": " ".join(terms), "postings": counts.tolist()}
    return EncodedIndex(entry, shards, vocabulary_file)


def hundreds(postings: int) -> int:
    """Postings in hundreds, rounded up: a shard's size for the page, in few digits."""
    return -(-postings // 100)


def shard_starts(postings: list[int]) -> list[int]:
    """The number of the first term of each shard: runs of terms of about SHARD_POSTINGS
    postings (a term with more has a shard of its own)."""
    starts = [0] if postings else []
    held = 0
    for number, count in enumerate(postings):
        if held and held + count > SHARD_POSTINGS:
            starts.append(number)
            held = 0
        held += count
    return starts


def shard_postings(by_term: csc_matrix, starts: list[int], ends: list[int]) -> Iterator[str]:
    """Each shard's postings in one field (the shard's terms from `starts` to `ends`): its
    terms' postings joined by '.'. Shards are encoded a run of about RUN postings at a time:
    the whole field's string and its pieces were the corpus worker's largest temporaries."""
    from scipy.sparse import csc_matrix

    indptr, shard = by_term.indptr, 0
    while shard < len(starts):
        first, shard = shard, shard + 1
        while shard < len(starts) and indptr[ends[shard]] - indptr[starts[first]] <= RUN:
            shard += 1
        low, high = starts[first], ends[shard - 1]
        begin, end = indptr[low], indptr[high]
        part = (by_term.data[begin:end], by_term.indices[begin:end], indptr[low : high + 1] - begin)
        pieces = encode_postings(csc_matrix(part, shape=(by_term.shape[0], high - low))).split(".")
        for number in range(first, shard):
            yield ".".join(pieces[starts[number] - low : ends[number] - low])


def encode_postings(postings: csc_matrix) -> str:
    """One field's postings string from its weights, a column per term and a row per
    document, with numpy: a Python loop over every posting is slow.

    Numbers are written 5 bits a character, most significant first, the last character of a
    number from the first half of DIGITS and earlier ones from the second; a JavaScript
    engine parses one long string far faster than the equivalent array literal."""
    import numpy as np

    term_count = postings.shape[1]
    if term_count == 0:
        return ""
    # The numbers in order: each posting's document delta (from the term's posting before,
    # or from 0), then its weight. Weights are a few hundred thousand at most: in 32 bits,
    # each array of every number is half the size (the abstracts' hold 16 million numbers at
    # 100,000 papers).
    docs = postings.indices  # by term, then document (a CSC matrix's order)
    held = np.diff(postings.indptr)  # each term's postings
    firsts = postings.indptr[:-1][held > 0]  # each term's first posting
    if int(postings.data.min(initial=0)) < 0:
        raise ValueError("internal error: a negative weight")
    fits = int(postings.data.max(initial=0)) < 2**31
    numbers = np.empty(2 * len(docs), dtype=np.int32 if fits else np.int64)
    numbers[0::2] = np.diff(docs, prepend=docs.dtype.type(0))
    numbers[0::2][firsts] = docs[firsts]
    numbers[1::2] = postings.data
    if len(numbers) and int(numbers.min()) < 0:
        raise ValueError("internal error: a term's documents out of order")
    width = np.ones(len(numbers), dtype=np.int8)  # characters per number
    largest, limit = int(numbers.max()) if len(numbers) else 0, 32
    while limit <= largest:
        width += numbers >= limit
        limit *= 32
    # Characters of the numbers up to each one; a term's characters are followed by '.' but
    # for the last term's, so a number ends where its characters do plus its term's number.
    widest = 7 if fits else 13  # characters of the largest 32-bit or 64-bit number
    places = np.int32 if widest * len(numbers) + term_count < 2**31 else np.int64
    written = np.zeros(len(numbers) + 1, dtype=places)
    np.cumsum(width, out=written[1:], dtype=places)
    del width
    out = np.empty(int(written[-1]) + term_count - 1, dtype=np.uint8)
    out[written[2 * postings.indptr[1:-1]] + np.arange(term_count - 1)] = ord(".")
    # Each number's term, a run at a time, as a whole array of them was the largest of this
    # function's temporaries.
    bounds = 2 * postings.indptr  # where each term's numbers start, and the last's end
    for run in runs(len(numbers)):
        term = _terms_in_run(bounds, run.start, min(run.stop, len(numbers)), places)
        _write_numbers(out, numbers[run], written[1:][run] + term - 1)
    del numbers, written
    return str(out.data, "ascii")


def _terms_in_run(bounds: np.ndarray, start: int, stop: int, dtype: type) -> np.ndarray:
    """The term of each number from `start` to `stop`, given where each term's numbers start
    (`bounds`, ending with where the last one's end): the run's terms repeated, each as many
    times as it has numbers in the run (a search per number took twice as long)."""
    import numpy as np

    first = int(np.searchsorted(bounds, start, side="right")) - 1
    last = int(np.searchsorted(bounds, stop - 1, side="right")) - 1
    starts, ends = bounds[first : last + 1], bounds[first + 1 : last + 2]
    held = np.minimum(ends, stop) - np.maximum(starts, start)
    return np.repeat(np.arange(first, last + 1, dtype=dtype), held)


def _write_numbers(out: np.ndarray, numbers: np.ndarray, last: np.ndarray) -> None:
    """Write each number's characters ending at its `last` place in `out` (see above): the
    last character first, then the ones before it for the numbers that have them."""
    import numpy as np

    digits = np.frombuffer(DIGIT_BYTES, dtype=np.uint8)
    out[last] = digits[numbers & 31]
    value, place = numbers >> 5, last
    while len(value):
        more = np.flatnonzero(value)
        value, place = value[more], place[more] - 1
        out[place] = digits[32 + (value & 31)]
        value >>= 5


def badge_list(paper: Paper) -> list[str]:
    """The badges a result shows: a paper's but its attendance."""
    return [b["label"] for b in badges(paper) if b["kind"] != "attendance" and b["label"]]


RECORD = "\x1e"  # between documents
UNIT = "\x1f"  # between the items of one document's list


def document_store(papers: tuple[Paper, ...], site: Site) -> dict[str, Any]:
    """What filters need of every paper, `search/filters.js`, loaded by the search page
    only: session numbers, collection numbers, presentation types, award flags, in columns of
    one string each (a page splits a few long strings far faster than it parses ten thousand
    small arrays). Session, collection and presentation names are listed once. What a
    result shows is in `card_files`."""
    sessions, places = list(site.sessions), site.session_places
    collections = list(site.collections)
    collection_number = {(c.conference, c.year): i for i, c in enumerate(collections)}
    presentations = sorted({p.presentation for p in papers if p.presentation})
    presentation_number = {name: str(i) for i, name in enumerate(presentations)}
    column = RECORD.join
    return {
        "sessions": column(
            UNIT.join(str(number) for number, _ in places.get(p.id, ())) for p in papers
        ),
        "collection": column(str(collection_number[(p.conference, p.year)]) for p in papers),
        "presentation": column(presentation_number.get(p.presentation or "", "") for p in papers),
        "award": "".join("1" if p.awards else "0" for p in papers),
        "sessionNames": [
            [g.label, g.slug, collection_number[(g.session.conference, g.session.year)]]
            for g in sessions
        ],
        "collectionNames": [c.label for c in collections],
        "collectionYears": [c.year for c in collections],
        "presentationNames": presentations,
    }


# Papers per file of result cards: each keystroke shows 8 results, scattered over the corpus,
# so small files keep what typing a query downloads small.
CARD_CHUNK = 8


def card_files(
    papers: tuple[Paper, ...], site: Site, kept: Callable[[str, tuple[Paper, ...]], bool]
) -> dict[str, bytes]:
    """`search/cards/N.js`: what a result shows of papers N×CARD_CHUNK onwards (titles,
    authors, ids, badges, and where it was: its collection and sessions), in columns; but
    those files that `kept(path, papers)` says are kept as they are."""

    # A session's papers are all in the same place: each place is written once.
    @functools.cache
    def placed(collection: CollectionKey, sessions: tuple[Session, ...]) -> str:
        return " · ".join([collection_label(*collection), *session_labels(site, sessions)])

    def where(paper: Paper) -> str:
        return placed((paper.conference, paper.year), paper.sessions)

    files = {}
    for chunk, start in enumerate(range(0, len(papers), CARD_CHUNK)):
        path, part = f"{SEARCH}cards/{chunk}.js", papers[start : start + CARD_CHUNK]
        if kept(path, part):
            continue
        data = {
            "titles": RECORD.join(plain_text(p.title) if p.title else "" for p in part),
            "authors": RECORD.join(UNIT.join(p.authors) for p in part),
            "ids": RECORD.join(p.id for p in part),
            "badges": RECORD.join(UNIT.join(badge_list(p)) for p in part),
            "where": RECORD.join(where(p) for p in part),
        }
        files[path] = script_payload(f"confsiteCards{chunk}", data)
    return files


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
    fields = {"authors": _authors_matrix(site, vocabulary)}
    for name, listing in LISTING_TEXTS.items():
        if name != "authors":
            fields[name] = _listing_matrix(site, listing, vocabulary)
    width = len(vocabulary)
    fields = {name: widened(matrix, width) for name, matrix in fields.items()}
    fields.update(title=terms.title, abstract=terms.abstract)
    return [fields[name] for name, _ in FIELDS], vocabulary.terms


def _listing_matrix(site: Site, listing: ListingText, vocabulary: Vocabulary) -> csr_matrix:
    """A listing field's term counts, a row per paper: the rows of its distinct parts, each
    part's text made and counted once and its row repeated where the part recurs."""
    import numpy as np

    part, text = listing
    number: dict[Any, int] = {}
    papers = site.papers
    parts = (number.setdefault(part(paper), len(number)) for paper in papers)
    rows = np.fromiter(parts, dtype=np.intp, count=len(papers))
    return _counted((text(site, value) for value in number), vocabulary)[rows]


def _authors_matrix(site: Site, vocabulary: Vocabulary) -> csr_matrix:
    """The authors field's term counts, a row per paper. Its text is the names a line each.
    When no name holds markup or TeX (`is_plain`), plain text only respaces them, and the
    list's terms are the sum of its names' terms (each name single-spaced: Python splits at
    white space lunr.js keeps in a word), so each name is counted once however many papers
    it is on: (papers × names) @ (names × terms). A list with a name that is not plain is
    counted whole, as TeX may read across the lines."""
    import numpy as np
    from scipy.sparse import csr_matrix

    lists = [paper.authors for paper in site.papers]
    names = dict.fromkeys(itertools.chain.from_iterable(lists))
    # What `is_plain` looks for never holds a line break, so names a line each are plain
    # when each name is: one test of the program's names, rather than one of each list
    # (most of the field's time at 100,000 papers), finds every list plain in most programs.
    if is_plain("\n".join(names)):
        parts, ends = names, list(itertools.accumulate(map(len, lists), initial=0))
        columns = _numbered(itertools.chain.from_iterable(lists), names)
    else:
        every, ends = _author_parts(lists)
        parts = dict.fromkeys(every)
        columns = _numbered(every, parts)
    papers_and_parts = csr_matrix(
        (np.ones(len(columns), dtype=np.int32), np.array(columns, dtype=np.int32), ends),
        shape=(len(lists), len(parts)),
    )
    texts = (
        single_spaced(part) if isinstance(part, str) else _lines_text(site, part) for part in parts
    )
    return papers_and_parts @ _counted(texts, vocabulary)


def _numbered(parts: Iterable[Hashable], distinct: Iterable[Hashable]) -> list[int]:
    """Each part's number among the `distinct` ones, by loops in C."""
    number = dict(zip(distinct, itertools.count()))
    return list(map(number.__getitem__, parts))


def _author_parts(lists: list[tuple[str, ...]]) -> tuple[list[str | tuple[str, ...]], list[int]]:
    """What each paper's author list is counted as, all papers' in a row: its names when it is
    plain, else the list itself, counted whole; and where each paper's end, from 0."""
    parts: list[str | tuple[str, ...]] = []
    ends = [0]
    for names in lists:
        if is_plain("\n".join(names)):
            parts += names
        else:
            parts.append(names)
        ends.append(len(parts))
    return parts, ends


def _counted(texts: Iterable[str], vocabulary: Vocabulary) -> csr_matrix:
    """The texts' term counts, a row per text, counted a chunk at a time (`text_counts`):
    an archive's distinct author names are hundreds of thousands."""
    return text_counts(texts, vocabulary)


# Papers per file of abstracts. Results show the passage of each abstract that matches, for
# the results shown only (50 at a time, scattered over the corpus): small files keep what a
# page of results downloads small whatever the archive's size.
ABSTRACT_CHUNK = 16


def abstract_files(
    abstracts: Sequence[str], texts: Sequence[bytes], salt: bytes
) -> list[SearchFile]:
    """`search/abstracts/N.js`: the plain abstracts of papers N×ABSTRACT_CHUNK onwards, each
    file handing its string to the page under its number. Keyed by the digests of its papers'
    texts (`texts`, as the terms were counted from them): a rebuild makes only the files whose
    abstracts changed, the rest are the current site's."""
    files = []
    for chunk, start in enumerate(range(0, len(abstracts), ABSTRACT_CHUNK)):
        end = start + ABSTRACT_CHUNK
        make = functools.partial(_abstracts_payload, chunk, abstracts[start:end])
        path = f"{SEARCH}abstracts/{chunk}.js"
        files.append(SearchFile(path, digest(texts[start:end], salt).hex(), make))
    return files


def _abstracts_payload(chunk: int, abstracts: Sequence[str]) -> bytes:
    return script_payload(f"confsiteAbstracts{chunk}", RECORD.join(abstracts))


class SearchFile(NamedTuple):
    """A file of the search index: made by `make`; `key` names what it is made from (the
    same key, the same bytes), or is empty for a file made anew by every build."""

    path: str
    key: str
    make: Callable[[], bytes]


def search_files(site: Site, terms: CorpusTerms, salt: bytes) -> list[SearchFile]:
    """The files of the search index made from the terms (the rest are `listing_files`);
    `salt` keys those kept between builds (the code's and theme's fingerprint, which their
    bytes also follow from)."""
    index = encode_index(*site_terms(site, terms))
    data = {"index": index.entry, "chunks": {"cards": CARD_CHUNK, "abstracts": ABSTRACT_CHUNK}}
    # Each file made as it is staged, and what it is made from let go: the shards' files,
    # all made at once, took as much memory again as the index.
    pending: dict[str, Callable[[], bytes]] = {
        f"{SEARCH}index.js": functools.partial(script_payload, "confsiteSearchData", data),
        f"{SEARCH}vocabulary.js": functools.partial(
            script_payload, "confsiteVocabulary", index.vocabulary
        ),
        **{
            f"{SEARCH}terms/{number}.js": functools.partial(
                script_payload, f"confsiteShard{number}", shard
            )
            for number, shard in enumerate(index.shards)
        },
    }
    del index
    files = [SearchFile(path, "", functools.partial(_made_once, pending, path)) for path in pending]
    return files + abstract_files(terms.abstracts, terms.keys, salt)


def _made_once(pending: dict[str, Callable[[], bytes]], path: str) -> bytes:
    return pending.pop(path)()


def listing_files(
    site: Site, kept: Callable[[str, tuple[Paper, ...]], bool] = lambda path, papers: False
) -> dict[str, bytes]:
    """The files of the search index made from the site alone, without the terms: the
    result cards and the filters, but the card files `kept` keeps (see `card_files`). A page
    worker makes them, off the corpus worker, which a rebuild waits for longest."""
    filters = script_payload("confsiteFilters", document_store(site.papers, site))
    return {f"{SEARCH}filters.js": filters, **card_files(site.papers, site, kept)}

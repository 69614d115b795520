"""Index terms of text, exactly as lunr's pipeline makes them; shared by search and related papers.

Both the search index and the related-papers similarity count the same stemmed words of each
title and abstract, so they are counted once per build, and kept as sparse matrices of counts:
a dict per field per paper takes too much memory at scale.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from lunr.stemmer import porter_stemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS
from lunr.tokenizer import SEPARATOR_CHARS
from lunr.trimmer import full_re as TRIM

from ..model.records import Paper
from ..text.plain import plain_text, shorten

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

PaperTerms = tuple[Counter[str], Counter[str]]  # a title's and an abstract's term frequencies
SNIPPET_LENGTH = 200
COUNT_CHUNK = 5_000  # papers counted before their Counters become arrays
SEPARATOR = re.compile(f"[{re.escape(SEPARATOR_CHARS)}]+")
# What str.split() splits on beyond lunr's separators (whitespace, no-break space, hyphen).
NOT_SEPARATORS = re.compile("[\x1c-\x1f\x85\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


@cache  # a corpus has far fewer distinct words than words
def _term(word: str) -> str | None:
    """The index term lunr's pipeline makes of a word: trimmed, stop words dropped, stemmed."""
    trimmed = TRIM.match(word)
    if trimmed is not None:
        word = trimmed.group(1)
    return None if word in STOP_WORDS else porter_stemmer.stem(word)


def field_terms(text: str) -> Counter[str]:
    """Term frequencies of one field, exactly as lunr.py's builder counts them: its separators,
    trimmer pattern, stop-word list and Porter stemmer, without its per-character tokenizer and
    per-token objects, which are slow."""
    lowered = text.lower()
    if NOT_SEPARATORS.search(lowered) is None:  # quicker than splitting by the regex
        words = lowered.replace("-", " ").split()
    else:
        words = list(filter(None, SEPARATOR.split(lowered)))
    terms = map(_term, words)
    counts = Counter(terms)
    counts.pop(None, None)
    return counts  # type: ignore[return-value]


def index_text(text: str | None) -> str:
    """Plain text as it is indexed: NFKC, so mathematical letters and compatibility forms
    (𝜸, ﬁ) match what people type, and lunr.js accepts the vocabulary's order."""
    return unicodedata.normalize("NFKC", plain_text(text)) if text else ""


def snippet(paper: Paper) -> str:
    """The start of the abstract as plain text, shown under search results. Made with the
    terms and cached with them: plain text of TeX is slow."""
    return shorten(plain_text(paper.abstract), SNIPPET_LENGTH)


def paper_terms(paper: Paper) -> PaperTerms:
    """Term frequencies of a paper's title and of its abstract."""
    return field_terms(index_text(paper.title)), field_terms(index_text(paper.abstract))


class Vocabulary:
    """Terms numbered in the order they are first met."""

    def __init__(self, terms: Iterable[str] = ()) -> None:
        self.terms = list(terms)
        self._number = {term: number for number, term in enumerate(self.terms)}

    def __len__(self) -> int:
        return len(self.terms)

    def numbers(self, terms: Iterable[str]) -> list[int]:
        number = self._number
        for term in terms:
            if term not in number:
                number[term] = len(self.terms)
                self.terms.append(term)
        return [number[term] for term in terms]


def count_matrix(rows: Sequence[Counter[str]], vocabulary: Vocabulary) -> csr_matrix:
    """Term counts as a sparse matrix, one row per Counter, one column per term of
    `vocabulary` (which grows to hold them all)."""
    import numpy as np  # here, as in the modules that use these: a no-op rebuild never needs it
    from scipy.sparse import csr_matrix

    sizes = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    total = int(sizes.sum())
    # Straight into arrays: lists of Python ints take too much memory at scale.
    indices = np.fromiter(
        itertools.chain.from_iterable(map(vocabulary.numbers, rows)), dtype=np.int32, count=total
    )
    counts = np.fromiter(
        itertools.chain.from_iterable(row.values() for row in rows), dtype=np.int32, count=total
    )
    indptr = np.concatenate([[0], np.cumsum(sizes)])
    return csr_matrix((counts, indices, indptr), shape=(len(rows), len(vocabulary)))


def count_matrices(
    rows: Iterable[Sequence[Counter[str]]], fields: int, vocabulary: Vocabulary
) -> list[csr_matrix]:
    """One count matrix per field from rows of one Counter per field. The rows are taken
    a chunk at a time, so a whole corpus's Counters (too large at scale) are never held at
    once."""
    import numpy as np
    from scipy.sparse import csr_matrix, vstack

    rows = iter(rows)
    chunks: list[list[csr_matrix]] = [[] for _ in range(fields)]
    while chunk := list(itertools.islice(rows, COUNT_CHUNK)):
        for field, matrices in enumerate(chunks):
            matrices.append(count_matrix([row[field] for row in chunk], vocabulary))
    width = len(vocabulary)
    return [
        vstack(
            [widened(m, width) for m in parts] or [csr_matrix((0, width), dtype=np.int32)],
            format="csr",
        )
        for parts in chunks
    ]


def widened(matrix: csr_matrix, width: int) -> csr_matrix:
    """The same rows, with room for terms the vocabulary gained since the matrix was made."""
    from scipy.sparse import csr_matrix

    return csr_matrix((matrix.data, matrix.indices, matrix.indptr), shape=(matrix.shape[0], width))


def renumbering(
    vocabulary: Sequence[str], used: np.ndarray, order_key: Callable[[str], Any]
) -> tuple[list[str], np.ndarray]:
    """The `used` terms (numbers into `vocabulary`) sorted by `order_key`, and an array
    taking each old number to its place among them."""
    import numpy as np

    terms = sorted((vocabulary[number] for number in used), key=order_key)
    place = {term: number for number, term in enumerate(terms)}
    renumber = np.zeros(len(vocabulary), dtype=np.int32)
    renumber[used] = [place[vocabulary[number]] for number in used]
    return terms, renumber


@dataclass(frozen=True)
class CorpusTerms:
    """Title and abstract term counts of a list of papers, one matrix row per paper, over a
    vocabulary in sorted order with no unused term: the same texts always give the same
    arrays, however much of them came from the cache (results that sum floats over a row
    are then the same to the last bit). `keys` names each row's text; `snippets` has its
    search snippet."""

    vocabulary: tuple[str, ...]
    title: csr_matrix
    abstract: csr_matrix
    keys: tuple[bytes, ...]
    snippets: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.keys)


def canonical_terms(
    vocabulary: Sequence[str],
    title: csr_matrix,
    abstract: csr_matrix,
    keys: Sequence[bytes],
    snippets: Sequence[str],
) -> CorpusTerms:
    """`CorpusTerms` of matrices over any vocabulary: columns renumbered into sorted order,
    unused terms dropped."""
    import numpy as np
    from scipy.sparse import csr_matrix

    terms, renumber = renumbering(vocabulary, np.union1d(title.indices, abstract.indices), str)

    def renumbered(matrix: csr_matrix) -> csr_matrix:
        parts = (matrix.data.copy(), renumber[matrix.indices], matrix.indptr.copy())
        result = csr_matrix(parts, shape=(len(keys), len(terms)))
        result.sort_indices()
        return result

    return CorpusTerms(
        tuple(terms),
        renumbered(title),
        renumbered(abstract),
        tuple(keys),
        tuple(snippets),
    )

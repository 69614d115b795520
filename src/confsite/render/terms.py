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
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from lunr.stop_word_filter import WORDS as STOP_WORDS

from ..model.records import Paper
from ..text.plain import plain_text
from .stemmer import stem

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

PaperTerms = tuple[Counter[str], Counter[str]]  # a title's and an abstract's term frequencies
COUNT_CHUNK = 5_000  # papers counted before their Counters become arrays
TEXT_CHUNK = 1_000  # texts whose words are held at once while `text_counts` counts them
# lunr.js's tokenizer splits on /[\s\-]+/; these are the characters of JavaScript's \s.
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
SEPARATOR = re.compile(f"[{JS_SPACE}\\-]+")
# Letters NFKD leaves whole but a reader types plainly (Søren, Łukasz, Straße); static/
# search-terms.js has the same table.
FOLDED_LETTERS = str.maketrans(
    {
        "ß": "ss",
        "æ": "ae",
        "œ": "oe",
        "ø": "o",
        "đ": "d",
        "ð": "d",
        "ł": "l",
        "ı": "i",
        "þ": "th",
        "ħ": "h",
        "ŧ": "t",
        "ŀ": "l",
    }
)
NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
# lunr.js's trimmer strips ASCII non-word characters (/^\W+/, /\W+$/); Python's \W is the
# Unicode one, so γ, Čapek and 深度学习 keep their letters (lunr.js's own would delete them).
TRIM = re.compile(r"^\W+|\W+\Z")


class _NonspacingMarks(dict[int, int | None]):
    """A str.translate table deleting Unicode's category Mn, as JavaScript's /\\p{Mn}/u: each
    character classified when a text first holds it, not all of Unicode ahead. (Far faster
    than a regular expression class of the same marks.)"""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.category(chr(code)) == "Mn" else code
        self[code] = kept
        return kept


_WITHOUT_NONSPACING_MARKS = _NonspacingMarks()


def fold(text: str) -> str:
    """Text as it is indexed and searched: lower case, compatibility forms and accents gone
    (Schölkopf, Poincaré and 𝜸 become scholkopf, poincare, γ). The page folds the same way.
    Only the runs of non-ASCII characters are normalized, far quicker than the whole text: ASCII
    is its own decomposition, and the only characters that compose with ASCII are nonspacing
    marks, which folding deletes."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    try:
        return NON_ASCII_RUN.sub(_folded_run, lowered)
    except _CaseNeedsContext:
        return _cased(_unmarked(lowered))


class _CaseNeedsContext(Exception):
    """A run decomposed to a capital sigma, whose lower case depends on the letters around it."""


def _folded_run(run: re.Match[str]) -> str:
    letters = run.group()
    return _kept_folded_letters(letters) if len(letters) <= KEPT_RUN else _folded_letters(letters)


def _folded_letters(letters: str) -> str:
    plain = _unmarked(letters)
    if "\u03a3" in plain:  # Σ: final or not, as the text around it says
        raise _CaseNeedsContext
    return _cased(plain)


# A corpus's short runs of non-ASCII letters are few and repeat (α, ∈, é): each is folded once.
# Long ones (a sentence of CJK text) rarely repeat, and would push the short ones out.
KEPT_RUN = 32
_kept_folded_letters = lru_cache(maxsize=4096)(_folded_letters)


def _unmarked(text: str) -> str:
    """Compatibility forms decomposed, nonspacing marks deleted, the rest composed again."""
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", _translated(decomposed, _WITHOUT_NONSPACING_MARKS))


def _cased(text: str) -> str:
    return _translated(text.lower(), FOLDED_LETTERS)


def _translated(text: str, table: dict[int, Any]) -> str:
    """`text.translate(table)` for a table of non-ASCII characters only: str.translate looks
    up every character, 0.1 ms for a long abstract with a few accents; its runs of non-ASCII
    characters are few and short."""
    return NON_ASCII_RUN.sub(lambda run: run.group().translate(table), text)


# What Python's str.split takes for white space and JavaScript's \s does not (four ASCII
# controls and NEL), and the one JavaScript takes that Python does not (the byte-order mark).
SPLIT_ONLY_SPACES = "\x1c\x1d\x1e\x1f\x85"
JS_ONLY_SPACE = "\ufeff"


def _holds_split_only_space(text: str) -> bool:
    """A substring test per character, each one scan in C: a set's `isdisjoint` makes a string
    of every character of the text."""
    return any(space in text for space in SPLIT_ONLY_SPACES)


def tokens(text: str) -> list[str]:
    """The words of text, folded, split as lunr.js's tokenizer splits."""
    folded = fold(text)
    if _holds_split_only_space(folded):
        return [word for word in SEPARATOR.split(folded) if word]
    # The same words, several times quicker than the pattern, for any text without those.
    if not folded.isascii():
        folded = folded.replace(JS_ONLY_SPACE, " ")
    return folded.replace("-", " ").split()


@cache  # a corpus has far fewer distinct words than words
def term(word: str) -> str | None:
    """The index term of one folded word: trimmed, stop words dropped, stemmed by lunr.js's
    rules. A word of symbols only (🚀, ∞) is kept whole; one of punctuation only is dropped
    (lunr.js would index an empty term no query reaches)."""
    trimmed = TRIM.sub("", word)
    if not trimmed:
        if not any(unicodedata.category(char)[0] == "S" for char in word):
            return None
        trimmed = word
    return None if trimmed in STOP_WORDS else stem(trimmed)


def field_terms(text: str) -> Counter[str]:
    """Term frequencies of one field, as lunr.js's builder counts them with confsite's
    pipeline (static/search-terms.js)."""
    counts = Counter(map(term, tokens(text)))
    counts.pop(None, None)
    return counts  # type: ignore[return-value]


def index_text(text: str | None) -> str:
    """Plain text as it is indexed (folding comes with the terms, so the store keeps the
    real spelling)."""
    return plain_text(text) if text else ""


def plain_abstract(paper: Paper) -> str:
    """The abstract as plain text: results show its passage that matches. Made with the terms
    and cached with them: plain text of TeX is slow."""
    return plain_text(paper.abstract) if paper.abstract else ""


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

    def number(self, term: str) -> int:
        found = self._number.setdefault(term, len(self.terms))
        if found == len(self.terms):
            self.terms.append(term)
        return found

    def numbers(self, terms: Iterable[str]) -> list[int]:
        return list(map(self.number, terms))


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


class TermNumbers(dict[str, int]):
    """Each folded word's term number in `vocabulary`, -1 for a word that is no term: found
    when a word is first met, so that each word of a text costs one lookup in C."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        super().__init__()
        self.vocabulary = vocabulary

    def __missing__(self, word: str) -> int:
        found = term(word)
        number = -1 if found is None else self.vocabulary.number(found)
        self[word] = number
        return number


def text_counts(texts: Iterable[str], vocabulary: Vocabulary) -> csr_matrix:
    """Each text's term frequencies, as `field_terms` counts them, a row per text, over
    `vocabulary` (which grows to hold them). Counted straight into arrays a chunk of texts at
    a time: each word is one lookup in C, where a Counter per text took a call and two."""
    numbers, texts = TermNumbers(vocabulary), iter(texts)
    parts = []
    while chunk := list(itertools.islice(texts, TEXT_CHUNK)):
        parts.append(_chunk_counts(chunk, numbers))
    return stacked(parts, len(vocabulary))


def _chunk_counts(texts: list[str], numbers: TermNumbers) -> csr_matrix:
    import numpy as np
    from scipy.sparse import csr_matrix

    words = list(map(tokens, texts))
    sizes = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    found = np.fromiter(
        map(numbers.__getitem__, itertools.chain.from_iterable(words)),
        dtype=np.int32,
        count=int(sizes.sum()),
    )
    rows = np.repeat(np.arange(len(texts), dtype=np.int32), sizes)
    kept = found >= 0
    ones = np.ones(int(kept.sum()), dtype=np.int32)
    shape = (len(texts), len(numbers.vocabulary))
    # The same term twice in a text is one entry: scipy sums repeated places.
    return csr_matrix((ones, (rows[kept], found[kept])), shape=shape)


def count_matrices(
    rows: Iterable[Sequence[Counter[str]]], fields: int, vocabulary: Vocabulary
) -> list[csr_matrix]:
    """One count matrix per field from rows of one Counter per field. The rows are taken
    a chunk at a time, so a whole corpus's Counters (too large at scale) are never held at
    once."""
    rows = iter(rows)
    chunks: list[list[csr_matrix]] = [[] for _ in range(fields)]
    while chunk := list(itertools.islice(rows, COUNT_CHUNK)):
        for field, matrices in enumerate(chunks):
            matrices.append(count_matrix([row[field] for row in chunk], vocabulary))
    return [stacked(parts, len(vocabulary)) for parts in chunks]


def stacked(parts: list[csr_matrix], width: int) -> csr_matrix:
    """Count matrices made a chunk at a time, one under the other, each widened to the
    vocabulary's final `width`; no chunk gives no row."""
    import numpy as np
    from scipy.sparse import csr_matrix, vstack

    if not parts:
        return csr_matrix((0, width), dtype=np.int32)
    return vstack([widened(part, width) for part in parts], format="csr")


def widened(matrix: csr_matrix, width: int) -> csr_matrix:
    """The same rows, with room for terms the vocabulary gained since the matrix was made."""
    from scipy.sparse import csr_matrix

    return csr_matrix((matrix.data, matrix.indices, matrix.indptr), shape=(matrix.shape[0], width))


# Runs of consecutive rows past which `rows_in_order` copies row by row (scipy's fancy
# indexing, in C) rather than a run at a time.
MAX_ROW_RUNS = 1_000


def rows_in_order(matrix: csr_matrix, order: Sequence[int]) -> csr_matrix:
    """`matrix[order]`, copied a run of consecutive rows at a time: a rebuild's rows are the
    stored ones in their order but for the few texts that changed, and copying them one by one
    took a fifth of a rebuild's terms at 100,000 papers."""
    import numpy as np
    from scipy.sparse import csr_matrix

    order = np.asarray(order, dtype=np.intp)
    starts = np.flatnonzero(np.diff(order, prepend=-2) != 1)  # where a run begins
    if len(starts) > MAX_ROW_RUNS:
        return matrix[order]
    ends = np.append(starts[1:], len(order))[: len(starts)]
    indptr = matrix.indptr
    firsts, lasts = indptr[order[starts]].tolist(), indptr[order[ends - 1] + 1].tolist()
    spans = list(zip(firsts, lasts, strict=True))
    lengths = np.diff(indptr)[order]
    return csr_matrix(
        (
            np.concatenate([matrix.data[a:b] for a, b in spans] or [matrix.data[:0]]),
            np.concatenate([matrix.indices[a:b] for a, b in spans] or [matrix.indices[:0]]),
            np.concatenate([[0], np.cumsum(lengths)]).astype(indptr.dtype),
        ),
        shape=(len(order), matrix.shape[1]),
    )


def columns_held(matrices: Iterable[csr_matrix], width: int) -> np.ndarray:
    """The columns (of `width`) where any of the matrices holds an entry, in order: marked,
    as np.unique would sort every entry (a second for the abstracts at archive scale)."""
    import numpy as np

    held = np.zeros(width, dtype=bool)
    for matrix in matrices:
        held[matrix.indices] = True
    return np.flatnonzero(held)


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
    are then the same to the last bit). `keys` names each row's text; `abstracts` has its
    plain abstract."""

    vocabulary: tuple[str, ...]
    title: csr_matrix
    abstract: csr_matrix
    keys: tuple[bytes, ...]
    abstracts: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.keys)


def canonical_terms(
    vocabulary: Sequence[str],
    title: csr_matrix,
    abstract: csr_matrix,
    keys: Sequence[bytes],
    abstracts: Sequence[str],
) -> CorpusTerms:
    """`CorpusTerms` of matrices over any vocabulary: columns renumbered into sorted order,
    unused terms dropped."""
    from scipy.sparse import csr_matrix

    used = columns_held((title, abstract), len(vocabulary))
    terms, renumber = renumbering(vocabulary, used, str)

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
        tuple(abstracts),
    )

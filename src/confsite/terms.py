"""Index terms of text, exactly as lunr's pipeline makes them; shared by search and related papers.

Both the search index and the related-papers similarity count the same stemmed words of each
title and abstract, so they are counted once per build.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import cache

from lunr.stemmer import porter_stemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS
from lunr.tokenizer import SEPARATOR_CHARS
from lunr.trimmer import full_re as TRIM

from .records import Paper
from .texplain import plain_text

PaperTerms = tuple[Counter[str], Counter[str]]  # a title's and an abstract's term frequencies
SEPARATOR = re.compile(f"[{re.escape(SEPARATOR_CHARS)}]+")


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
    per-token objects, which dominated the build (see README, performance)."""
    terms = map(_term, filter(None, SEPARATOR.split(text.lower())))
    counts = Counter(terms)
    counts.pop(None, None)
    return counts  # type: ignore[return-value]


def index_text(text: str | None) -> str:
    """Plain text as it is indexed: NFKC, so mathematical letters and compatibility forms
    (𝜸, ﬁ) match what people type, and lunr.js accepts the vocabulary's order."""
    return unicodedata.normalize("NFKC", plain_text(text)) if text else ""


def paper_terms(paper: Paper) -> PaperTerms:
    """Term frequencies of a paper's title and of its abstract."""
    return field_terms(index_text(paper.title)), field_terms(index_text(paper.abstract))

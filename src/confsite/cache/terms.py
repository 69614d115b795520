"""Index terms of titles and abstracts, remembered between builds.

Counting them is most of the work before related papers exist, and paper pages wait for
those. A paper's terms follow from its title and abstract alone, so they are kept per text
(with the code's fingerprint: another version of confsite starts afresh). Like the other
caches this one is best effort: anything unreadable is ignored and counted again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..model.records import Paper
from ..render.terms import (
    CorpusTerms,
    Vocabulary,
    canonical_terms,
    count_matrices,
    index_text,
    plain_abstract,
    text_counts,
    widened,
)
from .digests import text_digest
from .stores import load_pickle, save_pickle

CACHE_FILE = "terms.pickle"


def texts_digest(paper: Paper) -> bytes:
    """What a paper's terms are counted from: its title and abstract."""
    return text_digest(f"{paper.title}\0{paper.abstract}")


class TermCache:
    """Each paper's terms, counted only for texts the last build did not have. What is kept
    is exactly this build's texts, so the cache never outgrows the site."""

    def __init__(self, folder: Path | None, fingerprint: bytes) -> None:
        self.path = folder / CACHE_FILE if folder is not None else None
        self.fingerprint = fingerprint
        self._terms: CorpusTerms | None = None
        self._stored_keys: tuple[bytes, ...] = ()

    def paper_terms(self, papers: Sequence[Paper]) -> CorpusTerms:
        from scipy.sparse import vstack

        stored = load_pickle(self.path, self.fingerprint, CorpusTerms)
        if stored is None:
            stored = canonical_terms((), *count_matrices([], 2, Vocabulary()), (), ())
        self._stored_keys = stored.keys
        keys = [texts_digest(paper) for paper in papers]
        row = {key: number for number, key in enumerate(stored.keys)}
        new: dict[bytes, Paper] = {}  # texts not in the cache, each once
        for key, paper in zip(keys, papers, strict=True):
            if key not in row and key not in new:
                new[key] = paper
                row[key] = len(stored.keys) + len(new) - 1
        vocabulary = Vocabulary(stored.vocabulary)
        # Made once, counted from and kept: plain text of TeX is slow.
        new_abstracts = [plain_abstract(paper) for paper in new.values()]
        titles = text_counts((index_text(paper.title) for paper in new.values()), vocabulary)
        abstracts = text_counts(new_abstracts, vocabulary)
        order = [row[key] for key in keys]
        width = len(vocabulary)
        title, abstract = (
            vstack([widened(old, width), widened(added, width)], format="csr")[order]
            for old, added in ((stored.title, titles), (stored.abstract, abstracts))
        )
        plain = [*stored.abstracts, *new_abstracts]
        texts = [plain[number] for number in order]
        self._terms = canonical_terms(vocabulary.terms, title, abstract, keys, texts)
        return self._terms

    def save(self) -> None:
        """Kept apart from counting, so that what waits for the terms need not wait for this."""
        if self._terms is not None and self._terms.keys != self._stored_keys:
            save_pickle(self.path, self.fingerprint, self._terms)

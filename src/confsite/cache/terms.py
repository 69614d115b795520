"""Index terms of titles and abstracts, remembered between builds.

Counting them is most of the work before related papers exist, and paper pages wait for
those. A paper's terms follow from its title and abstract alone, so they are kept per text
(with the code's fingerprint: another version of confsite starts afresh). A paper the input
cache knows unchanged (`KeptPapers`) takes its row by id, its text unread: digesting every
text to find it was a third of a rebuild's terms at 100,000 papers. Like the other caches
this one is best effort: anything unreadable is ignored and counted again.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..model.records import Paper
from ..render.terms import (
    CorpusTerms,
    Vocabulary,
    canonical_terms,
    count_matrices,
    index_text,
    plain_abstract,
    rows_in_order,
    text_counts,
    widened,
)
from .digests import text_digest
from .inputs import NOTHING_KEPT, KeptPapers
from .stores import load_pickle, save_pickle

CACHE_FILE = "terms.pickle"


def texts_digest(paper: Paper) -> bytes:
    """What a paper's terms are counted from: its title and abstract."""
    return text_digest(f"{paper.title}\0{paper.abstract}")


@dataclass(frozen=True)
class StoredTerms:
    """The terms as the last build kept them: a row per paper of `ids`, from the inputs
    `inputs_key` named."""

    terms: CorpusTerms
    ids: tuple[str, ...]
    inputs_key: str

    def rows_by_id(self, kept: KeptPapers) -> dict[str, int]:
        """The rows of the papers `kept` knows unchanged since these terms were counted."""
        kept_ids = kept.last_build_kept(self.inputs_key)
        if not kept_ids:
            return {}
        rows = dict(zip(self.ids, itertools.count()))
        for changed in rows.keys() - kept_ids:  # few, found in C
            del rows[changed]
        return rows


class TermCache:
    """Each paper's terms, counted only for texts the last build did not have. What is kept
    is exactly this build's texts, so the cache never outgrows the site."""

    def __init__(
        self, folder: Path | None, fingerprint: bytes, kept: KeptPapers = NOTHING_KEPT
    ) -> None:
        self.path = folder / CACHE_FILE if folder is not None else None
        self.fingerprint = fingerprint
        self.kept = kept
        self._terms: CorpusTerms | None = None
        self._ids: tuple[str, ...] = ()
        self._stored: StoredTerms | None = None

    def paper_terms(self, papers: Sequence[Paper]) -> CorpusTerms:
        from scipy.sparse import vstack

        stored = self._stored = load_pickle(self.path, self.fingerprint, StoredTerms)
        last = stored.terms if stored is not None else _no_terms()
        kept_rows = stored.rows_by_id(self.kept) if stored is not None else {}
        keys = [
            last.keys[row] if (row := kept_rows.get(paper.id)) is not None else texts_digest(paper)
            for paper in papers
        ]
        row = {key: number for number, key in enumerate(last.keys)}
        new: dict[bytes, Paper] = {}  # texts not in the cache, each once
        for key, paper in zip(keys, papers, strict=True):
            if key not in row and key not in new:
                new[key] = paper
                row[key] = len(last.keys) + len(new) - 1
        vocabulary = Vocabulary(last.vocabulary)
        # Made once, counted from and kept: plain text of TeX is slow.
        new_abstracts = [plain_abstract(paper) for paper in new.values()]
        titles = text_counts((index_text(paper.title) for paper in new.values()), vocabulary)
        abstracts = text_counts(new_abstracts, vocabulary)
        order = [row[key] for key in keys]
        width = len(vocabulary)
        title, abstract = (
            rows_in_order(vstack([widened(old, width), widened(added, width)], format="csr"), order)
            for old, added in ((last.title, titles), (last.abstract, abstracts))
        )
        plain = [*last.abstracts, *new_abstracts]
        texts = [plain[number] for number in order]
        self._terms = canonical_terms(vocabulary.terms, title, abstract, keys, texts)
        self._ids = tuple(map(operator.attrgetter("id"), papers))
        return self._terms

    def save(self) -> None:
        """Kept apart from counting, so that what waits for the terms need not wait for this.
        Saved when the texts or the inputs changed: the next build takes rows by id only
        from terms marked with the inputs it merged from."""
        if self._terms is None:
            return
        made = StoredTerms(self._terms, self._ids, self.kept.inputs_key)
        last = self._stored
        if last is None or (last.terms.keys, last.ids, last.inputs_key) != (
            made.terms.keys,
            made.ids,
            made.inputs_key,
        ):
            save_pickle(self.path, self.fingerprint, made)


def _no_terms() -> CorpusTerms:
    return canonical_terms((), *count_matrices([], 2, Vocabulary()), (), ())

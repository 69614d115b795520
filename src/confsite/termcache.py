"""Index terms of titles and abstracts, remembered between builds.

Counting them is most of the work before related papers exist, and paper pages wait for
those. A paper's terms follow from its title and abstract alone, so they are kept per text
(with the code's fingerprint: another version of confsite starts afresh). Like the other
caches this one is best effort: anything unreadable is ignored and counted again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Sequence
from pathlib import Path

from .records import Paper
from .terms import PaperTerms, paper_terms

CACHE_FILE = "terms.pickle"


def _text_key(paper: Paper) -> bytes:
    text = f"{paper.title}\0{paper.abstract}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=16).digest()


def _load(path: Path, fingerprint: bytes) -> dict[bytes, PaperTerms]:
    try:
        with open(path, "rb") as stream:
            stored_fingerprint, terms = pickle.load(stream)
    except Exception:  # absent, truncated or from another version: count afresh
        return {}
    return terms if stored_fingerprint == fingerprint and isinstance(terms, dict) else {}


def _save(path: Path, fingerprint: bytes, terms: dict[bytes, PaperTerms]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as stream:
            pickle.dump((fingerprint, terms), stream, protocol=5)
        os.replace(temporary, path)
    except OSError:
        pass


class TermCache:
    """Each paper's terms, counted only for texts the last build did not have. What is kept
    is exactly this build's texts, so the cache never outgrows the site."""

    def __init__(self, folder: Path, fingerprint: bytes) -> None:
        self.path, self.fingerprint = folder / CACHE_FILE, fingerprint
        self._known: dict[bytes, PaperTerms] = {}
        self._current: dict[bytes, PaperTerms] = {}

    def paper_terms(self, papers: Sequence[Paper]) -> list[PaperTerms]:
        self._known = _load(self.path, self.fingerprint)
        keys = [_text_key(paper) for paper in papers]
        for key, paper in zip(keys, papers, strict=True):
            if key not in self._current:
                self._current[key] = self._known.get(key) or paper_terms(paper)
        return [self._current[key] for key in keys]

    def save(self) -> None:
        """Kept apart from counting, so that what waits for the terms need not wait for this."""
        if self._current.keys() != self._known.keys():
            _save(self.path, self.fingerprint, self._current)

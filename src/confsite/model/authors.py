"""The author index: one author per name once case, spacing, punctuation and accents are set aside.

Spellings that differ only in those ways ("Klaus R Muller", "Klaus R. Müller") are merged and
the merge is reported; the shown name is the most common of the properly cased spellings,
preferring one with accents when counts tie.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..diagnostics import Diagnostics
from .merge import comparable_text
from .records import Paper
from .slugs import unique_slugs
from .urls import LISTING_SLUGS


@dataclass(frozen=True)
class Author:
    key: str
    slug: str
    name: str
    spellings: tuple[str, ...]
    paper_ids: tuple[str, ...]


def name_key(name: str) -> str:
    return comparable_text(name) or name.casefold()


def _preferred(spellings: Counter[str], first_seen: list[str]) -> str:
    def rank(spelling: str) -> tuple:
        return (
            _miscased_words(spelling),  # "CHEN CHEN", "sheng zhao", "Jérémie DONA" lose
            -spellings[spelling],
            spelling.isascii(),  # prefer the accented spelling
            first_seen.index(spelling),
        )

    return min(spellings, key=rank)


def _miscased_words(name: str) -> int:
    """Words in capitals, or a name all in lower case: how scrapes mangle names."""
    shouted = sum(1 for word in name.split() if len(word) > 1 and word.isupper())
    return shouted + (1 if name.islower() else 0)


def build_authors(papers: tuple[Paper, ...], diagnostics: Diagnostics) -> tuple[Author, ...]:
    # Per name key: each spelling's count and where it was first seen (dicts keep the order
    # spellings and papers came in), and the papers, each once.
    spellings: dict[str, dict[str, int]] = {}
    paper_ids: dict[str, dict[str, None]] = {}
    locs = {}
    keys: dict[str, str] = {}  # name_key per spelling: most names recur
    for paper in papers:
        for name in paper.authors:
            key = keys.get(name)
            if key is None:
                key = keys[name] = name_key(name)
            counts = spellings.setdefault(key, {})
            if name not in counts:
                counts[name] = 0
                locs[(key, name)] = paper.loc
            counts[name] += 1
            paper_ids.setdefault(key, {})[paper.id] = None
    names = {key: _preferred(Counter(counts), list(counts)) for key, counts in spellings.items()}
    slugs = unique_slugs(names, "author", 60, LISTING_SLUGS)
    authors = []
    for key, name in names.items():
        variants = tuple(sorted(spellings[key]))
        if len(variants) > 1:
            where = "; ".join(f"{v!r} at {locs[(key, v)]}" for v in variants)
            diagnostics.info(
                "author-merge", locs[(key, variants[0])], f"merged spellings of {name!r}: {where}"
            )
        authors.append(Author(key, slugs[key], name, variants, tuple(paper_ids[key])))
    return tuple(sorted(authors, key=lambda a: (sort_key(a.name), a.slug)))


def sort_key(name: str) -> tuple[str, str]:
    """Alphabetical by family name (the last word), then by the whole name."""
    words = name.split()
    family = words[-1] if words else name
    return (comparable_text(family), comparable_text(name))


def index_letter(name: str) -> str:
    """The A–Z heading an author is listed under; '#' for names that do not start with a letter."""
    family = sort_key(name)[0]
    first = family[:1].upper()
    return first if "A" <= first <= "Z" else "#"

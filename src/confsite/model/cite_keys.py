"""Citation keys like `ding2024patched`: first author's family name, year, first title word;
unique within a site and stable across rebuilds."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable

from ..text.plain import plain_text
from .records import Paper
from .slugs import slug_words

# Title words a key skips, as Google Scholar's keys do: "On the ..." gives the next word.
SKIPPED_WORDS = frozenset(
    "a an the on of in for to towards toward and with via from by at is are do does can how "
    "what when why we".split()
)
MAX_TITLE_WORDS = 3
NAMES_CACHED = 50_000
LETTERS = "abcdefghijklmnopqrstuvwxyz"  # colliding keys take more title words, up to this many


@functools.lru_cache(maxsize=NAMES_CACHED)  # most authors have several papers
def _family_name(name: str) -> str:
    words = slug_words(plain_text(name))
    return words[-1].replace(" ", "") if words else ""


def _title_words(paper: Paper) -> list[str]:
    words = slug_words(plain_text(paper.title)) if paper.title else []
    return [word for word in words if word not in SKIPPED_WORDS] or words or ["untitled"]


def _key(paper: Paper, title_words: int) -> str:
    family = _family_name(paper.authors[0]) if paper.authors else "anon"
    year = str(paper.year) if paper.year else ""
    words = _title_words(paper)
    if words[0].isdigit():  # "4-bit Shampoo": "4bit", not "4"
        title_words += 1
    return family + year + "".join(words[:title_words])


def cite_keys(papers: Iterable[Paper]) -> dict[str, str]:
    """Each paper's key by id. Papers whose keys collide take more title words; those still
    colliding are told apart by letters, in the order of their ids."""
    ordered = sorted(papers, key=lambda paper: paper.id)
    keys = {paper.id: _key(paper, 1) for paper in ordered}
    for words in range(2, MAX_TITLE_WORDS + 1):
        counts = Counter(keys.values())
        for paper in ordered:
            if counts[keys[paper.id]] > 1:
                keys[paper.id] = _key(paper, words)
    used: set[str] = set()
    for paper in ordered:  # the first keeps the plain key; the next take "b", "c", as in 2024b
        key, number = keys[paper.id], 1
        while keys[paper.id] in used:
            number += 1
            keys[paper.id] = key + (LETTERS[number - 1] if number <= len(LETTERS) else str(number))
        used.add(keys[paper.id])
    return keys

"""URL slugs that are unique within a site and stable across rebuilds."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Hashable
from typing import TypeVar

from slugify import slugify, smart_truncate

from ..text.plain import plain_text

K = TypeVar("K", bound=Hashable)
MAX_TITLE_SLUG_LENGTH = 80
ASCII_WORD = re.compile(r"[a-z0-9]+")
DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d)")  # slugify joins 1,000 into 1000
# slugify's own transliteration dependency, named: by default it takes Unidecode where that
# happens to be installed (slugs would change with the machine), and looks for it by a
# failed import on every call with non-ASCII text.
TRANSLITERATION = "text-unidecode"


def title_slug(title: str | None) -> str:
    """The slug a paper's id starts from: its title as plain text, cut at a word."""
    if not title:
        return ""
    return bounded_slug(plain_text(title), MAX_TITLE_SLUG_LENGTH)


def bounded_slug(text: str, max_length: int) -> str:
    """`slugify(text, max_length=max_length, word_boundary=True)` the quicker way: the slug's
    words (see `slug_words`), cut as slugify cuts them."""
    slug = "-".join(slug_words(text))
    return smart_truncate(slug, max_length, word_boundary=True, separator="-")


def slug_words(text: str) -> list[str]:
    """The words of `text`'s slug, as `slugify(text, separator=" ").split()` gives them. ASCII
    text without an entity takes a quicker way: its slug is its runs of letters and digits,
    lower case, where slugify makes a dozen passes (cite keys took 3 s per 100,000 papers)."""
    if text.isascii() and "&" not in text:
        return ASCII_WORD.findall(DIGIT_COMMA.sub("", text.lower()))
    return slugify(text, separator=" ", backend=TRANSLITERATION).split()


def slug_suffix(text: str) -> str:
    """A short, stable hash: the suffix that tells colliding slugs apart."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]


def unique_slugs(
    labels: dict[K, str], fallback: str, max_length: int, reserved: frozenset[str] = frozenset()
) -> dict[K, str]:
    """Slug of each label; labels whose slugs collide (with each other or a `reserved` name)
    all get a hash of their key appended, so a slug never depends on the order of the others."""
    base = {
        key: bounded_slug(label, max_length) or fallback
        for key, label in labels.items()
    }
    counts = Counter(base.values())
    counts.update(reserved)
    return {
        key: slug if counts[slug] == 1 else f"{slug}-{slug_suffix(repr(key))}"
        for key, slug in base.items()
    }

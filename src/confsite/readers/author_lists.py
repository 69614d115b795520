"""Author lists as structured exports write them: arrays of names or of objects, or one string
with its own separator; each name comes out with its affiliation ("" where none is given)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .values import key_of, scalar_text


@dataclass(frozen=True)
class AuthorList:
    names: tuple[str, ...] = ()
    affiliations: tuple[str, ...] = ()  # parallel to names; empty when none is known

    @staticmethod
    def of(pairs: list[tuple[str, str]]) -> AuthorList:
        kept = [(name, affiliation) for name, affiliation in pairs if name]
        names = tuple(name for name, _ in kept)
        affiliations = tuple(affiliation for _, affiliation in kept)
        return AuthorList(names, affiliations if any(affiliations) else ())


# Keys of an author object, compared as `key_of` spells them.
NAME_KEYS = ("name", "fullname", "displayname", "author")
GIVEN_KEYS = ("firstname", "first", "given", "givenname", "forename")
MIDDLE_KEYS = ("middlename", "middle")
FAMILY_KEYS = ("lastname", "last", "family", "familyname", "surname")
AFFILIATION_KEYS = ("affiliation", "affiliations", "institution", "institutions", "organization")

# A string that uses one of these uses it between every name, so commas inside are part of
# names ("Smith, J.") or affiliations; tried in this order.
STRONG_SEPARATORS = (
    re.compile(r"\s*\|\s*"),
    re.compile(r"\s*;\s*"),
    re.compile(r"\s*\n\s*"),
    re.compile(r"\s+·\s+"),
)
# "A, B, and C", "A, B and C", "A & B": the "and" after an Oxford comma is part of the comma.
AND_LIST = re.compile(r"\s*,\s*(?:and|&)\s+|\s+(?:and|&)\s+|\s*,\s*")
HAS_AND = re.compile(r"\s(?:and|&)\s")
COMMA = re.compile(r"\s*,\s*")
# What each separator above must hold (a new separator needs its mark here): a string with
# none is one name, as most items of an export's author list are, spared a scan per separator.
SEPARATOR_MARKS = ("|", ";", "\n", "·", ",", "&", "and")
# The affiliation may hold parentheses of its own, or lose its closing one: "Ke Ma (IIE, CAS".
NAME_WITH_AFFILIATION = re.compile(
    r"^(?P<name>[^()]+?)\s*\((?P<affiliation>(?:[^()]|\([^()]*\))*)(?:\)|$)\s*$"
)
# Equal-contribution and correspondence marks, wherever they sit.
MARKERS = re.compile(r"[*†‡§¶✝✉⁎]+")
# Footnote numbers glued to the end of a name ("Jane Doe1,2", "Jane Doe¹").
FOOTNOTE = re.compile(r"(?<=[^\W\d_])[\d¹²³⁴⁵⁶⁷⁸⁹⁰,]+$")
NOT_A_NAME = re.compile(
    r"^(?:[\d¹²³⁴⁵⁶⁷⁸⁹⁰,.\s]*|others|et\.? al\.?|anonymous(?: authors?)?)$", re.IGNORECASE
)


def parse_authors(value: Any) -> AuthorList:
    """An author list from an array (of names or author objects) or one string."""
    if isinstance(value, list):
        pairs: list[tuple[str, str]] = []
        for author in _rejoined([_raw_author(item) for item in value]):
            if author.from_object:
                name, affiliation = clean_name(author.name)
                pairs.append((name, author.affiliation or affiliation))
            else:
                pairs.extend(_string_authors(author.name))
        return AuthorList.of(pairs)
    if isinstance(value, Mapping):  # a lone author object
        return AuthorList.of([author_from_mapping(value)])
    return AuthorList.of(_string_authors(scalar_text(value) or ""))


def author_from_mapping(mapping: Mapping[str, Any]) -> tuple[str, str]:
    """({name} | {first_name, last_name} | {given, family}, with an optional affiliation)."""
    author = _raw_author(mapping)
    name, affiliation = clean_name(author.name)
    return name, author.affiliation or affiliation


@dataclass(frozen=True)
class _RawAuthor:
    """An item of an author array as written: an object's name (one person) and affiliation,
    or a text that may name several."""

    name: str
    affiliation: str = ""
    from_object: bool = False


def _raw_author(item: Any) -> _RawAuthor:
    if not isinstance(item, Mapping):
        return _RawAuthor(scalar_text(item) or "")
    by_key = {key_of(str(key)): value for key, value in item.items()}

    def first_of(keys: tuple[str, ...]) -> str:
        return next((text for key in keys if (text := scalar_text(by_key.get(key)))), "")

    name = first_of(NAME_KEYS)
    if not name:
        name = " ".join(
            part for part in map(first_of, (GIVEN_KEYS, MIDDLE_KEYS, FAMILY_KEYS)) if part
        )
    affiliation = by_key.get(next((k for k in AFFILIATION_KEYS if k in by_key), ""))
    if isinstance(affiliation, Mapping):  # {"institution": {"name": ...}}
        affiliation = author_from_mapping(affiliation)[0]
    return _RawAuthor(name, scalar_text(affiliation) or "", from_object=True)


def _rejoined(authors: list[_RawAuthor]) -> list[_RawAuthor]:
    """Items an export split at the commas inside an affiliation, joined again:
    ["Jeffrey Byrne (STR", "Visym Labs)"] is one author. An item opening more parentheses
    than it closes takes the items after it up to the one that closes them, if one does."""
    joined: list[_RawAuthor] = []
    index = 0
    while index < len(authors):
        author, end = authors[index], index + 1
        depth = _open_parentheses(author.name)
        while depth > 0 and end < len(authors):
            depth += _open_parentheses(authors[end].name)
            end += 1
        if depth == 0 and end > index + 1:
            name = ", ".join(part.name for part in authors[index:end])
            author = _RawAuthor(name, author.affiliation, author.from_object)
        else:
            end = index + 1
        joined.append(author)
        index = end
    return joined


def _open_parentheses(text: str) -> int:
    return text.count("(") - text.count(")")


def split_author_string(text: str) -> list[str]:
    """The names in one string, split by the separator it uses (see STRONG_SEPARATORS)."""
    text = text.strip()
    if not any(mark in text for mark in SEPARATOR_MARKS):
        return [text] if text else []
    for separator in STRONG_SEPARATORS:
        pieces = _split_outside_parentheses(text, separator)
        if len(pieces) > 1:
            return pieces
    if HAS_AND.search(text):
        parts = _split_outside_parentheses(text, re.compile(r"\s+(?:and|&)\s+"))
        # Reference managers write "Smith, John and Doe, Jane": each part one surname, a comma.
        if all(re.fullmatch(r"[^\s,]+,\s*[^,]+", part) for part in parts):
            return [" ".join(reversed(COMMA.split(part))) for part in parts]
        return _split_outside_parentheses(text, AND_LIST)
    return _split_outside_parentheses(text, COMMA)


def clean_name(raw: str) -> tuple[str, str]:
    """A name and its affiliation from "Name (Affiliation)", marks and footnotes removed;
    ("", "") for a piece that is no name (a stray footnote number, "others", "et al.")."""
    affiliation = ""
    match = NAME_WITH_AFFILIATION.match(raw.strip().rstrip("*†‡§¶ "))
    if match:
        raw, affiliation = match["name"], match["affiliation"].strip(" ,;")
    name = " ".join(FOOTNOTE.sub("", MARKERS.sub("", raw)).split())
    if NOT_A_NAME.match(name):
        return "", ""
    return name, affiliation


def _string_authors(text: str) -> list[tuple[str, str]]:
    return [clean_name(piece) for piece in split_author_string(text)] if text.strip() else []


def _split_outside_parentheses(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` split at `separator`, except inside parentheses: "A (MIT, CSAIL), B"."""
    pieces: list[str] = []
    start = depth = counted_to = 0  # depth: parentheses left open in text[:counted_to]
    for match in separator.finditer(text):
        at = match.start()
        depth += _open_parentheses(text[counted_to:at])
        counted_to = at
        if depth > 0:
            continue
        pieces.append(text[start:at])
        start = match.end()
    pieces.append(text[start:])
    return [piece.strip() for piece in pieces if piece.strip()]

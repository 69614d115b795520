"""The author index: people, from the spellings papers give their names in.

Spellings that differ only by case, spacing, punctuation, accents or "Last, First" order
("Klaus R Muller", "Klaus R. Müller", "Muller, Klaus R") are one name and always merged.
Spellings that differ by a middle name or initial ("Geoffrey E Hinton", "Geoffrey Hinton") may
be two people who share a name, so they are merged only with evidence that they are one: a
co-author the two spellings share, or an entry under `_authors: same:` in overrides.yaml. Each
merge is a note, and so is each such pair left apart for want of evidence. The shown name is
the most common properly cased spelling, its case repaired when every spelling is mangled.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from ..diagnostics import Diagnostics, SourceLoc
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


@dataclass(frozen=True)
class AuthorOverrides:
    """What overrides.yaml says of people: spellings of one person (`same`), and spellings
    never to be merged as variants (`distinct`), each list with where it was written."""

    same: tuple[tuple[tuple[str, ...], SourceLoc], ...] = ()
    distinct: tuple[tuple[tuple[str, ...], SourceLoc], ...] = ()


NO_OVERRIDES = AuthorOverrides()
SUFFIXES = frozenset(["jr", "sr", "ii", "iii", "iv"])


def person_order(name: str) -> str:
    """'Hinton, Geoffrey E.' as 'Geoffrey E. Hinton'; any other name as it is."""
    family, comma, given = name.partition(",")
    if not comma or "," in given or not family.strip() or not given.strip():
        return name
    if comparable_text(given) in SUFFIXES:  # "Martin Luther King, Jr."
        return name
    return f"{given.strip()} {family.strip()}"


def name_key(name: str) -> str:
    return comparable_text(person_order(name)) or name.casefold()


# Lower-case words before a family name; shown in lower case when a name's case is repaired.
# ("le", "la" and "di" are left out: "Le Guen" and "Di Maria" are written with capitals.)
PARTICLES = frozenset(
    "van von der den de del della da das dos des du ter ten zu vom zur".split()
)
ROMAN = frozenset(["ii", "iii", "iv", "vi", "vii", "viii"])


def _letters(word: str) -> str:
    if word.isalpha():  # most words of names: no need to take them apart
        return word
    return "".join(c for c in word if c.isalpha())


def _capitalized(word: str, particle_allowed: bool) -> str:
    lower = word.lower()
    if particle_allowed and lower in PARTICLES:
        return lower
    if _letters(lower) in ROMAN:
        return word.upper()
    pieces = re.split(r"([-'’])", lower)  # Odalric-Ambrym, O'Neil
    text = "".join(piece[:1].upper() + piece[1:] for piece in pieces)
    # "Mc" always precedes a capital; "Mac" does not (Machado, Mack), so it is left alone.
    return re.sub(r"\bMc(\w)", lambda m: "Mc" + m.group(1).upper(), text)


def display_case(name: str) -> str:
    """A name in ALL CAPS or all lower case, or with such words among well-cased ones ("Bin
    CUI", "Burigede liu"), in the case names are written in; initials ("Casimir JH Ludwig"),
    particles ("van den Oord") and suffixes ("III") stay as they are."""
    words = name.split()
    if not any(c.isalpha() for c in name):
        return name
    whole = name.upper() == name or name.lower() == name
    last = len(words) - 1
    fix = []
    for i, word in enumerate(words):
        letters = _letters(word)
        if whole:
            fix.append(bool(letters) and "." not in word)
        elif letters.isupper() and "." not in word and letters.lower() not in ROMAN:
            # Two capitals are initials ("JH", "RJ"), except as the family name ("Bin MA").
            fix.append(len(letters) >= 3 or (i == last and i > 0))
        else:
            fix.append(word.islower() and word not in PARTICLES)
    for i in range(last - 1, 0, -1):  # "LE" in "Vincent LE GUEN" belongs to the family name
        if not fix[i] and fix[i + 1] and _letters(words[i]).isupper() and not whole:
            fix[i] = "." not in words[i]
    return " ".join(
        _capitalized(word, 0 < i < last) if fixed else word
        for i, (word, fixed) in enumerate(zip(words, fix, strict=True))
    )


def _miscased_words(name: str) -> int:
    """Words in capitals (not initials such as "S." or "JH"), or a name all in lower case: how
    scrapes mangle names."""
    shouted = sum(1 for word in name.split() if word.isupper() and len(_letters(word)) > 2)
    return shouted + (1 if name.islower() or name.isupper() else 0)


NameParts = tuple[str, tuple[str, ...], str]  # given name, middle names or initials, family


def name_parts(name: str) -> NameParts | None:
    """A name's given name, middle names (initials as single letters: "LK" is "L", "K") and
    family name, each in comparison form; None for a name of one word."""
    words = person_order(name).replace(".", ". ").split()
    if len(words) < 2:
        return None
    middles: list[str] = []
    for word in words[1:-1]:
        bare = word.strip(".")
        if word.islower() and bare in PARTICLES:
            continue
        if bare.isalpha() and bare.isupper() and len(bare) <= 3 and bare != words[0]:
            middles += list(bare.casefold())
        else:
            middles.append(comparable_text(bare))
    given, family = comparable_text(words[0]), comparable_text(words[-1])
    if not given or not family:
        return None
    return given, tuple(m for m in middles if m), family


def variants(a: NameParts, b: NameParts) -> bool:
    """Whether two names can be one person's: same given and family names, and middle names
    that agree as far as the shorter list goes (a letter agrees with a name it begins)."""
    if a[0] != b[0] or a[2] != b[2]:
        return False
    short, long = sorted((a[1], b[1]), key=len)
    return all(
        x == y or (len(x) == 1 and y.startswith(x)) or (len(y) == 1 and x.startswith(y))
        for x, y in zip(short, long, strict=False)
    )


class _Names:
    """Per name key: its spellings with their counts and first location, and the papers that
    list it (by index, in order); co-authors are looked up only for the few keys that may be
    variants of one another."""

    def __init__(self, papers: tuple[Paper, ...]) -> None:
        self.spellings: dict[str, dict[str, int]] = {}
        self.locs: dict[str, SourceLoc] = {}  # per spelling, where it was first seen
        self.papers_of: dict[str, list[int]] = {}
        self.paper_keys: list[list[str]] = []
        keys: dict[str, str] = {}  # name_key per spelling: most names recur
        for index, paper in enumerate(papers):
            paper_keys = []
            for name in paper.authors:
                key = keys.get(name)
                if key is None:
                    key = keys[name] = name_key(name)
                    self.locs[name] = paper.loc
                counts = self.spellings.setdefault(key, {})
                counts[name] = counts.get(name, 0) + 1
                self.papers_of.setdefault(key, []).append(index)
                paper_keys.append(key)
            self.paper_keys.append(paper_keys)
        self.key_of = keys

    def coauthors(self, key: str) -> set[str]:
        """The keys of everyone on a paper with `key` (`key` among them)."""
        return {other for index in self.papers_of[key] for other in self.paper_keys[index]}

    def first(self, key: str) -> str:
        return next(iter(self.spellings[key]))

    def where(self, key: str) -> str:
        return f"{self.first(key)!r} ({self.locs[self.first(key)]})"


class _People:
    """Name keys joined into people (union-find), with the reason for each join."""

    def __init__(self, keys: list[str]) -> None:
        self.parent = {key: key for key in keys}
        self.reasons: dict[str, list[str]] = {}

    def find(self, key: str) -> str:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def join(self, a: str, b: str, reason: str) -> None:
        ra, rb = sorted((self.find(a), self.find(b)))
        if ra != rb:
            self.parent[rb] = ra
            self.reasons.setdefault(ra, []).extend([*self.reasons.pop(rb, []), reason])


def _join_variants(
    names: _Names, overrides: AuthorOverrides, diagnostics: Diagnostics
) -> _People:
    people = _People(list(names.spellings))
    for spellings, loc in overrides.same:
        keys = _override_keys(spellings, loc, names, diagnostics)
        for a, b in zip(keys, keys[1:], strict=False):
            people.join(a, b, f"listed as one person at {loc}")
    apart = {
        frozenset(pair)
        for spellings, loc in overrides.distinct
        for pair in combinations(_override_keys(spellings, loc, names, diagnostics), 2)
    }
    parts: dict[str, NameParts] = {}
    buckets: dict[tuple[str, str], list[str]] = {}
    for key in names.spellings:
        part = name_parts(names.first(key))
        if part is not None:
            parts[key] = part
            buckets.setdefault((part[0], part[2]), []).append(key)
    candidates = [
        (a, b)
        for keys in buckets.values()
        for a, b in combinations(keys, 2)
        if variants(parts[a], parts[b])
    ]
    evidence: dict[tuple[str, str], list[str]] = {}
    for a, b in candidates:
        shared = sorted((names.coauthors(a) & names.coauthors(b)) - {a, b})
        if shared and frozenset((a, b)) not in apart:
            evidence[(a, b)] = [names.first(k) for k in shared]
    # A name that could be either of two different people ("Michael Zhang" with co-authors of
    # both "Michael R Zhang" and "Michael T Zhang") is joined to neither.
    partners: dict[str, list[str]] = {}
    for a, b in evidence:
        partners.setdefault(a, []).append(b)
        partners.setdefault(b, []).append(a)
    ambiguous = {
        key
        for key, others in partners.items()
        if any(not variants(parts[x], parts[y]) for x, y in combinations(others, 2))
    }
    for (a, b), shared in sorted(evidence.items()):
        if a not in ambiguous and b not in ambiguous:
            people.join(a, b, f"shared co-author {', '.join(shared)}")
    for a, b in candidates:
        if people.find(a) != people.find(b) and frozenset((a, b)) not in apart:
            why = "matches more than one person" if {a, b} & ambiguous else "no shared co-author"
            diagnostics.info(
                "author-maybe",
                names.locs[names.first(a)],
                f"{names.where(a)} may be {names.where(b)}; not merged ({why}): list both under "
                "'_authors: same:' in overrides.yaml to merge them",
            )
    return people


def _override_keys(
    spellings: tuple[str, ...], loc: SourceLoc, names: _Names, diagnostics: Diagnostics
) -> list[str]:
    keys = []
    for spelling in spellings:
        key = name_key(spelling)
        if key in names.spellings:
            keys.append(key)
        else:
            diagnostics.warn("overrides", loc, f"no paper lists the author {spelling!r}")
    return keys


def _preferred(spellings: Counter[str], order: dict[str, int]) -> str:
    def rank(spelling: str) -> tuple:
        return (
            _miscased_words(spelling),  # "CHEN CHEN", "sheng zhao", "Jérémie DONA" lose
            -spellings[spelling],
            -len(spelling.split()),  # the fuller name, when counts tie
            spelling.isascii(),  # prefer the accented spelling
            order[spelling],
        )

    return display_case(person_order(min(spellings, key=rank)))


def build_authors(
    papers: tuple[Paper, ...],
    diagnostics: Diagnostics,
    overrides: AuthorOverrides = NO_OVERRIDES,
) -> tuple[Author, ...]:
    names = _Names(papers)
    people = _join_variants(names, overrides, diagnostics)
    members: dict[str, list[str]] = {}
    for key in names.spellings:
        members.setdefault(people.find(key), []).append(key)
    order = {spelling: i for i, spelling in enumerate(names.locs)}
    shown: dict[str, str] = {}
    for person, keys in members.items():
        counts = Counter({s: n for key in keys for s, n in names.spellings[key].items()})
        shown[person] = _preferred(counts, order)
        for key in keys:
            if len(names.spellings[key]) > 1:
                where = "; ".join(
                    f"{v!r} at {names.locs[v]}" for v in sorted(names.spellings[key])
                )
                diagnostics.info(
                    "author-merge",
                    names.locs[min(names.spellings[key], key=order.__getitem__)],
                    f"merged spellings of {shown[person]!r}: {where}",
                )
        if len(keys) > 1:
            listed = ", ".join(names.where(key) for key in keys)
            diagnostics.info(
                "author-variant",
                names.locs[names.first(keys[0])],
                f"merged {listed} as one person, {shown[person]!r}: "
                + "; ".join(people.reasons[person]),
            )
    ids = [paper.id for paper in papers]
    paper_ids = {
        person: tuple(ids[i] for i in _in_order(names.papers_of[key] for key in keys))
        for person, keys in members.items()
    }
    slugs = unique_slugs(shown, "author", 60, LISTING_SLUGS)
    authors = [
        Author(
            person,
            slugs[person],
            name,
            tuple(sorted(s for key in members[person] for s in names.spellings[key])),
            paper_ids[person],
        )
        for person, name in shown.items()
    ]
    return tuple(sorted(authors, key=lambda a: (sort_key(a.name), a.slug)))


def _in_order(indices: Iterable[list[int]]) -> Iterable[int]:
    """The papers listing any of a person's keys, each once, in program order."""
    lists = list(indices)
    if len(lists) == 1:
        return dict.fromkeys(lists[0])  # ordered already; once each, for "A. Lee, A. Lee"
    return sorted({i for found in lists for i in found})


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

"""Merge entries that describe the same paper, report what disagrees, and give each paper its id.

Two entries are the same paper when their titles match once TeX, case, accents and punctuation
are set aside (`$1/n$` and `1/n` alike). An untitled entry is matched by authors and abstract,
and joins a titled paper whose abstract it shares.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import fields

from ..diagnostics import Diagnostics, Problem
from ..text.plain import plain_text
from .records import Entry, Paper, Session
from .slugs import bounded_slug, slug_suffix
from .urls import LISTING_SLUGS

ABSTRACT_KEY_LENGTH = 400


NOT_ALNUM = re.compile(r"[\W_]+")  # \w is exactly str.isalnum() plus "_"


def comparable_text(text: str | None) -> str:
    """Letters and digits only, casefolded, accents removed: the comparison form of a text."""
    if not text:
        return ""
    return NOT_ALNUM.sub("", unicodedata.normalize("NFKD", text.casefold()))


def abstract_key(abstract: str | None) -> str:
    """The start of an abstract's text key. The key is computed character by character, so
    a prefix of the abstract gives a prefix of the key; long abstracts are cut first."""
    head = comparable_text((abstract or "")[: 4 * ABSTRACT_KEY_LENGTH])
    if len(head) < ABSTRACT_KEY_LENGTH:
        head = comparable_text(abstract)
    return head[:ABSTRACT_KEY_LENGTH]


def title_key(title: str) -> str:
    """`title` with TeX rendered to plain text first, so TeX and plain spellings compare equal."""
    return comparable_text(plain_text(title[:1000])) or comparable_text(title) or title.casefold()


def authors_key(authors: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(comparable_text(name) for name in authors)


GroupKey = tuple[str, ...]
KEY_SEPARATOR = "\x1f"  # joins a group key's parts for hashing


def group_key(entry: Entry) -> GroupKey:
    if entry.title:
        return ("title", title_key(entry.title))
    return ("untitled", *authors_key(entry.authors), abstract_key(entry.abstract))


def group_entries(
    entries: Sequence[Entry], keys: Sequence[GroupKey] | None = None
) -> dict[GroupKey, list[Entry]]:
    """The entries by group key; `keys`, each entry's `group_key`, where already made."""
    groups: dict[GroupKey, list[Entry]] = {}
    for key, entry in zip(map(group_key, entries) if keys is None else keys, entries, strict=True):
        groups.setdefault(key, []).append(entry)
    untitled = [key for key in groups if key[0] == "untitled"]
    if not untitled:  # abstract keys are costly, and only untitled entries need them
        return groups
    by_abstract: dict[str, GroupKey] = {}
    for key, members in groups.items():
        if key[0] == "title":
            for entry in members:
                by_abstract.setdefault(abstract_key(entry.abstract), key)
    by_abstract.pop("", None)
    for key in untitled:
        titled = by_abstract.get(key[-1])
        if titled is not None:
            groups[titled].extend(groups.pop(key))
    return groups


_content = operator.attrgetter(*(f.name for f in fields(Entry) if f.name != "loc"))


def collapse_repeats(entries: list[Entry], diagnostics: Diagnostics) -> list[Entry]:
    """Exact repeats (same source, same fields) count once; the first one stands for them."""
    if len(entries) == 1:  # most papers
        return entries
    seen: dict[tuple, Entry] = {}
    kept: list[Entry] = []
    for entry in entries:
        content = _content(entry)
        if content in seen:
            diagnostics.info("repeat", entry.loc, f"exact repeat of {seen[content].loc}, merged")
            continue
        seen[content] = entry
        kept.append(entry)
    return kept


def _label(entries: list[Entry]) -> str:
    first = entries[0]
    if first.title:
        return repr(first.title[:80])
    if first.authors:
        return f"the untitled paper by {first.authors[0]}"
    return "an untitled paper"


def _comparable(value: object) -> object:
    if isinstance(value, str):
        return comparable_text(value)
    if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
        return tuple(comparable_text(v) for v in value)
    return value


def _extends(longer: object, shorter: object) -> bool:
    """True when `longer` completes a cut-off `shorter` (an abstract or author list)."""
    if isinstance(longer, str) and isinstance(shorter, str):
        return len(longer) > len(shorter) and longer.startswith(shorter)
    if isinstance(longer, tuple) and isinstance(shorter, tuple):
        return len(longer) > len(shorter) and longer[: len(shorter)] == shorter
    return False


def pick(name: str, entries: list[Entry], diagnostics: Diagnostics) -> object:
    """The first stated value; a cut-off value yields to its completion; a real disagreement is
    reported and the earlier source wins."""
    if len(entries) == 1:  # most papers: nothing to pick between
        value = getattr(entries[0], name)
        return None if value in (None, ()) else value
    stated = [(e, getattr(e, name)) for e in entries if getattr(e, name) not in (None, ())]
    if not stated:
        return None
    chosen_entry, chosen = stated[0]
    for entry, value in stated[1:]:
        mine, theirs = _comparable(chosen), _comparable(value)
        if mine == theirs or _extends(mine, theirs):
            continue
        if _extends(theirs, mine):
            chosen_entry, chosen = entry, value
            continue
        diagnostics.warn(
            "conflict",
            entry.loc,
            f"{name} of {_label(entries)} differs from {chosen_entry.loc}; keeping that one",
        )
    return chosen


def _union(values: Iterable) -> tuple:
    return tuple(dict.fromkeys(v for v in values if v is not None))


def _place(entry: Entry) -> tuple[int, int]:
    """Where an entry's paper stands in its session: its source, then its line."""
    return entry.source_index, entry.loc.line or 0


def _affiliations_of(authors: tuple[str, ...], entries: list[Entry]) -> tuple[str, ...]:
    """The affiliations of the first entry that states them for the chosen author list."""
    if len(entries) == 1:
        return entries[0].affiliations
    wanted = authors_key(authors)
    for entry in entries:
        if entry.affiliations and authors_key(entry.authors) == wanted:
            return entry.affiliations
    return ()


def merge_group(paper_id: str, entries: list[Entry], diagnostics: Diagnostics) -> Paper:
    """One paper from all its entries; exact repeats count once but keep their location."""
    if len(entries) == 1:  # most papers: nothing to pick between or join
        return lone_paper(paper_id, entries[0])
    return merged_paper(paper_id, entries, diagnostics)


def lone_paper(paper_id: str, entry: Entry) -> Paper:
    """What `merged_paper` makes of one entry, its value for each field taken as it is."""
    if entry.session is None:
        sessions, session_order, session_rooms = (), (), ()
    else:
        sessions, session_order, session_rooms = (entry.session,), (_place(entry),), (entry.room,)
    return Paper(
        id=paper_id,
        title=entry.title,
        authors=entry.authors,
        affiliations=entry.affiliations,
        abstract=entry.abstract,
        links=_union(entry.links),
        keywords=_union(entry.keywords),
        presentation=entry.presentation,
        decision=entry.decision,
        attendance=entry.attendance,
        awards=_union(entry.awards),
        sessions=sessions,
        session_order=session_order,
        session_rooms=session_rooms,
        room=entry.room,
        conference=entry.conference,
        year=entry.year,
        sources=(entry.loc,),
    )


def merged_paper(paper_id: str, entries: list[Entry], diagnostics: Diagnostics) -> Paper:
    """One paper from several entries, each field picked or joined from theirs."""
    distinct = collapse_repeats(entries, diagnostics)
    single = (
        "title",
        "authors",
        "abstract",
        "presentation",
        "decision",
        "attendance",
        "room",
        "conference",
        "year",
    )
    picked = {name: pick(name, distinct, diagnostics) for name in single}
    placed: dict[Session, tuple[int, int]] = {}
    rooms: dict[Session, str | None] = {}
    for e in distinct:
        if e.session is not None:
            placed.setdefault(e.session, _place(e))
            rooms[e.session] = rooms.get(e.session) or e.room
    authors = picked.pop("authors") or ()
    return Paper(
        id=paper_id,
        authors=authors,
        affiliations=_affiliations_of(authors, distinct),
        links=_union(link for e in distinct for link in e.links),
        keywords=_union(keyword for e in distinct for keyword in e.keywords),
        awards=_union(award for e in distinct for award in e.awards),
        sessions=tuple(placed),
        session_order=tuple(placed.values()),
        session_rooms=tuple(rooms[session] for session in placed),
        sources=tuple(e.loc for e in entries),
        **picked,
    )


def base_slug(entries: list[Entry]) -> str:
    titled = next((e for e in entries if e.title), None)
    if titled is not None and titled.title_slug:
        return titled.title_slug
    author = next((e.authors[0] for e in entries if e.authors), "")
    author_slug = bounded_slug(author, 30)
    return f"untitled-{author_slug}" if author_slug else "untitled"


def assign_ids(
    groups: dict[GroupKey, list[Entry]], diagnostics: Diagnostics
) -> dict[GroupKey, str]:
    """Slug of the title; untitled papers and colliding slugs get a hash of their key appended,
    so an id never depends on which other papers happen to be in the build."""
    slugs = {key: base_slug(entries) for key, entries in groups.items()}
    claimed: dict[str, list[GroupKey]] = {}
    for key, slug in slugs.items():
        claimed.setdefault(slug, []).append(key)
    ids: dict[GroupKey, str] = {}
    for slug, keys in claimed.items():
        for key in keys:
            collides = len(keys) > 1 or key[0] == "untitled" or slug in LISTING_SLUGS
            ids[key] = f"{slug}-{slug_suffix(KEY_SEPARATOR.join(key))}" if collides else slug
        if len(keys) > 1:
            where = ", ".join(str(groups[key][0].loc) for key in keys)
            diagnostics.info(
                "slug",
                groups[keys[0]][0].loc,
                f"papers at {where} share the slug {slug!r}; ids got a hash suffix",
            )
    return ids


# Each paper by id as merged from its group's entries, with what merging it reported.
MergedGroups = dict[str, tuple[tuple[Entry, ...], Paper, tuple[Problem, ...]]]


def merge_entries(entries: list[Entry], diagnostics: Diagnostics) -> list[Paper]:
    return merge_groups(entries, diagnostics, {})[0]


def merge_groups(
    entries: list[Entry],
    diagnostics: Diagnostics,
    previous: MergedGroups,
    keys: Sequence[GroupKey] | None = None,
) -> tuple[list[Paper], MergedGroups]:
    """The papers the entries describe, sorted by id, and how each was merged. A group of
    the very entries (the same objects) `previous` merged under the same id is not merged
    again: its paper and what merging it reported are taken (merging is a function of the
    id and the entries). A rebuild's unchanged sources give the same entry objects, loaded
    from the input cache with `previous`, and their `keys` (see `group_entries`); merging
    100,000 papers took 1.0 s."""
    groups = group_entries(entries, keys)
    ids = assign_ids(groups, diagnostics)
    merged: MergedGroups = {}
    for key, members in groups.items():
        paper_id = ids[key]
        kept = previous.get(paper_id)
        if kept is not None and _same_objects(kept[0], members):
            diagnostics.problems.extend(kept[2])
            merged[paper_id] = kept
            continue
        start = len(diagnostics.problems)
        paper = merge_group(paper_id, members, diagnostics)
        merged[paper_id] = (tuple(members), paper, tuple(diagnostics.problems[start:]))
    return sorted((made[1] for made in merged.values()), key=lambda p: p.id), merged


def _same_objects(kept: tuple[Entry, ...], members: list[Entry]) -> bool:
    return len(kept) == len(members) and all(map(operator.is_, kept, members))

"""The general program reader: any list of papers in plain text, Markdown or HTML.

Structure is found, not assumed. The pre-pass (`pieces`) gives logical lines with their markup
as features; each is classified (`line_kinds`); the file's own habits are then measured (do
badges lead a paper or trail it, do authors come before the title, which heading level holds
titles and which names sections) and the records are cut where the repeating pattern starts.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from ..diagnostics import SourceLoc
from .base import NO_OPTIONS, RawRecord, ReadOptions, SourceText, record_fields
from .line_kinds import (
    ASIDE_HEADINGS,
    AWARD,
    LABEL,
    LINK_LINE,
    Person,
    author_list,
    fact_of,
    is_chrome,
    is_prose,
    title_text,
)
from .pieces import (
    Piece,
    is_text_browser_capture,
    pieces_from_html,
    pieces_from_markdown,
    pieces_from_text,
)
from .table_rows import table_records

name = "general"
description = (
    "any paper list or program page in plain text, Markdown or HTML (found by its pattern)"
)
carries = ("title", "authors", "abstract")
# A list of titles alone is a real program: only the title is stated by every dump.
always_states = ("title",)

MARKDOWN_SIGNS = re.compile(
    r"^\s{0,3}#{1,6}\s|\*\*[^*\n]+\*\*|<br\s*/?>|^\s*[-*+]\s+\S|\]\([^)\s]*\)|<(?:b|li|p|a)\b"
    r"|^\s*\|.*\|\s*$",
    re.MULTILINE,
)


def sniff(source: SourceText) -> float:
    """Below the readers of one exact layout, which the registry prefers when they fit: 0.5 when
    the file reads as a list of papers (most records have two fields, or a list of at least
    five linked or listed titles), less otherwise."""
    records = records_of(source)
    if not records:
        return 0.0
    full = sum(1 for r in records if len(record_fields(r)) >= 2)
    if full >= 2 and full >= 0.5 * len(records) or _one_whole_paper(records):
        return 0.5
    return 0.5 if len(records) >= 5 and _listed_titles(source) >= len(records) else 0.2


def _one_whole_paper(records: tuple[RawRecord, ...]) -> bool:
    """A paper's own page: one record with title, authors and abstract."""
    return len(records) == 1 and all((records[0].title, records[0].authors, records[0].abstract))


def _listed_titles(source: SourceText) -> int:
    return sum(1 for p in pieces_of(source) if p.tag == "li" or p.linked)


@functools.lru_cache(maxsize=1)  # sniffing and reading look at one source's pieces in turn
def pieces_of(source: SourceText) -> tuple[Piece, ...]:
    return tuple(_pieces_of(source))


def _pieces_of(source: SourceText) -> list[Piece]:
    if source.html is not None:
        return pieces_from_html(source.html)
    if len(MARKDOWN_SIGNS.findall(source.text)) >= 3 and not is_text_browser_capture(source.text):
        return pieces_from_markdown(source.text)
    return pieces_from_text(source)


# --- classification ------------------------------------------------------------------------

# A title that ends at a full stop is rare; a blurb of this many words that does is prose.
SENTENCE_WORDS = 8

# Emoji and symbols a README sets before a label ("👥 Authors:").
ICONS = re.compile(r"^[^\w\s(\[\"'“‘]+\s*")


@dataclass(frozen=True)
class Classified:
    piece: Piece
    kind: str  # chrome fact label link title name authors prose gist heading keywords
    people: tuple[Person, ...] = ()
    facts: dict[str, str] = field(default_factory=dict)
    awards: tuple[str, ...] = ()
    text: str = ""  # the text the kind applies to (a label's rest)


def classify(piece: Piece) -> Classified:
    return _by_markup(piece) or _by_content(piece)


def _by_markup(piece: Piece) -> Classified | None:
    """What the page's own markup says a piece is: furniture, a link, a label, a heading."""
    text = piece.text
    if is_chrome(text) and not piece.heading:
        return Classified(piece, "chrome")
    if piece.linked and all(link.startswith("#") for link in piece.links):
        return Classified(piece, "chrome")  # a contents entry, pointing into the page
    if link := LINK_LINE.match(text):
        return Classified(piece, "link", text=link["url"])
    if label := LABEL.match(ICONS.sub("", text)):
        return _labelled(piece, label["label"].casefold(), label["rest"].strip())
    if piece.heading:
        people = author_list(text)
        if people and len(people) >= 2:  # a card's subtitle can hold the authors
            return Classified(piece, "authors", tuple(people))
        return Classified(piece, "heading", text=text)
    if piece.underlined:
        return Classified(piece, "label", text=text)  # an area or track set under a title
    if piece.quoted:
        return Classified(piece, "prose", text=text)
    return None


def _by_content(piece: Piece) -> Classified:
    """What the words of an unmarked piece say it is: a badge, names, prose or a title."""
    text = piece.text
    fact = fact_of(text)
    if fact is not None and not (piece.linked or piece.strong and len(text) > 40):
        return Classified(piece, "fact", facts=fact.facts, awards=fact.awards)
    if not piece.strong and not piece.linked and (people := author_list(text, piece.emphasis)):
        kind = "authors" if len(people) > 1 or piece.emphasis or text[:3] == "by " else "name"
        return Classified(piece, kind, tuple(people))
    if is_prose(text):
        return Classified(piece, "prose", text=text)
    return Classified(piece, "title", text=text)


def _labelled(piece: Piece, label: str, rest: str) -> Classified:
    if label in ("abstract", "summary"):
        return Classified(piece, "prose" if rest else "label", text=rest)
    if label in ("tl;dr", "tldr"):  # a one-line gist: the abstract only when there is no other
        return Classified(piece, "gist" if rest else "label", text=rest)
    if label.startswith("keyword"):
        return Classified(piece, "keywords", text=rest)
    if label.startswith("author") and (people := author_list(rest, lenient=True)):
        return Classified(piece, "authors", tuple(people))
    if label == "title" and rest:
        return Classified(piece, "title", text=rest)
    if label == "award" and rest:
        return Classified(piece, "fact", awards=(rest,))
    if label == "room" and rest:
        return Classified(piece, "fact", facts={"room": rest})
    return Classified(piece, "heading", text=rest or piece.text)


# --- the file's habits --------------------------------------------------------------------


@dataclass(frozen=True)
class Habits:
    title_headings: frozenset[int]  # heading levels that hold paper titles
    authors_first: bool
    facts_lead: bool


def habits_of(items: list[Classified]) -> Habits:
    content = [c for c in items if c.kind != "chrome"]
    followed: dict[int, Counter[bool]] = {}
    author_then_title = title_then_author = 0
    leading = trailing = 0
    for index, item in enumerate(content):
        following = content[index + 1] if index + 1 < len(content) else None
        if item.kind == "heading" and item.piece.heading:
            paper_like = following is not None and following.kind in ("authors", "name", "prose")
            followed.setdefault(item.piece.heading, Counter())[paper_like] += 1
        if following is None:
            continue
        same_block = following.piece.block == item.piece.block
        if item.kind in ("authors", "name") and following.kind == "title":
            author_then_title += same_block
        if item.kind in ("title", "heading") and following.kind in ("authors", "name"):
            title_then_author += same_block
        if item.kind == "fact" and not item.awards:
            if following.kind in ("title", "fact"):
                leading += 1
            else:
                trailing += 1
    title_levels = frozenset(
        level for level, votes in followed.items() if votes[True] > votes[False]
    )
    return Habits(title_levels, author_then_title > title_then_author, leading >= trailing)


# --- assembly -----------------------------------------------------------------------------


@dataclass
class Draft:
    first: int = 0
    last: int = 0
    title: str | None = None
    title_style: str = ""
    people: list[Person] = field(default_factory=list)
    abstract: list[str] = field(default_factory=list)
    gist: str = ""  # a TL;DR line
    links: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    awards: list[str] = field(default_factory=list)

    @property
    def has_content(self) -> bool:
        return self.title is not None or bool(self.people) or bool(self.abstract or self.gist)

    def touch(self, piece: Piece) -> None:
        self.first = self.first or piece.line
        self.last = max(self.last, piece.end)


@dataclass
class Assembler:
    source: SourceText
    habits: Habits
    records: list[RawRecord] = field(default_factory=list)
    draft: Draft = field(default_factory=Draft)
    sections: dict[int, str] = field(default_factory=dict)  # heading level -> its text
    chrome: list[int] = field(default_factory=list)  # lines left out as page furniture
    title_styles: list[str] = field(default_factory=list)  # parallel to records
    previous: str = ""  # the kind of the last piece fed that was not chrome
    after_chrome: bool = False  # the last piece fed was chrome

    def flush(self) -> None:
        draft, self.draft = self.draft, Draft()
        if not draft.has_content:
            return
        self.title_styles.append(draft.title_style)
        awards = [*self._section_awards(), *draft.awards]
        session = self._section_session()
        self.records.append(
            RawRecord(
                loc=SourceLoc(self.source.path, draft.first, draft.last),  # pieces keep file lines
                title=draft.title,
                authors=tuple(p.name for p in draft.people),
                affiliations=tuple(p.affiliation for p in draft.people)
                if any(p.affiliation for p in draft.people)
                else (),
                abstract=tuple(draft.abstract) or ((draft.gist,) if draft.gist else ()),
                links=tuple(dict.fromkeys(draft.links)),
                keywords=tuple(draft.keywords),
                presentation=draft.facts.get("presentation"),
                decision=draft.facts.get("decision"),
                attendance=draft.facts.get("attendance"),
                awards=tuple(dict.fromkeys(awards)),
                session=session,
                room=draft.facts.get("room"),
            )
        )

    def _section_awards(self) -> list[str]:
        return [text for text in self.sections.values() if AWARD.match(text)]

    def _section_session(self) -> str | None:
        named = [text for _, text in sorted(self.sections.items()) if not AWARD.match(text)]
        return named[-1] if named else None

    def feed(self, item: Classified) -> None:
        if (
            item.kind in ("title", "name")
            and self.previous == "prose"
            and not self.after_chrome
            and _runs_on(item.piece)
        ):
            item = replace(item, kind="prose", text=item.piece.text)
        handler = getattr(self, f"_{item.kind}")
        handler(item, item.piece, self.draft)
        self.after_chrome = item.kind == "chrome"
        if item.kind != "chrome":
            self.previous = item.kind

    def _chrome(self, item: Classified, piece: Piece, draft: Draft) -> None:
        self.chrome.append(piece.line)

    def _label(self, item: Classified, piece: Piece, draft: Draft) -> None:
        draft.touch(piece)

    def _link(self, item: Classified, piece: Piece, draft: Draft) -> None:
        if draft.has_content:
            draft.links.extend((*piece.links, item.text))

    def _keywords(self, item: Classified, piece: Piece, draft: Draft) -> None:
        draft.touch(piece)
        draft.keywords.extend(k.strip() for k in re.split(r"[,;]", item.text) if k.strip())

    def _heading(self, item: Classified, piece: Piece, draft: Draft) -> None:
        level = piece.heading or 7
        if level in self.habits.title_headings:
            self._title(item, piece, draft)
            return
        self.flush()
        self.sections = {k: v for k, v in self.sections.items() if k < level}
        self.sections[level] = item.text

    def _fact(self, item: Classified, piece: Piece, draft: Draft) -> None:
        if self.habits.facts_lead and draft.has_content:
            self.flush()
            draft = self.draft
        draft.touch(piece)
        draft.facts.update(item.facts)
        draft.awards.extend(a for a in item.awards if a not in draft.awards)

    def _title(self, item: Classified, piece: Piece, draft: Draft) -> None:
        if (
            draft.title is not None
            and draft.people
            and style_of(piece) == "plain"
            and is_sentence(item.text)
        ):
            return self._prose(item, piece, draft)  # a card's short blurb under its authors
        if self.habits.authors_first and draft.people and draft.title is None:
            pass  # the title that follows its authors
        elif draft.has_content:
            if (
                draft.title is not None
                and not draft.people
                and not draft.abstract
                and (piece.block == _block_of(draft, piece))
            ):
                draft.title = f"{draft.title} {item.text}"  # a title broken across two lines
                return
            self.flush()
            draft = self.draft
        draft.touch(piece)
        draft.title, draft.title_style = title_text(item.text), style_of(piece)
        draft.links.extend(piece.links)

    def _name(self, item: Classified, piece: Piece, draft: Draft) -> None:
        if (
            draft.title is not None
            and not draft.people
            and not draft.abstract
            or self.habits.authors_first
            and (not draft.has_content or draft.title is not None)  # the next paper's author
        ):
            self._authors(item, piece, draft)
        else:
            self._title(Classified(piece, "title", text=piece.text), piece, draft)

    def _authors(self, item: Classified, piece: Piece, draft: Draft) -> None:
        if draft.people or draft.abstract or (self.habits.authors_first and draft.title):
            self.flush()
            draft = self.draft
        draft.touch(piece)
        draft.people = list(item.people)

    def _prose(self, item: Classified, piece: Piece, draft: Draft) -> None:
        if not draft.has_content and self.records and not draft.facts:
            return self._continue_previous(item)
        if draft.abstract and self.after_chrome:
            return self._continue_previous(item)  # the page's own text, past its furniture
        draft.touch(piece)
        draft.abstract.append(item.text)

    def _gist(self, item: Classified, piece: Piece, draft: Draft) -> None:
        draft.touch(piece)
        draft.gist = item.text

    def _continue_previous(self, item: Classified) -> None:
        """A paragraph after a finished record is left out unless that record's abstract runs on."""
        self.chrome.append(item.piece.line)


def is_sentence(text: str) -> bool:
    """A statement rather than a title: several words ending at a full stop."""
    return len(text.split()) >= SENTENCE_WORDS and text.rstrip().endswith((".", "..."))


def _runs_on(piece: Piece) -> bool:
    """In plain text, a line set right under a paragraph with no blank line between is more of
    that paragraph (its last short words, or a wrap the width test missed)."""
    return not piece.tag and piece.gap == 0 and not piece.linked


def _block_of(draft: Draft, piece: Piece) -> int:
    return piece.block if draft.last == piece.line else -1


def classified_pieces(source: SourceText) -> list[Classified]:
    items = with_label_values([classify(piece) for piece in pieces_of(source)])
    return with_author_lines_under_titles(with_heading_roles(without_asides(items)))


def with_author_lines_under_titles(items: list[Classified]) -> list[Classified]:
    """Where a styled title is nearly always followed in its block by its authors, the line
    there is read as names even when one of them looks like a word ("Or Gorodissky")."""
    pairs = [
        index
        for index, (item, after) in enumerate(zip(items, items[1:], strict=False))
        if item.kind == "title"
        and style_of(item.piece) != "plain"
        and after.piece.block == item.piece.block
    ]
    authored = sum(1 for index in pairs if items[index + 1].kind == "authors")
    if len(pairs) < 5 or authored < 0.9 * len(pairs):
        return items
    result = list(items)
    for index in pairs:
        after = items[index + 1]
        if after.kind == "title" and (people := author_list(after.text, True, share=0.6)):
            result[index + 1] = replace(after, kind="authors", people=tuple(people))
    return result


def without_asides(items: list[Classified]) -> list[Classified]:
    """A deck of other papers ("Similar Papers") is chrome up to the next heading as high as
    its own; in plain text, which has no levels, to the end."""
    result, aside_level = [], 0
    for item in items:
        level = item.piece.heading or 7
        if aside_level and item.piece.heading and level <= aside_level:
            aside_level = 0
        if ASIDE_HEADINGS.match(item.piece.text.strip(" :")):
            aside_level = level
        result.append(replace(item, kind="chrome") if aside_level else item)
    return result


def with_heading_roles(items: list[Classified]) -> list[Classified]:
    """A page gives each heading level one role: where most headings of a level are author
    lists, a lone name there is one too; where most are titles, a title that reads like a list
    of names ("Don't Use Large Mini-batches, Use Local SGD") is still a title."""
    roles: dict[int, Counter[str]] = {}
    for item in items:
        if item.piece.heading and item.kind in ("authors", "heading"):
            roles.setdefault(item.piece.heading, Counter())[item.kind] += 1
    result = []
    for item in items:
        votes = roles.get(item.piece.heading)
        if votes and item.kind == "heading" and votes["authors"] > 2 * votes["heading"]:
            if people := author_list(item.text):
                item = replace(item, kind="authors", people=tuple(people))
        elif votes and item.kind == "authors" and votes["heading"] > 2 * votes["authors"]:
            item = replace(item, kind="heading", people=(), text=item.piece.text)
        result.append(item)
    return result


def with_label_values(items: list[Classified]) -> list[Classified]:
    """A bold `Keywords:` or `Abstract:` on its own names the piece after it in its block
    (`<b>Keywords:</b> nlp, gan`), which the markup split off."""
    result: list[Classified] = []
    for item in items:
        before = result[-1] if result else None
        if (
            before is not None
            and not before.text
            and before.kind in ("label", "keywords")
            and before.piece.block == item.piece.block
            and (label := LABEL.match(before.piece.text))
        ):
            result[-1] = _labelled(item.piece, label["label"].casefold(), item.piece.text)
            continue
        result.append(item)
    return result


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    return list(records_of(source, options))


def records_of(source: SourceText, options: ReadOptions = NO_OPTIONS) -> tuple[RawRecord, ...]:
    # Options passed on always: the cache keys on the arguments as given, so a call that left
    # them to their default missed the one that named them (sniffing, then reading).
    return _records_of(source, options)


@functools.lru_cache(maxsize=1)  # the registry sniffs a source, then reads it; one is held
def _records_of(source: SourceText, options: ReadOptions) -> tuple[RawRecord, ...]:
    if from_table := table_records(pieces_of(source), source.path, options):
        return tuple(from_table)
    items = classified_pieces(source)
    assembler = Assembler(source, habits_of(items))
    for item in items:
        assembler.feed(item)
    assembler.flush()
    records = without_off_style_titles(assembler.records, assembler.title_styles)
    return tuple(without_stray_records(records))


def describe(source: SourceText) -> list[str]:
    """The structure found, for `confsite inspect`: what the lines were taken for, the file's
    habits, the usual record shape, and which lines were left out as page furniture."""
    pieces = pieces_of(source)
    if table_records(pieces, source.path):
        return [f"{len(pieces)} table cells under headed columns: one record a row"]
    items = classified_pieces(source)
    assembler = Assembler(source, habits_of(items))
    for item in items:
        assembler.feed(item)
    assembler.flush()
    kinds = Counter(item.kind for item in items)
    habits = assembler.habits
    records = records_of(source)
    shapes = Counter(" + ".join(sorted(record_fields(r))) for r in records).most_common(1)
    lines = [
        f"{len(items)} logical lines: "
        + ", ".join(f"{count} {kind}" for kind, count in kinds.most_common()),
        "habits: "
        + (
            f"titles in h{', h'.join(map(str, sorted(habits.title_headings)))}; "
            if habits.title_headings
            else ""
        )
        + ("authors before the title; " if habits.authors_first else "authors after the title; ")
        + ("badges lead a paper" if habits.facts_lead else "badges trail a paper"),
    ]
    if shapes:
        lines.append(f"usual record: {shapes[0][0]} ({shapes[0][1]} of {len(records)} records)")
    dropped = len(assembler.records) - len(records)
    left_out = line_ranges(sorted(set(assembler.chrome)))
    lines.append(
        f"left out as page furniture: {len(set(assembler.chrome))} lines ({left_out or 'none'})"
        + (f"; {dropped} bare records around or between the papers" if dropped else "")
    )
    return lines


def line_ranges(numbers: list[int], limit: int = 8) -> str:
    """`1-4, 9, 12-15`, the first `limit` runs of a sorted list of line numbers."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number <= runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:limit]]
    return ", ".join(shown) + (", …" if len(runs) > limit else "")


def style_of(piece: Piece) -> str:
    if piece.heading:
        return piece.tag
    if piece.strong or piece.emphasis or piece.linked:
        return "strong" if piece.strong else "emphasis" if piece.emphasis else "linked"
    return "li" if piece.tag == "li" else "plain"


def without_off_style_titles(records: list[RawRecord], styles: list[str]) -> list[RawRecord]:
    """In a list of bare titles, where nearly all are set alike (bold, linked, a list item),
    a line set otherwise is the page's own prose (an intro, a note), not a title."""
    bare = [style for r, style in zip(records, styles, strict=True) if _is_bare(r)]
    if len(bare) < 5 or len(bare) < 0.8 * len(records):
        return records
    usual, count = Counter(bare).most_common(1)[0]
    if usual == "plain" or count < 0.8 * len(bare):
        return records
    return [r for r, style in zip(records, styles, strict=True) if style == usual]


def _is_bare(record: RawRecord) -> bool:
    return not record.authors and not record.abstract


def without_stray_records(records: list[RawRecord]) -> list[RawRecord]:
    """Where most records have authors or an abstract, a bare line that made a record of its
    own is a menu entry or a heading the page left in, not a paper."""
    records = without_page_frame(records)
    if not records:
        return records
    full = sum(1 for r in records if r.authors or r.abstract)
    if full < 0.6 * len(records):
        return [r for r in records if not (r.title and is_chrome(r.title))]
    return [r for r in records if r.authors or r.abstract]


def without_page_frame(records: list[RawRecord]) -> list[RawRecord]:
    """The papers of a page share one shape (say title, authors and abstract). Where nearly
    every record from the first of that shape to the last has it, the records above and below
    with fewer fields are the page's frame (menus, a footer), not papers."""
    shapes = [record_fields(r) for r in records]
    usual = Counter(s for s in shapes if len(s) >= 2).most_common(1)
    if not usual or usual[0][1] < 3:
        return records
    shape = usual[0][0]
    at = [i for i, s in enumerate(shapes) if s >= shape]
    if len(at) < 0.8 * (at[-1] - at[0] + 1):
        return records
    return [
        r
        for i, (r, s) in enumerate(zip(records, shapes, strict=True))
        if at[0] <= i <= at[-1] or s >= shape
    ]


__all__ = ["describe", "read", "sniff"]

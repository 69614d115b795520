"""What every reader takes (a decoded source text) and gives (raw records that keep their lines)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from ..diagnostics import SourceLoc


@dataclass(frozen=True)
class SourceText:
    """A source decoded to text with `\\n` line ends.

    `line_map[i]` is the file line of text line i+1: an HTML source's text lines come from
    elements spread over the file."""

    path: str
    text: str
    line_map: tuple[int, ...] | None = None
    html: str | None = None  # the page itself, when the source was HTML

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def filled_lines(self) -> tuple[str, ...]:
        """The lines stripped, blank ones left out: what sniffers judge. Made once, as each
        sniffer goes through the whole text."""
        return tuple(stripped for line in self.text.split("\n") if (stripped := line.strip()))

    def file_line(self, text_line: int) -> int:
        if self.line_map is None or not 1 <= text_line <= len(self.line_map):
            return text_line
        return self.line_map[text_line - 1]

    def loc(self, first: int, last: int | None = None) -> SourceLoc:
        start = self.file_line(first)
        end = self.file_line(last) if last is not None else start
        return SourceLoc(self.path, start, max(start, end))


@dataclass(frozen=True)
class RawRecord:
    """One paper as a dump states it: syntax removed, nothing cleaned up or inferred yet."""

    loc: SourceLoc
    title: str | None = None
    authors: tuple[str, ...] = ()
    # Parallel to `authors` ("" where a name has none); empty when the dump states none.
    affiliations: tuple[str, ...] = ()
    abstract: tuple[str, ...] = ()  # paragraphs
    links: tuple[str, ...] = ()  # URLs the dump gives for the paper (page, forum, PDF, code)
    keywords: tuple[str, ...] = ()
    presentation: str | None = None
    decision: str | None = None
    attendance: str | None = None
    awards: tuple[str, ...] = ()
    session: str | None = None
    room: str | None = None


@dataclass(frozen=True)
class Line:
    """A non-blank line: its 1-based number, its stripped text, the blank lines before it."""

    number: int
    text: str
    gap: int


def content_lines(source: SourceText) -> list[Line]:
    result: list[Line] = []
    blanks = 0
    for number, raw in enumerate(source.lines, start=1):
        text = raw.strip()
        if not text:
            blanks += 1
            continue
        result.append(Line(number, text, blanks))
        blanks = 0
    return result


# The record fields a source's `fields` setting can map to an export's own column names.
MAPPABLE_FIELDS = (
    "title",
    "authors",
    "affiliations",
    "abstract",
    "links",
    "keywords",
    "session",
    "presentation",
    "decision",
    "attendance",
    "awards",
    "room",
)


@dataclass(frozen=True)
class ReadOptions:
    """What a source's settings tell its reader: `fields` maps a record field to the column or
    key that holds it, for the rare export whose names cannot be guessed."""

    fields: tuple[tuple[str, str], ...] = ()

    def field_name(self, record_field: str) -> str | None:
        return dict(self.fields).get(record_field)


NO_OPTIONS = ReadOptions()


class ReaderWarning(UserWarning):
    """A located problem a reader met and read past (an entry it had to skip). Readers return
    records only, so they report these with `warnings.warn`; the registry collects them into
    the build's warnings, where `--strict` applies to them."""

    def __init__(self, loc: SourceLoc, message: str) -> None:
        super().__init__(f"{loc}: {message}")
        self.loc = loc
        self.message = message


class Reader(Protocol):
    """A dump format: `sniff` rates how much a source looks like it (0..1), `read` parses it."""

    name: str
    description: str
    carries: tuple[str, ...]  # which of title/authors/abstract the format can state
    # Optional `always_states`: the fields every dump of the format states (default: carries);
    # a reading where every record lacks one is reported as implausible.

    def sniff(self, source: SourceText) -> float: ...

    def read(self, source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]: ...


@dataclass
class RecordDraft:
    """A record being assembled line by line by a reader."""

    first_line: int | None = None
    last_line: int | None = None
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    affiliations: list[str] = field(default_factory=list)
    abstract: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    awards: list[str] = field(default_factory=list)

    def touch(self, line: Line) -> None:
        if self.first_line is None:
            self.first_line = line.number
        self.last_line = line.number

    @property
    def has_content(self) -> bool:
        return self.title is not None or bool(self.authors) or bool(self.abstract)

    @property
    def is_empty(self) -> bool:
        return self.first_line is None

    def build(self, source: SourceText, page_facts: dict[str, str]) -> RawRecord:
        assert self.first_line is not None and self.last_line is not None
        facts = {**page_facts, **self.facts}
        return RawRecord(
            loc=source.loc(self.first_line, self.last_line),
            title=self.title,
            authors=tuple(self.authors),
            affiliations=tuple(self.affiliations) if any(self.affiliations) else (),
            abstract=tuple(self.abstract),
            links=tuple(dict.fromkeys(self.links)),
            awards=tuple(self.awards),
            presentation=facts.get("presentation"),
            decision=facts.get("decision"),
            attendance=facts.get("attendance"),
            session=facts.get("session"),
            room=facts.get("room"),
        )


def record_fields(record: RawRecord) -> frozenset[str]:
    """Which of title, authors and abstract a record states."""
    fields = {"title": record.title, "authors": record.authors, "abstract": record.abstract}
    return frozenset(name for name, value in fields.items() if value)


def fields_stated(reader: Reader, records: Iterable[RawRecord]) -> set[str]:
    """The fields a source could have stated for each paper: its format carries them and it
    states them for some of its records (a list of titles alone lacks no authors)."""
    stated = frozenset().union(*map(record_fields, records))
    return {name for name in reader.carries if name in stated}

"""Shared parsing for program pages copied from a conference's virtual site (sessions, awards).

Such a page is a run of one-line fields: optional marker lines (a presentation header, a badge,
an award), then title, authors (` · `-separated) and abstract paragraphs. Any field can be
missing, so each line is classified by what it looks like and where it stands, never by counting.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from ..diagnostics import ConfsiteError
from .base import Line, RawRecord, RecordDraft, SourceText

AUTHOR_SEPARATOR = re.compile(r"\s+·\s+")
AWARD_LINE = re.compile(
    r"^(?:Outstanding Paper(?: Award)?|Honou?rable Mention|Best (?:Student )?Paper(?: Award)?"
    r"|Test of Time(?: Award)?)$",
    re.IGNORECASE,
)
ATTENDANCE_MARKER = re.compile(r"^\[\s*(Virtual|In[- ]Person)\s*\]$", re.IGNORECASE)
SESSION_LINE = re.compile(r"^(?:[A-Z][\w-]*\s+){0,3}Session\s+[\w.-]+$")
SITE_CHROME = frozenset(
    {
        "Skip to yearly menu bar Skip to main content",
        "Chat is not available.",
    }
)

# A short line made only of name-like words, right after a title, is a single author rather
# than the next title, unless it holds words of titles. Function words count only where a title
# would write them (lowercase, or first): "An" and "To" are also family names ("Bo An").
FUNCTION_WORDS = frozenset(
    "a an the of for and or in on with via to from by is are at as not we our its".split()
)
TITLE_WORDS = frozenset(
    """using towards toward beyond without learning model models network networks neural deep
    data graph graphs language modeling attention transformer transformers diffusion
    optimization generative reinforcement training inference representation representations
    robust efficient adversarial visual video image images text policy""".split()
)
BRACKETS = re.compile(r"[()]")
MAX_NAME_LENGTH = 60
NAME_WORD = re.compile(r"^(?:[^\W\d_]\.)+$|^[^\W\d_][^\W\d_'’.-]*(?:['’.-][^\W\d_]+)*\.?$")


def split_authors(text: str) -> list[str]:
    return [name for name in AUTHOR_SEPARATOR.split(text) if name]


def is_author_list(text: str) -> bool:
    if "·" not in text:  # most lines: spared the pattern's scan of a long abstract
        return False
    names = AUTHOR_SEPARATOR.split(text)
    return len(names) >= 2 and all(0 < len(name) <= 80 for name in names)


def is_prose(text: str) -> bool:
    """An abstract rather than a title: long, or many words (CJK text has no spaces between
    words, so its wide characters count)."""
    if len(text) >= 200 or len(text.split()) >= 25:
        return True
    if text.isascii():  # no wide characters: spares the look-up of each one
        return False
    return sum(1 for ch in text if unicodedata.east_asian_width(ch) in "WF") >= 40


def looks_like_person(text: str) -> bool:
    words = text.split()
    if not 1 <= len(words) <= 5 or len(text) > MAX_NAME_LENGTH:
        return False
    return all(_is_name_word(word.strip("()\"“”'"), i) for i, word in enumerate(words))


def _is_name_word(word: str, position: int) -> bool:
    """A word of a personal name: "Xiao", "(Gary)", "A" as a middle initial, "An" as a family
    name; not "of", not a leading "A", not "Learning"."""
    if not _name_shaped(word):
        return False
    if word.lower() in FUNCTION_WORDS:
        return position > 0 and word[0].isupper()
    return True


def _name_shaped(word: str) -> bool:
    """Written as a name's word is, and none of a title's words."""
    return bool(NAME_WORD.match(word)) and word.lower() not in TITLE_WORDS


@dataclass(frozen=True)
class Marker:
    """A line that carries facts instead of a field; `starts_record` ends the previous record."""

    facts: dict[str, str] = field(default_factory=dict)
    awards: tuple[str, ...] = ()
    starts_record: bool = False


def award_marker(text: str, starts_record: bool) -> Marker | None:
    if AWARD_LINE.match(text):
        return Marker(awards=(text,), starts_record=starts_record)
    return None


def attendance_marker(text: str) -> Marker | None:
    match = ATTENDANCE_MARKER.match(text)
    if match is None:
        return None
    kind = match.group(1).lower()
    return Marker(facts={"attendance": "virtual" if kind == "virtual" else "in person"})


MarkerFunction = Callable[[str], Marker | None]


@dataclass
class ProgramAssembler:
    """Turns classified lines into records; see the module docstring for the shape it expects."""

    source: SourceText
    marker: MarkerFunction
    page_facts: dict[str, str] = field(default_factory=dict)
    records: list[RawRecord] = field(default_factory=list)
    draft: RecordDraft = field(default_factory=RecordDraft)

    def flush(self) -> None:
        if self.draft.is_empty:
            return
        if not self.draft.has_content:
            assert self.draft.first_line is not None
            raise ConfsiteError(
                self.source.loc(self.draft.first_line),
                "truncated record: a header with no title, authors or abstract after it",
            )
        self.records.append(self.draft.build(self.source, self.page_facts))
        self.draft = RecordDraft()

    def feed(self, line: Line, next_line: Line | None) -> None:
        marker = self.marker(line.text)
        if marker is not None:
            self._mark(line, marker)
        elif is_author_list(line.text):
            self._authors(line, split_authors(line.text))
        elif is_prose(line.text):
            self._prose(line)
        else:
            self._short(line, next_line)

    def _mark(self, line: Line, marker: Marker) -> None:
        if marker.starts_record and self.draft.has_content:
            self.flush()
        self.draft.touch(line)
        self.draft.facts.update(marker.facts)
        self.draft.awards.extend(a for a in marker.awards if a not in self.draft.awards)

    def _authors(self, line: Line, names: list[str]) -> None:
        if self.draft.authors or self.draft.abstract:
            self.flush()
        self.draft.touch(line)
        self.draft.authors = names

    def _prose(self, line: Line) -> None:
        self.draft.touch(line)
        self.draft.abstract.append(line.text)

    def _short(self, line: Line, next_line: Line | None) -> None:
        draft = self.draft
        if draft.authors or draft.abstract:
            self.flush()
        elif draft.title is not None:
            if looks_like_person(line.text) or _lone_author(line, next_line):
                draft.touch(line)
                draft.authors = [line.text]
                return
            self.flush()
        elif self._title_slot_skipped(line, next_line):
            self.draft.touch(line)
            self.draft.authors = [line.text]
            return
        self.draft.touch(line)
        self.draft.title = line.text

    def _title_slot_skipped(self, line: Line, next_line: Line | None) -> bool:
        """A lone name after an extra blank line, followed by an abstract: the title is missing."""
        return (
            line.gap >= 2
            and looks_like_person(line.text)
            and next_line is not None
            and is_prose(next_line.text)
        )

    def run(self, lines: list[Line]) -> list[RawRecord]:
        for index, line in enumerate(lines):
            self.feed(line, lines[index + 1] if index + 1 < len(lines) else None)
        self.flush()
        return self.records


def _lone_author(line: Line, next_line: Line | None) -> bool:
    """One author between a title and its abstract, written as `looks_like_person` takes for
    a title's words: an initial "A" ("A Schmidt"), "Or Patashnik", lower case ("xiang an"),
    a nickname in brackets ("Shenyang(Andy) Huang")."""
    if next_line is None or not is_prose(next_line.text) or len(line.text) > MAX_NAME_LENGTH:
        return False
    words = BRACKETS.sub(" ", line.text).split()
    return 2 <= len(words) <= 4 and all(map(_name_shaped, words))


def split_page_header(
    lines: list[Line], is_record_start: Callable[[str], bool]
) -> tuple[dict[str, str], list[Line]]:
    """Separate the page chrome and session heading from the records.

    The header runs up to the last chrome line near the top (the virtual site prints the session
    name and room there), or else up to the first record marker.
    """
    head_end = 0
    for index, line in enumerate(lines[:20]):
        if line.text in SITE_CHROME:
            head_end = index + 1
    if head_end == 0:
        while head_end < len(lines) and not is_record_start(lines[head_end].text):
            if not SESSION_LINE.match(lines[head_end].text):
                break
            head_end += 1
    facts: dict[str, str] = {}
    after_session = False
    for line in lines[:head_end]:
        if line.text in SITE_CHROME:
            continue
        if SESSION_LINE.match(line.text) and "session" not in facts:
            facts["session"] = line.text
            after_session = True
        elif after_session and "room" not in facts and len(line.text) <= 40:
            facts["room"] = line.text
    return facts, lines[head_end:]


def header_line_ratio(source: SourceText, pattern: re.Pattern[str]) -> float:
    """How many records a page has per author line, judged by lines matching `pattern`."""
    lines = source.filled_lines
    authors = sum(1 for line in lines if is_author_list(line))
    markers = sum(1 for line in lines if pattern.match(line))
    if authors == 0:
        return 0.0
    return min(1.0, markers / authors)

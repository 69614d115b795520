"""Signs that a reader read a file that is not in its format: titles that are header rows, menu
items, dates, counts or author lists; giant abstracts; text left outside every record; far
fewer records than the file's repeated lines; a field the format carries missing everywhere.

A reader picked by `format:` (or by a close sniff) reads almost anything without an error, so a
wrong pick would otherwise go unnoticed; each sign is a located warning (`--strict` fails).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

from ..diagnostics import Problem, SourceLoc
from .base import RawRecord, Reader, SourceText, record_fields
from .program import AUTHOR_SEPARATOR, is_author_list, looks_like_person

KIND = "implausible"
MAX_ABSTRACT_CHARS = 20_000
MIN_COVERED_SHARE = 0.5  # of the file's non-blank characters, inside some record's lines
MIN_REPEATED_LINES = 10  # a line shape seen this often is the file's evident repetition...
REPEATS_PER_RECORD = 4  # ...and a reading with fewer than 1 record per this many is suspect
SHOWN_PER_SIGN = 3  # located warnings per sign and source; the rest are counted in one more

COLUMN_WORDS = frozenset(
    """title titles paper papers author authors abstract abstracts keyword keywords session
    sessions track id url link links pdf year venue affiliation affiliations decision name names
    type topic room date award awards""".split()
)
CHROME_WORDS = frozenset(
    """login logout signin signup register home schedule menu search sponsors sponsor subscribe
    contact about faq help calendar navigation cookies privacy log sign in out up skip to main
    content back top next previous more""".split()
)
WEAK_CHROME_WORDS = frozenset("log sign in out up skip to main content back top next more".split())
WORD = re.compile(r"[^\W_]+")
BULLETS = re.compile(r"^[\s\-–—•*·]+|[\s.:;]+$")
MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
DATE = re.compile(
    rf"^(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
    rf"(?:\d{{4}}(?:-\d{{1,2}}-\d{{1,2}})?|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}"
    rf"|{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|\d{{1,2}}\s+{MONTH}(?:\s+\d{{4}})?"
    rf"|{MONTH}\s+\d{{4}})$",
    re.IGNORECASE,
)
COUNT = re.compile(
    r"^\d[\d,.]*\s*[km]?(?:\s+(?:authors?|upvotes?|votes?|comments?|papers?|citations?|stars?"
    r"|views?|likes?|downloads?|results?|replies|reviews?|points?|followers?))?$"
    r"|^page\s+\d+\s+of\s+\d+$|^\d+\s*/\s*\d+$",
    re.IGNORECASE,
)
HEADING = re.compile(r"^#{1,6}\s+\S")
LIST_ITEM = re.compile(r"^(?:[-*+•]|\d{1,4}[.)])\s+\S")
DELIMITERS = {"\t": "tab", "|": "'|'"}


def implausible_reading(
    source: SourceText, records: tuple[RawRecord, ...], reader: Reader
) -> tuple[Problem, ...]:
    """Every sign, as warnings located at the record (or the file) that shows it."""
    signs = [
        *title_signs(records),
        *abstract_signs(records),
        *coverage_signs(source, records),
        *repetition_signs(source, records),
        *missing_field_signs(source, records, reader),
    ]
    advice = (
        f"read as {reader.name}: if that is not this file's format, set 'format' for it in "
        "site.yaml, or write a reader"
    )
    return tuple(Problem("warning", KIND, loc, f"{message} ({advice})") for loc, message in signs)


Sign = tuple[SourceLoc, str]


# --- titles ----------------------------------------------------------------------------------


def header_row(title: str) -> bool:
    words = WORD.findall(title.lower())
    return bool(words) and all(word in COLUMN_WORDS for word in words)


def page_chrome(title: str) -> bool:
    words = WORD.findall(title.lower())
    return (
        0 < len(words) <= 6
        and all(word in CHROME_WORDS for word in words)
        and any(word not in WEAK_CHROME_WORDS for word in words)
    )


def date(title: str) -> bool:
    return bool(DATE.match(BULLETS.sub("", title)))


def count(title: str) -> bool:
    return bool(COUNT.match(BULLETS.sub("", title)))


def author_list(title: str) -> bool:
    return is_author_list(title) and all(
        looks_like_person(name) for name in AUTHOR_SEPARATOR.split(title)
    )


TITLE_SIGNS: tuple[tuple[Callable[[str], bool], str], ...] = (
    (header_row, "a header row of column names"),
    (page_chrome, "a menu or page-chrome item"),
    (date, "a date"),
    (count, "a count"),
    (author_list, "an author list"),
)


def title_signs(records: tuple[RawRecord, ...]) -> Iterator[Sign]:
    titled = [record for record in records if record.title]
    for looks_like, what in TITLE_SIGNS:
        odd = [record for record in titled if looks_like(record.title or "")]
        yield from capped(odd, lambda record, what=what: f"title {record.title!r} is {what}")
    author_lists = {names_key(record.authors): record for record in records}
    repeated = [
        (record, author_lists[key])
        for record in titled
        if len(key := names_key(split_names(record.title or ""))) >= 2 and key in author_lists
    ]
    yield from capped(
        repeated,
        lambda pair: (
            f"title {pair[0].title!r} repeats the author list of the record at {pair[1].loc}"
        ),
    )


def split_names(text: str) -> list[str]:
    return re.split(r"\s+·\s+|,\s+|\s+and\s+", text)


def names_key(names: tuple[str, ...] | list[str]) -> frozenset[str]:
    return frozenset(" ".join(WORD.findall(name.casefold())) for name in names)


def capped(items: list, message: Callable[[object], str]) -> Iterator[Sign]:
    """One sign per item, at most SHOWN_PER_SIGN; the rest counted in the last one."""
    for item in items[:SHOWN_PER_SIGN]:
        yield location(item), message(item)
    if len(items) > SHOWN_PER_SIGN:
        rest = items[SHOWN_PER_SIGN:]
        yield location(rest[0]), f"and {len(rest)} more like it: {message(rest[0])}"


def location(item: object) -> SourceLoc:
    record = item[0] if isinstance(item, tuple) else item
    assert isinstance(record, RawRecord)
    return record.loc


# --- abstracts -------------------------------------------------------------------------------


def abstract_signs(records: tuple[RawRecord, ...]) -> Iterator[Sign]:
    long = [record for record in records if abstract_length(record) > MAX_ABSTRACT_CHARS]
    yield from capped(
        long,
        lambda record: (
            f"abstract of {abstract_length(record):,} characters (over "
            f"{MAX_ABSTRACT_CHARS:,}): likely the text of many papers read as one"
        ),
    )


def abstract_length(record: RawRecord) -> int:
    return sum(len(paragraph) for paragraph in record.abstract)


# --- how much of the file the records hold ---------------------------------------------------


def coverage_signs(source: SourceText, records: tuple[RawRecord, ...]) -> Iterator[Sign]:
    share = covered_share(source, records)
    if share < MIN_COVERED_SHARE:
        yield (
            source.loc(1),
            f"only {share:.0%} of the file's text is inside the {len(records)} records read; "
            "the rest was skipped",
        )


def covered_share(source: SourceText, records: tuple[RawRecord, ...]) -> float:
    """The share of the file's non-blank characters on lines inside some record's line range."""
    starts, ends = merged_ranges(records)
    total = covered = 0
    for number, line in enumerate(source.lines, start=1):
        characters = non_blank_length(line)
        total += characters
        file_line = source.file_line(number)
        at = bisect_right(starts, file_line) - 1
        if at >= 0 and file_line <= ends[at]:
            covered += characters
    return covered / total if total else 1.0


def non_blank_length(line: str) -> int:
    """How many characters are not white space (as `split()` drops them); printable text's only
    white space is the space, counted without making a string of every word."""
    if line.isprintable():
        return len(line) - line.count(" ")
    return sum(map(len, line.split()))


def merged_ranges(records: tuple[RawRecord, ...]) -> tuple[list[int], list[int]]:
    starts: list[int] = []
    ends: list[int] = []
    spans = sorted((r.loc.line or 1, r.loc.end_line or r.loc.line or 1) for r in records)
    for start, end in spans:
        if ends and start <= ends[-1] + 1:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


# --- records against the file's evident repetition -------------------------------------------


def repetition_signs(source: SourceText, records: tuple[RawRecord, ...]) -> Iterator[Sign]:
    lines = source.filled_lines
    for what, repeats in line_shapes(lines):
        if repeats >= MIN_REPEATED_LINES and len(records) * REPEATS_PER_RECORD < repeats:
            yield (
                source.loc(1),
                f"{len(records)} records read from a file with {repeats} {what}: "
                "far fewer records than the file's repetition suggests",
            )
            return


def line_shapes(lines: Sequence[str]) -> Iterator[tuple[str, int]]:
    """(what, how many): the kinds of line a dump repeats once or twice per paper."""
    yield "author lines (names separated by ' · ')", sum(map(is_author_list, lines))
    yield "Markdown headings", sum(1 for line in lines if HEADING.match(line))
    yield "list items", sum(1 for line in lines if LIST_ITEM.match(line))
    for delimiter, name in DELIMITERS.items():
        fields = Counter(line.count(delimiter) for line in lines if delimiter in line)
        if fields:
            separators, rows = fields.most_common(1)[0]
            yield f"rows of {separators + 1} {name}-separated fields", rows


# --- fields the format carries ---------------------------------------------------------------


def missing_field_signs(
    source: SourceText, records: tuple[RawRecord, ...], reader: Reader
) -> Iterator[Sign]:
    if len(records) < 2:
        return  # one record without a field is reported as such (untitled, no-abstract)
    stated = frozenset().union(*map(record_fields, records))
    for field_name in getattr(reader, "always_states", reader.carries):
        if field_name not in stated:
            yield (
                source.loc(1),
                f"none of the {len(records)} records has {field_name}, which every "
                f"{reader.name} dump states",
            )

"""Paper cards: `=== paper N` opens a card; `Title:`, `Authors:` (separated by ';') and
`Abstract:` lines follow, and indented lines continue the abstract."""

from __future__ import annotations

import re

from confsite.diagnostics import ConfsiteError
from confsite.readers.base import (
    NO_OPTIONS,
    RawRecord,
    ReadOptions,
    RecordDraft,
    SourceText,
    content_lines,
)

name = "paper-cards"
description = "paper cards: '=== paper N', then 'Title:', 'Authors:' and 'Abstract:' lines"
carries = ("title", "authors", "abstract")

CARD = re.compile(r"^=== paper\b")
FIELD = re.compile(r"^(?P<key>Title|Authors|Abstract):\s*(?P<value>.*)$")


def sniff(source: SourceText) -> float:
    """The share of non-blank lines that open a card or hold one of its fields."""
    lines = [line.strip() for line in source.lines if line.strip()]
    if not any(CARD.match(line) for line in lines):
        return 0.0
    ours = sum(1 for line in lines if CARD.match(line) or FIELD.match(line))
    return ours / len(lines)


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    records: list[RawRecord] = []
    draft: RecordDraft | None = None
    for line in content_lines(source):
        if CARD.match(line.text):
            if draft is not None:
                records.append(draft.build(source, {}))
            draft = RecordDraft()
            draft.touch(line)
            continue
        if draft is None:
            continue  # the file's heading, before the first card
        draft.touch(line)
        add_line(draft, line.text, source.lines[line.number - 1], source, line.number)
    if draft is not None:
        records.append(draft.build(source, {}))
    return records


def add_line(draft: RecordDraft, text: str, raw: str, source: SourceText, number: int) -> None:
    field = FIELD.match(text)
    if field is None:
        if raw.startswith((" ", "\t")) and draft.abstract:
            draft.abstract[-1] += " " + text  # an indented line continues the abstract
            return
        raise ConfsiteError(source.loc(number), "expected 'Title:', 'Authors:' or 'Abstract:'")
    key, value = field["key"], field["value"].strip()
    if key == "Title":
        draft.title = value or None
    elif key == "Authors":
        draft.authors = [author.strip() for author in value.split(";") if author.strip()]
    elif value:
        draft.abstract.append(value)

"""The Markdown paper list: a `##` heading per paper, then list items for authors and abstract.

## [Title](#)
- Author One, Author Two
- abstract@[open-review\\(Poster\\)](#): First paragraph ...

Further paragraphs ...
"""

from __future__ import annotations

import re

from ..diagnostics import ConfsiteError
from .base import NO_OPTIONS, Line, RawRecord, ReadOptions, RecordDraft, SourceText, content_lines

name = "markdown-list"
description = "Markdown list: '## title', '- authors', '- abstract@[open-review(TYPE)]: ...'"
carries = ("title", "authors", "abstract")

HEADING = re.compile(r"^##\s+(?P<title>.*?)\s*#*$")
LINKED_TITLE = re.compile(r"^\[(?P<title>.*)\]\((?P<url>[^()\s]*)\)$")
ABSTRACT_ITEM = re.compile(
    r"^-\s+abstract@(?:\[open-review\\?\((?P<kind>[^)\\]*)\\?\)\]\([^)]*\)"
    r"|open-review\((?P<kind2>[^)]*)\))\s*:\s?(?P<text>.*)$"
)
LIST_ITEM = re.compile(r"^[-*+]\s+(?P<text>.*)$")
# The dump's Markdown writer escaped these, sometimes twice (`\\$` for `$`); TeX escapes such as
# `\%`, `\{` and `\|` are not among them and are kept for the renderer.
MARKDOWN_ESCAPE = re.compile(r"\\(?:\\)?([$_*()#`])")
DOUBLED_BACKSLASH = re.compile(r"\\\\(?=[A-Za-z])")


def unescape_markdown(text: str) -> str:
    previous = None
    while previous != text:
        previous = text
        text = MARKDOWN_ESCAPE.sub(r"\1", text)
    if "$$" in text or "\\$" in previous:
        text = DOUBLED_BACKSLASH.sub(r"\\", text)
    return text


def sniff(source: SourceText) -> float:
    lines = source.filled_lines
    if not lines:
        return 0.0
    headings = sum(1 for line in lines if HEADING.match(line))
    items = sum(1 for line in lines if LIST_ITEM.match(line))
    if headings == 0 or items > 3 * headings:  # sections holding lists, not a heading a paper
        return 0.0
    bonus = 0.2 if any(ABSTRACT_ITEM.match(line) for line in lines) else 0.0
    return min(1.0, 0.8 * (headings + items) / len(lines) + bonus)


class _Assembler:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.records: list[RawRecord] = []
        self.draft: RecordDraft | None = None

    def flush(self) -> None:
        if self.draft is not None and not self.draft.is_empty:
            self.records.append(self.draft.build(self.source, {}))
        self.draft = None

    def feed(self, line: Line) -> None:
        heading = HEADING.match(line.text)
        if heading:
            self.flush()
            self.draft = RecordDraft()
            self.draft.touch(line)
            title = heading["title"]
            linked = LINKED_TITLE.match(title)
            title = unescape_markdown(linked["title"] if linked else title).strip()
            self.draft.title = title or None
            return
        if self.draft is None:
            return  # page text before the first paper
        self.draft.touch(line)
        if line.text.startswith("- abstract@"):
            self._abstract_item(line)
        elif (item := LIST_ITEM.match(line.text)) and not self.draft.authors:
            names = unescape_markdown(item["text"]).split(",")
            self.draft.authors = [name.strip() for name in names if name.strip()]
        else:
            self.draft.abstract.append(unescape_markdown(line.text))

    def _abstract_item(self, line: Line) -> None:
        assert self.draft is not None
        match = ABSTRACT_ITEM.match(line.text)
        if match is None:
            raise ConfsiteError(
                self.source.loc(line.number),
                "truncated abstract line: expected '- abstract@[open-review(TYPE)](...): text'",
            )
        kind = (match["kind"] or match["kind2"] or "").strip()
        if kind:
            self.draft.facts["presentation"] = kind
        text = unescape_markdown(match["text"]).strip()
        if text:
            self.draft.abstract.append(text)


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    assembler = _Assembler(source)
    for line in content_lines(source):
        assembler.feed(line)
    assembler.flush()
    return assembler.records

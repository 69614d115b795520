"""The paper-listing page (trending papers): a title line then an abstract line, nothing else.

Get trending papers in your email inbox!
SubscribeTitle of the first paper
Abstract ...
"""

from __future__ import annotations

import re

from .base import NO_OPTIONS, RawRecord, ReadOptions, RecordDraft, SourceText, content_lines
from .program import is_author_list, is_prose

name = "paper-listing"
description = "paper listing: title line, abstract line, repeated (trending-papers pages)"
carries = ("title", "abstract")

PAGE_CHROME = re.compile(r"^Get trending papers in your email inbox.*$|^Subscribe$", re.IGNORECASE)
# The page's "Subscribe" button text ends up glued to the first title.
GLUED_BUTTON = re.compile(r"^Subscribe(?=[A-Z0-9])")


def sniff(source: SourceText) -> float:
    lines = source.filled_lines
    if len(lines) < 2 or any(is_author_list(line) or line.startswith("## ") for line in lines):
        return 0.0
    prose = [is_prose(line) for line in lines]  # each line judged once, not once per pair
    pairs = sum(1 for first, second in zip(prose, prose[1:], strict=False) if second and not first)
    return min(1.0, 2 * pairs / len(lines))


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    records: list[RawRecord] = []
    draft = RecordDraft()
    for line in content_lines(source):
        if PAGE_CHROME.match(line.text):
            continue
        if is_prose(line.text):
            draft.touch(line)
            draft.abstract.append(line.text)
            continue
        if not draft.is_empty:
            records.append(draft.build(source, {}))
            draft = RecordDraft()
        draft.touch(line)
        draft.title = GLUED_BUTTON.sub("", line.text) if not records else line.text
    if not draft.is_empty:
        records.append(draft.build(source, {}))
    return records

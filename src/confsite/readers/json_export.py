"""JSON exports: an array of paper objects (or an object holding one, or an object of papers
keyed by id), and JSON Lines, one paper object per line. Each record keeps the lines its
object spans."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import PurePath
from typing import Any

from ..diagnostics import ConfsiteError
from .base import NO_OPTIONS, RawRecord, ReadOptions, SourceText
from .documents import find_paper_list
from .fields import records_from_mappings

DECODER = json.JSONDecoder()
WHITESPACE = re.compile(r"[ \t\n\r]*")
SNIFF_CHARS = 64 * 1024
CARRIES = ("title", "authors", "abstract")


def _suffix(source: SourceText) -> str:
    return PurePath(source.path).suffix.lower()


@dataclass(frozen=True)
class LineIndex:
    """Text offsets to 1-based line numbers."""

    newlines: tuple[int, ...]

    @staticmethod
    def of(text: str) -> LineIndex:
        return LineIndex(tuple(match.start() for match in re.finditer("\n", text)))

    def line(self, offset: int) -> int:
        return bisect.bisect_left(self.newlines, offset) + 1


def _parse(source: SourceText) -> Any:
    try:
        return json.loads(source.text)
    except json.JSONDecodeError as err:
        raise ConfsiteError(
            source.loc(err.lineno), f"invalid JSON: {err.msg} (column {err.colno})"
        ) from None


def _skip(text: str, offset: int) -> int:
    return WHITESPACE.match(text, offset).end()


def _members(text: str, start: int) -> Iterator[tuple[str | None, int, int]]:
    """(key, start, end offset) of each element of the valid JSON array or object opening at
    `start` (key None in an array). json.loads keeps no offsets, so the elements are decoded
    again one by one, each from where the previous one ended."""
    closing = "]" if text[start] == "[" else "}"
    offset = _skip(text, start + 1)
    while text[offset] != closing:
        key = None
        if closing == "}":
            key, offset = DECODER.raw_decode(text, offset)
            offset = _skip(text, _skip(text, offset) + 1)  # past the colon
        _, end = DECODER.raw_decode(text, offset)
        yield key, offset, end
        offset = _skip(text, end)
        if text[offset] == ",":
            offset = _skip(text, offset + 1)


class JsonReader:
    name = "json"
    description = "JSON: an array of paper objects, or an object holding one"
    carries = CARRIES
    always_states = ("title",)

    def sniff(self, source: SourceText) -> float:
        by_extension = _suffix(source) == ".json"
        if source.text.lstrip()[:1] not in ("[", "{"):
            return 0.6 if by_extension else 0.0
        try:
            find_paper_list(json.loads(source.text), NO_OPTIONS, source.loc(1))
        except (ValueError, ConfsiteError):
            # A broken .json is still ours, so that reading it says where it breaks; JSON Lines
            # saved as .json scores higher with its own reader.
            return 0.6 if by_extension else 0.0
        return 0.95 if by_extension else 0.9

    def read(self, source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
        text = source.text
        lines = LineIndex.of(text)
        start = _skip(text, 0)
        papers = find_paper_list(_parse(source), options, source.loc(lines.line(start)))
        for key in papers.path:  # json.loads keeps the last of repeated keys; so does this
            start = [offset for name, offset, _ in _members(text, start) if name == key][-1]
        spans = [(first, end) for _, first, end in _members(text, start)]
        locs = [source.loc(lines.line(first), lines.line(end - 1)) for first, end in spans]
        return records_from_mappings(papers.items, locs, options, source.loc(lines.line(start)))


class JsonLinesReader:
    name = "jsonl"
    description = "JSON Lines: one paper object per line"
    carries = CARRIES
    always_states = ("title",)

    def sniff(self, source: SourceText) -> float:
        if _suffix(source) in (".jsonl", ".ndjson"):
            return 0.95
        sample = source.text[:SNIFF_CHARS].split("\n")
        if len(source.text) > SNIFF_CHARS:
            sample = sample[:-1]  # cut short by the sample
        lines = list(islice((line for line in sample if line.strip()), 20))
        try:
            objects = [json.loads(line) for line in lines]
        except ValueError:
            return 0.0
        if not objects or not all(isinstance(item, dict) for item in objects):
            return 0.0
        # One object alone is as much a JSON document: a .json file of it goes to that reader.
        return 0.85 if len(objects) > 1 else 0.55

    def read(self, source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
        items, locs = [], []
        for number, line in enumerate(source.lines, start=1):
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise ConfsiteError(
                    source.loc(number), f"invalid JSON Lines: {err.msg} (column {err.colno})"
                ) from None
            locs.append(source.loc(number))
        return records_from_mappings(items, locs, options, locs[0] if locs else source.loc(1))


JSON = JsonReader()
JSON_LINES = JsonLinesReader()

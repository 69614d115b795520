"""YAML paper lists, as a website generator keeps them (`_data/papers.yml`): a list of paper
mappings, or a mapping holding one (or holding the papers under their ids). Each record keeps
the lines its mapping spans."""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from pathlib import PurePath

from ..yamlfile import KeyPath, parse_yaml
from .base import NO_OPTIONS, RawRecord, ReadOptions, SourceText
from .documents import PaperList, find_paper_list
from .fields import SYNONYMS, records_from_mappings
from .values import key_of

name = "yaml"
description = "YAML: a list of paper mappings, or a mapping holding one (_data/papers.yml)"
carries = ("title", "authors", "abstract")
# A list of titles alone is a real program: only the title is stated by every dump.
always_states = ("title",)

EXTENSIONS = (".yml", ".yaml")
# "- title: ..." or "  title: ...": a key line; "papers:" alone opens the list under a key.
KEY_LINE = re.compile(r"^(?:-\s+)?([A-Za-z_][\w -]*?)\s*:(?:\s|$)")
OPENING = re.compile(r"^(?:-\s+[A-Za-z_][\w -]*?\s*:(?:\s|$)|[A-Za-z_][\w-]*\s*:\s*$)")
SNIFF_LINES = 200


def sniff(source: SourceText) -> float:
    """Decided from the first lines, without parsing: YAML takes nearly any text."""
    by_extension = PurePath(source.path).suffix.lower() in EXTENSIONS
    lines = []
    for line in source.text.split("\n", SNIFF_LINES)[:SNIFF_LINES]:
        if line.strip() and not line.lstrip().startswith("#") and line.strip() != "---":
            lines.append(line)
    keys = {key_of(match[1]) for line in lines if (match := KEY_LINE.match(line.strip()))}
    if not lines or not OPENING.match(lines[0]) or not keys & set(SYNONYMS["title"]):
        return 0.6 if by_extension else 0.0  # with the extension, reading it says what is wrong
    return 0.95 if by_extension else 0.75


def read(source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
    document = parse_yaml(source.text, source.path)
    papers = find_paper_list(document.data, options, source.loc(1))
    locs = [source.loc(*span) for span in _item_spans(source, document.lines, papers)]
    header = source.loc(document.lines.get(papers.path, 1))
    return records_from_mappings(papers.items, locs, options, header)


def _item_spans(
    source: SourceText, lines: dict[KeyPath, int], papers: PaperList
) -> list[tuple[int, int]]:
    """The first and last line of each paper. The parsed document keeps
    where each value starts, not where it ends: an item ends before the next value starting
    after its own (a block scalar runs on to there), blank and comment lines left out."""
    path = papers.path
    starts = sorted(set(lines.values()))
    own_last: dict[int | str, int] = defaultdict(int)
    for key_path, line in lines.items():
        if len(key_path) > len(path) and key_path[: len(path)] == path:
            own_last[key_path[len(path)]] = max(own_last[key_path[len(path)]], line)
    text_lines = source.lines
    spans = []
    for key in papers.keys:
        first = lines[(*path, key)]
        inner = max(first, own_last[key])
        after = bisect.bisect_right(starts, inner)
        end = starts[after] - 1 if after < len(starts) else len(text_lines)
        while end > inner and _is_filler(text_lines[end - 1]):
            end -= 1
        spans.append((first, end))
    return spans


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")

"""Tables whose columns are headed ("Paper Title | Author Names") read as records by column
name, with the synonyms the structured exports use."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..diagnostics import SourceLoc
from .base import NO_OPTIONS, RawRecord, ReadOptions
from .fields import map_fields, record_from_mapping
from .pieces import Piece

# "Name, Affiliation; Name, Affiliation": a comma inside each ;-separated part sets the
# affiliation off, as conference tables write it.
AFFILIATED_PART = re.compile(r"^(?P<name>[^,()]+),\s*(?P<affiliation>.*)$")


def table_records(
    pieces: Sequence[Piece], path: str, options: ReadOptions = NO_OPTIONS
) -> list[RawRecord]:
    """The records of the page's headed table rows that have a title cell; none when the page
    has no table whose headings name a title column."""
    rows = _rows(pieces)
    if len(rows) < 2:
        return []
    names = list(dict.fromkeys(column for row in rows for column in row[1]))
    loc = SourceLoc(path, rows[0][0][0], rows[0][0][0])
    fields = map_fields(names, options, loc)
    if not fields.of("title"):
        return []
    author_cells = [
        c for _, cells, _ in rows for k, c in cells.items() if k in fields.of("authors")
    ]
    # A column that mostly writes `Name, Aff; Name, Aff` writes a lone author `Name, Aff` too.
    affiliated = sum(";" in cell for cell in author_cells) > 0.5 * len(author_cells)
    records = []
    for (line, end), cells, links in rows:
        for column in fields.of("authors"):
            if column in cells and affiliated:
                cells[column] = _affiliated_names(cells[column])
        record = record_from_mapping(cells, fields, SourceLoc(path, line, end))
        if record is not None and record.title:
            # the cells' own links (a title linked to its paper) beside any link column's
            records.append(replace(record, links=tuple(dict.fromkeys((*record.links, *links)))))
    return records


Row = tuple[tuple[int, int], dict[str, str], list[str]]


def _rows(pieces: Sequence[Piece]) -> list[Row]:
    """((first line, last line), column -> text, links) of each table row with headed data
    cells."""
    rows: dict[int, Row] = {}
    for piece in pieces:
        if piece.tag != "td" or not piece.column:
            continue
        (line, end), cells, links = rows.get(piece.block, ((piece.line, piece.end), {}, []))
        cells[piece.column] = f"{cells.get(piece.column, '')} {piece.text}".strip()
        links.extend(piece.links)
        rows[piece.block] = ((line, max(end, piece.end)), cells, links)
    return list(rows.values())


def _affiliated_names(text: str) -> str | list[str]:
    """`Name, Aff; Name, Aff` as `Name (Aff)` items; a cell not of that form as it is."""
    parts = [part.strip() for part in text.split(";") if part.strip()]
    matches = [AFFILIATED_PART.match(part) for part in parts]
    if not all(matches):
        return text
    return [
        f"{m['name'].strip()} ({m['affiliation'].strip()})"
        if m["affiliation"].strip()
        else m["name"].strip()
        for m in matches
        if m
    ]

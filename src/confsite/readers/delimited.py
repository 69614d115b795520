"""Spreadsheet exports: comma- or tab-separated values with a header row naming the columns."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import PurePath

from ..diagnostics import ConfsiteError
from .base import NO_OPTIONS, RawRecord, ReadOptions, SourceText
from .fields import SYNONYMS, FieldMap, map_fields, record_from_mapping, require_title
from .values import key_of

# A header naming one of these is a paper table; others (a budget, a schedule) are not ours.
TELLING_COLUMNS = frozenset(SYNONYMS["title"] + SYNONYMS["authors"] + SYNONYMS["abstract"])
SNIFF_CHARS = 64 * 1024  # enough for a header and a few rows, however long the abstracts


@dataclass(frozen=True)
class Row:
    first_line: int
    last_line: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class DelimitedReader:
    """One reader per delimiter; they share everything else."""

    name: str
    description: str
    delimiter: str
    extensions: tuple[str, ...]
    carries: tuple[str, ...] = ("title", "authors", "abstract")
    always_states: tuple[str, ...] = ("title",)

    def sniff(self, source: SourceText) -> float:
        by_extension = PurePath(source.path).suffix.lower() in self.extensions
        try:
            rows = list(islice(self._rows(source, source.text[:SNIFF_CHARS]), 20))
        except ConfsiteError:
            return 0.6 if by_extension else 0.0
        if len(rows) > 1:
            rows = rows[:-1]  # the sample may cut the last row short
        header = rows[0].cells if rows else ()
        if len(header) < 2 or not TELLING_COLUMNS & {key_of(cell) for cell in header}:
            # With the extension this is ours still: reading it says which column is missing.
            return 0.6 if by_extension else 0.0
        even = sum(1 for row in rows if len(row.cells) == len(header)) / len(rows)
        return 0.95 if by_extension else 0.8 * even

    def read(self, source: SourceText, options: ReadOptions = NO_OPTIONS) -> list[RawRecord]:
        rows = self._rows(source, source.text)
        header = next(rows, None)
        if header is None:
            return []
        columns = tuple(cell.strip() for cell in header.cells)
        fields = map_fields(columns, options, source.loc(header.first_line))
        require_title(fields, columns, source.loc(header.first_line))
        return [
            record
            for row in rows
            if row.cells != header.cells  # a header repeated by concatenated exports
            and (record := self._record(source, row, columns, fields)) is not None
        ]

    def _record(
        self, source: SourceText, row: Row, columns: tuple[str, ...], fields: FieldMap
    ) -> RawRecord | None:
        cells = row.cells
        # Spreadsheets pad rows with empty cells; only cells holding text must have a column.
        while len(cells) > len(columns) and not cells[-1].strip():
            cells = cells[:-1]
        if len(cells) != len(columns):
            raise ConfsiteError(
                source.loc(row.first_line, row.last_line),
                f"row has {len(cells)} cells but the header has {len(columns)} columns "
                f"(check the quoting of this row)",
            )
        loc = source.loc(row.first_line, row.last_line)
        return record_from_mapping(dict(zip(columns, cells, strict=True)), fields, loc)

    def _rows(self, source: SourceText, text: str) -> Iterator[Row]:
        """The non-blank rows with their line ranges; a quoted cell may span several lines."""
        reader = csv.reader(io.StringIO(text), delimiter=self.delimiter, strict=True)
        last = 0
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as err:  # reported where the row starts: an unclosed quote's line
                hint = " (a quoted cell is not closed)" if "end of data" in str(err) else ""
                raise ConfsiteError(
                    source.loc(last + 1), f"invalid {self.name.upper()} row: {err}{hint}"
                ) from None
            first, last = last + 1, reader.line_num
            if any(cell.strip() for cell in cells):
                yield Row(first, last, tuple(cells))


CSV = DelimitedReader(
    "csv", "comma-separated values with a header row (a spreadsheet export)", ",", (".csv",)
)
TSV = DelimitedReader(
    "tsv",
    "tab-separated values with a header row (a spreadsheet export)",
    "\t",
    (".tsv", ".tab"),
)

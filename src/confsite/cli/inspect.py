"""`confsite inspect`: how confsite reads one dump file, for someone adding or debugging a dump.

Shows every reader's sniff score, the reader that wins (or the one asked for), and the raw
records it reads, before any normalizing or merging, as a table or as JSON.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..diagnostics import ConfsiteError, Problem
from ..readers import MIN_SNIFF_SCORE, Reader
from ..readers.base import RawRecord, fields_stated
from ..readers.plausibility import implausible_reading
from ..readers.registry import Registry
from ..readers.sources import load_source_text
from .terminal import Painter


@dataclass(frozen=True)
class Inspection:
    path: str
    html: bool  # the file was an HTML page, flattened to text before reading
    scores: tuple[tuple[str, float], ...]  # every reader, best first
    reader: Reader | None  # None when no reader scores MIN_SNIFF_SCORE and none was named
    detected: bool
    records: tuple[RawRecord, ...]
    structure: tuple[str, ...] = ()  # what the reader found, for readers that can say
    warnings: tuple[Problem, ...] = ()  # what a build would warn of this file

    @property
    def stated(self) -> set[str]:
        return fields_stated(self.reader, self.records) if self.reader else set()


def inspect_file(path: Path, readers: Registry, format_name: str | None = None) -> Inspection:
    """Read one file as a build would, with the same readers; ConfsiteError (located) when it
    cannot be read."""
    display = str(path)
    source = load_source_text(path, display)
    html = source.line_map is not None  # only a flattened HTML page maps its lines
    scores = readers.scores(source)
    if format_name is not None:
        reader, detected = readers.by_name(format_name), False
    else:
        try:
            reader, detected = readers.sniff(source).reader, True
        except ConfsiteError:
            if scores[0][1] >= MIN_SNIFF_SCORE:
                raise  # a file clearly of one format, but broken: its error says where
            return Inspection(display, html, scores, None, False, ())
    records, problems = readers.read_reporting(reader, source)
    describe = getattr(reader, "describe", None)
    return Inspection(
        display,
        html,
        scores,
        reader,
        detected,
        tuple(records),
        tuple(describe(source)) if describe else (),
        problems + implausible_reading(source, tuple(records), reader),
    )


def record_flags(record: RawRecord, stated: set[str]) -> list[str]:
    """What a build would warn about in this record, where the source could have said it
    (`fields_stated`)."""
    flags = []
    if record.title is None:
        flags.append("untitled")
    if not record.authors and "authors" in stated:
        flags.append("no-authors")
    if not record.abstract and "abstract" in stated:
        flags.append("no-abstract")
    return flags


def record_facts(record: RawRecord) -> list[str]:
    facts = [record.presentation, record.decision, record.attendance, record.room]
    return [fact for fact in facts if fact] + list(record.awards)


def record_json(record: RawRecord, stated: set[str]) -> dict[str, Any]:
    return {
        "first_line": record.loc.line,
        "last_line": record.loc.end_line,
        "title": record.title,
        "authors": list(record.authors),
        "affiliations": list(record.affiliations),
        "abstract": list(record.abstract),
        "links": list(record.links),
        "keywords": list(record.keywords),
        "presentation": record.presentation,
        "decision": record.decision,
        "attendance": record.attendance,
        "awards": list(record.awards),
        "session": record.session,
        "room": record.room,
        "flags": record_flags(record, stated),
    }


def inspection_json(inspection: Inspection) -> str:
    stated = inspection.stated
    document = {
        "file": inspection.path,
        "html": inspection.html,
        "scores": [{"reader": name, "score": score} for name, score in inspection.scores],
        "reader": inspection.reader.name if inspection.reader else None,
        "detected": inspection.detected,
        "structure": list(inspection.structure),
        "warnings": [str(problem) for problem in inspection.warnings],
        "records": [record_json(r, stated) for r in inspection.records]
        if inspection.reader
        else [],
    }
    return json.dumps(document, ensure_ascii=False, indent=2)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def print_scores(inspection: Inspection, stream: TextIO) -> None:
    paint = Painter.for_stream(stream)
    kind = "HTML page, read as its text" if inspection.html else "text"
    print(f"{paint(inspection.path, 'bold')} ({kind})", file=stream)
    print(f"sniff scores (a reader needs {MIN_SNIFF_SCORE} to be picked):", file=stream)
    chosen = inspection.reader.name if inspection.reader else None
    for name, score in inspection.scores:
        mark = "→" if name == chosen else " "
        line = f"  {mark} {name:<15} {score:.3f}"
        print(paint(line, "bold") if name == chosen else line, file=stream)
    if inspection.reader is None:
        return
    how = "detected" if inspection.detected else "set with --format"
    print(
        f"reader: {paint(inspection.reader.name, 'bold')} ({how}): {inspection.reader.description}",
        file=stream,
    )
    for line in inspection.structure:
        print(f"  {line}", file=stream)
    for problem in inspection.warnings:
        print(paint(f"warning: {problem.loc}: {problem.message}", "yellow"), file=stream)


def print_records(inspection: Inspection, stream: TextIO) -> None:
    assert inspection.reader is not None
    paint = Painter.for_stream(stream)
    stated = inspection.stated
    rows = [["line", "title", "authors", "abstract", "session", "facts", "flags"]]
    for record in inspection.records:
        lines = f"{record.loc.line}"
        if record.loc.end_line and record.loc.end_line != record.loc.line:
            lines += f"-{record.loc.end_line}"
        rows.append(
            [
                lines,
                record.title if record.title is not None else "(none)",
                str(len(record.authors)),
                str(sum(len(paragraph) for paragraph in record.abstract)),
                record.session or "",
                ", ".join(record_facts(record)),
                ", ".join(record_flags(record, stated)),
            ]
        )
    columns = shutil.get_terminal_size((120, 24)).columns
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for column, limit in ((4, 24), (5, 28)):
        widths[column] = min(widths[column], limit)
    fixed = sum(widths) - widths[1] + 2 * (len(widths) - 1)
    widths[1] = max(20, min(widths[1], columns - fixed))
    for number, row in enumerate(rows):
        cells = [
            row[0].rjust(widths[0]),
            _cut(row[1], widths[1]).ljust(widths[1]),
            row[2].rjust(widths[2]),
            row[3].rjust(widths[3]),
            _cut(row[4], widths[4]).ljust(widths[4]),
            _cut(row[5], widths[5]).ljust(widths[5]),
            row[6],
        ]
        line = "  ".join(cells).rstrip()
        if number == 0:
            line = paint(line, "bold")
        elif row[6]:
            line = paint(line, "yellow")
        print(line, file=stream)
    flagged = sum(1 for row in rows[1:] if row[6])
    print(
        f"{len(inspection.records)} records read by {inspection.reader.name}"
        f"{f', {flagged} flagged' if flagged else ''} (lines are the file's)",
        file=stream,
    )

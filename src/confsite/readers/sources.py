"""Load the configured sources: bytes to checked text (HTML flattened), then each read by its
reader and checked for plausibility; every source is read before any error stops the build."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from ..config import SiteConfig, SourceConfig
from ..diagnostics import ConfsiteError, Problem, SourceLoc, raise_all
from . import WHAT_TO_DO, Reader, SourceText, format_scores
from .base import RawRecord, fields_stated
from .decoding import decode_utf8
from .html_text import html_to_source_text, html_tree, looks_like_html
from .plausibility import implausible_reading
from .registry import ReaderCrash, Registry

Source = TypeVar("Source")

MAX_SOURCE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class SourceReading:
    config: SourceConfig
    reader: Reader
    detected: bool  # False when the format was set in the config
    # Empty in a build's readings: a source's records are dropped once normalized (see
    # cache/inputs.py · CachedSource), as they take much memory at scale.
    records: tuple[RawRecord, ...]
    record_count: int  # how many it read, kept when the records are dropped
    problems: tuple[Problem, ...] = ()  # what its records' plausibility gave (warnings)
    # The fields its format carries that its records state (see `fields_stated`): what the
    # report of missing fields asks of a source, kept when the records are dropped.
    stated: frozenset[str] = frozenset()


def decode_source(path: str, data: bytes) -> str:
    if not data.strip():
        raise ConfsiteError(SourceLoc(path, 1), "empty file: no records to read")
    text = decode_utf8(path, data, "binary file (NUL byte): expected a text dump", "dump")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_source_text(path: Path, display_path: str) -> SourceText:
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise ConfsiteError(display_path, f"file too large ({size} bytes)")
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfsiteError(display_path, "file not found") from None
    except IsADirectoryError:
        raise ConfsiteError(display_path, "is a directory, expected a dump file") from None
    except OSError as err:
        raise ConfsiteError(display_path, f"cannot read: {err.strerror}") from None
    text = decode_source(display_path, data)
    if looks_like_html(text):
        return html_to_source_text(display_path, text)
    return SourceText(display_path, text)


def read_source(config: SiteConfig, source: SourceConfig, readers: Registry) -> SourceReading:
    """One source read by its reader (set in the config, or detected), with the warnings its
    records' plausibility gives; ConfsiteError says how it was read and what to do instead."""
    read = read_records(config, source, readers)
    return read.checked(read.plausibility())


@dataclass(frozen=True)
class RecordsRead:
    """A source's records as its reader read them, their plausibility not yet checked: the
    check takes about as long as normalizing them, and a build with a core to spare does both
    at once (see cache/inputs.py)."""

    reading: SourceReading  # its problems: the reader's own
    text: SourceText

    def plausibility(self) -> tuple[Problem, ...]:
        """The warnings the records' plausibility gives (see readers/plausibility.py)."""
        return implausible_reading(self.text, self.reading.records, self.reading.reader)

    def checked(self, signs: tuple[Problem, ...]) -> SourceReading:
        """The reading with the reader's problems, then `signs`, as `plausibility` gave them."""
        return replace(self.reading, problems=self.reading.problems + signs)


def read_records(config: SiteConfig, source: SourceConfig, readers: Registry) -> RecordsRead:
    """One source's records read by its reader, before their plausibility is checked;
    ConfsiteError says how it was read and what to do instead."""
    try:
        return _read_records(config, source, readers)
    finally:
        html_tree.cache_clear()  # the page's tree, kept for its reader, is not kept longer


def _read_records(config: SiteConfig, source: SourceConfig, readers: Registry) -> RecordsRead:
    text = load_source_text(config.resolve(source.path), source.path)
    reading = None
    if source.format is not None:
        reader, detected = readers.by_name(source.format), False
    else:
        sniffed = readers.sniff(text, source.read_options)
        reader, detected, reading = sniffed.reader, True, sniffed.reading
    try:
        if reading is None:
            reading = readers.read_reporting(reader, text, source.read_options)
        records, read_problems = tuple(reading[0]), reading[1]
        if not records:
            raise ConfsiteError(text.loc(1), f"no records found by the {reader.name} reader")
    except ReaderCrash:
        raise
    except ConfsiteError as err:
        how = how_it_was_read(text, reader, detected, readers)
        raise ConfsiteError(err.loc, f"{err.message} ({how})") from None
    stated = frozenset(fields_stated(reader, records))
    read = SourceReading(source, reader, detected, records, len(records), read_problems, stated)
    return RecordsRead(read, text)


def how_it_was_read(text: SourceText, reader: Reader, detected: bool, readers: Registry) -> str:
    why = "detected" if detected else "set by 'format' in site.yaml"
    scores = format_scores(readers.scores(text))
    return (
        f"read as {reader.name}, {why}; readers' scores: {scores}; "
        f"if this is not a {reader.name} dump, {WHAT_TO_DO}"
    )


def read_every_source(
    sources: Iterable[Source], read: Callable[[Source], SourceReading]
) -> list[SourceReading]:
    """Every source read before any error is raised, so one run reports every bad file."""
    reads, errors = [], []
    for source in sources:
        try:
            reads.append(read(source))
        except ConfsiteError as err:
            errors.append(err)
    raise_all(errors)
    return reads

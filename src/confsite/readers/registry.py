"""The readers of one build, and the only place that calls their code: a reader's own error is
located in the dump, and any other exception it raises becomes a located error naming the
reader's file instead of a traceback."""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..diagnostics import ConfsiteError, Problem, SourceLoc
from . import (
    CLEAR_SNIFF_SCORE,
    MIN_SNIFF_SCORE,
    READERS,
    SURE_COMPLETENESS,
    SniffResult,
    unrecognised_format,
)
from .base import (
    NO_OPTIONS,
    RawRecord,
    Reader,
    ReaderWarning,
    ReadOptions,
    SourceText,
    record_fields,
)

Result = TypeVar("Result")
Reading = tuple[list[RawRecord], tuple[Problem, ...]]  # records, and what the reader read past


class ReaderCrash(ConfsiteError):
    """A reader's code raised something other than ConfsiteError: a bug in the reader."""


@dataclass(frozen=True)
class PluginReader:
    """A reader from outside the package: the reader and the file its code is in."""

    reader: Reader
    file: Path
    display: str  # the file as messages name it: relative to the site when inside it


@dataclass(frozen=True)
class Registry:
    """Built-in readers first, then the site's and installed ones; ties in sniffing go to the
    earlier one. `code_digest` covers the source of every reader from outside the package."""

    readers: tuple[Reader, ...] = READERS
    plugins: tuple[PluginReader, ...] = ()
    code_digest: str = ""

    def names(self) -> tuple[str, ...]:
        return tuple(reader.name for reader in self.readers)

    def by_name(self, name: str) -> Reader:
        for reader in self.readers:
            if reader.name == name:
                return reader
        raise KeyError(name)

    def reader_file(self, reader: Reader) -> tuple[Path, str]:
        """The file a reader's code is in, and the name messages give it."""
        for plugin in self.plugins:
            if plugin.reader is reader:
                return plugin.file, plugin.display
        file = str(getattr(reader, "__file__", "") or reader.name)
        return Path(file), file

    def scores(
        self, source: SourceText, readers: tuple[Reader, ...] | None = None
    ) -> tuple[tuple[str, float], ...]:
        """Every reader's score (or these readers'), best first; ties keep the registry order."""
        scored = [
            (reader.name, round(self.call(reader, source, "sniff", reader.sniff, source), 3))
            for reader in (self.readers if readers is None else readers)
        ]
        return tuple(sorted(scored, key=lambda pair: -pair[1]))

    def sniff(self, source: SourceText, options: ReadOptions = NO_OPTIONS) -> SniffResult:
        """Among the readers whose sniffer scores MIN_SNIFF_SCORE or more, the one whose
        records (read with the source's `options`) come out most complete; ties go to the
        higher score, then the earlier reader. A file clearly of one format but broken (cut
        off mid-record) gets that format's error, not a reading by another reader.

        The last reader is the catch-all (the general reader), costly to run on a large file:
        it is not tried when an earlier reader is clearly right, scoring CLEAR_SNIFF_SCORE and
        reading nearly every record whole."""
        *specific, catch_all = self.readers
        readings = Readings(self, source, options)
        scores = self.scores(source, tuple(specific))
        if scores and scores[0][1] >= CLEAR_SNIFF_SCORE:
            best = self.by_name(scores[0][0])
            if readings.completeness(best) >= SURE_COMPLETENESS:
                return SniffResult(best, scores, readings.of(best))
        scores = tuple(sorted((*scores, *self.scores(source, (catch_all,))), key=lambda p: -p[1]))
        candidates = [self.by_name(name) for name, score in scores if score >= MIN_SNIFF_SCORE]
        if not candidates:
            raise unrecognised_format(source, scores)
        if len(candidates) == 1:
            return SniffResult(candidates[0], scores)
        if scores[0][1] >= CLEAR_SNIFF_SCORE and readings.of(candidates[0]) is None:
            self.read(candidates[0], source, options)  # its error stands
        candidates.sort(key=lambda reader: -readings.completeness(reader))
        return SniffResult(candidates[0], scores, readings.of(candidates[0]))

    def read(
        self, reader: Reader, source: SourceText, options: ReadOptions = NO_OPTIONS
    ) -> list[RawRecord]:
        return self.read_reporting(reader, source, options)[0]

    def read_reporting(
        self, reader: Reader, source: SourceText, options: ReadOptions = NO_OPTIONS
    ) -> tuple[list[RawRecord], tuple[Problem, ...]]:
        """The records, and the warnings the reader gave of what it read past."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ReaderWarning)
            records = list(self.call(reader, source, "read", reader.read, source, options))
        problems = tuple(
            Problem("warning", "reader", w.message.loc, w.message.message)
            for w in caught
            if isinstance(w.message, ReaderWarning)
        )
        return records, problems

    def call(
        self,
        reader: Reader,
        source: SourceText,
        what: str,
        function: Callable[..., Result],
        *args: object,
    ) -> Result:
        try:
            return function(*args)
        except ConfsiteError:
            raise
        except Exception as err:
            where = crash_site(err, *self.reader_file(reader))
            raise ReaderCrash(
                source.loc(1),
                f"the {reader.name} reader's {what}() failed at {where} with "
                f"{type(err).__name__}: {err} (a bug in the reader, not in this file)",
            ) from None


class Readings:
    """What each reader read of one source while the registry compared them, so that the
    reader picked does not read the file again."""

    def __init__(self, registry: Registry, source: SourceText, options: ReadOptions) -> None:
        self.registry, self.source, self.options = registry, source, options
        self.readings: dict[str, Reading | None] = {}

    def of(self, reader: Reader) -> Reading | None:
        """The reader's records and warnings; None when it rejects the file (a crash, a bug in
        the reader, is raised)."""
        if reader.name not in self.readings:
            try:
                reading = self.registry.read_reporting(reader, self.source, self.options)
            except ReaderCrash:
                raise
            except ConfsiteError:
                reading = None
            self.readings[reader.name] = reading
        return self.readings[reader.name]

    def completeness(self, reader: Reader) -> float:
        """How much of what the reader read is papers: the share of records stating at least
        two of title, authors and abstract (one, for a format that carries only one). A reader
        that rejects the file scores nothing."""
        reading = self.of(reader)
        if reading is None or not reading[0]:
            return 0.0
        records = reading[0]
        needed = min(2, len(reader.carries))
        full = sum(1 for r in records if len(record_fields(r)) >= needed)
        return round(full / len(records), 2)


def crash_site(err: BaseException, file: Path, display: str) -> SourceLoc:
    """The innermost line of the traceback in the reader's file (else its last line): where
    the reader's author should look."""
    frames = traceback.extract_tb(err.__traceback__)
    inside = [frame for frame in frames if Path(frame.filename) == file]
    if inside:
        return SourceLoc(display, inside[-1].lineno)
    if frames:
        return SourceLoc(frames[-1].filename, frames[-1].lineno)
    return SourceLoc(display)

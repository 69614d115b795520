"""Load one configured source: bytes to checked text (HTML flattened), then pick its reader."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .config import SiteConfig, SourceConfig
from .diagnostics import ConfsiteError, SourceLoc
from .htmltext import html_to_source_text, looks_like_html
from .readers import Reader, SourceText, reader_by_name, sniff
from .readers.base import RawRecord
from .textbytes import decode_utf8

MAX_SOURCE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class SourceRead:
    config: SourceConfig
    reader: Reader
    detected: bool  # False when the format was set in the config
    records: tuple[RawRecord, ...]  # none once merged (see `merged`)
    record_count: int  # how many it read, kept when the records are dropped

    def merged(self) -> SourceRead:
        """The same read without its records, once they are merged into papers: nothing
        needs them after that, and at 100,000 papers they held 220 MiB through the build."""
        return replace(self, records=())


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


def read_source(config: SiteConfig, source: SourceConfig) -> SourceRead:
    text = load_source_text(config.resolve(source.path), source.path)
    if source.format is not None:
        reader, detected = reader_by_name(source.format), False
    else:
        reader, detected = sniff(text).reader, True
    records = tuple(reader.read(text, source.read_options))
    if not records:
        raise ConfsiteError(text.loc(1), f"no records found by the {reader.name} reader")
    return SourceRead(source, reader, detected, records, len(records))

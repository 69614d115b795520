"""The downloads, made again only where papers changed.

Each download is one piece per paper (download_formats.py). A build remembers where each
paper's piece lies in each file it wrote, under a digest of the paper; the next build copies
the pieces of papers with the same digest out of the current site's file, and makes only the
others, so a rebuild's cost follows what changed, not the size of the files.

The current file is used only when it is still the one the last build wrote (the manifest's
size, mtime and inode) and its digest is the one the pieces were recorded for, and the base
URL (which pieces hold) is the same; else every piece is made.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..cache.stores import load_pickle, save_pickle
from ..model.site import Site
from .download_formats import DOWNLOADS, Download

if TYPE_CHECKING:
    from ..cache.manifest import FileEntry
    from ..output.staging import StagingWriter

Spans = dict[bytes, tuple[int, int]]  # paper digest: (offset, length) of its piece, in bytes
Part = bytes | tuple[int, int]  # of a download: bytes made, or a stretch (start, end) of the old


@dataclass(frozen=True)
class DownloadPieces:
    """Where each paper's piece lies in the downloads a build wrote: per file, the digest of
    its bytes and the spans of its pieces."""

    base_url: str | None
    files: dict[str, tuple[str, Spans]]


def stage_downloads(
    site: Site,
    writer: StagingWriter,
    cache: Path | None,
    fingerprint: bytes,
    digests: list[bytes],
) -> dict[str, FileEntry]:
    """Stage every download, one at a time (each holds every paper, so each is large), and
    record in `cache` (one per output folder, beside its manifest) where their pieces lie,
    for the next build. `digests` are the papers' (see `record_digest`), in site order."""
    last_pieces = load_pickle(cache, fingerprint, DownloadPieces)
    if last_pieces is not None and last_pieces.base_url != site.base_url:
        last_pieces = None
    staged: dict[str, FileEntry] = {}
    recorded: dict[str, tuple[str, Spans]] = {}
    for name, download in DOWNLOADS.items():
        was = last_pieces.files.get(name) if last_pieces is not None else None
        spans: Spans = {}
        staged[name] = _staged_download(name, download, site, digests, writer, was, spans)
        recorded[name] = (staged[name].digest, spans)
    save_pickle(cache, fingerprint, DownloadPieces(site.base_url, recorded))
    return staged


def _staged_download(
    name: str,
    download: Download,
    site: Site,
    digests: list[bytes],
    writer: StagingWriter,
    was: tuple[str, Spans] | None,
    spans: Spans,
) -> FileEntry:
    """One download staged, its pieces' places recorded in `spans`. A file the last build
    did not write is written as its pieces are made: nothing needs its digest before (a
    download is hundreds of megabytes at archive scale)."""
    if name not in writer.previous.files:
        return writer.put_new(name, partial(_spliced, download, site, digests, {}, spans))
    with _old_pieces(writer.current_file(name), was) as (old, old_spans):
        # Listed first: the file the last build wrote is linked if the bytes are the same.
        parts = list(_spliced(download, site, digests, old_spans, spans))
        return writer.put_parts(name, partial(_buffers_closed, parts, old))


@contextmanager
def _old_pieces(
    current: tuple[Path, str] | None, recorded: tuple[str, Spans] | None
) -> Iterator[tuple[mmap.mmap | bytes, Spans]]:
    """The current file's bytes (mapped, not read: a download holds every paper)
    and the spans recorded for them; nothing when the spans were recorded for other bytes."""
    if current is None or recorded is None or recorded[0] != current[1]:
        yield b"", {}
        return
    try:
        with open(current[0], "rb") as stream:
            mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # gone since, or empty (which mmap refuses)
        yield b"", {}
        return
    with mapped:
        yield mapped, recorded[1]


def _spliced(
    download: Download,
    site: Site,
    digests: list[bytes],
    old_spans: Spans,
    spans: Spans,
) -> Iterator[Part]:
    """The download's bytes, in parts to be written one after the other, and where each
    paper's piece lies in them recorded in `spans` as the parts come. Papers whose pieces lay
    one after the other in the old file are one part, that stretch of it, separators and all:
    copying a hundred thousand slices one by one took seconds, and copying the stretches,
    then joining the parts, copied a download twice (hundreds of megabytes at archive scale).
    Without `old_spans`, every part is bytes made."""
    head, separator = download.head.encode(), download.separator.encode()
    yield head
    offset = len(head)
    stretch: list[int] = []  # the start and end in `old` of the stretch being gathered
    for number, (paper, digest) in enumerate(zip(site.papers, digests, strict=True)):
        if number:
            offset += len(separator)
        span = old_spans.get(digest)
        if span is not None and stretch and span[0] == stretch[1] + len(separator):
            stretch[1] = span[0] + span[1]
            length = span[1]
        else:
            if stretch:
                yield (stretch[0], stretch[1])
                stretch = []
            if number:
                yield separator
            if span is not None:
                stretch, length = [span[0], span[0] + span[1]], span[1]
            else:
                piece = download.piece(site, paper).encode()
                yield piece
                length = len(piece)
        spans[digest] = (offset, length)
        offset += length
    if stretch:
        yield (stretch[0], stretch[1])
    yield download.tail.encode()


def _buffers_closed(
    parts: list[Part], old: mmap.mmap | bytes
) -> closing[Iterator[bytes | memoryview]]:
    """`_buffers`, closed (its last view released) on leaving the `with`, however left."""
    return closing(_buffers(parts, old))


def _buffers(parts: list[Part], old: mmap.mmap | bytes) -> Iterator[bytes | memoryview]:
    """The parts' bytes: a stretch of the old file as a view of it, let go as soon as the
    next part is asked for (or the generator closed), not when the last reference to it
    goes: the old file cannot be closed while a view of it lives, and garbage cycles (the
    TeX parser's, which keep frames) can hold one long after."""
    with memoryview(old) as whole:
        for part in parts:
            if isinstance(part, bytes):
                yield part
                continue
            with whole[part[0] : part[1]] as stretch:
                yield stretch

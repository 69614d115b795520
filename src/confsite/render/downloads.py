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
from array import array
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

Part = bytes | tuple[int, int]  # of a download: bytes made, or a stretch (start, end) of the old
# Papers in a download's order: (start, end, row) for the papers start..end-1 whose pieces
# lay one after the other in the old file from its piece `row` on; (n, n + 1, -1) for a
# paper whose piece is made.
Segment = tuple[int, int, int]


@dataclass(frozen=True)
class FilePieces:
    """Where each paper's piece lies in one download: the digest of the file's bytes, and
    each piece's offset and length in bytes, in the order of `DownloadPieces.digests`.
    Arrays, not a dict of pairs: they are saved and loaded at every build that writes the
    downloads (a dict's 400,000 pairs took 0.6 s to pickle and load at 100,000 papers)."""

    digest: str
    offsets: array
    lengths: array


@dataclass(frozen=True)
class DownloadPieces:
    """Where each paper's piece lies in the downloads a build wrote: the papers' record
    digests in the order the files hold their pieces, and each file's pieces."""

    base_url: str | None
    digests: tuple[bytes, ...]
    files: dict[str, FilePieces]


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
    last = load_pickle(cache, fingerprint, DownloadPieces)
    if last is not None and last.base_url != site.base_url:
        last = None
    kept = segments(last.digests if last is not None else (), digests)
    staged: dict[str, FileEntry] = {}
    recorded: dict[str, FilePieces] = {}
    for name, download in DOWNLOADS.items():
        was = last.files.get(name) if last is not None else None
        offsets, lengths = array("q"), array("q")
        made = partial(_spliced, download, site, kept, offsets=offsets, lengths=lengths)
        staged[name] = _staged_download(name, writer, was, made)
        recorded[name] = FilePieces(staged[name].digest, offsets, lengths)
    save_pickle(cache, fingerprint, DownloadPieces(site.base_url, tuple(digests), recorded))
    return staged


def segments(last: tuple[bytes, ...], digests: list[bytes]) -> list[Segment]:
    """The papers of `digests` (in site order) cut where their pieces stop lying one after
    the other in the files the last build wrote, whose papers were `last`: each file held
    them in that order, so two papers whose rows there follow one another are one stretch of
    every file, separator and all. Found once for the four downloads, by row number, not by
    each piece's place in each file."""
    row_of = {digest: row for row, digest in enumerate(last)}
    rows = [row_of.get(digest, -1) for digest in digests]
    found: list[Segment] = []
    start = 0
    while start < len(rows):
        row, end = rows[start], start + 1
        if row >= 0:
            while end < len(rows) and rows[end] == row + end - start:
                end += 1
        found.append((start, end, row))
        start = end
    return found


def _staged_download(
    name: str,
    writer: StagingWriter,
    was: FilePieces | None,
    made: partial[Iterator[Part]],
) -> FileEntry:
    """One download staged from `made(old)`'s parts (see `_spliced`). A file the last build
    did not write is written as its pieces are made: nothing needs its digest before (a
    download is hundreds of megabytes at archive scale)."""
    if name not in writer.previous.files:
        return writer.put_new(name, partial(made, None))
    with _old_pieces(writer.current_file(name), was) as (old, old_pieces):
        # Listed first: the file the last build wrote is linked if the bytes are the same.
        parts = list(made(old_pieces))
        return writer.put_parts(name, partial(_buffers_closed, parts, old))


@contextmanager
def _old_pieces(
    current: tuple[Path, str] | None, recorded: FilePieces | None
) -> Iterator[tuple[mmap.mmap | bytes, FilePieces | None]]:
    """The current file's bytes (mapped, not read: a download holds every paper)
    and the pieces recorded for them; nothing when they were recorded for other bytes."""
    if current is None or recorded is None or recorded.digest != current[1]:
        yield b"", None
        return
    try:
        with open(current[0], "rb") as stream:
            mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # gone since, or empty (which mmap refuses)
        yield b"", None
        return
    with mapped:
        yield mapped, recorded


def _spliced(
    download: Download,
    site: Site,
    kept: list[Segment],
    old: FilePieces | None,
    offsets: array,
    lengths: array,
) -> Iterator[Part]:
    """The download's bytes, in parts to be written one after the other, and where each
    paper's piece lies in them recorded in `offsets` and `lengths` as the parts come. Papers
    whose pieces lay one after the other in the old file (`kept`, see `segments`) are one
    part, that stretch of it, separators and all: copying a hundred thousand slices one by
    one took seconds, and copying the stretches, then joining the parts, copied a download
    twice (hundreds of megabytes at archive scale). Without `old`, every piece is made. (The
    places are recorded afresh each time the parts are made again: a write tried again.)"""
    del offsets[:], lengths[:]
    head, separator = download.head.encode(), download.separator.encode()
    yield head
    offset = len(head)
    papers = site.papers
    for start, end, row in kept if old is not None else _every_piece_made(len(papers)):
        if start:
            yield separator
            offset += len(separator)
        if row < 0 or old is None:
            piece = download.piece(site, papers[start]).encode()
            yield piece
            offsets.append(offset)
            lengths.append(len(piece))
            offset += len(piece)
            continue
        last = row + end - start - 1
        begin, finish = old.offsets[row], old.offsets[last] + old.lengths[last]
        yield (begin, finish)
        shift = offset - begin
        offsets.extend([place + shift for place in old.offsets[row : last + 1]])
        lengths.extend(old.lengths[row : last + 1])
        offset += finish - begin
    yield download.tail.encode()


def _every_piece_made(count: int) -> Iterator[Segment]:
    return ((number, number + 1, -1) for number in range(count))


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

"""The downloads, made again only where papers changed.

Each download is one piece per paper (export.py). A build remembers where each paper's piece
lies in each file it wrote, under a digest of the paper; the next build copies the pieces of
papers with the same digest out of the current site's file, and makes only the others. At
10,000 papers making the three files took 0.6-0.9 s of CPU on every rebuild.

The current file is used only when it is still the one the last build wrote (the manifest's
size, mtime and inode) and its digest is the one the pieces were recorded for, and the base
URL (which pieces hold) is the same; else every piece is made.
"""

from __future__ import annotations

import hashlib
import mmap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .export import DOWNLOADS, Download
from .picklecache import canonical_bytes, load_pickle, save_pickle
from .records import Paper
from .site import Site

Spans = dict[bytes, tuple[int, int]]  # paper digest: (offset, length) of its piece, in bytes
# A download's current file by site path, with the digest of its bytes; None when there is
# none or it is not as the last build left it.
CurrentFile = Callable[[str], tuple[Path, str] | None]


@dataclass(frozen=True)
class DownloadPieces:
    """Where each paper's piece lies in the downloads a build wrote: per file, the digest of
    its bytes and the spans of its pieces."""

    base_url: str | None
    files: dict[str, tuple[str, Spans]]


def paper_digest(paper: Paper) -> bytes:
    """A digest of everything a paper record holds."""
    return hashlib.blake2b(canonical_bytes(paper), digest_size=16).digest()


def make_downloads(
    site: Site, current: CurrentFile, cache: Path, fingerprint: bytes
) -> Iterator[tuple[str, bytes]]:
    """Each download's site path and bytes, one at a time (at 100,000 papers each is 150 MB
    or more); where their pieces lie is recorded in `cache` (one per output folder, beside
    its manifest) for the next build once all are made."""
    previous = load_pickle(cache, fingerprint, DownloadPieces)
    if previous is not None and previous.base_url != site.base_url:
        previous = None
    digests = [paper_digest(paper) for paper in site.papers]
    recorded: dict[str, tuple[str, Spans]] = {}
    for name, download in DOWNLOADS.items():
        with _old_file(name, previous, current) as (old, old_spans):
            data, spans = _spliced(download, site, digests, old, old_spans)
        recorded[name] = (hashlib.blake2b(data, digest_size=16).hexdigest(), spans)
        yield name, data
        del data
    save_pickle(cache, fingerprint, DownloadPieces(site.base_url, recorded))


@contextmanager
def _old_file(
    name: str, previous: DownloadPieces | None, current: CurrentFile
) -> Iterator[tuple[mmap.mmap | bytes, Spans]]:
    """The current file's bytes (mapped, not read: at 100,000 papers a download is 170 MB)
    and the spans recorded for them; nothing when they cannot be trusted."""
    found = current(name)
    recorded = previous.files.get(name) if previous is not None else None
    if found is None or recorded is None or recorded[0] != found[1]:
        yield b"", {}
        return
    try:
        with open(found[0], "rb") as stream:
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
    old: mmap.mmap | bytes,
    old_spans: Spans,
) -> tuple[bytes, Spans]:
    head, separator = download.head.encode(), download.separator.encode()
    parts, spans, offset = [head], {}, len(head)
    for number, (paper, digest) in enumerate(zip(site.papers, digests, strict=True)):
        if number:
            parts.append(separator)
            offset += len(separator)
        span = old_spans.get(digest)
        if span is not None:
            piece = old[span[0] : span[0] + span[1]]
        else:
            piece = download.piece(site, paper).encode()
        parts.append(piece)
        spans[digest] = (offset, len(piece))
        offset += len(piece)
    parts.append(download.tail.encode())
    return b"".join(parts), spans

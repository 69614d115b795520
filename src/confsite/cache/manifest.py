"""What the last build wrote, kept between builds so the next one can skip unchanged work.

The manifest lives in the project's `.confsite-cache/` folder, not in the site (which is
deployed). It records, per output file, the digest of its bytes, how to recognise the file
on disk (size, mtime, inode) and the key it was made from (for pages: a digest of the
template context). It is a cache: when it is missing, unreadable or from another version of
confsite, the build simply does all the work.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from .. import __version__
from ..diagnostics import Problem, SourceLoc
from ..report import BuildReport, SourceLine
from .digests import bytes_digest
from .stores import load_pickle, save_pickle

CACHE_FOLDER = ".confsite-cache"
FORMAT = 4  # 4: the files as columns


class FileEntry(NamedTuple):
    """One file of the site. A named tuple, not a dataclass: a no-op build at 100,000 papers
    loads 128,000 of them, in a third of the time."""

    digest: str
    size: int
    mtime_ns: int
    inode: int
    key: str = ""  # what the file was made from; "" for files compared by content only


@dataclass
class Manifest:
    model: str = ""  # digest of everything the site is built from; equal means nothing to do
    files: dict[str, FileEntry] = field(default_factory=dict)
    report: BuildReport | None = None  # what that build told, told again when nothing changed
    # Which build this is, of which site: the paper digests it saved say the same when they
    # are that build's (see pipeline.py · `digests_of_this_site`).
    build: str = ""

    def __getstate__(self) -> tuple[Any, ...]:
        """The files pickled as a column per field of `FileEntry`: pickle calls Python for
        each named tuple, and 128,000 of them took 0.33 s to save and 0.16 s to load, as
        columns 0.15 and 0.12 s (a rebuild at 100,000 papers does both)."""
        columns = [list(column) for column in zip(*self.files.values(), strict=True)]
        return self.model, self.report, self.build, list(self.files), columns

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.model, self.report, self.build, paths, columns = state
        entries = map(tuple.__new__, itertools.repeat(FileEntry), zip(*columns, strict=True))
        self.files = dict(zip(paths, entries, strict=True))


def manifest_path(project_root: Path, out_dir: Path) -> Path:
    """One manifest per output folder, so builds to different folders don't mix."""
    folder_id = bytes_digest(os.fsencode(out_dir.resolve()))[:16]
    return project_root / CACHE_FOLDER / f"site-{folder_id}.pickle"


@dataclass(frozen=True)
class CachePaths:
    """Where a build's caches lie: the project's cache folder, and the output folder's
    manifest with the files named after it (its downloads' pieces, its spare).
    `NO_CACHE` has none: a build with `--no-cache` reads and writes no cache."""

    folder: Path | None = None
    manifest: Path | None = None

    @classmethod
    def of(cls, project_root: Path, out_dir: Path) -> CachePaths:
        manifest = manifest_path(project_root, out_dir)
        return cls(manifest.parent, manifest)

    @property
    def downloads(self) -> Path | None:
        """Where each paper's piece lies in the downloads (see render/downloads.py)."""
        return self.manifest.with_suffix(".downloads") if self.manifest else None


NO_CACHE = CachePaths()


def load_manifest(path: Path | None) -> Manifest:
    """The last build's manifest; an empty one when there is none (or `path` is None)."""
    return load_pickle(path, _tag(), Manifest) or Manifest()


def save_manifest(path: Path | None, manifest: Manifest) -> None:
    """Best effort: a project folder we cannot write to only costs the next build its reuse.
    A pickle, as the other caches are: it loads in about half the time JSON took."""
    save_pickle(path, _tag(), manifest)
    if path is not None:  # the JSON manifest of earlier versions, never read again
        with contextlib.suppress(OSError):
            path.with_suffix(".json").unlink(missing_ok=True)


def _tag() -> bytes:
    """The manifest's format, confsite's version and the fields of the classes it pickles;
    not the code's fingerprint, as the caches made from the inputs have: which files the
    output folder holds does not depend on it."""
    return f"manifest {FORMAT} {__version__} {pickled_shape()}".encode()


def pickled_shape() -> str:
    """Each class a manifest holds, with its fields. Unpickling does not call a class's
    constructor, so a manifest whose classes had other fields would load without complaint,
    its objects missing a field or holding one no longer declared; and the files' columns
    are `FileEntry`'s fields."""
    held = (*PICKLED, FileEntry)
    return " ".join(f"{kind.__name__}({','.join(_field_names(kind))})" for kind in held)


def _field_names(kind: type) -> tuple[str, ...]:
    if dataclasses.is_dataclass(kind):
        return tuple(f.name for f in dataclasses.fields(kind))
    return kind._fields  # a named tuple


# Every class a manifest pickles: one added to what it holds is added here (a test checks it on
# the seeds' manifest). Its files are not pickled as `FileEntry`s but as columns (see
# `Manifest.__getstate__`).
PICKLED: tuple[type, ...] = (Manifest, BuildReport, SourceLine, Problem, SourceLoc)

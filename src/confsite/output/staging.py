"""Write a build into a staging folder, then swap it in for the site in one step.

A failed or killed build therefore leaves the previous site as it was. Files whose content is
unchanged since the last build are hard links to the previous site's files, so they keep their
inode and modification time and a sync-based deploy uploads nothing for them. On Linux the
swap is one `renameat2(RENAME_EXCHANGE)` call; elsewhere two renames.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cache.digests import FileDigest, bytes_digest
from ..cache.manifest import FileEntry, Manifest
from ..diagnostics import ConfsiteError
from .processes import libc_function
from .spare import SpareContents, maker_runs, put_away, take_spare

Bytes = bytes | memoryview  # what a file is written from
SITE_MARKER = "papers.json"  # every confsite build has it; a folder without it is not ours


def check_output_dir(out_dir: Path, protected: list[Path]) -> None:
    """Refuse to replace a folder that holds the project's inputs or is not a confsite site."""
    target = out_dir.resolve()
    for path in protected:
        resolved = path.resolve()
        if target == resolved or target in resolved.parents:
            raise ConfsiteError(str(out_dir), f"output folder would replace {path}; choose another")
    if target.exists():
        if not target.is_dir():
            raise ConfsiteError(str(out_dir), "output path exists and is not a folder")
        if any(target.iterdir()) and not (target / SITE_MARKER).exists():
            raise ConfsiteError(
                str(out_dir),
                f"output folder is not empty and has no {SITE_MARKER}: "
                "not a confsite site, refusing to replace it",
            )


def check_output_path(path: str) -> None:
    """A site path is relative and normalized: no empty, `.` or `..` part (string tests, as
    this runs for every file of the site)."""
    if not path or path.startswith("/") or any(part in ("", ".", "..") for part in path.split("/")):
        raise RuntimeError(f"internal error: unsafe output path {path!r}")


@dataclass(frozen=True)
class SiteFolders:
    """The site folder, its staging folder beside it, where replaced sites go until they are
    deleted (the project's cache when it is on the same file system, so nothing but the site
    is left beside it; else beside the site), and the spare (see the module's docstring)."""

    out_dir: Path
    trash: Path | None = None
    spare: Path | None = None

    @property
    def staging(self) -> Path:
        return self.out_dir.with_name(f".{self.out_dir.name}.staging")

    @property
    def old_prefix(self) -> str:
        return f".{self.out_dir.name}.old-"

    def retired(self) -> Path:
        """A fresh name for the site a build replaces, until it is deleted."""
        name = f"{self.old_prefix}{os.getpid()}-{time.time_ns()}"
        trash = self._usable_trash()
        return trash / name if trash is not None else self.out_dir.with_name(name)

    def spare_in_making(self) -> Path:
        """Where a background process readies a spare; the pid says whether it still runs."""
        assert self.spare is not None
        return self.spare.with_name(f"{self.spare.name}.making-{os.getpid()}")

    @property
    def spare_listing(self) -> Path:
        assert self.spare is not None
        return self.spare.with_suffix(".spare-listing")

    def leftovers(self) -> list[Path]:
        """Staging and replaced sites of earlier builds that were killed or are being deleted,
        and spares whose making was interrupted."""
        found = [
            path
            for folder in (self.out_dir.parent, self.trash)
            if folder is not None and folder.is_dir()
            for path in folder.glob(f".{glob.escape(self.out_dir.name)}.*")
            if path.is_dir() and (path == self.staging or path.name.startswith(self.old_prefix))
        ]
        if self.spare is not None and self.spare.parent.is_dir():
            pattern = f"{glob.escape(self.spare.name)}.making-*"
            found += [p for p in self.spare.parent.glob(pattern) if not maker_runs(p)]
        return sorted(found)

    def _usable_trash(self) -> Path | None:
        if self.trash is None:
            return None
        try:
            self.trash.mkdir(parents=True, exist_ok=True)
            same_device = self.trash.stat().st_dev == self.out_dir.parent.stat().st_dev
        except OSError:
            return None
        return self.trash if same_device else None


def file_is_intact(path: str, entry: FileEntry) -> bool:
    """The file at `path` is still the one the manifest describes (same size, mtime, inode)."""
    try:
        stat = os.stat(path)
    except OSError:
        return False
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino) == (
        entry.size,
        entry.mtime_ns,
        entry.inode,
    )


def site_is_intact(out_dir: Path, manifest: Manifest) -> bool:
    folder = os.path.join(out_dir, "")  # joined by hand below: 100,000 paths, a no-op's build
    return bool(manifest.files) and all(
        file_is_intact(folder + path, entry) for path, entry in manifest.files.items()
    )


class StagingWriter:
    """Puts files into the staging folder, linking unchanged ones from the current site.

    Safe to use from forked worker processes: each file is written by exactly one process,
    and the entries each process returns are merged by the parent."""

    def __init__(self, folders: SiteFolders, previous: Manifest, spare: SpareContents | None):
        self.folders = folders
        self.previous = previous
        self.spare = spare  # what the staging folder held when it started from the spare
        # Folders known to exist in the staging folder: a file's folder is made before the
        # file is opened, instead of after a failed open (most pages have a folder of their
        # own). Where the spare's layout may differ, a failed open still makes it.
        self._folders: set[str] = {""}
        # Strings, not Paths: this runs for every file.
        self._site, self._staging = str(folders.out_dir), str(folders.staging)
        self.keep_replaced = False  # keep the site this build replaces as the next spare

    def reuse(self, path: str, key: str | None = None) -> FileEntry | None:
        """Stage the current site's file for `path`, if it was made from the same `key` (or
        from any, for a page known to be made from what the last build made it from) and is
        still as that build left it; None when the file must be made anew."""
        entry = self.previous.files.get(path)
        if entry is None or not entry.key or key not in (None, entry.key):
            return None
        return entry if self._stage_previous(path, entry) else None

    def made(self, path: str, key: str, make: Callable[[], bytes]) -> tuple[FileEntry, bool]:
        """The current site's file for `path` when it was made from the same `key` (empty:
        none is), else `make()`'s bytes staged under the key; and whether they were made."""
        kept = self.reuse(path, key) if key else None
        if kept is not None:
            return kept, False
        return self.put(path, make(), key), True

    def current_file(self, path: str) -> tuple[Path, str] | None:
        """The current site's file at `path` and the digest of its bytes, while it is still
        as the last build left it."""
        entry = self.previous.files.get(path)
        live = os.path.join(self._site, path)
        if entry is None or not file_is_intact(live, entry):
            return None
        return Path(live), entry.digest

    def put(self, path: str, data: bytes, key: str = "") -> FileEntry:
        """Stage `data` at `path`; when the current site has identical bytes there, link them."""
        return self._put(path, bytes_digest(data), functools.partial(_write_bytes, data), key)

    def put_parts(
        self, path: str, parts: Callable[[], contextlib.AbstractContextManager[Iterable[Bytes]]]
    ) -> FileEntry:
        """`put` for the bytes of the parts `parts()` gives, one after the other, written as
        they come rather than joined first (a download is hundreds of megabytes at archive
        scale). `parts` is called once to digest them, and again for each attempt to write."""
        digest = FileDigest()
        with parts() as buffers:
            for buffer in buffers:
                digest.update(buffer)
        return self._put(path, digest.hex(), functools.partial(_write_parts, parts))

    def put_new(self, path: str, chunks: Callable[[], Iterable[Bytes]]) -> FileEntry:
        """Stage a file the last build did not write, its bytes written as `chunks()` makes
        them and digested on the way: with no file of the last build's to link instead, they
        need not all be made before the first is written (a download is hundreds of megabytes
        at archive scale)."""
        if path in self.previous.files:
            raise ValueError(f"{path}: the last build wrote it, so it is staged by put_parts")
        return self._create(path, functools.partial(_written_digested, chunks))

    def _put(
        self, path: str, digest: str, write: Callable[[str], os.stat_result], key: str = ""
    ) -> FileEntry:
        """The current site's file for `path` linked when its bytes have `digest`, else the
        bytes written by `write(target)`."""
        entry = self.previous.files.get(path)
        if entry is not None and entry.digest == digest and self._stage_previous(path, entry):
            return FileEntry(digest, entry.size, entry.mtime_ns, entry.inode, key)

        def written(target: str) -> FileEntry:
            stat = write(target)
            return FileEntry(digest, stat.st_size, stat.st_mtime_ns, stat.st_ino, key)

        return self._create(path, written)

    def finish(self, files: dict[str, FileEntry]) -> None:
        """Called once every file is staged: drops what the spare held that the new site
        does not have, and decides whether the replaced site becomes the next spare."""
        if self.spare is not None:
            self.spare.prune(self._staging, files)
        shared = sum(
            1
            for path, entry in files.items()
            if (old := self.previous.files.get(path)) is not None and old.inode == entry.inode
        )
        # A spare that shares under half its files with the new site would hold mostly stale
        # files on disk, and save little: then it is deleted.
        self.keep_replaced = shared * 2 >= len(self.previous.files)

    def _stage_previous(self, path: str, entry: FileEntry) -> bool:
        """Stage the file `entry` describes: already in place when the spare holds it, else
        linked from the current site. False when neither has it intact."""
        if self.spare is not None and file_is_intact(os.path.join(self._staging, path), entry):
            return True
        current = os.path.join(self._site, path)
        if not file_is_intact(current, entry):
            return False
        self._create(path, functools.partial(os.link, current))
        return True

    def _create(self, path: str, make: Callable[[str], Any]) -> Any:
        """`make(target)` for a file that is not in the staging folder yet, making its folder
        when it is missing."""
        check_output_path(path)
        target = os.path.join(self._staging, path)
        if self.spare is not None:
            self._make_room(path, target)
        else:
            self._make_folder(os.path.dirname(path))
        try:
            return make(target)
        except FileNotFoundError:
            if os.path.lexists(target):  # raised by what made the bytes, not by a missing folder
                raise
            os.makedirs(os.path.dirname(target), exist_ok=True)
            return make(target)

    def _make_folder(self, folder: str) -> None:
        if folder in self._folders:
            return
        try:
            os.mkdir(os.path.join(self._staging, folder))
        except FileExistsError:  # another worker made it
            pass
        except FileNotFoundError:  # its parent is missing too
            os.makedirs(os.path.join(self._staging, folder), exist_ok=True)
        while folder not in self._folders:
            self._folders.add(folder)
            folder = os.path.dirname(folder)

    def _make_room(self, path: str, target: str) -> None:
        """Remove what the spare has at `target`. Never written over: it may be a link to
        the live site's file. Where the spare's layout differs, a file may stand where a
        folder of the path must go, or a folder where the file must go."""
        try:
            os.unlink(target)
        except FileNotFoundError:
            pass
        except NotADirectoryError:
            parts = path.split("/")
            for depth in range(1, len(parts)):
                ancestor = os.path.join(self._staging, *parts[:depth])
                if not os.path.isdir(ancestor):
                    os.unlink(ancestor)
                    break
        except OSError:
            if not os.path.isdir(target):
                raise
            shutil.rmtree(target)


# A file staged anew: created, never written over (each path is staged once). Binary where
# the platform has a text mode. (`os.open` makes the descriptor non-inheritable itself.)
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def _write_bytes(data: bytes, target: str) -> os.stat_result:
    """Written by its descriptor: `open()` wraps it in a file object, which stats the file
    once more on the way, for every file staged."""
    descriptor = os.open(target, NEW_FILE, 0o666)
    try:
        view = memoryview(data)
        while view:  # a write may take only part of the bytes
            view = view[os.write(descriptor, view) :]
        return os.fstat(descriptor)
    finally:
        os.close(descriptor)


def _write_parts(
    parts: Callable[[], contextlib.AbstractContextManager[Iterable[Bytes]]], target: str
) -> os.stat_result:
    with open(target, "xb") as stream, parts() as buffers:  # buffered: pieces are small
        for buffer in buffers:
            stream.write(buffer)
        stream.flush()
        return os.fstat(stream.fileno())


def _written_digested(chunks: Callable[[], Iterable[Bytes]], target: str) -> FileEntry:
    """`_write_parts` of the chunks, digested as they pass."""
    digest = FileDigest()

    def digested() -> Iterator[Bytes]:
        for chunk in chunks():
            digest.update(chunk)
            yield chunk

    stat = _write_parts(lambda: contextlib.nullcontext(digested()), target)
    return FileEntry(digest.hex(), stat.st_size, stat.st_mtime_ns, stat.st_ino)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2). False where the call is unavailable."""
    renameat2 = libc_function("renameat2") if hasattr(os, "O_PATH") else None
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return result == 0


def _swap_in(folders: SiteFolders) -> Path | None:
    """Put the staged site in place; returns where the replaced site now is, if any."""
    out_dir, staging = folders.out_dir, folders.staging
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return None
    if _exchange(staging, out_dir):
        return staging
    retired = folders.retired()
    os.rename(out_dir, retired)
    os.rename(staging, out_dir)
    return retired


def _clear_leftovers(folders: SiteFolders) -> None:
    """A killed build leaves its staging folder or the site it replaced; neither is the site."""
    for leftover in folders.leftovers():
        shutil.rmtree(leftover, ignore_errors=True)
    if folders.staging.exists():
        shutil.rmtree(folders.staging)


@contextlib.contextmanager
def staged_site(
    out_dir: Path, previous: Manifest, manifest: Path | None
) -> Iterator[StagingWriter]:
    """Stage a build: yields a writer; on normal exit the staged folder replaces `out_dir`,
    on any error it is removed and `out_dir` stays as it was. The trash and the spare go
    beside the site's `manifest` in the project's cache; without one, there are none."""
    folders = SiteFolders(out_dir.absolute())
    if manifest is not None:
        trash, spare = manifest.parent / "trash", manifest.with_suffix(".spare")
        folders = SiteFolders(out_dir.absolute(), trash, spare)
    try:
        folders.out_dir.parent.mkdir(parents=True, exist_ok=True)
        _clear_leftovers(folders)
        writer = StagingWriter(folders, previous, take_spare(folders))
        try:
            yield writer
            replaced = _swap_in(folders)
        except BaseException:
            shutil.rmtree(folders.staging, ignore_errors=True)
            raise
        put_away(folders, replaced, writer.keep_replaced)
    except OSError as err:
        raise _write_error(err, out_dir) from None


def _write_error(err: OSError, out_dir: Path) -> ConfsiteError:
    """Named by the output folder, not by a file inside the staging folder nobody sees."""
    where = err.filename
    if where is None or SiteFolders(out_dir.absolute()).staging.as_posix() in str(where):
        where = out_dir
    return ConfsiteError(str(where), f"cannot write the site: {err.strerror or err}")

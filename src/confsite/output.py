"""Write a build into a staging folder, then swap it in for the site in one step.

A failed or killed build therefore leaves the previous site as it was. Files whose content is
unchanged since the last build are hard links to the previous site's files, so they keep their
inode and modification time and a sync-based deploy uploads nothing for them. On Linux the
swap is one `renameat2(RENAME_EXCHANGE)` call; elsewhere two renames.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import fcntl
import functools
import glob
import hashlib
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import ConfsiteError
from .manifest import FileEntry, Manifest

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


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True)
class SiteFolders:
    """The site folder, its staging folder beside it, and where replaced sites go until they
    are deleted: the project's cache when it is on the same file system (so nothing but the
    site is left beside it), else beside the site."""

    out_dir: Path
    trash: Path | None = None

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

    def leftovers(self) -> list[Path]:
        """Staging and replaced sites of earlier builds that were killed or are being deleted."""
        found = [
            path
            for folder in (self.out_dir.parent, self.trash)
            if folder is not None and folder.is_dir()
            for path in folder.glob(f".{glob.escape(self.out_dir.name)}.*")
            if path.is_dir() and (path == self.staging or path.name.startswith(self.old_prefix))
        ]
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


def file_is_intact(out_dir: Path | str, path: str, entry: FileEntry) -> bool:
    """The file is still the one the manifest describes (same size, mtime and inode)."""
    try:
        stat = os.stat(os.path.join(out_dir, path))
    except OSError:
        return False
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino) == (
        entry.size,
        entry.mtime_ns,
        entry.inode,
    )


def site_is_intact(out_dir: Path, manifest: Manifest) -> bool:
    return bool(manifest.files) and all(
        file_is_intact(out_dir, path, entry) for path, entry in manifest.files.items()
    )


class StagingWriter:
    """Puts files into the staging folder, linking unchanged ones from the current site.

    Safe to use from forked worker processes: each file is written by exactly one process,
    and the entries each process returns are merged by the parent."""

    def __init__(self, folders: SiteFolders, previous: Manifest) -> None:
        self.folders = folders
        self.previous = previous
        # Strings, not Paths, and folders remembered once made: this runs for every file.
        self._site, self._staging = str(folders.out_dir), str(folders.staging)
        self._made: set[str] = set()

    def reusable(self, path: str, key: str) -> FileEntry | None:
        """The current site's file for `path`, if it was made from the same `key` and is
        still as that build left it."""
        entry = self.previous.files.get(path)
        if entry is None or entry.key != key or not self._intact(path, entry):
            return None
        return entry

    def link(self, path: str, entry: FileEntry) -> FileEntry:
        os.link(os.path.join(self._site, path), self._target(path))
        return entry

    def put(self, path: str, data: bytes, key: str = "") -> FileEntry:
        """Stage `data` at `path`; when the current site has identical bytes there, link them."""
        digest = content_digest(data)
        entry = self.previous.files.get(path)
        if entry is not None and entry.digest == digest and self._intact(path, entry):
            self.link(path, entry)
            return FileEntry(digest, entry.size, entry.mtime_ns, entry.inode, key)
        with open(self._target(path), "wb", buffering=0) as stream:
            stream.write(data)
            stat = os.fstat(stream.fileno())
        return FileEntry(digest, stat.st_size, stat.st_mtime_ns, stat.st_ino, key)

    def _target(self, path: str) -> str:
        check_output_path(path)
        folder = os.path.dirname(path)
        if folder and folder not in self._made:
            os.makedirs(os.path.join(self._staging, folder), exist_ok=True)
            self._made.add(folder)
        return os.path.join(self._staging, path)

    def _intact(self, path: str, entry: FileEntry) -> bool:
        return file_is_intact(self._site, path, entry)


@functools.cache
def libc_function(name: str) -> Callable[..., int] | None:
    """A function of the C library (`renameat2`, `prctl`), or None where there is none."""
    libc_name = ctypes.util.find_library("c")
    return getattr(ctypes.CDLL(libc_name, use_errno=True), name, None) if libc_name else None


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
    retired = folders.retired()
    if _exchange(staging, out_dir):
        os.rename(staging, retired)
    else:
        os.rename(out_dir, retired)
        os.rename(staging, out_dir)
    return retired


def _clear_leftovers(folders: SiteFolders) -> None:
    """A killed build leaves its staging folder or the site it replaced; neither is the site."""
    for leftover in folders.leftovers():
        shutil.rmtree(leftover, ignore_errors=True)
    if folders.staging.exists():
        shutil.rmtree(folders.staging)


def fork_is_safe() -> bool:
    """Forking copies only the calling thread: a lock another thread held at that moment stays
    locked forever in the child. So a process with other threads (`confsite serve`) never forks."""
    return hasattr(os, "fork") and threading.active_count() == 1


def remove_in_background(folder: Path) -> None:
    """Delete a replaced site from a detached process. Unlinking tens of thousands of entries
    takes seconds on some disks, and the build is done once the new site is in place; a folder
    left by an interrupted deletion is cleared by the next build. Where forking is not safe,
    a thread deletes it instead."""
    if not fork_is_safe():
        threading.Thread(target=shutil.rmtree, args=(folder, True), daemon=True).start()
        return
    child = os.fork()
    if child:
        os.waitpid(child, 0)
        return
    try:  # the child forks again so the deleting process is not left for us to reap
        if os.fork() == 0:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for stream in (0, 1, 2):  # release the caller's pipes at once
                os.dup2(devnull, stream)
            os.closerange(3, 1024)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        os._exit(0)


@contextlib.contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """One build at a time per output folder. The lock file lives in the project's cache, so
    nothing but the site appears beside the output folder; without a writable cache, no lock."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = open(path, "a")  # noqa: SIM115 - held for the whole build
    except OSError:
        yield
        return
    with stream:
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfsiteError(
                str(path), "another build is writing the same output folder; try again when it ends"
            ) from None
        yield


@contextlib.contextmanager
def staged_site(
    out_dir: Path, previous: Manifest, trash: Path | None = None
) -> Iterator[StagingWriter]:
    """Stage a build: yields a writer; on normal exit the staged folder replaces `out_dir`,
    on any error it is removed and `out_dir` stays as it was."""
    folders = SiteFolders(out_dir.absolute(), trash)
    try:
        folders.out_dir.parent.mkdir(parents=True, exist_ok=True)
        _clear_leftovers(folders)
        folders.staging.mkdir()
        try:
            yield StagingWriter(folders, previous)
            retired = _swap_in(folders)
        except BaseException:
            shutil.rmtree(folders.staging, ignore_errors=True)
            raise
    except OSError as err:
        raise _write_error(err, out_dir) from None
    if retired is not None:
        remove_in_background(retired)


def _write_error(err: OSError, out_dir: Path) -> ConfsiteError:
    """Named by the output folder, not by a file inside the staging folder nobody sees."""
    where = err.filename
    if where is None or SiteFolders(out_dir.absolute()).staging.as_posix() in str(where):
        where = out_dir
    return ConfsiteError(str(where), f"cannot write the site: {err.strerror or err}")

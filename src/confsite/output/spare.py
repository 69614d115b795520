"""The spare: the site a build replaced, readied in the background as the next build's start.

The site a build replaces is kept in the project's cache as the *spare*, and the next build
starts its staging folder from it: its folders exist and most of its files are already the
links the next site needs, so a small edit costs a few file operations instead of a folder
and a link per page (double buffering). A background process readies the spare once the
build is done: it lists the spare's files (removing links and anything else that is not a file
or a folder, as the site it was may have been changed by hand), or, after a build that replaced
no site or most of it, links a spare up from the new site. Nothing in the spare is trusted
beyond that listing: a file in it is kept only when its inode, size and mtime are those the
manifest records, and whatever the new site does not have is removed before the swap.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..cache.stores import load_pickle, save_pickle
from .processes import fork_is_safe, run_detached

if TYPE_CHECKING:
    from .staging import SiteFolders


def maker_runs(folder: Path) -> bool:
    """Whether the process named in a spare-in-making folder's name still runs."""
    try:
        os.kill(int(folder.name.rsplit("-", 1)[1]), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def _folder_identity(folder: Path) -> bytes:
    """A folder keeps its inode through renames: what ties a spare to its saved contents."""
    stat = folder.stat()
    return f"{stat.st_dev}:{stat.st_ino}".encode()


@dataclass
class SpareContents:
    """What a staging folder started from the spare held: its files and folders, by site path.
    Anything else in it (a link someone made, say) is removed before the build writes there,
    so no write can follow it out of the staging folder."""

    files: set[str] = field(default_factory=set)
    folders: set[str] = field(default_factory=set)

    @classmethod
    def scan(cls, staging: str) -> SpareContents:
        """Walk the folder, removing whatever is neither a file nor a folder."""
        contents = cls()
        pending = [""]
        while pending:
            folder = pending.pop()
            with os.scandir(os.path.join(staging, folder)) as entries:
                for item in entries:
                    path = folder + item.name
                    if item.is_dir(follow_symlinks=False):
                        contents.folders.add(path)
                        pending.append(path + "/")
                    elif item.is_file(follow_symlinks=False):
                        contents.files.add(path)
                    else:
                        os.unlink(item.path)
        return contents

    @classmethod
    def load(cls, listing: Path, folder: Path) -> SpareContents | None:
        """The contents the background process that readied the spare found, provided they
        are this folder's; used once."""
        contents = load_pickle(listing, _folder_identity(folder), cls)
        with contextlib.suppress(OSError):
            listing.unlink()
        return contents

    def save(self, listing: Path, folder: Path) -> None:
        save_pickle(listing, _folder_identity(folder), self)

    def prune(self, staging: str, keep: Iterable[str]) -> None:
        """Remove the files the new site does not have, then the folders left empty."""
        stale = self.files.difference(keep)
        for path in stale:
            target = os.path.join(staging, path)
            try:
                os.unlink(target)
            except OSError:  # gone, or a folder of the new site stands there now
                if os.path.lexists(target) and not os.path.isdir(target):
                    raise
        emptied = {os.path.dirname(path) for path in stale} & self.folders
        for folder in sorted(emptied, key=lambda f: f.count("/"), reverse=True):
            while folder:
                try:
                    os.rmdir(os.path.join(staging, folder))
                except OSError:  # not empty (or gone): so are the folders above it
                    break
                folder = os.path.dirname(folder)


def take_spare(folders: SiteFolders) -> SpareContents | None:
    """Start the staging folder from the spare, if there is one; None: start it empty."""
    if folders.spare is not None:
        try:
            os.rename(folders.spare, folders.staging)
        except OSError:  # none, or on another file system
            pass
        else:
            listed = SpareContents.load(folders.spare_listing, folders.staging)
            return listed or SpareContents.scan(str(folders.staging))
    folders.staging.mkdir()
    return None


def put_away(folders: SiteFolders, replaced: Path | None, keep: bool) -> None:
    """Ready the replaced site as the next spare, or delete it; without a spare, link one up
    from the new site. Both in the background: the new site is in place already."""
    spare = folders.spare
    if replaced is not None and keep and spare is not None:
        readying = folders.spare_in_making()
        try:
            os.rename(replaced, readying)
        except OSError:  # the cache is on another file system: delete it instead
            pass
        else:
            run_detached(_ready_spare, folders, readying)
            return
    if replaced is not None:
        if replaced == folders.staging:  # the next build makes its staging folder here
            retired = folders.retired()
            os.rename(replaced, retired)
            replaced = retired
        run_detached(shutil.rmtree, replaced, True)
    if spare is not None and not spare.exists() and fork_is_safe():
        run_detached(_make_spare, folders)


def _make_spare(folders: SiteFolders) -> None:
    """Link a copy of the site up as the spare. A build may swap the site meanwhile: the
    spare is checked file by file when used, so a mixed one costs only the stale links."""
    making = folders.spare_in_making()
    try:
        shutil.copytree(folders.out_dir, making, symlinks=True, copy_function=os.link)
    except OSError:
        shutil.rmtree(making, ignore_errors=True)
        return
    _ready_spare(folders, making)


def _ready_spare(folders: SiteFolders, folder: Path) -> None:
    """List the folder's contents for the build that will use it (removing links and other
    strangers on the way: the site it was may have been changed by hand), then make it the
    spare. Runs in the background, under a name with its own pid."""
    assert folders.spare is not None
    readying = folders.spare_in_making()
    try:
        if folder != readying:
            os.rename(folder, readying)
        SpareContents.scan(str(readying)).save(folders.spare_listing, readying)
        os.rename(readying, folders.spare)  # fails when another spare got there first
    except OSError:
        shutil.rmtree(readying, ignore_errors=True)

"""Write the output tree atomically: everything goes to a staging folder, then replaces the site.

A failed or killed build therefore leaves the previous site as it was. On Linux the swap is one
`renameat2(RENAME_EXCHANGE)` call; elsewhere two renames.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .diagnostics import ConfsiteError
from .progress import SILENT, Progress

SITE_MARKER = "papers.json"  # every confsite build has it; a folder without it is not ours


@dataclass(frozen=True)
class OutputFile:
    path: str  # relative POSIX path inside the site
    data: bytes


class OutputTree:
    """The files of one build, keyed by path; writing a path twice is a bug, not a last-wins."""

    def __init__(self) -> None:
        self._files: dict[str, OutputFile] = {}

    def add(self, path: str, data: bytes) -> None:
        pure = PurePosixPath(path)
        if pure.is_absolute() or ".." in pure.parts or not pure.parts or path != str(pure):
            raise RuntimeError(f"internal error: unsafe output path {path!r}")
        if path in self._files:
            raise RuntimeError(f"internal error: {path!r} would be written twice")
        self._files[path] = OutputFile(path, data)

    def files(self) -> list[OutputFile]:
        return [self._files[path] for path in sorted(self._files)]

    def __len__(self) -> int:
        return len(self._files)

    @property
    def total_bytes(self) -> int:
        return sum(len(f.data) for f in self._files.values())


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


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2). False where the call is unavailable."""
    libc_name = ctypes.util.find_library("c")
    if not libc_name or not hasattr(os, "O_PATH"):
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return result == 0


def _write_tree(staging: Path, tree: OutputTree, progress: Progress) -> None:
    progress.start("write", len(tree))
    for output in tree.files():
        target = staging / output.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(output.data)
        progress.advance()
    progress.finish()


def write_site(out_dir: Path, tree: OutputTree, progress: Progress = SILENT) -> None:
    out_dir = out_dir.absolute()
    staging = out_dir.with_name(f".{out_dir.name}.staging-{os.getpid()}")
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        _write_tree(staging, tree, progress)
        if out_dir.exists() and _exchange(staging, out_dir):
            shutil.rmtree(staging)
            return
        if out_dir.exists():
            previous = out_dir.with_name(f".{out_dir.name}.previous-{os.getpid()}")
            os.rename(out_dir, previous)
            os.rename(staging, out_dir)
            shutil.rmtree(previous)
        else:
            os.rename(staging, out_dir)
    except OSError as err:
        shutil.rmtree(staging, ignore_errors=True)
        where = err.filename or out_dir
        raise ConfsiteError(str(where), f"cannot write the site: {err.strerror}") from None

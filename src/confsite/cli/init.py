"""`confsite init`: write a new site folder from the starter files shipped with confsite."""

from __future__ import annotations

from pathlib import Path

from ..diagnostics import ConfsiteError

STARTER = Path(__file__).resolve().parent / "starter"
# Files a package cannot ship under their real name (hidden ones, and folders the package data
# globs would miss), by their path in the starter.
RENAMED = {"gitignore": ".gitignore", "github-pages.yml": ".github/workflows/pages.yml"}


def starter_files() -> list[tuple[str, bytes]]:
    """(relative path in the new site, content) of every starter file, sorted."""
    files = []
    for path in sorted(STARTER.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            relative = path.relative_to(STARTER).as_posix()
            files.append((RENAMED.get(relative, relative), path.read_bytes()))
    return sorted(files)


def init_site(target: Path) -> list[str]:
    """Create `target` (or fill it when empty) with the starter site; the paths written.

    A folder that already holds anything is refused: init never overwrites a file."""
    if target.exists():
        if not target.is_dir():
            raise ConfsiteError(str(target), "exists and is not a folder")
        if any(target.iterdir()):
            raise ConfsiteError(
                str(target), "folder is not empty; give a new folder name or an empty folder"
            )
    try:
        target.mkdir(parents=True, exist_ok=True)
        written = []
        for relative, data in starter_files():
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("xb") as handle:
                handle.write(data)
            written.append(relative)
    except OSError as err:
        raise ConfsiteError(str(target), f"cannot write the new site: {err.strerror}") from None
    return written

"""A build that fails leaves the previous site untouched and says why on one line: a warning
under --strict, a bad source, an output folder that cannot be written, a full disk (a small
tmpfs), and a write error injected at several points of the write phase.

The project is tests/fixtures/small; its site lives in `public/site`, alone in its folder, so
anything a failed build leaves beside it is seen.
"""

from __future__ import annotations

import builtins
import errno
import hashlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, wait_for_spare

from confsite.cache.manifest import CACHE_FOLDER, manifest_path
from confsite.cli.commands import main as confsite_main
from confsite.diagnostics import ConfsiteError, Diagnostics
from confsite.output.processes import build_lock
from confsite.pipeline import BuildOptions, build

SMALL = REPO / "tests" / "fixtures" / "small"


def tree_digest(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def run_build(project: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "confsite", "build", "--config", "site.yaml", "--out", str(out)]
        + list(args),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )


def assert_failed_cleanly(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    assert result.stderr.rstrip("\n").endswith(errors[0]), "the error is the last line"
    for word in words:
        assert word in errors[0], errors[0]


def beside(site: Path) -> list[str]:
    return sorted(p.name for p in site.parent.iterdir() if p.name != site.name)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(SMALL, tmp_path / "project")
    return tmp_path / "project"


@pytest.fixture
def site(project: Path) -> Path:
    """The small project built once into public/site: the previous site every test keeps."""
    out = project.parent / "public" / "site"
    result = run_build(project, out)
    assert result.returncode == 0, result.stderr
    return out


def change_title(project: Path) -> None:
    config = project / "site.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("title: Small", "title: Changed Small"), encoding="utf-8")


@pytest.fixture
def mount() -> Iterator:
    """`mount(args...)`: a mount that is undone after the test; skips where mounting is not
    permitted (an unprivileged container)."""
    mounted: list[Path] = []

    def do(*args: str) -> None:
        result = subprocess.run(["mount", *args], capture_output=True, text=True)
        if result.returncode != 0:
            pytest.skip(f"cannot mount here: {result.stderr.strip()}")
        target = Path(args[-1])
        if target not in mounted:
            mounted.append(target)

    yield do
    for target in reversed(mounted):
        subprocess.run(["umount", "-l", str(target)], check=False)


# --- failures before anything is written -----------------------------------------------------


def test_strict_with_a_warning_keeps_the_previous_site(project: Path, site: Path) -> None:
    before = tree_digest(site)
    change_title(project)
    result = run_build(project, site, "--strict")
    assert_failed_cleanly(result, "awards.txt:1:", "no title", "--strict makes warnings fatal")
    assert tree_digest(site) == before and beside(site) == []


def test_a_bad_source_keeps_the_previous_site(project: Path, site: Path) -> None:
    before = tree_digest(site)
    (project / "session.txt").write_bytes(b"Oral Session 1\n\x00\n")
    result = run_build(project, site)
    assert_failed_cleanly(result, "session.txt:2:", "NUL byte")
    assert tree_digest(site) == before and beside(site) == []


@pytest.mark.parametrize("args", [(), ("--no-cache",)], ids=["cached", "no cache"])
def test_a_build_while_another_writes_the_folder_is_refused(
    project: Path, site: Path, args: tuple[str, ...]
) -> None:
    """Two builds of one output folder would share its staging folder, each removing or
    swapping in what the other wrote: while one holds the folder, another is refused, with
    caches or without, and the site stays as it was."""
    before = tree_digest(site)
    change_title(project)
    with build_lock(site):  # as a running build holds it
        result = run_build(project, site, *args)
    assert_failed_cleanly(result, str(site), "another build is writing this output folder")
    assert tree_digest(site) == before
    assert beside(site) == []
    assert run_build(project, site, *args).returncode == 0  # once it has let go


# --- an output folder that cannot be written ---------------------------------------------------


def test_a_read_only_output_folder(project: Path, site: Path, mount) -> None:
    """The site's folder mounted read-only: root's permission bits would not stop the build,
    a read-only file system does."""
    before = tree_digest(site)
    mount("--bind", str(site.parent), str(site.parent))
    mount("-o", "remount,bind,ro", str(site.parent))
    change_title(project)
    result = run_build(project, site)
    assert_failed_cleanly(result, "cannot write the site", "Read-only file system")
    assert tree_digest(site) == before and beside(site) == []


def test_an_output_folder_that_is_a_mount_point(project: Path, site: Path, mount) -> None:
    """A site folder that is itself a mount (a container volume) cannot be renamed away; the
    build must say so and leave it as it was."""
    before = tree_digest(site)
    mount("--bind", str(site), str(site))
    change_title(project)
    result = run_build(project, site)
    print(f"build onto a mount point: exit {result.returncode}, {result.stderr.strip()!r}")
    if result.returncode == 0:  # a writer that updates in place is fine, if the site is whole
        assert "Changed Small" in (site / "index.html").read_text(encoding="utf-8")
    else:
        assert_failed_cleanly(result, "cannot write the site")
        assert tree_digest(site) == before
    assert beside(site) == []


def test_an_output_path_under_a_file(project: Path) -> None:
    (project / "notes.txt").write_text("a file, not a folder", encoding="utf-8")
    result = run_build(project, project / "notes.txt" / "site")
    assert_failed_cleanly(result, "notes.txt", "cannot write the site")
    assert (project / "notes.txt").read_text(encoding="utf-8") == "a file, not a folder"


# --- a full disk --------------------------------------------------------------------------------


def test_a_full_disk_keeps_the_previous_site(project: Path, tmp_path: Path, mount) -> None:
    """The site on a tmpfs with room for it and half of its pages again: a rebuild that changes
    every page (a new site title) must write them all anew beside the site (unchanged files
    are only linked) and runs out of space."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mount("-t", "tmpfs", "-o", "size=64m", "tmpfs", str(disk))
    site = disk / "site"
    first = run_build(project, site)
    assert first.returncode == 0, first.stderr
    used = shutil.disk_usage(disk).used
    pages = sum(-(-p.stat().st_size // 4096) * 4096 for p in site.rglob("*.html"))
    mount("-o", f"remount,size={(used + pages // 2) // 4096 * 4096}", "tmpfs", str(disk))
    free = shutil.disk_usage(disk).free
    assert 0 < free < pages
    before = tree_digest(site)
    change_title(project)
    result = run_build(project, site)
    assert_failed_cleanly(result, "cannot write the site", "No space left on device")
    assert tree_digest(site) == before and beside(site) == []
    assert shutil.disk_usage(disk).free == free, "the failed build's files were not removed"


# --- a write error injected into the build -----------------------------------------------------

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class DiskFills:
    """Lets `allowed` file writes through, then fails every further one with ENOSPC. A write is
    an open for writing (builtin open, io.open, os.open) or a new link (os.link, os.symlink),
    the calls a writer that copies, streams or hard-links files goes through."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, allowed: int) -> None:
        self.allowed = allowed
        self.writes = 0
        self.paths: list[str] = []  # of every write, in order
        self.failed: list[str] = []
        real_open, real_os_open = builtins.open, os.open
        real_link, real_symlink = os.link, os.symlink

        def opener(file, mode="r", *args, **kwargs):
            if any(flag in mode for flag in "wax+"):
                self.count(file)
            return real_open(file, mode, *args, **kwargs)

        def os_opener(path, flags, *args, **kwargs):
            if flags & WRITE_FLAGS:
                self.count(path)
            return real_os_open(path, flags, *args, **kwargs)

        def linker(src, dst, *args, **kwargs):
            self.count(dst)
            return real_link(src, dst, *args, **kwargs)

        def symlinker(src, dst, *args, **kwargs):
            self.count(dst)
            return real_symlink(src, dst, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", opener)
        monkeypatch.setattr(io, "open", opener)
        monkeypatch.setattr(os, "open", os_opener)
        monkeypatch.setattr(os, "link", linker)
        monkeypatch.setattr(os, "symlink", symlinker)

    def count(self, path: object) -> None:
        self.writes += 1
        self.paths.append(str(path))
        if self.writes > self.allowed:
            self.failed.append(str(path))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def site_writes(project: Path, site: Path, folder: Path) -> list[int]:
    """Which of its writes the build under test makes into the site (the others go to the
    cache, where failing costs only reuse) when nothing fails, counted on a clone whose
    every file is a hard link (cache and spare included), so it reuses what the real one
    would. The cache is keyed by the output path, so its entries are renamed for the clone's."""
    clone = folder / "clone"
    shutil.copytree(project.parent, clone, symlinks=True, copy_function=os.link)
    cloned_project, cloned_site = clone / project.name, clone / site.relative_to(project.parent)
    old = manifest_path(cloned_project, site).stem
    new = manifest_path(cloned_project, cloned_site).stem
    for entry in (cloned_project / CACHE_FOLDER).glob(f"{old}.*"):
        entry.rename(entry.with_name(new + entry.name[len(old) :]))
    with pytest.MonkeyPatch.context() as monkeypatch:
        disk = DiskFills(monkeypatch, allowed=10**9)
        build(BuildOptions(cloned_project / "site.yaml", cloned_site, jobs=1), Diagnostics())
    staging = f"{os.sep}.{cloned_site.name}.staging{os.sep}"
    return [number for number, path in enumerate(disk.paths) if staging in path]


@pytest.mark.parametrize("point", ["first", "second", "middle", "last"])
def test_an_injected_write_error_keeps_the_previous_site(
    project: Path, site: Path, monkeypatch: pytest.MonkeyPatch, point: str, tmp_path: Path
) -> None:
    wait_for_spare(project)
    before = tree_digest(site)
    change_title(project)
    writes = site_writes(project, site, tmp_path / "count")
    assert len(writes) > 10, "the build under test writes too few files to fail at these points"
    allowed = writes[{"first": 0, "second": 1, "middle": len(writes) // 2, "last": -1}[point]]
    disk = DiskFills(monkeypatch, allowed)
    with pytest.raises(ConfsiteError) as raised:  # one process, so every write is counted here
        build(BuildOptions(project / "site.yaml", site, jobs=1), Diagnostics())
    monkeypatch.undo()
    assert disk.failed, "no write was attempted after the allowed ones"
    assert "cannot write the site: No space left on device" in str(raised.value)
    assert tree_digest(site) == before and beside(site) == []


def test_an_injected_write_error_through_the_command_line(
    project: Path, site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    before = tree_digest(site)
    change_title(project)
    monkeypatch.chdir(project)
    DiskFills(monkeypatch, 3)
    status = confsite_main(["build", "--config", "site.yaml", "--out", str(site), "--jobs", "1"])
    monkeypatch.undo()
    captured = capsys.readouterr()
    assert status == 1
    errors = [line for line in captured.err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].endswith("cannot write the site: No space left on device")
    assert "Traceback" not in captured.err
    assert tree_digest(site) == before and beside(site) == []

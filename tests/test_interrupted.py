"""A build killed with SIGKILL at any moment leaves the previous site as it was, byte for byte,
and the next build cleans up after it.

Black-box: `python -m confsite build` runs in a subprocess on a copy of the repository's project
(the seeds), with its output in a folder of its own (`public/site`) so anything a build leaves
beside the site is seen.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import copy_seeds_project

# Kill points as fractions of a measured full build: reading, modelling, rendering, writing.
KILL_FRACTIONS = (0.05, 0.2, 0.4, 0.6, 0.8, 0.95)


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file and symlink of a folder with a hash of its bytes (or its link target)."""
    digest: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            digest[name] = "link:" + os.readlink(path)
        elif path.is_file():
            digest[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def start_build(project: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "confsite", "build", "--config", "site.yaml", "--out", str(out)],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_check(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "confsite", "check", str(site)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def kill(process: subprocess.Popen[str]) -> bool:
    """SIGKILL; True when the build was still running (the kill really interrupted it)."""
    running = process.poll() is None
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    return running


@pytest.fixture(scope="module")
def project(module_folder: Callable[[str], Path]) -> Path:
    return copy_seeds_project(module_folder("interrupted") / "project")


def change_input(project: Path, round_number: int) -> None:
    """A change every page shows (the site title is in every header), so a rebuild must
    rewrite every file rather than find it unchanged."""
    config = project / "site.yaml"
    lines = config.read_text(encoding="utf-8").split("\n")
    lines = [
        f"title: ICLR Proceedings Archive, edition {round_number}"
        if line.startswith("title:")
        else line
        for line in lines
    ]
    config.write_text("\n".join(lines), encoding="utf-8")


def test_sigkill_at_any_point_leaves_the_previous_site_intact(project: Path) -> None:
    public = project.parent / "public"
    out = public / "site"
    started = time.monotonic()
    first = start_build(project, out)
    _, stderr = first.communicate(timeout=600)
    full_build = time.monotonic() - started
    assert first.returncode == 0, stderr
    checked = run_check(out)
    assert checked.returncode == 0, checked.stderr
    before = tree_digest(out)
    assert len(before) > 6000

    interrupted, outcomes = [], []
    for round_number, fraction in enumerate(KILL_FRACTIONS, start=1):
        change_input(project, round_number)
        process = start_build(project, out)
        time.sleep(fraction * full_build)
        landed = kill(process)
        how = f"killed at {fraction:.2f} of a build"
        previous, before = before, site_after(project, out, before, process, landed, how)
        if landed:
            interrupted.append(fraction)
            outcomes.append("previous site" if before == previous else "new site")
    assert len(interrupted) >= len(KILL_FRACTIONS) - 2, (full_build, interrupted)

    # Kills timed by what the build does rather than by the clock: once its staging folder
    # appears beside the site, once it holds some files, once it holds most of them.
    staged_kills = []
    for round_number, wanted in enumerate((0, 200, len(before) * 9 // 10), start=10):
        change_input(project, round_number)
        process = start_build(project, out)
        landed = wait_for_staging(public, process, wanted) is not None and kill(process)
        process.wait(timeout=600)
        how = f"killed at {wanted} staged files"
        previous, before = before, site_after(project, out, before, process, landed, how)
        if landed:
            staged_kills.append(wanted)
            outcomes.append("previous site" if before == previous else "new site")
    assert len(staged_kills) >= 2, "no kill landed while the build was writing"
    print(
        f"full build {full_build:.1f} s; killed at {interrupted} of it and at {staged_kills} "
        f"staged files; sites in place after each kill: {outcomes}; "
        f"left beside the site: {sorted(p.name for p in public.iterdir())}"
    )

    change_input(project, 99)
    final = start_build(project, out)
    _, stderr = final.communicate(timeout=600)
    assert final.returncode == 0, stderr
    assert "edition 99" in (out / "index.html").read_text(encoding="utf-8")
    assert run_check(out).returncode == 0
    leftovers = sorted(p.name for p in public.iterdir() if p.name != "site")
    assert leftovers == [], f"left beside the site after a normal build: {leftovers}"


def site_after(
    project: Path,
    out: Path,
    before: dict[str, str],
    process: subprocess.Popen[str],
    killed: bool,
    how: str,
) -> dict[str, str]:
    """The site as a kill left it, which must be one of two whole sites: the previous one,
    byte for byte, or (when the kill came after the swap, as the build tidied up) exactly the
    site a build of the new input gives. A build that ended before the kill must have
    succeeded. Returns the site now in place."""
    now = tree_digest(out)
    if not killed:
        assert process.returncode == 0, f"a build that was not killed failed ({how})"
        return now
    if now == before:
        return before
    reference = project.parent / "reference" / "site"
    shutil.rmtree(reference.parent, ignore_errors=True)
    finished = start_build(project, reference)
    _, stderr = finished.communicate(timeout=600)
    assert finished.returncode == 0, stderr
    assert now == tree_digest(reference), f"a build {how} left neither the old nor the new site"
    shutil.rmtree(reference.parent)
    return now


def wait_for_staging(
    public: Path, process: subprocess.Popen[str], files: int, timeout: float = 600
) -> Path | None:
    """The folder a build writes into beside the site, once it holds at least `files` files;
    None when the build ended first. Only a folder created or changed since the build started
    counts, so an untouched leftover of an earlier kill is not taken for it (whatever name
    the build gives its staging folder)."""

    def signature(path: Path) -> tuple[str, int, int] | None:
        try:
            info = path.stat()
        except FileNotFoundError:
            return None
        return (path.name, info.st_ino, info.st_ctime_ns)

    existing = {signature(p) for p in public.iterdir()}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        fresh = [p for p in public.iterdir() if p.name != "site" and signature(p) not in existing]
        for folder in fresh:
            try:
                count = sum(1 for p in folder.rglob("*") if p.is_file()) if files else 0
            except FileNotFoundError:
                continue  # swapped in or removed while counting
            if count >= files:
                return folder
        time.sleep(0.002 if not files else 0.02)
    return None

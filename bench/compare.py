"""Time full builds of one corpus with two revisions of confsite, alternating, to measure a change.

The same build varies by 10-20% from run to run on a shared machine, more than most single
changes gain, so one build of each revision after the other says little. This builds the
corpus with each revision in turn (a fresh process each, no cache, after a `sync`, a pause
and the machine idle), `--runs` times, and prints every build's wall and CPU seconds and the
medians. Each revision is checked out into a git worktree under `--work` (kept for the next
comparison: `git worktree remove` it when done); the current checkout is left as it is.

    python bench/compare.py 8762f4a HEAD --corpus /tmp/corpus-10k --runs 3
    python bench/corpus.py 10000 /tmp/corpus-10k long-math   # to make a corpus first

With `--one-abstract`, rebuilds are timed instead: each revision builds its own copy of the
corpus once, with its caches (not timed), then each run changes one abstract in both copies and
rebuilds them in turn.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from run import change_one_abstract, idle_machine, own_copy  # bench/run.py's own

REPO = Path(__file__).resolve().parent.parent
PAUSE_SECONDS = 1.0  # after a build, as the next build should not meet its background work
# On ext4 without a journal (the development machine's disk), creating a file skips, one by one,
# the free inodes deleted in the last minute or so: a comparison run right after another one
# deleted its sites took seconds more per build, the first builds most (see bench/run.py).
INODE_RECENCY_SECONDS = 65


def worktree(revision: str, work: Path) -> Path:
    """A checkout of `revision` under `work`, sharing the repository's node_modules."""
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", revision],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    folder = work / commit
    if not folder.exists():
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(folder), commit],
            check=True,
            capture_output=True,
        )
        (folder / "node_modules").symlink_to(REPO / "node_modules")
    if not compileall.compile_dir(folder / "src", quiet=1):  # as installing does (bench/run.py)
        print(f"warning: {folder} could not all be compiled", file=sys.stderr)
    return folder


def timed_build(
    checkout: Path, corpus: Path, out: Path, cached: bool = False
) -> tuple[float, float]:
    """Wall and CPU seconds (user and system, the workers included) of one build: a full
    build, or with `cached` one that uses the caches of the builds before."""
    os.sync()
    idle_machine(PAUSE_SECONDS)
    environment = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    options = [] if cached else ["--no-cache"]
    subprocess.run(
        [sys.executable, "-m", "confsite", "build", *options, "-q", "--out", str(out)],
        cwd=corpus,
        env=environment,
        check=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="a git revision, e.g. a commit before the change")
    parser.add_argument("after", help="a git revision, e.g. HEAD")
    parser.add_argument("--corpus", type=Path, required=True, help="a folder with site.yaml")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/confsite-compare"))
    parser.add_argument(
        "--one-abstract", action="store_true", help="time rebuilds after one abstract changed"
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    checkouts = {name: worktree(name, args.work) for name in (args.before, args.after)}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in checkouts}
    outputs = args.work / "sites"  # deleted at the end: deleting between builds slows them
    wait_for_deleted_inodes(args.work / "sites-deleted-at")
    projects = {name: args.corpus.resolve() for name in checkouts}
    if args.one_abstract:
        # Named by this process: an earlier comparison's spare may still be in the making.
        projects = {
            name: own_copy(args.corpus, outputs / f"project-{name}-{os.getpid()}")
            for name in checkouts
        }
        for name, checkout in checkouts.items():
            timed_build(checkout, projects[name], projects[name] / "_site", cached=True)
    for run in range(args.runs):
        for name, checkout in checkouts.items():
            if args.one_abstract:
                out = projects[name] / "_site"
                change_one_abstract(projects[name], out)
            else:
                out = outputs / f"{run}-{name}"
            wall, cpu = timed_build(checkout, projects[name], out, cached=args.one_abstract)
            times[name].append((wall, cpu))
            print(f"{name:>12}  {wall:6.2f} s wall  {cpu:6.2f} s CPU", flush=True)
    for name, runs in times.items():
        wall, cpu = (statistics.median(values) for values in zip(*runs, strict=True))
        print(f"{name:>12}  median {wall:6.2f} s wall  {cpu:6.2f} s CPU")
    shutil.rmtree(outputs, ignore_errors=True)
    (args.work / "sites-deleted-at").write_text(str(time.time()))


def wait_for_deleted_inodes(stamp: Path) -> None:
    """Wait until the sites an earlier comparison deleted are long enough gone not to slow
    the builds of this one."""
    try:
        deleted = float(stamp.read_text())
    except (OSError, ValueError):
        return
    remaining = deleted + INODE_RECENCY_SECONDS - time.time()
    if remaining > 0:
        print(f"waiting {remaining:.0f} s: an earlier comparison just deleted its sites")
        time.sleep(remaining)


if __name__ == "__main__":
    main()

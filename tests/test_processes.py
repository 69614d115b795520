"""Results from a forked child (output/processes.py · ForkedResults), and where the collector
runs in a build.

The forked cases run in a fresh interpreter: a process with other threads (a browser test's,
a server's) never forks, and makes the results itself instead."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import copy_seeds_project

import confsite.cache.inputs as inputs
import confsite.pipeline as pipeline
from confsite.config import SiteConfig, load_config
from confsite.diagnostics import Diagnostics
from confsite.model.records import Entry
from confsite.output.processes import ForkedResults, collector_off, steps_niced
from confsite.readers.plugins import site_registry
from confsite.readers.registry import Registry
from confsite.text import plain

GOES_ON = """
import sys, time
from pathlib import Path
from confsite.output.processes import ForkedResults

went_on = Path(sys.argv[1])
LARGE = 4_000_000  # bytes: many times a pipe's buffer

def work():
    yield "x" * LARGE
    went_on.touch()  # reached only once the first result no longer blocks the child
    yield "second"

results = ForkedResults(work)
deadline = time.monotonic() + 20
while not went_on.exists() and time.monotonic() < deadline:
    time.sleep(0.02)
print("went on" if went_on.exists() else "waited")
print(results.next() == "x" * LARGE, results.next() == "second")
results.close()
"""

STOPS_EARLY = """
from confsite.output.processes import ChildStopped, ForkedResults

def work():
    yield from ({"n": n, "text": "y" * (n * 50_000)} for n in range(5))
    raise SystemExit(1)  # ends before a sixth result

results = ForkedResults(work)
print([results.next()["n"] for _ in range(5)])
try:
    results.next()
except ChildStopped:
    print("stopped")
results.close()
"""


KILLED_MID_RESULT = """
import multiprocessing, os, signal, time
from confsite.output.processes import ChildStopped, ForkedResults

def work():
    yield "y" * 20_000_000  # far more than a pipe holds: it is still being written when
    time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGKILL)

results = ForkedResults(work)
for child in multiprocessing.active_children():
    child.join()  # dead, with part of the result written
try:
    results.next()
except ChildStopped as stopped:
    print(stopped)
results.close()
"""


RAISES = """
import errno
from confsite.output.processes import ForkedResults

def work():
    yield "first"
    raise OSError(errno.EXDEV, "Invalid cross-device link", "site/search/index.js")

results = ForkedResults(work)
print(results.next())
try:
    results.next()
except OSError as error:
    print(error.errno == errno.EXDEV, error.filename)
results.close()
"""


COLLECTOR = """
import gc
from confsite.output.processes import (
    ForkedResults, collecting, collector_off, objects_frozen, worker_pool
)

class Worker:
    def collector(self, _):
        return gc.isenabled(), gc.get_threshold()[0]

with collector_off():
    print("off", gc.isenabled())
    child = ForkedResults(lambda: iter([gc.isenabled()]))
    print("forked child", child.next())
    child.close()
    with worker_pool(Worker(), 2) as pool:
        print("pool worker", list(pool.map_unordered("collector", [0])))
    with worker_pool(Worker(), 1) as pool:
        print("pool here", list(pool.map_unordered("collector", [0])))
    with collecting():
        print("collecting", gc.isenabled())
        with objects_frozen():
            pass
        print("still frozen", gc.get_freeze_count() > 0)
    print("after collecting", gc.isenabled(), gc.get_threshold()[0], gc.get_freeze_count())
print("after", gc.isenabled())
"""


HELPED = """
import gc, os, time
from confsite.output.processes import collector_off, worker_pool

class Worker:
    def task(self, number):
        time.sleep(0.05)
        return number, os.getpid(), gc.isenabled()

main = os.getpid()
with collector_off(), worker_pool(Worker(), 2, helped=True) as pool:
    alone = list(pool.map_unordered("task", range(6)))
    later = pool.map_unordered("task", range(6, 30))
    pool.help()
    helped = list(later)
    after = gc.isenabled()
print("alone", len({pid for _, pid, _ in alone}), main in {pid for _, pid, _ in alone})
print("helped", sorted(number for number, _, _ in helped) == list(range(6, 30)))
here = [pid == main for _, pid, _ in helped]
print("here", any(here), not all(here))
print("collector here", {on for _, pid, on in helped if pid == main}, after)
"""


HELPED_ACROSS_LISTINGS = """
import os, sys, time
from pathlib import Path
from confsite.output.processes import collector_off, worker_pool

started = Path(sys.argv[1])

class Worker:
    def task(self, seconds):
        if seconds == 1.0:
            started.touch()
        time.sleep(seconds)
        return os.getpid()

main = os.getpid()
with collector_off(), worker_pool(Worker(), 2, helped=True) as pool:
    first = pool.map_unordered("task", [1.0])
    second = pool.map_unordered("task", [0.1] * 5)
    while not started.exists():  # the worker has started the first listing's one task
        time.sleep(0.01)
    pool.help()
    print("first", [pid == main for pid in first])
    print("second", [pid == main for pid in second])
"""


HELPED_WHILE_WAITING = """
import os, sys, time
from pathlib import Path
from confsite.output.processes import collector_off, worker_pool

started, polls = Path(sys.argv[1]), int(sys.argv[2])

class Worker:
    def task(self, item):
        if item == "long":
            started.touch()
            time.sleep(1.0)
        return item, os.getpid(), os.getpriority(os.PRIO_PROCESS, 0)  # the thread's on Linux

asked = []

def waiting():
    asked.append(1)
    return len(asked) <= polls

main, priority = os.getpid(), os.getpriority(os.PRIO_PROCESS, 0)
with collector_off(), worker_pool(Worker(), 2, helped=True) as pool:
    first = pool.map_unordered("task", ["long"])
    second = pool.map_unordered("task", range(5))
    while not started.exists():  # the worker is busy with the first listing's task
        time.sleep(0.01)
    pool.help_while(waiting, 3)
    print("asked", len(asked))
    here = [(item, nice - priority) for item, pid, nice in sorted(second) if pid == main]
    print("here", [item for item, _ in here], {lower for _, lower in here})
    print("priority kept", os.getpriority(os.PRIO_PROCESS, 0) == priority)
    list(first)
"""


KILLED_WHILE_HELPING = """
import os, signal, sys, time
from confsite.output.processes import ChildStopped, collector_off, worker_pool

class Worker:
    def task(self, number):
        time.sleep(0.05)
        return os.getpid()

with collector_off():
    try:
        with worker_pool(Worker(), int(sys.argv[1]), helped=True) as pool:
            results = pool.map_unordered("task", range(40))
            worker = next(results)
            pool.help()
            os.kill(worker, signal.SIGKILL)
            list(results)
    except ChildStopped as stopped:
        print(stopped)
"""


CPU_COUNTED = """
import resource, sys
from pathlib import Path
from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, build

def used():
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime

before = used()
options = BuildOptions(config_path=Path(sys.argv[1]), out=Path(sys.argv[2]), jobs=int(sys.argv[3]))
result = build(options, Diagnostics())
print(sum(result.cpu_timings.values()), used() - before)
"""


CHILD_CPU_COUNTED = """
import time
from confsite.output.processes import ForkedResults, cpu_seconds_used

def work():
    spun = time.process_time()
    while time.process_time() - spun < 0.5:
        pass
    yield "spun"

before, own = cpu_seconds_used(), time.process_time()
child = ForkedResults(work)
child.next()
counted_before_waiting = cpu_seconds_used() - before
child.close()
after_waiting, own = cpu_seconds_used() - before, time.process_time() - own
print(f"{counted_before_waiting:.2f} {after_waiting:.2f} {own:.2f}")
"""


FREED_RETURNED = """
import psutil
from confsite.output.processes import freed_memory_returned

me = psutil.Process()
blocks = [bytes(4000) for _ in range(50_000)]  # 200 MB from the C library's heap
kept = blocks[::10]  # every tenth kept: the heap cannot simply shrink from its top
del blocks
before = me.memory_info().rss
freed_memory_returned()
print((before - me.memory_info().rss) >> 20)
"""


SENT = """
import sys, time
from pathlib import Path
from confsite.output.processes import ForkedResults

go_on = Path(sys.argv[1])

def work():
    yield "first"
    while not go_on.exists():
        time.sleep(0.01)
    yield "second"

def sent_within(results, seconds):
    deadline = time.monotonic() + seconds
    while not results.sent() and time.monotonic() < deadline:
        time.sleep(0.01)
    return results.sent()

results = ForkedResults(work)
print(sent_within(results, 20), results.next())
print(sent_within(results, 0.5))
go_on.touch()
print(sent_within(results, 20), results.next())
results.close()
print(ForkedResults(work, here=True).sent())
"""


def run_script(script: str, *args: str) -> list[str]:
    ran = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    return ran.stdout.splitlines()


def test_a_child_goes_on_while_its_large_result_is_not_read(tmp_path: Path) -> None:
    """The corpus worker's related papers fill the pipe while the build is busy elsewhere: the
    child must make its next result meanwhile, not wait for the parent to read."""
    assert run_script(GOES_ON, str(tmp_path / "went-on")) == ["went on", "True True"]


def test_results_come_in_order_and_an_early_end_is_told() -> None:
    assert run_script(STOPS_EARLY) == ["[0, 1, 2, 3, 4]", "stopped"]


def test_a_child_killed_in_the_middle_of_sending_a_result_is_told_as_stopped() -> None:
    """The corpus worker sends results of hundreds of megabytes: killed while one is on its
    way, it leaves the build half a message, which must be told as the child stopping."""
    assert run_script(KILLED_MID_RESULT) == [
        "a build process was stopped by SIGKILL (most likely the system ran out of memory)"
    ]


def test_whether_the_next_result_is_sent_is_told_without_waiting(tmp_path: Path) -> None:
    """The build's process renders pages while the corpus worker works, and asks between
    two runs of pages whether the corpus worker has sent what the page workers wait for."""
    assert run_script(SENT, str(tmp_path / "go-on")) == [
        "True first",
        "False",
        "True second",
        "True",
    ]


def test_steps_run_below_this_processs_priority_which_stays_as_it_was() -> None:
    """The build's process renders beside the corpus worker at the page workers' priority, and
    then goes on at its own: a lowered priority cannot be raised back unprivileged."""
    own, seen = os.nice(0), []

    def step() -> bool:
        seen.append(os.nice(0))
        return len(seen) < 3

    steps_niced(step, 7)
    assert seen == [own + 7] * 3
    assert os.nice(0) == own


def test_what_a_niced_step_raises_is_raised_where_it_was_asked_for() -> None:
    def step() -> bool:
        raise ValueError("a template error")

    with pytest.raises(ValueError, match="a template error"):
        steps_niced(step, 1)


FORKED_NICENESS = """
import os, sys
from confsite.output.processes import forked
def note(path):
    with open(path, "w") as stream:
        stream.write(str(os.nice(0)))
forked(note, sys.argv[1]).wait()
print(os.nice(0), open(sys.argv[1]).read())
"""


def test_forked_work_runs_below_the_builds_priority(tmp_path: Path) -> None:
    """Saving a cache, which only the build's end waits for, yields the cores to the corpus
    worker and the main process."""
    [line] = run_script(FORKED_NICENESS, str(tmp_path / "niceness"))
    own, child = map(int, line.split())
    assert child == min(19, own + 10)


def test_forked_work_is_done_here_when_no_child_can_be_made(monkeypatch) -> None:
    """A cache's saving must not fail a build that has run out of processes or memory."""
    import confsite.output.processes as processes

    tried, done = [], []

    def no_fork() -> int:
        tried.append(True)
        raise OSError("Cannot allocate memory")

    monkeypatch.setattr(processes, "fork_is_safe", lambda: True)
    monkeypatch.setattr(processes.os, "fork", no_fork)
    processes.forked(done.append, "saved").wait()
    assert tried and done == ["saved"]


def test_made_here_when_asked() -> None:
    made = []

    def work() -> Iterator[int]:
        for n in range(3):
            made.append(n)
            yield n

    results = ForkedResults(work, here=True)
    assert [results.next() for _ in range(3)] == [0, 1, 2]
    assert made == [0, 1, 2]  # in this process


def test_what_the_work_raises_is_raised_where_its_result_is_asked_for() -> None:
    """The corpus worker stages the search index: an OSError there (a site folder that is a
    mount point) must reach the build, which reports it as a write error, not kill the child
    with a traceback and leave the build an internal error."""
    assert run_script(RAISES) == ["first", "True site/search/index.js"]


def test_the_collector_runs_where_garbage_is_made_and_is_off_elsewhere() -> None:
    """A build's main process keeps what it makes, and runs with the collector off; its
    workers, which render pages and drop cyclic garbage, turn it on (tuned), as does work
    done in the main process in their stead; each state is restored after (a freeze made
    within another is let go only by the outer one)."""
    assert run_script(COLLECTOR) == [
        "off False",
        "forked child True",
        "pool worker [(True, 50000)]",
        "pool here [(True, 50000)]",
        "collecting True",
        "still frozen True",
        "after collecting False 700 0",
        "after True",
    ]


def test_a_helped_pool_forks_one_worker_fewer_and_this_process_takes_tasks_once_it_helps() -> None:
    """A build's main process gives the page worker its tasks, then renders beside the one
    page worker it forked (each worker holds its own copy of what it touches): before it helps,
    one forked worker runs every task; after, both run some, each task once, and the main
    process runs its share with the collector on, as a worker does, and off again after."""
    assert run_script(HELPED) == [
        "alone 1 False",
        "helped True",
        "here True True",
        "collector here {True} False",
    ]


def test_a_helping_process_waiting_for_one_listing_takes_tasks_of_another(tmp_path: Path) -> None:
    """The main process reads the pages without related papers, then the paper pages: while
    the worker runs the last task of the first listing, it runs the second's instead of
    waiting (every task of it here, the worker busy throughout), and hands those results to
    the second listing."""
    assert run_script(HELPED_ACROSS_LISTINGS, str(tmp_path / "started")) == [
        "first [False]",
        "second [True, True, True, True, True]",
    ]


@pytest.mark.parametrize(
    ("polls", "expected"),
    [
        ("2", ["asked 3", "here [3, 4] {3}", "priority kept True"]),
        ("100", ["asked 6", "here [0, 1, 2, 3, 4] {3}", "priority kept True"]),
    ],
)
def test_a_process_helps_while_it_waits_and_stops_when_told_or_when_no_task_is_left(
    polls: str, expected: list[str], tmp_path: Path
) -> None:
    """The main process takes tasks while the corpus worker makes the search files, which it
    can only poll for: one task between two polls, the last given first, none once the wait
    is over (the worker then runs the rest), and it stops when no task is left unstarted. It
    runs them below its priority, as the workers do, and keeps its own."""
    assert run_script(HELPED_WHILE_WAITING, str(tmp_path / "started"), polls) == expected


@pytest.mark.parametrize("jobs", ["2", "3"])
def test_a_worker_killed_while_this_process_helps_stops_the_pool_and_is_told(jobs: str) -> None:
    """The main process takes tasks by claiming them, not by cancelling their futures: Python
    3.11's pool, meeting a cancelled future when a worker dies, broke its own thread (a
    traceback) and left the other workers running, so the build never ended."""
    ran = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_HELPING, jobs],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr == ""
    assert ran.stdout.splitlines() == [
        "a build process was stopped (most likely the system ran out of memory)"
    ]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_builds_cpu_seconds_count_each_process_once(jobs: str, tmp_path: Path) -> None:
    """The build reports CPU seconds per phase: its own time and its children's, each counted
    once whichever process did the work (the build's own does a worker's with one job, and a
    share of the pages with two). Their sum is what the process tree used, less the little
    before the build's timer starts."""
    config = copy_seeds_project(tmp_path / "project") / "site.yaml"
    reported, used = map(
        float, run_script(CPU_COUNTED, str(config), str(tmp_path / "site"), jobs)[0].split()
    )
    assert reported <= used + 0.01
    assert reported >= used * 0.97 - 0.05


def test_cpu_seconds_used_count_a_child_once_it_is_waited_for() -> None:
    """The build's CPU seconds per phase (pipeline.py · `_Timer`) hold its children's: a
    worker's time counts in the phase that waits for it, not while it runs."""
    [line] = run_script(CHILD_CPU_COUNTED)
    before_waiting, after_waiting, own = map(float, line.split())
    assert before_waiting < 0.2
    assert after_waiting >= 0.45
    assert own < 0.2  # the child's spin, not this process's


def test_memory_freed_in_small_blocks_is_given_back() -> None:
    """The corpus worker and a page worker give back what a step freed in many blocks (a
    download's pieces): about 150 MB of 200 MB here, none without it."""
    [returned] = run_script(FREED_RETURNED)
    assert int(returned) >= 100


def test_a_build_reads_with_the_collector_on_and_models_with_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsers' trees are cyclic garbage once a source is read: reading collects; the site
    model, which is kept, is made with the collector off; after the build it is on again."""

    seen: dict[str, list[bool]] = {"read": [], "model": []}
    read_records, site_program = inputs.read_records, pipeline.site_program

    def reading(*args: object) -> object:
        seen["read"].append(gc.isenabled())
        return read_records(*args)

    def modelling(*args: object) -> object:
        seen["model"].append(gc.isenabled())
        return site_program(*args)

    monkeypatch.setattr(inputs, "read_records", reading)
    monkeypatch.setattr(pipeline, "site_program", modelling)
    project = copy_seeds_project(tmp_path)
    options = pipeline.BuildOptions(config_path=project / "site.yaml", out=tmp_path / "out", jobs=1)
    pipeline.build(options, Diagnostics())
    assert seen["read"] and all(seen["read"])
    assert seen["model"] == [False]
    assert gc.isenabled()


def thirty_papers_by_one_author(folder: Path) -> tuple[SiteConfig, Registry, Diagnostics]:
    """A site of one CSV source, thirty papers by one author: its config, readers and
    diagnostics."""
    rows = "".join(f"Paper {n},Ada Lovelace\n" for n in range(30))
    (folder / "papers.csv").write_text("title,authors\n" + rows, encoding="utf-8")
    (folder / "site.yaml").write_text(
        "title: T\nsources:\n  - path: papers.csv\n    format: csv\n", encoding="utf-8"
    )
    diagnostics = Diagnostics()
    readers = site_registry(folder)
    return load_config(folder / "site.yaml", diagnostics, readers), readers, diagnostics


def test_merging_frees_the_records_a_cycle_made_meanwhile_would_keep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TeX parser's error is a cycle holding its frames and, through them, their callers':
    merging's, which hold every record (seen at 100,000 papers: 600,000 objects kept to the
    end of a rebuild). With the collector off, merging collects what it made, so the records
    are freed when it is done with them. The cycle is made here by hand, holding the entries."""

    merge_sources = inputs.merge_sources

    def merging_with_a_cycle(config: object, reads: object, entries: object, *rest: object):
        cycle: list[object] = [entries]
        cycle.append(cycle)
        return merge_sources(config, reads, entries, *rest)

    monkeypatch.setattr(inputs, "merge_sources", merging_with_a_cycle)
    config, readers, diagnostics = thirty_papers_by_one_author(tmp_path)
    gc.collect()  # what earlier tests left
    with collector_off():
        reading = inputs.CachedReading(config, b"", None, readers)
        reads = reading.read()
        papers = reading.merge(reads, diagnostics)
        del reading, reads
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            kept = [o for o in gc.garbage if isinstance(o, Entry) and o.loc.path == "papers.csv"]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    assert len(papers) == 30
    assert kept == []


def test_a_reading_lets_go_of_the_records_it_read_once_they_are_merged(tmp_path: Path) -> None:
    """A build keeps its reading to its end (its caches are saved then), but not the records
    it read, once merged into papers: hundreds of megabytes at 100,000 papers, in every
    process forked after."""
    config, readers, diagnostics = thirty_papers_by_one_author(tmp_path)
    reading = inputs.CachedReading(config, b"", None, readers)
    papers = reading.merge(reading.read(), diagnostics)
    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, Entry) and o.loc.path == "papers.csv"]
    assert len(papers) == 30
    assert alive == []
    assert reading.kept_papers() is not None  # the reading itself is still in use


def test_tex_made_plain_leaves_no_cycle_holding_what_its_callers_hold() -> None:
    """The TeX parser keeps the exception that ends a text in a frame of its own: a cycle,
    which held every frame above it, and what they held, until a collection. In a rebuild's
    main process (the collector off) merging's frames were held so: 200,000 objects, 0.4 s of
    collecting at 100,000 papers. Freed here without a collection."""

    class Held:
        pass

    def caller(text: str) -> tuple[str, weakref.ref[Held]]:
        held = Held()
        return plain.plain_text(text), weakref.ref(held)

    for cached in (plain.plain_text, plain._tex_plain_text, plain._tex_to_text):
        cached.cache_clear()  # the text is parsed here, whatever ran before
    with collector_off():
        text, held = caller(r"Bounds of $\alpha_{7391}$ held")
        assert held() is None
    assert text == "Bounds of α_7391 held"


KILLED = """
import os, signal
from confsite.output.processes import ChildStopped, ForkedResults

def work():
    os.kill(os.getpid(), signal.SIGKILL)  # as the kernel does when memory runs out
    yield "never sent"

results = ForkedResults(work)
try:
    results.next()
except ChildStopped as error:
    print(error)
results.close()
"""


def test_a_child_killed_by_a_signal_is_named_in_the_error() -> None:
    assert run_script(KILLED) == [
        "a build process was stopped by SIGKILL (most likely the system ran out of memory)",
    ]


# A build with one of its processes killed (after the page workers start): `confsite build` as
# a user runs it, but for that one kill. Whatever the process, the build ends with one line
# (where multiprocessing's Pool waited for a killed page worker's task forever).
KILLED_BUILD = """
import os, signal, sys
import confsite.render.corpus as corpus
import confsite.render.pages as pages
from confsite.cli.commands import main

BUILD = os.getpid()

def killed(work):
    def run(*args):
        if os.getpid() != BUILD:  # the build's own process renders too
            os.kill(os.getpid(), signal.SIGKILL)
        return work(*args)
    return run

if sys.argv[3] == "corpus":
    corpus.search_files = killed(corpus.search_files)
else:
    for name in ("stage_pages", "stage_papers"):
        setattr(pages.RenderJob, name, killed(getattr(pages.RenderJob, name)))
sys.exit(main(["build", "--config", sys.argv[1], "--out", sys.argv[2], "-q"]))
"""
STOPPED = "error: a build process was stopped"
OUT_OF_MEMORY = "(most likely the system ran out of memory); the site was left as it was"


# A build whose corpus worker takes a second over the search files, logging when it made
# them and when each process began a run of pages. The build's process renders its runs
# slowly, so that it cannot run out of them first (then the workers would fork at once).
FORKED_AFTER_CORPUS = """
import os, sys, time
import confsite.render.corpus as corpus
import confsite.render.pages as pages
from confsite.cli.commands import main

BUILD, LOG = os.getpid(), sys.argv[3]
pages.PAGES_PER_CHUNK = 1
pages.FORK_AFTER_CORPUS_FROM = int(sys.argv[4])

def note(what):
    with open(LOG, "a") as log:
        log.write(f"{what} {time.monotonic()}\\n")

def slow_search_files(*args):
    time.sleep(1)
    files = list(search_files(*args))
    note("search-files-made")
    return files

def noted(work):
    def run(*args):
        if os.getpid() == BUILD:
            note("build-renders")
            time.sleep(0.005)
        else:
            note("worker-renders")
        return work(*args)
    return run

search_files, corpus.search_files = corpus.search_files, slow_search_files
for name in ("stage_pages", "stage_papers"):
    setattr(pages.RenderJob, name, noted(getattr(pages.RenderJob, name)))
sys.exit(main(["build", "--config", sys.argv[1], "--out", sys.argv[2], "-q", "--jobs", "2"]))
"""


@pytest.mark.parametrize("large", [True, False])
def test_the_page_worker_of_a_large_site_forks_once_the_corpus_worker_is_done(
    large: bool, tmp_path: Path
) -> None:
    """Forked beside the corpus worker, a page worker held a third copy of what it touched of
    the site model (the peak of a build's memory at 100,000 papers), for no more work done:
    from FORK_AFTER_CORPUS_FROM papers the build's process renders until the corpus worker has
    sent the search files. Below it the worker forks at once, so that its start overlaps the
    corpus worker's end, and the build's process, once it has given the workers every task,
    takes tasks no worker has started while it waits for the search files."""
    config = copy_seeds_project(tmp_path / "project") / "site.yaml"
    log, papers_from = tmp_path / "log", "0" if large else "1000000000"
    site = str(tmp_path / "site")
    ran = subprocess.run(
        [sys.executable, "-c", FORKED_AFTER_CORPUS, str(config), site, log, papers_from],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    events = [(what, float(when)) for what, when in map(str.split, log.read_text().splitlines())]
    [made] = [when for what, when in events if what == "search-files-made"]
    build = [when for what, when in events if what == "build-renders"]
    worker = [when for what, when in events if what == "worker-renders"]
    assert build and worker
    if large:
        assert min(build) < made < min(worker)
    else:
        assert max(min(worker), min(build)) < made


@pytest.mark.parametrize(
    ("process", "told"),
    [
        ("corpus", f"{STOPPED} by SIGKILL {OUT_OF_MEMORY}"),
        ("page", f"{STOPPED} {OUT_OF_MEMORY}"),
    ],
)
def test_a_build_whose_process_is_killed_says_so_in_one_line_and_leaves_no_site(
    process: str, told: str, tmp_path: Path
) -> None:
    config = copy_seeds_project(tmp_path / "project") / "site.yaml"
    out = tmp_path / "site"
    ran = subprocess.run(
        [sys.executable, "-c", KILLED_BUILD, str(config), str(out), process],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 1
    assert ran.stderr.splitlines() == [told]
    assert not out.exists()

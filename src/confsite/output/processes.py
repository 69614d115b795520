"""Process helpers: the C library's calls, forking safely, detached and forked work, worker
pools, and the lock that keeps two builds off one output folder."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import gc
import hashlib
import multiprocessing
import os
import queue
import resource
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any

from ..diagnostics import ConfsiteError

PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies


def libc_function(name: str) -> Callable[..., int] | None:
    """A function of the C library (`renameat2`, `prctl`), or None where there is none."""
    return getattr(_own_symbols(), name, None)


@functools.cache
def _own_symbols() -> ctypes.CDLL | None:
    """The symbols this process has loaded, the C library's among them. Not by
    `ctypes.util.find_library`, which runs `ldconfig` in a new process: in every worker."""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except (OSError, TypeError):  # no such handle (Windows)
        return None


def fork_is_safe() -> bool:
    """Forking copies only the calling thread: a lock another thread held at that moment stays
    locked forever in the child. So a process with other threads (`confsite serve`) never forks."""
    return hasattr(os, "fork") and threading.active_count() == 1


def forks(jobs: int) -> bool:
    """Whether work for `jobs` processes is done in forked ones, not in this one alone."""
    return jobs > 1 and fork_is_safe()


# Work done beside a build that nothing waits for until it ends (saving a cache) or at all
# (deleting a replaced site) runs at this niceness, as the page workers do (see
# render/pages.py): whatever the build waits for comes first.
BACKGROUND_NICENESS = 10


def run_detached(work: Callable[..., Any], *args: Any) -> None:
    """Run `work(*args)` in a detached process: deleting a replaced site or linking a spare
    takes seconds at scale, and the build is done once the new site is in place. Where
    forking is not safe, a thread does it instead. Whatever such work leaves half done is
    cleared by the next build."""
    if not fork_is_safe():
        threading.Thread(target=work, args=args, daemon=True).start()
        return
    child = os.fork()
    if child:
        os.waitpid(child, 0)
        return
    try:  # the child forks again so the working process is not left for us to reap
        if os.fork() == 0:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for stream in (0, 1, 2):  # release the caller's pipes at once
                os.dup2(devnull, stream)
            os.closerange(3, 1024)
            os.nice(BACKGROUND_NICENESS)  # the user's next build comes first
            work(*args)
    finally:
        os._exit(0)


# The collector's young-generation pass every 50,000 allocations, not 700: work that keeps
# most of what it makes was re-scanned for nothing.
YOUNG_PASS = 50_000


def collector_on() -> None:
    """The collector on, tuned (a forked worker's for good): its pages and indexes drop
    cyclic garbage, which a build's main process, with the collector off, makes little of."""
    gc.set_threshold(YOUNG_PASS, *gc.get_threshold()[1:])
    gc.enable()


_freezes = 0  # `objects_frozen` entered and not left, in this process (a fork's included)


@contextlib.contextmanager
def objects_frozen() -> Iterator[None]:
    """What exists kept from the collector meanwhile: while processes are forked, so it does
    not touch, and so copy, what the children share; while `collecting`, so it scans only
    what the work makes. Let go after only by the freeze that made it, as freezing is one
    set for the whole process. (Counted here: `gc.get_freeze_count` walks every frozen
    object, 30 ms for a 10,000-paper site's, and the main process collects for each task
    it takes from its workers.)"""
    global _freezes
    gc.freeze()
    _freezes += 1
    try:
        yield
    finally:
        _freezes -= 1
        if _freezes == 0:
            gc.unfreeze()


def freed_memory_returned() -> None:
    """The C library's free memory given back to the system: what a step freed in many small
    blocks stays this process's otherwise, and counts in the build's peak beside the others'."""
    malloc_trim = libc_function("malloc_trim")
    if malloc_trim is not None:
        malloc_trim(0)


@contextlib.contextmanager
def collecting() -> Iterator[None]:
    """The collector on, tuned, for work done here that drops cyclic garbage (a parser's
    trees, pages rendered in this process); as it was afterwards. What this process made
    before is frozen meanwhile: turned on after millions of objects, the collector's first
    passes scanned them all."""
    if gc.isenabled():
        yield
        return
    thresholds = gc.get_threshold()
    with objects_frozen():
        collector_on()
        try:
            yield
        finally:
            gc.disable()
            gc.set_threshold(*thresholds)


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The collector off: for a build's main process, which keeps nearly every object it
    makes until it ends, so the collector's passes found nothing, yet took a fifth of a
    rebuild's time in that process at archive scale. (Under `confsite serve` the server's
    threads go without it while a build runs.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def young_garbage_collected() -> None:
    """One pass over the young generation, with the collector off: what was made since the
    last collection, freeze or unfreeze (for merging, since reading's `collecting` ended).
    A cycle there (a TeX parser's error holds its frames, and they their callers') can keep
    alive what the callers held, such as the records merging is done with."""
    gc.collect(0)


class ForkedWork:
    """Work started by `forked`; `wait` for it to end."""

    def __init__(self, child: int | None) -> None:
        self._child = child

    def wait(self) -> None:
        if self._child is not None:
            os.waitpid(self._child, 0)
            self._child = None


def forked(work: Callable[..., Any], *args: Any) -> ForkedWork:
    """`work(*args)` in a forked child, on data as it is now (the caller may drop or change
    it meanwhile), while this process goes on; done here where forking is not safe. For work
    whose failure does not matter (saving a cache): the child's errors are ignored. It runs
    below the build's priority, as only the build's end waits for it: the input cache's
    child took a third of each core from the corpus worker, whose result the workers wait
    for, and the main process, which then waits on its own core long enough to save it."""
    if not fork_is_safe():
        work(*args)
        return ForkedWork(None)
    parent = os.getpid()
    with objects_frozen():
        try:
            child = os.fork()
        except OSError:  # no memory or process left for a child: a cache is not worth a build
            work(*args)
            return ForkedWork(None)
        if child == 0:
            try:
                gc.disable()
                die_with_parent(parent)
                with contextlib.suppress(OSError):  # not allowed in a sandbox: run as it is
                    os.nice(BACKGROUND_NICENESS)
                work(*args)
            finally:
                os._exit(0)
    return ForkedWork(child)


class ChildStopped(RuntimeError):
    """A forked child ended before it sent the result asked for; the message says what ended
    it, as the user is told."""


OUT_OF_MEMORY = "most likely the system ran out of memory"


def stopped_child(exit_code: int | None) -> ChildStopped:
    """What ended a child, by its exit code: a signal (the kernel kills a process with SIGKILL
    when the system runs out of memory), or an exit status."""
    if exit_code is not None and exit_code < 0:
        name = signal.Signals(-exit_code).name
        why = f" ({OUT_OF_MEMORY})" if -exit_code == signal.SIGKILL else ""
        return ChildStopped(f"a build process was stopped by {name}{why}")
    return ChildStopped(f"internal error: a build process stopped (exit status {exit_code})")


STOPPED_CHILD_WAIT = 10.0  # seconds: a child whose end of the pipe closed is ending


class ForkedResults:
    """The results `work()` yields, each sent by a forked child as it is made while this
    process goes on; made here, when asked for, `here` or where forking is not safe."""

    def __init__(self, work: Callable[[], Iterable[Any]], here: bool = False) -> None:
        self._work, self._made_here = work, None
        self._process: multiprocessing.process.BaseProcess | None = None
        if here or not fork_is_safe():
            return
        context = multiprocessing.get_context("fork")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_send_results, args=(work, sender, os.getpid()), daemon=True
        )
        try:
            with objects_frozen():
                self._process.start()
        finally:
            sender.close()

    def next(self) -> Any:
        """The next result, or what the work raised making it; ChildStopped when the child
        ended without sending it."""
        if self._process is None:
            with collecting():
                if self._made_here is None:
                    self._made_here = iter(self._work())
                return next(self._made_here)
        try:
            result = self._receiver.recv()
        except (EOFError, OSError):  # OSError: the child ended in the middle of a result
            self._process.join(STOPPED_CHILD_WAIT)
            raise stopped_child(self._process.exitcode) from None
        if isinstance(result, _Raised):
            raise result.error
        return result

    def sent(self) -> bool:
        """Whether the child has begun to send the next result (or has ended): `next` would
        not wait for it to be made. Made here, a result is always ready to be made."""
        return self._process is None or self._receiver.poll()

    def close(self) -> None:
        """Stops the child if it still runs, and waits for it."""
        if self._process is None:
            return
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._receiver.close()
        self._process = None


def steps_niced(step: Callable[[], bool], niceness: int) -> None:
    """`step()` until it returns False, `niceness` below this process's priority: in a thread
    of its own on Linux, where a thread's priority is its own (raising a priority back needs
    privileges), while this one waits. For work beside a forked child that must come first.
    Interrupted, the thread stops after the step it is in; what a step raises is raised here."""
    stop, raised = threading.Event(), []

    def run() -> None:
        try:
            if sys.platform == "linux":
                os.nice(niceness)
            while not stop.is_set() and step():
                pass
        except BaseException as error:  # noqa: BLE001 - raised again in the waiting thread
            raised.append(error)

    thread = threading.Thread(target=run, name="niced steps")
    thread.start()
    try:
        thread.join()
    finally:
        stop.set()
        thread.join()
    if raised:
        raise raised[0]


def cpu_seconds_used() -> float:
    """CPU seconds of this process and of its children that have ended and been waited for:
    a worker's time is counted whoever did the work, once (`close` and a pool's end wait)."""
    return sum(
        used.ru_utime + used.ru_stime
        for used in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    )


class _Raised:
    """What the work raised, sent in place of its next result: the parent raises it where it
    asks for that result (an OSError writing the site is reported as any other)."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _send_results(work: Callable[[], Iterable[Any]], sender: Any, parent: int) -> None:
    """Each result pickled here and written by a thread: a large result fills the pipe until
    the parent reads it, and the parent may be busy, while the next result could be made."""
    die_with_parent(parent)
    collector_on()
    pickled: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    writing = threading.Thread(target=_write_results, args=(pickled, sender))
    writing.start()
    try:
        for result in work():
            pickled.put(ForkingPickler.dumps(result))
            del result  # the work may free it before its next result
    except Exception as error:
        try:
            raised = ForkingPickler.dumps(_Raised(error))
        except Exception:  # an error that does not pickle: the parent is told the child stopped
            raise error from None
        pickled.put(raised)
    finally:
        pickled.put(None)
        writing.join()
        sender.close()


def _write_results(pickled: queue.SimpleQueue[bytes | None], sender: Any) -> None:
    with contextlib.suppress(BrokenPipeError):  # the parent no longer listens
        while (data := pickled.get()) is not None:
            sender.send_bytes(data)
            del data  # not held while the next is made: results are large at archive scale


def build_lock_file(out_dir: Path) -> Path:
    """Where builds of `out_dir` take turns: one file per output folder, in this user's
    temporary folder, so every build of it meets the same lock, with or without caches and
    from any project, and nothing but the site appears beside it."""
    folder_id = hashlib.sha256(os.fsencode(out_dir.resolve())).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"confsite-{os.getuid()}" / f"{folder_id}.lock"


@contextlib.contextmanager
def build_lock(out_dir: Path) -> Iterator[None]:
    """One build at a time per output folder: two would share its staging folder, each
    removing or swapping in what the other wrote. Where no lock file can be made, no lock."""
    path = build_lock_file(out_dir)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        stream = open(path, "a")  # noqa: SIM115 - held for the whole build
    except OSError:
        yield
        return
    with stream:
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfsiteError(
                str(out_dir), "another build is writing this output folder; try again when it ends"
            ) from None
        yield


def die_with_parent(parent: int) -> None:
    """A killed build must not leave a worker running: holding the build's output pipes, it
    would keep whoever waits on them waiting (Linux; elsewhere the worker ends when it has
    sent its results, or fails to)."""
    prctl = libc_function("prctl")
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


_adopted: Any = None  # in a pool's worker process: the object whose methods it runs
_claims: Any = None  # in a pool's worker process: its pool's `_Claims`


def _adopt(worker: Any, niceness: int, parent: int, claims: Any = None) -> None:
    global _adopted, _claims
    die_with_parent(parent)
    _adopted, _claims = worker, claims
    collector_on()
    if niceness:
        os.nice(niceness)


def _call(task: tuple[int | None, str, tuple]) -> Any:
    number, method, args = task
    if number is not None and not _claims.claim(number):
        return None  # taken by the process that forked this one, which has its result
    return getattr(_adopted, method)(*args)


class _Claims:
    """Which of a pool's tasks have been taken, by number, shared with its workers (made
    before they fork): the process that forked them takes a task no worker has started by
    claiming it first. Not by cancelling its future: Python 3.11's pool, meeting a cancelled
    future when a worker dies, breaks its own thread and leaves the other workers running."""

    SIZE = 65_536  # tasks a pool can share (a build gives a pool about 800)

    def __init__(self, context: Any) -> None:
        self._lock = context.Lock()
        self._taken = context.RawArray(ctypes.c_bool, self.SIZE)
        self._numbers = iter(range(self.SIZE))

    def number(self) -> int | None:
        """The next task's number; None once there are SIZE: the workers alone run it."""
        return next(self._numbers, None)

    def claim(self, number: int) -> bool:
        """Whether the task was not taken yet, and is now."""
        with self._lock:
            if self._taken[number]:
                return False
            self._taken[number] = True
            return True


# A task told done to its listing: its number, its future, or the result this process made.
Told = tuple[int | None, Future | None, Any]


class WorkerPool:
    """Processes forked from this one that run methods of one `worker` object, which they
    inherit instead of receiving it pickled (it holds the whole site model); or, for one job
    or where forking is not safe, this process alone. A pool this process `help`s runs, once
    told, tasks no worker has started yet, the last given first, while it waits for results;
    `help_while` runs them while this process waits for something else."""

    def __init__(self, worker: Any, pool: Any = None, claims: _Claims | None = None) -> None:
        self.worker, self._pool, self._claims = worker, pool, claims
        self._helping = False
        # Numbered tasks no worker may have started, in the order given: (method, item, and
        # where the results of the listing it belongs to are told).
        self._unstarted: dict[int, tuple[str, Any, queue.SimpleQueue]] = {}
        self._ran_here: set[int] = set()  # tasks this process claimed

    @property
    def in_process(self) -> bool:
        return self._pool is None

    def help(self) -> None:
        """From now on this process takes a share of the tasks, as it waits for results: for
        when it has nothing else left to do."""
        self._helping = self._claims is not None

    def help_while(self, waiting: Callable[[], bool], niceness: int = 0) -> None:
        """Tasks no worker has started, the last given first, run in this process one at a
        time for as long as `waiting()` holds, `niceness` below its priority (see
        `steps_niced`): for a wait this process can only poll."""
        if self._claims is not None:
            steps_niced(lambda: waiting() and self._took_one(), niceness)

    def run_here(self, method: str, item: Any) -> Any:
        """`worker.method(item)` run in this process, as a worker runs it, before the task
        would ever be given to a worker."""
        with collecting():  # as in a worker: pages and parsers drop cyclic garbage
            return getattr(self.worker, method)(item)

    def map_unordered(self, method: str, items: Iterable[Any]) -> Iterator[Any]:
        """`worker.method(item)` for each item, in the order they finish (all started now)."""
        if self._pool is None:
            return map(getattr(self.worker, method), items)
        told: queue.SimpleQueue[Told] = queue.SimpleQueue()
        items = list(items)
        with _worker_stopped_told():
            for item in items:
                number = self._claims.number() if self._claims is not None else None
                if number is not None:
                    self._unstarted[number] = (method, item, told)
                future = self._pool.submit(_call, (number, method, (item,)))
                future.add_done_callback(functools.partial(_tell, told, number))
        return self._finished(told, len(items))

    def _finished(self, told: queue.SimpleQueue, count: int) -> Iterator[Any]:
        """The results of a listing of `count` tasks, each as it is told done: by its future,
        or by this process, which while helping runs a task no worker has started instead of
        waiting. A future of a task run here ends too (the worker that meets it skips it),
        and is not read."""
        with _worker_stopped_told():
            while count:
                try:
                    number, future, made = told.get_nowait()
                except queue.Empty:
                    if self._helping and self._took_one():
                        continue
                    number, future, made = told.get()
                if future is None:
                    count -= 1
                    yield made
                elif number not in self._ran_here:
                    count -= 1
                    yield future.result()

    def _took_one(self) -> bool:
        """Whether this process ran a task of any listing, the last given that no worker has
        started: the workers take them from the first."""
        while self._unstarted:
            number, (method, item, told) = self._unstarted.popitem()
            if self._claims is not None and self._claims.claim(number):
                self._ran_here.add(number)
                told.put((number, None, self.run_here(method, item)))
                return True
            # A worker claimed it: the tasks given before are all in workers' hands.
            self._unstarted.clear()
        return False


def _tell(told: queue.SimpleQueue, number: int | None, future: Future) -> None:
    told.put((number, future, None))


@contextlib.contextmanager
def _worker_stopped_told() -> Iterator[None]:
    """A pool whose worker died, met giving it a task or waiting for one, told as
    ChildStopped (the pool does not say by what signal)."""
    try:
        yield
    except BrokenProcessPool:
        raise ChildStopped(f"a build process was stopped ({OUT_OF_MEMORY})") from None


@contextlib.contextmanager
def worker_pool(
    worker: Any, jobs: int, niceness: int = 0, helped: bool = False
) -> Iterator[WorkerPool]:
    """A pool of `jobs` forked processes, each `niceness` below this one's priority, forked
    when the first task is given; `helped`: this process is one of the `jobs`, which takes
    tasks once it says it will `help`, and one process fewer is forked (each holds its own
    copy of what it touches of the site model). A worker that dies (the kernel kills one
    when memory runs out) fails the build with ChildStopped, where multiprocessing's Pool
    waited for its task forever; on any error, the tasks not yet started are dropped."""
    if not forks(jobs):
        with collecting():
            yield WorkerPool(worker)
        return
    context = multiprocessing.get_context("fork")
    claims = _Claims(context) if helped else None
    forked_jobs = jobs - 1 if helped else jobs
    adopted = (worker, niceness, os.getpid(), claims)
    pool = ProcessPoolExecutor(forked_jobs, context, _adopt, adopted)
    try:
        with objects_frozen():
            yield WorkerPool(worker, pool, claims)
    finally:
        pool.shutdown(cancel_futures=True)

"""`confsite serve`: build, serve the site on 127.0.0.1, rebuild on every change, reload the page.

The built site stays free of any development code: the dev server adds one external script
(`/__confsite__/live.js`, allowed by the pages' `script-src 'self'` policy) to the HTML it sends.
That script listens to `/__confsite__/events` (server-sent events, same origin) and reloads the
page after a good rebuild, or shows a failed rebuild's error over the last good site.
"""

from __future__ import annotations

import contextlib
import json
import queue
import signal
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import watchfiles

from ..bundled import BUNDLED
from ..config import SiteConfig, load_config
from ..diagnostics import ConfsiteError, Diagnostics
from ..model.papers import DEFAULT_OVERRIDES
from ..pipeline import BuildOptions, build
from ..readers.plugins import SITE_READERS_FOLDER
from .summary import display_path, print_rebuild_line, print_summary
from .terminal import (
    Painter,
    failure_lines,
    print_error,
    print_failure,
    print_problems,
    progress_for,
)

HOST = "127.0.0.1"
LIVE_PREFIX = "/__confsite__/"
KEEPALIVE_SECONDS = 15.0
LIVE_JS = (Path(__file__).resolve().parent / "live.js").read_bytes()
NOT_BUILT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>confsite serve</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'">
</head><body><h1>Not built yet</h1>
<p>confsite serve has no built site to show yet; this page reloads when a build succeeds.</p>
</body></html>
"""


@dataclass(frozen=True)
class LiveSnapshot:
    version: int  # increases with every published state
    build: str | None  # id of the site being served; None before the first good build
    error: str | None  # the last rebuild's error, None after a good one

    def as_json(self) -> str:
        return json.dumps({"build": self.build, "error": self.error})


class LiveState:
    """The state every open page listens to; event-stream handlers wait for it to change."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._snapshot = LiveSnapshot(0, None, None)
        self._stopping = False
        self._run = uuid.uuid4().hex[:8]  # build ids never repeat across server runs
        self._builds = 0

    @property
    def snapshot(self) -> LiveSnapshot:
        with self._changed:
            return self._snapshot

    def built(self) -> None:
        with self._changed:
            self._builds += 1
            build = f"{self._run}-{self._builds}"
            self._snapshot = LiveSnapshot(self._snapshot.version + 1, build, None)
            self._changed.notify_all()

    def failed(self, error: str) -> None:
        with self._changed:
            self._snapshot = LiveSnapshot(self._snapshot.version + 1, self._snapshot.build, error)
            self._changed.notify_all()

    def stop(self) -> None:
        with self._changed:
            self._stopping = True
            self._changed.notify_all()

    def wait(self, seen: int, timeout: float) -> LiveSnapshot | None:
        """The state once its version differs from `seen` (or the timeout passed); None when
        the server is stopping."""
        with self._changed:
            self._changed.wait_for(
                lambda: self._stopping or self._snapshot.version != seen, timeout=timeout
            )
            return None if self._stopping else self._snapshot


def inject_live_script(html: bytes, build: str | None) -> bytes:
    """The page with the live-reload script added at the end of its head (or at its start)."""
    tag = f'<script src="{LIVE_PREFIX}live.js?build={build or "none"}" defer></script>'.encode()
    at = html.lower().find(b"</head>")
    if at < 0:
        return tag + html
    return html[:at] + tag + html[at:]


class DevRequestHandler(SimpleHTTPRequestHandler):
    """Serves the output folder as is, except for HTML (live script added) and the live URLs."""

    server: DevServer

    def __init__(self, request: Any, client_address: Any, server: DevServer) -> None:
        # The folder of the last good build: set after each build, read per request.
        super().__init__(request, client_address, server, directory=str(server.out_dir))

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log_requests:
            super().log_message(format, *args)

    def end_headers(self) -> None:
        # Every response is revalidated, so a reload after a rebuild never shows stale files.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path.startswith(LIVE_PREFIX):
            self.send_live(url.path[len(LIVE_PREFIX) :])
            return
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not url.path.endswith("/"):
                super().do_GET()  # redirects to the path with its slash
                return
            path = path / "index.html"
        if path.is_file() and path.suffix == ".html":
            self.send_html(HTTPStatus.OK, path)
        elif path.is_file():
            super().do_GET()
        else:
            self.send_not_found()

    def send_live(self, name: str) -> None:
        if name == "live.js":
            self.send_bytes(HTTPStatus.OK, "text/javascript; charset=utf-8", LIVE_JS)
        elif name == "events":
            self.send_events()
        else:
            self.send_error(HTTPStatus.NOT_FOUND)

    def send_bytes(self, status: HTTPStatus, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_html(self, status: HTTPStatus, path: Path | None) -> None:
        try:
            html = path.read_bytes() if path is not None else NOT_BUILT_PAGE.encode()
        except OSError:  # replaced by a rebuild between the check and the read
            html = NOT_BUILT_PAGE.encode()
        page = inject_live_script(html, self.server.live.snapshot.build)
        self.send_bytes(status, "text/html; charset=utf-8", page)

    def send_not_found(self) -> None:
        site_404 = self.server.out_dir / "404.html"
        if site_404.is_file():
            self.send_html(HTTPStatus.NOT_FOUND, site_404)
        elif not (self.server.out_dir / "index.html").is_file():
            self.send_html(HTTPStatus.SERVICE_UNAVAILABLE, None)
        else:
            self.send_error(HTTPStatus.NOT_FOUND)

    def send_events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        seen = -1
        try:
            while True:
                snapshot = self.server.live.wait(seen, KEEPALIVE_SECONDS)
                if snapshot is None:
                    return
                if snapshot.version == seen:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    seen = snapshot.version
                    self.wfile.write(f"event: state\ndata: {snapshot.as_json()}\n\n".encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


class DevServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, out_dir: Path, live: LiveState, log_requests: bool) -> None:
        self.out_dir = out_dir
        self.live = live
        self.log_requests = log_requests
        self._thread: threading.Thread | None = None
        super().__init__((HOST, port), DevRequestHandler)

    def start_serving(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="dev-server", daemon=True)
        self._thread.start()

    def shutdown_if_serving(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self.shutdown()


def watched_paths(config_path: Path, config: SiteConfig | None) -> tuple[frozenset, frozenset]:
    """(files, folders) a build reads: the config, sources and overrides; the content folder,
    the site's readers, the theme and the built-in templates and assets. Missing ones count as
    files so that creating them is noticed."""
    files = {config_path.resolve()}
    # Watched even when the config could not be read: a broken site reader stops reading it.
    readers = (config_path.resolve().parent / SITE_READERS_FOLDER).resolve()
    folders = {BUNDLED.templates.resolve(), BUNDLED.static.resolve(), readers}
    if config is not None:
        files |= {config.resolve(source.path).resolve() for source in config.sources}
        files.add(config.resolve(config.overrides or DEFAULT_OVERRIDES).resolve())
        folders.add(config.resolve(config.content).resolve())
        if config.theme_dir is not None:
            folders.add(config.resolve(config.theme_dir).resolve())
    missing = {folder for folder in folders if not folder.is_dir()}
    return frozenset(files | missing), frozenset(folders - missing)


class SourceWatcher:
    """Watches (with watchfiles) the folders holding the watched files, non-recursively, and the
    watched folders recursively; puts each batch of changed paths on `changes`."""

    def __init__(self, changes: queue.Queue[set[Path]]) -> None:
        self.changes = changes
        self._watching: tuple[frozenset, frozenset] | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def watch(self, files: frozenset, folders: frozenset) -> None:
        """Watch these paths from now on; the old watchers stop only once the new ones run, so
        no change falls between them (one seen twice costs an extra rebuild at most)."""
        if self._watching == (files, folders):
            return
        old_stop, old_threads = self._stop, self._threads
        self._watching = (files, folders)
        self._stop = threading.Event()
        self._threads = []
        parents = sorted({path.parent for path in files if path.parent.is_dir()})
        self._start(parents, False, lambda change, path: Path(path) in files)
        self._start(sorted(folders), True, watchfiles.DefaultFilter())
        old_stop.set()
        for thread in old_threads:
            thread.join(timeout=5)

    def _start(self, paths: list[Path], recursive: bool, accept: Callable[..., bool]) -> None:
        if not paths:
            return
        thread = threading.Thread(
            target=self._run, args=(paths, recursive, accept, self._stop), daemon=True
        )
        thread.start()
        self._threads.append(thread)

    def _run(
        self,
        paths: list[Path],
        recursive: bool,
        accept: Callable[..., bool],
        stop: threading.Event,
    ) -> None:
        for batch in watchfiles.watch(
            *paths,
            watch_filter=accept,
            recursive=recursive,
            stop_event=stop,
            debounce=800,
            step=100,
            raise_interrupt=False,
        ):
            self.changes.put({Path(path) for _, path in batch})

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads = []
        self._watching = None


class DevLoop:
    """Builds, reports to the terminal and to the open pages, and rebuilds on changes."""

    def __init__(self, args: Any, live: LiveState, server: DevServer) -> None:
        self.args = args
        self.live = live
        self.server = server
        self.previous_problems: list[str] | None = None

    def build_once(self, first: bool) -> SiteConfig | None:
        """One build; returns the config for the watcher (None when it could not be read)."""
        args = self.args
        diagnostics = Diagnostics(strict=args.strict)
        options = BuildOptions(
            args.config, args.out, args.base_url, args.strict, args.jobs, args.use_cache
        )
        started = time.perf_counter()
        try:
            result = build(options, diagnostics, progress_for(sys.stderr, args.quiet))
        except Exception as err:  # a failed rebuild never stops the server
            self.report_problems(diagnostics, force=True)
            if not isinstance(err, ConfsiteError) and args.verbose:
                traceback.print_exc()
            print_failure(err, sys.stderr)
            paint = Painter.for_stream(sys.stderr)
            print(
                paint("build failed; still serving the last good site", "yellow"),
                file=sys.stderr,
                flush=True,
            )
            self.live.failed("\n".join(failure_lines(err)))
            return self.read_config()
        self.report_problems(diagnostics, force=first)
        if not args.quiet:
            if first:
                print_summary(result, sys.stdout)
            else:
                print_rebuild_line(result, time.perf_counter() - started, sys.stdout)
            sys.stdout.flush()
        self.server.out_dir = result.out_dir.absolute()  # site.yaml may have moved it
        self.live.built()
        return result.config

    def report_problems(self, diagnostics: Diagnostics, force: bool) -> None:
        """Every problem the first time; later only when they differ from the last build's."""
        lines = [str(problem) for problem in diagnostics.problems]
        if self.args.quiet:
            return
        if force or lines != self.previous_problems:
            print_problems(diagnostics, self.args.verbose, sys.stderr)
        elif lines:
            print(f"({len(diagnostics.warnings)} warnings, as before)", file=sys.stderr)
        sys.stderr.flush()
        self.previous_problems = lines

    def read_config(self) -> SiteConfig | None:
        try:
            return load_config(self.args.config, Diagnostics())
        except (ConfsiteError, OSError):
            return None


def describe_changes(paths: set[Path], root: Path) -> str:
    names = []
    for path in sorted(paths):
        try:
            names.append(str(path.relative_to(root)))
        except ValueError:
            names.append(str(path))
    shown = ", ".join(names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def out_dir_for(args: Any) -> Path:
    if args.out is not None:
        return args.out.absolute()
    try:
        config = load_config(args.config, Diagnostics())
    except ConfsiteError:
        return (args.config.parent / "_site").absolute()
    return config.resolve(config.output)


@contextlib.contextmanager
def stopped_by_signals(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C or SIGTERM sets `stop`, which ends serving once the running build is done; a
    second Ctrl-C does not wait for it."""
    interrupts = 0

    def on_signal(signum: int, frame: Any) -> None:
        nonlocal interrupts
        interrupts += 1
        stop.set()
        if interrupts > 1:
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def next_changes(changes: queue.Queue[set[Path]], stop: threading.Event) -> set[Path] | None:
    """The paths the next save changed, or None once serving is to stop."""
    while not stop.is_set():
        try:
            changed = changes.get(timeout=0.25)
        except queue.Empty:
            continue
        time.sleep(0.05)  # let the other watcher's batch of the same save arrive
        while not changes.empty():
            changed |= changes.get_nowait()
        return None if stop.is_set() else changed
    return None


def print_serving(server: DevServer, out_dir: Path) -> None:
    url = f"http://{HOST}:{server.server_port}/"
    paint = Painter.for_stream(sys.stdout)
    print(
        f"serving {display_path(out_dir)} at {paint(url, 'bold')} "
        "(watching for changes; Ctrl-C stops)",
        flush=True,
    )


def serve_and_rebuild(
    loop: DevLoop, watcher: SourceWatcher, changes: queue.Queue[set[Path]], stop: threading.Event
) -> None:
    """The first build, then serving, then a build after every change, until `stop`."""
    config_path = loop.args.config
    # Watching starts before the first build, so an edit made while it runs is not lost.
    watcher.watch(*watched_paths(config_path, loop.read_config()))
    config = loop.build_once(first=True)
    if stop.is_set():  # interrupted during the first build
        return
    loop.server.start_serving()
    print_serving(loop.server, loop.server.out_dir)
    root = config_path.absolute().parent
    while True:
        if config is not None:  # while site.yaml is broken, keep watching what it named
            watcher.watch(*watched_paths(config_path, config))
        changed = next_changes(changes, stop)
        if changed is None:
            return
        print(f"changed: {describe_changes(changed, root)}", file=sys.stderr, flush=True)
        config = loop.build_once(first=False)


def run_serve(args: Any) -> int:
    live = LiveState()
    try:
        server = DevServer(args.port, out_dir_for(args), live, log_requests=args.verbose)
    except OSError as err:
        print_error(f"cannot listen on {HOST}:{args.port}: {err.strerror}", sys.stderr)
        return 1
    stop = threading.Event()
    changes: queue.Queue[set[Path]] = queue.Queue()
    watcher = SourceWatcher(changes)
    try:
        with stopped_by_signals(stop):
            serve_and_rebuild(DevLoop(args, live, server), watcher, changes, stop)
    finally:
        watcher.stop()
        live.stop()
        server.shutdown_if_serving()
        server.server_close()
    print("stopped", file=sys.stderr, flush=True)
    return 0

"""The parts of `confsite serve`, each on its own and in seconds: the development server over real
HTTP, the live state the open pages follow, how changes are batched and what is watched. The
whole command, with its builds and watchers, is tested in test_serve.py (slow)."""

from __future__ import annotations

import queue
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from confsite.cli.serve import (
    LIVE_PREFIX,
    DevServer,
    LiveState,
    describe_changes,
    inject_live_script,
    next_changes,
    watched_paths,
)
from confsite.config import load_config
from confsite.diagnostics import Diagnostics
from confsite.readers.plugins import site_registry

PAGE = b"<!doctype html><html><head><title>T</title></head><body><p>hi</p></body></html>"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, LiveState, Path]]:
    site = tmp_path / "site"
    (site / "papers" / "x").mkdir(parents=True)
    (site / "index.html").write_bytes(PAGE)
    (site / "papers" / "x" / "index.html").write_bytes(PAGE.replace(b"hi", b"paper x"))
    (site / "404.html").write_bytes(PAGE.replace(b"hi", b"not here"))
    (site / "papers.json").write_text("[]")
    live = LiveState()
    server = DevServer(0, site, live, log_requests=False)
    server.start_serving()
    try:
        yield f"http://127.0.0.1:{server.server_port}", live, site
    finally:
        live.stop()
        server.shutdown_if_serving()
        server.server_close()


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_pages_get_the_live_script_in_their_head_and_files_stay_as_they_are(served) -> None:
    base, live, _ = served
    live.built()
    status, body = fetch(f"{base}/papers/x/")
    assert status == 200
    head, _, rest = body.partition(b"</head>")
    assert f'<script src="{LIVE_PREFIX}live.js?build={live.snapshot.build}" defer>'.encode() in head
    assert b"paper x" in rest
    assert fetch(f"{base}/papers.json") == (200, b"[]")  # not HTML: sent untouched
    status, script = fetch(f"{base}{LIVE_PREFIX}live.js")
    assert status == 200 and b"EventSource" in script


def test_a_missing_page_gets_the_sites_404_page(served) -> None:
    base, _, _ = served
    status, body = fetch(f"{base}/papers/nope/")
    assert status == 404
    assert b"not here" in body and b"live.js" in body


def test_before_the_first_build_every_page_says_not_built_yet(tmp_path: Path) -> None:
    server = DevServer(0, tmp_path / "missing", LiveState(), log_requests=False)
    server.start_serving()
    try:
        status, body = fetch(f"http://127.0.0.1:{server.server_port}/")
    finally:
        server.shutdown_if_serving()
        server.server_close()
    assert status == 503 and b"Not built yet" in body


def test_the_live_state_tells_waiters_of_each_build_and_error() -> None:
    live = LiveState()
    first = live.snapshot
    assert first.build is None and first.error is None
    waited: list = []
    waiter = threading.Thread(target=lambda: waited.append(live.wait(first.version, 10)))
    waiter.start()
    live.built()
    waiter.join(10)
    assert waited and waited[0].build is not None and waited[0].error is None
    live.failed("site.yaml:3: bad key")
    failed = live.snapshot
    assert failed.error == "site.yaml:3: bad key" and failed.build == waited[0].build
    live.built()
    assert live.snapshot.error is None and live.snapshot.build != failed.build
    live.stop()
    assert live.wait(live.snapshot.version, 10) is None


def test_one_saves_changes_come_as_one_batch_and_stop_ends_the_wait() -> None:
    changes: queue.Queue[set[Path]] = queue.Queue()
    stop = threading.Event()
    changes.put({Path("/a")})
    changes.put({Path("/b")})
    assert next_changes(changes, stop) == {Path("/a"), Path("/b")}
    threading.Timer(0.3, stop.set).start()
    assert next_changes(changes, stop) is None


def test_what_is_watched_follows_the_config(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "title: T\ncontent: pages\nsources:\n  - path: dumps/a.txt\n", encoding="utf-8"
    )
    config_path = tmp_path / "site.yaml"
    config = load_config(config_path, Diagnostics(), site_registry(tmp_path))
    root = tmp_path.resolve()
    files, folders = watched_paths(config_path, config)
    assert {root / "site.yaml", root / "dumps" / "a.txt", root / "overrides.yaml"} <= files
    # Folders that do not exist yet are watched as files, so that making them is noticed.
    assert {root / "pages", root / "readers"} <= files - folders
    (tmp_path / "pages").mkdir()
    (tmp_path / "readers").mkdir()
    files, folders = watched_paths(config_path, config)
    assert {root / "pages", root / "readers"} <= folders - files
    # With a config that cannot be read, the config itself and the site's readers still are.
    files, folders = watched_paths(config_path, None)
    assert root / "site.yaml" in files and root / "readers" in folders
    assert root / "dumps" / "a.txt" not in files


def test_changes_are_named_relative_to_the_site_and_a_long_list_is_cut() -> None:
    root = Path("/site")
    paths = {root / f"dumps/{n}.txt" for n in range(7)}
    described = describe_changes(paths, root)
    assert described.startswith("dumps/0.txt, dumps/1.txt") and described.endswith("and 2 more")
    assert describe_changes({Path("/elsewhere/x.css")}, root) == "/elsewhere/x.css"


def test_the_live_script_goes_first_in_a_page_without_a_head() -> None:
    assert inject_live_script(b"<p>bare</p>", None).startswith(b'<script src="/__confsite__/')
    assert b"build=none" in inject_live_script(b"<p>bare</p>", None)

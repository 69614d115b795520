"""`confsite serve` in a subprocess: it serves on 127.0.0.1, rebuilds after a change, keeps
serving the last good site after a broken change (and tells the page), recovers, and stops
cleanly; in Chromium an open page reloads by itself and shows a failed rebuild's error."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

SMALL = REPO / "tests" / "fixtures" / "small"
SECOND_TITLE = "A Second Paper on Graphs"  # in tests/fixtures/small/session.txt
TIMEOUT = 60.0


class Served:
    """A running `confsite serve --port 0` whose output is collected line by line."""

    def __init__(self, project: Path, *args: str) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "confsite", "serve", "--port", "0", *args],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        for stream in (self.process.stdout, self.process.stderr):
            threading.Thread(target=self._collect, args=(stream,), daemon=True).start()
        line = self.wait_for_line(r"^serving .* at http://127\.0\.0\.1:\d+/")
        self.url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)

    def _collect(self, stream) -> None:
        for line in stream:
            self.lines.put(line.rstrip("\n"))

    def wait_for_line(self, pattern: str, timeout: float = TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    break
                continue
            self.output.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no line matching {pattern!r} in:\n" + "\n".join(self.output))

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode("utf-8")

    def wait_for_page(self, path: str, text: str, present: bool = True) -> str:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            status, body = self.get(path)
            if status == 200 and (text in body) == present:
                return body
            time.sleep(0.2)
        raise AssertionError(f"{path}: {text!r} never {'appeared' if present else 'went'}")

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("serve did not stop within 20 s") from None


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(SMALL, tmp_path / "site")
    return tmp_path / "site"


@pytest.fixture
def served(project: Path) -> Iterator[Served]:
    server = Served(project)
    yield server
    server.stop()


def read_events(url: str, wanted: int, timeout: float = TIMEOUT) -> list[dict]:
    """The first `wanted` state events of the live-reload stream."""
    states = []
    with urllib.request.urlopen(url + "__confsite__/events", timeout=timeout) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        for raw in stream:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("data: "):
                states.append(json.loads(line[len("data: ") :]))
                if len(states) == wanted:
                    return states
    return states


def test_serves_the_site_on_loopback_with_the_live_script_only_when_served(
    served: Served, project: Path
) -> None:
    assert served.url.startswith("http://127.0.0.1:")
    status, home = served.get("")
    assert status == 200
    assert re.search(r'<script src="/__confsite__/live\.js\?build=[0-9a-f]{8}-1" defer>', home)
    status, script = served.get("__confsite__/live.js")
    assert status == 200 and "EventSource" in script
    for page in (project / "_site").rglob("*"):
        if page.is_file():
            assert b"__confsite__" not in page.read_bytes(), page
    status, paper_list = served.get("papers/")
    assert status == 200 and SECOND_TITLE in paper_list
    status, _ = served.get("papers/no-such-paper/")
    assert status == 404


def test_rebuilds_after_a_source_changes(served: Served, project: Path) -> None:
    session = project / "session.txt"
    session.write_text(session.read_text().replace(SECOND_TITLE, "A Second Paper on Trees"))
    served.wait_for_line(r"^changed: session\.txt$")
    served.wait_for_line(r"^rebuilt in ")
    body = served.wait_for_page("papers/", "A Second Paper on Trees")
    assert SECOND_TITLE not in body
    build_number = re.search(r'live\.js\?build=[0-9a-f]{8}-(\d+)"', body).group(1)
    assert build_number != "1"


def test_a_broken_change_keeps_the_last_good_site_and_tells_the_page(
    served: Served, project: Path
) -> None:
    first = read_events(served.url, 1)
    assert first[0]["error"] is None and first[0]["build"]
    events: list[dict] = []
    listener = threading.Thread(target=lambda: events.extend(read_events(served.url, 3)))
    listener.start()
    time.sleep(0.5)  # the listener has its first state before the change
    awards = project / "awards.txt"
    good = awards.read_bytes()
    awards.write_bytes(b"")
    served.wait_for_line(r"^error: awards\.txt:1: empty file: no records to read$")
    served.wait_for_line(r"still serving the last good site")
    status, body = served.get("papers/")
    assert status == 200 and SECOND_TITLE in body
    assert served.process.poll() is None

    awards.write_bytes(good.replace(b"Dee Winner", b"Dee Champion"))
    served.wait_for_line(r"^rebuilt in ")
    served.wait_for_page("authors/letter/c/", "Dee Champion")  # the index by family name
    listener.join(timeout=TIMEOUT)
    assert [bool(event["error"]) for event in events] == [False, True, False]
    assert "awards.txt:1: empty file" in events[1]["error"]
    assert events[1]["build"] == events[0]["build"] == first[0]["build"]
    assert events[2]["build"] != events[0]["build"]


def test_a_broken_config_is_survived_too(served: Served, project: Path) -> None:
    config = project / "site.yaml"
    good = config.read_text()
    config.write_text(good.replace("sources:", "sources: [oops\n"))
    served.wait_for_line(r"^error: site\.yaml:\d+: ")
    config.write_text(good.replace("Small <Test> Proceedings", "Renamed Proceedings"))
    served.wait_for_line(r"^rebuilt in ")
    served.wait_for_page("", "Renamed Proceedings")


def test_a_change_in_the_content_folder_rebuilds(served: Served, project: Path) -> None:
    page = project / "content" / "call-for-papers.md"
    page.write_text(page.read_text() + "\nDeadline: the first of never.\n")
    served.wait_for_page("call-for-papers/", "the first of never")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_stops_cleanly(project: Path, signum: int) -> None:
    server = Served(project)
    assert server.get("")[0] == 200
    with urllib.request.urlopen(server.url + "__confsite__/events", timeout=10) as stream:
        stream.readline()  # a page is listening while the server stops
        assert server.stop(signum) == 0
    server.wait_for_line(r"^stopped$")
    with pytest.raises(OSError):
        urllib.request.urlopen(server.url, timeout=5)
    leftovers = [p.name for p in project.iterdir() if ".staging" in p.name]
    assert leftovers == []


def test_a_port_in_use_is_a_failure(served: Served, project: Path) -> None:
    port = served.url.rsplit(":", 1)[1].strip("/")
    result = subprocess.run(
        [sys.executable, "-m", "confsite", "serve", "--port", port],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_a_first_build_that_fails_still_serves_and_recovers(project: Path) -> None:
    session = project / "session.txt"
    good = session.read_bytes()
    session.write_bytes(b"\0binary")
    server = Served(project)
    try:
        status, page = server.get("")
        assert status == 503 and "/__confsite__/live.js?build=none" in page
        assert read_events(server.url, 1)[0]["error"].startswith("session.txt:1: binary file")
        session.write_bytes(good)
        server.wait_for_page("papers/", SECOND_TITLE)
    finally:
        assert server.stop() == 0


# --- in Chromium ---------------------------------------------------------------------------

CSP_WATCH_JS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
    e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def test_an_open_page_reloads_and_shows_a_failed_rebuild(
    served: Served, project: Path, page
) -> None:
    from playwright.sync_api import expect

    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    page.add_init_script(CSP_WATCH_JS)
    page.goto(served.url + "papers/")
    expect(page.get_by_text(SECOND_TITLE)).to_be_visible()
    page.wait_for_timeout(500)  # the page's event stream is open

    session = project / "session.txt"
    session.write_text(session.read_text().replace(SECOND_TITLE, "A Second Paper on Trees"))
    expect(page.get_by_text("A Second Paper on Trees")).to_be_visible(timeout=30_000)

    # A failed rebuild whose message carries markup: shown as text, never as HTML.
    config = project / "site.yaml"
    good = config.read_text()
    config.write_text(good.replace("year: 2025", "year: <b>soon</b>", 1))
    overlay = page.locator("#confsite-live-error")
    expect(overlay).to_be_visible(timeout=30_000)
    expect(overlay).to_contain_text("site.yaml:5: sources[0].year: expected a year such as 2024")
    expect(overlay).to_contain_text("got '<b>soon</b>'")
    assert overlay.locator("b").count() == 0
    expect(page.get_by_text("A Second Paper on Trees")).to_be_visible()

    config.write_text(good)
    expect(overlay).to_have_count(0, timeout=30_000)
    expect(page.get_by_text("A Second Paper on Trees")).to_be_visible()
    assert page.evaluate("window.__cspViolations") == []
    assert problems == []

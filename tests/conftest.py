"""Shared fixtures: the repository's seeds and one real build of them."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from confsite.cache.manifest import CACHE_FOLDER
from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, BuildResult, build
from confsite.readers import sniff
from confsite.readers.base import RawRecord
from confsite.readers.sources import load_source_text

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
SUBPATH = "proceedings"  # the served site lives at http://127.0.0.1:PORT/proceedings/
SEED_FILES = {
    "2023": "iclr2023-poster-session-3.txt",
    "2024": "iclr2024-poster-session-3.txt",
    "markdown": "iclr2021-accepted-papers.txt",
    "awards": "iclr2022-outstanding-papers.txt",
    "listing": "trending-papers.txt",
}


# Whole builds repeated many times, processes killed mid-build, servers: minutes, not seconds.
# `pytest -m "not slow and not browser"` is the fast loop.
SLOW_MODULES = frozenset(
    {
        "test_determinism",
        "test_failed_builds",
        "test_hostile",
        "test_html_input",
        "test_incremental",
        "test_interrupted",
        "test_pipeline_fuzz",
        "test_realworld",
        "test_serve",
        "test_spare",
    }
)


# Generated inputs (Hypothesis): `-m fuzz` runs them alone, `-m "not fuzz"` leaves them out.
FUZZ_MODULES = frozenset({"test_pipeline_fuzz", "test_properties"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__ if item.module else ""
        if module.endswith("_browser"):
            item.add_marker(pytest.mark.browser)
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        if module in FUZZ_MODULES:  # many generated inputs each: slow as well
            item.add_marker(pytest.mark.fuzz)
            item.add_marker(pytest.mark.slow)


@dataclass(frozen=True)
class Ran:
    """What a run of the command line gave, as `subprocess.run` reports it."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str | Path, cwd: Path | None = None, env: dict | None = None) -> Ran:
    """`confsite ARGS` run by the command line's own `main` in this process, with its own
    working folder, environment and output streams: what a subprocess gives, without paying
    Python's and the libraries' start-up on every call. (Tests of the process itself, its exit
    and its terminal, start a real one.)"""
    from confsite.cli.commands import main

    saved_environment, saved_folder = dict(os.environ), os.getcwd()
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        for name in ("NO_COLOR", "FORCE_COLOR"):
            os.environ.pop(name, None)
        os.environ.update(env or {})
        os.chdir(cwd or saved_folder)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                status = main([str(arg) for arg in args])
            except SystemExit as exit:  # argparse: usage errors, --help, --version
                status = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    finally:
        os.chdir(saved_folder)
        os.environ.clear()
        os.environ.update(saved_environment)
    return Ran(status, stdout.getvalue(), stderr.getvalue())


def read_seed(key: str) -> list[RawRecord]:
    """The records of one seed dump, read by whichever reader the sniffer picks."""
    text = load_source_text(SEEDS / SEED_FILES[key], f"seeds/{SEED_FILES[key]}")
    return list(sniff(text).reader.read(text))


@functools.cache
def raw_lines(key: str) -> tuple[str, ...]:
    """The seed file's lines exactly as stored, for checking records against the raw text."""
    return tuple((SEEDS / SEED_FILES[key]).read_text(encoding="utf-8").split("\n"))


def wait_for_spare(project: Path, timeout: float = 60) -> Path:
    """The spare of the project's site (see confsite.output.spare), which a first build links in the
    background: waited for, so that the next build finds it every time."""
    deadline = time.monotonic() + timeout
    while not (spares := list((project / CACHE_FOLDER).glob("site-*.spare"))):
        assert time.monotonic() < deadline, "no spare was made after the build"
        time.sleep(0.05)
    return spares[0]


def copy_seeds_project(target: Path) -> Path:
    """A copy of the project as the repository has it (site.yaml, overrides, seeds, content)
    in `target`; returns `target`."""
    target.mkdir(parents=True, exist_ok=True)
    for name in ("site.yaml", "overrides.yaml"):
        shutil.copy(REPO / name, target / name)
    for folder in ("seeds", "content"):
        shutil.copytree(REPO / folder, target / folder)
    return target


@contextlib.contextmanager
def serving(folder: Path, name: str) -> Iterator[int]:
    """`folder` served by Python's http.server on loopback while the block runs; its port."""
    import threading
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class QuietHandler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def module_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Path]]:
    """New folders that last as long as the test module, removed after its last test: a run of
    the whole suite builds hundreds of sites, and keeping them all fills a small disk."""
    made: list[Path] = []

    def make(name: str) -> Path:
        made.append(tmp_path_factory.mktemp(name))
        return made[-1]

    yield make
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def seeds_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """The project as the repository has it, built once into `<tmp>/served/proceedings/` so
    the browser tests can serve it under a sub-path."""
    project = copy_seeds_project(tmp_path_factory.mktemp("project"))
    served = tmp_path_factory.mktemp("served")
    options = BuildOptions(config_path=project / "site.yaml", out=served / SUBPATH)
    return build(options, Diagnostics())


@pytest.fixture(scope="session")
def papers_json(seeds_build: BuildResult) -> list[dict]:
    return json.loads((seeds_build.out_dir / "papers.json").read_text(encoding="utf-8"))


# --- Browser tests (tests/test_site_browser.py): Debian's Chromium, a full build, a server -------

CHROMIUM = Path("/usr/bin/chromium")  # Debian's package (apt); never `playwright install`
CHROMIUM_ARGS = ["--disable-gpu", "--disable-dev-shm-usage", "--disable-quic"]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright's one browser per session is Debian's Chromium, headless."""
    args = {**browser_type_launch_args, "args": CHROMIUM_ARGS}
    if CHROMIUM.exists():
        args["executable_path"] = str(CHROMIUM)
    return args


@pytest.fixture(scope="session")
def site_build(seeds_build: BuildResult) -> BuildResult:
    """The seeds site the browser tests load from disk and serve."""
    return seeds_build


@pytest.fixture(scope="session")
def site_url(site_build: BuildResult) -> Iterator[str]:
    """site_build served on loopback, under a sub-path; the URL of the site's root, ending
    in `/`."""
    with serving(site_build.out_dir.parent, "site-server") as port:
        yield f"http://127.0.0.1:{port}/{SUBPATH}/"


# --- Hostile input (tests/test_hostile*.py): the attack corpus, built once -------------------

HOSTILE = REPO / "tests" / "fixtures" / "hostile"
# What every payload in the hostile corpus does if it ever runs.
PWNED_MARKERS = "window.__pwned === undefined && document.title !== 'PWNED'"


@pytest.fixture(scope="session")
def hostile_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    """tests/fixtures/hostile built into `<tmp>/out/site`; the project sits beside it in
    `<tmp>/project`, so a test can see whether anything was written outside the site."""
    top = tmp_path_factory.mktemp("hostile")
    shutil.copytree(HOSTILE, top / "project")
    options = BuildOptions(config_path=top / "project" / "site.yaml", out=top / "out" / "site")
    return build(options, Diagnostics())


# --- A strict HTML check: what the fuzz and hostile tests demand of every generated page ------

VOID_ELEMENTS = frozenset("area base br col embed hr img input link meta source track wbr".split())


def html_problems(text: str) -> list[str]:
    """Problems an HTML parser tolerates silently but a generator must not produce: an end tag
    that does not close the innermost open element, elements left open, a repeated attribute,
    a repeated id, a stray `<` that the parser read as text. Empty means well formed."""
    from html.parser import HTMLParser

    problems: list[str] = []
    stack: list[str] = []
    ids: set[str] = set()

    class Checker(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            names = [name for name, _ in attrs]
            if len(names) != len(set(names)):
                problems.append(f"line {self.getpos()[0]}: <{tag}> repeats an attribute")
            for name, value in attrs:
                if name == "id":
                    if value in ids:
                        problems.append(f"line {self.getpos()[0]}: id {value!r} repeated")
                    ids.add(value or "")
            if tag not in VOID_ELEMENTS:
                stack.append(tag)

        def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag in VOID_ELEMENTS or (stack and {"math", "svg"} & set(stack)):
                return  # `<br/>`, or a self-closed element in MathML/SVG
            problems.append(f"line {self.getpos()[0]}: <{tag}/> is not a void element")

        def handle_endtag(self, tag: str) -> None:
            if not stack or stack[-1] != tag:
                where = stack[-1] if stack else "nothing"
                problems.append(f"line {self.getpos()[0]}: </{tag}> closes <{where}>")
                return
            stack.pop()

        def handle_data(self, data: str) -> None:
            if "<" in data and stack and stack[-1] not in ("script", "style"):
                problems.append(f"line {self.getpos()[0]}: a raw '<' in text")

    checker = Checker(convert_charrefs=False)  # so an escaped "&lt;" never looks like "<"
    checker.feed(text)
    checker.close()
    if stack:
        problems.append(f"elements left open at the end: {stack}")
    return problems

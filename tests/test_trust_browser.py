"""Proceedings a reader trusts (issue 18, part A), as Chromium shows them: no page wider than a
phone, a 404 page that works at any depth, controls a reader can see."""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import SUBPATH

from confsite.pipeline import BuildResult

NARROW = {"width": 320, "height": 640}


def paper_ids(site_build: BuildResult) -> list[str]:
    papers = json.loads((site_build.out_dir / "papers.json").read_text(encoding="utf-8"))
    return [paper["id"] for paper in papers]


def test_no_paper_page_is_wider_than_a_320px_phone(new_context, site_build: BuildResult) -> None:
    ids = paper_ids(site_build)
    page = new_context(viewport=NARROW, is_mobile=True, has_touch=True).new_page()
    wide = []
    for paper_id in ids:
        page.goto((site_build.out_dir / "papers" / paper_id / "index.html").as_uri(),
                  wait_until="domcontentloaded")  # deferred scripts have run, styles are in
        scroll, inner = page.evaluate(
            "[document.documentElement.scrollWidth, window.innerWidth]")
        # a phone widens its layout viewport to fit a page wider than the screen
        if scroll > NARROW["width"] or inner != NARROW["width"]:
            wide.append(f"{paper_id}: {scroll} px wide, viewport {inner} px")
    assert len(ids) > 1000
    assert not wide, f"{len(wide)} of {len(ids)} paper pages scroll sideways:\n" + "\n".join(wide)


@contextlib.contextmanager
def serving_with_404(folder: Path) -> Iterator[int]:
    """`folder` served as static hosts do: a missing path gets the site's 404.html, status 404
    (the site lives in `folder`/proceedings/)."""
    site_404 = (folder / SUBPATH / "404.html").read_bytes()

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def send_error(self, code: int, message: str | None = None, explain=None) -> None:
            if code != 404:
                return super().send_error(code, message, explain)
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(site_404)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(site_404)

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize(
    "missing",
    ["papers/no-such-paper/", "authors/a/b/c/deep/x.html", "old-page", "a/b/c/d/"],
)
def test_the_404_page_works_at_any_depth_without_a_base_url(
    new_context, site_build: BuildResult, missing: str
) -> None:
    assert "<base" not in (site_build.out_dir / "404.html").read_text(encoding="utf-8")
    with serving_with_404(site_build.out_dir.parent) as port:
        root = f"http://127.0.0.1:{port}/{SUBPATH}/"
        page = new_context().new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
        response = page.goto(root + missing)
        assert response.status == 404
        assert page.locator("h1").inner_text() == "Page not found"
        # styled: the site's stylesheet applied (the header has its surface colour)
        sheets = page.evaluate("[...document.styleSheets].map(s => s.href)")
        assert sheets == [root + "assets/style.css"]
        assert page.evaluate("getComputedStyle(document.body).margin") == "0px"
        hrefs = page.evaluate("[...document.querySelectorAll('main a')].map(a => a.href)")
        assert hrefs == [root + "index.html", root + "papers/index.html",
                         root + "authors/index.html"]
        for href in hrefs:
            assert page.request.get(href).status == 200
        # 404s of the page itself are expected; any other failed request or error is not
        assert not [e for e in errors if "404" not in e], errors


# The colour behind an element: its own background or the nearest ancestor's that is opaque.
BORDER_AND_BACKDROP = """(selector) => [...document.querySelectorAll(selector)].map(e => {
    let back = e.parentElement;
    while (back && getComputedStyle(back).backgroundColor.replace(/\\s/g, "").endsWith(",0)"))
        back = back.parentElement;
    return [getComputedStyle(e).borderTopColor,
            getComputedStyle(back || document.documentElement).backgroundColor];
})"""


def luminance(css: str) -> float:
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", css)[:3])
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
              for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_control_borders_have_3_to_1_contrast(
    new_context, site_build: BuildResult, scheme: str
) -> None:
    page = new_context(color_scheme=scheme).new_page()
    found = []
    for path, selector in [
        ("index.html", "#site-search"),
        ("search/index.html", "#search-input"),
        ("search/index.html", ".search-filters select"),
    ]:
        page.goto((site_build.out_dir / path).as_uri())
        pairs = page.evaluate(BORDER_AND_BACKDROP, selector)
        assert pairs, (path, selector)
        found += [(path, selector, border, back, contrast(border, back)) for border, back in pairs]
    low = [item for item in found if item[-1] < 3]
    assert not low, low


def test_back_over_file_reopens_the_abstracts_a_reader_opened(
    new_context, site_build: BuildResult
) -> None:
    session = site_build.out_dir / "sessions" / "iclr-2024-poster-session-3" / "index.html"
    page = new_context(viewport={"width": 1000, "height": 800}).new_page()
    page.goto(session.as_uri())
    abstracts = page.locator("details.abstract")
    for index in (2, 5):
        abstracts.nth(index).locator("summary").click()
    page.locator(".paper-card").nth(6).scroll_into_view_if_needed()
    scroll = page.evaluate("window.scrollY")
    assert scroll > 0
    page.locator(".paper-card .paper-title a").nth(6).click()
    page.wait_for_url("**/papers/**")
    page.go_back()
    page.wait_for_load_state("load")
    page.wait_for_function("document.querySelectorAll('details.abstract[open]').length > 0")
    opened = page.evaluate(
        "[...document.querySelectorAll('details.abstract')].flatMap((d, i) => d.open ? [i] : [])")
    assert opened == [2, 5]
    assert abs(page.evaluate("window.scrollY") - scroll) < 5
    # a fresh visit starts with every abstract closed
    page.goto(session.as_uri())
    assert page.evaluate("document.querySelectorAll('details.abstract[open]').length") == 0

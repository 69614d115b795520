"""The built site in a real browser (Debian's Chromium through Playwright): HTML validity,
accessibility, layout at phone and desktop widths, console errors, navigation from disk and
under a sub-path, the BibTeX copy button and MathML.

Every page type is checked on one real page of the seeds build (with the content pages).
Screenshots go to tests/artifacts/screenshots/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO
from playwright.sync_api import ConsoleMessage, Page, Request, Response, expect

from confsite.pipeline import BuildResult

VNU = REPO / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = REPO / "tests" / "artifacts" / "screenshots"

SITE_TITLE = "ICLR Proceedings Archive"
PAPER = "papers/mid-vision-feedback/index.html"
AUTHOR = "authors/michael-maynord/index.html"  # the first author of PAPER

# One page of every type; "untitled-paper" and "math-paper" are picked from papers.json.
PAGE_TYPES = [
    "home", "papers", "collection", "session", "paper", "untitled-paper", "math-paper",
    "authors", "author", "content", "404",
]
FIXED_PAGES = {
    "home": "index.html",
    "papers": "papers/index.html",
    "collection": "collections/iclr-2023/index.html",
    "session": "sessions/iclr-2023-poster-session-3/index.html",
    "paper": PAPER,
    "authors": "authors/index.html",
    "author": AUTHOR,
    "content": "about/index.html",
    "404": "404.html",
}
AXE_PAGES = [
    "home", "collection", "session", "paper", "untitled-paper", "math-paper", "authors",
    "author", "content",
]
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]},
    # Node details only for violations: the same verdicts, ~5x faster on the author index.
    "resultTypes": ["violations"],
}
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
PHONE = {"is_mobile": True, "has_touch": True}
LONG_PAGE = 4  # viewports: a page taller than this is shot viewport-only


@pytest.fixture(scope="session")
def site_pages(site_build: BuildResult) -> dict[str, str]:
    """Page type → path of that page inside the built site."""
    papers = json.loads((site_build.out_dir / "papers.json").read_text(encoding="utf-8"))
    untitled = next(paper for paper in papers if paper["id"].startswith("untitled-"))
    math = next(paper for paper in papers if "$" in (paper["abstract"] or ""))
    pages = {
        **FIXED_PAGES,
        "untitled-paper": f"papers/{untitled['id']}/index.html",
        "math-paper": f"papers/{math['id']}/index.html",
    }
    missing = [path for path in pages.values() if not (site_build.out_dir / path).is_file()]
    assert not missing, f"pages missing from the build: {missing}"
    return pages


def file_url(site_build: BuildResult, path: str) -> str:
    return (site_build.out_dir / path).as_uri()


class Problems:
    """Console errors, uncaught exceptions, failed requests and HTTP errors seen by a page."""

    def __init__(self, page: Page) -> None:
        self.messages: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.messages.append(f"uncaught: {error}"))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.messages.append(f"console error: {message.text} ({message.location})")

    def _failed(self, request: Request) -> None:
        self.messages.append(f"request failed: {request.url} ({request.failure})")

    def _response(self, response: Response) -> None:
        if response.status >= 400:
            self.messages.append(f"HTTP {response.status}: {response.url}")


# --- 1. HTML validity ----------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("java") is None, reason="the Nu validator needs Java")
def test_every_page_type_is_valid_html(site_build: BuildResult, site_pages: dict) -> None:
    files = sorted(set(site_pages.values()))
    run = subprocess.run(
        ["java", "-jar", str(VNU), "--errors-only", "--stdout", *files],
        cwd=site_build.out_dir, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0 and not run.stdout.strip(), (
        f"Nu validator (exit {run.returncode}):\n{run.stdout}{run.stderr}"
    )


# --- 2. Accessibility ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", AXE_PAGES)
def test_no_serious_accessibility_violations_in_light_or_dark(
    new_context, site_url: str, site_pages: dict, kind: str,
) -> None:
    # Served over HTTP: on file:// axe's own preload of the style sheets is blocked (CORS).
    # The pages' CSP forbids inline script, which is how axe is injected: bypass it here only.
    page = new_context(viewport=VIEWPORTS["desktop"], bypass_csp=True).new_page()
    page.goto(site_url + site_pages[kind])
    page.add_script_tag(path=str(AXE))
    report, backgrounds = [], set()
    for scheme in ("light", "dark"):  # one load: the colour scheme switches in place
        page.emulate_media(color_scheme=scheme)
        backgrounds.add(page.evaluate("getComputedStyle(document.body).backgroundColor"))
        result = page.evaluate("options => axe.run(document, options)", AXE_OPTIONS)
        report += [
            f"{scheme}: {v['id']} ({v['impact']}, {len(v['nodes'])} nodes): {v['help']}; "
            f"first: {v['nodes'][0]['target']} {v['nodes'][0]['failureSummary']}"
            for v in result["violations"] if v["impact"] in ("serious", "critical")
        ]
    assert len(backgrounds) == 2, "the dark colour scheme did not apply"
    assert not report, f"axe on {site_pages[kind]}:\n" + "\n".join(report)


# --- 3. Screenshots and phone layout -------------------------------------------------------


def shoot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / f"{name}.png"
    height = page.evaluate("document.documentElement.scrollHeight")
    page.screenshot(path=target, full_page=height <= LONG_PAGE * page.viewport_size["height"])
    return target


@pytest.mark.parametrize("width", ["desktop", "phone"])
@pytest.mark.parametrize("kind", PAGE_TYPES)
def test_screenshot_and_no_sideways_scroll_on_phone(
    new_context, site_build: BuildResult, site_pages: dict, kind: str, width: str,
) -> None:
    extra = PHONE if width == "phone" else {}
    page = new_context(viewport=VIEWPORTS[width], **extra).new_page()
    page.goto(file_url(site_build, site_pages[kind]))
    shoot(page, f"{kind}-{width}")
    if width == "phone":
        widths = page.evaluate(
            """() => {
                const limit = window.innerWidth;
                const wide = [...document.querySelectorAll("body *")]
                    .filter(e => e.getBoundingClientRect().right > limit + 0.5)
                    .slice(0, 5)
                    .map(e => e.tagName.toLowerCase() + (e.className ? "." + e.className : "")
                         + " right=" + Math.round(e.getBoundingClientRect().right));
                return {scroll: document.documentElement.scrollWidth, inner: limit, wide};
            }"""
        )
        assert widths["inner"] == VIEWPORTS["phone"]["width"], widths
        assert widths["scroll"] <= widths["inner"], f"{site_pages[kind]} scrolls sideways: {widths}"


def test_dark_mode_screenshot_of_a_paper(new_context, site_build: BuildResult) -> None:
    page = new_context(viewport=VIEWPORTS["desktop"], color_scheme="dark").new_page()
    page.goto(file_url(site_build, PAPER))
    shoot(page, "paper-dark-desktop")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(22, 24, 27)"  # --background in the dark scheme


# --- 4. Console errors and failed requests -------------------------------------------------


@pytest.mark.parametrize("origin", ["file", "http"])
@pytest.mark.parametrize("kind", PAGE_TYPES)
def test_no_console_errors_or_failed_requests(
    new_context, site_build: BuildResult, site_url: str, site_pages: dict, kind: str,
    origin: str,
) -> None:
    page = new_context().new_page()
    problems = Problems(page)
    path = site_pages[kind]
    url = file_url(site_build, path) if origin == "file" else site_url + path
    response = page.goto(url, wait_until="load")
    if origin == "http":
        assert response is not None and response.status == 200
    assert not problems.messages, "\n".join(problems.messages)


# --- 5. Navigation from disk and under a sub-path ------------------------------------------


CLICK_PATH = [  # (link to click, page it lands on, that page's h1)
    (".collection-box h3 a >> text='ICLR 2023'", "collections/iclr-2023/index.html", "ICLR 2023"),
    (".session-table a >> text='Poster Session 3'",
     "sessions/iclr-2023-poster-session-3/index.html", "Poster Session 3"),
    (".paper-title a >> text='Mid-Vision Feedback'", PAPER, "Mid-Vision Feedback"),
    (".paper .authors a >> text='Michael Maynord'", AUTHOR, "Michael Maynord"),
    (".site-nav a >> text='Papers'", "papers/index.html", "All papers"),
]


@pytest.mark.parametrize("origin", ["file", "http"])
def test_click_through_from_disk_and_under_a_sub_path(
    new_context, site_build: BuildResult, site_url: str, origin: str,
) -> None:
    root = site_build.out_dir.as_uri() + "/" if origin == "file" else site_url
    page = new_context().new_page()
    problems = Problems(page)
    page.goto(root + "index.html")
    expect(page.locator("h1")).to_have_text(SITE_TITLE)
    for link, path, heading in CLICK_PATH:
        with page.expect_navigation() as navigation:
            page.locator(link).first.click()
        assert page.url == root + path, f"clicking {link!r} went to {page.url}"
        if origin == "http":
            assert navigation.value is not None and navigation.value.status == 200, page.url
        expect(page.locator("h1")).to_have_text(heading)
    assert not problems.messages, "\n".join(problems.messages)


# --- 6. The BibTeX copy button --------------------------------------------------------------


def test_copy_bibtex_puts_it_on_the_clipboard(new_context, site_url: str) -> None:
    context = new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(site_url + PAPER)
    button = page.get_by_role("button", name="Copy BibTeX")
    expect(button).to_be_visible()
    button.click()
    expect(page.locator(".citation .copy-status")).to_have_text("Copied.")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.locator("#bibtex").text_content()
    assert copied.startswith("@inproceedings{maynord2023mid,\n  title = {Mid-Vision Feedback}")


@pytest.mark.parametrize("origin", ["file", "http"])
@pytest.mark.parametrize("javascript", [True, False])
def test_download_ris_saves_the_papers_record(
    new_context, site_build: BuildResult, site_url: str, origin: str, javascript: bool
) -> None:
    """The link is a `data:` URL (no file per paper): it must still download, named by the
    citation key, from disk and from a host, with or without JavaScript."""
    context = new_context(accept_downloads=True, java_script_enabled=javascript)
    page = context.new_page()
    page.goto(file_url(site_build, PAPER) if origin == "file" else site_url + PAPER)
    with page.expect_download() as info:
        page.get_by_role("link", name="Download RIS").click()
    download = info.value
    assert download.suggested_filename == "maynord2023mid.ris"
    record = Path(download.path()).read_text(encoding="utf-8")
    tags = [(line[:2], line[6:]) for line in record.splitlines()]
    assert tags[0] == ("TY", "CONF") and tags[-1] == ("ER", "")
    listed = json.loads((site_build.out_dir / "papers.json").read_text(encoding="utf-8"))
    paper = next(p for p in listed if p["url"].endswith("/mid-vision-feedback/"))
    assert ("TI", "Mid-Vision Feedback") in tags
    family_names = [value.split(",")[0] for tag, value in tags if tag == "AU"]
    assert family_names == [name.split()[-1] for name in paper["authors"]]
    assert record in (site_build.out_dir / "papers.ris").read_text(encoding="utf-8")


def test_copy_button_stays_hidden_without_javascript(new_context, site_url: str) -> None:
    page = new_context(java_script_enabled=False).new_page()
    page.goto(site_url + PAPER)
    expect(page.locator("#bibtex")).to_be_visible()
    expect(page.locator("button.copy-button")).to_be_hidden()


# --- 7. Math --------------------------------------------------------------------------------


def test_tex_in_an_abstract_renders_as_mathml(
    new_context, site_build: BuildResult, site_pages: dict,
) -> None:
    page = new_context().new_page()
    page.goto(file_url(site_build, site_pages["math-paper"]))
    formulas = page.locator(".abstract-full math")
    assert formulas.count() > 0, f"no <math> in the abstract of {site_pages['math-paper']}"
    for index in range(formulas.count()):
        formula = formulas.nth(index)
        assert formula.evaluate("e => e instanceof MathMLElement")
        box = formula.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, (index, box)
    # Chromium lays MathML out itself: a superscript sits above its base's top.
    raised = page.evaluate(
        """() => [...document.querySelectorAll(".abstract-full msup")].map(s => {
            const [base, sup] = [...s.children].map(c => c.getBoundingClientRect());
            return sup.top < base.top && sup.left >= base.right - 0.5;
        })"""
    )
    assert all(raised), raised


# --- Regressions: bugs these tests found in the first version of the site ------------------------


def papers_where(site_build: BuildResult, keep) -> list[dict]:
    papers = json.loads((site_build.out_dir / "papers.json").read_text(encoding="utf-8"))
    return [paper for paper in papers if keep(paper)]


def test_long_urls_in_abstracts_wrap_on_a_phone(new_context, site_build: BuildResult) -> None:
    def longest_url(paper: dict) -> int:
        return max((len(w) for w in (paper["abstract"] or "").split() if "http" in w), default=0)

    papers = sorted(papers_where(site_build, longest_url), key=longest_url)[-15:]
    page = new_context(viewport=VIEWPORTS["phone"], **PHONE).new_page()
    wide = []
    for paper in papers:
        page.goto(file_url(site_build, f"papers/{paper['id']}/index.html"))
        scroll, inner = page.evaluate(
            "[document.documentElement.scrollWidth, window.innerWidth]")
        if scroll > VIEWPORTS["phone"]["width"] or inner != VIEWPORTS["phone"]["width"]:
            wide.append(f"{paper['id']}: {scroll} px wide")
    assert not wide, f"{len(wide)} of {len(papers)} pages scroll sideways:\n" + "\n".join(wide)


def test_unbalanced_dollar_signs_do_not_turn_prose_into_math(
    new_context, site_build: BuildResult,
) -> None:
    papers = papers_where(site_build, lambda paper: "$$" in (paper["abstract"] or ""))
    assert papers
    page = new_context(viewport=VIEWPORTS["desktop"]).new_page()
    broken = []
    for paper in papers:
        page.goto(file_url(site_build, f"papers/{paper['id']}/index.html"))
        found = page.evaluate(
            """() => [...document.querySelectorAll(".abstract-full math")].filter(m =>
                [...m.querySelectorAll("mi, mo, mn, mtext")].some(t => t.textContent === "$")
                || m.getBoundingClientRect().width > m.closest("p").clientWidth
            ).map(m => m.textContent.slice(0, 60))"""
        )
        broken += [f"{paper['id']}: {text!r}" for text in found]
    assert not broken, "\n".join(broken)


TEX_TITLES = [
    "Adaptive Optimization in the $\\infty$-Width Limit",
    "VA-RED$^2$: Video Adaptive Redundancy Reduction",
    "$\\texttt{NAISR}$: A 3D Neural Additive Model",
]


@pytest.mark.parametrize("title", TEX_TITLES)
def test_tab_title_keeps_every_word_of_a_tex_title(
    new_context, site_build: BuildResult, title: str,
) -> None:
    (paper,) = papers_where(site_build, lambda paper: (paper["title"] or "").startswith(title))
    page = new_context().new_page()
    page.goto(file_url(site_build, f"papers/{paper['id']}/index.html"))
    tab_title = page.title().removesuffix(f" · {SITE_TITLE}")
    meta = page.locator('meta[name="citation_title"]').get_attribute("content")

    def letters(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9]", "", text)

    heading = page.locator("h1").inner_text()
    assert letters(tab_title) == letters(heading), (tab_title, heading)
    assert meta == tab_title


def test_paper_urls_hold_no_tex_command_names(site_build: BuildResult) -> None:
    commands = r"(^|-)(texttt|textbf|textit|textsf|textsc|emph|mathrm|mathbf|mathcal|mathbb)(-|$)"
    leaked = [p["id"] for p in papers_where(site_build, lambda p: re.search(commands, p["id"]))]
    assert not leaked

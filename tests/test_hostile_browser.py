"""Proof in Chromium that no payload of the hostile corpus runs: every page of its build, and
the search results and header preview for every payload, open with no dialog, no marker set
by a payload, no console error, no uncaught exception, no CSP violation and no request for
anything but the site's own files.

Each page is loaded twice: under the site's Content-Security-Policy, and with the policy
bypassed, so escaping alone is shown to hold (the policy is a second wall, not the only one).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from conftest import PWNED_MARKERS, serving
from playwright.sync_api import Browser, Page, expect

from confsite.pipeline import BuildResult

PAYLOAD = "window.__pwned=1;document.title='PWNED';alert(1)"
# The payload strings of the corpus, each typed as a search query.
QUERIES = [
    f"<script>{PAYLOAD}</script>",
    f'<img src=x onerror="{PAYLOAD}">',
    "<svg/onload=__pwned=1;alert(1)>",
    f"\"'><script>{PAYLOAD}</script>",
    f"</title><script>{PAYLOAD}</script>",
    f"</script><script>{PAYLOAD}</script>",
    "javascript:window.__pwned=1;alert(1)",
    "data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xO2FsZXJ0KDEpPC9zY3JpcHQ+",
    "{{ 7*7 }}",
    "../../x",
    "pwned",
    "onerror",
]
SCRIPTED_PAPER = "script-window-pwned-1-document-title-pwned-alert-1-script-scripted-title-in"
WATCH_JS = """
window.__problems = [];
document.addEventListener('securitypolicyviolation',
    e => window.__problems.push('CSP ' + e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.fixture(scope="module")
def hostile_url(hostile_build: BuildResult) -> Iterator[str]:
    """The hostile build served on loopback, under a sub-path like a real deployment."""
    with serving(hostile_build.out_dir.parent, "hostile-server") as port:
        yield f"http://127.0.0.1:{port}/{hostile_build.out_dir.name}/"


class Watch:
    """Everything a page does that a payload could cause, gathered per page."""

    def __init__(self, page: Page, site_url: str, site: Path) -> None:
        self.page, self.site_url, self.site = page, site_url, site
        self.problems: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        page.on("console", self._console)
        page.on("request", self._request)
        page.add_init_script(WATCH_JS)

    def _dialog(self, dialog) -> None:
        self.problems.append(f"dialog: {dialog.type} {dialog.message!r}")
        dialog.dismiss()

    def _console(self, message) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text}")

    def _request(self, request) -> None:
        """Only files of the built site: an injected <img src=x> or a data: frame would ask
        for something else."""
        url = request.url
        inside = url.startswith(self.site_url)
        path = urlsplit(url).path[len(urlsplit(self.site_url).path) :] if inside else ""
        if path == "" or path.endswith("/"):
            path += "index.html"
        if not inside or not (self.site / path).is_file():
            self.problems.append(f"request: {url}")

    def settle(self) -> None:
        """Let load handlers, failed-image handlers and timers run before looking."""
        self.page.wait_for_load_state("load")
        self.page.wait_for_timeout(50)

    def verdict(self, where: str) -> list[str]:
        self.settle()
        found = list(self.problems)
        if not self.page.evaluate(PWNED_MARKERS):
            found.append("a payload marker is set")
        found += self.page.evaluate("window.__problems || []")
        self.problems.clear()
        return [f"{where}: {problem}" for problem in found]


def html_pages(site: Path) -> list[str]:
    return [p.relative_to(site).as_posix() for p in sorted(site.rglob("*.html"))]


@pytest.mark.parametrize("policy", ["csp", "no-csp"])
def test_no_payload_runs_on_any_page(
    browser: Browser, hostile_build: BuildResult, hostile_url: str, policy: str
) -> None:
    site = hostile_build.out_dir
    pages = html_pages(site)
    assert len(pages) == 73  # 68 pages, and the author index split by letter (b, e, o, s, other)
    context = browser.new_context(
        bypass_csp=policy == "no-csp", permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    watch = Watch(page, hostile_url, site)
    found: list[str] = []
    for path in pages:
        page.goto(hostile_url + path)
        found += watch.verdict(path)
    # Interact where scripts act on page content: open every abstract, show the copy button.
    page.goto(hostile_url + "sessions/img-src-x-onerror-window-pwned-1-alert-1-conf-2023-x/")
    for summary in page.locator("details.abstract summary").all():
        summary.click()
    found += watch.verdict("session page, abstracts opened")
    # The copy button hands over the citation as the text it is, payloads and all.
    page.goto(hostile_url + f"papers/{SCRIPTED_PAPER}/index.html")
    page.get_by_role("button", name="Copy BibTeX").click()
    expect(page.locator(".citation .copy-status")).to_have_text("Copied.")
    copied = page.evaluate("navigator.clipboard.readText()")
    # LaTeX-escaped for BibTeX (underscores, a capitalised word braced), never HTML-escaped
    latex_payload = PAYLOAD.replace("_", "\\_").replace("PWNED", "{PWNED}")
    assert f"title = {{<script>{latex_payload}</script> Scripted Title In Twenty Three}}" in copied
    assert "&lt;" not in copied
    found += watch.verdict("paper page, BibTeX copied")
    context.close()
    assert found == []


@pytest.mark.parametrize("policy", ["csp", "no-csp"])
def test_no_payload_runs_in_search(
    browser: Browser, hostile_build: BuildResult, hostile_url: str, policy: str
) -> None:
    """Each payload as a query: the results page (from a shared link) and the header box's
    preview. Results whose titles and authors hold payloads are shown, as text."""
    context = browser.new_context(bypass_csp=policy == "no-csp")
    page = context.new_page()
    watch = Watch(page, hostile_url, hostile_build.out_dir)
    found: list[str] = []
    shown = 0
    for query in QUERIES:
        page.goto(f"{hostile_url}search/index.html?q={quote(query, safe='')}")
        expect(page.locator("#search-status")).not_to_contain_text("JavaScript")
        assert page.locator("#search-input").input_value() == query
        shown += page.locator("#search-results .search-result").count()
        found += watch.verdict(f"search page for {query!r}")
        page.goto(hostile_url + "index.html")
        page.locator("#site-search").fill(query)
        expect(page.locator("form.site-search")).not_to_have_class(re.compile("is-loading"))
        page.wait_for_timeout(150)  # the preview is debounced
        shown += page.locator(".search-preview .search-result").count()
        found += watch.verdict(f"header preview for {query!r}")
    # Filters chosen through the URL, each a payload; then every hostile filter option picked.
    hostile = quote(QUERIES[1], safe="")
    page.goto(
        f"{hostile_url}search/index.html?q=paper&collection={hostile}&session={hostile}"
        f"&type={hostile}&award=1"
    )
    expect(page.locator("#search-status")).not_to_contain_text("JavaScript")
    found += watch.verdict("search page with hostile filters")
    page.goto(f"{hostile_url}search/index.html?q=study")
    expect(page.locator("#search-results .search-result").first).to_be_visible()
    picked = 0
    for select in ("#filter-collection", "#filter-session", "#filter-type"):
        for value in page.locator(f"{select} option").evaluate_all("os => os.map(o => o.value)"):
            page.select_option(select, value)
            found += watch.verdict(f"filter {select} = {value!r}")
            picked += 1
        page.select_option(select, "")
    context.close()
    assert found == []
    assert shown > 20  # the payload queries did find the papers that carry them
    assert picked > 20, "the filters offer the hostile collections and sessions"
    print(f"{len(QUERIES)} payload queries: {shown} results shown; {picked} filter options")

"""Search in a real browser: the header box, the results page, filters, keyboard, deep links,
from disk and under a sub-path, with hostile and Unicode-heavy data."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import REPO
from playwright.sync_api import Page, expect

from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, BuildResult, build


def fixture_site(module_folder: Callable[[str], Path], name: str) -> Path:
    project = module_folder(name)
    shutil.copytree(REPO / "tests" / "fixtures" / name, project / "project")
    options = BuildOptions(project / "project" / "site.yaml", project / "site")
    return build(options, Diagnostics()).out_dir


@pytest.fixture(scope="module")
def small_site(module_folder: Callable[[str], Path]) -> Path:
    return fixture_site(module_folder, "small")


@pytest.fixture(scope="module")
def unicode_site(module_folder: Callable[[str], Path]) -> Path:
    return fixture_site(module_folder, "unicode")


@pytest.fixture
def watched(page: Page) -> Page:
    """A page that fails the test on any console error, uncaught exception or dialog."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"))
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    yield page
    assert problems == []


def home(site_build: BuildResult) -> str:
    return (site_build.out_dir / "index.html").as_uri()


def search_page(root: str, query: str = "") -> str:
    return f"{root}search/index.html" + (f"?q={query}" if query else "")


def preview_titles(page: Page) -> list[str]:
    return page.locator(".search-preview .result-title").all_inner_texts()


@pytest.mark.parametrize(("query", "expected"), [
    ("mid-vision feedback", "Mid-Vision Feedback"),  # title words
    ("maynord", "Mid-Vision Feedback"),  # an author's name
    ("biconnectivity", "Rethinking the Expressive Power of GNNs via Graph Biconnectivity"),
    ("Schölkopf", "On the Transfer of Disentangled Representations in Realistic Settings"),
])
def test_header_box_finds_papers_by_title_author_and_abstract(
    watched: Page, site_build: BuildResult, query: str, expected: str
) -> None:
    watched.goto(home(site_build))
    watched.locator("#site-search").click()
    watched.keyboard.type(query, delay=20)
    expect(watched.locator(".search-preview .search-result").first).to_be_visible()
    assert expected in preview_titles(watched)


def test_results_link_through_to_the_paper(watched: Page, site_build: BuildResult) -> None:
    watched.goto(home(site_build))
    watched.locator("#site-search").fill("neural tangent kernels backdoor")
    watched.locator(".search-preview .result-title").first.click()
    expect(watched.locator("h1")).to_have_text(
        "Few-shot Backdoor Attacks via Neural Tangent Kernels")


def test_slash_focuses_the_box_and_arrows_walk_the_results(
    watched: Page, site_build: BuildResult
) -> None:
    watched.goto(home(site_build))
    watched.keyboard.press("/")
    expect(watched.locator("#site-search")).to_be_focused()
    watched.keyboard.type("diffusion")
    expect(watched.locator(".search-preview .search-result").first).to_be_visible()
    watched.keyboard.press("ArrowDown")
    expect(watched.locator(".search-preview a").first).to_be_focused()
    watched.keyboard.press("ArrowDown")
    expect(watched.locator(".search-preview a").nth(1)).to_be_focused()
    watched.keyboard.press("ArrowUp")
    watched.keyboard.press("ArrowUp")
    expect(watched.locator("#site-search")).to_be_focused()


def test_enter_opens_the_shareable_results_page(watched: Page, site_build: BuildResult) -> None:
    watched.goto(home(site_build))
    watched.locator("#site-search").fill("contrastive learning")
    watched.keyboard.press("Enter")
    expect(watched.locator("#search-results .search-result").first).to_be_visible()
    assert parse_qs(urlsplit(watched.url).query)["q"] == ["contrastive learning"]
    expect(watched.locator("#search-input")).to_have_value("contrastive learning")


def test_deep_link_shows_count_snippets_and_highlights(
    watched: Page, site_build: BuildResult
) -> None:
    watched.goto(search_page(site_build.out_dir.as_uri() + "/", "diffusion"))
    first = watched.locator("#search-results .search-result").first
    expect(first).to_be_visible()
    status = watched.locator("#search-status").inner_text()
    count = int(status.split()[0].replace(",", ""))
    assert count > 20 and status.endswith("papers found.")
    assert watched.locator("#search-results mark").count() > 0
    marks = watched.locator("#search-results mark").all_inner_texts()
    assert all("iffus" in mark.lower() for mark in marks)
    expect(first.locator(".result-snippet")).not_to_be_empty()


def settled(page: Page) -> None:
    """Results come after the shards and cards they need: the list is busy until then."""
    expect(page.locator("#search-results[aria-busy]")).to_have_count(0)


def select_starting(page: Page, select: str, prefix: str) -> None:
    labels = page.locator(f"{select} option").all_inner_texts()
    page.select_option(select, label=next(label for label in labels if label.startswith(prefix)))
    settled(page)


def result_where(page: Page) -> list[str]:
    return page.locator("#search-results .result-where").all_inner_texts()


def test_each_filter_narrows_the_results_and_lands_in_the_url(
    watched: Page, site_build: BuildResult
) -> None:
    watched.goto(search_page(site_build.out_dir.as_uri() + "/", "learning"))
    expect(watched.locator("#search-results .search-result").first).to_be_visible()
    total = int(watched.locator("#search-status").inner_text().split()[0].replace(",", ""))

    select_starting(watched, "#filter-collection", "ICLR 2023")
    assert all(w.startswith("ICLR 2023") for w in result_where(watched))
    assert parse_qs(urlsplit(watched.url).query)["collection"]
    by_collection = int(watched.locator("#search-status").inner_text().split()[0])
    assert 0 < by_collection < total

    watched.select_option("#filter-collection", "")
    settled(watched)
    select_starting(watched, "#filter-session", "Outstanding paper awards")
    assert all("Outstanding paper awards" in w for w in result_where(watched))

    watched.select_option("#filter-session", "")
    watched.select_option("#filter-type", "Oral")
    settled(watched)
    badges = watched.locator("#search-results .search-result").evaluate_all(
        "items => items.map(i => [...i.querySelectorAll('.badge')].map(b => b.textContent))")
    assert badges and all("Oral" in b for b in badges)

    watched.select_option("#filter-type", "")
    watched.check("#filter-award")
    settled(watched)
    award_badges = watched.locator("#search-results .search-result").evaluate_all(
        "items => items.map(i => [...i.querySelectorAll('.badge')].map(b => b.textContent))")
    assert award_badges and all(
        {"Outstanding Paper", "Honorable Mention"} & set(b) for b in award_badges)
    assert parse_qs(urlsplit(watched.url).query)["award"] == ["1"]
    # The filtered view is a link someone can share.
    shared = watched.url
    watched.goto("about:blank")
    watched.goto(shared)
    expect(watched.locator("#filter-award")).to_be_checked()


@pytest.mark.parametrize("query", ["title:", "foo~", "-", "+", "*", "^2", "title:diff*",
                                   "authors:", ":", "~~~", "a -", "graph +", "\"unclosed"])
def test_half_typed_or_malformed_queries_never_throw(
    watched: Page, site_build: BuildResult, query: str
) -> None:
    watched.goto(search_page(site_build.out_dir.as_uri() + "/"))
    expect(watched.locator("#search-page")).not_to_have_class("search-page is-loading")
    watched.locator("#search-input").fill(query)
    expect(watched.locator("#search-status")).not_to_have_text("Loading search…")
    assert watched.locator("#search-status").inner_text()


def test_empty_state_helps(watched: Page, site_build: BuildResult) -> None:
    watched.goto(search_page(site_build.out_dir.as_uri() + "/", "zzzqqqxxy"))
    expect(watched.locator("#search-status")).to_contain_text("No papers match")
    expect(watched.locator("#search-status")).to_contain_text("fewer words")


def test_prefix_matching_while_typing(watched: Page, site_build: BuildResult) -> None:
    watched.goto(search_page(site_build.out_dir.as_uri() + "/"))
    watched.locator("#search-input").fill("biconnect")
    expect(watched.locator("#search-results .result-title").first).to_contain_text(
        "Biconnectivity")


def test_the_search_box_loads_only_what_its_results_need(
    watched: Page, site_build: BuildResult
) -> None:
    """The filters' data is the search page's; words under 4 letters are never corrected, so
    typing one loads no vocabulary. The preview ends with the last text's results."""
    watched.goto(home(site_build))
    watched.locator("#site-search").click()
    watched.keyboard.type("grap", delay=60)
    expect(watched.locator(".search-preview .search-all")).to_have_attribute(
        "href", re.compile(r"\?q=grap$"))
    expect(watched.locator(".search-preview .search-result").first).to_be_visible()
    loaded = watched.eval_on_selector_all("script[src]", "s => s.map(e => e.src)")
    assert any(src.endswith("search/index.js") for src in loaded)
    assert not [src for src in loaded if src.endswith(("filters.js", "vocabulary.js"))]


def with_prefix_budget(page: Page, hundreds: int) -> None:
    """Serves the search entry with `prefixPostings` (hundreds of postings a prefix's shards
    may hold for the header box to complete it) set to `hundreds`."""
    def fulfil(route) -> None:
        response = route.fetch()
        body, count = re.subn(r'"prefixPostings":\s*\d+', f'"prefixPostings":{hundreds}',
                              response.text())
        assert count == 1
        route.fulfill(response=response, body=body)
    page.route("**/search/index.js", fulfil)


def test_a_wide_prefix_completes_in_the_box_once_longer_and_on_the_search_page_at_once(
    watched: Page, site_url: str
) -> None:
    """A prefix whose shards hold more postings than the entry allows is not completed while
    it is typed in the header box (what is shown stays); the whole word finds the paper. The
    search page, asked for a prefix's results, completes it whatever its shards hold."""
    with_prefix_budget(watched, 0)
    watched.goto(site_url + "index.html")
    watched.locator("#site-search").click()
    see_all = watched.locator(".search-preview .search-all")
    watched.keyboard.type("graph bi", delay=60)
    expect(see_all).to_have_attribute("href", re.compile(r"\?q=graph(%20|\+)bi$"))
    watched.keyboard.type("conn", delay=60)
    watched.wait_for_timeout(1500)  # the default budget completes "biconn" within this
    expect(see_all).to_have_attribute("href", re.compile(r"\?q=graph(%20|\+)bi$"))
    watched.keyboard.type("ect", delay=60)
    expect(see_all).to_have_attribute("href", re.compile(r"\?q=graph(%20|\+)biconnect$"))
    expect(watched.locator(".search-preview .result-title").first).to_contain_text(
        "Biconnectivity")
    watched.goto(site_url + "search/index.html?q=biconn")
    expect(watched.locator("#search-results .result-title").first).to_contain_text(
        "Biconnectivity")


def test_search_works_under_a_sub_path_and_shows_loading(
    watched: Page, site_url: str
) -> None:
    assert site_url.endswith("/proceedings/")
    watched.route("**/search/index.js", lambda route: (watched.wait_for_timeout(600),
                                                       route.continue_()))
    watched.goto(site_url + "papers/mid-vision-feedback/index.html")
    watched.locator("#site-search").click()
    expect(watched.locator(".site-search .search-status")).to_have_text("Loading search…")
    expect(watched.locator("form.site-search")).to_have_class("site-search is-loading")
    watched.keyboard.type("graph")
    expect(watched.locator(".search-preview .search-result").first).to_be_visible()
    href = watched.locator(".search-preview .result-title").first.get_attribute("href")
    assert href.startswith("../../papers/")
    watched.locator(".search-preview .search-all").click()
    expect(watched.locator("#search-results .search-result").first).to_be_visible()
    assert watched.url.startswith(site_url + "search/index.html?q=graph")


def test_hostile_strings_reach_the_page_as_text(watched: Page, small_site: Path) -> None:
    watched.goto(search_page(small_site.as_uri() + "/", "scaling"))
    title = watched.locator("#search-results .result-title").first
    expect(title).to_contain_text('<script>alert("title")</script>')
    expect(watched.locator("#search-results .result-authors").first).to_contain_text(
        "<img src=x onerror=alert(1)>")
    assert watched.locator("#search-results img, #search-results script").count() == 0
    watched.locator("#search-input").fill("onerror")
    expect(watched.locator("#search-results .result-authors").first).to_contain_text("<img")
    assert watched.locator("#search-results img").count() == 0


@pytest.mark.parametrize(("query", "expected"), [
    ("γ", "𝜸-Scaling of 𝓛-Smooth Losses Beyond Convexity"),  # NFKC: 𝜸 is γ
    ("𝜸", "𝜸-Scaling of 𝓛-Smooth Losses Beyond Convexity"),
    ("finite", "𝜸-Scaling of 𝓛-Smooth Losses Beyond Convexity"),  # the ﬁ ligature
    ("深度学习的图神经网络研究", "深度学习的图神经网络研究"),
    ("王小明", "深度学习的图神经网络研究"),
    ("🚀", "Rocket 🚀 Launch Models with 🤖 Agents"),
    ("café", "Café Résumé: Decomposed Accents in Titles"),
    ("cafe\u0301", "Café Résumé: Decomposed Accents in Titles"),  # combining accent typed
    ("Čapek", "𝜸-Scaling of 𝓛-Smooth Losses Beyond Convexity"),
])
def test_unicode_heavy_index_loads_and_finds(
    watched: Page, unicode_site: Path, query: str, expected: str
) -> None:
    watched.goto(search_page(unicode_site.as_uri() + "/"))
    watched.locator("#search-input").fill(query)
    expect(watched.locator("#search-results .search-result").first).to_be_visible()
    titles = watched.locator("#search-results .result-title").all_inner_texts()
    assert expected in titles


CSP_WATCH_JS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation',
    e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.mark.parametrize("path", ["index.html", "search/index.html?q=graph",
                                  "papers/mid-vision-feedback/index.html",
                                  "sessions/iclr-2023-poster-session-3/index.html",
                                  "authors/index.html", "about/index.html"])
def test_pages_work_under_their_content_security_policy(
    watched: Page, site_url: str, path: str
) -> None:
    """Every page carries a CSP without inline script or style; search, filters, the copy
    button and the preview all work under it with no violation reported."""
    watched.add_init_script(CSP_WATCH_JS)
    watched.goto(site_url + path)
    policy = watched.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute(
        "content")
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    if path.startswith("search/"):
        expect(watched.locator("#search-results .search-result").first).to_be_visible()
        watched.select_option("#filter-type", "Poster")
    else:
        watched.locator("#site-search").fill("graph")
        expect(watched.locator(".search-preview .search-result").first).to_be_visible()
    if path.startswith("papers/"):
        expect(watched.locator(".copy-button")).to_be_visible()
    assert watched.evaluate("window.__cspViolations") == []


# ---- issue 16: what people typed, typed as they type it ----------------------------------

def seed_papers(site_build: BuildResult) -> list[dict]:
    return json.loads((site_build.out_dir / "papers.json").read_text(encoding="utf-8"))


def papers_saying(papers: list[dict], pattern: str) -> set[str]:
    """Titles of the papers whose title, authors or abstract match `pattern`: ground truth
    counted from papers.json, not from the search."""
    found = set()
    for paper in papers:
        text = " ".join([paper["title"] or "", paper["abstract"] or "", *paper["authors"]])
        if re.search(pattern, text, re.IGNORECASE):
            found.add(paper["title"])
    return found


def type_on_search_page(page: Page, root: str, text: str) -> None:
    page.goto(search_page(root))
    expect(page.locator("#search-page")).not_to_have_class("search-page is-loading")
    page.locator("#search-input").click()
    page.keyboard.type(text, delay=15)


def result_titles(page: Page) -> list[str]:
    """Every result's title, once the query typed last has its results, all pages shown."""
    settled(page)
    results = page.locator("#search-results .search-result")
    expect(results.first).to_be_visible()
    while page.locator("#search-more").is_visible():
        shown = results.count()
        page.locator("#search-more").click()
        expect(results).not_to_have_count(shown)
    return page.locator("#search-results .result-title").all_inner_texts()


@pytest.mark.parametrize(("query", "pattern"), [
    ("Sergey Levine", r"Sergey Levine"),  # lunr.py stemmed sergey to sergei, lunr.js did not
    ("Geoffrey Hinton", r"Geoffrey.{0,20}Hinton"),
    ("experience replay", r"experience replay"),
    ("shapley values", r"shapley value"),
    ("random delays", r"random delays"),
    ("survey", r"\bsurvey"),
    ("Scholkopf", r"Schölkopf"),  # accents folded: the paper says Schölkopf
    ("poincare", r"Poincaré"),
])
def test_what_people_typed_finds_every_paper_that_says_it(
    watched: Page, site_build: BuildResult, query: str, pattern: str
) -> None:
    expected = papers_saying(seed_papers(site_build), pattern)
    assert expected
    type_on_search_page(watched, site_build.out_dir.as_uri() + "/", query)
    titles = result_titles(watched)
    assert expected <= set(titles)
    assert not watched.locator("#search-status").inner_text().startswith("No papers")


def test_folded_search_shows_the_real_spelling(watched: Page, site_build: BuildResult) -> None:
    watched.goto(home(site_build))
    watched.locator("#site-search").click()
    watched.keyboard.type("Scholkopf", delay=20)
    expect(watched.locator(".search-preview .result-authors").first).to_contain_text("Schölkopf")


@pytest.mark.parametrize(("typed", "shown", "pattern"), [
    ("trasnformer", "transformer", r"\btransformer"),
    ("difusion", "diffusion", r"\bdiffusion"),
])
def test_a_misspelt_word_shows_results_for_the_nearest_one(
    watched: Page, site_build: BuildResult, typed: str, shown: str, pattern: str
) -> None:
    type_on_search_page(watched, site_build.out_dir.as_uri() + "/", typed + " ")
    status = watched.locator("#search-status")
    # Waits for the whole word's status: while it is typed, a prefix ("trasn") may be shown
    # corrected to another word first.
    expect(status).to_contain_text(re.compile(f"Showing results for “{shown}”", re.IGNORECASE))
    settled(watched)
    expected = papers_saying(seed_papers(site_build), pattern)
    count = int(re.search(r"([\d,]+) papers? found", status.inner_text())[1].replace(",", ""))
    assert count >= len(expected) * 0.9  # stems also match other forms (diffusive, ...)


def test_a_complete_word_outranks_its_completions(
    watched: Page, site_build: BuildResult
) -> None:
    """"minifloat" is a word of one paper; typing it must not match "min", "mini"..."""
    expected = papers_saying(seed_papers(site_build), r"minifloat")
    assert len(expected) == 1
    watched.goto(home(site_build))
    watched.locator("#site-search").click()
    watched.keyboard.type("minifloat", delay=20)
    expect(watched.locator(".search-preview .search-all")).to_have_text("See the 1 result")
    assert preview_titles(watched) == list(expected)


def test_the_word_being_typed_completes(watched: Page, site_build: BuildResult) -> None:
    type_on_search_page(watched, site_build.out_dir.as_uri() + "/", "generaliza")
    titles = result_titles(watched)
    assert any("generaliz" in t.lower() for t in titles[:5])


@pytest.mark.parametrize("query", ["a", "the", "of the"])
def test_stop_words_alone_get_a_helpful_message(
    watched: Page, site_build: BuildResult, query: str
) -> None:
    type_on_search_page(watched, site_build.out_dir.as_uri() + "/", query + " ")
    expect(watched.locator("#search-status")).to_contain_text("too common to search for")
    watched.goto(home(site_build))
    watched.locator("#site-search").click()
    watched.keyboard.type(query + " ", delay=20)
    expect(watched.locator(".search-preview .search-empty")).to_contain_text("too common")


def test_one_result_is_counted_in_the_singular(watched: Page, site_build: BuildResult) -> None:
    type_on_search_page(watched, site_build.out_dir.as_uri() + "/", "minifloat")
    expect(watched.locator("#search-status")).to_have_text("1 paper found.")


def test_snippet_is_the_matching_passage_with_the_match_marked(
    watched: Page, site_build: BuildResult
) -> None:
    papers = seed_papers(site_build)
    # A word far into one paper's abstract: the passage shown must be the one that says it.
    paper = next(p for p in papers if "minifloat" in (p["title"] or "").lower())
    word = "mantissa"
    assert paper["abstract"].lower().index(word) > 600
    type_on_search_page(watched, site_build.out_dir.as_uri() + "/", f"minifloat {word} ")
    snippet = watched.locator("#search-results .result-snippet").first
    expect(snippet.locator("mark").first).to_be_visible()
    marks = [m.lower() for m in snippet.locator("mark").all_inner_texts()]
    assert any(m.startswith(word[:6]) for m in marks)
    assert snippet.inner_text().startswith("…")


def test_snippets_of_hostile_abstracts_stay_text(watched: Page, small_site: Path) -> None:
    watched.goto(search_page(small_site.as_uri() + "/", "scaling"))
    expect(watched.locator("#search-results .result-snippet").first).to_be_visible()
    assert watched.locator("#search-results img, #search-results script").count() == 0


def test_empty_query_lists_every_paper_to_filter_and_page(
    watched: Page, site_build: BuildResult
) -> None:
    papers = seed_papers(site_build)
    watched.goto(search_page(site_build.out_dir.as_uri() + "/"))
    status = watched.locator("#search-status")
    expect(status).to_contain_text(f"{len(papers):,} papers")
    expect(watched.locator("#search-results .search-result")).to_have_count(50)
    watched.locator("#search-more").click()
    expect(watched.locator("#search-results .search-result")).to_have_count(100)
    in_2023 = sum(1 for p in papers if p["year"] == 2023)
    select_starting(watched, "#filter-year", "2023")
    expect(status).to_contain_text(f"{in_2023} papers")
    assert parse_qs(urlsplit(watched.url).query)["year"] == ["2023"]
    watched.check("#filter-award")
    settled(watched)
    awarded = sum(1 for p in papers if p["year"] == 2023 and p["awards"])
    expect(status).to_contain_text(f"{awarded} paper")


def test_results_on_the_search_page_are_headings_and_untitled_ones_say_so(
    watched: Page, site_build: BuildResult
) -> None:
    """A screen reader moves from result to result by heading; a paper the dumps give no title
    shows the note the paper cards show, with its first author, never a bare 'Untitled paper'.
    The awards dump has no titles: its papers hold the award's name."""
    type_on_search_page(watched, site_build.out_dir.as_uri() + "/", "outstanding paper")
    settled(watched)
    headings = watched.locator("#search-results .search-result h2.result-heading a.result-title")
    expect(headings.first).to_be_visible()
    assert headings.count() == watched.locator("#search-results .search-result").count()
    untitled = watched.locator("#search-results .result-title .untitled").all_inner_texts()
    assert untitled, "no untitled paper among the results"
    for label in untitled:
        assert re.fullmatch(r"Untitled paper \(title not in the program · \S.+\)", label), label

"""The built site, read back with a real HTML parser: pages, links, escaping, metadata."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pytest
from bs4 import BeautifulSoup
from conftest import REPO

from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, BuildResult, build
from confsite.render.not_found import ROOT_SCRIPT

SMALL = REPO / "tests" / "fixtures" / "small"


def soup_of(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")


def build_small(tmp_path: Path, **options) -> BuildResult:
    project = tmp_path / "project"
    shutil.copytree(SMALL, project)
    return build(BuildOptions(project / "site.yaml", project / "_site", **options), Diagnostics())


@pytest.fixture(scope="module")
def site(seeds_build: BuildResult) -> Path:
    return seeds_build.out_dir


@pytest.fixture(scope="module")
def small_site(module_folder: Callable[[str], Path]) -> Path:
    return build_small(module_folder("small")).out_dir


def test_each_paper_has_exactly_one_page(site: Path, papers_json: list[dict]) -> None:
    pages = sorted(p.parent.name for p in (site / "papers").glob("*/index.html"))
    assert pages == sorted(paper["id"] for paper in papers_json)
    for paper in papers_json[::50]:
        page = soup_of(site / paper["url"] / "index.html")
        heading = page.find("h1").get_text(" ", strip=True)
        assert heading == ("Untitled paper" if paper["title"] is None else heading)
        if paper["title"] and "$" not in paper["title"]:
            assert heading == " ".join(paper["title"].split())


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_each_session_page_lists_exactly_its_papers(site: Path, seeds_build: BuildResult) -> None:
    expected: dict[tuple, set[str]] = defaultdict(set)
    for paper in seeds_build.papers:
        for session in paper.sessions:
            label = f"{session.conference} {session.year}" if session.conference else "Other papers"
            expected[(label, session.name)].add(paper.id)
    seen: dict[tuple, list[str]] = defaultdict(list)
    for page_path in (site / "sessions").glob("**/index.html"):  # a long session's pages too
        page = soup_of(page_path)
        collection = page.select(".breadcrumbs a")[1].get_text()
        links = [a["href"] for a in page.select("article.paper-card .paper-title a")]
        seen[(collection, page.find("h1").get_text(strip=True))] += [
            PurePosixPath(href).parent.name for href in links
        ]
    for key, ids in seen.items():
        assert len(ids) == len(set(ids)), f"{key}: a paper is listed twice"
    seen = {key: set(ids) for key, ids in seen.items()}
    assert seen == expected
    assert len(seen[("ICLR 2024", "Poster Session 3")]) == 291


def test_sessions_keep_the_dump_order(site: Path) -> None:
    session = site / "sessions" / "iclr-2023-poster-session-3"
    titles = [
        h.get_text(" ", strip=True)
        for path in (session / "index.html", session / "page" / "2" / "index.html")
        for h in soup_of(path).select(".paper-title")
    ]
    assert titles[:3] == ["Few-shot Backdoor Attacks via Neural Tangent Kernels",
                          "Mid-Vision Feedback",
                          "Markup-to-Image Diffusion Models with Scheduled Sampling"]
    assert len(titles) == 135


def test_page_counts_per_type(site: Path, papers_json: list[dict]) -> None:
    authors = {name for paper in papers_json for name in paper["authors"]}
    author_pages = list((site / "authors").glob("*/index.html"))
    assert 0 < len(author_pages) <= len(authors)
    assert len(list((site / "sessions").glob("*/index.html"))) == 5  # one per dump, page 1
    assert {p.parent.name for p in (site / "collections").glob("*/index.html")} == {
        "iclr-2021", "iclr-2022", "iclr-2023", "iclr-2024", "other-papers"}
    for name in ("index.html", "404.html", "papers/index.html", "authors/index.html",
                 "about/index.html", "papers.bib", "papers.csv", "assets/style.css"):
        assert (site / name).is_file(), name


def test_author_spellings_that_differ_by_accents_are_one_author(site: Path) -> None:
    page = soup_of(site / "authors" / "index.html")
    names = [a.get_text() for a in page.select(".author-index a")]
    keys = [name.casefold() for name in names]
    assert len(keys) == len(set(keys))
    page = soup_of(site / "authors" / "bernhard-scholkopf" / "index.html")
    assert page.find("h1").get_text() == "Bernhard Schölkopf"


def test_untitled_paper_is_shown_honestly(site: Path, papers_json: list[dict]) -> None:
    paper = next(p for p in papers_json if p["id"].startswith("untitled-fan-bao-"))
    page = soup_of(site / paper["url"] / "index.html")
    heading = page.find("h1")
    assert heading.select_one("q.stand-in").get_text().startswith(paper["abstract"][:40])
    assert "title not in the program · Fan Bao" in heading.get_text()
    assert "gives no title" in page.select_one(".notice").get_text()
    assert page.select_one(".authors a").get_text() == "Fan Bao"
    assert "Outstanding Paper" in [b.get_text() for b in page.select(".badge")]
    assert page.find("meta", attrs={"name": "citation_title"}) is None


def test_paper_page_metadata(site: Path) -> None:
    page = soup_of(site / "papers" / "mid-vision-feedback" / "index.html")
    meta = {(m.get("name") or m.get("property")): m["content"] for m in page.find_all("meta")
            if m.get("content") and m.get("name") != "citation_author"}
    assert meta["citation_title"] == "Mid-Vision Feedback"
    assert meta["citation_publication_date"] == "2023"
    assert meta["og:type"] == "article"
    authors = [m["content"] for m in page.find_all("meta", attrs={"name": "citation_author"})]
    assert authors == ["Michael Maynord", "Eadom Dessalene", "Cornelia Fermuller",
                       "Yiannis Aloimonos"]
    data = json.loads(page.find("script", type="application/ld+json").string)
    assert data["@type"] == "ScholarlyArticle" and data["name"] == "Mid-Vision Feedback"
    assert "@inproceedings{maynord2023mid," in page.find("pre", id="bibtex").get_text()
    assert page.find("link", rel="canonical") is None  # no base_url in the seeds config
    assert page.select(".related li"), "related papers are listed"
    pager = page.select_one(".pager")
    assert "Few-shot Backdoor Attacks" in pager.select_one("[rel=prev]").get_text()
    assert "Markup-to-Image" in pager.select_one("[rel=next]").get_text()


def test_math_in_abstracts_becomes_mathml(site: Path, papers_json: list[dict]) -> None:
    paper = next(p for p in papers_json if p["title"] and p["title"].startswith("Mini-batch $k$"))
    page = soup_of(site / paper["url"] / "index.html")
    assert page.find("h1").find("math") is not None
    assert page.select_one(".abstract-full math") is not None


def test_scraped_markup_is_escaped_everywhere(small_site: Path) -> None:
    for page_path in small_site.rglob("*.html"):
        page = soup_of(page_path)
        scripts = page.find_all("script")
        assert all(s.get("src", "").endswith(("assets/site.js", "assets/search.js"))
                   or s.get("type") == "application/ld+json"
                   # the 404 page's own script, allowed by its hash (render/not_found.py)
                   or (page_path.name == "404.html" and s.string == ROOT_SCRIPT)
                   for s in scripts), page_path
        assert not page.find("img", onerror=True)
        # The one data: link a page may have is its RIS record, a download that never opens.
        assert not [a for a in page.find_all("a", href=True) if a["href"].startswith(
            ("javascript:", "data:")) and not (a.has_attr("download") and a["href"].startswith(
                "data:application/x-research-info-systems;"))], page_path
    paper = soup_of(small_site / "papers" / "script-alert-title-script-learning-a-scaling-laws"
                    / "index.html")
    assert paper.find("h1").get_text().startswith('<script>alert("title")</script> Learning')
    assert "<img src=x onerror=alert(1)>" in [a.get_text() for a in paper.select(".authors a")]
    ld_json = paper.find("script", type="application/ld+json").string
    assert "<" not in ld_json and json.loads(ld_json)["author"][1]["name"].startswith("<img")
    links = {a.get_text(): a["href"] for a in paper.select(".abstract-full a")}
    assert links == {"the code": "https://example.org/code",
                     "https://example.org/auto": "https://example.org/auto"}
    assert "$\\frac{1}{$" in paper.select_one(".abstract-full").get_text()


def test_content_pages_are_rendered_and_sanitized(small_site: Path) -> None:
    page = soup_of(small_site / "call-for-papers" / "index.html")
    assert page.find("h1").get_text() == "Call for papers"
    assert page.select_one(".prose strong").get_text() == "TESTCONF"
    nav = [a.get_text() for a in page.select(".site-nav a")]
    assert "Call for papers" in nav
    assert page.select_one(".prose a[href='https://example.org/cfp']") is not None
    assert "alert(" not in str(page.select_one(".prose"))


def test_base_url_adds_canonical_sitemap_robots(tmp_path: Path) -> None:
    out = build_small(tmp_path, base_url="https://example.org/conf/").out_dir
    page = soup_of(out / "papers" / "a-second-paper-on-graphs" / "index.html")
    assert page.find("link", rel="canonical")["href"] == (
        "https://example.org/conf/papers/a-second-paper-on-graphs/")
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.org/conf/papers/a-second-paper-on-graphs/</loc>" in sitemap
    assert "404" not in sitemap
    assert "papers.json" not in sitemap and "assets/" not in sitemap  # pages only
    assert "Sitemap: https://example.org/conf/sitemap.xml" in (out / "robots.txt").read_text()
    assert soup_of(out / "404.html").find("base")["href"] == "https://example.org/conf/"


def test_without_base_url_no_sitemap(small_site: Path) -> None:
    assert not (small_site / "sitemap.xml").exists()
    assert not (small_site / "robots.txt").exists()


def test_theme_dir_overrides_templates_and_assets(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(SMALL, project)
    theme = project / "theme"
    (theme / "templates" / "partials").mkdir(parents=True)
    (theme / "static").mkdir()
    (theme / "templates" / "partials" / "badges.html").write_text(
        "{% macro badges(items) %}<p class=\"themed\">{{ items | length }}</p>{% endmacro %}\n")
    (theme / "static" / "style.css").write_text("body { color: teal; }\n")
    with (project / "site.yaml").open("a") as config:
        config.write("theme_dir: theme\n")
    out = build(BuildOptions(project / "site.yaml", project / "_site"), Diagnostics()).out_dir
    page = soup_of(out / "papers" / "a-second-paper-on-graphs" / "index.html")
    assert page.select_one("p.themed") is not None
    assert (out / "assets" / "style.css").read_text() == "body { color: teal; }\n"
    assert (out / "assets" / "site.js").is_file()  # not overridden, still the built-in one


def test_downloads_match_papers_json(site: Path, papers_json: list[dict]) -> None:
    import csv

    rows = list(csv.DictReader((site / "papers.csv").open(encoding="utf-8")))
    assert [row["id"] for row in rows] == [paper["id"] for paper in papers_json]
    bib = (site / "papers.bib").read_text(encoding="utf-8")
    assert bib.count("\n@") + 1 == len(papers_json)


def test_paper_page_shows_links_affiliations_and_keywords_escaped(tmp_path: Path) -> None:
    """An export's links, affiliations and keywords reach the paper page; scraped values stay
    text, and only http(s) addresses become links."""
    (tmp_path / "papers.json").write_text(
        json.dumps(
            [
                {
                    "title": "Sorting <b>Socks</b>",
                    "authors": [
                        {"name": "Ann Lee", "affiliation": "MIT <script>x</script>"},
                        {"name": "Bo Chen", "affiliation": ""},
                    ],
                    "abstract": "We sort socks.",
                    "keywords": ["laundry", "<i>pairs</i>"],
                    "pdf": "https://example.org/socks.pdf",
                    "forum": "https://openreview.net/forum?id=abc",
                    "url": "javascript:alert(1)",
                }
            ]
        ),
        encoding="utf-8",
    )
    (tmp_path / "site.yaml").write_text("title: T\nsources:\n  - path: papers.json\n")
    result = build(BuildOptions(tmp_path / "site.yaml", tmp_path / "_site"), Diagnostics())
    (paper,) = result.papers
    page = soup_of(tmp_path / "_site" / "papers" / paper.id / "index.html")
    links = {a.get_text(): a["href"] for a in page.select("ul.paper-links a")}
    assert links == {
        "PDF": "https://example.org/socks.pdf",
        "OpenReview": "https://openreview.net/forum?id=abc",
    }
    affiliations = [li.get_text(" ", strip=True) for li in page.select("ul.affiliations li")]
    assert affiliations == ["Ann Lee (MIT <script>x</script>)"]
    assert not page.select("ul.affiliations script")
    keywords = page.find("dt", string="Keywords").find_next_sibling("dd").get_text()
    assert keywords == "laundry, <i>pairs</i>"

"""Light pages (issue 18): no HTML page of the seeds site over 300 KB or 4,000 elements; long
listings split into pages reached by plain links, every paper and author still listed once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from urllib.parse import urljoin

import lxml.html
import pytest
from bs4 import BeautifulSoup

from confsite.pipeline import BuildResult

MAX_BYTES = 300_000
MAX_ELEMENTS = 4_000


@pytest.fixture(scope="module")
def site(seeds_build: BuildResult) -> Path:
    return seeds_build.out_dir


def element_count(data: bytes) -> int:
    """Elements as a browser's parser builds them (lxml's HTML parser), not a regex count."""
    return sum(1 for _ in lxml.html.document_fromstring(data).iter(lxml.etree.Element))


def test_element_count_counts_elements() -> None:
    # html, head, title, body, p, b, p
    assert element_count(b"<!DOCTYPE html><title>x</title><p>a<b>b</b><p>c") == 7


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_no_page_is_heavy(site: Path) -> None:
    heavy = []
    for page in site.rglob("*.html"):
        data = page.read_bytes()
        if len(data) > MAX_BYTES or element_count(data) > MAX_ELEMENTS:
            heavy.append((str(page.relative_to(site)), len(data), element_count(data)))
    assert not heavy


def soup(site: Path, url: str) -> BeautifulSoup:
    path = site / url / "index.html" if url.endswith("/") or not url else site / url
    return BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")


def walk_pages(site: Path, first: str) -> list[tuple[str, BeautifulSoup]]:
    """A listing's pages, found by following its rel=next links in the page list from the
    first one; each page's rel=prev must lead back."""
    pages = [(first, soup(site, first))]
    while (link := pages[-1][1].select_one('nav.pagination a[rel="next"]')) is not None:
        url = urljoin(pages[-1][0], link["href"]).removesuffix("index.html")
        page = soup(site, url)
        back = page.select_one('nav.pagination a[rel="prev"]')
        assert urljoin(url, back["href"]).removesuffix("index.html") == pages[-1][0]
        assert page.select_one('head link[rel="prev"]') is not None
        pages.append((url, page))
        assert len(pages) < 100
    return pages


def paper_ids(page: BeautifulSoup) -> list[str]:
    return [PurePosixPath(a["href"]).parent.name for a in page.select(".paper-title a")]


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_long_session_is_split_and_every_paper_listed_once(site: Path) -> None:
    # 860 papers in the 2021 list (counted in seeds/iclr2021-accepted-papers.txt).
    pages = walk_pages(site, "sessions/iclr-2021-accepted-papers/")
    assert len(pages) > 1
    assert pages[1][0] == "sessions/iclr-2021-accepted-papers/page/2/"
    ids = [i for _, page in pages for i in paper_ids(page)]
    assert len(ids) == len(set(ids)) == 860
    for number, (_, page) in enumerate(pages, 1):
        current = page.select_one('nav.pagination [aria-current="page"]')
        assert current.get_text(strip=True) == str(number)
        assert page.find("h1").get_text(strip=True) == "Accepted papers"
        assert f"page {number} of {len(pages)}" in page.title.get_text()


UNSESSIONED = 250  # papers of one collection without a session: three pages of at most 100
IN_A_SESSION = 150  # and in one: four pages, were they counted too


def accepted_list_project(project: Path, last_abstract: str = "An abstract.") -> Path:
    """A collection as an accepted-papers export gives it: many papers without a session,
    and some in one. Returns its config."""
    rows = ["Paper Title,Authors,Abstract,Track"]
    rows += [f"Accepted paper number {n},Author {n % 7},An abstract.," for n in range(UNSESSIONED)]
    rows[-1] = rows[-1].replace("An abstract.", last_abstract)
    rows += [f"Invited talk {n},Speaker {n},A talk.,Keynotes" for n in range(IN_A_SESSION)]
    (project / "papers.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    config = "title: Accepted\nsources:\n  - path: papers.csv\n    conference: CONF\n    year: 2025"
    (project / "site.yaml").write_text(config + "\n", encoding="utf-8")
    return project / "site.yaml"


def build_project(config: Path) -> Path:
    from confsite.diagnostics import Diagnostics
    from confsite.pipeline import BuildOptions, build

    build(BuildOptions(config, config.parent / "_site"), Diagnostics())
    return config.parent / "_site"


@pytest.fixture(scope="module")
def accepted_list_site(module_folder: Callable[[str], Path]) -> Path:
    return build_project(accepted_list_project(module_folder("accepted")))


def test_papers_without_a_session_are_split_and_each_listed_once(accepted_list_site: Path) -> None:
    pages = walk_pages(accepted_list_site, "collections/conf-2025/")
    assert [url for url, _ in pages] == [
        "collections/conf-2025/",
        "collections/conf-2025/page/2/",
        "collections/conf-2025/page/3/",
    ]
    written = accepted_list_site / "collections" / "conf-2025"
    assert sorted(str(f.relative_to(written)) for f in written.rglob("index.html")) == [
        "index.html",
        "page/2/index.html",
        "page/3/index.html",
    ]  # and no page beyond, of papers in a session counted as without one
    listed = [paper_ids(page) for _, page in pages]
    assert [len(ids) for ids in listed] == [100, 100, 50]
    ids = [i for page_ids in listed for i in page_ids]
    assert len(set(ids)) == UNSESSIONED and not any(i.startswith("invited-talk") for i in ids)
    assert ids == sorted(ids)  # in alphabetical order of their ids, made from their titles
    for number, (_, page) in enumerate(pages, 1):
        assert page.find("h1").get_text(strip=True) == "CONF 2025"
        assert f"page {number} of 3" in page.title.get_text()
        first = (number - 1) * 100 + 1
        assert f"Papers {first}–{first + len(listed[number - 1]) - 1} of 250" in page.get_text()
        # The collection's sessions are listed on its first page only.
        assert (page.select_one("ul.session-table") is not None) == (number == 1)


def test_an_edited_abstract_rewrites_only_the_collection_page_listing_it(tmp_path: Path) -> None:
    site = build_project(accepted_list_project(tmp_path))
    pages = walk_pages(site, "collections/conf-2025/")
    edited = f"accepted-paper-number-{UNSESSIONED - 1}"
    holding = [edited in paper_ids(page) for _, page in pages]
    assert len(pages) == 3 and holding.count(True) == 1
    files = [site / url / "index.html" for url, _ in pages]
    before = [file.stat().st_ino for file in files]
    build_project(accepted_list_project(tmp_path, last_abstract="An edited abstract."))
    rewritten = [file.stat().st_ino != inode for file, inode in zip(files, before, strict=True)]
    assert rewritten == holding  # the other pages are the files the last build wrote
    assert "An edited abstract." in files[holding.index(True)].read_text(encoding="utf-8")


# One author's papers in three venues and years, as their pages list them: newest first.
PROLIFIC_VENUES = (("CONF", 2024, 100), ("OTHER", 2024, 50), ("CONF", 2023, 100))


def prolific_author_project(project: Path) -> Path:
    """An author on 250 papers, each also by one of three co-authors. Returns its config."""
    sources = []
    for conference, year, count in PROLIFIC_VENUES:
        name = f"{conference.lower()}-{year}.csv"
        rows = ["Paper Title,Authors,Abstract"]
        rows += [
            f'{conference} {year} paper {n:03d},"Ada Prolific, Co Author {n % 3}",An abstract.'
            for n in range(count)
        ]
        (project / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
        sources.append(f"  - path: {name}\n    conference: {conference}\n    year: {year}")
    config = "title: Prolific\nsources:\n" + "\n".join(sources)
    (project / "site.yaml").write_text(config + "\n", encoding="utf-8")
    return project / "site.yaml"


def test_an_author_of_hundreds_of_papers_has_pages_of_a_hundred(tmp_path: Path) -> None:
    site = build_project(prolific_author_project(tmp_path))
    pages = walk_pages(site, "authors/ada-prolific/")
    folder = site / "authors" / "ada-prolific"
    assert sorted(str(f.relative_to(folder)) for f in folder.rglob("index.html")) == [
        "index.html",
        "page/2/index.html",
        "page/3/index.html",
    ]
    listed = [paper_ids(page) for _, page in pages]
    assert [len(ids) for ids in listed] == [100, 100, 50]
    ids = [i for page_ids in listed for i in page_ids]
    expected = [f"{c.lower()}-{y}-paper-{n:03d}" for c, y, k in PROLIFIC_VENUES for n in range(k)]
    assert ids == expected  # newest year first, then venue, then title; each paper once
    headings = [
        [h.get_text(" ", strip=True) for h in page.select("section.venue-year h2")]
        for _, page in pages
    ]  # each venue's heading counts all its papers, on whichever page it continues
    assert headings == [
        ["CONF 2024 100 papers"],
        ["OTHER 2024 50 papers", "CONF 2023 100 papers"],
        ["CONF 2023 (continued) 100 papers"],
    ]
    starts = {"conf-2024": "authors/ada-prolific/", "other-2024": "authors/ada-prolific/page/2/"}
    starts["conf-2023"] = "authors/ada-prolific/page/2/"  # its first 50 papers are there
    for number, (url, page) in enumerate(pages, 1):
        assert f"page {number} of 3" in page.title.get_text()
        lead = " ".join(page.select_one("p.lead").get_text().split())
        assert lead == "250 papers in 3 venues and years, with 3 co-authors."
        first = (number - 1) * 100 + 1
        assert f"Papers {first}–{first + len(listed[number - 1]) - 1} of 250" in page.get_text()
        toc = {
            a.get_text(strip=True): urljoin(url, a["href"]).replace("index.html", "")
            for a in page.select("nav.toc a")
        }
        assert toc == {
            "CONF 2024": starts["conf-2024"] + "#conf-2024",
            "OTHER 2024": starts["other-2024"] + "#other-2024",
            "CONF 2023": starts["conf-2023"] + "#conf-2023",
        }
        # Co-authors, with the papers shared, are on the first page only; the others link there.
        assert (page.select_one("aside.coauthors") is not None) == (number == 1)
        link = page.select_one("p.lead a")
        assert (link is None) == (number == 1)
        if link is not None:
            assert urljoin(url, link["href"]) == "authors/ada-prolific/index.html#coauthors-heading"
    # A co-author of 85 papers (34 + 17 + 34: every third) has one page, without a page list.
    single = soup(site, "authors/co-author-0/")
    assert single.select_one("nav.pagination") is None and len(paper_ids(single)) == 85
    assert not (site / "authors" / "co-author-0" / "page").exists()


def test_an_author_of_100_papers_has_one_page_and_of_101_two(tmp_path: Path) -> None:
    rows = ["Paper Title,Authors,Abstract"]
    both = ', Bo Hundred'  # Bo on the first 100 of Ada's 101 papers
    rows += [f'Paper {n:03d},"Ada Hundred{both * (n < 100)}",An abstract.' for n in range(101)]
    (tmp_path / "papers.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    config = "title: T\nsources:\n  - path: papers.csv\n    conference: CONF\n    year: 2025\n"
    (tmp_path / "site.yaml").write_text(config, encoding="utf-8")
    site = build_project(tmp_path / "site.yaml")
    bo = soup(site, "authors/bo-hundred/")
    assert len(paper_ids(bo)) == 100 and bo.select_one("nav.pagination") is None
    assert not (site / "authors" / "bo-hundred" / "page").exists()
    pages = walk_pages(site, "authors/ada-hundred/")
    assert [len(paper_ids(page)) for _, page in pages] == [100, 1]
    assert "Papers 101–101 of 101" in pages[1][1].get_text()
    assert paper_ids(pages[1][1]) == ["paper-100"]


def test_an_author_with_fewer_papers_keeps_no_page_of_the_last_build(tmp_path: Path) -> None:
    """A rebuild after 50 of the author's papers became another's: their third page is gone,
    and the second holds the rest."""
    config = prolific_author_project(tmp_path)
    site = build_project(config)
    assert len(walk_pages(site, "authors/ada-prolific/")) == 3
    other = tmp_path / "other-2024.csv"
    other.write_text(other.read_text(encoding="utf-8").replace("Ada Prolific", "Bo Other"))
    build_project(config)
    pages = walk_pages(site, "authors/ada-prolific/")
    assert [len(paper_ids(page)) for _, page in pages] == [100, 100]
    assert not (site / "authors" / "ada-prolific" / "page" / "3").exists()


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_page_list_links_first_last_and_neighbours(site: Path) -> None:
    pages = walk_pages(site, "sessions/iclr-2021-accepted-papers/")
    urls = [url for url, _ in pages]
    for index, (url, page) in enumerate(pages):
        links = page.select_one("nav.pagination").select("a")
        targets = {urljoin(url, a["href"]).removesuffix("index.html") for a in links}
        assert {urls[0], urls[-1], *urls[max(0, index - 1) : index + 2]} <= targets


def test_all_papers_listing_names_every_paper_once_per_collection(
    site: Path, papers_json: list[dict]
) -> None:
    pages = walk_pages(site, "papers/")
    assert len(pages) > 1
    listed = Counter(
        (section.h2["id"], PurePosixPath(a["href"]).parent.name)
        for _, page in pages
        for section in page.select("main section")
        for a in section.select("ul.paper-lines > li > a")
    )
    assert max(listed.values()) == 1
    assert {paper_id for _, paper_id in listed} == {paper["id"] for paper in papers_json}


@pytest.mark.slow  # whole-site scans or repeated builds: out of the fast loop
def test_author_index_is_split_by_letter_and_lists_every_author_once(
    site: Path, seeds_build: BuildResult
) -> None:
    first = soup(site, "authors/")
    letters = first.select("nav.letters a")
    urls = ["authors/"] + [
        urljoin("authors/", a["href"]).removesuffix("index.html")
        for a in letters
        if a.get("aria-current") != "page"
    ]
    assert "authors/letter/b/" in urls
    names = []
    for url in urls:
        for _, page in walk_pages(site, url):
            names += [a["href"] for a in page.select(".author-index a")]
    assert len(names) == len(set(names)) == seeds_build.authors


def test_paged_url_and_reserved_slugs() -> None:
    from confsite.model import urls
    from confsite.model.slugs import unique_slugs

    assert urls.paged_url("sessions/x/", 1) == "sessions/x/"
    assert urls.paged_url("sessions/x/", 2) == "sessions/x/page/2/"
    # An author called "Page" or "Letter" must not take the folder of the index's pages.
    slugs = unique_slugs({1: "Page", 2: "Letter", 3: "Ann Page"}, "author", 60, urls.LISTING_SLUGS)
    assert slugs[1].startswith("page-") and slugs[2].startswith("letter-")
    assert slugs[3] == "ann-page"


def test_a_paper_titled_page_does_not_take_the_listing_folder() -> None:
    from confsite.model.merge import assign_ids

    ids = assign_ids({("title", "page"): [_entry("Page")]}, _diagnostics())
    assert ids[("title", "page")].startswith("page-")


def test_page_list_window() -> None:
    from confsite.render.views import pager

    assert pager("s/", 1, 1) is None
    numbers = [i["number"] if not i["gap"] else "…" for i in pager("s/", 9, 18)["items"]]
    assert numbers == [1, "…", 7, 8, 9, 10, 11, "…", 18]
    first = pager("s/", 1, 3)
    assert (first["prev"], first["next"]) == (None, "s/page/2/")


def _diagnostics():
    from confsite.diagnostics import Diagnostics

    return Diagnostics()


def _entry(title: str):
    from confsite.diagnostics import SourceLoc
    from confsite.model.records import Entry
    from confsite.model.slugs import title_slug

    return Entry(
        loc=SourceLoc("dump.txt", 1), source_index=0, title=title, authors=(), affiliations=(),
        abstract=None, links=(), keywords=(), presentation=None, decision=None, attendance=None,
        awards=(), session=None, room=None, conference=None, year=None,
        title_slug=title_slug(title),
    )  # fmt: skip

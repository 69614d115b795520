"""Untitled papers (issue 18): never a bare "Untitled paper", but an honest, marked stand-in
made from what the dumps say; a distinct tab title each; a build report line for the organiser."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from conftest import REPO, run_cli

from confsite.pipeline import BuildResult


@pytest.fixture(scope="module")
def site(seeds_build: BuildResult) -> Path:
    return seeds_build.out_dir


@pytest.fixture(scope="module")
def untitled(site: Path) -> list[dict]:
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    found = [paper for paper in papers if not paper["title"]]
    assert len(found) == 11  # the awards dump's papers, and one more, as the review counted
    return found


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_untitled_pages_have_distinct_tab_titles(site: Path, untitled: list[dict]) -> None:
    titles = [soup(site / "papers" / p["id"] / "index.html").title.get_text() for p in untitled]
    assert len(set(titles)) == len(titles), titles
    for title, paper in zip(titles, untitled, strict=True):
        assert title.startswith("Untitled paper")
        if paper["authors"]:
            assert paper["authors"][0] in title
        if paper["abstract"]:
            assert " ".join(paper["abstract"].split()[:4]) in title


def test_the_home_page_shows_stand_ins_not_bare_untitled_cards(
    site: Path, untitled: list[dict]
) -> None:
    home = soup(site / "index.html")
    headings = [h.get_text(" ", strip=True) for h in home.select(".paper-card .paper-title")]
    assert headings and "Untitled paper" not in headings
    stand_ins = home.select(".paper-card .paper-title .untitled")
    awarded_untitled = [p for p in untitled if p["awards"]]
    assert len(stand_ins) == len(awarded_untitled) > 0
    openings = {" ".join(p["abstract"].split()[:5]) for p in awarded_untitled}
    for stand_in in stand_ins:
        quote = stand_in.select_one("q.stand-in").get_text()
        assert any(quote.startswith(opening) for opening in openings), quote
        note = stand_in.select_one(".untitled-note").get_text()
        assert "title not in the program" in note


def test_an_untitled_paper_page_says_what_its_heading_is(
    site: Path, untitled: list[dict]
) -> None:
    paper = next(p for p in untitled if p["abstract"] and p["authors"])
    page = soup(site / "papers" / paper["id"] / "index.html")
    heading = page.h1.get_text(" ", strip=True)
    assert page.h1.select_one("q.stand-in")  # quoted: these are not the paper's own words
    assert heading.startswith(" ".join(paper["abstract"].split()[:3]))
    assert f"title not in the program · {paper['authors'][0]}" in heading
    assert "gives no title" in page.select_one(".notice").get_text()
    assert page.find("meta", attrs={"name": "citation_title"}) is None  # nothing invented


def test_the_build_report_tells_the_organiser_to_add_titles(tmp_path: Path) -> None:
    shutil.copytree(REPO / "tests" / "fixtures" / "small", tmp_path, dirs_exist_ok=True)
    result = run_cli("build", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("untitled:")]
    assert lines == [
        "untitled: 1 paper without a title in the dumps, shown with the first words of the "
        "abstract; add titles in overrides.yaml (the untitled warnings name each id)"
    ]

"""Reaching the paper (issue 18): the links a dump carries, on paper pages and cards; where it
carries none, searches by the exact title, clearly labelled. No identifier is invented."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup

from confsite.diagnostics import Diagnostics
from confsite.pipeline import BuildOptions, BuildResult, build

PATCHED = "Patched Denoising Diffusion Models For High-Resolution Image Synthesis"
SEARCH_HOSTS = {
    "OpenReview": ("openreview.net", "term"),
    "arXiv": ("arxiv.org", "query"),
    "Semantic Scholar": ("www.semanticscholar.org", "q"),
    "Google Scholar": ("scholar.google.com", "q"),
}


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="module")
def site(seeds_build: BuildResult) -> Path:
    return seeds_build.out_dir


def test_a_paper_without_links_offers_searches_by_its_exact_title(site: Path) -> None:
    page = soup(site / "papers" / "patched-denoising-diffusion-models-for-high-resolution-image"
                "-synthesis" / "index.html")
    row = page.select_one(".find-paper")
    assert row.dt.get_text() == "Find this paper"
    links = {a.get_text(): a["href"] for a in row.select("a")}
    assert set(links) == set(SEARCH_HOSTS)
    for name, href in links.items():
        host, parameter = SEARCH_HOSTS[name]
        parts = urlsplit(href)
        assert parts.scheme == "https" and parts.netloc == host
        assert parse_qs(parts.query)[parameter] == [f'"{PATCHED}"']


def test_an_untitled_paper_has_no_title_search(site: Path, papers_json: list[dict]) -> None:
    paper = next(p for p in papers_json if not p["title"])
    assert not soup(site / "papers" / paper["id"] / "index.html").select(".find-paper")


def test_links_a_dump_carries_are_shown_on_the_page_and_the_card(tmp_path: Path) -> None:
    records = [
        {
            "title": "Sorting Socks & Shoes",
            "authors": ["Ann Lee"],
            "session": "Posters",
            "pdf": "https://example.org/socks.pdf",
            "forum": "https://openreview.net/forum?id=abc",
        },
        {"title": "Only Code", "authors": ["Bo Chen"], "session": "Posters",
         "url": "https://github.com/example/code"},
    ]
    (tmp_path / "papers.json").write_text(json.dumps(records), encoding="utf-8")
    (tmp_path / "site.yaml").write_text(
        "title: T\nsources:\n  - path: papers.json\n    conference: W\n    year: 2025\n")
    result = build(BuildOptions(tmp_path / "site.yaml", tmp_path / "_site"), Diagnostics())
    by_title = {paper.title: paper for paper in result.papers}
    socks = soup(tmp_path / "_site" / "papers" / by_title[records[0]["title"]].id / "index.html")
    assert not socks.select(".find-paper")  # it has a way to the paper
    (session,) = (tmp_path / "_site" / "sessions").rglob("index.html")
    cards = soup(session).select(".paper-card")
    card_links = {
        card.select_one(".paper-title").get_text(strip=True): [
            (a.get_text(), a["href"]) for a in card.select(".card-links a")
        ]
        for card in cards
    }
    assert card_links == {
        "Sorting Socks & Shoes": [
            ("OpenReview", "https://openreview.net/forum?id=abc"),
            ("PDF", "https://example.org/socks.pdf"),
        ],
        "Only Code": [],  # code is not the paper
    }
    code_only = soup(tmp_path / "_site" / "papers" / by_title["Only Code"].id / "index.html")
    assert [a.get_text() for a in code_only.select(".find-paper a")] == list(SEARCH_HOSTS)

"""Paper cards: what listings show of a paper, made once per build and keyed by digests."""

from __future__ import annotations

import dataclasses

import pytest

from confsite.diagnostics import Diagnostics
from confsite.model.site import build_site
from confsite.render.views import Views


@pytest.fixture
def views(seeds_build) -> Views:
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    return Views(site)


def with_abstract(views: Views, number: int, abstract: str) -> tuple[Views, object]:
    """Views of the same site with one paper's abstract replaced, and that paper."""
    site = views.site
    paper = dataclasses.replace(site.papers[number], abstract=abstract)
    papers = [paper if n == number else p for n, p in enumerate(site.papers)]
    return Views(dataclasses.replace(site, papers=tuple(papers))), paper


def test_a_brief_card_is_made_once_and_shows_no_abstract(views: Views) -> None:
    paper = next(p for p in views.site.papers if p.abstract and p.title)
    brief = views.card(paper, brief=True)
    for other in views.site.papers:  # more papers than any bounded cache held
        views.card(other, brief=True)
    assert views.card(paper, brief=True) is brief
    with pytest.raises(KeyError):
        brief["abstract"]  # a page keyed by the brief digest must not show it
    full = views.card(paper)
    assert "<p>" in str(full["abstract"])
    assert full["title"] is brief["title"]  # rendered once, shared
    assert full.key_digest != brief.key_digest


def test_an_abstract_changes_the_full_card_digest_only(views: Views) -> None:
    number = next(n for n, p in enumerate(views.site.papers) if p.abstract)
    paper = views.site.papers[number]
    edited_views, edited = with_abstract(views, number, "An abstract written anew.")
    assert (
        edited_views.card(edited, brief=True).key_digest == views.card(paper, brief=True).key_digest
    )
    assert edited_views.card(edited).key_digest != views.card(paper).key_digest
    assert "written anew" in str(edited_views.card(edited)["abstract"])

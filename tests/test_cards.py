"""Paper cards: what listings show of a paper, made once per build and keyed by digests."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest
from markupsafe import Markup

from confsite.cache.digests import PaperDigests
from confsite.diagnostics import Diagnostics
from confsite.model.site import build_site
from confsite.render import views as views_module
from confsite.render.ahead import MarkupAhead
from confsite.render.jinja import (
    CARDS_AHEAD_FOR,
    ROOT_MARK,
    cards_ahead_fit,
    make_environment,
    render_cards_ahead,
)
from confsite.render.pages import _made_ahead
from confsite.render.views import KeyedPage, Views
from confsite.text.rich import render_rich_line


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


def test_an_authors_link_is_made_once_for_every_card_that_lists_them(views: Views) -> None:
    """A dict per author of each paper was 110 MB at 100,000 papers, in the main process and
    copied in part by each page worker: every card that lists an author shares one."""
    by_author: dict[str, list] = {}
    for paper in views.site.papers:
        for link in views.card(paper, brief=True)["authors"]:
            by_author.setdefault(link["name"], []).append(link)
    shared = [links for links in by_author.values() if len(links) > 1]
    assert len(shared) > 10  # the seeds' authors of several papers
    assert all(all(link is links[0] for link in links) for links in shared)
    name, [link, *_] = next(iter(by_author.items()))
    slug = views.site.author_by_name[name].slug
    assert link == {"name": name, "url": f"authors/{slug}/"}


def test_an_abstract_changes_the_full_card_digest_only(views: Views) -> None:
    number = next(n for n, p in enumerate(views.site.papers) if p.abstract)
    paper = views.site.papers[number]
    edited_views, edited = with_abstract(views, number, "An abstract written anew.")
    assert (
        edited_views.card(edited, brief=True).key_digest == views.card(paper, brief=True).key_digest
    )
    assert edited_views.card(edited).key_digest != views.card(paper).key_digest
    assert "written anew" in str(edited_views.card(edited)["abstract"])


def pages_shown(views: Views, environment) -> list[str]:
    """Every author's and paper's page and every page of the listing of all papers, rendered
    in this process."""
    ids = [paper.id for paper in views.site.papers]
    views.related.update(
        {i: tuple(ids[(n + k) % len(ids)] for k in (1, 2, 3)) for n, i in enumerate(ids)}
    )
    makers = views.page_makers()
    keyed = [maker for maker in makers if isinstance(maker, KeyedPage)]
    pages = [maker.make() for maker in keyed if maker.path.startswith("authors/")]
    listing = [maker for maker in keyed if getattr(maker.make, "func", None) == views.all_papers]
    assert len(listing) > 1  # the seeds' listing has pages beyond its first, three folders deep
    pages += [maker.make() for maker in listing]
    pages += [views.paper_page(paper).make() for paper in views.papers_in_order()]
    return [environment.get_template(page.template).render(page.context) for page in pages]


def test_cards_rendered_ahead_are_those_authors_paper_and_listing_pages_show(
    seeds_build, monkeypatch
) -> None:
    """A full build renders every paper's brief card and line before the page workers fork,
    once for every depth: authors' and paper pages and the listing of all papers (its first
    page one folder deep, the others three) must then render no card anew (it would be made
    in each worker again), and show the same HTML as cards rendered as they are met."""
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    as_met = pages_shown(Views(site), make_environment(None))
    views, environment = Views(site), make_environment(None)
    _made_ahead(views, environment, None)
    macros = [environment.globals[name] for name in ("paper_card", "paper_line")]
    anew: list[str] = []
    for macro in macros:
        made = macro._macro
        monkeypatch.setattr(
            macro, "_macro", lambda root, made=made: anew.append(root) or made(root)
        )
    shown = pages_shown(views, environment)
    assert len(shown) > len(site.papers) + 4  # the listing's pages among them
    assert shown == as_met
    assert anew == []


def test_a_title_holding_what_a_root_mark_looks_like_is_shown_as_met(seeds_build) -> None:
    """Cards rendered ahead take the page's root where the mark is; latex2mathml leaves its
    text unescaped, so a scraped title can make markup that looks like a mark after an
    href: it is shown as written, as a card rendered as met shows it."""
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    guessed = ROOT_MARK[: ROOT_MARK.rindex("-")] + ";"
    views = Views(site)
    cards = views.prepare_papers()[:2]
    for card, scraped in zip(cards, (r'$\text{href="&confsite-root;}$', guessed), strict=True):
        card.filled()["title"] = render_rich_line(scraped)
    template = "{{ paper_line(paper) }}{{ paper_card(paper, heading='h3', show_abstract=False) }}"
    environment = make_environment(None)
    as_met = [environment.from_string(template).render(root="../../", paper=c) for c in cards]
    environment = make_environment(None)
    render_cards_ahead(environment, cards)
    ahead = [environment.from_string(template).render(root="../../", paper=c) for c in cards]
    assert ahead == as_met
    assert 'href="&confsite-root;' in as_met[0] and "../../papers/" in as_met[0]


def test_markup_ahead_gives_each_text_back_whole() -> None:
    """Texts are kept as UTF-8 bytes and cut by byte offsets: characters of two, three and
    four bytes, an empty text and a key never added."""
    ahead = MarkupAhead()
    texts = {"a": "Ünïcödé <b>x</b>", "b": "", "c": "数式 $x^2$ 😀", "d": "plain"}
    for key, text in texts.items():
        ahead.add(key, text)
    assert {key: ahead.get(key) for key in texts} == texts
    assert ahead.get("missing") is None


def test_abstracts_rendered_ahead_are_those_full_cards_show(seeds_build, monkeypatch) -> None:
    """A full build renders every abstract before the page workers fork (a paper's page and
    its session's may be rendered by different workers): a full card must then render none
    anew, and show the same HTML as one rendered as met."""
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    with_abstracts = [paper for paper in site.papers if paper.abstract]
    as_met = [str(Views(site).card(paper)["abstract"]) for paper in with_abstracts]
    views = Views(site)
    views.prepare_papers()
    monkeypatch.setattr(views_module, "render_abstract", lambda text: pytest.fail(text))
    ahead = [views.card(paper)["abstract"] for paper in with_abstracts]
    assert len(ahead) > 100
    assert [str(html) for html in ahead] == as_met
    assert all(isinstance(html, Markup) for html in ahead)
    assert sum("<math" in html for html in as_met) > 0  # rendered TeX among them


def test_a_full_card_keeps_no_copy_of_an_abstract_rendered_ahead(seeds_build) -> None:
    """The full cards a process keeps (up to 20,000) held a copy of each abstract they showed,
    beside the buffer of abstracts rendered ahead: 50 MB more at the peak of a 100,000-paper
    build. An abstract rendered here, with none ahead, is kept: rendering it is costly."""
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    paper = next(p for p in site.papers if p.abstract and "$" in p.abstract)
    views = Views(site)
    views.prepare_papers()
    card = views.card(paper)
    shown = [card["abstract"], card["abstract"]]
    assert shown[0] == shown[1] and "<math" in shown[0]
    assert dict.get(card, "abstract") is None
    met = Views(site).card(paper)
    assert met["abstract"] == shown[0]
    assert dict.get(met, "abstract") is met["abstract"]


def test_listed_digests_made_ahead_key_authors_pages_as_made_when_met(seeds_build) -> None:
    """Before the page workers fork, a full build digests how authors' pages list every
    paper: the authors' page keys must be those made as pages meet their papers."""
    site = build_site(seeds_build.config, seeds_build.papers, (), None, Diagnostics())
    as_met = Views(site)
    ahead = Views(site)
    ahead.prepare_papers()
    assert len(ahead._listed_digests) == len(site.papers)
    keys = [as_met.author_key(author, b"salt") for author in site.authors]
    assert [ahead.author_key(author, b"salt") for author in site.authors] == keys
    met = as_met._listed_digests  # the papers with authors
    assert len(met) > 100
    assert {paper_id: ahead._listed_digests[paper_id] for paper_id in met} == met


@pytest.mark.parametrize("overridden", CARDS_AHEAD_FOR)
def test_a_theme_overriding_what_renders_cards_takes_none_ahead(overridden: str, tmp_path) -> None:
    """A theme's own card, or partial a card calls, may read the root as more than text to
    output (its length, a comparison), which the mark cards are rendered ahead with is not."""
    assert cards_ahead_fit(tmp_path)
    template = tmp_path / "templates" / overridden
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text("{{ root }}", encoding="utf-8")
    assert not cards_ahead_fit(tmp_path)


def test_a_card_made_later_reads_as_the_card_made_at_once(views: Views) -> None:
    """Cards kept from the last build, and every full card, make their fields when first
    read; read as a dict in any way a template or theme may, they are the cards made at
    once."""
    site = views.site
    paper = next(p for p in site.papers if p.abstract and p.title and p.awards)
    eager = views.card(paper, brief=True)
    made = PaperDigests(cards={paper.id: views.digests_made({}).cards[paper.id]})
    kept = Views(site, made)
    reads = [
        lambda card: dict(card.filled()) if hasattr(card, "filled") else dict(card),
        lambda card: json.dumps(card, default=str, sort_keys=True),
        lambda card: repr(card),
        lambda card: sorted(card),
        lambda card: len(card),
        lambda card: "badges" in card,
        lambda card: card.get("badges"),
        lambda card: sorted(card.items(), key=str),
        lambda card: card.copy(),
        lambda card: copy.copy(card) == eager,
        lambda card: card == eager,
        lambda card: card != eager,
        lambda card: list(reversed(card)),
        lambda card: card.setdefault("url"),
        lambda card: bool(card),
    ]
    for number, read in enumerate(reads):
        lazy = Views(site, made).card(paper, brief=True)  # a card not yet read
        assert lazy.key_digest == eager.key_digest
        assert read(lazy) == read(eager), f"read {number}"
    full = kept.card(paper)
    assert json.loads(json.dumps(full, default=str))["badges"] == eager["badges"]
    assert kept.card(paper) == views.card(paper)

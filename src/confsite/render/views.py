"""Template contexts: the one place that turns the site model into what each page shows.

Templates receive plain values and pre-rendered safe markup; the record model carries no
presentation code.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

from ..cache.page_keys import Digested, context_digest
from ..model import urls
from ..model.authors import Author, index_letter
from ..model.content import ContentPage
from ..model.records import Paper, Session
from ..model.site import Collection, SessionGroup, Site, collection_label
from ..text.rich import render_abstract, render_rich_line
from .citation import citation_of
from .labels import badges, stand_in, title_text
from .metadata import paper_details, reading_links
from .not_found import not_found_context

CARD_CACHE_LIMIT = 20_000
# A listing names at most this many authors of a paper; its own page names them all. Without a
# cap, each of a paper's N authors has a page listing all N: a site grows with N squared.
LISTED_AUTHORS = 50


@dataclass(frozen=True)
class Page:
    """One HTML page to render: where it goes, with which template, and its context.

    `deferred` makes more context entries from its arguments alone, only when the page is
    rendered; the page key takes those arguments, which are far quicker to digest than the
    entries are to make, so a rebuild does not make them for pages it reuses."""

    path: str  # output path relative to the site root, e.g. papers/x/index.html
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    deferred: partial[dict[str, Any]] | None = None

    def full_context(self) -> dict[str, Any]:
        return self.context if self.deferred is None else {**self.context, **self.deferred()}


def root_for(path: str) -> str:
    return "../" * path.count("/")


class Card(dict, Digested):
    """What a listing shows of one paper. Cards appear on many pages, so a page's fingerprint
    (see `page_key`) takes a card by a digest of what it is made from, and the costly fields
    (rich-text title and abstract) are only made when a template reads them.

    A brief card has no abstract, and its digest leaves the abstract out: the many pages
    that list a paper without its abstract (all papers, authors, neighbours, related) are not
    rendered again when only the abstract changed."""

    LAZY_FIELDS: dict[str, Callable[[Paper], Any]] = {
        "title": lambda paper: render_rich_line(paper.title) if paper.title else None,
        "abstract": lambda paper: render_abstract(paper.abstract),
    }

    def __init__(
        self, paper: Paper, fields: dict[str, Any], brief: bool = False, fields_key: bytes = b""
    ) -> None:
        super().__init__(fields)
        self._paper, self._brief, self._fields = paper, brief, fields
        # What it shows: its fields, and the texts its costly fields are made from. The
        # fields' own digest is shared with the paper's other card (see `Views.card`).
        self._fields_key = fields_key or context_digest(fields)
        self.key_digest = context_digest(
            (self._fields_key, paper.title, None if brief else paper.abstract)
        )

    def variant(self, brief: bool) -> Card:
        """The paper's card with or without its abstract, from the same fields."""
        return Card(self._paper, self._fields, brief, self._fields_key)

    def __missing__(self, name: str) -> Any:
        make = self.LAZY_FIELDS.get(name)
        if make is None or (self._brief and name == "abstract"):
            raise KeyError(name)
        value = self[name] = make(self._paper)
        return value


class Views:
    def __init__(self, site: Site) -> None:
        self.site = site
        # Each paper's related papers by id: they arrive while other pages render (corpus.py),
        # so they are added here before the pages of the papers they belong to are made.
        self.related: dict[str, tuple[str, ...]] = {}
        self._cards: OrderedDict[tuple[str, bool], Card] = OrderedDict()

    # --- shared pieces -------------------------------------------------------------------

    @cached_property
    def _positions(self) -> dict[tuple[Session, str], int]:
        """Where each paper stands in each of its sessions."""
        return {
            (group.session, paper.id): index
            for group in self.site.sessions
            for index, paper in enumerate(group.papers)
        }

    @cached_property
    def nav(self) -> list[dict[str, str]]:
        items = [
            {"label": "Home", "url": urls.HOME},
            {"label": "Papers", "url": urls.ALL_PAPERS},
            {"label": "Authors", "url": urls.AUTHORS},
        ]
        items += [{"label": page.title, "url": page.url} for page in self.site.content_pages]
        return items

    def base(self, path: str, title: str, url: str, description: str = "") -> dict[str, Any]:
        return {
            "site_title": self.site.title,
            "page_title": title,
            "root": root_for(path),
            "nav": self.nav,
            "current_url": url,
            "canonical": self.site.absolute(url),
            "description": description,
            "base_href": None,
        }

    def author_links(self, names: tuple[str, ...]) -> list[dict[str, str]]:
        by_name = self.site.author_by_name
        return [{"name": name, "url": urls.author_url(by_name[name].slug)} for name in names]

    def card(self, paper: Paper, brief: bool = False) -> Card:
        """What a paper listing shows of a paper (`brief`: without its abstract); built once
        per paper."""
        cached = self._cards.get((paper.id, brief))
        if cached is None:
            other = self._cards.get((paper.id, not brief))
            cached = other.variant(brief) if other else Card(paper, self._card_fields(paper), brief)
            self._cards[(paper.id, brief)] = cached
            if len(self._cards) > CARD_CACHE_LIMIT:  # bounds memory at archive scale
                self._cards.popitem(last=False)
        return cached

    def _card_fields(self, paper: Paper) -> dict[str, Any]:
        authors = self.author_links(paper.authors)
        return {
            "id": paper.id,
            "url": urls.paper_url(paper.id),
            "title_text": title_text(paper),
            "stand_in": stand_in(paper),
            "reading_links": reading_links(paper),
            "authors": authors,
            "listed_authors": authors[:LISTED_AUTHORS],
            "more_authors": max(0, len(paper.authors) - LISTED_AUTHORS),
            "badges": badges(paper),
            "has_award": bool(paper.awards),
            "collection": collection_label(paper.conference, paper.year),
        }

    # --- pages ---------------------------------------------------------------------------

    def page_makers(self) -> list[Callable[[], Page]]:
        """One call per page that shows no related papers, each building that page's context
        when called, so that worker processes build only the contexts of the pages they
        render. Paper pages (see `papers_in_order`) come after, once related papers exist."""
        site = self.site
        makers: list[Callable[[], Page]] = [
            self.all_papers,
            self.home,
            self.authors_index,
            self.not_found,
            self.search,
        ]
        makers += [partial(self.collection, c) for c in site.collections]
        makers += [partial(self.session, g) for g in site.sessions]
        makers += [partial(self.author, a) for a in site.authors]
        makers += [partial(self.content, c) for c in site.content_pages]
        return makers

    def papers_in_order(self) -> list[Paper]:
        """Papers in the order of their first session, so that a run of paper pages reuses
        the cards its session page made in the same process."""
        in_sessions = [
            paper
            for group in self.site.sessions
            for paper in group.papers
            if paper.sessions[0] == group.session
        ]
        return in_sessions + [paper for paper in self.site.papers if not paper.sessions]

    def home(self) -> Page:
        site = self.site
        collections = [
            {
                "label": c.label,
                "url": c.url,
                "count": len(c.papers),
                "sessions": [
                    {"label": g.label, "url": g.url, "count": len(g.papers)} for g in c.sessions
                ],
            }
            for c in site.collections
        ]
        awarded = [self.card(p, brief=True) for p in site.papers if p.awards]
        awarded.sort(key=lambda card: (card["collection"], card["title_text"].casefold()))
        context = self.base(urls.page_path(urls.HOME), site.title, urls.HOME)
        context.update(
            collections=collections,
            awarded=awarded,
            paper_count=len(site.papers),
            author_count=len(site.authors),
        )
        return Page(urls.page_path(urls.HOME), "index.html", context)

    def all_papers(self) -> Page:
        path = urls.page_path(urls.ALL_PAPERS)
        groups = [
            {
                "label": c.label,
                "url": c.url,
                "slug": c.slug,
                "papers": sorted(
                    (self.card(p, brief=True) for p in c.papers),
                    key=lambda card: card["title_text"].casefold(),
                ),
            }
            for c in self.site.collections
        ]
        context = self.base(path, "All papers", urls.ALL_PAPERS)
        context.update(groups=groups, paper_count=len(self.site.papers))
        return Page(path, "papers.html", context)

    def collection(self, collection: Collection) -> Page:
        path = urls.page_path(collection.url)
        sessions = [
            {"label": g.label, "url": g.url, "count": len(g.papers), "rooms": g.rooms}
            for g in collection.sessions
        ]
        unsessioned = [self.card(p) for p in collection.papers if not p.sessions]
        context = self.base(
            path,
            collection.label,
            collection.url,
            f"{len(collection.papers)} papers of {collection.label}",
        )
        context.update(
            collection=collection.label,
            sessions=sessions,
            paper_count=len(collection.papers),
            unsessioned=unsessioned,
        )
        return Page(path, "collection.html", context)

    def session(self, group: SessionGroup) -> Page:
        path = urls.page_path(group.url)
        collection = self.site.collection_of[(group.session.conference, group.session.year)]
        title = f"{group.label} · {collection.label}"
        context = self.base(
            path,
            title,
            group.url,
            f"{len(group.papers)} papers in {group.label}, {collection.label}",
        )
        context.update(
            session=group.label,
            collection={"label": collection.label, "url": collection.url},
            conference=group.session.conference,
            year=group.session.year,
            rooms=group.rooms,
            papers=[self.card(p) for p in group.papers],
        )
        return Page(path, "session.html", context)

    def neighbours(self, paper: Paper) -> list[dict[str, Any]]:
        result = []
        for session in paper.sessions:
            group = self.site.session_by_key[session]
            index = self._positions[(session, paper.id)]
            previous = group.papers[index - 1] if index > 0 else None
            following = group.papers[index + 1] if index + 1 < len(group.papers) else None
            result.append(
                {
                    "session": group.label,
                    "url": group.url,
                    "position": index + 1,
                    "count": len(group.papers),
                    "previous": self.card(previous, brief=True) if previous else None,
                    "next": self.card(following, brief=True) if following else None,
                }
            )
        return result

    def paper(self, paper: Paper) -> Page:
        site = self.site
        url = urls.paper_url(paper.id)
        path = urls.page_path(url)
        card = self.card(paper)
        context = self.base(path, card["title_text"], url)
        context.update(
            paper=card,
            untitled=paper.title is None,
            collection={
                "label": collection_label(paper.conference, paper.year),
                "url": site.collection_of[(paper.conference, paper.year)].url,
            },
            year=paper.year,
            room=paper.room,
            neighbours=self.neighbours(paper),
            related=[
                self.card(site.paper_by_id[i], brief=True) for i in self.related.get(paper.id, ())
            ],
        )
        details = partial(
            paper_details, paper, site.title, site.absolute(url), citation_of(site, paper)
        )
        return Page(path, "paper.html", context, details)

    def authors_index(self) -> Page:
        path = urls.page_path(urls.AUTHORS)
        letters: dict[str, list[dict[str, Any]]] = {}
        for author in self.site.authors:
            letters.setdefault(index_letter(author.name), []).append(
                {
                    "name": author.name,
                    "url": urls.author_url(author.slug),
                    "count": len(author.paper_ids),
                }
            )
        ordered = sorted(letters.items(), key=lambda item: (item[0] == "#", item[0]))
        context = self.base(path, "Authors", urls.AUTHORS, f"{len(self.site.authors)} authors")
        context.update(
            letters=[{"letter": k, "authors": v} for k, v in ordered],
            author_count=len(self.site.authors),
        )
        return Page(path, "authors.html", context)

    def author(self, author: Author) -> Page:
        url = urls.author_url(author.slug)
        path = urls.page_path(url)
        papers = [self.card(self.site.paper_by_id[i], brief=True) for i in author.paper_ids]
        papers.sort(key=lambda card: (card["collection"], card["title_text"].casefold()))
        context = self.base(path, author.name, url, f"Papers by {author.name}")
        context.update(
            author=author.name,
            other_spellings=[s for s in author.spellings if s != author.name],
            papers=papers,
        )
        return Page(path, "author.html", context)

    def content(self, page: ContentPage) -> Page:
        path = urls.page_path(page.url)
        context = self.base(path, page.title, page.url)
        context.update(body=page.body)
        return Page(path, "content.html", context)

    def search(self) -> Page:
        path = urls.page_path(urls.SEARCH)
        return Page(path, "search.html", self.base(path, "Search", urls.SEARCH))

    def not_found(self) -> Page:
        context = self.base(urls.NOT_FOUND, "Page not found", urls.NOT_FOUND)
        context.update(not_found_context(self.site))  # served at any depth: see not_found.py
        return Page(urls.NOT_FOUND, "404.html", context)

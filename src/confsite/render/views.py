"""Template contexts: the one place that turns the site model into what each page shows.

Templates receive plain values and pre-rendered safe markup; the record model carries no
presentation code.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any

from markupsafe import Markup

from ..cache.digests import CardDigests, PaperDigests, digest
from ..cache.page_keys import Digested, context_digest
from ..model import urls
from ..model.authors import Author, display_case, index_letter, person_order
from ..model.content import ContentPage
from ..model.records import Paper
from ..model.site import Collection, CollectionKey, SessionGroup, Site, collection_label
from ..text.rich import render_abstract, render_rich_line
from .ahead import MarkupAhead
from .citation import citation_of
from .labels import badges, stand_in, title_text
from .metadata import paper_details, reading_links
from .not_found import not_found_context
from .unchanged import Unchanged, structure_digest

FULL_CARDS_KEPT = 20_000  # see Views.__init__
# A listing names at most this many authors of a paper; its own page names them all. Without a
# cap, each of a paper's N authors has a page listing all N: a site grows with N squared.
LISTED_AUTHORS = 50
# Long listings are split into pages so that a page stays light on a phone (under 300 KB and
# 4,000 elements): in the seeds a card with its abstract is about 2.1 KB and 21 elements, a
# line of the papers index 270 B and 3 elements, an author index entry 150 B and 4 elements.
CARDS_PER_PAGE = 100
LINES_PER_PAGE = 500
AUTHORS_PER_PAGE = 600
PAGER_WINDOW = 2  # page numbers listed on either side of the current one


@dataclass(frozen=True)
class Page:
    """One HTML page to render: where it goes, with which template, and its context."""

    path: str  # output path relative to the site root, e.g. papers/x/index.html
    template: str
    context: dict[str, Any] = field(default_factory=dict)


def _not_known() -> bool:
    return False


@dataclass(frozen=True)
class KeyedPage:
    """A page keyed from what it is made from (`key(salt)`, see `Views.paper_key`), so a
    rebuild makes its context (`make`) only when the key changed, and keys it only when
    it is not known to be as the last build made it (`unchanged()`: render/unchanged.py).
    Without `key`, it is keyed by its context, as other pages are, when not known unchanged."""

    path: str
    key: Callable[[bytes], str] | None
    make: Callable[[], Page]
    unchanged: Callable[[], bool] = _not_known


def root_for(path: str) -> str:
    return "../" * path.count("/")


def page_count(items: int, per_page: int) -> int:
    return max(1, -(-items // per_page))


def pager(url: str, number: int, count: int) -> dict[str, Any] | None:
    """The page list of page `number` of a listing at `url` split into `count` pages: plain
    links (first, last, and a window around the current page), previous and next."""
    if count == 1:
        return None
    window = range(max(1, number - PAGER_WINDOW), min(count, number + PAGER_WINDOW) + 1)
    items: list[dict[str, Any]] = []
    for n in sorted({1, count, *window}):
        if items and n > items[-1]["number"] + 1:
            items.append({"number": n - 1, "gap": True})
        items.append(
            {"number": n, "url": urls.paged_url(url, n), "current": n == number, "gap": False}
        )
    return {
        "number": number,
        "count": count,
        "prev": urls.paged_url(url, number - 1) if number > 1 else None,
        "next": urls.paged_url(url, number + 1) if number < count else None,
        "items": items,
    }


def other_spellings(author: Author) -> list[str]:
    """The spellings an author's name is also found in, leaving out those that differ from the
    shown name by case alone (a scrape's "AJAY JAISWAL" is no other spelling of Ajay Jaiswal)."""
    shown = {author.name}
    others = []
    for spelling in author.spellings:
        written = display_case(person_order(spelling))
        if written not in shown:
            shown.add(written)
            others.append(written)
    return others


@dataclass(frozen=True)
class ListingPage:
    """Page `number` of a listing split into pages: its URL and file, its page list (None for
    a listing of one page), the index of its first item, and its items."""

    url: str
    path: str
    pager: dict[str, Any] | None
    start: int
    items: Sequence[Any]


def listing_page(listing_url: str, number: int, items: Sequence[Any], per_page: int) -> ListingPage:
    url = urls.paged_url(listing_url, number)
    start = (number - 1) * per_page
    paging = pager(listing_url, number, page_count(len(items), per_page))
    return ListingPage(url, urls.page_path(url), paging, start, items[start : start + per_page])


def first_pages(keys: Iterable[Hashable], per_page: int) -> dict[Any, int]:
    """The page of a paged listing each group starts on, by the group's key, in the order
    the groups come (`keys`: each item's group, in the listing's order)."""
    starts: dict[Any, int] = {}
    for index, key in enumerate(keys):
        starts.setdefault(key, index // per_page + 1)
    return starts


def paged_title(title: str, paging: dict[str, Any] | None) -> str:
    return f"{title} (page {paging['number']} of {paging['count']})" if paging else title


AuthorLinks = dict[str, dict[str, str]]  # an author's name and page, by name


def author_links(site: Site, names: tuple[str, ...], made: AuthorLinks) -> list[dict[str, str]]:
    """The authors' names and pages, each made once (`made`) for every card that lists the
    author: a dict per author of each paper was 110 MB at 100,000 papers, held by the main
    process and copied by the page workers as they read it."""
    by_name, links = site.author_by_name, []
    for name in names:
        link = made.get(name)
        if link is None:
            link = made[name] = {"name": name, "url": urls.author_url(by_name[name].slug)}
        links.append(link)
    return links


def card_fields(site: Site, paper: Paper, links: AuthorLinks) -> dict[str, Any]:
    """What a card shows but its costly fields (see `Card`); `links`: see `author_links`."""
    authors = author_links(site, paper.authors, links)
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


class Card(dict, Digested):
    """What a listing shows of one paper. Cards appear on many pages, so a page's fingerprint
    (see `page_key`) takes a card by a digest of what it is made from, and the costly fields
    (rich-text title and abstract) are only made when a template reads them (but a full
    build with workers renders every abstract before they fork: see `Views.prepare_papers`).

    A brief card has no abstract, and its digest leaves the abstract out: the many pages
    that list a paper without its abstract (all papers, authors, neighbours, related) are not
    rendered again when only the abstract changed. A full card is made from the brief one,
    whose rich title it shares. A full card, and a brief card whose digest the last build
    made (see `Views.paper_digests`), get their fields from `fields_of` when a page first
    reads one: a rebuild keys every page that lists a paper, and renders few."""

    def __init__(
        self,
        paper: Paper,
        fields: dict[str, Any],
        key_digest: bytes,
        brief_card: Card | None = None,  # a full card's; None: this card is brief
        fields_of: Callable[[], dict[str, Any]] | None = None,
        abstracts: MarkupAhead | None = None,  # a full card's: abstracts rendered ahead
    ) -> None:
        # A card whose fields are made later holds its id at once: readers in C that see
        # an empty dict stop there (`json.dumps` gives "{}") instead of asking for its items.
        super().__init__(fields if fields_of is None else {"id": paper.id})
        self._paper, self._brief_card, self._fields_of = paper, brief_card, fields_of
        self._abstracts = abstracts
        self.key_digest = key_digest

    def plain_title(self) -> str:
        """`title_text`, without making the other fields for it."""
        made = dict.get(self, "title_text")
        return title_text(self._paper) if made is None else made

    def filled(self) -> Card:
        """The card with every field but the costly ones made."""
        if self._fields_of is not None:
            self.update(self._fields_of())
            self._fields_of = None
        return self

    def __bool__(self) -> bool:  # a paper, whether or not its fields are made yet
        return True

    def __missing__(self, name: str) -> Any:
        if self._fields_of is not None:
            return self.filled()[name]
        paper = self._paper
        if name == "title":
            if self._brief_card is not None:
                value = self._brief_card["title"]
            else:
                value = render_rich_line(paper.title) if paper.title else None
        elif name == "abstract" and self._brief_card is not None:
            # By id: a card is made from the site's paper of that id, as the abstracts were.
            ahead = self._abstracts.get(paper.id) if self._abstracts is not None else None
            if ahead is not None:
                # Not kept: the full cards a process keeps would hold a copy of every
                # abstract it showed, which the buffer already holds for all processes.
                return Markup(ahead)
            value = render_abstract(paper.abstract)
        else:
            raise KeyError(name)
        self[name] = value
        return value


def _after_filling(read: Callable[..., Any]) -> Callable[..., Any]:
    def filled_first(card: Card, *args: Any) -> Any:
        others = (other.filled() if isinstance(other, Card) else other for other in args)
        return read(card.filled(), *others)

    return filled_first


# Read as a dict in any of these ways (a theme may compare cards, or show one with `tojson`),
# a card whose fields are not made yet makes them first; looking a field up does so by
# `__missing__`.
for _name in (
    "__eq__", "__ne__", "__repr__", "__len__", "__iter__", "__reversed__", "__contains__",
    "copy", "get", "keys", "items", "values", "pop", "popitem", "setdefault",
):  # fmt: skip
    setattr(Card, _name, _after_filling(getattr(dict, _name)))


@dataclass(frozen=True)
class CardMaking:
    """A paper's brief card, and a digest of what its full card shows: the fields, and the
    texts its costly fields are made from."""

    brief: Card
    full_digest: bytes
    slugs: tuple[str, ...]  # its authors', the one input it takes from outside its paper

    @classmethod
    def of(cls, paper: Paper, fields: dict[str, Any], slugs: tuple[str, ...]) -> CardMaking:
        fields_key = context_digest(fields)
        brief = Card(paper, fields, context_digest((fields_key, paper.title, None)))
        return cls(brief, context_digest((fields_key, paper.title, paper.abstract)), slugs)

    def full(self, paper: Paper, abstracts: MarkupAhead | None = None) -> Card:
        brief = self.brief
        return Card(
            paper, {}, self.full_digest, brief, lambda: dict.copy(brief.filled()), abstracts
        )

    def digests(self) -> CardDigests:
        return self.slugs, self.brief.key_digest, self.full_digest


class Views:
    def __init__(
        self, site: Site, known: PaperDigests | None = None, last: PaperDigests | None = None
    ) -> None:
        self.site = site
        # Each paper's digest (see `paper_digest`), and what the last build digested of
        # unchanged papers' cards (cache/inputs.py · `known_digests`).
        known = known or PaperDigests()
        self.paper_digests: dict[str, bytes] = dict(known.digests)
        self._known_cards = known.cards
        self._known_structure = known.structure
        self._known_slugs_hold = False  # see `prepare_unchanged`
        # Each paper's related papers by id: they arrive while other pages render (corpus.py),
        # so they are added here before the pages of the papers they belong to are made.
        self.related: dict[str, tuple[str, ...]] = {}
        # Every paper's brief card and full card's digest, kept for the whole build: a paper
        # is listed on about ten pages (its authors', its neighbours', related papers'), in no
        # order a bounded cache would hold. Full cards, which hold rendered abstracts, are
        # shown on a paper's own and its session's pages: a bounded many are kept, all of them
        # up to 20,000 papers.
        self._card_makings: dict[str, CardMaking] = {}
        self._author_links: AuthorLinks = {}
        self._full_cards: OrderedDict[str, Card] = OrderedDict()
        self._rooms: dict[str, str | None] = {}  # see `room`
        self._listings_unchanged: dict[str, bool] = {}  # see `_none_changed`
        self._record_digests: dict[str, bytes] = {}
        self._listed_digests: dict[str, bytes] = {}
        self._places: dict[str, tuple[int, ...]] = {}  # see `_author_places`
        self._card_digests: dict[str, CardDigests] = {}  # see `card_digests`
        self._abstracts_ahead = MarkupAhead()  # see `prepare_papers`
        # What the last build digested of every paper (not only of unchanged ones): what
        # `prepare_unchanged` compares with.
        self._last = last or PaperDigests()
        self.structure = b""  # see `prepare_unchanged`
        self.unchanged = Unchanged()

    # --- shared pieces -------------------------------------------------------------------

    def prepare_shared(self) -> None:
        """Make what many pages share (the site's lookups, where each paper stands in its
        sessions, the author index's letters), so that processes forked after this inherit
        it instead of each making it again. What only pages to be keyed share is made once
        it is known which those are (see `prepare_keyed`)."""
        lookups = ("paper_by_id", "author_by_name", "session_by_key", "session_places")
        for name in (*lookups, "collection_of"):
            getattr(self.site, name)
        _ = self._letters

    def prepare_keyed(self) -> None:
        """After `prepare_unchanged`, what the pages that will be keyed share, made before
        the page workers fork: when nothing is known unchanged, every page is keyed, and
        they show every paper's card and its authors' places; the all-papers listing's
        order, when a brief card changed. A rebuild of a few papers makes these only for
        them, where it needs them."""
        if self.unchanged.changed is None:
            for paper in self.site.papers:
                self._card_making(paper)
                self._author_places(paper.id)
        if not self.unchanged.briefs_same:
            _ = self._collection_starts  # made now, for the workers to inherit

    def prepare_papers(self) -> list[Card]:
        """What each page worker would make for nearly every paper, made once for processes
        forked after this: every paper's record digest (a paper page's key and the downloads
        take it), its abstract rendered and the digest of how authors' pages list it (a paper
        is shown on pages either worker may render: its own, its session's or collection's,
        its authors'). Returns every paper's brief card (made by `prepare_keyed`), in site
        order."""
        for paper in self.site.papers:
            self.record_digest(paper)
            if paper.abstract:
                self._abstracts_ahead.add(paper.id, render_abstract(paper.abstract))
            self._listed_digest(paper)
        return [self.card(paper, brief=True) for paper in self.site.papers]

    def _placements(self, paper: Paper) -> Iterator[tuple[SessionGroup, int]]:
        """Each of the paper's sessions, in the order of its `sessions`, and its place there."""
        groups, places = self.site.sessions, self.site.session_places.get(paper.id, ())
        return ((groups[number], index) for number, index in places)

    @cached_property
    def _author_place(self) -> dict[str, int]:
        """Each author's place in the author index (sorted by family name)."""
        return {author.key: place for place, author in enumerate(self.site.authors)}

    def _author_places(self, paper_id: str) -> tuple[int, ...]:
        """A paper's authors by their places in the author index, each once (two spellings
        of one person count once): an author page counts its co-authors by these, and a
        paper is on the pages of all its authors. Made once per paper and process."""
        made = self._places.get(paper_id)
        if made is None:
            place, by_name = self._author_place, self.site.author_by_name
            authors = self.site.paper_by_id[paper_id].authors
            made = self._places[paper_id] = tuple({place[by_name[name].key] for name in authors})
        return made

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

    def card(self, paper: Paper, brief: bool = False) -> Card:
        """What a paper listing shows of a paper (`brief`: without its abstract); built once
        per paper."""
        made = self._card_making(paper)
        if brief:
            return made.brief
        full = self._full_cards.get(paper.id)
        if full is None:
            full = self._full_cards[paper.id] = made.full(paper, self._abstracts_ahead)
            if len(self._full_cards) > FULL_CARDS_KEPT:  # bounds memory at archive scale
                self._full_cards.popitem(last=False)
        return full

    def _card_making(self, paper: Paper) -> CardMaking:
        made = self._card_makings.get(paper.id)
        if made is None:
            made = self._card_makings[paper.id] = self._known_card(paper) or (
                CardMaking.of(
                    paper, card_fields(self.site, paper, self._author_links), self._slugs(paper)
                )
            )
        return made

    def _slugs(self, paper: Paper) -> tuple[str, ...]:
        by_name = self.site.author_by_name
        return tuple(by_name[name].slug for name in paper.authors)

    def card_digests(self, paper: Paper) -> CardDigests:
        """The digests of a paper's cards: for an unchanged paper whose authors' slugs are
        as they were, the last build's, without making its card (see `_known_digests`).
        Made once per paper and process."""
        made = self._card_digests.get(paper.id)
        if made is None:
            known = self._known_digests(paper) if paper.id not in self._card_makings else None
            made = self._card_digests[paper.id] = known or self._card_making(paper).digests()
        return made

    def _known_card(self, paper: Paper) -> CardMaking | None:
        """The card of an unchanged paper whose authors' slugs are as they were, by the
        digests the last build made, its fields left until a page reads them."""
        known = self._known_digests(paper)
        if known is None:
            return None
        # Not of self: no cycle of cards.
        fields_of = partial(card_fields, self.site, paper, self._author_links)
        return CardMaking(Card(paper, {}, known[1], fields_of=fields_of), known[2], known[0])

    def _known_digests(self, paper: Paper) -> CardDigests | None:
        """The card digests the last build made of an unchanged paper, while its authors'
        slugs are as they were: certainly so when the structure, which holds every author's
        slug, is the one those digests were made with."""
        known = self._known_cards.get(paper.id)
        if known is None or not (self._known_slugs_hold or known[0] == self._slugs(paper)):
            return None
        return known

    def digests_made(self, related: dict[str, tuple[str, ...]]) -> PaperDigests:
        """Every paper's digest and card's digests this process made or was given, with the
        site's structure and the papers' `related` papers."""
        cards = {paper.id: self.card_digests(paper) for paper in self.site.papers}
        records = dict(self._record_digests)
        return PaperDigests(
            self.paper_digests, cards, "", self.structure, related, records=records
        )

    # --- pages ---------------------------------------------------------------------------

    def page_makers(self) -> list[Callable[[], Page] | KeyedPage]:
        """One call per page that shows no related papers, each building that page's context
        when called, so that worker processes build only the contexts of the pages they
        render. Paper pages (see `papers_in_order`) come after, once related papers exist."""
        site = self.site
        makers: list[Callable[[], Page] | KeyedPage] = [self.home, self.not_found, self.search]
        lines = page_count(len(site.papers), LINES_PER_PAGE)
        makers += [
            KeyedPage(
                urls.page_path(urls.paged_url(urls.ALL_PAPERS, n)),
                None,
                partial(self.all_papers, n),
                self._all_papers_unchanged,
            )
            for n in range(1, lines + 1)
        ]
        makers += [
            partial(self.authors_index, index, n)
            for index, (_, members) in enumerate(self._letters)
            for n in range(1, page_count(len(members), AUTHORS_PER_PAGE) + 1)
        ]
        makers += [
            self._listing(c.url, n, partial(self.collection, c, n), c.papers)
            for c in site.collections
            for n in range(1, page_count(len(c.unsessioned), CARDS_PER_PAGE) + 1)
        ]
        makers += [
            self._listing(g.url, n, partial(self.session, g, n), g.papers)
            for g in site.sessions
            for n in range(1, page_count(len(g.papers), CARDS_PER_PAGE) + 1)
        ]
        makers += [
            KeyedPage(
                urls.page_path(urls.paged_url(urls.author_url(a.slug), n)),
                partial(self.author_key, a, number=n),
                partial(self.author, a, n),
                partial(self.author_unchanged, a),
            )
            for a in site.authors
            for n in range(1, page_count(len(a.paper_ids), CARDS_PER_PAGE) + 1)
        ]
        makers += [partial(self.content, c) for c in site.content_pages]
        return makers

    def _listing(
        self, url: str, number: int, make: Callable[[], Page], papers: tuple[Paper, ...]
    ) -> KeyedPage:
        """Page `number` of a session's or collection's listing: keyed by its context, but
        taken as the last build made it when none of the `papers` of the session or
        collection changed (a session's room comes from all of them) and the structure is
        the same (collections, their papers, sessions' papers in order: render/unchanged.py)."""
        path = urls.page_path(urls.paged_url(url, number))
        return KeyedPage(path, None, make, partial(self._none_changed, url, papers))

    def _none_changed(self, url: str, papers: tuple[Paper, ...]) -> bool:
        """Asked once per listing, not per page: an accepted-papers list of 100,000 papers
        has a thousand pages."""
        if url not in self._listings_unchanged:
            ids = (paper.id for paper in papers)
            self._listings_unchanged[url] = self.unchanged.none_changed(ids)
        return self._listings_unchanged[url]

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

    def _all_papers_unchanged(self) -> bool:
        """Whether the all-papers listing is as the last build made it: the structure (the
        collections and their papers) is the same, and so is every brief card, which holds
        the title the listing is sorted by."""
        return self.unchanged.briefs_same

    @cached_property
    def _paper_lines(self) -> list[tuple[Collection, Card]]:
        """The all-papers listing: by collection, then by title."""
        lines = []
        for c in self.site.collections:
            cards = sorted(
                (self.card(p, brief=True) for p in c.papers),
                key=lambda card: card.plain_title().casefold(),
            )
            lines += [(c, card) for card in cards]
        return lines

    @cached_property
    def _collection_starts(self) -> dict[str, int]:
        """The page of the all-papers listing each collection starts on, for its contents."""
        return first_pages((c.slug for c, _ in self._paper_lines), LINES_PER_PAGE)

    def all_papers(self, number: int = 1) -> Page:
        page = listing_page(urls.ALL_PAPERS, number, self._paper_lines, LINES_PER_PAGE)
        starts = self._collection_starts
        groups: list[dict[str, Any]] = []
        for c, card in page.items:
            if not groups or groups[-1]["slug"] != c.slug:
                groups.append(
                    {
                        "label": c.label,
                        "url": c.url,
                        "slug": c.slug,
                        "count": len(c.papers),
                        "continued": starts[c.slug] < number,
                        "papers": [],
                    }
                )
            groups[-1]["papers"].append(card)
        contents = [
            {
                "label": c.label,
                "slug": c.slug,
                "url": urls.paged_url(urls.ALL_PAPERS, starts[c.slug]),
            }
            for c in self.site.collections
            if c.slug in starts
        ]
        context = self.base(page.path, paged_title("All papers", page.pager), page.url)
        context.update(
            groups=groups, contents=contents, paper_count=len(self.site.papers), pager=page.pager
        )
        return Page(page.path, "papers.html", context)

    def collection(self, collection: Collection, number: int = 1) -> Page:
        """Page `number` of a collection: its sessions (on the first page), then its papers
        without a session, CARDS_PER_PAGE a page (an accepted-papers list has thousands,
        with abstracts)."""
        page = listing_page(collection.url, number, collection.unsessioned, CARDS_PER_PAGE)
        sessions = [
            {"label": g.label, "url": g.url, "count": len(g.papers), "room": self.room(g)}
            for g in collection.sessions
        ]
        context = self.base(
            page.path,
            paged_title(collection.label, page.pager),
            page.url,
            f"{len(collection.papers)} papers of {collection.label}",
        )
        context.update(
            collection=collection.label,
            sessions=sessions,
            paper_count=len(collection.papers),
            unsessioned=[self.card(p) for p in page.items],
            unsessioned_count=len(collection.unsessioned),
            first=page.start + 1,
            pager=page.pager,
        )
        return Page(page.path, "collection.html", context)

    def session(self, group: SessionGroup, number: int = 1) -> Page:
        page = listing_page(group.url, number, group.papers, CARDS_PER_PAGE)
        collection = self.site.collection_of[(group.session.conference, group.session.year)]
        title = paged_title(f"{group.label} · {collection.label}", page.pager)
        context = self.base(
            page.path,
            title,
            page.url,
            f"{len(group.papers)} papers in {group.label}, {collection.label}",
        )
        context.update(
            session=group.label,
            collection={"label": collection.label, "url": collection.url},
            conference=group.session.conference,
            year=group.session.year,
            room=self.room(group),
            papers=[self.card(p) for p in page.items],
            paper_count=len(group.papers),
            first=page.start + 1,
            pager=page.pager,
        )
        return Page(page.path, "session.html", context)

    def room(self, group: SessionGroup) -> str | None:
        """A session's room, found once per process: each of its pages and its collection's
        page show it, and finding it asks each of its papers."""
        if group.slug not in self._rooms:
            self._rooms[group.slug] = group.room
        return self._rooms[group.slug]

    def neighbours(self, paper: Paper) -> list[dict[str, Any]]:
        result = []
        for group, index in self._placements(paper):
            previous = group.papers[index - 1] if index > 0 else None
            following = group.papers[index + 1] if index + 1 < len(group.papers) else None
            result.append(
                {
                    "session": group.label,
                    "url": urls.paged_url(group.url, index // CARDS_PER_PAGE + 1),
                    "position": index + 1,
                    "count": len(group.papers),
                    "room": paper.room_in(group.session),
                    "previous": self.card(previous, brief=True) if previous else None,
                    "next": self.card(following, brief=True) if following else None,
                }
            )
        return result

    def paper_digest(self, paper: Paper) -> bytes:
        """A digest of a paper's record, made once per paper and kept between builds for
        unchanged papers: pickling a record with its abstract is most of a digest's cost."""
        made = self.paper_digests.get(paper.id)
        if made is None:
            made = self.paper_digests[paper.id] = digest(paper)
        return made

    def prepare_digests(self) -> None:
        """Every paper's digest, made before the page workers fork, which inherit them."""
        for paper in self.site.papers:
            self.paper_digest(paper)

    def prepare_unchanged(self, salt: bytes) -> None:
        """The site's structure, and what is known unchanged since the last build, before
        the page workers fork (see render/unchanged.py)."""
        self.structure = structure_digest(self.site, self._site_digest, salt)
        # The structure holds the authors, and so every spelling's slug: when it is the one
        # the known cards were made with, their authors' slugs need no checking.
        self._known_slugs_hold = self.structure == self._known_structure
        self.unchanged = Unchanged.between(self._last, self.digests_made({}))

    def paper_unchanged(self, paper: Paper) -> bool:
        """Whether `paper`'s page is made from what the last build made it from, known
        without keying it (see `paper_key`): neither it nor a paper it shows (its
        neighbours, its related papers) changed, and it has the same related papers."""
        if self.unchanged.changed is None:  # a first build, or a changed structure
            return False
        related = self.related.get(paper.id, ())
        shown = [paper.id, *related]
        for group, index in self._placements(paper):
            shown += [p.id for p in group.papers[max(0, index - 1) : index + 2]]
        unchanged = self.unchanged
        return unchanged.none_changed(shown) and unchanged.same_related(paper.id, related)

    def author_unchanged(self, author: Author) -> bool:
        """Whether `author`'s page is made from what the last build made it from, known
        without keying it (see `author_key`): none of their papers changed."""
        return self.unchanged.none_changed(author.paper_ids)

    def record_digest(self, paper: Paper) -> bytes:
        """A digest of a paper's record and its citation (key, URL, proceedings name, which
        other papers and the config decide; see citation.py): what its page's details and
        its pieces of the downloads are made from. Made once per paper and process."""
        made = self._record_digests.get(paper.id)
        if made is None:
            made = self._known_record(paper.id)
            if made is None:
                made = digest((self.paper_digest(paper), citation_of(self.site, paper)))
            self._record_digests[paper.id] = made
        return made

    def take_record_digests(self, digests: list[bytes]) -> None:
        """Every paper's record digest, in site order, as a worker made them."""
        papers = self.site.papers
        self._record_digests.update(zip((p.id for p in papers), digests, strict=True))

    def _known_record(self, paper_id: str) -> bytes | None:
        """The last build's record digest of a paper known unchanged: the same record, and
        the same structure, which holds what its citation is made from (its cite key, the
        base URL, its proceedings' name). A rebuild's downloads need every paper's: making
        them was 2 s at 100,000 papers."""
        if not self.unchanged.none_changed((paper_id,)):
            return None
        return self._last.records.get(paper_id)

    @cached_property
    def _site_digest(self) -> bytes:
        """What every page shows of the site: its title, navigation and base URL."""
        return context_digest((self.site.title, self.nav, self.site.base_url))

    def paper_page(self, paper: Paper) -> KeyedPage:
        path = urls.page_path(urls.paper_url(paper.id))
        return KeyedPage(
            path,
            partial(self.paper_key, paper),
            partial(self.paper, paper),
            partial(self.paper_unchanged, paper),
        )

    def paper_key(self, paper: Paper, salt: bytes) -> str:
        """The key of a paper's page (see `page_key`), made from what `paper` makes its page
        from, not from the page's context: a rebuild keys every paper's page, and making
        100,000 contexts to key them took most of a one-abstract rebuild's work. Whatever
        `paper` reads must enter here, and what it reads beyond the papers it shows must
        enter `structure_digest` too (render/unchanged.py); tests/test_incremental.py
        changes each input."""
        site = self.site
        related = [
            self._card_making(site.paper_by_id[i]).brief.key_digest
            for i in self.related.get(paper.id, ())
        ]
        made_from = (
            "paper.html",
            self._site_digest,
            self._card_making(paper).full_digest,
            self.record_digest(paper),
            site.collection_of[(paper.conference, paper.year)].url,
            [self._neighbours_made_from(*place) for place in self._placements(paper)],
            related,
        )
        return context_digest(made_from, salt).hex()

    def _neighbours_made_from(self, group: SessionGroup, index: int) -> tuple[Any, ...]:
        """What `neighbours` shows of a session: the session, a paper's place in it (`index`),
        and the papers on either side."""
        around = group.papers[max(0, index - 1) : index + 2]
        briefs = [self._card_making(p).brief.key_digest for p in around]
        return group.label, group.url, index, len(group.papers), briefs

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
            room=None if paper.sessions else paper.room,  # else beside each session
            neighbours=self.neighbours(paper),
            related=[
                self.card(site.paper_by_id[i], brief=True) for i in self.related.get(paper.id, ())
            ],
        )
        context.update(
            paper_details(paper, site.title, site.absolute(url), citation_of(site, paper))
        )
        return Page(path, "paper.html", context)

    @cached_property
    def _letters(self) -> list[tuple[str, list[Author]]]:
        """The author index's letters, A to Z then '#', each with its authors."""
        letters: dict[str, list[Author]] = {}
        for author in self.site.authors:
            letters.setdefault(index_letter(author.name), []).append(author)
        return sorted(letters.items(), key=lambda item: (item[0] == "#", item[0]))

    def _letter_url(self, index: int) -> str:
        letter = self._letters[index][0]
        return urls.author_letter_url("other" if letter == "#" else letter.lower(), index == 0)

    def authors_index(self, index: int = 0, number: int = 1) -> Page:
        """One letter of the author index (a page each, the first at `authors/`): a page of
        every author took seconds to lay out on a phone."""
        letter, members = self._letters[index]
        page = listing_page(self._letter_url(index), number, members, AUTHORS_PER_PAGE)
        authors = [
            {
                "name": author.name,
                "url": urls.author_url(author.slug),
                "count": len(author.paper_ids),
            }
            for author in page.items
        ]
        letters = [
            {"letter": other, "url": self._letter_url(i), "current": i == index}
            for i, (other, _) in enumerate(self._letters)
        ]
        title = "Authors" if index == 0 and number == 1 else f"Authors: {letter}"
        context = self.base(
            page.path, paged_title(title, page.pager), page.url, f"{len(self.site.authors)} authors"
        )
        context.update(
            letter=letter,
            letters=letters,
            authors=authors,
            author_count=len(self.site.authors),
            pager=page.pager,
        )
        return Page(page.path, "authors.html", context)

    def author_key(self, author: Author, salt: bytes, number: int = 1) -> str:
        """The key of page `number` of an author's papers, made from what `author` makes it
        from (see `paper_key`, and `structure_digest` for what it reads beyond the author's
        papers): the author, and how each paper is listed (`_listed_digest`; all of them, as
        every page shows how many there are in each venue and where each venue starts)."""
        paper_by_id = self.site.paper_by_id
        made_from = (
            "author.html",
            self._site_digest,
            author.key,
            author.name,
            author.slug,
            author.spellings,
            [self._listed_digest(paper_by_id[i]) for i in author.paper_ids],
            number,
        )
        return context_digest(made_from, salt).hex()

    def _listed_digest(self, paper: Paper) -> bytes:
        """A digest of what an author's page shows of a paper: its brief card, venue, year
        and collection, and who wrote it as the site names them (name and slug, each once:
        the co-authors, whose shown names can change with papers this author did not
        write). Made once per paper and process: a paper is on each of its authors' pages,
        and digesting its parts there, page by page, was most of a rebuild's author keys."""
        made = self._listed_digests.get(paper.id)
        if made is None:
            authors = self.site.authors
            places = sorted(self._author_places(paper.id))
            made_from = (
                self._card_making(paper).brief.key_digest,
                paper.conference,  # the groups' order, which labels do not decide
                paper.year,
                self.site.collection_of[(paper.conference, paper.year)].slug,
                [(authors[p].name, authors[p].slug) for p in places],
            )
            made = self._listed_digests[paper.id] = context_digest(made_from)
        return made

    def author(self, author: Author, number: int = 1) -> Page:
        """Page `number` of an author's papers, by year and venue, newest first, CARDS_PER_PAGE
        a page (an archive's most prolific authors have hundreds); on the first, their
        co-authors with the number of papers shared (as the ACL Anthology's author pages show
        them)."""
        listed = self._author_listing(author)
        listing_url = urls.author_url(author.slug)
        page = listing_page(listing_url, number, listed, CARDS_PER_PAGE)
        venues = self._venues(listed, listing_url, number)
        groups: dict[CollectionKey, dict[str, Any]] = {}
        for key, card in page.items:
            groups.setdefault(key, {**venues[key], "papers": []})["papers"].append(card)
        context = self.base(
            page.path, paged_title(author.name, page.pager), page.url, f"Papers by {author.name}"
        )
        coauthors, coauthor_count = self._coauthors(author)
        context.update(
            author=author.name,
            other_spellings=other_spellings(author),
            paper_count=len(listed),
            venues=list(venues.values()),
            groups=list(groups.values()),
            coauthors=coauthors if number == 1 else [],  # listed on the first page
            coauthor_count=coauthor_count,
            author_url=listing_url,
            first=page.start + 1,
            last=page.start + len(page.items),
            pager=page.pager,
        )
        return Page(page.path, "author.html", context)

    def _venues(
        self, listed: list[tuple[CollectionKey, Card]], listing_url: str, number: int
    ) -> dict[CollectionKey, dict[str, Any]]:
        """The venues and years of an author's listing, in its order, for page `number`:
        each one's label, slug, number of papers, the page its papers start on (its `url`;
        None for this page) and whether they started on an earlier one."""
        keys = [key for key, _ in listed]
        counts = Counter(keys)
        return {
            key: {
                "label": collection_label(*key),
                "slug": self.site.collection_of[key].slug,
                "count": counts[key],
                "url": None if start == number else urls.paged_url(listing_url, start),
                "continued": start < number,
            }
            for key, start in first_pages(keys, CARDS_PER_PAGE).items()
        }

    def _author_listing(self, author: Author) -> list[tuple[CollectionKey, Card]]:
        """An author's papers in the order their pages list them, each with its venue and
        year: newest year first, then venue, then title."""
        site = self.site
        by_venue: dict[CollectionKey, list[Card]] = {}
        for paper_id in author.paper_ids:
            paper = site.paper_by_id[paper_id]
            by_venue.setdefault((paper.conference, paper.year), []).append(
                self.card(paper, brief=True)
            )
        ordered = sorted(by_venue.items(), key=lambda item: (-(item[0][1] or 0), item[0][0] or ""))
        return [
            (key, card)
            for key, cards in ordered
            for card in sorted(cards, key=lambda card: card["title_text"].casefold())
        ]

    def _coauthors(self, author: Author) -> tuple[list[dict[str, Any]], int]:
        """An author's co-authors, most papers together first, then alphabetical (the
        index's order), and how many they are. The most frequent only, as listings cap
        authors: one paper with thousands of authors would otherwise put thousands of names
        on each of their pages."""
        site = self.site
        shared: Counter[int] = Counter()  # papers shared, per co-author's place in the index
        for paper_id in author.paper_ids:
            shared.update(self._author_places(paper_id))
        del shared[self._author_place[author.key]]
        ranked = sorted(shared.items(), key=lambda item: (-item[1], item[0]))
        listed = [
            {
                "name": site.authors[place].name,
                "url": urls.author_url(site.authors[place].slug),
                "count": count,
            }
            for place, count in ranked[:LISTED_AUTHORS]
        ]
        return listed, len(ranked)

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

"""The site model: collections, sessions, authors and their URLs (see urls.py).

Built once from the merged papers; the renderer only reads it. URLs here are directory paths
relative to the site root (`papers/<id>/`); the renderer turns them into relative links.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..config import SiteConfig
from ..diagnostics import Diagnostics
from .authors import NO_OVERRIDES, Author, AuthorOverrides, build_authors
from .cite_keys import cite_keys
from .content import ContentPage
from .records import Paper, Session
from .slugs import unique_slugs
from .urls import collection_url, session_url

CollectionKey = tuple[str | None, int | None]  # a collection's conference and year
OTHER_COLLECTION = "Other papers"


@dataclass(frozen=True)
class SessionGroup:
    session: Session
    slug: str
    papers: tuple[Paper, ...]  # in the order the dumps list them

    @property
    def label(self) -> str:
        return self.session.name

    @property
    def url(self) -> str:
        return session_url(self.slug)

    @property
    def room(self) -> str | None:
        """The room of every paper in this session, when they share one; else none is a fact
        of the session."""
        rooms = {p.room_in(self.session) for p in self.papers}
        return rooms.pop() if len(rooms) == 1 else None


@dataclass(frozen=True)
class Collection:
    conference: str | None
    year: int | None
    slug: str
    label: str
    sessions: tuple[SessionGroup, ...]
    papers: tuple[Paper, ...]

    @property
    def url(self) -> str:
        return collection_url(self.slug)

    @cached_property
    def unsessioned(self) -> tuple[Paper, ...]:
        """Its papers that no session lists, in its order (each of its pages lists some)."""
        return tuple(paper for paper in self.papers if not paper.sessions)


def collection_label(conference: str | None, year: int | None) -> str:
    if conference is None:
        return OTHER_COLLECTION if year is None else str(year)
    return f"{conference} {year}" if year is not None else conference


def _collection_sort_key(key: CollectionKey) -> tuple:
    conference, year = key
    return (conference is None, conference or "", -(year or 0))


def _session_groups(papers: tuple[Paper, ...]) -> list[SessionGroup]:
    # Each session by its fields, which is how sessions compare, hashed in C (a Session's own
    # hash and equality are Python calls, a tenth of a second over 100,000 papers): the first
    # equal session met, and its entries.
    members: dict[tuple, tuple[Session, list[tuple[tuple[int, int], str, Paper]]]] = {}
    for paper in papers:
        for session, order in zip(paper.sessions, paper.session_order, strict=True):
            key = (session.conference, session.year, session.name)
            found = members.get(key) or members.setdefault(key, (session, []))
            found[1].append((order, paper.id, paper))
    labels = {s: f"{collection_label(s.conference, s.year)} {s.name}" for s, _ in members.values()}
    slugs = unique_slugs(labels, "session", 80)
    groups = []
    for session, listed in members.values():
        listed.sort()
        group = SessionGroup(session, slugs[session], tuple(p for _, _, p in listed))
        groups.append((listed[0][0], group))  # where its first paper appears in the sources
    # Sessions in the order their first paper appears in the sources.
    return [group for _, group in sorted(groups, key=lambda pair: (pair[0], pair[1].slug))]


def _collections(papers: tuple[Paper, ...], groups: list[SessionGroup]) -> tuple[Collection, ...]:
    keys = {(p.conference, p.year) for p in papers} | {
        (g.session.conference, g.session.year) for g in groups
    }
    labels = {key: collection_label(*key) for key in keys}
    slugs = unique_slugs(labels, "collection", 80)
    sessions_of: dict[tuple, list[SessionGroup]] = {key: [] for key in keys}
    for group in groups:
        sessions_of[(group.session.conference, group.session.year)].append(group)
    papers_of: dict[tuple, list[Paper]] = {key: [] for key in keys}
    for paper in papers:
        papers_of[(paper.conference, paper.year)].append(paper)
    collections = []
    for key in sorted(keys, key=_collection_sort_key):
        sessions = tuple(sessions_of[key])
        in_sessions = [p for g in sessions for p in g.papers]
        own = papers_of[key]
        members = tuple({p.id: p for p in [*in_sessions, *own]}.values())
        collections.append(Collection(key[0], key[1], slugs[key], labels[key], sessions, members))
    return tuple(collections)


@dataclass(frozen=True)
class Site:
    config: SiteConfig
    papers: tuple[Paper, ...]  # sorted by id
    collections: tuple[Collection, ...]
    sessions: tuple[SessionGroup, ...]
    authors: tuple[Author, ...]
    content_pages: tuple[ContentPage, ...]
    base_url: str | None
    # Each paper's citation key by id (see cite_keys.py), made from `papers` with the authors
    # (`build_site`, cache/site_model.py): a site given other papers needs them made again.
    # Not compared: they follow from the papers.
    cite_keys: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def title(self) -> str:
        return self.config.title

    @cached_property
    def paper_by_id(self) -> dict[str, Paper]:
        return {paper.id: paper for paper in self.papers}

    @cached_property
    def author_by_name(self) -> dict[str, Author]:
        """Every spelling of a name a paper lists, to the author it was merged into."""
        return {name: author for author in self.authors for name in author.spellings}

    @cached_property
    def session_by_key(self) -> dict[Session, SessionGroup]:
        return {group.session: group for group in self.sessions}

    @cached_property
    def session_places(self) -> dict[str, tuple[tuple[int, int], ...]]:
        """Each paper's sessions in the order of its `sessions`, as (the session's number in
        `sessions`, the paper's place in it), by paper id. Found by session, a paper's places
        cost a session's generated hash, which runs in Python: a third of a rebuild's
        unchanged-page checks at 100,000 papers."""
        placed: dict[str, list[tuple[int, int]]] = {}
        for number, group in enumerate(self.sessions):
            for index, paper in enumerate(group.papers):
                placed.setdefault(paper.id, []).append((number, index))
        number_of = {group.session: number for number, group in enumerate(self.sessions)}
        for paper in self.papers:
            if len(paper.sessions) > 1:  # placed in the order of the site's sessions
                place_in = dict(placed[paper.id])
                numbers = [number_of[session] for session in paper.sessions]
                placed[paper.id] = [(number, place_in[number]) for number in numbers]
        return {paper_id: tuple(places) for paper_id, places in placed.items()}

    @cached_property
    def collection_of(self) -> dict[CollectionKey, Collection]:
        return {(c.conference, c.year): c for c in self.collections}

    def absolute(self, url: str) -> str | None:
        return f"{self.base_url}{url}" if self.base_url else None

    def proceedings(self, conference: str | None) -> str | None:
        """The full name of a conference's proceedings, when the config gives one."""
        return dict(self.config.proceedings or ()).get(conference) if conference else None


def site_order(papers: Iterable[Paper]) -> tuple[Paper, ...]:
    """Papers in the order the site model holds them: by id."""
    return tuple(sorted(papers, key=lambda p: p.id))


def build_site(
    config: SiteConfig,
    papers: list[Paper],
    content_pages: tuple[ContentPage, ...],
    base_url: str | None,
    diagnostics: Diagnostics,
    author_overrides: AuthorOverrides = NO_OVERRIDES,
) -> Site:
    """The site model. Related papers are not part of it: they take the longest to compute,
    so pages that do not show them render meanwhile (see render/corpus.py)."""
    program = site_program(config, papers, content_pages, base_url)
    authors = build_authors(program.papers, diagnostics, author_overrides)
    return replace(program, authors=authors, cite_keys=cite_keys(program.papers))


def site_program(
    config: SiteConfig,
    papers: list[Paper],
    content_pages: tuple[ContentPage, ...],
    base_url: str | None,
) -> Site:
    """The site model without its authors and cite keys (both empty): all that related
    papers and the search index are made from, so their work can start while those are made."""
    ordered = site_order(papers)
    groups = _session_groups(ordered)
    return Site(
        config=config,
        papers=ordered,
        collections=_collections(ordered, groups),
        sessions=tuple(groups),
        authors=(),
        content_pages=content_pages,
        base_url=base_url,
    )


"""The normalized record model: what one source says of a paper (Entry), and the merged Paper."""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import SourceLoc


@dataclass(frozen=True, order=True)
class Session:
    conference: str | None
    year: int | None
    name: str


@dataclass(frozen=True, order=True)
class Link:
    """A place to reach the paper itself: `kind` names it for a reader ("PDF", "OpenReview")."""

    kind: str
    url: str


@dataclass(frozen=True)
class Entry:
    """One source's account of a paper, cleaned up and completed with the config's facts."""

    loc: SourceLoc
    source_index: int
    title: str | None
    authors: tuple[str, ...]
    affiliations: tuple[str, ...]  # parallel to authors, or empty when none are known
    abstract: str | None
    links: tuple[Link, ...]
    keywords: tuple[str, ...]
    presentation: str | None
    decision: str | None
    attendance: str | None
    awards: tuple[str, ...]
    session: Session | None
    room: str | None
    conference: str | None
    year: int | None
    # The slug of its title ("" without one): made with the entry, so a rebuild that takes
    # the entry from the input cache does not slugify every title again.
    title_slug: str


@dataclass(frozen=True)
class Paper:
    """A paper after merging every entry that describes it; `id` is stable across rebuilds."""

    id: str
    title: str | None
    authors: tuple[str, ...]
    affiliations: tuple[str, ...]  # parallel to authors, or empty when none are known
    abstract: str | None
    links: tuple[Link, ...]
    keywords: tuple[str, ...]
    presentation: str | None
    decision: str | None
    attendance: str | None
    awards: tuple[str, ...]
    sessions: tuple[Session, ...]
    # Where the paper stands in each of its sessions: (source index, line), parallel to sessions.
    session_order: tuple[tuple[int, int], ...]
    # The room a source gives the paper in each of its sessions, parallel to sessions: a room
    # holds for a session, not for the paper (a 2024 room is no fact of a trending list).
    session_rooms: tuple[str | None, ...]
    room: str | None
    conference: str | None
    year: int | None
    sources: tuple[SourceLoc, ...]

    @property
    def loc(self) -> SourceLoc:
        return self.sources[0]

    def room_in(self, session: Session) -> str | None:
        return self.session_rooms[self.sessions.index(session)]

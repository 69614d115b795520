"""Facts shown where they hold: a session's room only when it is the room of its papers in that
session, and a paper's room beside the session it holds for (issue 18)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from confsite.diagnostics import Diagnostics
from confsite.model.records import Paper
from confsite.model.site import Site, build_site
from confsite.pipeline import BuildResult


def facts_of(page: Path) -> dict[str, list[str]]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "lxml")
    facts: dict[str, list[str]] = {}
    for row in soup.select("main dl.facts > div"):
        facts.setdefault(row.dt.get_text(strip=True), []).append(row.dd.get_text(" ", strip=True))
    return facts


@pytest.fixture(scope="module")
def site(seeds_build: BuildResult) -> Path:
    return seeds_build.out_dir


def test_trending_session_states_no_room(site: Path) -> None:
    # Read by hand: trending-papers.txt names no room, and site.yaml gives "Halle B" only to
    # iclr2024-poster-session-3.txt; five trending papers are also in that 2024 session.
    facts = facts_of(site / "sessions" / "other-papers-trending-papers" / "index.html")
    assert "Room" not in facts
    assert facts_of(site / "sessions" / "iclr-2024-poster-session-3" / "index.html")["Room"] == [
        "Halle B"
    ]


def test_collection_lists_no_room_for_the_trending_session(site: Path) -> None:
    soup = BeautifulSoup(
        (site / "collections" / "other-papers" / "index.html").read_text(encoding="utf-8"), "lxml"
    )
    assert "Halle B" not in soup.select_one(".session-table").get_text()


def test_a_paper_in_two_sessions_has_its_room_beside_the_2024_session_only(
    site: Path, seeds_build: BuildResult
) -> None:
    both = [
        p
        for p in seeds_build.papers
        if {s.name for s in p.sessions} == {"Poster Session 3", "Trending papers"}
        and any(s.year == 2024 for s in p.sessions)
    ]
    assert len(both) == 5  # counted by hand in the two dumps
    for paper in both:
        facts = facts_of(site / "papers" / paper.id / "index.html")
        sessions = facts["Session"]
        assert len(sessions) == 2
        in_2024 = next(s for s in sessions if "Poster Session 3" in s)
        trending = next(s for s in sessions if "Trending papers" in s)
        assert "Halle B" in in_2024 and "Halle B" not in trending
        assert "Room" not in facts  # no paper-wide room beside the sessions


def test_an_overridden_room_holds_in_every_session(tmp_path: Path) -> None:
    from confsite.diagnostics import SourceLoc
    from confsite.model.overrides import apply_overrides
    from confsite.model.records import Paper, Session
    from confsite.yamlfile import load_yaml

    a, b = Session("ICLR", 2024, "Poster 3"), Session("ICLR", 2024, "Oral 1")
    paper = Paper(
        id="p", title="P", authors=(), affiliations=(), abstract=None, links=(), keywords=(),
        presentation=None, decision=None, attendance=None, awards=(), sessions=(a,),
        session_order=((0, 1),), session_rooms=("Halle B",), room="Halle B", conference="ICLR",
        year=2024, sources=(SourceLoc("dump.txt", 1),),
    )  # fmt: skip
    overrides = tmp_path / "overrides.yaml"
    overrides.write_text("p:\n  sessions: [Poster 3, Oral 1]\n", encoding="utf-8")
    (moved,) = apply_overrides(load_yaml(overrides, "overrides.yaml"), [paper])
    assert (moved.room_in(a), moved.room_in(b)) == ("Halle B", None)
    overrides.write_text("p:\n  sessions: [Poster 3, Oral 1]\n  room: Room 7\n", encoding="utf-8")
    (moved,) = apply_overrides(load_yaml(overrides, "overrides.yaml"), [paper])
    assert (moved.room_in(a), moved.room_in(b)) == ("Room 7", "Room 7")


def places_by_lookup(site: Site) -> dict[str, tuple[tuple[int, int], ...]]:
    """Each paper's (session number, place in it), found session by session as a reader
    would: its sessions in its own order, each found among the site's."""
    numbers = [group.session for group in site.sessions]
    return {
        paper.id: tuple(
            (numbers.index(session), site.sessions[numbers.index(session)].papers.index(paper))
            for session in paper.sessions
        )
        for paper in site.papers
        if paper.sessions
    }


def turned_around(paper: Paper) -> Paper:
    """The paper with its sessions, and what is parallel to them, in the other order."""
    return dataclasses.replace(
        paper,
        sessions=paper.sessions[::-1],
        session_order=paper.session_order[::-1],
        session_rooms=paper.session_rooms[::-1],
    )


@pytest.mark.parametrize("turned", [False, True])
def test_a_papers_places_follow_its_own_order_of_sessions(
    seeds_build: BuildResult, turned: bool
) -> None:
    """`Site.session_places`, found group by group, is in each paper's own order of sessions:
    the seeds' papers in two sessions as they are, and with their sessions turned around."""
    papers = [turned_around(p) if turned and len(p.sessions) > 1 else p for p in seeds_build.papers]
    site = build_site(seeds_build.config, papers, (), None, Diagnostics())
    assert sum(len(p.sessions) > 1 for p in site.papers) >= 5
    assert site.session_places == places_by_lookup(site)


def test_sessions_are_grouped_by_value_and_ordered_by_their_first_paper_in_the_sources() -> None:
    """Equal sessions held as distinct objects are one group; groups come in the order of
    their earliest paper in the sources (source, then line), whichever paper is listed
    first by id, and a tie goes to the earlier slug."""
    from test_citations import paper as cited_paper

    from confsite.config import SiteConfig
    from confsite.model.records import Session
    from confsite.model.site import site_program

    def paper(paper_id: str, *placed: tuple[Session, tuple[int, int]]) -> Paper:
        sessions, order = tuple(s for s, _ in placed), tuple(o for _, o in placed)
        rooms = (None,) * len(placed)
        return cited_paper(id=paper_id, sessions=sessions, session_order=order, session_rooms=rooms)

    def late() -> Session:  # a new object each time, equal to the others
        return Session("ICLR", 2024, "Late session")

    early, tied = Session("ICLR", 2024, "Early session"), Session("ICLR", 2024, "Also early")
    papers = [
        paper("a", (late(), (0, 2)), (early, (1, 4))),
        paper("b", (late(), (2, 1))),
        paper("c", (early, (0, 3))),
        paper("d", (late(), (0, 8))),
        paper("e", (tied, (0, 3))),
        paper("f", (Session("ICLR", 2024, "Between"), (1, 0))),
    ]
    config = SiteConfig(title="T", sources=(), root=Path("."), config_path="site.yaml")
    sessions = site_program(config, papers, (), None).sessions
    assert [(g.session.name, [p.id for p in g.papers]) for g in sessions] == [
        ("Late session", ["a", "d", "b"]),
        ("Also early", ["e"]),
        ("Early session", ["c", "a"]),
        ("Between", ["f"]),
    ]
    assert sessions[0].session is papers[0].sessions[0]  # the first of the equal ones met

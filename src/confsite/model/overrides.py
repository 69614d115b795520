"""The overrides file: per paper id, fields that replace what the dumps say; and, under
`_authors` (no paper id starts with "_"), which author spellings are one person or not.

untitled-fan-bao-1a2b3c:
  title: "Analytic-DPM: an Analytic Estimate of the Optimal Reverse Variance"
some-paper-id:
  authors: [A. Author, B. Author]
  sessions: [Oral Session 2]
_authors:
  same:
    - [Simon Shaolei Du, Simon Du]
  distinct:
    - [Wei Wang, Wei X. Wang]
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import ATTENDANCE_VALUES
from ..yamlfile import KeyPath, YamlDocument, load_yaml
from .authors import AuthorOverrides
from .normalize import clean_text
from .records import Paper, Session

TEXT_FIELDS = ("title", "abstract", "presentation", "decision", "room", "conference")
LIST_FIELDS = ("authors", "awards", "sessions")
ALL_FIELDS = (*TEXT_FIELDS, *LIST_FIELDS, "attendance", "year")
AUTHORS_KEY = "_authors"
AUTHOR_LISTS = ("same", "distinct")
OVERRIDE_ORDER = 1_000_000  # sessions added by an override sort after every dump's papers


def _text_value(doc: YamlDocument, key_path: KeyPath, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise doc.error(key_path, f"expected text or null; got {value!r}")
    return clean_text(str(value))


def _list_value(doc: YamlDocument, key_path: KeyPath, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise doc.error(key_path, f"expected a list of text; got {value!r}")
    cleaned = tuple(_text_value(doc, (*key_path, i), item) for i, item in enumerate(value))
    return tuple(item for item in cleaned if item)


def _placed_sessions(paper: Paper, names: tuple[str, ...], updates: dict[str, Any]) -> dict:
    """Sessions named in an override, in the paper's (possibly overridden) conference and year;
    a session the paper was already in keeps its place, a new one goes last."""
    conference = updates.get("conference", paper.conference)
    year = updates.get("year", paper.year)
    known = dict(zip(paper.sessions, paper.session_order, strict=True))
    sessions = tuple(Session(conference, year, name) for name in names)
    order = tuple(known.get(session, (OVERRIDE_ORDER, 0)) for session in sessions)
    rooms = tuple(paper.room_in(s) if s in known else None for s in sessions)
    return {"sessions": sessions, "session_order": order, "session_rooms": rooms}


def _field_value(doc: YamlDocument, key_path: KeyPath, name: str, value: Any) -> Any:
    if name in TEXT_FIELDS:
        return _text_value(doc, key_path, value)
    if name == "attendance":
        if value is not None and value not in ATTENDANCE_VALUES:
            raise doc.error(
                key_path, f"expected one of {', '.join(ATTENDANCE_VALUES)}; got {value!r}"
            )
        return value
    if name == "year":
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise doc.error(key_path, f"expected a year such as 2024; got {value!r}")
        return value
    names = _list_value(doc, key_path, value)
    return names


def apply_overrides(doc: YamlDocument, papers: list[Paper]) -> list[Paper]:
    if doc.data is None:
        return papers
    if not isinstance(doc.data, dict):
        raise doc.error((), "expected a mapping from paper id to the fields to set")
    by_id = {paper.id: paper for paper in papers}
    for paper_id, changes in doc.data.items():
        if paper_id == AUTHORS_KEY:
            continue
        if paper_id not in by_id:
            raise doc.error((paper_id,), "no paper has this id (ids are listed in papers.json)")
        if not isinstance(changes, dict):
            raise doc.error((paper_id,), f"expected a mapping of field to value; got {changes!r}")
        updates: dict[str, Any] = {}
        for name, value in changes.items():
            if name not in ALL_FIELDS:
                raise doc.error((paper_id, name), f"unknown field (known: {', '.join(ALL_FIELDS)})")
            updates[name] = _field_value(doc, (paper_id, name), name, value)
        if "sessions" in updates:
            updates.update(_placed_sessions(by_id[paper_id], updates.pop("sessions"), updates))
        if "room" in updates:  # the organiser's room holds in every session of the paper
            sessions = updates.get("sessions", by_id[paper_id].sessions)
            updates["session_rooms"] = (updates["room"],) * len(sessions)
        if "authors" in updates:  # the dumps' affiliations no longer line up with the names
            updates["affiliations"] = ()
        override_loc = doc.loc((paper_id,))
        by_id[paper_id] = replace(
            by_id[paper_id], sources=(*by_id[paper_id].sources, override_loc), **updates
        )
    return [by_id[paper.id] for paper in papers]


def author_overrides(doc: YamlDocument | None) -> AuthorOverrides:
    """The `_authors` section: lists of spellings that are one person (`same`) or that must not
    be merged as variants of one name (`distinct`)."""
    if doc is None or not isinstance(doc.data, dict) or doc.data.get(AUTHORS_KEY) is None:
        return AuthorOverrides()
    section = doc.data[AUTHORS_KEY]
    if not isinstance(section, dict):
        raise doc.error((AUTHORS_KEY,), "expected a mapping with 'same' and/or 'distinct'")
    lists: dict[str, tuple] = {}
    for name, groups in section.items():
        if name not in AUTHOR_LISTS:
            raise doc.error((AUTHORS_KEY, name), f"unknown list (known: {', '.join(AUTHOR_LISTS)})")
        if not isinstance(groups, list):
            raise doc.error((AUTHORS_KEY, name), "expected a list of lists of author names")
        found = []
        for i, group in enumerate(groups):
            spellings = _list_value(doc, (AUTHORS_KEY, name, i), group)
            if len(spellings) < 2:
                raise doc.error((AUTHORS_KEY, name, i), "expected at least two spellings")
            found.append((spellings, doc.loc((AUTHORS_KEY, name, i))))
        lists[name] = tuple(found)
    return AuthorOverrides(**lists)


def load_overrides(path: Path, display_path: str) -> YamlDocument | None:
    if not path.exists():
        return None
    return load_yaml(path, display_path)

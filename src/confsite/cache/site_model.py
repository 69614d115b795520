"""The parts of the site model that every paper goes into, kept between builds.

Joining name variants into people looks at every name of every paper (half a second for the
26,599 authors of the real-world corpus, a second at 100,000 papers), and the cite keys at
every title (a second at 100,000 papers), all before any page worker starts. Most rebuilds
(an abstract edited) change neither, so each is kept with a digest of what it is made from
and taken again when that is the same (and the code: the cache's fingerprint). The authors
are kept with what joining them told (notes and warnings), told again as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostics, Problem
from ..model.authors import Author, AuthorOverrides, build_authors
from ..model.cite_keys import cite_keys
from ..model.site import Site
from .digests import digest
from .stores import load_pickle, save_pickle

AUTHORS_FILE = "authors.pickle"
CITE_KEYS_FILE = "cite-keys.pickle"


@dataclass(frozen=True)
class Kept:
    inputs: bytes  # the digest of what `made` was made from
    made: Any


@dataclass(frozen=True)
class JoinedAuthors:
    authors: tuple[Author, ...]
    told: tuple[Problem, ...]


def completed_site(
    program: Site,
    overrides: AuthorOverrides,
    diagnostics: Diagnostics,
    folder: Path | None,
    fingerprint: bytes,
) -> Site:
    """`program` (see `site_program`) with its authors and cite keys, each taken from the last
    build when made from the same inputs."""

    papers = program.papers

    def joined() -> JoinedAuthors:
        told_before = len(diagnostics.problems)
        authors = build_authors(papers, diagnostics, overrides)
        return JoinedAuthors(authors, tuple(diagnostics.problems[told_before:]))

    locs = [p.sources[0] for p in papers]  # `Paper.loc`, without a property call per field
    named = [
        (p.id, p.authors, loc.path, loc.line, loc.end_line)
        for p, loc in zip(papers, locs, strict=True)
    ]
    people, was_kept = _kept(folder, AUTHORS_FILE, fingerprint, (named, overrides), joined)
    if was_kept:
        diagnostics.problems.extend(people.told)
    titled = [(p.id, p.authors[:1], p.year, p.title) for p in papers]
    keys, _ = _kept(folder, CITE_KEYS_FILE, fingerprint, titled, lambda: cite_keys(papers))
    return replace(program, authors=people.authors, cite_keys=keys)


def _kept(
    folder: Path | None, name: str, fingerprint: bytes, inputs: Any, make: Callable[[], Any]
) -> tuple[Any, bool]:
    """What `make()` gives: the last build's, when made from the same `inputs` (and True),
    else made now and kept for the next build (and False). Without a cache folder, made."""
    path = folder / name if folder is not None else None
    made_from = digest(inputs) if path is not None else b""
    kept = load_pickle(path, fingerprint, Kept)
    if kept is not None and kept.inputs == made_from:
        return kept.made, True
    made = make()
    save_pickle(path, fingerprint, Kept(made_from, made))
    return made, False

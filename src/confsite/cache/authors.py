"""The site's authors, kept between builds.

Joining name variants into people looks at every name of every paper: half a second for the
26,599 authors of the real-world corpus, a second at 100,000 papers, all before any page
worker starts. Most rebuilds (an abstract or a title edited) change no paper's authors, so
the authors are kept with what joining them told (notes and warnings, told again as they
were), and taken again when every input is the same: each paper's id, authors and place in
its dump (the notes name it), the overrides, and the code (the cache's fingerprint).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..diagnostics import Diagnostics, Problem
from ..model.authors import Author, AuthorOverrides
from ..model.site import Site, with_authors
from .digests import digest
from .stores import load_pickle, save_pickle

CACHE_FILE = "authors.pickle"


@dataclass(frozen=True)
class KeptAuthors:
    inputs: bytes  # the digest of what they were joined from (see `authors_inputs`)
    authors: tuple[Author, ...]
    told: tuple[Problem, ...]


def authors_inputs(program: Site, overrides: AuthorOverrides) -> bytes:
    """A digest of everything `build_authors` reads."""
    papers = [(p.id, p.authors, p.loc.path, p.loc.line, p.loc.end_line) for p in program.papers]
    return digest((papers, overrides))


def with_kept_authors(
    program: Site,
    overrides: AuthorOverrides,
    diagnostics: Diagnostics,
    folder: Path | None,
    fingerprint: bytes,
) -> Site:
    """`with_authors`, taking the last build's authors when they were joined from the same
    inputs (and telling what joining them told), else joining them and keeping them."""
    path = folder / CACHE_FILE if folder is not None else None
    inputs = authors_inputs(program, overrides) if path is not None else b""
    kept = load_pickle(path, fingerprint, KeptAuthors)
    if kept is not None and kept.inputs == inputs:
        diagnostics.problems.extend(kept.told)
        return replace(program, authors=kept.authors)
    told_before = len(diagnostics.problems)
    site = with_authors(program, diagnostics, overrides)
    told = tuple(diagnostics.problems[told_before:])
    save_pickle(path, fingerprint, KeptAuthors(inputs, site.authors, told))
    return site

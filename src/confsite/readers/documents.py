"""Where the list of papers sits in a parsed JSON or YAML document: the document itself, a list
of objects under a key of it, at most one level down ({"data": {"items": [...]}}), or an object
whose values are the papers, keyed by their ids ({"B1xS": {...}, "rkgt": {...}})."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..diagnostics import ConfsiteError, SourceLoc
from .base import ReadOptions
from .fields import SYNONYMS
from .values import key_of

KeyPath = tuple[str, ...]
# Keys a paper list is usually kept under, as `key_of` spells them.
LIST_KEYS = frozenset(
    "papers items records entries data results accepted submissions publications rows".split()
)
AUTHOR_KEYS = frozenset(SYNONYMS["authors"])
STRICT_TITLE_KEYS = frozenset(("title", "papertitle"))  # "name" also names authors and venues


@dataclass(frozen=True)
class PaperList:
    """The papers of a document and where they sit: under `path`, each under its own key in
    `keys` (its index in a list, its id in an object keyed by id)."""

    path: KeyPath
    items: list
    keys: tuple[int | str, ...]


def find_paper_list(data: Any, options: ReadOptions, loc: SourceLoc) -> PaperList:
    """The document's paper list; a document holding none is an error."""
    if isinstance(data, list):
        return PaperList((), data, tuple(range(len(data))))
    title_keys = STRICT_TITLE_KEYS | {key_of(options.field_name("title") or "")}
    candidates = list(_object_lists(data, ())) if isinstance(data, Mapping) else []
    if not candidates and isinstance(data, Mapping) and _keyed_papers(data, title_keys):
        return PaperList((), list(data.values()), tuple(map(str, data)))
    if not candidates:
        found = (
            f"an object with keys {', '.join(map(repr, data))}"
            if isinstance(data, Mapping)
            else f"a single {type(data).__name__} value"
        )
        raise ConfsiteError(
            loc, f"expected a list of papers, or an object holding one; found {found}"
        )

    def rank(candidate: PaperList) -> tuple[bool, bool, bool, int]:
        last = key_of(candidate.path[-1])
        return (
            any(_has_title(item, title_keys) for item in candidate.items),
            last in LIST_KEYS,
            last not in AUTHOR_KEYS,
            len(candidate.items),
        )

    return max(candidates, key=rank)  # max keeps the first of equals: the document's order


def _has_title(item: Mapping, title_keys: frozenset[str]) -> bool:
    """Whether an object names a title, itself or one level down (OpenReview's `content`)."""
    nested = (value for value in item.values() if isinstance(value, Mapping))
    return any(key_of(str(key)) in title_keys for part in (item, *nested) for key in part)


def _keyed_papers(mapping: Mapping, title_keys: frozenset[str]) -> bool:
    values = list(mapping.values())
    return bool(values) and all(
        isinstance(value, Mapping) and _has_title(value, title_keys) for value in values
    )


def _object_lists(mapping: Mapping, path: KeyPath):
    """A PaperList for every list of objects in `mapping` and in the objects it holds."""
    for key, value in mapping.items():
        here = (*path, str(key))
        if isinstance(value, list) and all(isinstance(item, Mapping) for item in value):
            if value or key_of(str(key)) in LIST_KEYS:
                yield PaperList(here, value, tuple(range(len(value))))
        elif isinstance(value, Mapping) and not path:
            yield from _object_lists(value, here)

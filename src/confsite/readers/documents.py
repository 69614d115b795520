"""Where the list of papers sits in a parsed JSON or YAML document: the document itself, or a
list of objects under a key of it, at most one level down ({"data": {"items": [...]}})."""

from __future__ import annotations

from collections.abc import Mapping
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


def find_paper_list(data: Any, options: ReadOptions, loc: SourceLoc) -> tuple[KeyPath, list]:
    """The key path to the paper list and the list; a document holding none is an error."""
    if isinstance(data, list):
        return (), data
    candidates = list(_object_lists(data, ())) if isinstance(data, Mapping) else []
    if not candidates:
        found = (
            f"an object with keys {', '.join(map(repr, data))}"
            if isinstance(data, Mapping)
            else f"a single {type(data).__name__} value"
        )
        raise ConfsiteError(
            loc, f"expected a list of papers, or an object holding one; found {found}"
        )
    title_keys = STRICT_TITLE_KEYS | {key_of(options.field_name("title") or "")}

    def rank(candidate: tuple[KeyPath, list]) -> tuple[bool, bool, bool, int]:
        path, items = candidate
        keys = {key_of(str(key)) for item in items for key in item}
        last = key_of(path[-1])
        return (bool(keys & title_keys), last in LIST_KEYS, last not in AUTHOR_KEYS, len(items))

    return max(candidates, key=rank)  # max keeps the first of equals: the document's order


def _object_lists(mapping: Mapping, path: KeyPath):
    """(key path, list) for every list of objects in `mapping` and in the objects it holds."""
    for key, value in mapping.items():
        here = (*path, str(key))
        if isinstance(value, list) and all(isinstance(item, Mapping) for item in value):
            if value or key_of(str(key)) in LIST_KEYS:
                yield here, value
        elif isinstance(value, Mapping) and not path:
            yield from _object_lists(value, here)

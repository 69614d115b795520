"""Page keys: a digest of everything a page is rendered from, so a rebuild renders a page again
only when what it shows changed."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from .digests import digest

if TYPE_CHECKING:
    from ..render.views import Page


def _by_key_digest(obj: Digested) -> tuple[type[bytes], tuple[bytes]]:
    return bytes, (obj.key_digest,)


# Each Digested type, pickled by `_by_key_digest`. A dispatch table, not `reducer_override`:
# pickle consults it only for types it has no built-in way for, where it would call
# `reducer_override` for every string, list and dict of a context.
_BY_KEY_DIGEST: dict[type, Any] = {}


class Digested:
    """A part of page contexts that stands in page keys by `key_digest`, a digest of what it
    is made from: far quicker than digesting what it holds (a paper's card, on many pages)."""

    key_digest: bytes = b""

    def __init_subclass__(cls, **options: Any) -> None:
        super().__init_subclass__(**options)
        _BY_KEY_DIGEST[cls] = _by_key_digest


class _KeyPickler(pickle.Pickler):
    dispatch_table = _BY_KEY_DIGEST


def context_digest(data: Any, salt: bytes = b"") -> bytes:
    return digest(data, salt, _KeyPickler)


def page_key(salt: bytes, page: Page) -> str:
    """A digest of everything a page is rendered from (with `salt` standing for the code and
    templates): while it is unchanged, so is the page."""
    return context_digest((page.template, page.context), salt).hex()

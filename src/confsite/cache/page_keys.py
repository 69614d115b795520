"""Page keys: a digest of everything a page is rendered from, so a rebuild renders a page again
only when what it shows changed."""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from .digests import digest

if TYPE_CHECKING:
    from ..render.views import Page


class Digested:
    """A part of page contexts that stands in page keys by `key_digest`, a digest of what it
    is made from: far quicker than digesting what it holds (a paper's card, on many pages)."""

    key_digest: bytes = b""


class _KeyPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Digested):
            return bytes, (obj.key_digest,)
        return NotImplemented


def context_digest(data: Any, salt: bytes = b"") -> bytes:
    return digest(data, salt, _KeyPickler)


def page_key(salt: bytes, page: Page) -> str:
    """A digest of everything a page is rendered from (with `salt` standing for the code and
    templates): while it is unchanged, so is the page."""
    made_from = None if page.deferred is None else (page.deferred.args, page.deferred.keywords)
    return context_digest((page.template, page.context, made_from), salt).hex()

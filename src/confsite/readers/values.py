"""Plain values out of parsed exports: key spellings compared loosely, scalars as text,
paragraphs, lists of labels and the http(s) links among a field's values."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
LABEL_SEPARATORS = re.compile(r"\s*[;|\n]\s*")
KEYWORD_SEPARATORS = re.compile(r"\s*[,;|\n]\s*")
LINK_SEPARATORS = re.compile(r"[\s;|]+")
HTTP_URL = re.compile(r"^https?://[^\s/?#]+\S*$", re.IGNORECASE)
NON_KEY_CHARACTER = re.compile(r"[^0-9a-z]")


def key_of(name: str) -> str:
    """A column or key name as compared: "Paper Title", "paper_title", "paperTitle" are one."""
    return NON_KEY_CHARACTER.sub("", name.casefold())


HTML_ENTITY = re.compile(r"&(?:#\d{2,7}|#x[0-9a-fA-F]{2,6}|[a-zA-Z]{2,8});")


def scalar_text(value: Any) -> str | None:
    """A value as text; None for what holds none (null, "", true/false, an object)."""
    if value is None or isinstance(value, bool | Mapping):
        return None
    if isinstance(value, list):  # ["Poster Session 3"]: the items, in order
        joined = ", ".join(text for item in value if (text := scalar_text(item)))
        return joined or None
    text = str(value).strip()
    if HTML_ENTITY.search(text):  # exports made from web forms keep `Dietm&#252;ller`
        text = html.unescape(text)
    return text or None


def paragraphs(value: Any) -> tuple[str, ...]:
    """An abstract's paragraphs: a list's items, or a text split at blank lines."""
    if isinstance(value, list):
        return tuple(text for item in value for text in paragraphs(item))
    text = scalar_text(value)
    if text is None:
        return ()
    return tuple(part.strip() for part in PARAGRAPH_BREAK.split(text) if part.strip())


def labels(value: Any, separators: re.Pattern[str] = LABEL_SEPARATORS) -> tuple[str, ...]:
    """Several short values (awards, keywords): a list's items, or a text split at separators."""
    if isinstance(value, list):
        return tuple(text for item in value for text in labels(item, separators))
    text = scalar_text(value)
    if text is None:
        return ()
    return tuple(part for part in separators.split(text) if part)


def http_links(value: Any) -> tuple[str, ...]:
    """The http(s) URLs in a value, nested lists and objects included; anything else (an
    OpenReview id, a relative path) is not a link, and none is made up from it."""
    if isinstance(value, Mapping):
        return tuple(url for item in value.values() for url in http_links(item))
    if isinstance(value, list):
        return tuple(url for item in value for url in http_links(item))
    text = scalar_text(value)
    if text is None:
        return ()
    return tuple(part for part in LINK_SEPARATORS.split(text) if HTTP_URL.match(part))

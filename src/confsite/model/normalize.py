"""Clean up raw records into entries: Unicode, whitespace, invisible characters, config facts."""

from __future__ import annotations

import re
import unicodedata

from ..config import SourceConfig
from ..readers.base import RawRecord
from ..text.plain import single_spaced
from .records import Entry, Link, Session
from .slugs import title_slug

# Invisible characters that carry no meaning in a title or abstract and can spoof text:
# C0/C1 controls, zero-width space and no-break, soft hyphen, bidi embeddings and isolates.
# ZWJ/ZWNJ stay: scripts and emoji sequences need them.
INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]"
)
SENTENCE_END = re.compile(r"[.!?:;)\]\"'’”]$")


def clean_text(text: str | None) -> str | None:
    """NFC, no invisible characters, every whitespace run one space; None when nothing is left."""
    if text is None:
        return None
    if not (text.isascii() and text.isprintable()):  # printable ASCII: NFC, nothing invisible
        text = INVISIBLE.sub("", unicodedata.normalize("NFC", text))
    return single_spaced(text) or None


def join_paragraphs(paragraphs: tuple[str, ...]) -> str | None:
    """Paragraphs joined by a blank line; a paragraph cut mid-sentence rejoins the next one."""
    merged: list[str] = []
    for paragraph in paragraphs:
        text = clean_text(paragraph)
        if text is None:
            continue
        if merged and not SENTENCE_END.search(merged[-1]) and text[0].islower():
            merged[-1] = f"{merged[-1]} {text}"
        else:
            merged.append(text)
    return "\n\n".join(merged) or None


def clean_label(text: str | None) -> str | None:
    """A badge value such as 'poster accept': cleaned, first letter capitalised."""
    text = clean_text(text)
    return text[0].upper() + text[1:] if text else None


# What a link leads to, judged by its address; the first match names it. Only http(s) links are
# kept: a scraped `javascript:` or `data:` address is never shown.
LINK_KINDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind)
    for pattern, kind in (
        (r"^https?://(?:www\.)?openreview\.net/pdf", "PDF"),
        (r"^https?://(?:www\.)?openreview\.net/", "OpenReview"),
        (r"^https?://(?:www\.)?arxiv\.org/", "arXiv"),
        (r"\.pdf(?:[?#].*)?$", "PDF"),
        (r"^https?://(?:dx\.)?doi\.org/", "DOI"),
        (r"^https?://(?:www\.)?aclanthology\.org/", "ACL Anthology"),
        (r"^https?://proceedings\.mlr\.press/", "PMLR"),
        (r"^https?://(?:www\.)?(?:github|gitlab)\.com/", "Code"),
        (r"^https?://(?:www\.)?(?:youtube\.com|youtu\.be|vimeo\.com)/", "Video"),
        (r"^https?://", "Paper page"),
    )
)


def classify_link(url: str) -> Link | None:
    url = url.strip()
    if url.lower().startswith("www."):  # written without its scheme, as pages often do
        url = f"https://{url}"
    for pattern, kind in LINK_KINDS:
        if pattern.search(url):
            return Link(kind, url)
    return None


def clean_links(urls: tuple[str, ...]) -> tuple[Link, ...]:
    links = (classify_link(url) for url in dict.fromkeys(urls))
    return tuple(link for link in links if link is not None)


def clean_affiliations(record: RawRecord, authors: tuple[str, ...]) -> tuple[str, ...]:
    """One affiliation per kept author, or none: a list that no longer lines up is dropped."""
    if len(record.affiliations) != len(record.authors) or len(authors) != len(record.authors):
        return ()
    cleaned = tuple(clean_text(text) or "" for text in record.affiliations)
    return cleaned if any(cleaned) else ()


def make_entry(record: RawRecord, source: SourceConfig, source_index: int) -> Entry:
    defaults = source.defaults
    session_name = source.session or clean_text(record.session)
    authors = tuple(name for name in map(clean_text, record.authors) if name)
    title = clean_text(record.title)
    return Entry(
        loc=record.loc,
        source_index=source_index,
        title=title,
        authors=authors,
        affiliations=clean_affiliations(record, authors),
        abstract=join_paragraphs(record.abstract),
        links=clean_links(record.links),
        keywords=tuple(dict.fromkeys(k for k in map(clean_text, record.keywords) if k)),
        presentation=clean_label(record.presentation) or defaults.presentation,
        decision=clean_label(record.decision) or defaults.decision,
        attendance=record.attendance or defaults.attendance,
        awards=tuple(award for award in map(clean_label, record.awards) if award),
        session=Session(source.conference, source.year, session_name) if session_name else None,
        room=source.room or clean_text(record.room),
        conference=source.conference,
        year=source.year,
        title_slug=title_slug(title),
    )

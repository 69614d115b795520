"""Every page's address, in one place: each page type's URL (a folder path relative to the site
root, turned into relative links by the renderer), and the names a content page cannot take."""

from __future__ import annotations

HOME = ""
ALL_PAPERS = "papers/"
AUTHORS = "authors/"
SESSIONS = "sessions/"
COLLECTIONS = "collections/"
SEARCH = "search/"
ASSETS = "assets/"
NOT_FOUND = "404.html"
INDEX = "index.html"  # a folder URL's page

# A content page sits at the root under its own name: it must not take a section's or a root
# page's name.
RESERVED_SLUGS = frozenset(
    [url.rstrip("/") for url in (ALL_PAPERS, AUTHORS, SESSIONS, COLLECTIONS, SEARCH, ASSETS)]
    + [name.removesuffix(".html") for name in (INDEX, NOT_FOUND)]
)


# A long listing's later pages sit in its folder (`sessions/x/page/2/`), and the author index's
# letters in `authors/letter/b/`: a paper id or author slug beside them must not take these.
PAGE = "page"
LETTER = "letter"
LISTING_SLUGS = frozenset([PAGE, LETTER])


def paged_url(url: str, number: int) -> str:
    """Page `number` (from 1) of the listing at `url`; page 1 is the listing's own URL."""
    return url if number == 1 else f"{url}{PAGE}/{number}/"


def author_letter_url(letter_slug: str, first: bool) -> str:
    """The author index's page of one letter; the first letter is the index itself."""
    return AUTHORS if first else f"{AUTHORS}{LETTER}/{letter_slug}/"


def paper_url(paper_id: str) -> str:
    """A paper's page; the id is stable, so is the URL."""
    return f"{ALL_PAPERS}{paper_id}/"


def author_url(slug: str) -> str:
    return f"{AUTHORS}{slug}/"


def session_url(slug: str) -> str:
    return f"{SESSIONS}{slug}/"


def collection_url(slug: str) -> str:
    return f"{COLLECTIONS}{slug}/"


def content_url(slug: str) -> str:
    return f"{slug}/"


def page_path(url: str) -> str:
    """The file a URL is served from: a folder's index.html."""
    return url + INDEX if url == HOME or url.endswith("/") else url

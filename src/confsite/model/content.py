"""Content pages (`content/*.md`: about, call for papers, ...) rendered with Markdown, sanitized.

The page title is the first `# ` heading, else the file name. Raw HTML in the Markdown is
reduced to a safe subset and links to http(s), mailto and relative targets only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nh3
from markupsafe import Markup
from slugify import slugify

from ..diagnostics import ConfsiteError, SourceLoc
from ..readers.sources import decode_source
from .normalize import clean_text
from .slugs import TRANSLITERATION
from .urls import RESERVED_SLUGS, content_url

HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "dl",
    "dt",
    "em",
    "h2",
    "h3",
    "h4",
    "hr",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
    "img",
}


@dataclass(frozen=True)
class ContentPage:
    slug: str
    title: str
    body: Markup
    source: SourceLoc

    @property
    def url(self) -> str:
        return content_url(self.slug)


def _render_markdown(text: str) -> Markup:
    import markdown  # here: a build whose site has no content pages never needs it

    html = markdown.markdown(
        text, extensions=["tables", "fenced_code", "sane_lists"], output_format="html"
    )
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        url_schemes={"http", "https", "mailto"},
        attributes={
            "a": {"href", "title"},
            "img": {"src", "alt", "title"},
            "td": {"align"},
            "th": {"align"},
        },
        link_rel="noopener",
    )
    return Markup(clean)


def load_content_page(path: Path, display_path: str) -> ContentPage:
    text = decode_source(display_path, path.read_bytes())
    heading = HEADING.search(text)
    if heading:
        title = clean_text(heading.group(1)) or path.stem
        text = text[: heading.start()] + text[heading.end() :]
    else:
        title = path.stem.replace("-", " ").capitalize()
    slug = slugify(path.stem, max_length=60, backend=TRANSLITERATION)
    if not slug or slug in RESERVED_SLUGS:
        raise ConfsiteError(
            SourceLoc(display_path, 1),
            f"content page name {path.stem!r} is reserved or empty; rename the file",
        )
    return ContentPage(slug, title, _render_markdown(text), SourceLoc(display_path, 1))


def load_content_pages(folder: Path, display_folder: str) -> tuple[ContentPage, ...]:
    if not folder.is_dir():
        return ()
    pages = [
        load_content_page(path, f"{display_folder}/{path.name}")
        for path in sorted(folder.glob("*.md"))
    ]
    seen: dict[str, ContentPage] = {}
    for page in pages:
        if page.slug in seen:
            raise ConfsiteError(page.source, f"same page address as {seen[page.slug].source}")
        seen[page.slug] = page
    return tuple(pages)

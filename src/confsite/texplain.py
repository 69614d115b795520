"""TeX and Markdown in scraped text reduced to readable plain text (for keys, titles, meta)."""

from __future__ import annotations

import re
from functools import cache

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

TEX_MARKUP = re.compile(r"[\\$]")
MARKDOWN_LINK = re.compile(r"\[([^\[\]]+)\]\((?:[^()\s]+)\)")
UNESCAPED_PERCENT = re.compile(r"(?<!\\)%")


def _latex_context():
    """pylatexenc's defaults drop the argument of a few text macros; keep their text."""
    context = get_default_latex_context_db()
    keep = [MacroTextSpec(name, "%(1)s") for name in ("texttt", "textsf", "textsc", "mathtt")]
    context.add_context_category("confsite-text", macros=keep, prepend=True)
    return context


_plain = LatexNodes2Text(
    latex_context=_latex_context(), math_mode="text", strict_latex_spaces=False
)


@cache  # titles and abstracts repeat across pages; TeX parsing is slow
def plain_text(text: str | None) -> str:
    """Readable plain text for places that cannot hold markup (<title>, meta tags, BibTeX notes):
    TeX rendered to Unicode, Markdown links reduced to their text."""
    if not text:
        return ""
    text = MARKDOWN_LINK.sub(r"\1", text)
    if not TEX_MARKUP.search(text):  # most text has no TeX: skip the (slow) TeX parser
        return " ".join(text.split())
    try:
        # In scraped prose "%" is a percent sign, not the start of a TeX comment.
        rendered = _plain.latex_to_text(UNESCAPED_PERCENT.sub(r"\\%", text))
    except Exception:  # pylatexenc is tolerant; fall back to the raw text if it is not
        rendered = text
    return " ".join(rendered.split())


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"

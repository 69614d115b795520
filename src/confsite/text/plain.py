"""TeX and Markdown in scraped text reduced to readable plain text (for keys, titles, meta)."""

from __future__ import annotations

import re
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

# Inline math follows pandoc's rule: no space just inside the dollars, no digit just after the
# closing one, so a stray "$" in scraped prose does not turn the sentences after it into math.
MATH = re.compile(
    r"(?<!\\)\$\$(?P<display>[^$]+?)(?<!\\)\$\$"
    # "$$x$": an inline formula whose opening dollar the scrape doubled
    r"|(?<![\\$])\$\$(?P<doubled>[^$\s](?:[^$]*?[^$\s\\])?)\$(?![$\d])"
    r"|(?<![\\$])\$(?P<inline>[^$\s](?:[^$]*?[^$\s\\])?)\$(?![$\d])"
    r"|\\\((?P<paren>.+?)\\\)"
    r"|\\\[(?P<bracket>.+?)\\\]",
    re.DOTALL,
)
# The stretches of a text that need the TeX parser: math, a macro with its arguments, a group.
# Everything between them is plain prose, passed through as is: only these stretches go to the
# TeX parser (each cached), which is slow on whole abstracts.
TEX_SPAN = re.compile(
    MATH.pattern
    + r"|\\[A-Za-z]+\*?(?:\s*(?:\[[^\]]*\]|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}))*"
    + r"|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"  # a group: {\it x}, {P}rototypes
    + r"|\\[\"'^`~=.](?:\{[^{}]*\}|[A-Za-z])"  # an accent on a letter
    + r"|\\.",  # an escaped character
    re.DOTALL,
)
TEX_LIGATURES = (
    ("---", "\u2014"),
    ("--", "\u2013"),
    ("``", "\u201c"),
    ("''", "\u201d"),
    ("~", " "),
)
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


def may_hold_tex(text: str) -> bool:
    """Whether text can hold math or a TeX command; most text holds neither, and this test is
    far faster than the regular expressions that would find nothing."""
    return "\\" in text or "$" in text


def plain_text(text: str | None) -> str:
    """Readable plain text for places that cannot hold markup (<title>, meta tags, BibTeX notes):
    TeX rendered to Unicode, Markdown links reduced to their text."""
    if not text:
        return ""
    if "[" in text:  # the cheap test spares most texts the regex scan
        text = MARKDOWN_LINK.sub(r"\1", text)
    if not may_hold_tex(text):  # skip the TeX parser
        return " ".join(text.split())
    return _tex_plain_text(text)


# Only text with TeX is cached: with every text in it, a pass over all titles, abstracts and
# author lists would evict each entry before its next use, parsing TeX again on every pass.
@lru_cache(maxsize=20_000)
def _tex_plain_text(text: str) -> str:
    rendered = TEX_SPAN.sub(lambda match: _tex_to_text(match.group()), text)
    for ligature, character in TEX_LIGATURES:
        rendered = rendered.replace(ligature, character)
    return " ".join(rendered.split())


@lru_cache(maxsize=100_000)  # formulas repeat across abstracts; TeX parsing is slow
def _tex_to_text(tex: str) -> str:
    try:
        # In scraped prose "%" is a percent sign, not the start of a TeX comment.
        return _plain.latex_to_text(UNESCAPED_PERCENT.sub(r"\\%", tex))
    except Exception:  # pylatexenc is tolerant; keep the raw text if it is not
        return tex


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"

"""Scraped text to safe HTML: TeX math to MathML, a few TeX text macros, http(s) links.

Everything else is escaped. Math that does not convert cleanly (an unknown command, an
element or attribute outside the MathML we allow) is shown as its source text instead.
"""

from __future__ import annotations

import re
from functools import lru_cache

from latex2mathml.converter import convert as latex_to_mathml
from markupsafe import Markup, escape

from .plain import MATH, may_hold_tex

TEXT_MACROS = {
    "textit": "em",
    "emph": "em",
    "textbf": "strong",
    "underline": "u",
    "texttt": "code",
    "textsc": "span",
    "textrm": "span",
    "textsf": "span",
    "mathrm": "span",
}
INLINE = re.compile(
    r"\[(?P<link_text>[^\[\]]+)\]\((?P<link_url>[^()\s]+)\)"
    r"|<(?P<autolink>https?://[^<>\s]+)>"
    r"|\\url\{(?P<url_macro>[^{}]+)\}"
    r"|\\(?P<macro>" + "|".join(TEXT_MACROS) + r")\{(?P<macro_arg>[^{}]*)\}"
    r"|(?P<bare_url>https?://[^\s<>\"'\]\[)(]+[^\s<>\"'\]\[)(.,;:!?])"
    r"|``(?P<quoted>[^`']+)''"
    r"|\\(?P<escaped>[%&#_{}$])"
)
SAFE_SCHEMES = ("http://", "https://")
MATHML_TAGS = frozenset(
    """math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mover munder
    munderover mtable mtr mtd mstyle mpadded mphantom menclose merror semantics annotation
    mmultiscripts mprescripts none""".split()
)
MATHML_ATTRIBUTES = frozenset(
    """xmlns display mathvariant stretchy fence separator lspace rspace accent accentunder
    columnalign columnlines columnspacing rowspacing rowlines minsize maxsize movablelimits
    largeop symmetric width height depth linethickness scriptlevel displaystyle notation
    form align""".split()
)


def _mathml_is_safe(mathml: str) -> bool:
    # Imported here, in the page workers that meet math: bs4 is slow to import.
    from bs4 import BeautifulSoup, Tag

    soup = BeautifulSoup(mathml, "html.parser")
    for tag in soup.find_all(True):
        assert isinstance(tag, Tag)
        if tag.name not in MATHML_TAGS:
            return False
        for name, value in tag.attrs.items():
            text = " ".join(value) if isinstance(value, list) else str(value)
            if name not in MATHML_ATTRIBUTES or ":" in text and name != "xmlns":
                return False
        if tag.name in {"mi", "mo", "mtext", "mn"} and (
            "\\" in tag.get_text() or "$" in tag.get_text()
        ):
            return False  # an unknown command or a stray delimiter passed through as text
    return True


@lru_cache(maxsize=20000)
def render_math(tex: str, display: bool) -> Markup:
    """MathML for one formula, or its escaped source (with delimiters) when it does not convert."""
    source = f"$${tex}$$" if display else f"${tex}$"
    try:
        mathml = latex_to_mathml(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many kinds of errors on broken TeX
        return Markup('<span class="tex">{}</span>').format(source)
    if not _mathml_is_safe(mathml):
        return Markup('<span class="tex">{}</span>').format(source)
    return Markup(mathml)


def _link(url: str, text: str | Markup) -> Markup:
    if not url.startswith(SAFE_SCHEMES):
        return escape(text)
    return Markup('<a href="{}" rel="nofollow noopener">{}</a>').format(url, text)


def _may_hold_inline_markup(text: str) -> bool:
    """Whether INLINE can match at all: most text holds none of its openers, and these
    substring tests are far faster than the regex scanning the text to find nothing."""
    return "\\" in text or "[" in text or "<" in text or "://" in text or "``" in text


def _render_inline(text: str) -> Markup:
    if not _may_hold_inline_markup(text):
        return escape(text)
    parts: list[Markup] = []
    position = 0
    for match in INLINE.finditer(text):
        parts.append(escape(text[position : match.start()]))
        parts.append(_render_token(match))
        position = match.end()
    parts.append(escape(text[position:]))
    return Markup("").join(parts)


def _render_token(match: re.Match[str]) -> Markup:
    if match["link_text"] is not None:
        url = match["link_url"]
        if not url.startswith(SAFE_SCHEMES):
            return escape(match["link_text"])
        return _link(url, _render_inline(match["link_text"]))
    if match["autolink"] is not None:
        return _link(match["autolink"], match["autolink"])
    if match["url_macro"] is not None:
        url = match["url_macro"].replace("\\_", "_").strip("<>")
        return _link(url, url) if url.startswith(SAFE_SCHEMES) else escape(url)
    if match["macro"] is not None:
        tag = TEXT_MACROS[match["macro"]]
        return Markup("<{0}>{1}</{0}>").format(Markup(tag), _render_inline(match["macro_arg"]))
    if match["bare_url"] is not None:
        return _link(match["bare_url"], match["bare_url"])
    if match["quoted"] is not None:
        return Markup("“{}”").format(_render_inline(match["quoted"]))
    return escape(match["escaped"])


def render_rich_line(text: str) -> Markup:
    """One paragraph or title: math and inline markup rendered, everything else escaped."""
    if not may_hold_tex(text):  # no math delimiter: skip the MATH scan
        return _render_inline(text)
    parts: list[Markup] = []
    position = 0
    for match in MATH.finditer(text):
        tex = (
            match["display"]
            or match["doubled"]
            or match["inline"]
            or match["paren"]
            or match["bracket"]
        )
        if not tex or not tex.strip():
            continue
        parts.append(_render_inline(text[position : match.start()]))
        # Display math stands alone; inside a sentence the scrape only doubled the dollars.
        alone = not text[: match.start()].strip() and not text[match.end() :].strip()
        display = alone and (match["display"] is not None or match["bracket"] is not None)
        parts.append(render_math(tex.strip(), display=display))
        position = match.end()
    parts.append(_render_inline(text[position:]))
    return Markup("").join(parts)


def render_abstract(abstract: str | None) -> Markup:
    if not abstract:
        return Markup("")
    paragraphs = (render_rich_line(p) for p in abstract.split("\n\n"))
    return Markup("").join(Markup("<p>{}</p>").format(p) for p in paragraphs)

"""Scraped text to safe HTML: TeX math to MathML, a few TeX text macros, http(s) links.

Everything else is escaped. Math that does not convert cleanly (an unknown command, an
element or attribute outside the MathML we allow) is shown as its source text instead.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html.entities import html5 as html5_entities
from html.parser import HTMLParser

from markupsafe import Markup, escape

from .plain import math_spans, may_hold_tex, plain_text

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


def _argument(name: str) -> str:
    """A braced macro argument, with one level of nested braces: "\\footnote{\\url{...}}"."""
    return r"\{(?P<" + name + r">(?:[^{}]|\{[^{}]*\})*)\}"


# Old-style font groups: "{\\bf x}", "{\\textbf P}rototypes".
GROUP_MACROS = {
    "bf": "strong", "textbf": "strong", "it": "em", "em": "em", "textit": "em", "sc": "span"
}
# Each kind of inline token's alternatives, in the order they are tried. Every alternative
# starts with a character, not a group or a lookbehind, so the engine skips to the next place
# one of those characters is instead of trying every alternative at every place: many times
# quicker on long abstracts. A lookbehind comes after the character it follows.
INLINE_TOKENS = {
    "link": r"\[(?P<link_text>[^\[\]]+)\]\((?P<link_url>[^()\s]+)\)",
    "autolink": r"<(?P<autolink>https?://[^<>\s]+)>",
    "url_macro": r"\\url\{(?P<url_macro>[^{}]*)\}",
    "macro": r"\\(?P<macro>" + "|".join(TEXT_MACROS) + r")" + _argument("macro_arg"),
    "group_macro": (
        r"\{\\(?P<group_macro>" + "|".join(GROUP_MACROS) + r")\s+(?P<group_arg>[^{}]*)\}"
    ),
    # A citation key cannot be resolved here; the scrape sometimes lost its backslash.
    "cite": (
        r"\\cite[tp]?\*?" + _argument("cite")
        + r"|c(?<![A-Za-z]c)ite[tp]?\*?" + _argument("bare_cite")
    ),
    "footnote": (
        r"~\\?footnote" + _argument("tied_footnote")
        + r"|\\footnote" + _argument("footnote")
        + r"|f(?<![A-Za-z]f)ootnote" + _argument("bare_footnote")
    ),
    "bare_url": r"h(?P<bare_url>)ttps?://[^\s<>\"'\]\[)(]+[^\s<>\"'\]\[)(.,;:!?]",  # the match
    "quoted": r"``(?P<quoted>[^`'\"\u201d]+)(?:''|[\"\u201d])",
    "bold": r"\*\*(?P<bold>[^*\s](?:[^*]*?[^*\s])?)\*\*",
    "tie": r"~(?<=\w~)(?=[\w\\\[])",  # a space that does not break
    "escaped": r"\\(?P<escaped>[%&#_{}$])",
}
INLINE = re.compile("|".join(INLINE_TOKENS.values()))
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


# Elements whose text is a formula's symbols: a backslash or a dollar there is TeX that did
# not convert (an unknown command, a stray delimiter) passed through as text.
MATHML_TEXT_TAGS = frozenset({"mi", "mo", "mtext", "mn"})


class _MathMLCheck(HTMLParser):
    """Reads latex2mathml's output with the standard library's HTML parser (what
    BeautifulSoup's "html.parser" reads with, without building a tree: it took 0.5 ms a
    formula) and says whether it holds only the MathML we allow. Character references are
    decoded as BeautifulSoup decoded them (a known name with or without its semicolon), so none
    hides a backslash. latex2mathml writes no comment, CDATA, declaration or processing
    instruction: one comes from the scraped TeX, and a browser may end it sooner than this
    parser does (`<!-->` ends a comment), leaving markup after it live."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.safe = True
        self._open: list[str] = []  # the open elements

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._check(tag, attrs)
        self._open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._check(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:  # closes it and whatever it left open, as a tree builder does
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        if ("\\" in data or "$" in data) and not MATHML_TEXT_TAGS.isdisjoint(self._open):
            self.safe = False

    def handle_entityref(self, name: str) -> None:
        self.handle_data(html5_entities.get(f"{name};") or html5_entities.get(name) or "")

    def handle_charref(self, name: str) -> None:
        try:
            code = int(name[1:], 16) if name[:1] in "xX" else int(name)
            self.handle_data(chr(code))
        except (ValueError, OverflowError):
            pass

    def _not_written_by_latex2mathml(self, data: str) -> None:
        self.safe = False

    handle_comment = handle_decl = handle_pi = unknown_decl = _not_written_by_latex2mathml

    def _check(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in MATHML_TAGS:
            self.safe = False
        for name, value in attrs:
            if name not in MATHML_ATTRIBUTES or ":" in (value or "") and name != "xmlns":
                self.safe = False


def _mathml_is_safe(mathml: str) -> bool:
    check = _MathMLCheck()
    try:
        check.feed(mathml)
        check.close()
    except AssertionError:  # markup the parser cannot read ("<![foo[") is not ours
        return False
    return check.safe


@lru_cache(maxsize=20000)
def render_math(tex: str, display: bool) -> Markup:
    """MathML for one formula, or its escaped source (with delimiters) when it does not convert."""
    # Imported here, once a text holds math: most programs hold none, and the converter with
    # the standard library's URL and SSL modules it imports was most of rendering's imports.
    from latex2mathml.converter import convert as latex_to_mathml

    source = f"$${tex}$$" if display else f"${tex}$"
    try:
        mathml = latex_to_mathml(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many kinds of errors on broken TeX
        return Markup('<span class="tex">{}</span>').format(source)
    if not _mathml_is_safe(mathml):
        return Markup('<span class="tex">{}</span>').format(source)
    return Markup(mathml)


# TeX's named symbols, and the abbreviation macros of common conference styles (cvpr.sty's
# \\eg, \\ie, \\etal), in prose: what they print.
TEX_SYMBOLS = {
    "LaTeX": "LaTeX", "TeX": "TeX", "textdegree": "°", "L": "Ł", "l": "ł", "o": "ø",
    "O": "Ø", "ss": "ß", "ae": "æ", "AE": "Æ", "eg": "e.g.", "ie": "i.e.", "etal": "et al.",
}
# A letter macro takes the space after it ("\\L ojasiewicz"); a word macro leaves it ("\\eg x").
LETTER_MACROS = ("L", "l", "o", "O", "ss", "ae", "AE")
TEX_SYMBOL = re.compile(
    r"\\(?:(" + "|".join(LETTER_MACROS) + r")(?![A-Za-z])(?:\{\}| )?"
    r"|(" + "|".join(set(TEX_SYMBOLS) - set(LETTER_MACROS)) + r")(?![A-Za-z])(?:\{\})?)"
)
# "\\text{\\texttt{x}}": latex2mathml takes the inner macro only without the wrapper.
NESTED_TEXT = re.compile(r"\\text\{(\\(?:texttt|textbf|textit|textsf|mathrm)\{[^{}]*\})\}")
# Text set in math mode: "$\\text{\\textit{COCOA}}$", "$\\textbf{Name}$".
TEXT_WRAPPER = re.compile(r"\\(?:text|mbox|mathrm)\s*\{((?:[^{}]|\{[^{}]*\})*)\}")


def _render_formula(tex: str, display: bool) -> Markup:
    """MathML for a formula; a "formula" that is only text in a text macro, which MathML
    cannot take, is rendered as the text it is."""
    if "``" in tex:  # a TeX opening quote in a text macro; MathML shows it as two backticks
        tex = tex.replace("``", "\u201c")
    tex = NESTED_TEXT.sub(r"\1", tex)
    rendered = render_math(tex, display)
    if not rendered.startswith('<span class="tex">'):
        return rendered
    text = tex
    while unwrapped := TEXT_WRAPPER.fullmatch(text.strip()):
        text = unwrapped.group(1)
    if text.startswith("\\") and not re.search(r"[\^_]", text):
        as_text = _render_inline(text)
        if "\\" not in as_text and "{" not in as_text:
            return as_text
        plain = plain_text(text)  # accents: "\\texttt{Poincar\\'e probe}"
        if "\\" not in plain and "{" not in plain:
            return escape(plain)
    return rendered


def _link(url: str, text: str | Markup) -> Markup:
    if not url.startswith(SAFE_SCHEMES):
        return escape(text)
    return Markup('<a href="{}" rel="nofollow noopener">{}</a>').format(url, text)


def _may_hold_inline_markup(text: str) -> bool:
    """Whether INLINE can match at all: most text holds none of its openers, and these
    substring tests are far faster than the regex scanning the text to find nothing."""
    return (
        "\\" in text
        or "[" in text
        or "<" in text
        or "://" in text
        or "``" in text
        or "**" in text
        or "{" in text
        or "~" in text
    )


# Tested with `is not None`: bare_url's group is empty, marking the match, which is the URL.
LINK_TOKENS = ("link_text", "autolink", "url_macro", "bare_url")


def _prose(text: str) -> Markup:
    """Escaped text, with TeX's named symbols printed."""
    escaped = escape(text)
    if "\\" not in text:
        return escaped
    return Markup(
        TEX_SYMBOL.sub(lambda match: TEX_SYMBOLS[match.group(1) or match.group(2)], str(escaped))
    )


def _render_inline(text: str, in_link: bool = False) -> Markup:
    """`in_link`: inside a link's text, where another link cannot be (a Markdown link whose
    text is its own URL)."""
    if not _may_hold_inline_markup(text):
        return escape(text)
    parts: list[Markup] = []
    position = 0
    for match in INLINE.finditer(text):
        parts.append(_prose(text[position : match.start()]))
        if in_link and any(match[name] is not None for name in LINK_TOKENS):
            parts.append(escape(match["link_text"] or match.group().strip("<>")))
        else:
            parts.append(_render_token(match))
        position = match.end()
    parts.append(_prose(text[position:]))
    return _joined(parts)


def _render_token(match: re.Match[str]) -> Markup:
    if match["link_text"] is not None:
        url = match["link_url"]
        if not url.startswith(SAFE_SCHEMES):
            return _render_inline(match["link_text"])
        return _link(url, _render_inline(match["link_text"], in_link=True))
    if match["autolink"] is not None:
        return _link(match["autolink"], match["autolink"])
    if match["url_macro"] is not None:
        url = match["url_macro"].replace("\\_", "_").strip("<>")
        return _link(url, url) if url.startswith(SAFE_SCHEMES) else _render_inline(url)
    if match["macro"] is not None:
        tag = TEXT_MACROS[match["macro"]]
        return Markup("<{0}>{1}</{0}>").format(Markup(tag), _render_inline(match["macro_arg"]))
    if match["group_macro"] is not None:
        tag = GROUP_MACROS[match["group_macro"]]
        return Markup("<{0}>{1}</{0}>").format(Markup(tag), _render_inline(match["group_arg"]))
    if (cite := _either(match, "cite", "bare_cite")) is not None:
        return Markup('<span class="cite">[{}]</span>').format(cite)
    if (footnote := _either(match, "footnote", "tied_footnote", "bare_footnote")) is not None:
        return Markup(" ({})").format(_render_inline(footnote.strip()))
    if match["bare_url"] is not None:
        return _link(match.group(), match.group())
    if match["quoted"] is not None:
        return Markup("“{}”").format(_render_inline(match["quoted"]))
    if match["bold"] is not None:
        return Markup("<strong>{}</strong>").format(_render_inline(match["bold"]))
    if match["escaped"] is not None:
        return escape(match["escaped"])
    return Markup("\u00a0")  # a tie


def _either(match: re.Match[str], *groups: str) -> str | None:
    """The text of whichever of these groups, one token's forms, matched."""
    return next((match[group] for group in groups if match[group] is not None), None)


def render_rich_line(text: str) -> Markup:
    """One paragraph or title: math and inline markup rendered, everything else escaped."""
    if not may_hold_tex(text):  # no math delimiter: skip the MATH scan
        return _render_inline(text)
    parts: list[Markup] = []
    position = 0
    for span in math_spans(text):
        parts.append(_render_inline(text[position : span.start]))
        # Display math stands alone; inside a sentence the scrape only doubled the dollars.
        alone = not text[: span.start].strip() and not text[span.end :].strip()
        parts.append(_render_formula(span.tex, display=alone and span.display))
        position = span.end
    parts.append(_render_inline(text[position:]))
    return _joined(parts)


def render_abstract(abstract: str | None) -> Markup:
    if not abstract:
        return Markup("")
    paragraphs = [render_rich_line(p) for p in abstract.split("\n\n")]
    return Markup(f"<p>{_joined(paragraphs, '</p><p>')}</p>")


def _joined(parts: list[Markup], separator: str = "") -> Markup:
    """Markup made of markup, joined as text: `Markup.join` escapes each part again, copying
    every one (an abstract with math is a few dozen), though markup escapes to itself."""
    if not all(type(part) is Markup for part in parts):
        raise TypeError("internal error: only markup is joined as it is")
    return Markup(separator.join(parts))

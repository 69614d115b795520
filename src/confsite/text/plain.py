"""TeX and Markdown in scraped text reduced to readable plain text (for keys, titles, meta)."""

from __future__ import annotations

import logging
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

# Where a formula may start: "$$", "$", "\\(" or "\\[", not escaped (see `UnescapedFinder`).
MATH_OPENERS = ("$", "\\(", "\\[")
MATH_CLOSER = {"\\(": re.compile(r"\\\)"), "\\[": re.compile(r"\\\]")}
# Words a formula does not hold: three in a row, or a sentence's end, mean the dollars paired
# across prose ("costs $5 and ... $10"), not around math. Text macros' arguments do not count.
TEXT_ARGUMENT = re.compile(
    r"\\(?:text[a-z]*|mathrm|operatorname\*?|mbox|emph|math[a-z]+)\s*\{[^{}]*\}"
)
PROSE_IN_MATH = re.compile(
    r"(?<![\\A-Za-z])[A-Za-z]{2,}[,;:]?\s+[A-Za-z]{2,}[,;:]?\s+[A-Za-z]{2,}(?![A-Za-z])"
    r"|[a-z]{2,}[.!?]\s+[A-Z][a-z]"
)
# "\\{" in inline math is a scraped "\{" with its backslash doubled, not a line break.
DOUBLED_ESCAPE = re.compile(r"\\\\(?=[{}%&#_$|,;!])")


@dataclass(frozen=True)
class MathSpan:
    start: int
    end: int
    tex: str
    display: bool  # delimited as display math ("$$...$$", "\\[...\\]")


def _reads_as_math(tex: str) -> bool:
    return bool(tex.strip()) and not PROSE_IN_MATH.search(TEXT_ARGUMENT.sub(" x ", tex))


def undo_doubled_escapes(tex: str) -> str:
    if "\\\\" not in tex or "&" in tex or "\\begin" in tex:  # an array's rows are real breaks
        return tex
    return DOUBLED_ESCAPE.sub(r"\\", tex)


class UnescapedFinder:
    """Finds the first of some delimiters not preceded by a backslash. Every such place is
    found once, by `str.find` (a pattern that starts with a lookbehind is tried at every
    character), and each search is a bisection of them: `math_spans` searches a text a
    few dozen times."""

    def __init__(self, text: str, delimiters: tuple[str, ...]) -> None:
        places = [at for delimiter in delimiters for at in _unescaped_places(text, delimiter)]
        self._places = sorted(places) if len(delimiters) > 1 else places

    def find(self, position: int) -> int:
        """Where the first unescaped delimiter at or after `position` starts; -1 if none."""
        index = bisect_left(self._places, position)
        return self._places[index] if index < len(self._places) else -1


def _unescaped_places(text: str, delimiter: str) -> list[int]:
    """Where `delimiter` starts in `text`, in order, except where a backslash precedes it."""
    places, at = [], text.find(delimiter)
    while at >= 0:
        if at == 0 or text[at - 1] != "\\":
            places.append(at)
        at = text.find(delimiter, at + 1)
    return places


def math_spans(text: str) -> list[MathSpan]:
    """The formulas of a text, with TeX's own rule: each dollar closes the one before it.

    A pair is a formula only as pandoc would take it (no space just inside the dollars) and
    when it does not read as prose; otherwise its opening dollar is a plain dollar and the
    closing one may open the next formula. A dollar left without a partner (an abstract cut
    off inside a formula) stays text. A scrape's "$$x$" (an inline formula with a doubled
    opening dollar) is inline math."""
    if not may_hold_tex(text):
        return []
    spans: list[MathSpan] = []
    position = 0
    openers, dollars = UnescapedFinder(text, MATH_OPENERS), UnescapedFinder(text, ("$",))
    while (start := openers.find(position)) >= 0:
        if text[start] != "$":
            delimiter = text[start : start + 2]
        else:
            delimiter = "$$" if text.startswith("$$", start) else "$"
        opened = start + len(delimiter)
        if delimiter in MATH_CLOSER:
            closer = MATH_CLOSER[delimiter].search(text, opened)
            if closer and _reads_as_math(text[opened : closer.start()]):
                tex = text[opened : closer.start()].strip()
                spans.append(MathSpan(start, closer.end(), tex, delimiter == "\\["))
                position = closer.end()
            else:
                position = opened
            continue
        closing = dollars.find(opened)
        if closing < 0:
            break
        tex = text[opened:closing]
        display = delimiter == "$$" and text.startswith("$$", closing)
        end = closing + (2 if display else 1)
        if delimiter == "$$" and not display:  # "$$x$": judged as the inline formula it is
            delimiter = "$"
        spaced = delimiter == "$" and (tex[:1].isspace() or tex[-1:].isspace() or tex[-1:] == "\\")
        if spaced or not _reads_as_math(tex):
            position = opened if display else closing
            if position <= start:
                position = start + 1
            continue
        spans.append(MathSpan(start, end, undo_doubled_escapes(tex.strip()), display))
        position = end
    return spans


# The stretches of prose that need the TeX parser: a macro with its arguments, a group. Math
# (see `math_spans`) goes to it whole; everything else is passed through as is: only these
# stretches go to the TeX parser (each cached), which is slow on whole abstracts.
TEX_SPAN = re.compile(
    r"\\[A-Za-z]+\*?(?:\s*(?:\[[^\]]*\]|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}))*"
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
# Markup reduced to its text before TeX is: bold, citations (the scrape sometimes lost the
# backslash), footnotes, URLs, quotes closed by a straight quote. Each with a string its
# matches hold: a pattern that starts with a lookbehind is tried at every character, 0.5 ms
# on a long abstract, so it runs only where that string is found.
PLAIN_MARKUP = (
    ("**", re.compile(r"\*\*([^*\s](?:[^*]*?[^*\s])?)\*\*"), r"\1"),
    ("cite", re.compile(r"(?:\\|(?<![A-Za-z]))cite[tp]?\*?\{([^{}]*)\}"), r"[\1]"),
    (
        "footnote",
        re.compile(r"~?(?:\\|(?<![A-Za-z]))footnote\{((?:[^{}]|\{[^{}]*\})*)\}"),
        r" (\1)",
    ),
    ("\\url", re.compile(r"\\url\{([^{}]*)\}"), r"\1"),
    ("``", re.compile(r"``([^`'\"]+)(?:''|\")"), "\u201c\\1\u201d"),
)
UNESCAPED_PERCENT = re.compile(r"(?<!\\)%")


def _argument_text(node, l2tobj) -> str:  # noqa: ANN001 - pylatexenc's callback
    """A macro's arguments as text; nothing for a macro the scrape cut from its argument."""
    arguments = node.nodeargd.argnlist if node.nodeargd is not None else []
    return "".join(l2tobj.nodelist_to_text([argument]) for argument in arguments if argument)


def _latex_context():
    """pylatexenc's defaults drop the argument of a few text macros (keep their text), and
    turn a bare url or cite macro into `<%s>` or `<cit.>`, a reference into `<ref>` (give
    nothing)."""
    context = get_default_latex_context_db()
    keep = [MacroTextSpec(name, "%(1)s") for name in ("texttt", "textsf", "textsc", "mathtt")]
    keep += [MacroTextSpec(name, _argument_text) for name in ("url", "cite", "citep", "citet")]
    # A cross-reference's key ("fig:loss") means nothing outside the paper.
    keep += [MacroTextSpec(name, "") for name in ("ref", "eqref", "label", "nocite")]
    context.add_context_category("confsite-text", macros=keep, prepend=True)
    return context


_plain = LatexNodes2Text(
    latex_context=_latex_context(), math_mode="text", strict_latex_spaces=False
)
# The parser's table of TeX's macros, made once: a parser given none builds it anew, which
# took as long as parsing a short formula.
_parsing_context = latexwalker.get_default_latex_context_db()


class _Complaints(logging.Handler):
    """Counts pylatexenc's warnings. For a macro it cannot fill in ("$\\frac$") it logs a
    warning and returns its format string ("%s/%s") in the text; a formula it complained of is
    kept as written instead. The warnings, which name no file or line, stay off stderr."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


_complaints = _Complaints()
logging.getLogger("pylatexenc").addHandler(_complaints)
logging.getLogger("pylatexenc").propagate = False


def single_spaced(text: str) -> str:
    """`" ".join(text.split())`: every white-space run one space, none at the ends (str.split
    splits on exactly what `\\s` matches, far quicker than a pattern). Printable text holds no
    white space but the space, so one without two in a row is only trimmed: splitting a long
    abstract to join it again costs more than these tests."""
    if text.isprintable() and "  " not in text:
        return text.strip()
    return " ".join(text.split())


def may_hold_tex(text: str) -> bool:
    """Whether text can hold math or a TeX command; most text holds neither, and this test is
    far faster than the regular expressions that would find nothing."""
    return "\\" in text or "$" in text


# What keeps a text from being plain (see `is_plain`): `may_hold_tex`'s marks, a Markdown
# link's bracket, a string `PLAIN_MARKUP` looks for. One pattern, made from them, scans a text
# once: a generator testing each took half as long again.
NOT_PLAIN = re.compile(
    "|".join(map(re.escape, ("\\", "$", "[", *(held for held, _, _ in PLAIN_MARKUP))))
)


def is_plain(text: str) -> bool:
    """Whether `plain_text` leaves text as it is but for its white space: it holds no TeX,
    no Markdown link and no markup `PLAIN_MARKUP` reduces."""
    return NOT_PLAIN.search(text) is None


# Plain texts made by `plain_text` in another process of the build, by their text: a full
# build's corpus worker makes every abstract's for the index, which paper pages and the
# downloads need too (see `take_plain_texts`).
_made_elsewhere: dict[str, str] = {}


def take_plain_texts(made: dict[str, str]) -> None:
    """What `plain_text` made of these texts in another process, taken as made here: for an
    abstract with TeX, parsing it again would cost a page worker as much as it did there."""
    _made_elsewhere.update(made)


# A paper's abstract and title are made plain several times in a row (a paper page's
# description, meta tags, JSON-LD and RIS record; its index terms and search snippet): a
# short memory spares the repeats without holding a corpus.
@lru_cache(maxsize=256)
def plain_text(text: str | None) -> str:
    """Readable plain text for places that cannot hold markup (<title>, meta tags, BibTeX notes):
    TeX rendered to Unicode, Markdown links reduced to their text."""
    if not text:
        return ""
    made = _made_elsewhere.get(text)
    if made is not None:
        return made
    if is_plain(text):  # most text: nothing to reduce, no TeX parser
        return single_spaced(text)
    return reduced_to_plain(text)


def reduced_to_plain(text: str) -> str:
    """`plain_text` of a text that is not `is_plain`: its links, markup and TeX reduced."""
    if "[" in text:  # the cheap test spares most texts the regex scan
        text = MARKDOWN_LINK.sub(r"\1", text)
    for held, markup, replacement in PLAIN_MARKUP:
        if held in text:
            text = markup.sub(replacement, text)
    if not may_hold_tex(text):  # skip the TeX parser
        return single_spaced(text)
    return _tex_plain_text(text)


# Text with TeX is also kept here, long enough to outlast a pass over the corpus; only that
# text, as with every text in it a pass over all titles, abstracts and author lists would
# evict each entry before its next use, parsing TeX again on every pass.
@lru_cache(maxsize=20_000)
def _tex_plain_text(text: str) -> str:
    pieces, position = [], 0
    for span in math_spans(text):
        pieces.append(_prose_plain_text(text[position : span.start]))
        pieces.append(_tex_to_text(f"${span.tex}$"))
        position = span.end
    pieces.append(_prose_plain_text(text[position:]))
    rendered = "".join(pieces)
    for ligature, character in TEX_LIGATURES:
        rendered = rendered.replace(ligature, character)
    return single_spaced(rendered)


def _prose_plain_text(text: str) -> str:
    if "\\" not in text and "{" not in text:  # no TeX: most prose between formulas
        return text
    return TEX_SPAN.sub(lambda match: _tex_to_text(match.group()), text)


@lru_cache(maxsize=100_000)  # formulas repeat across abstracts; TeX parsing is slow
def _tex_to_text(tex: str) -> str:
    complained = _complaints.count
    try:
        # In scraped prose "%" is a percent sign, not the start of a TeX comment.
        escaped = UNESCAPED_PERCENT.sub(r"\\%", tex)
        text = next(_from_own_frame(_plain.latex_to_text, escaped, latex_context=_parsing_context))
    except Exception:  # pylatexenc is tolerant; keep the raw text if it is not
        return tex
    return tex if _complaints.count != complained else text


def _from_own_frame(work: Callable[..., str], *args: Any, **kwargs: Any) -> Iterator[str]:
    """`work`'s result, called from a generator's frame. The TeX parser keeps the end of the
    text's exception in its frame: a cycle holding that frame's callers, and all they hold
    until a collection. Called from here, they are this generator's frame, not ours."""
    yield work(*args, **kwargs)


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"

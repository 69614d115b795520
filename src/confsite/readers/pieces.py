"""The pre-pass of the general reader: any program text becomes a list of pieces, the logical
lines a reader sees, with the markup that told them apart turned into features.

HTML is walked as a tree; Markdown is first rendered to HTML (raw HTML inside it included), so
both arrive alike: a block element or a `<br>` ends a piece, and a piece that is wholly bold,
italic, a link or a heading says so. Plain text (copied from a browser, or captured by a text
browser) is taken line by line, after hard-wrapped lines are joined and `[12]` link references
are resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .base import SourceText
from .html_text import html_tree
from .line_kinds import WORD_CHARACTER, fact_of

if TYPE_CHECKING:
    from bs4 import Tag

SPACES = re.compile(r"\s+")
HEADING_TAG = re.compile(r"h[1-6]")
NON_WORD_RUN = re.compile(r"[^\w]+")
WORD_GAPS = re.compile(r"[\s,;.·]+")


@dataclass(frozen=True)
class Piece:
    """One logical line: its text without markup, where it came from, and how it was marked."""

    line: int  # file line
    text: str
    block: int  # pieces of one block element (a paragraph, a list item) share this number
    tag: str = ""  # the block element: p, li, h2, td, summary; "" for plain text
    strong: bool = False  # wholly bold
    emphasis: bool = False  # wholly italic
    underlined: bool = False  # wholly underlined (a track or area name under a title)
    linked: bool = False  # wholly the text of one link
    links: tuple[str, ...] = ()
    gap: int = 0  # blank lines before it (plain text only)
    column: str = ""  # a table cell's column heading
    quoted: bool = False  # inside a blockquote (a README's blurb under a paper)
    last_line: int = 0  # the last file line of a hard-wrapped piece joined back (0: `line`)

    @property
    def end(self) -> int:
        return max(self.line, self.last_line)

    @property
    def heading(self) -> int:
        return int(self.tag[1]) if HEADING_TAG.fullmatch(self.tag) else 0


# --- HTML and Markdown ----------------------------------------------------------------------

SKIPPED = frozenset(
    "script style noscript template head svg button form select option input iframe img".split()
)
BLOCKS = frozenset(
    """address article aside blockquote dd details div dl dt fieldset figcaption figure footer
    h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody thead tfoot tr
    td th ul body html center""".split()
)
STRONG = frozenset({"b", "strong"})
EMPHASIS = frozenset({"i", "em"})
UNDERLINE = frozenset({"u", "ins"})
# A run shorter than this does not split a piece: "A* search" and a bold initial stay whole.
SPLIT_RUN_CHARACTERS = 12
# Beside this many plain words, styled runs are emphasis inside a paragraph (an abstract's
# bold terms), not fields of their own.
INLINE_STYLE_WORDS = 25


@dataclass
class _Run:
    text: str
    strong: bool
    emphasis: bool
    href: str | None
    underlined: bool = False

    @property
    def styled(self) -> bool:
        return self.strong or self.emphasis or self.underlined or self.href is not None

    @property
    def style(self) -> tuple[bool, bool, bool, bool]:
        return (self.strong, self.emphasis, self.underlined, self.href is not None)


class _Walker:
    """Collects runs of styled text per block and turns each block into pieces."""

    def __init__(self) -> None:
        self.pieces: list[Piece] = []
        self.runs: list[_Run] = []
        self.block = 0
        self.tag = ""
        self.line = 1
        self.column = ""
        self.headings: list[str] = []  # the current table's column headings
        self.quotes = 0  # blockquotes open around the current block

    def walk(
        self, node: Tag, strong: bool = False, emphasis: bool = False, href=None, under=False
    ) -> None:
        from bs4.element import Comment, Doctype, NavigableString, ProcessingInstruction, Tag

        for child in node.children:
            if isinstance(child, Comment | Doctype | ProcessingInstruction):
                continue
            if isinstance(child, NavigableString):
                if str(child).strip() and not self.runs:
                    self.line = getattr(child.parent, "sourceline", None) or self.line
                self.runs.append(_Run(str(child), strong, emphasis, href, under))
            elif isinstance(child, Tag):
                self.visit(child, strong, emphasis, href, under)

    def visit(self, tag: Tag, strong: bool, emphasis: bool, href, under: bool) -> None:
        name = tag.name.lower()
        if name in SKIPPED:
            return
        if name == "br":
            self.runs.append(_Run("\n", strong, emphasis, href, under))
            return
        if name in STRONG or (name == "span" and "bold" in str(tag.get("style", ""))):
            strong = True
        if name in EMPHASIS:
            emphasis = True
        under = under or name in UNDERLINE
        if name == "a" and tag.get("href"):
            href = str(tag["href"])
        if name not in BLOCKS:
            self.walk(tag, strong, emphasis, href, under)
            return
        self.end_block()
        outer = (self.tag, self.column)
        self.tag, self.line = name, tag.sourceline or self.line
        self.quotes += name == "blockquote"
        if name == "tr":
            self.table_row(tag)
        else:
            self.walk(tag, strong, emphasis, href, under)
        self.end_block()
        self.quotes -= name == "blockquote"
        self.tag, self.column = outer

    def table_row(self, row: Tag) -> None:
        cells = row.find_all(["td", "th"], recursive=False)
        if cells and all(cell.name == "th" for cell in cells):
            self.headings = [SPACES.sub(" ", c.get_text(" ")).strip() for c in cells]
        self.end_block()
        for index, cell in enumerate(cells):  # the cells of a row share one block
            self.tag = cell.name
            self.column = self.headings[index] if index < len(self.headings) else ""
            self.walk(cell)
            self.end_block(same_block=True)
        self.block += 1

    def end_block(self, same_block: bool = False) -> None:
        runs, self.runs = self.runs, []
        for line_runs in _split_at_breaks(runs):
            for part in _split_at_style(line_runs):
                piece = _piece_of(part, self.line, self.block, self.tag, self.column)
                if piece is not None:
                    self.pieces.append(replace(piece, quoted=self.quotes > 0))
        if not same_block:
            self.block += 1


def _split_at_breaks(runs: list[_Run]) -> list[list[_Run]]:
    lines: list[list[_Run]] = [[]]
    for run in runs:
        parts = run.text.split("\n") if run.text == "\n" or "\n" not in run.text else [run.text]
        if run.text == "\n":
            lines.append([])
            continue
        lines[-1].extend(replace(run, text=part) for part in parts)
    return lines


def _split_at_style(runs: list[_Run]) -> list[list[_Run]]:
    """A line whose bold, italic or linked part stands beside plain text of its own is two
    pieces (`Authors, <b>Title</b>`; `[Title](url) by A, B`); short styled runs stay inline."""
    styled = [r for r in runs if r.styled]
    plain = "".join(r.text for r in runs if not r.styled)
    styled_text = "".join(r.text for r in styled)
    if not styled or len(styled_text.strip()) < SPLIT_RUN_CHARACTERS:
        return [runs]
    if len(_words(plain)) >= INLINE_STYLE_WORDS:
        return [runs]
    if len(_words(plain)) < 2 and not _has_two_long_styles(styled):
        return [runs]
    parts: list[list[_Run]] = []
    for run in runs:
        if (
            parts
            and parts[-1][0].style == run.style
            or parts
            and not WORD_CHARACTER.search(run.text)  # spaces and punctuation between two runs
        ):
            parts[-1].append(run)
        else:
            parts.append([run])
    return parts


def _has_two_long_styles(styled: list[_Run]) -> bool:
    """`[Title](url) _A, B_`: two differently styled runs, each too long to be inline."""
    styles = {r.style for r in styled if len(r.text.strip()) >= SPLIT_RUN_CHARACTERS}
    return len(styles) >= 2


def _words(text: str) -> list[str]:
    return [w for w in WORD_GAPS.split(text) if WORD_CHARACTER.search(w)]


def _piece_of(runs: list[_Run], line: int, block: int, tag: str, column: str) -> Piece | None:
    text = SPACES.sub(" ", "".join(r.text for r in runs)).strip()
    if not text:
        return None
    content = [r for r in runs if r.text.strip()]
    links = tuple(dict.fromkeys(r.href for r in content if r.href))
    return Piece(
        line=line,
        text=text,
        block=block,
        tag=tag,
        strong=all(r.strong for r in content),
        emphasis=all(r.emphasis for r in content),
        underlined=all(r.underlined for r in content),
        linked=len(links) == 1 and all(r.href for r in content),
        links=links,
        column=column,
    )


def pieces_from_html(html: str, finder: _LineFinder | None = None) -> list[Piece]:
    """Pieces of a page; `finder` places them in the file the page was made from (Markdown),
    else they keep the page's own lines and the finder of the page gives where they end."""
    walker = _Walker()
    walker.walk(html_tree(html))
    walker.end_block()
    if finder is None:
        ends = _LineFinder(html)
        return [replace(p, last_line=ends.end(p, p.line)) for p in walker.pieces]
    placed = []
    for piece in walker.pieces:
        line = finder(piece)
        placed.append(replace(piece, line=line, last_line=finder.end(piece, line)))
    return placed


FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
# READMEs wrap Markdown in HTML blocks (`<details>`, `<div align="center">`); marked so, the
# renderer reads the Markdown inside them too.
HTML_BLOCK_OPENER = re.compile(
    r"^<(details|div|center|section)\b(?![^>]*\bmarkdown=)([^>]*)>", re.M
)
# A list right under a paragraph line starts a list (as CommonMark and GitHub read it), where
# the renderer would run it into the paragraph.
LIST_AFTER_PARAGRAPH = re.compile(
    r"^((?!\s{0,3}(?:[-*+]|\d+\.)\s)(?!\s*[|>#<])\s{0,3}\S[^\n]*\n)(\s{0,3}[-*+]\s+\S)", re.M
)
FENCED_CODE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def pieces_from_markdown(text: str) -> list[Piece]:
    """Markdown rendered to HTML; each piece's line is found by looking its text up in the file,
    in order, since the renderer keeps no line numbers."""
    import markdown

    body = FENCED_CODE.sub(_blank_lines, FRONT_MATTER.sub(_blank_lines, text))
    body = HTML_BLOCK_OPENER.sub(r'<\1 markdown="1"\2', body)
    body = LIST_AFTER_PARAGRAPH.sub("\\1\n\\2", body)
    html = markdown.markdown(body, extensions=["tables", "md_in_html"], output_format="html")
    return pieces_from_html(html, _LineFinder(text))


def _blank_lines(match: re.Match[str]) -> str:
    return "\n" * match.group(0).count("\n")


class _LineFinder:
    """The file line of each piece: the first line at or after the previous piece's line that
    holds the piece's first words."""

    def __init__(self, text: str) -> None:
        self.lines = [_plain(line) for line in text.split("\n")]
        self.at = 0

    def __call__(self, piece: Piece) -> int:
        probe = _plain(piece.text)[:24]
        for index in range(self.at, len(self.lines)):
            if probe and probe in self.lines[index]:
                self.at = index
                return index + 1
        return self.at + 1

    def end(self, piece: Piece, line: int) -> int:
        """The line holding the piece's last words, within a few dozen lines of its start: a
        wrapped paragraph spans them all."""
        probe = _plain(piece.text)[-24:]
        for index in range(line - 1, min(line + 60, len(self.lines))):
            if probe and probe in self.lines[index]:
                return index + 1
        return line


def _plain(text: str) -> str:
    return NON_WORD_RUN.sub("", text).casefold()


# --- plain text ---------------------------------------------------------------------------

LINK_REFERENCE = re.compile(r"\[(\d{1,5})\]")
REFERENCE_ENTRY = re.compile(r"^\s*(?:(\d{1,5})\.|\[(\d{1,5})\])\s+(\S+)\s*$")  # lynx, w3m
REFERENCES_HEADING = re.compile(r"^\s*(References:?|Visible links:?|Hidden links:?)\s*$")
TEXT_BROWSER_REFERENCE = re.compile(r"\[\d{1,5}\](?=[^\s(\]])")
# Form controls and separator rules a text browser draws; they carry no words.
TEXT_BROWSER_MARKS = re.compile(r"\((?:BUTTON|IMAGE|FORM)\)\s*")
# Columns at the right edge a text browser may leave empty before it wraps.
WRAP_MARGIN = 8
RULE = re.compile(r"^\s*[_=~-]{6,}\s*$")
MARKDOWN_LINK = re.compile(r"\]\([^)\s]*\)")
BULLET = re.compile(r"^\s*(?:[*+•◦▪‣-]|\d{1,4}[.)])\s+")


def pieces_from_text(source: SourceText) -> list[Piece]:
    lines = source.lines
    references, end = _reference_list(lines)
    lines = lines[:end]
    width = wrap_width(lines)
    pieces: list[Piece] = []
    gap = 0
    for number, raw in enumerate(lines, start=1):
        text = TEXT_BROWSER_MARKS.sub("", raw).rstrip()
        if not text.strip() or RULE.match(text):
            gap += 1
            continue
        links = tuple(references[n] for n in LINK_REFERENCE.findall(text) if n in references)
        linked = text.lstrip().startswith("[") and bool(links)
        clean = SPACES.sub(" ", LINK_REFERENCE.sub("", text)).strip()
        if not clean:
            continue
        previous = pieces[-1] if pieces else None
        if (
            previous is not None
            and gap == 0
            and _continues(previous, lines[number - 2], raw, width)
        ):
            pieces[-1] = replace(
                previous,
                text=_join(previous.text, clean),
                links=previous.links + links,
                last_line=source.file_line(number),
            )
            continue
        item = bool(BULLET.match(raw))
        pieces.append(
            Piece(
                line=source.file_line(number),
                text=BULLET.sub("", clean) if item else clean,
                block=len(pieces),
                tag="li" if item else "",
                linked=linked,
                links=links,
                gap=gap,
            )
        )
        gap = 0
    return pieces


def _reference_list(lines: list[str]) -> tuple[dict[str, str], int]:
    """A text browser's numbered lists of link targets ("Visible links", "Hidden links") that
    end the capture: the targets by number, and where the lists start."""
    start = len(lines)
    while start > 0 and _in_reference_list(lines[start - 1]):
        start -= 1
    block = lines[start:]
    if not any(REFERENCES_HEADING.match(line) for line in block):
        return {}, len(lines)
    entries = {m[1] or m[2]: m[3] for line in block if (m := REFERENCE_ENTRY.match(line))}
    return (entries, start) if entries else ({}, len(lines))


def _in_reference_list(line: str) -> bool:
    return not line.strip() or bool(REFERENCES_HEADING.match(line) or REFERENCE_ENTRY.match(line))


def is_text_browser_capture(text: str) -> bool:
    """A page dumped by lynx or w3m: its links became `[12]` references, which outnumber any
    Markdown links (a bullet menu there would otherwise make it look like Markdown)."""
    references = len(TEXT_BROWSER_REFERENCE.findall(text))
    return references >= 5 and references > 2 * len(MARKDOWN_LINK.findall(text))


def wrap_width(lines: list[str]) -> int | None:
    """The column a text browser wrapped at, when the file evidently was wrapped: many lines
    end within a few columns of one width and hardly any goes past it (a long URL can)."""
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    if len(lengths) < 20:
        return None
    longest = lengths[len(lengths) - 1 - len(lengths) // 200]
    if longest > 140:
        return None
    near = sum(1 for length in lengths if length >= longest - 12)
    return longest if near >= 0.15 * len(lengths) and near >= 10 else None


def _continues(previous: Piece, previous_raw: str, raw: str, width: int | None) -> bool:
    """A line is the wrapped rest of the one above when that one could not fit its first word
    (or the first part of a hyphenated one), give or take the few columns browsers keep free."""
    if width is None or previous.tag == "li" and BULLET.match(raw):
        return False
    if previous_raw.rstrip().endswith(","):
        return not BULLET.match(raw)  # a list (keywords, names) running on to the next line
    if BULLET.match(raw) and not _is_wrapped_marker(previous, previous_raw, raw):
        return False
    if fact_of(LINK_REFERENCE.sub("", raw)) is not None:
        return False  # a badge line the page set right under the abstract, not its last words
    if _indent(raw) == _indent(previous_raw) and _is_wrapped_link(previous_raw, raw):
        return True
    if raw.lstrip()[:1].islower():
        return True  # a sentence or a list of names does not start a line in lower case
    first_word = raw.split()[0].split("-")[0] if raw.split() else ""
    return len(previous_raw.rstrip()) + 1 + len(first_word) > width - WRAP_MARGIN


def _is_wrapped_marker(previous: Piece, previous_raw: str, raw: str) -> bool:
    """`- g(y)$` or `2) the second` under a paragraph line at its indentation: a minus sign or
    an enumeration the wrap put first; text browsers indent their own list items."""
    return previous.tag != "li" and _indent(raw) == _indent(previous_raw)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_wrapped_link(previous_raw: str, raw: str) -> bool:
    """A text browser wraps a link's text (a title) narrower than the page; the rest, with no
    reference of its own, sits under it."""
    return bool(LINK_REFERENCE.match(previous_raw.strip())) and not LINK_REFERENCE.search(raw)


def _join(left: str, right: str) -> str:
    if left.endswith("-") and right[:1].islower():
        return left + right  # a word broken at its hyphen by the wrap
    return f"{left} {right}"

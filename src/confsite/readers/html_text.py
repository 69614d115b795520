"""Turn a saved HTML page into the text a reader expects, in reading order, keeping file lines.

Block elements become lines separated by a blank line; headings and list items keep their
Markdown markers (`## `, `- `) so a saved Markdown-rendered list reads like its Markdown source.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from .base import SourceText

if TYPE_CHECKING:
    from bs4 import BeautifulSoup, Tag

SKIPPED = frozenset({"script", "style", "noscript", "template", "head", "svg", "button", "form"})
BLOCKS = frozenset(
    """address article aside blockquote dd details div dl dt fieldset figcaption figure footer
    h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody thead tfoot tr
    td th ul body html""".split()
)
EMPTY_SLOTS = frozenset({"p", "div", "h3", "h4"})
LIST_MARKERS = {"li": "- ", "h2": "## ", "h1": "# ", "h3": "### "}
SPACES = re.compile(r"[ \t\r\n\f]+")


def looks_like_html(text: str) -> bool:
    head = text[:2048].lstrip().lower()
    return head.startswith(("<!doctype html", "<html")) or ("<body" in head and "</" in text)


class _Flattener:
    def __init__(self) -> None:
        self.blocks: list[tuple[int, str]] = []
        self.parts: list[str] = []
        self.line = 1
        self.prefix = ""

    def end_block(self) -> None:
        text = SPACES.sub(" ", "".join(self.parts)).strip()
        if text:
            self.blocks.append((self.line, self.prefix + text))
        self.parts = []
        self.prefix = ""

    def walk(self, node: Tag) -> None:
        from bs4.element import Comment, Doctype, NavigableString, ProcessingInstruction, Tag

        for child in node.children:
            if isinstance(child, Comment | Doctype | ProcessingInstruction):
                continue
            if isinstance(child, NavigableString):
                if not self.parts and child.strip():
                    self.line = getattr(child.parent, "sourceline", None) or self.line
                self.parts.append(str(child))
            elif isinstance(child, Tag):
                self.visit(child)

    def visit(self, tag: Tag) -> None:
        name = tag.name.lower()
        if name in SKIPPED:
            return
        if name == "br":
            self.end_block()
            return
        if name not in BLOCKS:
            self.walk(tag)
            return
        self.end_block()
        self.line = tag.sourceline or self.line
        if name in EMPTY_SLOTS and not tag.get_text(strip=True):
            self.blocks.append((self.line, ""))  # a scraped field left empty: keep its place
            return
        self.prefix = LIST_MARKERS.get(name, "")
        self.walk(tag)
        self.end_block()


@functools.lru_cache(maxsize=1)
def html_tree(html: str) -> BeautifulSoup:
    """The parsed page, read only. A saved page is parsed to flatten it and again by the
    general reader that reads it (parsing is most of its reading): the last one is kept, and
    `read_records` lets it go once its source is read."""
    # Imported here: most builds read no HTML, and bs4 is slow to import.
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser")


def html_to_source_text(path: str, html: str) -> SourceText:
    flattener = _Flattener()
    flattener.walk(html_tree(html))
    flattener.end_block()
    lines: list[str] = []
    line_map: list[int] = []
    for file_line, text in flattener.blocks:
        if lines:
            lines.append("")
            line_map.append(file_line)
        if text:
            lines.append(text)
            line_map.append(file_line)
    return SourceText(path, "\n".join(lines), tuple(line_map), html)

"""Ground truth for eacl2024-main-accepted-html-in-md (EACL 2024 website, main-accepted.md).

A Markdown page whose list is raw HTML: under ``# Long Papers`` / ``# Short Papers``
one ``<p>`` holds lines ``<b>Title</b><br />Author, Author and Author<br /><br />``.
HTML entities are unescaped.
"""

import html
import pathlib
import re

LINE = re.compile(r"^<b>(.+?)</b><br />(.+?)<br /><br />\s*$")


def _authors(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text).strip()
    head, sep, last = text.rpartition(" and ")
    names = (head.split(", ") + [last]) if sep else [text]
    return [n.strip() for n in names if n.strip()]


def parse(path: pathlib.Path) -> list[dict]:
    papers = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        m = LINE.match(line.strip())
        if m:
            papers.append(
                {
                    "title": html.unescape(m.group(1)).strip(),
                    "authors": _authors(html.unescape(m.group(2))),
                    "abstract": None,
                }
            )
    return papers

"""Ground truth for naacl2019-accepted-bold-br-md (NAACL 2019 website, accepted.md).

Each paper is two lines: ``**Title**<br/>`` then ``Author, Author and Author``,
blocks separated by blank lines, under ``## Main Conference`` / ``## Industry Track``
/ ``## System Demonstrations``. HTML entities (``&lt;``) are unescaped.
"""

import html
import pathlib
import re

TITLE = re.compile(r"^\*\*(.+?)\*\*<br/>\s*$")


def _authors(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text).strip()
    head, sep, last = text.rpartition(" and ")
    names = (head.split(", ") + [last]) if sep else [text]
    return [n.strip() for n in names if n.strip()]


def parse(path: pathlib.Path) -> list[dict]:
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    papers = []
    for i, line in enumerate(lines):
        m = TITLE.match(line.strip())
        if m:
            papers.append(
                {
                    "title": html.unescape(m.group(1)).strip(),
                    "authors": _authors(html.unescape(lines[i + 1])),
                    "abstract": None,
                }
            )
    return papers

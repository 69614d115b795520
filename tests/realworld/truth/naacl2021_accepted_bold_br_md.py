"""Ground truth for naacl2021-accepted-bold-br-md (NAACL 2021 website, accepted.md).

One paper per line: ``**Title**<br>Author, Author and Author``. Sections are
setext headings (``Main Conference`` underlined by ``---``); front matter and the
intro paragraph are not papers. Inline HTML in a title (``ℓ<sub>1</sub>``) is
stripped to its text; ``[MASK]`` and ``CLEVR_HYP`` are literal title text.
"""

import html
import pathlib
import re

LINE = re.compile(r"^\*\*(.+?)\*\*<br>(.+)$")


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
            title = re.sub(r"<[^>]+>", "", m.group(1))  # inline HTML such as <sub>1</sub>
            papers.append(
                {
                    "title": html.unescape(title).strip(),
                    "authors": _authors(html.unescape(m.group(2))),
                    "abstract": None,
                }
            )
    return papers

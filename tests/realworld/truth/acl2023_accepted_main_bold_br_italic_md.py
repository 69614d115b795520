"""Ground truth for acl2023-accepted-main-bold-br-italic-md (ACL 2023 website,
accepted_main_conference.md).

One paper per line: ``**Title**<br>_Author, Author and Author_`` under
``## Long Papers`` / ``## Short Papers``. HTML entities are unescaped once
(``&quot;`` -> ``"``; ``RED&lt;sup&gt;FM&lt;/sup&gt;`` -> ``RED<sup>FM</sup>``, which is
what the page shows). Invisible characters in names (a U+202A before one name)
are kept as the file states them.
"""

import html
import pathlib
import re

LINE = re.compile(r"^\*\*(.+?)\*\*<br>_(.+)_\s*$")


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

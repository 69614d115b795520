"""Ground truth for cvpr2024-papers-with-code-awesome-md (amusi/CVPR2024-Papers-with-Code
README.md, an awesome-style list).

A Chinese intro, a table of contents of ``- [Topic](#anchor)`` links, then per topic
``<a name="..."></a>`` + ``# Topic`` and entries: a line ``**Title**`` (a few with
a leading space) followed by ``- Paper: url`` / ``- Code: url`` / ``- Homepage:``
bullets (sometimes ``Code：`` with a full-width colon or ``Paper  url`` with no
colon). No authors or abstracts are given. A paper filed under several topics is
listed once per topic; every listing is a record (109 listings, 95 distinct titles).
TOC links, topic headings and link bullets are not papers.
"""

import pathlib
import re

TITLE = re.compile(r"^\s*\*\*([^*]+)\*\*\s*$")


def parse(path: pathlib.Path) -> list[dict]:
    papers = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        m = TITLE.match(line)
        if m:
            papers.append(
                {"title": re.sub(r"\s+", " ", m.group(1)).strip(), "authors": [], "abstract": None}
            )
    return papers

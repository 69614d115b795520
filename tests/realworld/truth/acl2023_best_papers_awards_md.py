"""Ground truth for acl2023-best-papers-awards-md (ACL 2023 website, best_papers.md).

An awards post: intro text, then ``# Best Paper Awards`` / ``# Special Awards`` /
``# Outstanding Papers`` / ``# Area Chair Awards`` / ``# Demo Track Awards`` /
``# Student Research Workshop Awards`` / ``# Honorable Mentions`` /
``# Best Video Recordings``. Entries come in several shapes:

- ``- Title<br/>`` and ``_A, B and C_`` on the next line, or on the same line;
- ``**Resource Award**:`` then a line `` Title<br/>`` then ``_authors_``;
- ``- **Outstanding demo paper**: <br/> Title<br/> _authors_`` (award label first);
- ``- [Title](https://underline.io/...) _A, B, and C_`` (video awards, Oxford comma).

Every listed entry is one record in file order, so a paper named in two award
lists appears twice. Award labels are not part of titles.
"""

import pathlib
import re

BR_ENTRY = re.compile(
    r"(?m)^[ \t]*(?:-[ \t]+)?(?:\*\*[^*\n]+\*\*:[ \t]*<br/>[ \t]*)?"
    r"([^\n<]+?)[ \t]*<br/>\s*_([^_\n]+)_"
)
LINK_ENTRY = re.compile(r"(?m)^[ \t]*-[ \t]+\[([^\]]+)\]\([^)]*\)\s*_([^_\n]+)_")


def _authors(text: str) -> list[str]:
    text = re.sub(r"\s+", " ", text).strip()
    head, sep, last = text.rpartition(" and ")
    if not sep:
        return [n.strip() for n in text.split(",") if n.strip()]
    names = head.rstrip(",").split(",") + [last]  # ", and" (Oxford comma) or " and "
    return [n.strip() for n in names if n.strip()]


def parse(path: pathlib.Path) -> list[dict]:
    text = pathlib.Path(path).read_text(encoding="utf-8")
    hits = []
    for rx in (BR_ENTRY, LINK_ENTRY):
        for m in rx.finditer(text):
            hits.append((m.start(), re.sub(r"\s+", " ", m.group(1)).strip(), _authors(m.group(2))))
    hits.sort()
    return [{"title": t, "authors": a, "abstract": None} for _, t, a in hits]

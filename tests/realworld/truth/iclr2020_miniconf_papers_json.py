"""Ground truth for iclr2020-miniconf-papers-json (ICLR 2020 virtual site, sitedata/papers.json).

One JSON object keyed by OpenReview forum id; each value is
``{"content": {...}, "forum": id, "id": id}`` and the paper fields sit inside
``content``: ``title``, ``authors`` (list of names), ``authorids`` (emails),
``abstract``, ``TL;DR`` (a separate one-line summary, not the abstract), ``keywords``,
``_bibtex`` (a BibTeX string repeating title/authors), ``pdf``... Papers in file order
(dict order). Titles often carry double spaces, which are collapsed.
Author names in 38 papers carry contribution marks that are not part of the name:
``Md Amirul Islam*`` (83 names), ``Yi Wu†``; one has an invisible U+200E
(``Marcin Michalski\u200e``). These marks are dropped; nickname parentheses such as
``Krishnamurthy (Dj) Dvijotham`` are kept as written. One array item names two people
(``"Reinhard Heckel and Mahdi Soltanolkotabi"``, checked by eye): it is two authors, as the
site's own rendering of the same paper lists them.
"""

import json
import pathlib
import re


def _clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def _name(text):
    text = text.replace("\u200e", "")
    return _clean(re.sub(r"[*†]+\s*$", "", _clean(text)))


def parse(path: pathlib.Path) -> list[dict]:
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    papers = []
    for record in data.values():
        c = record["content"]
        papers.append(
            {
                "title": _clean(c["title"]),
                "authors": [
                    _name(part) for a in c["authors"] for part in a.split(" and ") if _name(part)
                ],
                "abstract": _clean(c.get("abstract")) or None,
            }
        )
    return papers

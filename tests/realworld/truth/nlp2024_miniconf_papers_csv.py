"""Ground truth for nlp2024-miniconf-papers-csv (NLP2024, Japanese ANLP annual meeting,
MiniConf sitedata/papers.csv at the commit that added abstracts).

Columns: UID,title,authors,keywords,sessions,abstract (keywords and sessions empty).
Authors are one comma-separated string in Japanese program style:
``○川原田将之, 石垣達也, 高村大也 (産総研)`` -- an affiliation in parentheses follows the
last author of each same-affiliation group, ``○`` marks the presenter and ``◊`` a
further marker (``○◊Youyuan Lin (京大)``). Affiliations may contain commas
(``(Yaraku, Inc.)``) and slashes (``(東北大/理研)``). Parenthesised affiliations are removed
first, then names are split on commas and the ○/◊ markers dropped (they are not part
of the name). Titles and abstracts are kept as written (full-width punctuation, PDF
ligatures such as ``ﬁ``).
"""

import csv
import pathlib
import re


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _authors(text: str) -> list[str]:
    text = re.sub(r"\([^()]*\)", " ", text)
    names = []
    for part in text.split(","):
        name = _clean(part.replace("○", "").replace("◊", ""))
        if name:
            names.append(name)
    return names


def parse(path: pathlib.Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        {
            "title": _clean(r["title"]),
            "authors": _authors(r["authors"]),
            "abstract": _clean(r["abstract"]) or None,
        }
        for r in rows
    ]

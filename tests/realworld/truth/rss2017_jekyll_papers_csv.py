"""Ground truth for rss2017-jekyll-papers-csv
(Robotics: Science and Systems 2017, Jekyll _data/papers.csv).

CSV with header talk_id,external_id,internal_id,title,abstract,authors,areas;
authors one comma-separated string 'A, B, C' (no 'and'); numeric HTML character
references in names and abstracts (Dietm&#252;ller, &#8220;...&#8221;), which the
site renders, so they are unescaped; runs of spaces inside some titles collapsed.
Rows are in file order (sorted by title; talk_id gives the session order).
"""

import csv
import html
import pathlib
import re


def _ws(s: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(s)).strip()


def parse(path: pathlib.Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        {
            "title": _ws(r["title"]),
            "authors": [_ws(a) for a in r["authors"].split(",") if a.strip()],
            "abstract": _ws(r["abstract"]) or None,
        }
        for r in rows
    ]

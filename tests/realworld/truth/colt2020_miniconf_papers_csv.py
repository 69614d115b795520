"""Ground truth for colt2020-miniconf-papers-csv (COLT 2020 MiniConf sitedata/papers.csv).

Comma-separated, CRLF line ends, RFC-4180 quoting (abstracts with commas are quoted).
Columns: UID,title,authors,abstract,keywords,session,slideslive_1,slideslive_2,zoom_1,
zoom_2,position_1,position_2. Authors are joined by ``|`` (some names carry a double
space or a trailing space, e.g. ``Chloé  Rouyer ``). Abstracts hold raw TeX and the
two-character sequence backslash-n where the source had line breaks; that sequence is
kept as the file states it (it cannot be told apart from TeX such as ``\\nabla``).
"""

import csv
import pathlib
import re


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse(path: pathlib.Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    papers = []
    for row in rows:
        authors = [_clean(a) for a in row["authors"].split("|") if _clean(a)]
        papers.append(
            {
                "title": _clean(row["title"]),
                "authors": authors,
                "abstract": _clean(row["abstract"]) or None,
            }
        )
    return papers

"""Ground truth for se-conf-paperlist-jsonl (SEConfPaperList scrape of ICSE/FSE/ASE/ISSTA
research-track papers 2020-2026, paper_spiders/papers.jsonl).

JSON Lines, one compact object per line: ``{"conf": "ICSE 2026", "title": ...,
"author": "A, B, C"}`` -- 26 conference-years in one file, newest first. ``author`` is
a single comma-joined string with scrape noise: a space before the comma
(``jincaofeng , Yilongfei Xu``), no-break spaces (``Guangba\\u00a0 Yu``), nicknames
in parentheses or quotes kept as written (``Tse-Hsun (Peter) Chen``,
``Anas "Nash" Mahmoud``). Titles may hold TeX (``\\textit{Blind Spots}``,
``$ZTD_{JAVA}$``), a literal dollar amount (``for $0.42 Each``) and ``<canvas>``;
kept as written. No abstracts.
"""

import json
import pathlib
import re


def _clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def parse(path: pathlib.Path) -> list[dict]:
    papers = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        papers.append(
            {
                "title": _clean(r["title"]),
                "authors": [_clean(a) for a in r["author"].split(",") if _clean(a)],
                "abstract": None,
            }
        )
    return papers

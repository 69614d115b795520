"""Ground truth for emnlp2020-miniconf-main-papers-csv
(EMNLP 2020 virtual site, sitedata/main_papers.csv).

MiniConf CSV: UID,title,authors,abstract,keywords,track,paper_type,pdf_url,presentation_id;
authors and keywords joined by '|'. UIDs main.N (Long/Short) plus TACL.N and CL.N
journal papers presented at the conference, all in one file. Raw '&' in titles.
"""

import csv
import pathlib
import re


def _ws(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def parse(path: pathlib.Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        {
            "title": _ws(r["title"]),
            "authors": [_ws(a) for a in r["authors"].split("|") if a.strip()],
            "abstract": _ws(r["abstract"]) or None,
        }
        for r in rows
    ]

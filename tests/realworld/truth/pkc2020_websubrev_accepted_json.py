"""Ground truth for pkc2020-websubrev-accepted-json (PKC 2020 accepted papers, websubrev export).

JSON object {"_source": "websubrev", "acceptedPapers": [...]}; each item has
title, authors (one string, names separated by '; '), a parallel affiliations
string, category, optional keywords. No abstracts. One item writes its two
authors as 'A and B' instead of 'A; B'; single-author items have no separator.
"""

import json
import pathlib
import re


def parse(path: pathlib.Path) -> list[dict]:
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    papers = []
    for item in data["acceptedPapers"]:
        names = []
        for part in item["authors"].split(";"):
            names.extend(re.split(r"\s+and\s+", part))
        papers.append({
            "title": re.sub(r"\s+", " ", item["title"]).strip(),
            "authors": [re.sub(r"\s+", " ", n).strip() for n in names if n.strip()],
            "abstract": None,
        })
    return papers

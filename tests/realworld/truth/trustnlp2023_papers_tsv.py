"""Ground truth for trustnlp2023-papers-tsv (TrustNLP workshop @ ACL 2023 site, papers.tsv).

A spreadsheet export: tab-separated, CRLF line ends, header
``ID  Title  Type  Archival?  attendance  author  email  co-author``. A cell that
contains a comma is wrapped in double quotes (spreadsheet CSV-style quoting inside a
TSV). ``author`` holds all authors as ``A, B and C`` (one row lists ``A, B, C, D``
with no ``and``). ``co-author`` is always empty; no abstracts.
"""

import csv
import pathlib
import re


def _clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def _authors(text):
    text = _clean(text)
    head, sep, last = text.rpartition(" and ")
    names = (head.split(",") + [last]) if sep else text.split(",")
    return [_clean(n) for n in names if _clean(n)]


def parse(path: pathlib.Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [
        {"title": _clean(r["Title"]), "authors": _authors(r["author"]), "abstract": None}
        for r in rows
    ]

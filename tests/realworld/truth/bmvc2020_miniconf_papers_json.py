"""Ground truth for bmvc2020-miniconf-papers-json (BMVC 2020 MiniConf papers.json, kept in
the BMVC 2021 site repo under conference/papers/).

A JSON ARRAY of ``{"content": {...}, "forum": uid, "id": uid}``; fields live in
``content``: ``title``, ``authors`` (list), ``abstract``, ``TLDR`` (here a verbatim copy
of the abstract), ``keywords``, ``session``, ``link``, ... Minified (one line).

Author-list defect: an author with a comma in the affiliation was split in two list
items, ``["Jeffrey Byrne (STR", "Visym Labs)", ...]`` (2 papers). Items are re-joined
while parentheses are unbalanced and the parenthesised affiliation removed, giving
``Jeffrey Byrne``. A tab inside a name (``Juho\\t Kannala``) is collapsed.
"""

import json
import pathlib
import re


def _clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def _authors(items):
    merged, buf = [], ""
    for item in items:
        buf = f"{buf}, {item}" if buf else item
        if buf.count("(") <= buf.count(")"):
            merged.append(buf)
            buf = ""
    if buf:
        merged.append(buf)
    names = [_clean(re.sub(r"\(.*\)", " ", m)) for m in merged]
    return [n for n in names if n]


def parse(path: pathlib.Path) -> list[dict]:
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    return [
        {
            "title": _clean(r["content"]["title"]),
            "authors": _authors(r["content"]["authors"]),
            "abstract": _clean(r["content"].get("abstract")) or None,
        }
        for r in data
    ]

"""Ground truth for mlsys2023-paperlib-json (MLSys 2023 accepted papers, paperlib community
metadata collection, metadata/conferences/mlsys/mlsys2023.json).

A JSON OBJECT ``{"info": {name, short_name, date}, "collection": [...]}``; each paper
is ``{title, authors: [{first_name, last_name}], publication, pubTime, pubType}``.
Names were split mechanically at the first space (``{"first_name": "Se",
"last_name": "Jung Kwon"}``, ``"T."`` / ``"S. Eugene Ng"``), so a name is
``first_name + " " + last_name``. One author object is empty (``{"first_name": "",
"last_name": ""}``) and is not an author. No abstracts.
"""

import json
import pathlib
import re


def _clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def parse(path: pathlib.Path) -> list[dict]:
    data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    papers = []
    for p in data["collection"]:
        names = [
            _clean(f"{a.get('first_name', '')} {a.get('last_name', '')}") for a in p["authors"]
        ]
        papers.append(
            {"title": _clean(p["title"]), "authors": [n for n in names if n], "abstract": None}
        )
    return papers

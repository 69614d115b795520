"""Ground truth for aistats2021-accepted-papers-yml (AISTATS 2021 site, _data/accepted_papers.yml).

A YAML list of ``{PaperID: '4', PaperTitle: ..., Authors: ..., AuthorNames: ...}``
(CMT-style column names). ``Authors`` is ``Name (Affiliation); Name (Affiliation)``
and semicolons also occur inside affiliations (``(NORMENT; Oslo University Hospital)``),
so the clean ``AuthorNames`` column (``A, B, C``) is used. The file is pure ASCII:
non-ASCII letters are YAML double-quoted escapes (``"Sch\\xF6lkopf"``, ``Karla\\u0161``)
that the YAML loader decodes; titles with a colon are single-quoted. No abstracts.
"""

import pathlib
import re

import yaml


def _clean(text):
    return re.sub(r"\s+", " ", str(text or "")).strip()


def parse(path: pathlib.Path) -> list[dict]:
    data = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))
    return [
        {
            "title": _clean(p["PaperTitle"]),
            "authors": [_clean(a) for a in str(p["AuthorNames"]).split(",") if _clean(a)],
            "abstract": None,
        }
        for p in data
    ]

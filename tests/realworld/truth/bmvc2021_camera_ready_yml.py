"""Ground truth for bmvc2021-camera-ready-yml (BMVC 2021 Jekyll site, _data/camera_ready.yml).

YAML mapping with one key ``papers:`` holding a list; each item has ``id``, ``order``,
``poster_session``, ``session_id``, (``oral_session``), ``title``, ``authors`` (a list of
``{author: "Name (Affiliation)"}``), ``all_authors`` (display string
``"A, B, C and D"``), ``code``, ``keywords`` (list of ``{word: ...}``), ``paper``,
``supp``, ``abstract``.

The two author fields disagree: the ``authors`` list was made by splitting on commas,
so affiliations containing commas or nested parentheses are broken across items
(``"Kaili Wang (KU Leuven"``, ``"University of Antwerp, imec-IDLab)"``, even ``")"``),
and it keeps the submitters' casing (``kai wang``). ``all_authors`` is what the site
prints (programme/accepted_papers.md) and is used here: parenthesised affiliations
that it still carries for some authors are removed (balanced, nested allowed), then
names are split on ``, `` and `` and ``. Whitespace (a tab in ``Linyan \\tLi``) is
collapsed. Papers in file order (not sorted by ``order``).
"""

import pathlib
import re

import yaml


def _clean(text):
    return re.sub(r"\s+", " ", str(text or "")).strip()


def _strip_parens(text):
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _authors(text):
    text = _clean(_strip_parens(text))
    parts = re.split(r",\s*|\s+and\s+", text)
    return [_clean(p) for p in parts if _clean(p)]


def parse(path: pathlib.Path) -> list[dict]:
    data = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))
    return [
        {
            "title": _clean(p["title"]),
            "authors": _authors(p["all_authors"]),
            "abstract": _clean(p.get("abstract")) or None,
        }
        for p in data["papers"]
    ]

"""Ground truth for recomb2024-proceedings-bib (RECOMB proceedings archive, bibtex/recomb2024.bib).

Generated BibTeX without abstracts: 57 entries, ``@article`` (journal version, with
``journal``) mixed with ``@inproceedings`` (``booktitle``); every entry also carries
``proceedings_name``/``proceedings_pages``/``proceedings_doi``/``preprint_id``. One
field per line, brace-delimited, plain UTF-8 (no LaTeX: ``Tomáš Vinař``).

The ``author`` field is NOT BibTeX style: it is a comma-separated list
(``Kapil Devkota, Anselm Blumer, Xiaozhe Hu``), once ``A and B``, once Oxford style
``A, B, and C``. Authors are split on commas and `` and ``. Cite keys are odd
(``Gibney,2024`` with a comma, ``Şapcı2024``, ``large-scale2024``).

One entry (``large-scale2024``) has the paper TITLE in its author field; it states no
author, so its authors are ``[]`` here.
"""

import pathlib
import re


def _clean(text):
    return re.sub(r"\s+", " ", text or "").strip()


def _field(body, name):
    m = re.search(r"(?m)^\s*" + name + r"\s*=\s*\{(.*)\},?\s*$", body)
    return m.group(1) if m else None


def parse(path: pathlib.Path) -> list[dict]:
    text = pathlib.Path(path).read_text(encoding="utf-8")
    papers = []
    for chunk in re.split(r"(?m)^@", text)[1:]:
        title = _clean(_field(chunk, "title"))
        raw = _clean(_field(chunk, "author"))
        if raw == title:  # data error: title copied into author
            authors = []
        else:
            authors = [_clean(a) for a in re.split(r",\s*and\s+|\s+and\s+|,", raw) if _clean(a)]
        papers.append({"title": title, "authors": authors, "abstract": None})
    return papers

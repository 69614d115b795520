"""Ground truth for icml2025-poster-session-html (icml.cc virtual site, 2025 session page).

Each paper is a ``div.track-schedule-card``: title in ``h5 strong a``, authors in
``p.text-muted`` joined by ``&middot;``, abstract in ``div.abstract`` (sometimes a
``<p>`` nested in a ``<p>``, with inline ``<strong>`` markup and TeX).
"""

import pathlib
import re

from bs4 import BeautifulSoup


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _abstract(div) -> str:
    # Block boundaries (<p>, <br>, <li>) become spaces; inline tags (<strong>, <em>)
    # are joined without a separator so "<strong>La</strong>nguage" stays one word.
    for br in div.find_all("br"):
        br.replace_with(" ")
    for block in div.find_all(["p", "li", "div"]):
        block.insert_before(" ")
        block.insert_after(" ")
    return _clean(div.get_text())


def parse(path: pathlib.Path) -> list[dict]:
    soup = BeautifulSoup(pathlib.Path(path).read_text(encoding="utf-8"), "html.parser")
    papers = []
    for card in soup.select("div.track-schedule-card"):
        title = _clean(card.select_one("h5 a").get_text())
        raw_authors = card.select_one("p.text-muted").get_text()
        authors = [_clean(a) for a in raw_authors.split("\u00b7") if _clean(a)]
        abstract = _abstract(card.select_one("div.abstract"))
        papers.append({"title": title, "authors": authors, "abstract": abstract or None})
    return papers

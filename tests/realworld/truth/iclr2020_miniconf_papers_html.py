"""Ground truth for iclr2020-miniconf-papers-html (ICLR 2020 virtual site, MiniConf build).

Each paper is a Bootstrap ``div.card``: title in ``h4.card-title``, authors in
``h6.card-subtitle`` one per line, each followed by a trailing comma (also the last).
The card body text is a blurb (the TL;DR, or the abstract cut to ~250 chars + '...'),
not the abstract, so ``abstract`` is None.  Keywords and the 'Visit' button are not paper data.
Name cleanup (hand-checked): the equal-contribution marker '*' after 83 names is dropped, and
the one entry 'Reinhard Heckel and Mahdi Soltanolkotabi' (two people in one comma slot) is
split on ' and '.
"""

import pathlib
import re

from bs4 import BeautifulSoup


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse(path: pathlib.Path) -> list[dict]:
    soup = BeautifulSoup(pathlib.Path(path).read_text(encoding="utf-8"), "html.parser")
    papers = []
    for card in soup.select("div.card"):
        title = _clean(card.select_one("h4.card-title").get_text())
        raw = card.select_one("h6.card-subtitle").get_text()
        authors = []
        for item in raw.split(","):
            item = _clean(item).rstrip("*").strip()
            if item:
                authors.extend(part.strip() for part in item.split(" and "))
        papers.append({"title": title, "authors": authors, "abstract": None})
    return papers

"""Ground truth for iclr2020-miniconf-poster-page-html (ICLR 2020 MiniConf single poster page).

The page is about ONE paper: h3.card-title title, h6.card-subtitle authors (trailing commas),
'TL;DR:' paragraph, 'Abstract:' paragraph.  The 'Similar Papers' cards further down (h5
titles with TL;DR blurbs) are recommendations, not this page's paper, and are excluded.
"""

import pathlib
import re

from bs4 import BeautifulSoup


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse(path: pathlib.Path) -> list[dict]:
    soup = BeautifulSoup(pathlib.Path(path).read_text(encoding="utf-8"), "html.parser")
    card = soup.select_one("div.card div.card-body")
    title = _clean(card.select_one("h3.card-title").get_text())
    authors = [
        _clean(a) for a in card.select_one("h6.card-subtitle").get_text().split(",") if _clean(a)
    ]
    abstract = None
    for para in card.select("p.card-text"):
        label = para.select_one("span.font-weight-bold")
        if label and _clean(label.get_text()) == "Abstract:":
            label.extract()
            abstract = _clean(para.get_text())
    return [{"title": title, "authors": authors, "abstract": abstract}]
